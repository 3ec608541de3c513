"""A webhook receiver service in Python (stdlib ``http.server``, a thread per request) over the
xborder bindings, the way a consumer runs one: several instances behind a load balancer
sharing Redis. The same flow and flags as the Rust and Node ones (``services/receiver-rust``,
``services/receiver-node``), so the fault test can mix them::

    python3 services/receiver-python/server.py --listen 127.0.0.1:0 --secret KEY
      [--redis redis://127.0.0.1:6379/ | --postgres postgres://user@host:port/db [--pool 16]
       | --sqlite PATH] [--persist FILE] [--records DIR] [--instance NAME]
      [--lease-ms 30000] [--window-ms 604800000]

1. the RAW body and ``X-Webhook-Signature`` go to ``Receiver.receive`` (window 0: the claims
   dedupe): reject -> 400 ``{error, field}``; ignore -> 200;
2. a live event (``process``) is claimed with a token of this request, in Redis
   (``xborder.redis.RedisClaimStore``, in the wheel) or in memory: in_progress -> 503 with Retry-After;
   duplicate -> 200; the store unreachable -> 503;
3. persist: the event's record in DIR, written under a temporary name and linked into place
   (``os.link`` fails if it exists: the unique key
   a consumer's table has; found already -> processed again, nothing new kept), then one JSON
   line in FILE; a failure -> release -> 500;
4. complete, then 200 (also when complete answers stale or the store fails: persisted).

With ``--postgres URL`` (psycopg 3, ``xborder.postgres``; a pool of ``--pool`` connections) or
``--sqlite PATH`` (``xborder.sqlite``, a file in WAL mode), the claims AND the events are in the
database: steps 3 and 4 are one transaction, the event's row (``xborder_events``,
services/sql/receiver-events.sql, the table the Rust and Node receivers write) and
``complete_in``: committed when complete answers completed (200 ``completed``), rolled back
otherwise (stale: another request took the id over and persists it; 200 ``stale``, core's
reply). A failed transaction is neither (release -> 500, the provider retries). The JSON line
in FILE is written after the commit (the table is what counts); ``--records`` is for the other
stores.

The first line on stdout is the bound address; ``GET /healthz``, ``GET /stats``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import pathlib
import queue
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import xborder

# The events table of the reference receivers (shared with the Rust and Node ones).
EVENTS_SQL = pathlib.Path(__file__).resolve().parent.parent / "sql" / "receiver-events.sql"
INSERT_EVENT = ("INSERT INTO xborder_events (id, event, instance, token, claimed_at_ms, lease_ms, "
                "at_ms) VALUES (%s)")


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def parse_args(argv):
    p = argparse.ArgumentParser(prog="server.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--listen", default="127.0.0.1:0")
    p.add_argument("--secret", action="append", required=True)
    store = p.add_mutually_exclusive_group()
    store.add_argument("--redis")
    store.add_argument("--postgres", help="claims and events in PostgreSQL (psycopg 3)")
    store.add_argument("--sqlite", help="claims and events in an SQLite file")
    p.add_argument("--pool", type=int, default=16, help="PostgreSQL connections (default 16)")
    p.add_argument("--persist")
    p.add_argument("--records")
    p.add_argument("--instance", default=f"rx-{os.getpid()}")
    p.add_argument("--lease-ms", type=int, default=30_000)
    p.add_argument("--window-ms", type=int, default=7 * 86_400_000)
    o = p.parse_args(argv)
    if (o.postgres or o.sqlite) and o.records:
        p.error("--records is for --redis and the memory store: with --postgres or --sqlite the "
                "events table is the record")
    if o.pool < 1:
        p.error("--pool must be at least 1")
    return o


class Pool:
    """A few connections, opened when needed, each used by one request at a time; one that
    broke (the server restarted) is dropped and the next request opens a new one."""

    def __init__(self, connect, size, broken):
        self.connect, self.broken = connect, broken
        self.idle = queue.LifoQueue()
        self.slots = threading.BoundedSemaphore(size)

    @contextlib.contextmanager
    def get(self):
        self.slots.acquire()
        conn = None
        try:
            try:
                conn = self.idle.get_nowait()
            except queue.Empty:
                conn = self.connect()
            yield conn
        finally:
            if conn is not None:
                if self.broken(conn):
                    try:
                        conn.close()
                    except Exception:
                        pass
                else:
                    self.idle.put(conn)
            self.slots.release()


class Sql:
    """Claims and events in PostgreSQL or SQLite: a step on a pooled connection, and the
    event's row with ``complete_in`` in one transaction."""

    def __init__(self, o, window):
        self.o = o
        events = EVENTS_SQL.read_text(encoding="utf-8")
        if o.postgres:
            import psycopg  # psycopg 3

            import xborder.postgres as store

            self.psycopg = psycopg
            self.claims = store.PostgresClaims(lease_ms=o.lease_ms, window_ms=window)
            self.insert = INSERT_EVENT % ", ".join(["%s"] * 7)
            self.pool = Pool(lambda: psycopg.connect(o.postgres, autocommit=True, connect_timeout=2),
                             o.pool, lambda c: c.closed or c.broken)
            with self.pool.get() as conn:
                store.migrate(conn)
                # One simple query, one transaction: instances starting together take turns.
                conn.execute("SELECT pg_advisory_xact_lock(hashtext('xborder_events'));\n" + events)
            self.described = f"claims and events in postgres {o.postgres} (one transaction each, pool {o.pool})"
        else:
            import xborder.sqlite as store

            self.psycopg = None
            self.claims = store.SqliteClaims(lease_ms=o.lease_ms, window_ms=window)
            self.insert = INSERT_EVENT % ", ".join(["?"] * 7)
            # WAL, a busy timeout, IMMEDIATE transactions; a connection per request at a time.
            self.pool = Pool(lambda: store.connect(o.sqlite, check_same_thread=False), 4,
                             lambda c: False)
            with self.pool.get() as conn:
                with conn:
                    conn.execute(events)
            self.described = f"claims and events in sqlite {o.sqlite} (one transaction each)"

    def step(self, what, id, token, at):
        try:
            with self.pool.get() as conn:
                return self.claims.step(conn, what, id, token, at)
        except xborder.XborderError:
            raise
        except Exception as e:  # no connection: the store is unavailable
            raise xborder.StoreError("STORE_UNAVAILABLE", f"connect: {e}") from e

    def persist_and_complete(self, row):
        """The event's row and complete, in one transaction: committed when complete answers
        completed, rolled back otherwise; the outcome. Raises when the transaction failed."""
        id, token, at = row[0], row[3], row[6]
        with self.pool.get() as conn:
            if self.psycopg is not None:
                outcome = None
                with conn.transaction():
                    conn.execute(self.insert, row)
                    outcome = self.claims.complete_in(conn, id, token, at)
                    if outcome != xborder.ClaimOutcome.COMPLETED:
                        raise self.psycopg.Rollback()
                return outcome
            with conn:  # sqlite3: BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on an exception
                conn.execute(self.insert, row)
                outcome = self.claims.complete_in(conn, id, token, at)
                if outcome != xborder.ClaimOutcome.COMPLETED:
                    conn.rollback()
                return outcome


