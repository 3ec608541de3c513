#!/usr/bin/env bash
# The CI fault test of the receivers (issues 14 and 26).
#
#   bash tests/fault/fault-test.sh [RUN ...]     every run, or the ones named:
#     kill              Redis: an instance is killed (SIGKILL) mid-run and restarted
#     redis             Redis without persistence is killed and restarted empty mid-run
#     redis-aof         the same with Redis's append-only file (appendfsync everysec)
#     postgres-kill     PostgreSQL: an instance is killed (SIGKILL) mid-run and restarted
#     postgres-restart  PostgreSQL itself is restarted mid-run (pg_ctl restart -m immediate)
#     sqlite-kill       one instance on SQLite, killed (SIGKILL) mid-run and restarted
#   and the hostile ones (issue 30), 1,500-2,000 events each:
#     slow-body         PostgreSQL: SLOW_CONNECTIONS (200) connections per instance trickle a body
#                       one byte per TCP segment (xborder-simulator slow-body) during the run;
#                       plus an RSS line per instance
#     redis-hang        Redis: redis-server stopped (SIGSTOP) HANG_S (20) s mid-run, then SIGCONT
#     postgres-hang     PostgreSQL: the postmaster and every backend stopped HANG_S s, then SIGCONT
#     postgres-maxconn  PostgreSQL at max_connections 10, 3 instances with --pool 2; an operator's
#                       psql must connect during the run (3 times)
#     clock-ahead       Redis: rx1 runs 5 minutes ahead (--clock-skew-ms 300000), is killed
#                       (SIGKILL) mid-run and restarted (still ahead)
#     postgres-clock-ahead  the same on PostgreSQL
#     rolling-restart   PostgreSQL: each instance in turn gets SIGTERM (it drains) and is
#                       restarted on its address, under load
#   and the long outage (issue 34), 1,500 events each:
#     redis-outage, postgres-outage, sqlite-outage  every instance killed (SIGKILL) at 30 % and
#                       kept down until the simulator has spent every attempt (its delays
#                       shortened to 20-160 ms): what it sent meanwhile is dead-lettered; then
#                       the instances come back with --catch-up against `xborder-simulator api`
#                       (every event sent, GET /v1/external-events) and run it twice each
#
# Each run prints one line: `fault-test: <store> <fault>: <N> live, <N> exactly once, <N> lost,
# <N> twice` (for Redis, "twice" counts events processed a second time; their records, the
# unique key, kept them persisted once). slow-body adds one line per instance:
# `fault-test: slow-body rss <instance> (<runtime>): before X MiB, peak Y MiB, after Z MiB, limit
# L MiB per connection (...): ok|FAILED`.
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
#         stores/redis/src/lib.rs documents), not failed on; with the append-only file it
#         forgets at most the last second's writes.
#
#   PostgreSQL and SQLite (--postgres, --sqlite): each instance writes the event's row
#   (xborder_events, one row per processing, no unique key: stores/sql/receiver-events.sql) in
#   the same transaction as the claim's completion. The run passes only when every live event
#   has exactly one row: 0 lost, 0 twice, whatever was killed or restarted, and nothing
#   dead-lettered.
#
#   The hostile runs (issue 30) pass as the runs above on their store (0 lost, nothing
#   dead-lettered, no bad signature accepted; on PostgreSQL 0 twice; on Redis no event processed
#   twice but one whose record the killed instance wrote), and besides:
#   slow-body   the instances run with --max-body-bytes SLOW_BODY_LIMIT (131072: smaller than
#         the default 1 MiB so the bound below bites: 50 MiB for 200 connections) and the
#         defaults --body-timeout-ms 10000, --max-connections 512. Once 10 % of the events are
#         persisted, `xborder-simulator slow-body` opens SLOW_CONNECTIONS connections to every
#         instance, each declaring a body of SLOW_BODY_LIMIT bytes and sending one byte every
#         SLOW_INTERVAL_MS (50) ms with TCP_NODELAY, reconnecting when one ends, for SLOW_FOR_MS
#         (12000: past the body timeout, so each is answered 408 and opened again). A receiver
#         that keeps a buffer per received segment (issue 30: 4 KB per byte) grows by about
#         160 MB here. Each instance's VmRSS
#         (/proc/PID/status) is read before, every 0.25 s during the attack (and its VmHWM
#         after), and after the attack's connections close (up to 10 s for it to come down).
#         The RSS line fails when the growth over "before" passes 2 x the body limit per
#         attacking connection, at the peak or after.
#   redis-hang, postgres-hang  the store's processes get SIGSTOP for HANG_S s once 40 % of the
#         events are persisted, then SIGCONT. The receivers must answer 503 within their
#         --store-timeout-ms (2000) and never process an event twice. The provider's retries
#         must outlast the hang, as the real provider's do (over minutes): these two runs use
#         --backoff-ms 2000 --backoff-max-ms 16000, attempts at 0, 2, 6, 14 and 30 s (plus jitter),
#         so an event first sent during the 20 s hang has its last attempt after it.
#   postgres-maxconn  PostgreSQL started with max_connections 10 (superuser_reserved_connections
#         3), the instances with --pool 2 (3 x 2 = 6 <= 10 - 3 - 1: the sizing rule); at 25, 50
#         and 75 % an operator's psql must connect (PGCONNECT_TIMEOUT 5) and count the
#         connections. The default retry schedule (a starved pool dead-letters events).
#   clock-ahead, postgres-clock-ahead  rx1 (and rx1-restarted) run with --clock-skew-ms 300000:
#         their clock reads 5 minutes ahead; the receivers take claim times from the store's
#         clock. The simulator writes its send times (--attempts) and `check --attempts`
#         compares every processing's claimed_at_ms with them: a claim more than a tenth of the
#         lease from every attempt of its event fails the run. rx1 must be named a skewed
#         instance (its lines' clock_offset_ms, about -300000).
#   rolling-restart  from 15 % persisted, each instance in turn gets SIGTERM, must exit 0 within
#         its grace (--grace-ms 10000; its log's `shutdown:` line is shown), and is restarted on
#         its address as rxN-restarted, a second after the previous one is back. The summary
#         counts requests written and never answered (a connection closed under a request):
#         the run fails on any (refused connections, while an instance is down, are retried and
#         not counted).
#
# Environment:
#   EVENTS=5000  RATE=1000 (jobs/s)  CONCURRENCY=32  LEASE_MS=2000  DOWN_S=1 (how long the
#   killed thing stays down)  KEEP=1 (keep the work directory)  REDIS_SERVER=redis-server
#   XBORDER_PG_BIN (PostgreSQL's binaries: tests/servers/postgres.sh)
#   For the hostile runs (EVENTS and RATE are the six runs' only): NEW_EVENTS (each run's own
#   count: 1500 for the hangs, 2000 otherwise)  HANG_S=20  SLOW_CONNECTIONS=200
#   SLOW_BODY_LIMIT=131072  SLOW_INTERVAL_MS=50  SLOW_FOR_MS=12000
#   RX1_CMD, RX2_CMD, RX3_CMD: the command of each instance (default: the Rust receiver,
#   target/release/xborder-receiver, for rx1 and rx2; the Node receiver,
#   examples/receiver-node/server.mjs, for rx3). Another runtime plugs in the same way, e.g.
#     RX3_CMD="python3 examples/receiver-python/server.py" bash tests/fault/fault-test.sh
#   The script appends: --listen ADDR --secret KEY (--redis URL | --postgres URL | --sqlite PATH)
#   --persist FILE [--records DIR] --instance NAME --lease-ms N (plus the run's own: slow-body
#   --max-body-bytes N, postgres-maxconn --pool 2, the clock runs' rx1 --clock-skew-ms 300000:
#   the receivers' common flags, examples/README.md). An instance must print its
#   bound address (host:port) as the first line on stdout and answer POST deliveries as the Rust
#   receiver does. With --redis it keeps one record per event id in DIR (written under a hidden
#   temporary name, then link(2)ed into place: it exists whole or not at all, the fleet's table
#   with a unique key) and appends one JSON line per persisted event to FILE with at least "id"
#   and "instance", plus "again": true when the record existed already. With --postgres or
#   --sqlite it inserts the event's row in the transaction that completes the claim. RX1 is the
#   one that gets killed.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD

