#!/usr/bin/env bash
# Benchmarks of the npm package in Node (bench.mjs), on the packed tarball installed as a user
# installs it. Measured, never tested: run it by hand to compare a change (before / after).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
bash "$ROOT/bindings-wasm/build.sh" >/dev/null
SCRATCH=$ROOT/target/wasm-npm/consumer-bench
bash "$ROOT/bindings-wasm/scripts/consumer.sh" "$SCRATCH" >&2
cp "$HERE/bench.mjs" "$SCRATCH/"
echo "node $(node --version), $(uname -m); xborder-wasm $(node -p "require('$SCRATCH/node_modules/xborder-wasm/package.json').version")"
node "$SCRATCH/bench.mjs"
