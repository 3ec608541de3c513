# Sourced by the wasm runners: sets VECTOR_DIRS (colon-separated, absolute) as CONTRACT.md
# says, when conformance.sh did not (XBORDER_VECTOR_DIRS).
if [ -n "${XBORDER_VECTOR_DIRS:-}" ]; then
  VECTOR_DIRS=$XBORDER_VECTOR_DIRS
else
  VECTOR_DIRS=$ROOT/tests/vectors
  if [ -d "$ROOT/../shared/conformance" ]; then VECTOR_DIRS=$VECTOR_DIRS:$(cd "$ROOT/../shared/conformance" && pwd); fi
  if [ -n "${XBORDER_VECTORS_DIR:-}" ]; then VECTOR_DIRS=$VECTOR_DIRS:$XBORDER_VECTORS_DIR; fi
fi
export VECTOR_DIRS