EVENTS=${EVENTS:-5000}
RATE=${RATE:-1000}
CONCURRENCY=${CONCURRENCY:-32}
LEASE_MS=${LEASE_MS:-2000}
DOWN_S=${DOWN_S:-1}
REDIS_SERVER=${REDIS_SERVER:-redis-server}
SECRET=whsec_fault_test
HANG_S=${HANG_S:-20}
SLOW_CONNECTIONS=${SLOW_CONNECTIONS:-200}
SLOW_BODY_LIMIT=${SLOW_BODY_LIMIT:-131072}
SLOW_INTERVAL_MS=${SLOW_INTERVAL_MS:-50}
SLOW_FOR_MS=${SLOW_FOR_MS:-12000}
SKEW_MS=300000
ALL_RUNS=(kill redis redis-aof postgres-kill postgres-restart sqlite-kill
  slow-body redis-hang postgres-hang postgres-maxconn clock-ahead postgres-clock-ahead rolling-restart
  redis-outage postgres-outage sqlite-outage)
RUNS=("$@")
[ ${#RUNS[@]} -gt 0 ] && [ "${RUNS[0]}" != all ] || RUNS=("${ALL_RUNS[@]}")
for r in "${RUNS[@]}"; do
  case " ${ALL_RUNS[*]} " in *" $r "*) ;; *) sed -n '2,29p' "$0"; exit 2 ;; esac
