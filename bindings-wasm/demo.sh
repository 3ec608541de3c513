#!/usr/bin/env bash
# The main-job scenario in Node, through the packed npm package installed as a user would.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
bash "$ROOT/bindings-wasm/build.sh" >&2
SCRATCH=$ROOT/target/wasm-npm/consumer-demo
bash "$ROOT/bindings-wasm/scripts/consumer.sh" "$SCRATCH" >&2
cp "$ROOT/bindings-wasm/demo-node/demo.mjs" "$SCRATCH/"
node "$SCRATCH/demo.mjs" "$ROOT/core/examples/fixtures"
