#!/usr/bin/env bash
# Installs the Node receiver's dependencies: the npm package built from this checkout
# (bindings-wasm/build.sh, idempotent) and ioredis from the registry. Idempotent.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
say() { echo "receiver-node: $*"; }
bash "$ROOT/bindings-wasm/build.sh"
tarball=$ROOT/target/wasm-npm/xborder-wasm.tgz
stamp=$HERE/node_modules/.xborder-tarball
sum=$(sha256sum "$tarball" | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sum" ] && [ -d "$HERE/node_modules/ioredis" ]; then
  say "node_modules up to date"
else
  say "npm install (xborder-wasm from ${tarball#"$ROOT"/}, ioredis)"
  # npm keeps an installed file: dependency whose version did not change: drop it first.
  rm -rf "$HERE/node_modules/xborder-wasm"
  (cd "$HERE" && npm install --no-audit --no-fund --no-package-lock --silent)
  echo "$sum" > "$stamp"
fi
