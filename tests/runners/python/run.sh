#!/usr/bin/env bash
# Python conformance runner: uniffi's generated `xborder` module, loaded from
# bindings-uniffi/dist/python/ beside its copy of the host library.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
cd "$ROOT"
# shellcheck source=../lib.sh
. "$HERE/../lib.sh"
xb_tools python '-n "${XBORDER_PYTHON:-}"'
DIST=$ROOT/bindings-uniffi/dist
xb_uniffi "$DIST/python/xborder.py"
xb_vector_dirs

echo "python: $(${XBORDER_PYTHON:-python3} --version 2>&1), module $DIST/python/xborder.py"
PYTHONPATH=$DIST/python${PYTHONPATH:+:$PYTHONPATH} exec "${XBORDER_PYTHON:-python3}" "$HERE/runner.py"
