#!/usr/bin/env bash
# The CI fault test of the receivers (issues 14 and 26).
#
#   bash services/fault-test.sh [RUN ...]     every run, or the ones named:
#     kill              Redis: an instance is killed (SIGKILL) mid-run and restarted
#     redis             Redis without persistence is killed and restarted empty mid-run
#     redis-aof         the same with Redis's append-only file (appendfsync everysec)
#     postgres-kill     PostgreSQL: an instance is killed (SIGKILL) mid-run and restarted
#     postgres-restart  PostgreSQL itself is restarted mid-run (pg_ctl restart -m immediate)
#     sqlite-kill       one instance on SQLite, killed (SIGKILL) mid-run and restarted
#
# Each run prints one line: `fault-test: <store> <fault>: <N> live, <N> exactly once, <N> lost,
# <N> twice` (for Redis, "twice" counts events processed a second time; their records, the
# unique key, kept them persisted once).
#
# Each run: the store on a free loopback port (or file), 3 receiver instances sharing it (1 for
# SQLite), and the simulator sending EVENTS events (20 % duplicates after ack, 5 % concurrent
# redeliveries, 1 % replays, 1 % bad signatures, 2 % unknown names) spread over the instances in
# turn, at RATE jobs per second so the fault lands in the middle. Then `xborder-simulator check`
# compares the ids the simulator expects persisted (every live event) with what was persisted.
#
#   Redis: persisting is idempotent by event id, as a consumer's table with a unique key is: each
#   instance links the event's record, written whole under a temporary name, into a shared
#   directory (link(2) fails if it exists; an instance killed mid-write leaves only a hidden
#   temporary the check skips), so every expected event is persisted exactly once by
#   construction, and the check fails if one is missing. What claims decide is how often an
#   event is *processed*: a record found already is logged "again" and counted.
#   kill passes when every event is persisted exactly once, nothing is lost or dead-lettered,
#         no bad signature is accepted, and no event is processed twice except one whose record
#         the killed instance wrote (it died between persist and complete: the retry processes
#         it again and finds the record; bounded by what it had in flight). A takeover after a
#         lease expiry (a processing slower than the lease) is reported apart by the check and
#         passes too. The simulator is given the lease (--lease-ms): its retries (200 ms
#         doubling, 3 s or more from first to last attempt) outlast it, so the killed
#         instance's claims end before its events' last retries, and none is dead-lettered.
#   redis, redis-aof pass when nothing is lost and nothing is dead-lettered. Redis forgets every
#         claim and done id when it restarts without persistence, so redeliveries of events done
#         before the restart are processed again: their count is reported (the cost that
#         services/redis/src/lib.rs documents), not failed on; with the append-only file it
#         forgets at most the last second's writes.
#
#   PostgreSQL and SQLite (--postgres, --sqlite): each instance writes the event's row
#   (xborder_events, one row per processing, no unique key: services/sql/receiver-events.sql) in
#   the same transaction as the claim's completion. The run passes only when every live event
#   has exactly one row: 0 lost, 0 twice, whatever was killed or restarted, and nothing
#   dead-lettered.
#
# Environment:
#   EVENTS=5000  RATE=1000 (jobs/s)  CONCURRENCY=32  LEASE_MS=2000  DOWN_S=1 (how long the
#   killed thing stays down)  KEEP=1 (keep the work directory)  REDIS_SERVER=redis-server
#   XBORDER_PG_BIN (PostgreSQL's binaries: services/postgres/server.sh)
#   RX1_CMD, RX2_CMD, RX3_CMD: the command of each instance (default: the Rust receiver,
#   target/release/xborder-receiver, for rx1 and rx2; the Node receiver,
#   services/receiver-node/server.mjs, for rx3). Another runtime plugs in the same way, e.g.
#     RX3_CMD="python3 services/receiver-python/server.py" bash services/fault-test.sh
#   The script appends: --listen ADDR --secret KEY (--redis URL | --postgres URL | --sqlite PATH)
#   --persist FILE [--records DIR] --instance NAME --lease-ms N. An instance must print its
#   bound address (host:port) as the first line on stdout and answer POST deliveries as the Rust
#   receiver does. With --redis it keeps one record per event id in DIR (written under a hidden
#   temporary name, then link(2)ed into place: it exists whole or not at all, the fleet's table
#   with a unique key) and appends one JSON line per persisted event to FILE with at least "id"
#   and "instance", plus "again": true when the record existed already. With --postgres or
#   --sqlite it inserts the event's row in the transaction that completes the claim. RX1 is the
#   one that gets killed.
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
ALL_RUNS=(kill redis redis-aof postgres-kill postgres-restart sqlite-kill)
RUNS=("$@")
[ ${#RUNS[@]} -gt 0 ] && [ "${RUNS[0]}" != all ] || RUNS=("${ALL_RUNS[@]}")
for r in "${RUNS[@]}"; do
  case " ${ALL_RUNS[*]} " in *" $r "*) ;; *) sed -n '2,16p' "$0"; exit 2 ;; esac
