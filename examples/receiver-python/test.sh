#!/usr/bin/env bash
# The Python receiver's tests: its Redis adapter (sync and asyncio) against a real redis-server;
# the receiver with --sqlite and with --postgres (a real PostgreSQL, tests/servers/postgres.sh)
# (test_sql.py); hostile clients and hung stores (test_limits.py). redis-py and psycopg 3 go into
# a virtualenv in the cache (idempotent); xborder is the package built into
# bindings-uniffi/dist/python (its claim stores: xborder.redis, xborder.postgres, xborder.sqlite).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
CACHE=${XBORDER_CACHE:-$HOME/.cache/xborder}
# shellcheck disable=SC1091
[ -f "$CACHE/env.sh" ] && . "$CACHE/env.sh"
VENV=$CACHE/services-venv
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import redis, psycopg' 2>/dev/null; then
  echo "receiver-python: virtualenv $VENV with redis-py and psycopg 3"
  [ -x "$VENV/bin/python" ] || "${XBORDER_PYTHON:-python3}" -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check 'redis>=5,<9' 'psycopg[binary]>=3.2,<4'
fi
[ -f "$ROOT/bindings-uniffi/dist/python/_xborder_ffi/xborder.py" ] || bash "$ROOT/bindings-uniffi/build.sh"
PYTHONPATH=$ROOT/bindings-uniffi/dist/python:$HERE "$VENV/bin/python" "$HERE/test_redis.py"
# --sqlite and --postgres: the event's row and complete in one transaction.
# The simulator's GET /v1/external-events, for server.py --catch-up (test_sql.py).
(cd "$ROOT" && cargo build -q -p xborder-simulator)
PYTHONPATH=$ROOT/bindings-uniffi/dist/python:$HERE "$VENV/bin/python" "$HERE/test_sql.py"
# Hostile clients and hung stores (issue 30): body limits and deadlines, the connection cap,
# Redis and PostgreSQL SIGSTOPped (a completion cut by the stop, retried), the store's clock,
# the pool, SIGTERM (in flight, and under back-to-back kept-alive requests).
PYTHONPATH=$ROOT/bindings-uniffi/dist/python:$HERE "$VENV/bin/python" "$HERE/test_limits.py"
# The Python receiver in a fleet: the fault test's kill run, PostgreSQL's restart and the slow
# body attack (its RSS line is required for every runtime) with it as the third instance.
echo "receiver-python: the fault test's kill run on Redis, PostgreSQL's restart and slow-body, with the Python receiver as rx3"
PYTHONPATH=$ROOT/bindings-uniffi/dist/python:$HERE \
  RX3_CMD="$VENV/bin/python $HERE/server.py" bash "$ROOT/tests/fault/fault-test.sh" kill postgres-restart slow-body
