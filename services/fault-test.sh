#!/usr/bin/env bash
# The CI fault test of the receivers (issue 14), first version.
#
#   bash services/fault-test.sh          both runs
#   bash services/fault-test.sh kill     run 1: an instance is killed (SIGKILL) mid-run and restarted
#   bash services/fault-test.sh redis    run 2: Redis (no persistence) is restarted mid-run
#
# Each run: one redis-server on a free loopback port, 3 receiver instances sharing it, and the
# simulator sending EVENTS events (20 % duplicates after ack, 5 % concurrent redeliveries, 1 %
# replays, 1 % bad signatures, 2 % unknown names) spread over the 3 instances in turn, at RATE
# jobs per second so the fault lands in the middle. Then `xborder-simulator check` compares the
# ids the simulator expects persisted (every live event) with the instances' files.
#
#   Persisting is idempotent by event id, as a consumer's table with a unique key is: each
#   instance links the event's record, written whole under a temporary name, into a shared
#   directory (link(2) fails if it exists; an instance killed mid-write leaves only a hidden
#   temporary the check skips), so every expected
#   event is persisted exactly once by construction, and the check fails if one is missing.
#   What claims decide is how often an event is *processed*: a record found already is logged
#   "again" and counted.
#   run 1 passes when every event is persisted exactly once, nothing is lost or dead-lettered,
#         no bad signature is accepted, and no event is processed twice except one whose record
#         the killed instance wrote (it died between persist and complete: the retry processes
#         it again and finds the record; bounded by what it had in flight). A takeover after a
#         lease expiry (a processing slower than the lease) is reported apart by the check and
#         passes too. The simulator is given the lease (--lease-ms): its retries (200 ms
#         doubling, 3 s or more from first to last attempt) outlast it, so the killed
#         instance's claims end before its events' last retries, and none is dead-lettered.
#   run 2 passes when nothing is lost and nothing is dead-lettered. Redis forgets every claim
#         and done id when it restarts without persistence, so redeliveries of events done
#         before the restart are processed again: their count is reported (the cost that
#         services/redis/src/lib.rs documents), not failed on.
#
# Environment:
#   EVENTS=5000  RATE=1000 (jobs/s)  CONCURRENCY=32  LEASE_MS=2000  DOWN_S=1 (how long the
#   killed thing stays down)  KEEP=1 (keep the work directory)  REDIS_SERVER=redis-server
#   RX1_CMD, RX2_CMD, RX3_CMD: the command of each instance (default: the Rust receiver,
#   target/release/xborder-receiver, for rx1 and rx2; the Node receiver,
#   services/receiver-node/server.mjs, for rx3). Another runtime plugs in the same way, e.g.
#     RX3_CMD="python3 services/receiver-python/server.py" bash services/fault-test.sh
#   The script appends: --listen ADDR --secret KEY --redis URL --persist FILE --records DIR
#   --instance NAME --lease-ms N. An instance must print its bound address (host:port) as the
#   first line on stdout, answer POST deliveries as the Rust receiver does, keep one record per
#   event id in DIR (written under a hidden temporary name, then link(2)ed into place: it exists
#   whole or not at all, the fleet's table with a unique key),
#   and append one JSON line per persisted event to FILE with at least "id" and "instance", plus
#   "again": true when the record existed already. RX1 is the one that gets killed.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

EVENTS=${EVENTS:-5000}
RATE=${RATE:-1000}
CONCURRENCY=${CONCURRENCY:-32}
LEASE_MS=${LEASE_MS:-2000}
DOWN_S=${DOWN_S:-1}
REDIS_SERVER=${REDIS_SERVER:-redis-server}
SECRET=whsec_fault_test
which=${1:-all}
case "$which" in all|kill|redis) ;; *) sed -n '2,6p' "$0"; exit 2 ;; esac

say() { echo "[fault-test] $*"; }

if ! command -v "$REDIS_SERVER" >/dev/null; then
  say "$REDIS_SERVER not found (bash services/redis/test.sh or tests/tools/setup.sh redis installs it)"
  exit 2
fi

say "building (release, once): cargo build --release -p xborder-receiver -p xborder-simulator"
cargo build --release -q -p xborder-receiver -p xborder-simulator
BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release
SIM=$BIN/xborder-simulator
RX=$BIN/xborder-receiver
# The third instance is the Node receiver (services/receiver-node) unless RX3_CMD says otherwise:
# two Rust instances and one Node instance share the Redis.
if [ -z "${RX3_CMD:-}" ]; then
  say "the Node receiver: bash services/receiver-node/setup.sh"
  bash services/receiver-node/setup.sh
  # shellcheck disable=SC1091
  [ -f "${XBORDER_CACHE:-$HOME/.cache/xborder}/env.sh" ] && . "${XBORDER_CACHE:-$HOME/.cache/xborder}/env.sh"
  RX3_CMD="node $ROOT/services/receiver-node/server.mjs"
