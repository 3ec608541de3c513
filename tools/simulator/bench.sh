#!/usr/bin/env bash
# Figures for one receiver instance: deliveries per second and latency p50/p99, measured by the
# simulator (2000 events, 32 in flight; release builds; simulator, receiver and Redis share the
# machine). Five stores:
#   memory   core's in-memory claims (one instance only)
#   redis    claims in Redis (xborder-redis: GET + core's compare-and-set script, twice per event)
#   naive    SET key 1 NX then persist, no lease (loses an event when the instance dies between
#            the two: see examples/receiver-rust/tests/fleet.rs)
#   postgres claims and the event's row in PostgreSQL (xborder-sql; a throwaway server started by
#            tests/servers/postgres.sh, fsync off): claim, then one transaction (insert the
#            row, complete)
#   sqlite   the same in an SQLite file (WAL)
# The first three persist one JSON line per event (write(2)); the SQL stores their row, then the
# same line.
#
#   bash tools/simulator/bench.sh            prints a Markdown table
#   bash tools/simulator/bench.sh --json OUT the same figures as JSON in OUT as well (for
#                                               tests/bench/run.sh and report.py)
# Environment: EVENTS=2000 CONCURRENCY=32 RUNS=5 (the median is reported) REDIS_SERVER=redis-server
#   STORES="memory redis naive postgres sqlite"
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
EVENTS=${EVENTS:-2000}
CONCURRENCY=${CONCURRENCY:-32}
RUNS=${RUNS:-5}
REDIS_SERVER=${REDIS_SERVER:-redis-server}
SECRET=whsec_bench
JSON_OUT=
[ "${1:-}" = --json ] && JSON_OUT=${2:?--json needs a path}

say() { echo "[bench] $*" >&2; }
say "building (release): cargo build --release -p xborder-receiver -p xborder-simulator"
cargo build --release -q -p xborder-receiver -p xborder-simulator
BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release

WORK=$(mktemp -d "${TMPDIR:-/tmp}/xborder-bench.XXXXXX")
PIDS=()
PG_DIR=
cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  if [ -n "$PG_DIR" ]; then bash "$ROOT/tests/servers/postgres.sh" stop "$PG_DIR" || true; rm -rf "$PG_DIR"; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# shellcheck source=tests/servers/redis.sh
. "$ROOT/tests/servers/redis.sh"
start_fresh_redis "$WORK" || exit 1
PIDS+=("$REDIS_PID")
say "redis-server on 127.0.0.1:$RPORT"
STORES=${STORES:-memory redis naive postgres sqlite}
if [[ " $STORES " == *" postgres "* ]]; then
  # Under the system's temporary folder: the cluster runs as the postgres user when we are root.
  PG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/xborder-bench-pg.XXXXXX")
  PG_URL=$(XBORDER_PG_OWNER=$$ bash "$ROOT/tests/servers/postgres.sh" start "$PG_DIR" | tail -1)
  say "postgres on $PG_URL"
fi

jnum() { grep -o "\"$2\": *[0-9.]*" "$1" | head -1 | grep -o '[0-9.]*$'; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

rows=()
jrows=()
for mode in $STORES; do
  args=(--listen 127.0.0.1:0 --secret "$SECRET" --persist "$WORK/$mode.jsonl" --instance "bench-$mode")
  case $mode in
    redis) args+=(--redis "redis://127.0.0.1:$RPORT/" --prefix "bench:$mode:") ;;
    naive) args+=(--redis "redis://127.0.0.1:$RPORT/" --prefix "bench:$mode:" --naive) ;;
    postgres) args+=(--postgres "$PG_URL") ;;
    sqlite) args+=(--sqlite "$WORK/bench.db") ;;
  esac
  "$BIN/xborder-receiver" "${args[@]}" >"$WORK/$mode.addr" 2>"$WORK/$mode.log" &
  pid=$!
  PIDS+=("$pid")
  for _ in $(seq 1 200); do [ -s "$WORK/$mode.addr" ] && break; sleep 0.05; done
  url="http://$(head -1 "$WORK/$mode.addr")/webhooks"
  say "$mode: receiver on $url; warm-up, then $RUNS runs of $EVENTS events, $CONCURRENCY in flight"
  "$BIN/xborder-simulator" --url "$url" --secret "$SECRET" --events 300 --concurrency "$CONCURRENCY" --quiet >/dev/null
  rates=(); p50s=(); p99s=()
  for r in $(seq 1 "$RUNS"); do
    "$BIN/xborder-simulator" --url "$url" --secret "$SECRET" --events "$EVENTS" \
      --concurrency "$CONCURRENCY" --seed "$r" --quiet --json "$WORK/$mode-$r.json" >/dev/null
    rates+=("$(jnum "$WORK/$mode-$r.json" deliveries_per_s)")
    p50s+=("$(jnum "$WORK/$mode-$r.json" p50_ms)")
    p99s+=("$(jnum "$WORK/$mode-$r.json" p99_ms)")
    say "  run $r: $(printf '%.0f' "${rates[-1]}") deliveries/s, p50 ${p50s[-1]} ms, p99 ${p99s[-1]} ms"
  done
  rate=$(printf '%s\n' "${rates[@]}" | median)
  p50=$(printf '%s\n' "${p50s[@]}" | median)
  p99=$(printf '%s\n' "${p99s[@]}" | median)
  rows+=("$(printf '| %s | %.0f | %.2f | %.2f |' "$mode" "$rate" "$p50" "$p99")")
  jrows+=("$(printf '{"store": "%s", "deliveries_per_s": %s, "p50_ms": %s, "p99_ms": %s, "runs": [%s]}' \
    "$mode" "$rate" "$p50" "$p99" "$(IFS=,; echo "${rates[*]}")")")
  kill -9 "$pid"; wait "$pid" 2>/dev/null || true
done

echo
echo "One instance, $EVENTS events, $CONCURRENCY in flight, median of $RUNS runs ($(nproc) cores, $(date -u +%Y-%m-%d)):"
echo
echo "| store | deliveries/s | p50 (ms) | p99 (ms) |"
echo "|---|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
if [ -n "$JSON_OUT" ]; then
  {
    printf '{"events": %s, "concurrency": %s, "runs": %s, "cores": %s, "results": [' "$EVENTS" "$CONCURRENCY" "$RUNS" "$(nproc)"
    (IFS=,; printf '%s' "${jrows[*]}")
    printf ']}\n'
  } > "$JSON_OUT"
  say "wrote $JSON_OUT"
fi
