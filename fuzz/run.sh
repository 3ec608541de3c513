#!/usr/bin/env bash
# Fuzzes xborder-core: fuzz/run.sh [SECONDS] [TARGET...]
#   SECONDS  time per target (default 60); TARGET  any of the targets (default: all).
# Each target runs for SECONDS with its corpus (fuzz/corpus/<target>/, grown in place), then this
# prints its executions, exec/s and findings (crash files under fuzz/artifacts/<target>/), and
# ends with a summary table. Exit status: 1 when any target found something.
# Environment:
#   FUZZ_JOBS=N   run N targets at once (default 1; the machine has 2 cores)
#   FUZZ_CMIN=1   minimise each corpus afterwards (cargo fuzz cmin)
#   FUZZ_KEEP_GOING=1  keep fuzzing after a finding (libFuzzer -fork=1 -ignore_crashes=1): every
#                 crash is saved, the run lasts SECONDS whatever it finds
#   FUZZ_ARGS     extra libFuzzer flags (e.g. "-max_len=65536", "-runs=10000000")
#   FUZZ_SANITIZER  address | none (default none: xborder-core is forbid(unsafe_code), so
#                 AddressSanitizer finds nothing in it and costs 2-3x the executions)
set -uo pipefail
cd "$(dirname "$0")/.."                       # the workspace root: cargo fuzz finds fuzz/ there

seconds=${1:-60}
shift || true
all=(envelope signature event_names registration rules banks account_check page_info list_params receiver_model)
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${all[@]}")
for t in "${targets[@]}"; do
  [[ " ${all[*]} " == *" $t "* ]] || { echo "unknown target: $t (known: ${all[*]})" >&2; exit 2; }
done
jobs=${FUZZ_JOBS:-1}
keep_going=
[ "${FUZZ_KEEP_GOING:-0}" = 1 ] && keep_going="-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1"
logs=fuzz/artifacts/logs
mkdir -p "$logs"

# Debug assertions (overflow checks) stay on: cargo fuzz's default build without -O.
echo "building ${#targets[@]} target(s) (nightly, libFuzzer, sanitizer coverage) ..."
san=(--sanitizer "${FUZZ_SANITIZER:-none}")
cargo +nightly fuzz build "${san[@]}" --features libfuzzer >/dev/null 2>"$logs/build.err" ||
  { cat "$logs/build.err" >&2; exit 1; }

fuzz_one() {
  local t=$1
  mkdir -p "fuzz/artifacts/$t" "fuzz/corpus/$t"
  ls "fuzz/artifacts/$t" > "$logs/$t.before"
  # shellcheck disable=SC2086
  cargo +nightly fuzz run "${san[@]}" --features libfuzzer "$t" -- \
    -max_total_time="$seconds" -print_final_stats=1 -max_len=4096 -rss_limit_mb=2048 \
    -timeout=10 ${keep_going} ${FUZZ_ARGS:-} >"$logs/$t.log" 2>&1
  echo $? > "$logs/$t.rc"
}

running=0
for t in "${targets[@]}"; do
  echo "fuzzing $t for ${seconds}s ..."
  fuzz_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait

stat() { grep -a "^stat::$1:" "$2" | tail -1 | awk '{print $2}'; }
found_any=0
rows=()
for t in "${targets[@]}"; do
  log=$logs/$t.log
  execs=$(stat number_of_executed_units "$log")
  rate=$(stat average_exec_per_sec "$log")
  if [ -z "$execs" ]; then          # fork mode prints "#N: cov: .. exec/s: R .." lines instead
    last=$(grep -a -E '^#[0-9]+: ' "$log" | tail -1)
    execs=$(sed -E 's/^#([0-9]+):.*/\1/' <<<"$last")
    rate=$(sed -nE 's/.*exec\/s: ([0-9]+).*/\1/p' <<<"$last")
  fi
  execs=${execs:-?}; rate=${rate:-?}
  new=$(comm -13 "$logs/$t.before" <(ls "fuzz/artifacts/$t") | grep -E '^(crash|leak|timeout|oom|slow-unit)-' || true)
  n=0; [ -n "$new" ] && n=$(wc -l <<<"$new")
  echo
  echo "== $t: $execs executions, $rate exec/s, $n finding(s), corpus $(ls "fuzz/corpus/$t" | wc -l) files (log $log)"
  if [ "$n" -gt 0 ]; then
    found_any=1
    for f in $new; do echo "   fuzz/artifacts/$t/$f"; done
    grep -a -m1 -E "panicked at|ERROR: libFuzzer|ERROR: AddressSanitizer" "$log" | sed 's/^/   /'
    grep -a -A2 -m1 "panicked at" "$log" | tail -n +2 | sed 's/^/   /'
  elif [ "$(cat "$logs/$t.rc")" != 0 ]; then
    found_any=1; n="exit $(cat "$logs/$t.rc")"; tail -5 "$log" | sed 's/^/   /'
  fi
  rows+=("$t|$execs|$rate|$n")
  if [ "${FUZZ_CMIN:-0}" = 1 ]; then
    cargo +nightly fuzz cmin "${san[@]}" --features libfuzzer "$t" -- -max_len=4096 >"$logs/$t.cmin.log" 2>&1 &&
      echo "   corpus minimised to $(ls "fuzz/corpus/$t" | wc -l) files"
  fi
done

echo
printf '%-16s %14s %10s  %s\n' target executions exec/s findings
printf '%-16s %14s %10s  %s\n' ---------------- -------------- ---------- --------
total=0
for r in "${rows[@]}"; do
  IFS='|' read -r t e s n <<<"$r"
  printf '%-16s %14s %10s  %s\n' "$t" "$e" "$s" "$n"
  [[ $e =~ ^[0-9]+$ ]] && total=$((total + e))
done
printf '%-16s %14s\n' total "$total"
[ "$found_any" -eq 0 ] || { echo; echo "findings: reproduce with cargo +nightly fuzz run --features libfuzzer <target> fuzz/artifacts/<target>/<file>"; }
exit "$found_any"
