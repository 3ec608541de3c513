#!/usr/bin/env bash
# Size of the shipped .wasm (after wasm-opt), raw and gzipped.
# Two levels: the issue's TARGET (120 KB raw, 50 KB gzipped) is reported, met or missed; the
# GUARD fails the test, so a change that grows the module is caught. The guard sits just above
# today's size (about 186 KB / 84 KB): lower it as the module shrinks, never raise it silently.
# Raised once, from 176 / 78, for serde_json's float_roundtrip (+16.6 KB / +8.7 KB), which makes
# numbers round-trip exactly: correctness over size.
# XBORDER_WASM_MAX_RAW / XBORDER_WASM_MAX_GZ override the guard (bytes).
set -euo pipefail
PKG=$(cd "$(dirname "$0")/.." && pwd)/pkg
TARGET_RAW=$((120 * 1024)); TARGET_GZ=$((50 * 1024))
MAX_RAW=${XBORDER_WASM_MAX_RAW:-$((188 * 1024))}
MAX_GZ=${XBORDER_WASM_MAX_GZ:-$((86 * 1024))}
fail=0
for f in "$PKG/node/xborder_wasm_bg.wasm" "$PKG/web/xborder_wasm_bg.wasm"; do
  raw=$(stat -c%s "$f"); gz=$(gzip -9c "$f" | wc -c)
  echo "size: ${f#"$PKG"/}: $raw bytes ($((raw / 1024)) KB), gzipped $gz bytes ($((gz / 1024)) KB)"
  if [ "$raw" -le "$TARGET_RAW" ] && [ "$gz" -le "$TARGET_GZ" ]; then
    echo "size: target $((TARGET_RAW / 1024)) KB / $((TARGET_GZ / 1024)) KB gzipped: met"
  else
    echo "size: target $((TARGET_RAW / 1024)) KB / $((TARGET_GZ / 1024)) KB gzipped: MISSED (see the open issue)"
  fi
  if [ "$raw" -gt "$MAX_RAW" ] || [ "$gz" -gt "$MAX_GZ" ]; then
    echo "size: OVER THE GUARD ($((MAX_RAW / 1024)) KB / $((MAX_GZ / 1024)) KB): ${f#"$PKG"/} grew"; fail=1
  fi
done
exit $fail