fi
say "instances: rx1 ${RX1_CMD:-$RX}, rx2 ${RX2_CMD:-$RX}, rx3 $RX3_CMD"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/xborder-fault.XXXXXX")
say "work directory: $WORK"
PIDS=()
cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  if [ "${KEEP:-0}" = 1 ]; then say "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

# port_in_use, start_fresh_redis (a port outside the ephemeral range, retried when redis-server
# exits) and start_redis (a restart on the same port).
# shellcheck source=services/redis/server.sh
. "$ROOT/services/redis/server.sh"

# A JSON number out of a pretty-printed file: jnum FILE KEY.
jnum() { grep -o "\"$2\": *[0-9.]*" "$1" | head -1 | grep -o '[0-9.]*$'; }

declare -A RX_PID RX_ADDR
start_instance() { # N NAME LISTEN RUN
  local n=$1 name=$2 listen=$3 run=$4 var="RX$1_CMD"
  local cmd=${!var:-$RX}
  local out="$WORK/$run-$name.addr"
  # shellcheck disable=SC2086 # the command may carry its own arguments
  $cmd --listen "$listen" --secret "$SECRET" --redis "$REDIS_URL" \
    --persist "$WORK/$run-rx$n.jsonl" --records "$WORK/$run-records" --instance "$name" --lease-ms "$LEASE_MS" \
    >"$out" 2>>"$WORK/$run-rx$n.log" &
  RX_PID[$n]=$!
  PIDS+=("${RX_PID[$n]}")
  for _ in $(seq 1 200); do
    if [ -s "$out" ]; then RX_ADDR[$n]=$(head -1 "$out"); return 0; fi
    kill -0 "${RX_PID[$n]}" 2>/dev/null || break
    sleep 0.05
  done
  say "instance $name did not print its address; its log ends:"
  tail -5 "$WORK/$run-rx$n.log" | sed 's/^/    /' >&2
  return 1
}

persisted_lines() { { cat "$WORK/$1"-rx*.jsonl 2>/dev/null || true; } | wc -l; }

stats() { # ADDR: the instance's /stats, one line
  local body
  body=$( { exec 3<>"/dev/tcp/${1%:*}/${1##*:}" &&
    printf 'GET /stats HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' >&3 && cat <&3; } 2>/dev/null | tail -1) || true
  echo "${body:-unreachable}"
}