done

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
PG_DIRS=()
cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  local d
  for d in "${PG_DIRS[@]}"; do
    bash "$ROOT/services/postgres/server.sh" stop "$d" 2>/dev/null || true
    rm -rf "$d"
  done
  if [ "${KEEP:-0}" = 1 ]; then say "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

# port_in_use, start_fresh_redis (a port outside the ephemeral range, retried when redis-server
# exits) and start_redis (a restart on the same port).
# shellcheck source=services/redis/server.sh
. "$ROOT/services/redis/server.sh"

# A JSON number out of a pretty-printed file: jnum FILE KEY.
jnum() { grep -o "\"$2\": *[0-9.]*" "$1" | head -1 | grep -o '[0-9.]*$'; }

# PostgreSQL: its server script, and psql beside its binaries (to read the events back).
PG_SCRIPT=$ROOT/services/postgres/server.sh
psql_bin() {
  local b=${XBORDER_PG_BIN:-}
  [ -n "$b" ] || b=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r | head -1)
  if [ -n "$b" ] && [ -x "$b/psql" ]; then echo "$b/psql"; else command -v psql; fi
}

# What the instances of a run share: STORE_ARGS (appended to each instance's command).
STORE_ARGS=()
declare -A RX_PID RX_ADDR
start_instance() { # N NAME LISTEN RUN
  local n=$1 name=$2 listen=$3 run=$4 var="RX$1_CMD"
  local cmd=${!var:-$RX}
  local out="$WORK/$run-$name.addr"
  # shellcheck disable=SC2086 # the command may carry its own arguments
  $cmd --listen "$listen" --secret "$SECRET" "${STORE_ARGS[@]}" \
    --persist "$WORK/$run-rx$n.jsonl" --instance "$name" --lease-ms "$LEASE_MS" \
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

# The events a SQL run persisted, as the JSON lines `check` reads: RUN FILE.
dump_events() {
  local run=$1 out=$2
  if [ "$STORE" = postgres ]; then
    "$(psql_bin)" "$PG_URL" -X -q -A -t -c "SELECT json_build_object('id', id, 'instance', instance,
      'claimed_at_ms', claimed_at_ms, 'lease_ms', lease_ms, 'at_ms', at_ms) FROM xborder_events" >"$out"
  else
    python3 - "$WORK/$run.db" "$out" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
with open(sys.argv[2], "w") as f:
    for id_, inst, claimed, lease, at in db.execute(
            "SELECT id, instance, claimed_at_ms, lease_ms, at_ms FROM xborder_events"):
        f.write(json.dumps({"id": id_, "instance": inst, "claimed_at_ms": claimed,
                            "lease_ms": lease, "at_ms": at}) + "\n")
PY
  fi
}

