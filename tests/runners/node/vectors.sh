# Sourced by the wasm runners: sets VECTOR_DIRS (colon-separated, absolute) as CONTRACT.md
# says, when conformance.sh did not (XBORDER_VECTOR_DIRS), and VECTOR_FILES, the single files read
# beside them (XBORDER_VECTOR_FILES: contract v4's accounts.json and forms.json).
# shellcheck source=../lib.sh
. "$ROOT/tests/runners/lib.sh"
xb_vector_dirs
export VECTOR_DIRS=$XBORDER_VECTOR_DIRS
export VECTOR_FILES=$XBORDER_VECTOR_FILES
# The project's vectors of ops not every runtime has yet (issue 33's delivery.handle), read
# beside the folders as the Rust runner reads them.
export OWN_VECTORS=$ROOT/tests/vectors/handling
