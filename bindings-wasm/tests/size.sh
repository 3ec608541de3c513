#!/usr/bin/env bash
# The size budget of the shipped .wasm (after wasm-opt): at most 140 KiB raw and 60 KiB gzipped
# (gzip -9), for both copies (node/ and web/). It was 120 / 50 until the extensible catalog, the
# all-pages walker and claims joined the module (issues 13 and 14: +9.2 KB gzipped measured, 2.7 KB
# of it won back by the talc allocator); ARCHITECTURE.md "Size of the WASM module" has the figures. Prints both sizes and the headroom; fails over the
# budget. What keeps it there (no JSON parser, number conversion or float formatting in the
# module; see ARCHITECTURE.md "Size of the WASM module") must not come back unnoticed.
set -euo pipefail
PKG=$(cd "$(dirname "$0")/.." && pwd)/pkg
BUDGET_RAW=$((140 * 1024)); BUDGET_GZ=$((60 * 1024))
fail=0
for f in "$PKG/node/xborder_wasm_bg.wasm" "$PKG/web/xborder_wasm_bg.wasm"; do
  raw=$(stat -c%s "$f"); gz=$(gzip -9c "$f" | wc -c)
  echo "size: ${f#"$PKG"/}: $raw bytes raw (budget $BUDGET_RAW, headroom $((BUDGET_RAW - raw))), $gz bytes gzipped (budget $BUDGET_GZ, headroom $((BUDGET_GZ - gz)))"
  if [ "$raw" -gt "$BUDGET_RAW" ] || [ "$gz" -gt "$BUDGET_GZ" ]; then
    echo "size: OVER BUDGET: ${f#"$PKG"/}"; fail=1
  fi
done
[ $fail = 0 ] && echo "size: within 140 KiB / 60 KiB gzipped"
exit $fail
