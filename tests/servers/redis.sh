# A throwaway redis-server for the shell scripts (tests/fault/fault-test.sh, tools/simulator/bench.sh):
# sourced, not run. The Rust, Node and Python tests have their own (stores/redis/src/testing.rs).
#
#   . tests/servers/redis.sh
#   start_fresh_redis "$WORK"     # a free port; sets RPORT and REDIS_PID, logs to $WORK/redis-PORT.log
#   start_redis "$RPORT" "$WORK"  # again on the same port (a restart); sets REDIS_PID
#   REDIS_AOF=1 before either: with the append-only file (appendfsync everysec) in $WORK
#
# The port is taken outside the kernel's ephemeral range (tests/servers/ports.sh). When redis-server
# exits anyway,
# start_fresh_redis prints why and tries another port. The caller adds REDIS_PID to what it kills.
# Needs REDIS_SERVER (the binary) and a `say` function.

# port_in_use and free_port (a port outside the ephemeral range).
# shellcheck source=tests/servers/ports.sh
. "$(dirname "${BASH_SOURCE[0]}")/ports.sh"

REDIS_PID=
start_redis() { # PORT LOGDIR: starts it and waits until it listens (5 s at most)
  local port=$1 log="$2/redis-$1.log"
  local keep=(--appendonly no)
  # REDIS_AOF=1: the append-only file in LOGDIR, fsynced every second (what a Redis fleet's
  # claims should run with: a restart then forgets at most the last second's writes).
  [ "${REDIS_AOF:-0}" = 1 ] && keep=(--appendonly yes --appendfsync everysec --dir "$2")
  "$REDIS_SERVER" --port "$port" --bind 127.0.0.1 --save "" "${keep[@]}" >>"$log" 2>&1 &
  REDIS_PID=$!
  for _ in $(seq 1 100); do
    port_in_use "$port" && return 0
    kill -0 "$REDIS_PID" 2>/dev/null || break
    sleep 0.05
  done
  if kill -0 "$REDIS_PID" 2>/dev/null; then
    say "redis-server did not listen on $port within 5 s; its log ends:"
    kill -9 "$REDIS_PID" 2>/dev/null || true
  else
    say "redis-server exited before it listened on $port; its log ends:"
  fi
  wait "$REDIS_PID" 2>/dev/null || true
  tail -3 "$log" | sed 's/^/    /' >&2
  return 1
}

RPORT=
start_fresh_redis() { # LOGDIR: on a free port (5 tries); sets RPORT
  local try
  for try in 1 2 3 4 5; do
    RPORT=$(free_port) || { say "no free loopback port found"; return 1; }
    start_redis "$RPORT" "$1" && return 0
    [ "$try" -lt 5 ] && say "trying another port"
  done
  return 1
}
