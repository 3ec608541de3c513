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
# Contract v4's api.json: the Node module has its ops (issue 34). The browser runner does not read
# it yet: the browser module is built without the catch-up (its size budget; ARCHITECTURE.md).
xb_vector_file_api
export VECTOR_FILES=$XBORDER_VECTOR_FILES
cp "$HERE/files.mjs" "$SCRATCH/"
exec node "$SCRATCH/run.mjs" "$VECTOR_DIRS" "$VECTOR_FILES" "$OWN_VECTORS"
