#!/usr/bin/env bash
# The Python package's own tests, against the wheel installed in a virtualenv and run from outside
# the source tree (no PYTHONPATH): what `pip install xborder-*.whl` gives a user.
#   test_api.py      every public parameter with right and wrong kinds; errors; the package layout
#   test_imports.py  no import cycle among the package's own modules (its source, parsed with ast)
#   stubtest         `python -m mypy.stubtest xborder`: the annotations match the package (0 errors)
#   mypy --strict    every python block of dist-readme/python.md (the README shipped in the wheel)
#   test_readme.py   every python block of that README run as written, and its sh install block
#                    (the PostgreSQL recipe against a server it starts: pg_server.py)
#   test_redis.py    xborder.redis (redis-py, sync and asyncio) against a redis-server started here
#   test_sql.py      xborder.postgres (psycopg 3, sync and asyncio) against a PostgreSQL started here
#                    (tests/servers/postgres.sh), xborder.sqlite (sqlite3) on files
#   test_fastapi.py  the README's FastAPI app under uvicorn, against a redis-server started here
#   test_catch_up.py xborder.catch_up (the one call, sync and asyncio) and xborder.api against the
#                    simulator's GET /v1/external-events (xborder-simulator api, built here)
# Called by bindings-uniffi/test.sh python; builds the wheel only when dist/ has none.
# The test tools (mypy, fastapi, uvicorn, redis-py, psycopg 3) come from PyPI into a virtualenv of their own,
# made once per list of requirements under $XBORDER_CACHE/python-test-venv/ (printing what it
# installs); the wheel is installed into it again whenever it changed.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
PKG=$(cd "$HERE/.." && pwd)
UNIFFI=$(cd "$PKG/.." && pwd)
CACHE=${XBORDER_CACHE:-$HOME/.cache/xborder}
README=$UNIFFI/dist-readme/python.md
WHEELS=$UNIFFI/dist/python/wheel
[ -f "$WHEELS/INPUTS" ] || bash "$UNIFFI/build.sh" >&2 || exit 1

REQUIREMENTS=("mypy>=1.13,<2" "fastapi>=0.110,<1" "uvicorn>=0.29,<1" "redis>=5,<8" "psycopg[binary]>=3.2,<4")
key=$(printf '%s\n' "${REQUIREMENTS[@]}" | sha256sum | cut -c1-12)
VENV=$CACHE/python-test-venv/$key
if [ ! -f "$VENV/.xborder-tools" ]; then
  echo "python tests: installing ${REQUIREMENTS[*]} from PyPI into $VENV"
  mkdir -p "$CACHE/python-test-venv"
  find "$CACHE/python-test-venv" -mindepth 1 -maxdepth 1 ! -name "$key" -exec rm -rf {} +
  rm -rf "$VENV"
  "${XBORDER_PYTHON:-python3}" -m venv "$VENV" || exit 1
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${REQUIREMENTS[@]}" || exit 1
  "$VENV/bin/python" -m pip list --disable-pip-version-check 2>/dev/null |
    grep -iE '^(mypy|fastapi|uvicorn|redis|starlette|pydantic|psycopg|psycopg-binary) ' | sed 's/^/  installed: /'
  touch "$VENV/.xborder-tools"
fi
py=$VENV/bin/python
wheel_key=$(cat "$WHEELS/INPUTS")
if [ "$(cat "$VENV/.xborder-wheel" 2>/dev/null)" != "$wheel_key" ]; then
  "$py" -m pip install --quiet --disable-pip-version-check --no-index --no-deps --force-reinstall \
    "$WHEELS"/xborder-*.whl || exit 1
  echo "$wheel_key" > "$VENV/.xborder-wheel"
  echo "python tests: installed $(cd "$WHEELS" && ls xborder-*.whl) (inputs $wheel_key) into $VENV"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
export XBORDER_INSTALLED=1
status=0
check() {
  local name=$1; shift
  echo "python: $name (installed wheel, $("$py" --version 2>&1))"
  env -u PYTHONPATH "$@" || { echo "python: $name FAILED"; status=1; }
}
check test_api.py "$py" "$HERE/test_api.py"
check test_imports.py "$py" "$HERE/test_imports.py" "$PKG/xborder"
check "stubtest xborder" "$py" -m mypy.stubtest xborder
mapfile -t blocks < <("$py" "$HERE/test_readme.py" --extract "$README" "$work/readme")
check "mypy --strict on ${#blocks[@]} README blocks" "$py" -m mypy --strict --no-incremental \
  --cache-dir "$work/.mypy_cache" "${blocks[@]}"
check test_readme.py "$py" "$HERE/test_readme.py" "$README"
check test_redis.py "$py" "$HERE/test_redis.py"
check test_sql.py "$py" "$HERE/test_sql.py"
check test_fastapi.py "$py" "$HERE/test_fastapi.py" "$README"
sim=${CARGO_TARGET_DIR:-$UNIFFI/../target}/debug/xborder-simulator
check "cargo build -p xborder-simulator" bash -c 'cd "$1" && cargo build -q -p xborder-simulator' _ "$UNIFFI/.."
check test_catch_up.py env XBORDER_SIMULATOR="$sim" "$py" "$HERE/test_catch_up.py"
check "mypy --strict test_catch_up.py" "$py" -m mypy --strict --no-incremental \
  --cache-dir "$work/.mypy_cache" "$HERE/test_catch_up.py"
exit $status