# One run (kill, redis, redis-aof, postgres-kill, postgres-restart, sqlite-kill). Sets
# RESULT_<run> and LINE_<run>.
one_run() {
  local run=$1 sim_pid sim_rc check_rc target total fault instances=3 key=${1//-/_}
  STORE=redis; fault=kill
  case $run in
    redis | redis-aof) fault=restart ;;
    postgres-kill) STORE=postgres ;;
    postgres-restart) STORE=postgres; fault=restart ;;
    sqlite-kill) STORE=sqlite; instances=1 ;;
  esac
  say "=== run: $run"
  # set -e does not reach in here (one_run is called with ||): a failed start ends the run.
  case $STORE in
    redis)
      local aof=0 rport
      [ "$run" = redis-aof ] && aof=1
      REDIS_AOF=$aof start_fresh_redis "$WORK" || { eval "RESULT_$key=\"FAILED: redis-server did not start\""; return 1; }
      rport=$RPORT
      PIDS+=("$REDIS_PID")
      STORE_ARGS=(--redis "redis://127.0.0.1:$rport/" --records "$WORK/$run-records")
      say "redis-server on 127.0.0.1:$rport ($([ $aof = 1 ] && echo 'append-only file, fsync every second' || echo 'no persistence'))"
      ;;
    postgres)
      # Its own folder under the system's temporary one: the cluster runs as the postgres user
      # when we are root, and $WORK (mode 700) would not let it in.
      PG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/xborder-fault-pg.XXXXXX")
      PG_DIRS+=("$PG_DIR")
      PG_URL=$(XBORDER_PG_OWNER=$$ bash "$PG_SCRIPT" start "$PG_DIR" | tail -1) && [ -n "$PG_URL" ] ||
        { eval "RESULT_$key=\"FAILED: postgres did not start\""; return 1; }
      STORE_ARGS=(--postgres "$PG_URL")
      say "postgres on $PG_URL"
      ;;
    sqlite)
      STORE_ARGS=(--sqlite "$WORK/$run.db")
      say "sqlite in $WORK/$run.db"
      ;;
  esac
  local n
  for n in $(seq 1 "$instances"); do
    start_instance "$n" "rx$n" 127.0.0.1:0 "$run" ||
      { eval "RESULT_$key=\"FAILED: instance rx$n did not start\""; return 1; }
    local v="RX${n}_CMD"
    say "instance rx$n on ${RX_ADDR[$n]} (${!v:-$RX})"
  done
  local urls=()
  for n in $(seq 1 "$instances"); do urls+=(--url "http://${RX_ADDR[$n]}/webhooks"); done

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
  if [ "$fault" = kill ]; then
    say "FAULT: SIGKILL rx1 (pid ${RX_PID[1]}) at $at/$total persisted; restarting it on ${RX_ADDR[1]} in ${DOWN_S} s as rx1-restarted"
    kill -9 "${RX_PID[1]}"; wait "${RX_PID[1]}" 2>/dev/null || true
    sleep "$DOWN_S"
    start_instance 1 rx1-restarted "${RX_ADDR[1]}" "$run" || say "rx1 did not come back (the check below fails)"
  elif [ "$STORE" = redis ]; then
    say "FAULT: SIGKILL redis-server (pid $REDIS_PID) at $at/$total persisted; restarting it on port $rport in ${DOWN_S} s"
    kill -9 "$REDIS_PID"; wait "$REDIS_PID" 2>/dev/null || true
    sleep "$DOWN_S"
    REDIS_AOF=$aof start_redis "$rport" "$WORK" || say "redis-server did not come back (the check below fails)"
    PIDS+=("$REDIS_PID")
  else
    say "FAULT: postgres restarted (pg_ctl restart -m immediate: a crash, then recovery) at $at/$total persisted"
    bash "$PG_SCRIPT" restart "$PG_DIR" >/dev/null || say "postgres did not come back (the check below fails)"
  fi

  sim_rc=0; wait "$sim_pid" || sim_rc=$?
  cat "$WORK/$run-summary.txt"
  for n in $(seq 1 "$instances"); do say "rx$n stats: $(stats "${RX_ADDR[$n]}")"; done

  local check_args=(check --expect "$WORK/$run-expect.txt" --json "$WORK/$run-check.json")
  if [ "$STORE" = redis ]; then
    check_args+=(--records "$WORK/$run-records")
    for n in 1 2 3; do check_args+=(--persisted "$WORK/$run-rx$n.jsonl"); done
    if [ "$fault" = kill ]; then check_args+=(--crashed rx1); else check_args+=(--allow-duplicates); fi
  else
    # The table is what was persisted: every row a processing, so a second one is a failure.
    dump_events "$run" "$WORK/$run-events.jsonl" || say "could not read the events back (the check below fails)"
    check_args+=(--persisted "$WORK/$run-events.jsonl")
  fi
  check_rc=0; "$SIM" "${check_args[@]}" || check_rc=$?

  local c="$WORK/$run-check.json" s="$WORK/$run-summary.json"
  local line twice
  if [ "$STORE" != redis ]; then
    twice="$(jnum "$c" duplicated)"
  elif [ "$fault" = kill ]; then
    twice=$(printf '%s (%s after the killed instance persisted them, %s after a lease expiry, %s otherwise)' \
      "$(jnum "$c" processed_again)" "$(jnum "$c" processed_again_by_crash)" \
      "$(jnum "$c" processed_again_after_lease)" "$(jnum "$c" processed_again_unexplained)")
  elif [ "$aof" = 1 ]; then
    twice=$(printf '%s (Redis lost what it had not yet written to its append-only file)' "$(jnum "$c" processed_again)")
  else
    twice=$(printf '%s (Redis forgot the claims and done ids: the cost of no persistence)' "$(jnum "$c" processed_again)")
  fi
  line=$(printf 'expected %s, persisted exactly once %s, lost %s, persisted twice %s, processed twice %s, unexpected %s; dead-lettered %s, bad signatures accepted %s of %s' \
    "$(jnum "$c" expected)" "$(jnum "$c" exactly_once)" "$(jnum "$c" missing)" "$(jnum "$c" duplicated)" "$twice" \
    "$(jnum "$c" unexpected)" "$(jnum "$s" dead_lettered)" "$(jnum "$s" bad_signatures_accepted)" \
    "$(jnum "$s" bad_signatures_sent)")
  local store_name=$STORE
  [ "$run" = redis-aof ] && store_name="redis(aof)"
  [ "$run" = redis ] && store_name="redis(no persistence)"
  local what=$fault
  [ "$fault" = kill ] && what="instance killed"
  [ "$fault" = restart ] && what="restarted"
  local times
  if [ "$STORE" = redis ]; then times=$(jnum "$c" processed_again); else times=$(jnum "$c" duplicated); fi
  printf -v "LINE_$key" 'fault-test: %s %s: %s live, %s exactly once, %s lost, %s twice' "$store_name" "$what" \
    "$(jnum "$c" expected)" "$(jnum "$c" exactly_once)" "$(jnum "$c" missing)" "$times"
  local verdict=ok
  [ "$sim_rc" -eq 0 ] && [ "$check_rc" -eq 0 ] || verdict=FAILED
  printf -v "RESULT_$key" '%s: %s' "$verdict" "$line"
  say "run $run: $verdict: $line"

  # Stop this run's processes (by pid) and servers before the next one.
  for p in "${RX_PID[@]}"; do kill -9 "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  RX_PID=()
  if [ "$STORE" = redis ]; then kill -9 "$REDIS_PID" 2>/dev/null || true; wait "$REDIS_PID" 2>/dev/null || true; fi
  if [ "$STORE" = postgres ]; then bash "$PG_SCRIPT" stop "$PG_DIR" || true; fi
  [ "$verdict" = ok ]
}

failed=0
t0=$SECONDS
for r in "${RUNS[@]}"; do one_run "$r" || failed=1; done
echo
say "summary ($((SECONDS - t0)) s):"
for r in "${RUNS[@]}"; do
  k=${r//-/_}; v="RESULT_$k"
  say "  $r: ${!v:-not run}"
done
for r in "${RUNS[@]}"; do
  v="LINE_${r//-/_}"
  [ -n "${!v:-}" ] && echo "${!v}"
done
if [ "$failed" -eq 0 ]; then say "passed"; else say "FAILED"; fi
exit "$failed"
