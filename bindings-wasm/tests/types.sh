#!/usr/bin/env bash
# The package's types as a TypeScript user meets them, checked with `tsc --noEmit --strict`
# against the installed tarball: consumer.ts (every function, class and type; what a wrong kind
# looks like to the compiler) and types/*.ts: a user's own declared interfaces of the rules
# document, the bank list and the list responses (declared.ts), JSON files imported with
# resolveJsonModule (json.ts: the documents of the public vectors, types/*.json), code written
# for exactOptionalPropertyTypes (exact.ts), the form model of issue 31 (forms.ts: beneficiaryForm,
# checkAccount narrowed on its state, normalizeBeneficiary, reasons), and lib.ts (both entries
# under lib ["es2022"] and ["es2022", "dom"] alone, skipLibCheck false); `// @ts-expect-error` lines show what is still
# refused (an unused one fails the compile), and `Equals<...>` that return types stay precise.
# Compiled three ways: module nodenext (a Node project), the same with exactOptionalPropertyTypes,
# and module esnext with moduleResolution bundler (a Vite or webpack app). The JSON fixtures are
# then checked to be the vectors' documents, read by the package as the vectors expect.
# types.sh DIR [TARBALL]: DIR is the scratch consumer project (tsc on PATH: ~/.cache/xborder/env.sh).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
DIR=$1
mkdir -p "$DIR"
[ -f "$DIR/package.json" ] || echo '{ "name": "xborder-types-consumer", "private": true, "type": "module" }' > "$DIR/package.json"
bash "$HERE/../scripts/consumer.sh" "$DIR" ${2:+"$2"} # TARBALL: the package's by default
rm -rf "$DIR/types"
mkdir -p "$DIR/types"
cp "$HERE/consumer.ts" "$DIR/consumer.ts"
cp "$HERE"/types/*.ts "$HERE"/types/*.json "$HERE"/types/*.mjs "$DIR/types/"
FILES='"consumer.ts", "types/declared.ts", "types/json.ts", "types/exact.ts", "types/forms.ts"'
# tsconfig NAME MODULE RESOLUTION EXTRA: a strict, no-emit project of FILES.
tsconfig() {
  cat > "$DIR/tsconfig.$1.json" <<JSON
{ "compilerOptions": { "strict": true, "noEmit": true, "module": "$2", "moduleResolution": "$3", "resolveJsonModule": true,
    "target": "es2022", "lib": ["es2022", "dom"], "skipLibCheck": false, "types": []$4 },
  "files": [$FILES] }
JSON
}
tsconfig nodenext nodenext nodenext ''
tsconfig exact nodenext nodenext ', "exactOptionalPropertyTypes": true'
tsconfig bundler esnext bundler ''
cd "$DIR"
tsc --version
for config in nodenext exact bundler; do
  tsc --noEmit -p "tsconfig.$config.json"
  echo "types: tsc --strict -p tsconfig.$config.json: ok"
done
# Where users compile (issue 32): both entries' declarations with only a target's default
# libraries, no DOM and with DOM, skipLibCheck false, no @types (types/lib.ts alone).
libs=0
for lib in '"es2022"' '"es2022", "dom"'; do
  for mode in 'nodenext nodenext' 'esnext bundler'; do
    set -- $mode
    cat > "$DIR/tsconfig.lib.json" <<JSON
{ "compilerOptions": { "strict": true, "noEmit": true, "module": "$1", "moduleResolution": "$2",
    "target": "es2022", "lib": [$lib], "skipLibCheck": false, "types": [] },
  "files": ["types/lib.ts"] }
JSON
    tsc --noEmit -p tsconfig.lib.json
    echo "types: tsc --strict, lib [$lib], module $1, skipLibCheck false: types/lib.ts ok"
    libs=$((libs + 1))
  done
done
expected=$(cat consumer.ts types/*.ts | grep -c '@ts-expect-error')
exact=$(grep -o 'Equals<' types/declared.ts types/json.ts types/exact.ts types/forms.ts | wc -l)
node types/fixtures.mjs "$ROOT/../shared/conformance"
echo "types: ok, consumer.ts + types/{declared,json,exact,forms}.ts compiled 3 ways (nodenext, exactOptionalPropertyTypes, bundler), types/lib.ts $libs ways (lib es2022 with and without dom), $expected refusals (@ts-expect-error) and $exact exact types (Equals) held"
