#!/usr/bin/env bash
# Node runner of the conformance vectors (tests/runners/CONTRACT.md): the packed npm package
# (target/wasm-npm/xborder-wasm.tgz, built once by bindings-wasm/build.sh) installed into a
# scratch project and used through `import 'xborder-wasm'`, as a user would.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
bash "$ROOT/bindings-wasm/build.sh" >&2          # no-op when XBORDER_BUILT_WASM=1 or up to date
SCRATCH=$ROOT/target/wasm-npm/consumer-node
bash "$ROOT/bindings-wasm/scripts/consumer.sh" "$SCRATCH" >&2
cp "$HERE/run.mjs" "$HERE/conformance.mjs" "$SCRATCH/"
# shellcheck source=vectors.sh
. "$HERE/vectors.sh"
cp "$HERE/files.mjs" "$SCRATCH/"
exec node "$SCRATCH/run.mjs" "$VECTOR_DIRS" "$VECTOR_FILES" "$OWN_VECTORS"
