#!/usr/bin/env bash
# The Node receiver's tests: its Redis adapter against a real redis-server (test-redis.mjs), its
# PostgreSQL and SQLite stores against a real PostgreSQL (tests/servers/postgres.sh, started
# and stopped by the test) and SQLite files, with server.mjs --postgres / --sqlite (test-sql.mjs),
# and the receiver as a process, each decision answered with core's status (test-receiver.mjs),
# against hostile clients and hung stores (test-hostile.mjs: a real redis-server and PostgreSQL).
# The receiver itself runs in tests/fault/fault-test.sh as the third instance.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
bash "$HERE/setup.sh"
# shellcheck disable=SC1091
[ -f "${XBORDER_CACHE:-$HOME/.cache/xborder}/env.sh" ] && . "${XBORDER_CACHE:-$HOME/.cache/xborder}/env.sh"
node "$HERE/../../stores/node/test-redis.mjs"
node "$HERE/../../stores/node/test-sql-time.mjs"
# The simulator's GET /v1/external-events, for server.mjs --catch-up (test-sql.mjs).
(cd "$HERE/../.." && cargo build -q -p xborder-simulator)
node "$HERE/test-sql.mjs"
node "$HERE/test-receiver.mjs"
node "$HERE/test-hostile.mjs"