# One run: $1 = kill | redis. Sets RESULT_<run>.
one_run() {
  local run=$1 rport sim_pid sim_rc check_rc target total
  say "=== run: $run"
  # set -e does not reach in here (one_run is called with ||): a failed start ends the run.
  start_fresh_redis "$WORK" || { eval "RESULT_$run=\"FAILED: redis-server did not start\""; return 1; }
  rport=$RPORT
  PIDS+=("$REDIS_PID")
  REDIS_URL="redis://127.0.0.1:$rport/"
  say "redis-server on 127.0.0.1:$rport (no persistence)"
  for n in 1 2 3; do
    start_instance "$n" "rx$n" 127.0.0.1:0 "$run" ||
      { eval "RESULT_$run=\"FAILED: instance rx$n did not start\""; return 1; }
    local v="RX${n}_CMD"
    say "instance rx$n on ${RX_ADDR[$n]} (${!v:-$RX})"
  done
  local urls=()
  for n in 1 2 3; do urls+=(--url "http://${RX_ADDR[$n]}/webhooks"); done

  say "simulator: $EVENTS events, 20 % duplicates, 5 % concurrent, 1 % replays, 1 % bad signatures, 2 % unknown, $RATE jobs/s, backoff 200 ms (x2, max 2 s), lease $LEASE_MS ms"
  "$SIM" "${urls[@]}" --secret "$SECRET" --events "$EVENTS" --duplicates 0.2 --concurrent 0.05 \
    --replays 0.01 --bad-signatures 0.01 --unknown 0.02 --concurrency "$CONCURRENCY" --seed 1 \
    --rate "$RATE" --backoff-ms 200 --backoff-max-ms 2000 --lease-ms "$LEASE_MS" \
    --expect "$WORK/$run-expect.txt" --json "$WORK/$run-summary.json" >"$WORK/$run-summary.txt" &
  sim_pid=$!
  PIDS+=("$sim_pid")

  # The fault, once 40 % of the expected events are persisted.
  for _ in $(seq 1 200); do [ -s "$WORK/$run-expect.txt" ] && break; sleep 0.05; done
  total=$(wc -l <"$WORK/$run-expect.txt")
  target=$((total * 40 / 100))
  while [ "$(persisted_lines "$run")" -lt "$target" ] && kill -0 "$sim_pid" 2>/dev/null; do sleep 0.05; done
  local at
  at=$(persisted_lines "$run")
  kill -0 "$sim_pid" 2>/dev/null || say "WARNING: the simulator ended before the fault (raise EVENTS or lower RATE)"
  if [ "$run" = kill ]; then
    say "FAULT: SIGKILL rx1 (pid ${RX_PID[1]}) at $at/$total persisted; restarting it on ${RX_ADDR[1]} in ${DOWN_S} s as rx1-restarted"
    kill -9 "${RX_PID[1]}"; wait "${RX_PID[1]}" 2>/dev/null || true
    sleep "$DOWN_S"
    start_instance 1 rx1-restarted "${RX_ADDR[1]}" "$run" || say "rx1 did not come back (the check below fails)"
  else
    say "FAULT: SIGKILL redis-server (pid $REDIS_PID) at $at/$total persisted; restarting it empty on port $rport in ${DOWN_S} s"
    kill -9 "$REDIS_PID"; wait "$REDIS_PID" 2>/dev/null || true
    sleep "$DOWN_S"
    start_redis "$rport" "$WORK" || say "redis-server did not come back (the check below fails)"
    PIDS+=("$REDIS_PID")
  fi

  sim_rc=0; wait "$sim_pid" || sim_rc=$?
  cat "$WORK/$run-summary.txt"
  for n in 1 2 3; do say "rx$n stats: $(stats "${RX_ADDR[$n]}")"; done

  local check_args=(check --expect "$WORK/$run-expect.txt" --records "$WORK/$run-records" --json "$WORK/$run-check.json")
  for n in 1 2 3; do check_args+=(--persisted "$WORK/$run-rx$n.jsonl"); done
  if [ "$run" = kill ]; then check_args+=(--crashed rx1); else check_args+=(--allow-duplicates); fi
  check_rc=0; "$SIM" "${check_args[@]}" || check_rc=$?

  local c="$WORK/$run-check.json" s="$WORK/$run-summary.json"
  local line twice
  if [ "$run" = kill ]; then
    twice=$(printf '%s (%s after the killed instance persisted them, %s after a lease expiry, %s otherwise)' \
      "$(jnum "$c" processed_again)" "$(jnum "$c" processed_again_by_crash)" \
      "$(jnum "$c" processed_again_after_lease)" "$(jnum "$c" processed_again_unexplained)")
  else
    twice=$(printf '%s (Redis forgot the claims and done ids: the cost of no persistence)' "$(jnum "$c" processed_again)")
  fi
  line=$(printf 'expected %s, persisted exactly once %s, lost %s, persisted twice %s, processed twice %s, unexpected %s; dead-lettered %s, bad signatures accepted %s of %s' \
    "$(jnum "$c" expected)" "$(jnum "$c" exactly_once)" "$(jnum "$c" missing)" "$(jnum "$c" duplicated)" "$twice" \
    "$(jnum "$c" unexpected)" "$(jnum "$s" dead_lettered)" "$(jnum "$s" bad_signatures_accepted)" \
    "$(jnum "$s" bad_signatures_sent)")
  local verdict=ok
  [ "$sim_rc" -eq 0 ] && [ "$check_rc" -eq 0 ] || verdict=FAILED
  eval "RESULT_$run=\"\$verdict: \$line\""
  say "run $run: $verdict: $line"

  # Stop this run's processes (by pid) before the next one.
  for p in "${RX_PID[@]}" "$REDIS_PID"; do kill -9 "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  [ "$verdict" = ok ]
}

failed=0
t0=$SECONDS
if [ "$which" = all ] || [ "$which" = kill ]; then one_run kill || failed=1; fi
if [ "$which" = all ] || [ "$which" = redis ]; then one_run redis || failed=1; fi
echo
say "summary ($((SECONDS - t0)) s):"
[ -n "${RESULT_kill:-}" ] && say "  instance killed and restarted: $RESULT_kill"
[ -n "${RESULT_redis:-}" ] && say "  redis restarted empty:         $RESULT_redis"
if [ "$failed" -eq 0 ]; then say "passed"; else say "FAILED"; fi
exit "$failed"