done

say() { echo "[fault-test] $*"; }

if ! command -v "$REDIS_SERVER" >/dev/null; then
  say "$REDIS_SERVER not found (bash stores/redis/test.sh or tests/tools/setup.sh redis installs it)"
  exit 2
fi

say "building (release, once): cargo build --release -p xborder-receiver -p xborder-simulator"
cargo build --release -q -p xborder-receiver -p xborder-simulator
BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release
SIM=$BIN/xborder-simulator
RX=$BIN/xborder-receiver
# The third instance is the Node receiver (examples/receiver-node) unless RX3_CMD says otherwise:
# two Rust instances and one Node instance share the Redis.
if [ -z "${RX3_CMD:-}" ]; then
  say "the Node receiver: bash examples/receiver-node/setup.sh"
  bash examples/receiver-node/setup.sh
  # shellcheck disable=SC1091
  [ -f "${XBORDER_CACHE:-$HOME/.cache/xborder}/env.sh" ] && . "${XBORDER_CACHE:-$HOME/.cache/xborder}/env.sh"
  RX3_CMD="node $ROOT/examples/receiver-node/server.mjs"
fi
say "instances: rx1 ${RX1_CMD:-$RX}, rx2 ${RX2_CMD:-$RX}, rx3 $RX3_CMD"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/xborder-fault.XXXXXX")
say "work directory: $WORK"
PIDS=()
PG_DIRS=()
STOPPED=() # processes a hang run stopped (SIGSTOP): continued before anything else
cleanup() {
  local p
  for p in "${STOPPED[@]}"; do kill -CONT "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  local d
  for d in "${PG_DIRS[@]}"; do
    bash "$ROOT/tests/servers/postgres.sh" stop "$d" 2>/dev/null || true
    rm -rf "$d"
  done
  if [ "${KEEP:-0}" = 1 ]; then say "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

# port_in_use, start_fresh_redis (a port outside the ephemeral range, retried when redis-server
# exits) and start_redis (a restart on the same port).
# shellcheck source=tests/servers/redis.sh
. "$ROOT/tests/servers/redis.sh"

# A JSON number out of a pretty-printed file: jnum FILE KEY.
jnum() { grep -o "\"$2\": *[0-9.]*" "$1" | head -1 | grep -o '[0-9.]*$'; }
# A value at a path of a JSON file (a list joined with ", "; 0 when absent): jget FILE KEY...
jget() {
  python3 - "$@" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2:]:
    v = v.get(k, 0) if isinstance(v, dict) else 0
print(", ".join(map(str, v)) if isinstance(v, list) else v)
PY
}

# PostgreSQL: its server script, and psql beside its binaries (to read the events back).
PG_SCRIPT=$ROOT/tests/servers/postgres.sh
psql_bin() {
  local b=${XBORDER_PG_BIN:-}
  [ -n "$b" ] || b=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r | head -1)
  if [ -n "$b" ] && [ -x "$b/psql" ]; then echo "$b/psql"; else command -v psql; fi
}

# What the instances of a run share: STORE_ARGS (appended to each instance's command).
STORE_ARGS=()
RUN_ARGS=() # a run's own flags, for every instance
RX1_ARGS=() # and for rx1 alone (the clock runs' skew)
declare -A RX_PID RX_ADDR
start_instance() { # N NAME LISTEN RUN
  local n=$1 name=$2 listen=$3 run=$4 var="RX$1_CMD"
  local cmd=${!var:-$RX}
  local out="$WORK/$run-$name.addr"
  local own=("${RUN_ARGS[@]}")
  [ "$n" = 1 ] && own+=("${RX1_ARGS[@]}")
  # The outage runs' instances back: the catch-up against the simulator's API, each with its
  # own checkpoint.
  [ -n "${CATCH_UP:-}" ] && own+=(--catch-up "$CATCH_UP" --catch-up-every-ms 200 --checkpoint "$WORK/$run-rx$n.checkpoint")
  # shellcheck disable=SC2086 # the command may carry its own arguments
  $cmd --listen "$listen" --secret "$SECRET" "${STORE_ARGS[@]}" \
    --persist "$WORK/$run-rx$n.jsonl" --instance "$name" --lease-ms "$LEASE_MS" "${own[@]}" \
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

# A process's resident memory (VmRSS, or VmHWM: its peak) in KiB: rss_kib PID [FIELD].
rss_kib() { awk -v f="${2:-VmRSS}:" '$1 == f { print $2 }' "/proc/$1/status" 2>/dev/null || true; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

# The runtime of instance N, from its command: rust, node, python (or the command's name).
runtime_of() {
  local var="RX$1_CMD" cmd
  cmd=${!var:-$RX}
  case $cmd in
    *python*) echo python ;;
    *node*) echo node ;;
    *xborder-receiver*) echo rust ;;
    *) basename "${cmd%% *}" ;;
  esac
}

