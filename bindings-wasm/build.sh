#!/usr/bin/env bash
# Builds the npm package xborder-wasm, once:
#   bindings-wasm/pkg/                       the package directory (what `npm pack` packs)
#   target/wasm-npm/xborder-wasm.tgz          the packed tarball every test installs
# Steps: toolchain setup, cargo (wasm32, profiles from wasm-release.toml: wasm-release for
# browsers, size first; wasm-node for Node, speed first; wasm-forms, the crate without its
# default features, for `xborder-wasm/forms`: beneficiaries only), wasm-bindgen (web and nodejs targets, the CLI
# pinned to the crate's =0.2.130), wasm-opt (binaryen from npm: -Oz for browsers, -O3 for Node),
# the public API (js/api/: copied as ES modules for browsers, bundled by rolldown into
# node/api.cjs for Node), package files, npm pack. Idempotent: when nothing that goes into the
# package changed, it says so and stops. Set XBORDER_BUILT_WASM=1 to skip it entirely.
#
# build.sh --test-hooks builds the package's test build instead, the same way with the cargo
# feature `test-hooks` (`__panicForTests`, for tests/panic.mjs): target/wasm-npm/test-hooks/pkg/
# and target/wasm-npm/xborder-wasm-test-hooks.tgz. Never published; the published package has no
# test hook (tests/tarball.mjs checks).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
cd "$ROOT"
say() { echo "build-wasm: $*"; }

OUT=$ROOT/target/wasm-npm
if [ "${1:-}" = --test-hooks ]; then
  FLAVOUR=test-hooks
  PKG=$OUT/test-hooks/pkg
  TARBALL=$OUT/xborder-wasm-test-hooks.tgz
  FEATURES=(--features test-hooks)
  TARGETS=(nodejs) # the panic test runs in Node only
  declare -A PROFILE=([nodejs]=wasm-test-hooks)
  declare -A OPT=([nodejs]=-Oz)
  declare -A CARGO_ARGS=()
elif [ $# -eq 0 ]; then
  FLAVOUR=release
  PKG=$HERE/pkg
  TARBALL=$OUT/xborder-wasm.tgz
  FEATURES=()
  TARGETS=(nodejs web forms)
  # Browsers download the module: size first (the budget, tests/size.sh). Node loads it once
  # per process and runs it on every webhook: the same code compiled for speed. The forms module
  # is the browsers' with beneficiaries only: without signatures, envelopes, claims, the
  # receiver, registration, event names or pagination (cargo features webhooks, events,
  # pagination).
  declare -A PROFILE=([nodejs]=wasm-node [web]=wasm-release [forms]=wasm-forms)
  declare -A OPT=([nodejs]=-O3 [web]=-Oz [forms]=-Oz)
  # The browsers' module leaves out the catch-up and the API's error answers (cargo feature
  # `api`: +18.7 KB gzipped measured, a server's job; the web entry says so where they are
  # called).
  declare -A CARGO_ARGS=([forms]=--no-default-features [web]="--no-default-features --features webhooks,events,pagination")
else
  echo "usage: build.sh [--test-hooks]" >&2; exit 2
fi
if [ "${XBORDER_BUILT_WASM:-0}" = 1 ] && [ -f "$TARBALL" ]; then
  say "XBORDER_BUILT_WASM=1: reusing $TARBALL"
  exit 0
fi

say "toolchain: tests/tools/setup.sh wasm"
bash tests/tools/setup.sh wasm | sed 's/^/  /'
# shellcheck disable=SC1091
. "${XBORDER_CACHE:-$HOME/.cache/xborder}/env.sh"

CRATE_WB=$(sed -n 's/^wasm-bindgen = "=\(.*\)"/\1/p' "$HERE/Cargo.toml")
CLI_WB=$(wasm-bindgen --version | awk '{print $2}')
[ "$CRATE_WB" = "$CLI_WB" ] || { echo "build-wasm: ERROR: crate pins wasm-bindgen $CRATE_WB, CLI is $CLI_WB" >&2; exit 1; }

declare -A WASM
for target in "${TARGETS[@]}"; do
  profile=${PROFILE[$target]}
  say "cargo build -p xborder-wasm --target wasm32-unknown-unknown --profile $profile ${FEATURES[*]} ${CARGO_ARGS[$target]:-}(for $target)"
  # shellcheck disable=SC2086 # CARGO_ARGS: one flag or none
  cargo build -p xborder-wasm --target wasm32-unknown-unknown --profile "$profile" "${FEATURES[@]}" ${CARGO_ARGS[$target]:-} \
    --config "$HERE/wasm-release.toml" 2>&1 | sed 's/^/  /'
  WASM[$target]=$ROOT/target/wasm32-unknown-unknown/$profile/xborder_wasm.wasm
done

VERSION=$(cargo metadata --format-version 1 --no-deps 2>/dev/null \
  | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const p=JSON.parse(s).packages.find(p=>p.name==="xborder-wasm");console.log(p.version)})')

