#!/usr/bin/env bash
# Account details against python-stdnum, schwifty and clabe: the IBAN registry and the
# differential test of tests/accounts/check.py (README.md). A step of `bash xborder.sh test`.
# The oracles go into a virtualenv in the cache, $XBORDER_CACHE/oracles (made once per
# requirements.txt, beside and moved in place; PyPI is asked only then); core is asked through
# the `accounts` binary of xborder-conformance, built here. Arguments go to check.py
# (--count N, --seed S).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
CACHE=${XBORDER_CACHE:-$HOME/.cache/xborder}
# shellcheck disable=SC1091
[ -f "$CACHE/env.sh" ] && . "$CACHE/env.sh"
VENV=$CACHE/oracles
REQ=$HERE/requirements.txt
key=$(sha256sum "$REQ" | cut -c1-16)
if [ -x "$VENV/bin/python" ] && [ "$(cat "$VENV/.xborder-ready" 2>/dev/null)" = "$key" ]; then
  echo "accounts: oracles present in $VENV ($(cut -c1-16 "$VENV/.xborder-ready"))"
else
  echo "accounts: installing the oracles into $VENV:" \
    "$(grep -Eo '^[a-z-]+==[^ ]+' "$REQ" | tr '\n' ' ')"
  tmp=$VENV.tmp.$$
  trap 'rm -rf "$tmp"' EXIT
  rm -rf "$tmp"
  mkdir -p "$CACHE"
  "${XBORDER_PYTHON:-python3}" -m venv "$tmp"
  "$tmp/bin/python" -m pip install --quiet --disable-pip-version-check -r "$REQ"
  echo "$key" > "$tmp/.xborder-ready"
  rm -rf "$VENV"
  mv "$tmp" "$VENV"
  echo "accounts: oracles installed ($("$VENV/bin/python" --version))"
fi
cd "$ROOT"
echo "accounts: cargo build --release -p xborder-conformance --bin accounts"
cargo build -q --release -p xborder-conformance --bin accounts
"$VENV/bin/python" "$HERE/check.py" --bin "${CARGO_TARGET_DIR:-$ROOT/target}/release/accounts" "$@"
