# Sourced by the wasm runners: sets VECTOR_DIRS (colon-separated, absolute) as CONTRACT.md
# says, when conformance.sh did not (XBORDER_VECTOR_DIRS).
# shellcheck source=../lib.sh
. "$ROOT/tests/runners/lib.sh"
xb_vector_dirs
export VECTOR_DIRS=$XBORDER_VECTOR_DIRS
