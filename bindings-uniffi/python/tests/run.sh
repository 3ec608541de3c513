#!/usr/bin/env bash
# The Python package's own tests, against the wheel installed in a fresh virtualenv and run from
# outside the source tree (no PYTHONPATH): what `pip install xborder-*.whl` gives a user.
#   test_api.py     every public parameter with right and wrong values, the native values
#   test_stubs.py   the shipped type stubs against the installed module
#   test_readme.py  every python block of python/README.md, the first of dist-readme/python.md
# Called by bindings-uniffi/test.sh python; builds the wheel only when dist/ has none.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
PKG=$(cd "$HERE/.." && pwd)
UNIFFI=$(cd "$PKG/.." && pwd)
[ -f "$UNIFFI/dist/python/wheel/INPUTS" ] || bash "$UNIFFI/build.sh" >&2 || exit 1
py=$(bash "$PKG/install.sh" | tail -1) || exit 1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
export XBORDER_INSTALLED=1
status=0
check() {
  echo "python: $(basename "$1") (installed wheel, $("$py" --version 2>&1))"
  env -u PYTHONPATH "$py" "$@" || status=1
}
check "$HERE/test_api.py"
check "$HERE/test_stubs.py"
check "$HERE/test_readme.py" "$PKG/README.md" "$UNIFFI/dist-readme/python.md"
exit $status