# Everything the package is made of: skip the rest when it is unchanged.
INPUTS=$( { sha256sum "${WASM[@]}" "$HERE"/npm/* "$HERE"/js/imports/*.js "$HERE"/js/api/*.js "$HERE/README.md" "$HERE/build.sh" "$HERE/wasm-release.toml" \
              "$ROOT/LICENSE-MIT" "$ROOT/LICENSE-APACHE";
            echo "$FLAVOUR $VERSION $CLI_WB $(wasm-opt --version)"; } | sha256sum | cut -c1-16)
if [ -f "$TARBALL" ] && [ "$(cat "$PKG/.inputs" 2>/dev/null)" = "$INPUTS" ]; then
  say "package up to date ($INPUTS): $TARBALL"
  exit 0
fi

rm -rf "$PKG"
mkdir -p "$PKG" "$OUT"
WASM_OPT_FLAGS=(--converge --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext
  --enable-mutable-globals --enable-multivalue --enable-reference-types
  --low-memory-unused --zero-filled-memory --strip-debug --strip-producers --strip-target-features)
declare -A DIR=([nodejs]=node [web]=web [forms]=forms)
declare -A BINDGEN=([nodejs]=nodejs [web]=web [forms]=web)
for target in "${TARGETS[@]}"; do
  dir=$PKG/${DIR[$target]}
  say "wasm-bindgen --target ${BINDGEN[$target]} -> ${dir#"$ROOT"/}"
  wasm-bindgen --target "${BINDGEN[$target]}" --no-typescript --out-dir "$dir" --out-name xborder_wasm "${WASM[$target]}" 2>&1 \
    | grep -v 'target_features' | sed 's/^/  /' || true
  say "wasm-opt ${OPT[$target]} ${dir#"$ROOT"/}/xborder_wasm_bg.wasm"
  wasm-opt "${OPT[$target]}" "${WASM_OPT_FLAGS[@]}" "$dir/xborder_wasm_bg.wasm" -o "$dir/xborder_wasm_bg.wasm.opt"
  mv "$dir/xborder_wasm_bg.wasm.opt" "$dir/xborder_wasm_bg.wasm"
  rm -f "$dir/.gitignore" "$dir/package.json"
done

# The JS snippets (js/imports/: what the Rust side imports, XborderError among them): ESM as
# written; CommonJS for the Node build. Each build has the snippets its Rust side imports, in
# the same folder: GLUE.
GLUE=$(cd "$PKG/node" && dirname "$(ls snippets/*/js/imports/errors.js)")
for dir in web forms; do
  [ -d "$PKG/$dir" ] || continue
  [ -f "$PKG/$dir/$GLUE/errors.js" ] || { echo "build-wasm: ERROR: snippet paths differ in $dir/" >&2; exit 1; }
done
for f in "$PKG/node/$GLUE"/*.js; do
  sed -i 's/^export { \(.*\) };$/module.exports = { \1 };/' "$f"
  grep -q '^module.exports = {' "$f" || { echo "build-wasm: ERROR: export line not found in ${f#"$PKG"/}" >&2; exit 1; }
done
echo '{ "type": "commonjs" }' > "$PKG/node/package.json"

# The public API (js/api/, one module per concern): the ES modules as written, for the browser
# entries (web.js, forms.js: bundlers keep what a page imports); one CommonJS file for Node's.
mkdir -p "$PKG/api"
cp "$HERE"/js/api/*.js "$PKG/api/"
say "rolldown js/api/index.js --format cjs -> ${PKG#"$ROOT"/}/node/api.cjs"
rolldown "$HERE/js/api/index.js" --format cjs --file "$PKG/node/api.cjs" 2>&1 | grep -iE 'error|warn' | sed 's/^/  /' || true
[ -s "$PKG/node/api.cjs" ] || { echo "build-wasm: ERROR: node/api.cjs not written" >&2; exit 1; }

say "package files -> ${PKG#"$ROOT"/}"
# Lines marked `//@TEST-HOOKS ` export the test hooks: kept (unmarked) in the test build only.
if [ "$FLAVOUR" = test-hooks ]; then HOOKS='s|//@TEST-HOOKS ||'; else HOOKS='/\/\/@TEST-HOOKS /d'; fi
for f in index.cjs index.mjs web.js index.d.ts web.d.ts forms.js forms-node.mjs forms.d.ts; do
  sed -e "s|@GLUE@|$GLUE|g" -e "$HOOKS" "$HERE/npm/$f" > "$PKG/$f"
done
if grep -q '__panicForTests' "$PKG"/index.* "$PKG/web.js" "$PKG/forms.js" "$PKG/forms-node.mjs" && [ "$FLAVOUR" = release ]; then
  echo "build-wasm: ERROR: a test hook in the package's entry points" >&2; exit 1
fi
cp "$PKG/index.d.ts" "$PKG/index.d.cts"
sed "s|@VERSION@|$VERSION|" "$HERE/npm/package.json" > "$PKG/package.json"
cp "$HERE/README.md" "$PKG/README.md"
cp "$ROOT/LICENSE-MIT" "$ROOT/LICENSE-APACHE" "$PKG/"

for dir in node web forms; do
  [ -d "$PKG/$dir" ] || continue
  raw=$(stat -c%s "$PKG/$dir/xborder_wasm_bg.wasm")
  gz=$(gzip -9c "$PKG/$dir/xborder_wasm_bg.wasm" | wc -c)
  say "$dir/xborder_wasm_bg.wasm: $raw bytes, $gz gzipped"
done

say "npm pack -> ${TARBALL#"$ROOT"/}"
rm -f "$OUT/xborder-wasm-$VERSION.tgz"
(cd "$PKG" && npm pack --silent --pack-destination "$OUT" >/dev/null)
mv "$OUT/xborder-wasm-$VERSION.tgz" "$TARBALL"
echo "$INPUTS" > "$PKG/.inputs"
say "done: $TARBALL ($(stat -c%s "$TARBALL") bytes)"
