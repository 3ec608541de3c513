#!/usr/bin/env bash
# Python conformance runner: uniffi's generated `xborder` module, loaded from
# bindings-uniffi/dist/python/ beside its copy of the host library.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
cd "$ROOT"
CACHE=${XBORDER_CACHE:-$HOME/.cache/xborder}
# shellcheck disable=SC1091
[ -f "$CACHE/env.sh" ] && . "$CACHE/env.sh"
DIST=$ROOT/bindings-uniffi/dist

# The host library and bindings are built once per conformance.sh run (XBORDER_BUILT_UNIFFI=1).
if [ "${XBORDER_BUILT_UNIFFI:-0}" != 1 ] || [ ! -f "$DIST/python/xborder.py" ]; then
  bash "$ROOT/bindings-uniffi/build.sh"
fi

if [ -z "${XBORDER_VECTOR_DIRS:-}" ]; then
  XBORDER_VECTOR_DIRS=$ROOT/tests/vectors
  [ -d "$ROOT/../shared/conformance" ] && XBORDER_VECTOR_DIRS+=:$(cd "$ROOT/../shared/conformance" && pwd)
  [ -n "${XBORDER_VECTORS_DIR:-}" ] && XBORDER_VECTOR_DIRS+=:$XBORDER_VECTORS_DIR
  export XBORDER_VECTOR_DIRS
fi

echo "python: $(${XBORDER_PYTHON:-python3} --version 2>&1), module $DIST/python/xborder.py"
PYTHONPATH=$DIST/python${PYTHONPATH:+:$PYTHONPATH} exec "${XBORDER_PYTHON:-python3}" "$HERE/runner.py"
