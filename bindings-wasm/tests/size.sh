#!/usr/bin/env bash
# The size budget of the module browsers download (web/, after wasm-opt -Oz): at most 190 KiB raw
# and 82 KiB gzipped (gzip -9). It was 120 / 50 until the extensible catalog, the all-pages walker
# and claims joined the module (issues 13 and 14: +9.2 KB gzipped measured, 2.7 KB of it won back
# by the talc allocator), then 140 / 60 until contract v2 (issue 22: account-detail checks with
# the IBAN registry, documents given as text read by core's scanner, messages and labels: +20.4 KB
# raw / +8.7 KB gzipped, measured; a miss of issue 22's 140 / 60 written in BENCHMARKS.md, and
# the forms module of issue 23 the way back for form pages); ARCHITECTURE.md "Size of the WASM
# module" has the figures. Node's module
# (node/) is the same code compiled for speed (the wasm-node profile, wasm-opt -O3): its size is
# printed, under a looser ceiling of its own (what it costs is load time, once per process).
# Issue 31 added the form model (beneficiaryForm, checkAccount, normalizeBeneficiary, reasons and
# params on every account-detail issue) to every build: measured 182,417 B raw / 80,288 B gzipped
# for browsers (from 160 / 70 KiB budgets with 239 B gzipped of headroom) and 214,892 B / 89,812 B
# for Node; each budget raised to the measured size rounded up to the next KiB + 1 KiB
# (180 / 80 KiB, Node 211 / 89 KiB). Issue 32 cuts it back (goal 140 KiB raw / 60 KiB gzipped for
# browsers). The forms module (forms/, `xborder-wasm/forms`: beneficiaries only since issue 32, no
# event names or pagination) is checked here too, besides tests/forms.mjs (which also weighs a
# Vite page): measured 91,670 B raw / 42,592 B gzipped, budget 91 / 43 KiB (goal 20 KiB gzipped).
# Then every JS value crossed as its JSON text, read by core's one parser (no tape reader), and
# forms and field lists came back as JSON text: measured 178,482 / 78,037 B (browsers), 210,401 /
# 87,093 B (Node), 84,302 / 39,114 B (forms); each budget the measured size rounded up to the next
# KiB + 1 KiB: 176 / 78, 207 / 87, 84 / 40 KiB.
# Issue 33 added delivery handling to the full modules (DeliveryHandling over core's Handling and
# StoreSteps: the state machine, its 12 exports' shims, the acts as JS objects; forms unchanged):
# measured 191,034 / 82,838 B (browsers, from 178,502 / 78,048 B on the commit before: +12.5 KB /
# +4.8 KB gzipped) and 225,351 / 92,376 B (Node, from 210,394 / 87,077 B); each budget the measured
# size rounded up to the next KiB + 1 KiB, as above: 188 / 82 and 222 / 92 KiB. Transactions
# (inTransaction, the commit act, lastStep) and core's rule for a complete not completed inside
# one: measured 192,731 / 83,591 B (browsers) and 227,438 / 93,143 B (Node): 190 / 82 and
# 224 / 92 KiB. Core's StoreTime on every store call (the `time` object of the load and
# compare-and-set acts, one builder for both): measured 193,118 / 83,817 B (browsers: 151 B
# gzipped of headroom left) and 228,383 / 93,569 B (Node); forms unchanged (84,302 / 39,114 B,
# byte-identical); budgets unchanged.
# Issue 34 added the catch-up and the API's error answers (core's `api` feature: CatchUp, its
# page answers and retries, the records read with their payloads raw, Recovery over
# DeliveryHandling, readApiError; 17 exports' shims) to the Node module only: measured 269,633 /
# 109,576 B (from 228,317 / 93,476 B: +41.3 KB / +16.1 KB gzipped), its budget raised as above to
# 265 / 109 KiB. The browser module is built without them (a server's job; its entry throws a
# TypeError saying where they are): 193,067 / 83,811 B, budget unchanged; forms unchanged.
# Fails over a budget. What keeps the browser module there (no JSON parser, number conversion or
# float formatting in the module; see ARCHITECTURE.md) must not come back unnoticed.
set -euo pipefail
PKG=$(cd "$(dirname "$0")/.." && pwd)/pkg
fail=0
check() { # FILE BUDGET_RAW BUDGET_GZ
  local f=$1 budget_raw=$2 budget_gz=$3 raw gz
  raw=$(stat -c%s "$f"); gz=$(gzip -9c "$f" | wc -c)
  echo "size: ${f#"$PKG"/}: $raw bytes raw (budget $budget_raw, headroom $((budget_raw - raw))), $gz bytes gzipped (budget $budget_gz, headroom $((budget_gz - gz)))"
  if [ "$raw" -gt "$budget_raw" ] || [ "$gz" -gt "$budget_gz" ]; then
    echo "size: OVER BUDGET: ${f#"$PKG"/}"; fail=1
  fi
}
check "$PKG/web/xborder_wasm_bg.wasm" $((190 * 1024)) $((82 * 1024))
check "$PKG/node/xborder_wasm_bg.wasm" $((265 * 1024)) $((109 * 1024))
check "$PKG/forms/xborder_wasm_bg.wasm" $((84 * 1024)) $((40 * 1024))
[ $fail = 0 ] && echo "size: browsers' module within 190 KiB / 82 KiB gzipped; Node's within 265 KiB / 109 KiB; forms within 84 KiB / 40 KiB"
exit $fail