# An operator's psql while the instances hold their pools: prints the client connections
# it counted (itself included), fails when it cannot connect in 5 s.
operator_psql() {
  PGCONNECT_TIMEOUT=5 timeout 15 "$(psql_bin)" "$PG_URL" -X -q -A -t -c \
    "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'" 2>>"$WORK/psql.log"
}

# The slow-body attack during a run, and each instance's RSS around it. Sets RSS_LINES and
# RSS_OK; the attack's report is in $WORK/RUN-slow.txt and .json.
slow_body_attack() { # RUN INSTANCES
  local run=$1 instances=$2 n k targets=() atk_pid
  declare -A before peak hwm0
  for n in $(seq 1 "$instances"); do
    targets+=(--target "${RX_ADDR[$n]}")
    before[$n]=$(rss_kib "${RX_PID[$n]}"); peak[$n]=${before[$n]}
    hwm0[$n]=$(rss_kib "${RX_PID[$n]}" VmHWM)
  done
  say "FAULT: slow-body: $SLOW_CONNECTIONS connections per instance, Content-Length $SLOW_BODY_LIMIT, a byte every $SLOW_INTERVAL_MS ms, reconnecting, for $SLOW_FOR_MS ms"
  "$SIM" slow-body "${targets[@]}" --connections "$SLOW_CONNECTIONS" --bytes "$SLOW_BODY_LIMIT" \
    --interval-ms "$SLOW_INTERVAL_MS" --for-ms "$SLOW_FOR_MS" --reconnect --quiet \
    --json "$WORK/$run-slow.json" >"$WORK/$run-slow.txt" 2>&1 &
  atk_pid=$!
  PIDS+=("$atk_pid")
  while kill -0 "$atk_pid" 2>/dev/null; do
    for n in $(seq 1 "$instances"); do
      k=$(rss_kib "${RX_PID[$n]}")
      [ -n "$k" ] && [ "$k" -gt "${peak[$n]}" ] && peak[$n]=$k
    done
    sleep 0.25
  done
  wait "$atk_pid" || say "the slow-body attacker failed (see $run-slow.txt)"
  sed 's/^/    /' "$WORK/$run-slow.txt"
  # The bound: 2 x the body limit per attacking connection, over the RSS before the attack.
  local bound_kib=$((2 * SLOW_BODY_LIMIT * SLOW_CONNECTIONS / 1024)) after h verdict
  local per_conn
  per_conn=$(awk -v b="$SLOW_BODY_LIMIT" 'BEGIN { printf "%.3g", 2 * b / 1048576 }')
  RSS_LINES=(); RSS_OK=1
  for n in $(seq 1 "$instances"); do
    h=$(rss_kib "${RX_PID[$n]}" VmHWM)
    # A peak between two samples: VmHWM grew during the attack.
    [ -n "$h" ] && [ "$h" -gt "${hwm0[$n]}" ] && [ "$h" -gt "${peak[$n]}" ] && peak[$n]=$h
    for _ in $(seq 1 20); do
      after=$(rss_kib "${RX_PID[$n]}")
      [ -n "$after" ] && [ $((after - before[$n])) -le "$bound_kib" ] && break
      sleep 0.5
    done
    verdict=ok
    if [ -z "$after" ] || [ $((peak[$n] - before[$n])) -gt "$bound_kib" ] || [ $((after - before[$n])) -gt "$bound_kib" ]; then
      verdict=FAILED; RSS_OK=0
    fi
    RSS_LINES+=("$(printf 'fault-test: slow-body rss rx%s (%s): before %s MiB, peak %s MiB, after %s MiB, limit %s MiB per connection (%s MiB for %s): %s' \
      "$n" "$(runtime_of "$n")" "$(mib "${before[$n]}")" "$(mib "${peak[$n]}")" "$(mib "${after:-0}")" \
      "$per_conn" "$(mib "$bound_kib")" "$SLOW_CONNECTIONS" "$verdict")")
    say "${RSS_LINES[-1]}"
  done
}

