#!/usr/bin/env bash
# consumer.sh DIR [TARBALL]: a scratch npm project in DIR with the packed tarball installed, as a
# user would (`npm install ./xborder-wasm.tgz`). Reinstalls only when the tarball changed.
# TARBALL defaults to the package (target/wasm-npm/xborder-wasm.tgz); the test build's
# (xborder-wasm-test-hooks.tgz) is installed the same way, under the same name, by the panic test.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DIR=$1
TARBALL=${2:-$ROOT/target/wasm-npm/xborder-wasm.tgz}
[ -f "$TARBALL" ] || { echo "consumer: no $TARBALL (run bindings-wasm/build.sh)" >&2; exit 1; }
mkdir -p "$DIR"
SUM=$(sha256sum "$TARBALL" | cut -c1-16)
if [ "$(cat "$DIR/.tarball" 2>/dev/null)" = "$SUM" ] && [ -f "$DIR/node_modules/xborder-wasm/package.json" ]; then
  exit 0
fi
[ -f "$DIR/package.json" ] || echo '{ "name": "xborder-consumer", "private": true, "version": "0.0.0" }' > "$DIR/package.json"
cp "$TARBALL" "$DIR/xborder-wasm.tgz"
(cd "$DIR" && npm install --offline --no-audit --no-fund --loglevel=error ./xborder-wasm.tgz >/dev/null)
echo "$SUM" > "$DIR/.tarball"
echo "consumer: installed xborder-wasm.tgz ($SUM) into $DIR"