class App:
    def __init__(self, o):
        self.o = o
        if len(o.secret) == 1:
            self.receiver = xborder.Receiver(o.secret[0], window=0)
        else:
            self.receiver = xborder.Receiver.with_secrets(o.secret, window=0)
        window = o.window_ms or None
        self.sql = None
        if o.postgres or o.sqlite:
            self.sql = Sql(o, window)
            self.claims = self.sql.claims
            self.described = self.sql.described
        elif o.redis:
            import redis  # redis-py

            from xborder.redis import RedisClaimStore

            client = redis.Redis.from_url(o.redis, socket_timeout=2, socket_connect_timeout=2)
            self.claims = xborder.Claims.with_store(
                RedisClaimStore(client), lease_ms=o.lease_ms, window_ms=window
            )
            self.described = f"claims in redis {o.redis}"
        else:
            self.claims = xborder.Claims(lease_ms=o.lease_ms, window_ms=window, capacity=1_000_000)
            self.described = "claims in memory"
        if o.records:
            os.makedirs(o.records, exist_ok=True)
        self.boot = now_ms()
        self.lock = threading.Lock()
        self.written = 0
        self.counter = 0
        self.stats = dict(instance=o.instance, requests=0, processed=0, duplicate=0,
                          in_progress=0, ignored=0, rejected=0, persist_failed=0,
                          store_errors=0, stale=0, again=0)

    def count(self, key):
        with self.lock:
            self.stats[key] += 1

    def token(self):
        with self.lock:
            self.counter += 1
            return f"{self.o.instance}-{self.boot}-{self.counter}"

    def append_line(self, data):
        # One write on an O_APPEND file: each line lands whole, whoever else appends.
        fd = os.open(self.o.persist, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)

    def persist(self, env, token, claimed_at):
        def line(again):
            # claimed_at_ms and lease_ms: for `check` to tell processing after a lease expiry
            # from an unexplained one (as the Rust and Node receivers write them).
            d = dict(id=env.id, event=env.event, instance=self.o.instance, token=token,
                     at_ms=now_ms(), claimed_at_ms=claimed_at, lease_ms=self.o.lease_ms)
            if again:
                d["again"] = True
            return json.dumps(d) + "\n"

        again = False
        if self.o.records:
            path = os.path.join(self.o.records, env.id.encode("utf-8").hex() + ".json")
            # Written whole under a temporary name, then linked to the event's name: link(2)
            # fails if the record exists (the unique key) and never shows a partial record, so an
            # instance killed mid-write leaves a stray temporary, not a torn record that a
            # redelivery would take for a persisted event.
            with self.lock:
                self.written += 1
                tmp = "%s.%d-%d.tmp" % (path, os.getpid(), self.written)
            tmp = os.path.join(os.path.dirname(tmp), "." + os.path.basename(tmp))
            try:
                with open(tmp, "x", encoding="utf-8") as f:
                    f.write(line(False))
                try:
                    os.link(tmp, path)
                except FileExistsError:
                    again = True
                    self.count("again")
            finally:
                try:
                    os.unlink(tmp)
                except FileNotFoundError:
                    pass
        if self.o.persist:
            self.append_line(line(again).encode("utf-8"))

    def webhook(self, body: bytes, signature):
        """(status, answer, headers) for one delivery."""
        decision = self.receiver.receive(body, signature)
        if decision.action == xborder.Action.REJECT:
            self.count("rejected")
            reply = decision.reply  # core's status: 400 the request's, 413 too large, 500 ours
            return reply.status, dict(error=decision.error_code, field=decision.error_field), {}
        if decision.action != xborder.Action.PROCESS:
            self.count("ignored")
            return decision.reply.status, dict(result=str(decision.action)), {}
        env = decision.envelope
        token = self.token()

        def step(what, at=None):
            at = now_ms() if at is None else at
            if self.sql is not None:
                return self.sql.step(what, env.id, token, at)
            return self.claims.step(what, env.id, token, at)

        # Every answer's status and Retry-After come from core (Claims.reply, claim_error_reply):
        # the Rust, Node and Python receivers answer alike.
        def send(how, body):
            headers = {} if how.retry_after_s is None else {"Retry-After": str(how.retry_after_s)}
            return how.status, body, headers

        claimed_at = now_ms()
        try:
            outcome = step("claim", claimed_at)
        except xborder.XborderError as e:
            self.count("store_errors")
            return send(xborder.claim_error_reply(e.code), dict(error=e.code))
        if outcome != xborder.ClaimOutcome.CLAIMED:
            self.count("in_progress" if outcome == xborder.ClaimOutcome.IN_PROGRESS else "duplicate")
            return send(self.claims.reply("claim", outcome), dict(result=str(outcome)))
        if self.sql is not None:
            return self.persist_and_complete(env, token, claimed_at, step, send)
        try:
            self.persist(env, token, claimed_at)
        except OSError as e:
            self.count("persist_failed")
            print(f"receiver-python: persist {env.id}: {e}", file=sys.stderr)
            # Give the id back so the provider's retry processes it; answered as a release is.
            try:
                released = step("release")
            except xborder.XborderError:
                released = xborder.ClaimOutcome.RELEASED
            return send(self.claims.reply("release", released), dict(error="PERSIST_FAILED"))
        # Persisted, so answered as completed whatever complete gives: the record makes a retry
        # harmless.
        completed = xborder.ClaimOutcome.COMPLETED
        try:
            if step("complete") == xborder.ClaimOutcome.STALE:
                self.count("stale")
                completed = xborder.ClaimOutcome.STALE
        except xborder.XborderError:
            self.count("store_errors")
        self.count("processed")
        return send(self.claims.reply("complete", completed), dict(result="processed"))


    def persist_and_complete(self, env, token, claimed_at, step, send):
        """PostgreSQL or SQLite: the event's row and complete in one transaction."""
        at = now_ms()
        row = (env.id, env.event, self.o.instance, token, claimed_at, self.o.lease_ms, at)
        try:
            outcome = self.sql.persist_and_complete(row)
        except Exception as e:
            # Rolled back (or unknown, when the connection broke during the commit): give the
            # claim back so the retry processes it, or finds it done.
            self.count("persist_failed")
            print(f"receiver-python: persist and complete {env.id}: {e}", file=sys.stderr)
            try:
                released = step("release")
            except xborder.XborderError:
                released = xborder.ClaimOutcome.RELEASED
            return send(self.claims.reply("release", released), dict(error="PERSIST_FAILED"))
        if outcome == xborder.ClaimOutcome.COMPLETED:
            self.count("processed")
            if self.o.persist:
                # After the commit: the table is what counts (a kill in between loses the line).
                line = dict(id=env.id, event=env.event, instance=self.o.instance, token=token,
                            at_ms=at, claimed_at_ms=claimed_at, lease_ms=self.o.lease_ms)
                self.append_line((json.dumps(line) + "\n").encode("utf-8"))
        else:
            # Rolled back: another request took the id over (the lease ended) and persists it.
            self.count("stale")
        said = "processed" if outcome == xborder.ClaimOutcome.COMPLETED else str(outcome)
        return send(self.claims.reply("complete", outcome), dict(result=said))


def handler(app: App):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def answer(self, status, body, headers=None):
            data = json.dumps(body).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            app.count("requests")
            if self.path == "/healthz":
                return self.answer(200, dict(result="ok"))
            if self.path == "/stats":
                with app.lock:
                    return self.answer(200, dict(app.stats))
            return self.answer(404, dict(error="NOT_FOUND"))

        def do_POST(self):
            app.count("requests")
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)  # the raw bytes, as signed
            status, answer, headers = app.webhook(body, self.headers.get("X-Webhook-Signature"))
            self.answer(status, answer, headers)

        def log_message(self, *args):  # quiet: the stats say what happened
            pass

    return Handler


def main(argv=None):
    o = parse_args(argv if argv is not None else sys.argv[1:])
    host, _, port = o.listen.rpartition(":")
    app = App(o)
    server = ThreadingHTTPServer((host, int(port)), handler(app))
    server.daemon_threads = True
    h, p = server.server_address[:2]
    print(f"{h}:{p}", flush=True)
    print(f"receiver-python {o.instance}: {app.described}, lease {o.lease_ms} ms", file=sys.stderr)
    server.serve_forever()


if __name__ == "__main__":
    main()
