#!/usr/bin/env bash
# tsc --noEmit --strict on a TypeScript consumer of the installed tarball (ESM, nodenext).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=$1
mkdir -p "$DIR"
[ -f "$DIR/package.json" ] || echo '{ "name": "xborder-types-consumer", "private": true, "type": "module" }' > "$DIR/package.json"
bash "$HERE/../scripts/consumer.sh" "$DIR"
cp "$HERE/consumer.ts" "$DIR/consumer.ts"
cat > "$DIR/tsconfig.json" <<'JSON'
{ "compilerOptions": { "strict": true, "noEmit": true, "module": "nodenext", "moduleResolution": "nodenext",
    "target": "es2022", "lib": ["es2022", "dom"], "skipLibCheck": false, "types": [] },
  "files": ["consumer.ts"] }
JSON
(cd "$DIR" && tsc --version && tsc --noEmit -p tsconfig.json)
echo "types: tsc --noEmit --strict on consumer.ts: ok"
