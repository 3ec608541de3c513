#!/usr/bin/env bash
# Browser runner of the conformance vectors (tests/runners/CONTRACT.md): the same cases as the
# Node runner, run inside a page in headless Chromium (playwright-core) on the packed npm
# package, loaded by a plain <script type="module"> through an import map.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
bash "$ROOT/bindings-wasm/build.sh" >&2          # no-op when XBORDER_BUILT_WASM=1 or up to date
# shellcheck source=../lib.sh
. "$ROOT/tests/runners/lib.sh"
xb_tools browser '-n "${XBORDER_CHROMIUM:-}" -a -n "${XBORDER_NODE_TOOLS:-}"'
SCRATCH=$ROOT/target/wasm-npm/consumer-browser
bash "$ROOT/bindings-wasm/scripts/consumer.sh" "$SCRATCH" >&2
# shellcheck source=../node/vectors.sh
. "$HERE/../node/vectors.sh"
exec node "$HERE/run.mjs" "$SCRATCH" "$VECTOR_DIRS" "$VECTOR_FILES" "$OWN_VECTORS"