# One run (kill, redis, redis-aof, postgres-kill, postgres-restart, sqlite-kill, and the
# hostile ones). Sets RESULT_<run> and LINE_<run> (and RSS_<run> for slow-body).
one_run() {
  local run=$1 sim_pid sim_rc check_rc target total fault instances=3 key=${1//-/_}
  local events=$EVENTS rate=$RATE fault_at=40 extra_ok=1 extra_note=""
  local backoff=(--backoff-ms 200 --backoff-max-ms 2000) backoff_text="200 ms (x2, max 2 s)"
  local sim_extra=() sim_send=() pg_max=""
  STORE=redis; fault=kill
  RUN_ARGS=(); RX1_ARGS=(); CATCH_UP=""
  case $run in
    redis | redis-aof) fault=restart ;;
    postgres-kill) STORE=postgres ;;
    postgres-restart) STORE=postgres; fault=restart ;;
    sqlite-kill) STORE=sqlite; instances=1 ;;
    slow-body)
      STORE=postgres; fault=slow-body; events=${NEW_EVENTS:-2000}; rate=100; fault_at=10
      RUN_ARGS=(--max-body-bytes "$SLOW_BODY_LIMIT") ;;
    redis-hang | postgres-hang)
      fault=hang; events=${NEW_EVENTS:-1500}; rate=300
      [ "$run" = postgres-hang ] && STORE=postgres
      backoff=(--backoff-ms 2000 --backoff-max-ms 16000); backoff_text="2 s (x2, max 16 s: attempts over 30 s, past the hang)" ;;
    postgres-maxconn)
      STORE=postgres; fault=maxconn; events=${NEW_EVENTS:-2000}; rate=400; pg_max=10
      RUN_ARGS=(--pool 2) ;;
    clock-ahead | postgres-clock-ahead)
      events=${NEW_EVENTS:-2000}; rate=400
      [ "$run" = postgres-clock-ahead ] && STORE=postgres
      RX1_ARGS=(--clock-skew-ms "$SKEW_MS")
      sim_extra=(--attempts "$WORK/$run-attempts.jsonl") ;;
    rolling-restart)
      STORE=postgres; fault=rolling; events=${NEW_EVENTS:-2000}; rate=150; fault_at=15 ;;
    redis-outage | postgres-outage | sqlite-outage)
      # Every instance down longer than the provider's five attempts (their delays shortened to
      # milliseconds): what is sent meanwhile is dead-lettered; back with the catch-up.
      fault=outage; events=${NEW_EVENTS:-1500}; rate=300; fault_at=30
      backoff=(--backoff-ms 20 --backoff-max-ms 160); backoff_text="20 ms (x2, max 160 ms: five attempts within half a second, the outage far longer)"
      sim_send=(--external-events "$WORK/$run-external.jsonl")
      [ "$run" = postgres-outage ] && STORE=postgres
      [ "$run" = sqlite-outage ] && { STORE=sqlite; instances=1; } ;;
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
      PG_URL=$(XBORDER_PG_MAX_CONNECTIONS=$pg_max XBORDER_PG_OWNER=$$ bash "$PG_SCRIPT" start "$PG_DIR" | tail -1) && [ -n "$PG_URL" ] ||
        { eval "RESULT_$key=\"FAILED: postgres did not start\""; return 1; }
      STORE_ARGS=(--postgres "$PG_URL")
      say "postgres on $PG_URL${pg_max:+ (max_connections $pg_max)}"
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
    local v="RX${n}_CMD" own=("${RUN_ARGS[@]}")
    [ "$n" = 1 ] && own+=("${RX1_ARGS[@]}")
    say "instance rx$n on ${RX_ADDR[$n]} (${!v:-$RX}${own[*]:+ ${own[*]}})"
  done
  local urls=()
  for n in $(seq 1 "$instances"); do urls+=(--url "http://${RX_ADDR[$n]}/webhooks"); done

  say "simulator: $events events, 20 % duplicates, 5 % concurrent, 1 % replays, 1 % bad signatures, 2 % unknown, $rate jobs/s, backoff $backoff_text, lease $LEASE_MS ms"
  "$SIM" "${urls[@]}" --secret "$SECRET" --events "$events" --duplicates 0.2 --concurrent 0.05 \
    --replays 0.01 --bad-signatures 0.01 --unknown 0.02 --concurrency "$CONCURRENCY" --seed 1 \
    --rate "$rate" "${backoff[@]}" --lease-ms "$LEASE_MS" "${sim_extra[@]}" "${sim_send[@]}" \
    --expect "$WORK/$run-expect.txt" --json "$WORK/$run-summary.json" >"$WORK/$run-summary.txt" &
  sim_pid=$!
  PIDS+=("$sim_pid")

  # The fault, once fault_at % of the expected events are persisted.
  for _ in $(seq 1 200); do [ -s "$WORK/$run-expect.txt" ] && break; sleep 0.05; done
  total=$(wc -l <"$WORK/$run-expect.txt")
  target=$((total * fault_at / 100))
  while [ "$(persisted_lines "$run")" -lt "$target" ] && kill -0 "$sim_pid" 2>/dev/null; do sleep 0.05; done
  local at t_fault=$SECONDS
  at=$(persisted_lines "$run")
  kill -0 "$sim_pid" 2>/dev/null || say "WARNING: the simulator ended before the fault (raise EVENTS or lower RATE)"
  case $fault in
    kill)
      say "FAULT: SIGKILL rx1 (pid ${RX_PID[1]}) at $at/$total persisted; restarting it on ${RX_ADDR[1]} in ${DOWN_S} s as rx1-restarted"
      kill -9 "${RX_PID[1]}"; wait "${RX_PID[1]}" 2>/dev/null || true
      sleep "$DOWN_S"
      start_instance 1 rx1-restarted "${RX_ADDR[1]}" "$run" || say "rx1 did not come back (the check below fails)"
      ;;
    restart)
      if [ "$STORE" = redis ]; then
        say "FAULT: SIGKILL redis-server (pid $REDIS_PID) at $at/$total persisted; restarting it on port $rport in ${DOWN_S} s"
        kill -9 "$REDIS_PID"; wait "$REDIS_PID" 2>/dev/null || true
        sleep "$DOWN_S"
        REDIS_AOF=$aof start_redis "$rport" "$WORK" || say "redis-server did not come back (the check below fails)"
        PIDS+=("$REDIS_PID")
      else
        say "FAULT: postgres restarted (pg_ctl restart -m immediate: a crash, then recovery) at $at/$total persisted"
        bash "$PG_SCRIPT" restart "$PG_DIR" >/dev/null || say "postgres did not come back (the check below fails)"
      fi
      ;;
    hang)
      if [ "$STORE" = redis ]; then
        STOPPED=("$REDIS_PID")
        kill -STOP "$REDIS_PID"
      else
        # The postmaster first (it forks no backend after), then every child it has.
        local pm
        pm=$(head -1 "$PG_DIR/data/postmaster.pid")
        STOPPED=("$pm")
        kill -STOP "$pm"
        # shellcheck disable=SC2207 # pids
        STOPPED+=($(ps -o pid= --ppid "$pm"))
        kill -STOP "${STOPPED[@]}"
      fi
      say "FAULT: SIGSTOP $STORE (pids ${STOPPED[*]}) at $at/$total persisted, for $HANG_S s"
      sleep "$HANG_S"
      kill -CONT "${STOPPED[@]}"
      say "SIGCONT $STORE after $((SECONDS - t_fault)) s"
      STOPPED=()
      ;;
    slow-body)
      slow_body_attack "$run" "$instances"
      [ "$RSS_OK" = 1 ] || extra_ok=0
      printf -v "RSS_$key" '%s\n' "${RSS_LINES[@]}"
      local sj="$WORK/$run-slow.json" e ends=""
      for e in 408 413 503 closed refused "open at end"; do
        ends="$ends, $e $(jget "$sj" endings "$e" count 2>/dev/null || echo '?')"
      done
      extra_note=$(printf ' (%s trickling connections per instance, %s opened; ended: %s)' \
        "$SLOW_CONNECTIONS" "$(jget "$sj" opened 2>/dev/null || echo '?')" "${ends#, }")
      ;;
    maxconn)
      local ok_psql=0 tries=0 counts=() c pct
      for pct in 25 50 75; do
        target=$((total * pct / 100))
        while [ "$(persisted_lines "$run")" -lt "$target" ] && kill -0 "$sim_pid" 2>/dev/null; do sleep 0.05; done
        tries=$((tries + 1))
        if c=$(operator_psql) && [ -n "$c" ]; then
          ok_psql=$((ok_psql + 1)); counts+=("$c")
          say "operator psql at $(persisted_lines "$run")/$total persisted: connected, $c client connections"
        else
          say "operator psql at $(persisted_lines "$run")/$total persisted: REFUSED ($(tail -1 "$WORK/psql.log" 2>/dev/null))"
        fi
      done
      [ "$ok_psql" -eq "$tries" ] || extra_ok=0
      extra_note=" (3 instances x --pool 2; operator psql connected $ok_psql of $tries times${counts[*]:+, client connections seen $(IFS=/; echo "${counts[*]}")})"
      ;;
    outage)
      local api_pid caught n_done c r recovered=0 failed_cu=0 t_down
      say "FAULT: every instance SIGKILLed at $at/$total persisted; down until the simulator has spent every attempt"
      for n in $(seq 1 "$instances"); do kill -9 "${RX_PID[$n]}"; wait "${RX_PID[$n]}" 2>/dev/null || true; done
      t_down=$SECONDS
      while kill -0 "$sim_pid" 2>/dev/null; do sleep 0.1; done
      say "the simulator ended $((SECONDS - t_down)) s into the outage: $(jnum "$WORK/$run-summary.json" dead_lettered_events) events dead-lettered"
      "$SIM" api --events "$WORK/$run-external.jsonl" --addr-file "$WORK/$run-api.addr" >/dev/null 2>>"$WORK/$run-api.log" &
      api_pid=$!
      PIDS+=("$api_pid")
      for _ in $(seq 1 200); do [ -s "$WORK/$run-api.addr" ] && break; sleep 0.05; done
      CATCH_UP="http://$(cat "$WORK/$run-api.addr")"
      for n in $(seq 1 "$instances"); do
        start_instance "$n" "rx$n-back" "${RX_ADDR[$n]}" "$run" || { say "rx$n did not come back"; extra_ok=0; }
      done
      say "instances back with --catch-up $CATCH_UP (GET /v1/external-events of every event sent)"
      # Until each instance has caught up twice (the second from its checkpoint), 120 s at most.
      for _ in $(seq 1 600); do
        n_done=0
        for n in $(seq 1 "$instances"); do
          c=$(stats "${RX_ADDR[$n]}" | grep -o '"catch_ups": *[0-9]*' | grep -o '[0-9]*$' || true)
          [ "${c:-0}" -ge 2 ] && n_done=$((n_done + 1))
        done
        [ "$n_done" -eq "$instances" ] && break
        sleep 0.2
      done
      for n in $(seq 1 "$instances"); do
        r=$(stats "${RX_ADDR[$n]}")
        c=$(echo "$r" | grep -o '"recovered": *[0-9]*' | grep -o '[0-9]*$' || echo 0)
        recovered=$((recovered + ${c:-0}))
        c=$(echo "$r" | grep -o '"catch_ups_failed": *[0-9]*' | grep -o '[0-9]*$' || echo 0)
        failed_cu=$((failed_cu + ${c:-0}))
      done
      caught=$n_done
      [ "$caught" -eq "$instances" ] && [ "$failed_cu" -eq 0 ] || extra_ok=0
      extra_note=" ($(jnum "$WORK/$run-summary.json" dead_lettered_events) dead-lettered, $recovered recovered by the catch-up; $caught of $instances instances caught up twice, $failed_cu catch-ups failed)"
      ;;
    rolling)
      local rc t0 cut=""
      for n in $(seq 1 "$instances"); do
        say "FAULT: SIGTERM rx$n (pid ${RX_PID[$n]}) at $(persisted_lines "$run")/$total persisted"
        t0=$SECONDS
        kill -TERM "${RX_PID[$n]}"
        # Its grace (10 s) and 5 s more, then SIGKILL.
        for _ in $(seq 1 150); do kill -0 "${RX_PID[$n]}" 2>/dev/null || break; sleep 0.1; done
        kill -0 "${RX_PID[$n]}" 2>/dev/null && { say "rx$n still running 15 s after SIGTERM: SIGKILL"; kill -9 "${RX_PID[$n]}"; }
        rc=0; wait "${RX_PID[$n]}" 2>/dev/null || rc=$?
        say "rx$n exited $rc after $((SECONDS - t0)) s: $(grep -h 'shutdown' "$WORK/$run-rx$n.log" | tail -1)"
        [ "$rc" -eq 0 ] || { extra_ok=0; cut="$cut rx$n exited $rc;"; }
        start_instance "$n" "rx$n-restarted" "${RX_ADDR[$n]}" "$run" || { say "rx$n did not come back"; extra_ok=0; }
        sleep 1
      done
      [ -z "$cut" ] || extra_note=" ($cut)"
      ;;
  esac

  sim_rc=0; wait "$sim_pid" || sim_rc=$?
  cat "$WORK/$run-summary.txt"
  if [ "$fault" = outage ]; then
    # The send fails (exit 1) for what it dead-lettered: the point of the run, which must have
    # dead-lettered some; a bad signature accepted still fails it.
    [ "$sim_rc" -eq 1 ] && [ "$(jnum "$WORK/$run-summary.json" dead_lettered_events)" -gt 0 ] && sim_rc=0
    [ "$(jnum "$WORK/$run-summary.json" bad_signatures_accepted)" = 0 ] || extra_ok=0
  fi
  for n in $(seq 1 "$instances"); do say "rx$n stats: $(stats "${RX_ADDR[$n]}")"; done

  local check_args=(check --expect "$WORK/$run-expect.txt" --json "$WORK/$run-check.json")
  [ ${#sim_extra[@]} -gt 0 ] && check_args+=(--attempts "$WORK/$run-attempts.jsonl")
  if [ "$STORE" = redis ]; then
    check_args+=(--records "$WORK/$run-records")
    for n in 1 2 3; do check_args+=(--persisted "$WORK/$run-rx$n.jsonl"); done
    if [ "$fault" = kill ]; then check_args+=(--crashed rx1); fi
    if [ "$fault" = outage ]; then check_args+=(--crashed rx1 --crashed rx2 --crashed rx3); fi
    if [ "$fault" = restart ]; then check_args+=(--allow-duplicates); fi
  else
    # The table is what was persisted: every row a processing, so a second one is a failure.
    dump_events "$run" "$WORK/$run-events.jsonl" || say "could not read the events back (the check below fails)"
    check_args+=(--persisted "$WORK/$run-events.jsonl")
    # The clock runs: the instances' lines carry their clock offsets.
    if [ ${#sim_extra[@]} -gt 0 ]; then
      for n in 1 2 3; do [ -f "$WORK/$run-rx$n.jsonl" ] && check_args+=(--logs "$WORK/$run-rx$n.jsonl"); done
    fi
  fi
  check_rc=0; "$SIM" "${check_args[@]}" || check_rc=$?

  local c="$WORK/$run-check.json" s="$WORK/$run-summary.json"
  local line twice
  if [ "$STORE" != redis ]; then
    twice="$(jnum "$c" duplicated)"
  elif [ "$fault" = restart ] && [ "$aof" = 1 ]; then
    twice=$(printf '%s (Redis lost what it had not yet written to its append-only file)' "$(jnum "$c" processed_again)")
  elif [ "$fault" = restart ]; then
    twice=$(printf '%s (Redis forgot the claims and done ids: the cost of no persistence)' "$(jnum "$c" processed_again)")
  else
    twice=$(printf '%s (%s after the killed instance persisted them, %s after a lease expiry, %s otherwise)' \
      "$(jnum "$c" processed_again)" "$(jnum "$c" processed_again_by_crash)" \
      "$(jnum "$c" processed_again_after_lease)" "$(jnum "$c" processed_again_unexplained)")
  fi
  line=$(printf 'expected %s, persisted exactly once %s, lost %s, persisted twice %s, processed twice %s, unexpected %s; dead-lettered %s, bad signatures accepted %s of %s' \
    "$(jnum "$c" expected)" "$(jnum "$c" exactly_once)" "$(jnum "$c" missing)" "$(jnum "$c" duplicated)" "$twice" \
    "$(jnum "$c" unexpected)" "$(jnum "$s" dead_lettered)" "$(jnum "$s" bad_signatures_accepted)" \
    "$(jnum "$s" bad_signatures_sent)")
  local unanswered
  unanswered=$(jnum "$s" unanswered)
  line="$line; unanswered ${unanswered:-?}, refused $(jnum "$s" refused)"
  local store_name=$STORE
  [ "$run" = redis-aof ] && store_name="redis(aof)"
  [ "$run" = redis ] && store_name="redis(no persistence)"
  local what=$fault
  [ "$fault" = kill ] && what="instance killed"
  [ "$fault" = restart ] && what="restarted"
  case $run in
    slow-body) what="slow-body attack$extra_note" ;;
    redis-hang | postgres-hang) what="hung (SIGSTOP) ${HANG_S} s" ;;
    postgres-maxconn) what="max_connections 10$extra_note" ;;
    clock-ahead | postgres-clock-ahead)
      local skewed
      skewed=$(jget "$c" skewed_instances 2>/dev/null || true)
      case ", $skewed," in *", rx1,"*) ;; *) extra_ok=0; say "rx1 is not among the skewed instances ($skewed): its lines carry no clock_offset_ms near -$SKEW_MS" ;; esac
      what=$(printf 'rx1 clock 5 min ahead, instance killed (skewed instances: %s; %s of %s claims off the send times)' \
        "${skewed:-none}" "$(jnum "$c" claims_off_send_times)" "$(jnum "$c" claims_timed)") ;;
    *-outage) what="every instance down past the retries, back with the catch-up$extra_note" ;;
    rolling-restart)
      [ "${unanswered:-1}" = 0 ] || extra_ok=0
      what="rolling restart (SIGTERM, drained, restarted$extra_note; ${unanswered:-?} unanswered)" ;;
  esac
  local times
  if [ "$STORE" = redis ]; then times=$(jnum "$c" processed_again); else times=$(jnum "$c" duplicated); fi
  printf -v "LINE_$key" 'fault-test: %s %s: %s live, %s exactly once, %s lost, %s twice' "$store_name" "$what" \
    "$(jnum "$c" expected)" "$(jnum "$c" exactly_once)" "$(jnum "$c" missing)" "$times"
  local verdict=ok
  [ "$sim_rc" -eq 0 ] && [ "$check_rc" -eq 0 ] && [ "$extra_ok" = 1 ] || verdict=FAILED
  printf -v "RESULT_$key" '%s: %s (%s s)' "$verdict" "$line" "$((SECONDS - RUN_T0))"
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
for r in "${RUNS[@]}"; do RUN_T0=$SECONDS; one_run "$r" || failed=1; done
echo
say "summary ($((SECONDS - t0)) s):"
for r in "${RUNS[@]}"; do
  k=${r//-/_}; v="RESULT_$k"
  say "  $r: ${!v:-not run}"
done
for r in "${RUNS[@]}"; do
  v="LINE_${r//-/_}"
  [ -n "${!v:-}" ] && echo "${!v}"
  v="RSS_${r//-/_}"
  [ -n "${!v:-}" ] && printf '%s' "${!v}"
done
if [ "$failed" -eq 0 ]; then say "passed"; else say "FAILED"; fi
exit "$failed"
