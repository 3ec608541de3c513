#!/usr/bin/env bash
# A throwaway PostgreSQL server for tests (the SQL claim stores' tests, and the fault test): a
# fresh cluster in DIR, trust authentication, listening on a free loopback port and on a socket
# in DIR. Run, not sourced:
#
#   bash tests/servers/postgres.sh start DIR     # initdb (once) and start; prints its URL
#   bash tests/servers/postgres.sh restart DIR   # pg_ctl restart -m immediate (a crash), same port
#   bash tests/servers/postgres.sh stop DIR      # pg_ctl stop -m fast
#   bash tests/servers/postgres.sh url DIR       # postgres://xborder@127.0.0.1:PORT/postgres
#
# `start` prints the URL as its last line of stdout (everything else goes to stderr). The role is
# `xborder`, a superuser, database `postgres`. DIR holds data/ (the cluster), port, and
# postgres.log. fsync is off: a killed postgres (restart -m immediate) loses no committed row, a
# machine crash could (a test server only).
#
# initdb and postgres refuse to run as root: as root, both run as XBORDER_PG_USER, else the
# `postgres` user (Debian's postgresql package creates it), else `nobody`; DIR is handed to that
# user, so its parent folders must be ones it may enter (/tmp is). Under another user they run as
# that user. XBORDER_PG_BIN names the folder of initdb and pg_ctl (default: the newest
# /usr/lib/postgresql/*/bin, then the PATH); `bash tests/tools/setup.sh postgres` installs them.
#
# With XBORDER_PG_MAX_CONNECTIONS=N, `start` runs the server with max_connections N (kept in
# DIR/max_connections, so `restart` keeps it; superuser_reserved_connections stays 3): the fault
# test's postgres-maxconn run.
#
# With XBORDER_PG_OWNER=PID, `start` also leaves a watchdog: when process PID is gone (a test
# run that was killed, or that never stopped its server), it stops the server (-m immediate) and
# removes DIR. The Rust tests set it to their own pid.
set -euo pipefail

say() { echo "postgres/server.sh: $*" >&2; }
die() { say "$*"; exit 1; }

[ $# -eq 2 ] || die "usage: server.sh start|restart|stop|url DIR"
cmd=$1
dir=$(cd "$2" 2>/dev/null && pwd) || die "no folder $2"
data=$dir/data

bin=${XBORDER_PG_BIN:-}
if [ -z "$bin" ]; then
  for b in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    [ -x "$b/initdb" ] && { bin=$b; break; }
  done
fi
if [ -z "$bin" ] && command -v pg_ctl >/dev/null; then bin=$(dirname "$(command -v pg_ctl)"); fi
[ -n "$bin" ] && [ -x "$bin/initdb" ] && [ -x "$bin/pg_ctl" ] ||
  die "no initdb/pg_ctl (looked in XBORDER_PG_BIN, /usr/lib/postgresql/*/bin, PATH): bash tests/tools/setup.sh postgres installs them"

# as_pg CMD...: CMD as the user that owns the cluster.
if [ "$(id -u)" -eq 0 ]; then
  user=${XBORDER_PG_USER:-}
  if [ -z "$user" ]; then
    if id -u postgres >/dev/null 2>&1; then user=postgres; else user=nobody; fi
  fi
  id -u "$user" >/dev/null 2>&1 || die "no user $user to run postgres as (set XBORDER_PG_USER)"
  [ "$(id -u "$user")" -ne 0 ] || die "XBORDER_PG_USER must not be root (initdb refuses it)"
  as_pg() { runuser -u "$user" -- "$@"; }
else
  user=$(id -un)
  as_pg() { "$@"; }
fi

# port_in_use and free_port (a port outside the ephemeral range).
# shellcheck source=tests/servers/ports.sh
. "$(dirname "${BASH_SOURCE[0]}")/ports.sh"

url() { echo "postgres://xborder@127.0.0.1:$(cat "$dir/port")/postgres"; }

# pg_ctl start on $dir/port; 0 when it accepts connections (30 s at most).
pg_start() {
  local more=""
  [ -s "$dir/max_connections" ] && more=" -c max_connections=$(cat "$dir/max_connections")"
  as_pg "$bin/pg_ctl" start -D "$data" -l "$dir/postgres.log" -w -t 30 -s \
    -o "-p $(cat "$dir/port") -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off$more" \
    >/dev/null 2>&1
}

case $cmd in
  start)
    if [ ! -f "$data/PG_VERSION" ]; then
      if [ "$(id -u)" -eq 0 ]; then chown "$user" "$dir"; fi
      as_pg test -w "$dir" ||
        die "user $user cannot write $dir (its parent folders must let it in): choose a folder under /tmp"
      as_pg "$bin/initdb" -D "$data" -U xborder --auth=trust -E UTF8 --locale=C --no-sync \
        --no-instructions >"$dir/initdb.log" 2>&1 ||
        { tail -5 "$dir/initdb.log" >&2; die "initdb failed (log: $dir/initdb.log)"; }
    fi
    if [ -n "${XBORDER_PG_MAX_CONNECTIONS:-}" ]; then
      case $XBORDER_PG_MAX_CONNECTIONS in *[!0-9]*) die "XBORDER_PG_MAX_CONNECTIONS: a number" ;; esac
      echo "$XBORDER_PG_MAX_CONNECTIONS" >"$dir/max_connections"
    fi
    started=
    for try in 1 2 3 4 5; do
      free_port >"$dir/port" || die "no free loopback port found"
      if pg_start; then started=1; break; fi
      say "postgres did not start on port $(cat "$dir/port") (try $try); its log ends:"
      tail -3 "$dir/postgres.log" 2>/dev/null | sed 's/^/    /' >&2 || true
    done
    [ -n "$started" ] || die "postgres did not start (log: $dir/postgres.log)"
    if [ -n "${XBORDER_PG_OWNER:-}" ]; then
      owner=$XBORDER_PG_OWNER
      # Detached, its output nowhere: the caller's pipes close when this script exits.
      setsid bash -c '
        while kill -0 "$1" 2>/dev/null; do sleep 0.5; done
        if [ -f "$3/data/postmaster.pid" ]; then $5 "$2/pg_ctl" stop -D "$3/data" -m immediate -s >/dev/null 2>&1 || true; fi
        rm -rf "$3"' watchdog "$owner" "$bin" "$dir" "$user" \
        "$([ "$(id -u)" -eq 0 ] && echo "runuser -u $user --")" </dev/null >/dev/null 2>&1 &
    fi
    url
    ;;
  restart)
    [ -f "$dir/port" ] || die "no server in $dir (start it first)"
    as_pg "$bin/pg_ctl" stop -D "$data" -m immediate -s >/dev/null 2>&1 || true
    pg_start || { tail -3 "$dir/postgres.log" >&2; die "postgres did not start again on port $(cat "$dir/port")"; }
    url
    ;;
  stop)
    if [ -f "$data/postmaster.pid" ]; then
      as_pg "$bin/pg_ctl" stop -D "$data" -m fast -w -t 30 -s >/dev/null 2>&1 ||
        as_pg "$bin/pg_ctl" stop -D "$data" -m immediate -s >/dev/null 2>&1 || true
    fi
    ;;
  url)
    [ -f "$dir/port" ] || die "no server in $dir"
    url
    ;;
  *) die "unknown command $cmd (start, restart, stop, url)" ;;
esac
