#!/usr/bin/env bash
# Python conformance runner: the `xborder` package as a user gets it, the wheel of
# bindings-uniffi/dist/python/wheel/ installed in a fresh virtualenv (bindings-uniffi/python/
# install.sh) and run from outside the source tree. XBORDER_PYTHON_FROM=dist runs it against
# the same module loaded from bindings-uniffi/dist/python/ instead (PYTHONPATH).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
cd "$ROOT"
# shellcheck source=../lib.sh
. "$HERE/../lib.sh"
xb_tools python '-n "${XBORDER_PYTHON:-}"'
DIST=$ROOT/bindings-uniffi/dist
xb_uniffi "$DIST/python/wheel/INPUTS"
xb_vector_dirs
xb_vector_file_api # contract v4's api.json: api.error and events.catch_up (issue 34)

if [ "${XBORDER_PYTHON_FROM:-wheel}" = dist ]; then
  echo "python: $(${XBORDER_PYTHON:-python3} --version 2>&1), package $DIST/python/xborder"
  PYTHONPATH=$DIST/python${PYTHONPATH:+:$PYTHONPATH} exec "${XBORDER_PYTHON:-python3}" "$HERE/runner.py"
fi
py=$(bash "$ROOT/bindings-uniffi/python/install.sh" | tail -1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
echo "python: $("$py" --version 2>&1), installed wheel $(cd "$DIST/python/wheel" && ls xborder-*.whl)"
env -u PYTHONPATH XBORDER_INSTALLED=1 "$py" "$HERE/runner.py"
