#!/usr/bin/env bash
# The size budget of the shipped .wasm (after wasm-opt): at most 120 KB raw and 50 KB gzipped
# (gzip -9), for both copies (node/ and web/). Prints both sizes and the headroom; fails over the
# budget. What keeps it there (no JSON parser, number conversion or float formatting in the
# module; see ARCHITECTURE.md "Size of the WASM module") must not come back unnoticed.
set -euo pipefail
PKG=$(cd "$(dirname "$0")/.." && pwd)/pkg
BUDGET_RAW=$((120 * 1024)); BUDGET_GZ=$((50 * 1024))
fail=0
for f in "$PKG/node/xborder_wasm_bg.wasm" "$PKG/web/xborder_wasm_bg.wasm"; do
  raw=$(stat -c%s "$f"); gz=$(gzip -9c "$f" | wc -c)
  echo "size: ${f#"$PKG"/}: $raw bytes raw (budget $BUDGET_RAW, headroom $((BUDGET_RAW - raw))), $gz bytes gzipped (budget $BUDGET_GZ, headroom $((BUDGET_GZ - gz)))"
  if [ "$raw" -gt "$BUDGET_RAW" ] || [ "$gz" -gt "$BUDGET_GZ" ]; then
    echo "size: OVER BUDGET: ${f#"$PKG"/}"; fail=1
  fi
done
[ $fail = 0 ] && echo "size: within 120 KB / 50 KB gzipped"
exit $fail
