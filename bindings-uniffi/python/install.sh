#!/usr/bin/env bash
# Installs the wheel of bindings-uniffi/dist/python/wheel/ into a fresh virtualenv and prints
# the virtualenv's python (last line). The virtualenv is made once per wheel (keyed by the
# wheel's input hash, dist/python/wheel/INPUTS) under $XBORDER_CACHE/python-venv/; an older
# one is removed. pip installs from the file only (--no-index): no registry is asked.
# Usage: py=$(bash bindings-uniffi/python/install.sh | tail -1)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
WHEELS=$HERE/../dist/python/wheel
CACHE=${XBORDER_CACHE:-$HOME/.cache/xborder}
[ -f "$WHEELS/INPUTS" ] || { echo "install.sh: no wheel in $WHEELS: run bindings-uniffi/build.sh" >&2; exit 1; }
key=$(cat "$WHEELS/INPUTS")
VENV=$CACHE/python-venv/$key
if [ ! -x "$VENV/bin/python" ] || [ ! -f "$VENV/.xborder-ready" ]; then
  mkdir -p "$CACHE/python-venv"
  find "$CACHE/python-venv" -mindepth 1 -maxdepth 1 ! -name "$key*" -exec rm -rf {} +
  # Made beside and moved in place, so a concurrent run never sees half a virtualenv.
  tmp=$VENV.tmp.$$
  rm -rf "$tmp"
  "${XBORDER_PYTHON:-python3}" -m venv "$tmp" >&2
  "$tmp/bin/python" -m pip install --quiet --no-index --disable-pip-version-check \
    "$WHEELS"/xborder-*.whl >&2
  touch "$tmp/.xborder-ready"
  rm -rf "$VENV"
  mv "$tmp" "$VENV"
  echo "install.sh: installed $(cd "$WHEELS" && ls xborder-*.whl) into $VENV" >&2
fi
echo "$VENV/bin/python"
