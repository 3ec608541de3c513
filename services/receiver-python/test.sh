#!/usr/bin/env bash
# The Python receiver's tests: its Redis adapter (sync and asyncio) against a real redis-server.
# redis-py goes into a virtualenv in the cache (idempotent); xborder is the package built into
# bindings-uniffi/dist/python (its Redis claim store: xborder.redis).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
CACHE=${XBORDER_CACHE:-$HOME/.cache/xborder}
# shellcheck disable=SC1091
[ -f "$CACHE/env.sh" ] && . "$CACHE/env.sh"
VENV=$CACHE/services-venv
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import redis' 2>/dev/null; then
  echo "receiver-python: virtualenv $VENV with redis-py"
  "${XBORDER_PYTHON:-python3}" -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check 'redis>=5,<9'
fi
[ -f "$ROOT/bindings-uniffi/dist/python/_xborder_ffi/xborder.py" ] || bash "$ROOT/bindings-uniffi/build.sh"
PYTHONPATH=$ROOT/bindings-uniffi/dist/python:$HERE "$VENV/bin/python" "$HERE/test_redis.py"
# The Python receiver in a fleet: the fault test's kill run with it as the third instance.
echo "receiver-python: the fault test's kill run with the Python receiver as rx3"
PYTHONPATH=$ROOT/bindings-uniffi/dist/python:$HERE \
  RX3_CMD="$VENV/bin/python $HERE/server.py" bash "$ROOT/services/fault-test.sh" kill
