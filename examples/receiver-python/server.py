"""A webhook receiver service in Python (stdlib ``http.server``, a thread per connection, at most
``--max-connections``) over the xborder bindings, the way a consumer runs one: several instances
behind a load balancer sharing Redis. The same flow and flags as the Rust and Node ones
(``examples/receiver-rust``, ``examples/receiver-node``), so the fault test can mix them::

    python3 examples/receiver-python/server.py --listen 127.0.0.1:0 --secret KEY
      [--redis redis://127.0.0.1:6379/ | --postgres postgres://user@host:port/db [--pool 4]
       | --sqlite PATH] [--persist FILE] [--records DIR] [--instance NAME]
      [--lease-ms 30000] [--window-ms 604800000] [--store-timeout-ms 2000]
      [--max-body-bytes 1048576] [--body-timeout-ms 10000] [--header-timeout-ms 10000]
      [--idle-timeout-ms 75000] [--max-connections 512] [--pool-idle-ms 10000]
      [--clock-sync-ms 5000] [--clock-skew-ms 0] [--grace-ms 10000] [--drain-ms 1000]
      [--persist-delay-ms 0]
      [--catch-up http://HOST:PORT [--catch-up-every-ms 60000] [--checkpoint PATH]]

Each delivery is ``xborder.handle_delivery`` (core's one flow: the order and every status and
``Retry-After`` are core's; this file persists and counts):

1. the RAW body and ``X-Webhook-Signature`` go to the receiver (window 0: the claims
   dedupe): reject -> 400 ``{error, field}``; ignore -> 200;
2. a live event (``process``) is claimed with a token of this request, in Redis
   (``xborder.redis.RedisClaimStore``, in the wheel) or in memory: in_progress -> 503 with Retry-After;
   duplicate -> 200; the store unreachable or slower than ``--store-timeout-ms`` -> 503;
3. persist: the event's record in DIR, written under a temporary name and linked into place
   (``os.link`` fails if it exists: the unique key
   a consumer's table has; found already -> processed again, nothing new kept), then one JSON
   line in FILE; a failure -> release -> 500;
4. complete, then 200 (also when complete answers stale or the store fails: persisted). A
   complete cut by a store failure is retried in the background with the same token until the
   store answers (``Completer``), so that the id is recorded done once the store is back;
   ``/stats`` counts ``completions_retried`` and ``completions_recovered``.

With ``--postgres URL`` (psycopg 3, ``xborder.postgres``; a pool of ``--pool`` connections) or
``--sqlite PATH`` (``xborder.sqlite``, a file in WAL mode), the claims AND the events are in the
database, and the handling runs in a transaction (``handle_delivery(..., transaction=)``, core's
order): the claim on a pooled connection, committed; then one transaction on one pooled
connection: the event's row (``xborder_events``, stores/sql/receiver-events.sql, the table the
Rust and Node receivers write), the complete step's statements, the commit; then 200. A
complete that is not completed there commits nothing (rolled back): stale (another request
took the id over after the lease, and writes it) is answered 503 with the lease as
Retry-After, a store error 503 ``STORE_UNAVAILABLE``. A failed write or commit rolls back,
releases the claim, 500 ``PERSIST_FAILED``: the provider retries.
The JSON line in FILE is written after the commit (the table is what counts); ``--records`` is
for the other stores.

What a hostile client or a degraded store costs (examples/README.md, the contract the three
receivers share):

- Body: a declared ``Content-Length`` over ``--max-body-bytes`` is answered 413 at once, unread;
  a chunked body is copied into one buffer as it arrives and refused (413) as soon as it passes
  the limit. The whole body must arrive within ``--body-timeout-ms`` of the end of the head, or
  408. Either way the connection is closed (what the client still sends is discarded, at most the
  limit, for a second or two, so that it reads the answer before the close).
- Head: a new connection has ``--header-timeout-ms`` from the accept to send a whole request
  head; a kept-alive one may stay silent ``--idle-timeout-ms`` after an answer, then has the
  header timeout from the first byte of its next request. Then it is closed.
- Connections: at most ``--max-connections`` are served (a thread each); one past the cap is
  accepted, answered 503 ``TOO_MANY_CONNECTIONS`` with ``Retry-After: 1`` and
  ``Connection: close``, and closed.
- Store: every call is bounded by ``--store-timeout-ms``: redis-py's socket and connect
  timeouts, no retries; PostgreSQL's ``statement_timeout``, connect timeout (libpq's minimum is
  2 s), pool-acquire timeout, and a watchdog that shuts the socket of a connection whose call
  passed the time (a stopped server answers nothing, so only the client can end the wait); the
  connection is then discarded. SQLite's ``busy_timeout``. A timeout answers core's reply for
  ``STORE_UNAVAILABLE`` (503, Retry-After).
- Pool: ``--pool`` PostgreSQL connections at most (default 4), each closed after
  ``--pool-idle-ms`` unused. Sizing: instances x pool <= the server's ``max_connections`` -
  ``superuser_reserved_connections`` - headroom for operators.
- Clock: every claim, complete and release time is this host's clock plus its offset from the
  store's (Redis ``TIME``, PostgreSQL ``clock_timestamp()``), sampled at start and every
  ``--clock-sync-ms``, so instances whose clocks disagree still agree on leases. An offset over a
  tenth of the lease is logged. ``--clock-skew-ms N`` makes this process's clock read N ms ahead
  (tests). ``/stats`` and each persisted line carry ``clock_offset_ms``.
- SIGTERM or SIGINT: the listener closes (connections already in its backlog are accepted
  first); for ``--drain-ms`` the open connections are still served, every answer with
  ``Connection: close``, and an idle kept-alive connection is closed only once it has been idle
  that long (a request its client wrote meanwhile is read and answered, not reset); every
  request in flight is answered, then exit 0 with ``shutdown: N in flight answered in M ms`` on
  stderr; past ``--grace-ms``, exit 1 saying how many were cut.

Every status comes from core (``xborder.claim_error_reply``: core's ``reply_to_code``), except
400 for a request whose framing HTTP itself forbids (Content-Length with Transfer-Encoding).

The first line on stdout is the bound address; ``GET /healthz``, ``GET /stats``.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import heapq
import http
import io
import itertools
import json
import os
import pathlib
import re
import selectors
import signal
import socket
import struct
import sys
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import xborder

# The events table of the reference receivers (shared with the Rust and Node ones).
EVENTS_SQL = pathlib.Path(__file__).resolve().parents[2] / "stores" / "sql" / "receiver-events.sql"
INSERT_EVENT = ("INSERT INTO xborder_events (id, event, instance, token, claimed_at_ms, lease_ms, "
                "at_ms) VALUES (%s)")
CLOCK_SQL = "SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint"

# How often a connection waiting for a request looks at whether the server is draining.
# The most a page of the catch-up may hold: a page of 100 records is far below it; a peer that
# sends more is refused, not buffered.
MAX_PAGE_BYTES = 16 << 20
# The most one page of the catch-up may take (the connection, the answer and the body).
PAGE_TIMEOUT_S = 10.0
SLICE_S = 0.25
# How long a refused connection is kept to read (and discard) what its client still sends, so
# that the client reads the answer instead of a reset.
LINGER_S = 2.0
# Answers are written within this time, or the connection is dropped.
WRITE_TIMEOUT_S = 10.0


def real_ms() -> int:
    return time.time_ns() // 1_000_000


def log(line):
    print(line, file=sys.stderr, flush=True)


def core_reply(code):
    """(status, body, headers) of core's answer for ``code`` (``reply_to_code``)."""
    r = xborder.claim_error_reply(code)
    return r.status, dict(error=code), r.headers


def parse_args(argv):
    p = argparse.ArgumentParser(prog="server.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--listen", default="127.0.0.1:0")
    p.add_argument("--secret", action="append", required=True)
    store = p.add_mutually_exclusive_group()
    store.add_argument("--redis")
    store.add_argument("--postgres", help="claims and events in PostgreSQL (psycopg 3)")
    store.add_argument("--sqlite", help="claims and events in an SQLite file")
    p.add_argument("--pool", type=int, default=4,
                   help="PostgreSQL connections per instance at most (default 4); instances x "
                        "pool <= max_connections - superuser_reserved_connections - headroom")
    p.add_argument("--pool-idle-ms", type=int, default=10_000,
                   help="a pooled connection unused this long is closed (default 10000)")
    p.add_argument("--persist")
    p.add_argument("--records")
    p.add_argument("--instance", default=f"rx-{os.getpid()}")
    p.add_argument("--lease-ms", type=int, default=30_000)
    p.add_argument("--window-ms", type=int, default=7 * 86_400_000)
    p.add_argument("--store-timeout-ms", type=int, default=2000,
                   help="time allowed for every store call (default 2000)")
    p.add_argument("--max-body-bytes", type=int, default=1 << 20)
    p.add_argument("--body-timeout-ms", type=int, default=10_000)
    p.add_argument("--header-timeout-ms", type=int, default=10_000)
    p.add_argument("--idle-timeout-ms", type=int, default=75_000)
    p.add_argument("--max-connections", type=int, default=512)
    p.add_argument("--clock-sync-ms", type=int, default=5000)
    p.add_argument("--clock-skew-ms", type=int, default=0,
                   help="this process's clock reads N ms ahead of the real one (tests)")
    p.add_argument("--grace-ms", type=int, default=10_000)
    p.add_argument("--drain-ms", type=int, default=1000,
                   help="after SIGTERM, idle kept-alive connections are served this long before "
                        "they are closed (default 1000, at most --grace-ms)")
    p.add_argument("--persist-delay-ms", type=int, default=0,
                   help="wait N ms before persisting (to show requests in flight)")
    p.add_argument("--catch-up", help="the provider's API (http://HOST:PORT[/prefix]): the "
                   "events it dead-lettered recovered from GET /v1/external-events, at start "
                   "and every --catch-up-every-ms")
    p.add_argument("--catch-up-every-ms", type=int, default=60_000)
    p.add_argument("--checkpoint", help="the file that keeps the catch-up's checkpoint")
    o = p.parse_args(argv)
    if o.catch_up is not None and not re.fullmatch(r"http://[^/]+:\d+(/.*)?", o.catch_up):
        p.error(f"--catch-up {o.catch_up}: http://HOST:PORT[/prefix] only")
    if o.catch_up is None and o.checkpoint is not None:
        p.error("--checkpoint goes with --catch-up")
    if o.catch_up_every_ms < 1:
        p.error("--catch-up-every-ms must be at least 1")
    if (o.postgres or o.sqlite) and o.records:
        p.error("--records is for --redis and the memory store: with --postgres or --sqlite the "
                "events table is the record")
    for name in ("pool", "store_timeout_ms", "max_body_bytes", "body_timeout_ms",
                 "header_timeout_ms", "idle_timeout_ms", "max_connections", "clock_sync_ms",
                 "pool_idle_ms"):
        if getattr(o, name) < 1:
            p.error("--%s must be at least 1, got %d" % (name.replace("_", "-"), getattr(o, name)))
    if o.grace_ms < 0:
        p.error("--grace-ms must be 0 or more")
    if o.drain_ms < 0:
        p.error("--drain-ms must be 0 or more")
    o.drain_ms = min(o.drain_ms, o.grace_ms)
    return o


class Clock:
    """This host's clock (``--clock-skew-ms`` ahead of the real one) corrected by its offset from
    the store's: ``now()`` is what every claim step is given. ``sample`` (None: SQLite and
    memory, one host) answers the store's time in ms."""

    def __init__(self, skew_ms, lease_ms, sample=None):
        self.skew_ms, self.lease_ms, self.sample = skew_ms, lease_ms, sample
        self.offset_ms = 0
        self.warned = None

    def local(self):
        return real_ms() + self.skew_ms

    def now(self):
        return self.local() + self.offset_ms

    def sync(self):
        """Samples the store's clock: offset = store - (t0 + t1) / 2. A failure keeps the last
        offset (logged)."""
        if self.sample is None:
            return
        t0 = self.local()
        try:
            store = self.sample()
        except Exception as e:
            log(f"clock: sampling the store's clock failed ({type(e).__name__}: {e}); keeping "
                f"the offset {self.offset_ms} ms")
            return
        t1 = self.local()
        self.offset_ms = offset = int(store - (t0 + t1) // 2)
        if abs(offset) > self.lease_ms / 10:
            # Once, and again when it moved by another tenth of the lease.
            if self.warned is None or abs(offset - self.warned) > self.lease_ms / 10:
                self.warned = offset
                log(f"clock: this host is {offset} ms off the store's clock (corrected)")
        else:
            self.warned = None


class Watchdog:
    """Deadlines on store calls: ``arm(seconds, fire)`` calls ``fire()`` when the call is still
    running after that long (a stopped server never answers: only the client can end the wait),
    unless ``disarm`` came first. ``fire`` runs under the lock, so once ``disarm`` returned it
    never runs; ``disarm`` answers whether it fired."""

    def __init__(self):
        self.cv = threading.Condition()
        self.heap = []
        self.armed = {}
        self.fired = set()
        self.seq = itertools.count()
        threading.Thread(target=self.run, name="watchdog", daemon=True).start()

    def arm(self, seconds, fire):
        with self.cv:
            token = next(self.seq)
            deadline = time.monotonic() + seconds
            self.armed[token] = fire
            heapq.heappush(self.heap, (deadline, token))
            self.cv.notify()
            return token

    def disarm(self, token):
        with self.cv:
            self.armed.pop(token, None)
            if token in self.fired:
                self.fired.discard(token)
                return True
            return False

    def run(self):
        with self.cv:
            while True:
                while self.heap and self.heap[0][1] not in self.armed:
                    heapq.heappop(self.heap)
                if not self.heap:
                    self.cv.wait()
                    continue
                deadline, token = self.heap[0]
                wait = deadline - time.monotonic()
                if wait > 0:
                    self.cv.wait(wait)
                    continue
                heapq.heappop(self.heap)
                fire = self.armed.pop(token)
                self.fired.add(token)
                try:
                    fire()
                except Exception as e:
                    log(f"receiver-python: watchdog: {type(e).__name__}: {e}")


class StoreTimeout(Exception):
    """A store call that did not finish within --store-timeout-ms."""


def quietly(fn):
    try:
        fn()
    except Exception:
        pass


class Pool:
    """At most ``size`` connections, opened when needed, each used by one request at a time;
    waiting for one is bounded by ``timeout_s`` (``StoreTimeout``). One that broke (the server
    restarted) or whose call passed the time (``cut`` by the watchdog) is closed, never reused;
    one unused for ``idle_s`` is closed by ``reap``."""

    def __init__(self, connect, size, broken, timeout_s, idle_s, watchdog=None, cut=None):
        self.connect, self.broken, self.size = connect, broken, size
        self.timeout_s, self.idle_s = timeout_s, idle_s
        self.watchdog, self.cut = watchdog, cut
        self.lock = threading.Lock()
        self.idle = []  # (conn, monotonic time it was given back), the most recent last
        self.open = 0
        self.slots = threading.BoundedSemaphore(size)

    @contextlib.contextmanager
    def get(self):
        if not self.slots.acquire(timeout=self.timeout_s):
            raise StoreTimeout(f"no pooled connection free within {self.timeout_s * 1000:.0f} ms "
                               f"(pool of {self.size})")
        conn, fired = None, False
        try:
            with self.lock:
                if self.idle:
                    conn = self.idle.pop()[0]
            if conn is None:
                conn = self.connect()
                with self.lock:
                    self.open += 1
            token = None
            if self.watchdog is not None:
                token = self.watchdog.arm(self.timeout_s, lambda c=conn: self.cut(c))
            try:
                yield conn
            except BaseException as e:
                if token is not None:
                    fired = self.watchdog.disarm(token)
                    token = None
                if fired:  # it failed because its socket was shut: a timeout
                    raise StoreTimeout(f"store call longer than {self.timeout_s * 1000:.0f} ms: "
                                       f"{type(e).__name__}: {e}") from e
                raise
            finally:
                if token is not None:
                    # Done, maybe just as the time passed: its answer stands, the connection
                    # (its socket perhaps shut) is not reused.
                    fired = self.watchdog.disarm(token)
        finally:
            if conn is not None:
                if fired or self.broken(conn):
                    quietly(conn.close)
                    with self.lock:
                        self.open -= 1
                else:
                    with self.lock:
                        self.idle.append((conn, time.monotonic()))
            self.slots.release()

    def reap(self):
        """Closes the connections unused for ``idle_s``."""
        limit = time.monotonic() - self.idle_s
        with self.lock:
            old = [c for c, t in self.idle if t <= limit]
            self.idle = [(c, t) for c, t in self.idle if t > limit]
            self.open -= len(old)
        for c in old:
            quietly(c.close)


def shut_socket(conn):
    """Shuts a psycopg connection's socket (a dup of its descriptor: shutdown acts on the
    socket), so that a call waiting for a stopped server fails at once."""
    fd = conn.pgconn.socket
    s = socket.socket(fileno=os.dup(fd))
    try:
        s.shutdown(socket.SHUT_RDWR)
    finally:
        s.close()


class Sql:
    """Claims and events in PostgreSQL or SQLite, on pooled connections."""

    def __init__(self, o, window):
        self.o = o
        events = EVENTS_SQL.read_text(encoding="utf-8")
        timeout_s = o.store_timeout_ms / 1000
        if o.postgres:
            import psycopg  # psycopg 3

            import xborder.postgres as store

            self.psycopg = psycopg
            self.claims = store.PostgresClaims(lease_ms=o.lease_ms, window_ms=window)
            self.insert = INSERT_EVENT % ", ".join(["%s"] * 7)
            # libpq's connect timeout is whole seconds, 2 at least.
            connect_s = max(2, -(-o.store_timeout_ms // 1000))

            def connect():
                return psycopg.connect(o.postgres, autocommit=True, connect_timeout=connect_s,
                                       options=f"-c statement_timeout={o.store_timeout_ms}")

            self.pool = Pool(connect, o.pool, lambda c: c.closed or c.broken, timeout_s,
                             o.pool_idle_ms / 1000, Watchdog(), shut_socket)
            # The migration may wait for another instance's (the advisory lock): not bounded
            # by the store timeout.
            conn = psycopg.connect(o.postgres, autocommit=True, connect_timeout=connect_s)
            try:
                store.migrate(conn)
                # One simple query, one transaction: instances starting together take turns.
                conn.execute("SELECT pg_advisory_xact_lock(hashtext('xborder_events'));\n" + events)
            finally:
                conn.close()
            self.described = (f"claims and events in postgres {o.postgres} (one transaction each, "
                              f"pool {o.pool}, idle {o.pool_idle_ms} ms)")
        else:
            import xborder.sqlite as store

            self.psycopg = None
            self.claims = store.SqliteClaims(lease_ms=o.lease_ms, window_ms=window)
            self.insert = INSERT_EVENT % ", ".join(["?"] * 7)

            # WAL, IMMEDIATE transactions; a write waits --store-timeout-ms for another's.
            def connect():
                conn = store.connect(o.sqlite, check_same_thread=False)
                conn.execute(f"PRAGMA busy_timeout = {o.store_timeout_ms}")
                return conn

            self.pool = Pool(connect, min(o.pool, 4), lambda c: False, timeout_s,
                             o.pool_idle_ms / 1000)
            with self.pool.get() as conn:
                with conn:
                    conn.execute(events)
            self.described = f"claims and events in sqlite {o.sqlite} (one transaction each)"

    def now_ms(self):
        """PostgreSQL's clock (ms since the epoch)."""
        with self.pool.get() as conn:
            return int(conn.execute(CLOCK_SQL).fetchone()[0])

    def step(self, what, id, token, at):
        try:
            with self.pool.get() as conn:
                return self.claims.step(conn, what, id, token, at)
        except xborder.XborderError:
            raise
        except StoreTimeout as e:
            raise xborder.StoreError("STORE_UNAVAILABLE", f"timeout: {e}") from e
        except Exception as e:  # no connection: the store is unavailable
            raise xborder.StoreError("STORE_UNAVAILABLE", f"connect: {e}") from e

    def reap(self):
        self.pool.reap()


class SqlRequest:
    """The SQL claims as one request's ``handle_delivery`` store and ``transaction``: outside
    the transaction, each load and compare-and-set on a pooled connection
    (``claims.store(conn)``); the transaction (``begin``, the persist's row, the complete
    step's calls, ``commit`` or ``rollback``) on one pooled connection, taken at its first
    statement (after ``--persist-delay-ms``) and held until it ends. Each is bounded by the
    pool's timeout and watchdog (a timeout is a store failure: ``STORE_UNAVAILABLE``)."""

    def __init__(self, sql):
        self.sql = sql
        self.lease_ms, self.window_ms = sql.claims.lease_ms, sql.claims.window_ms
        self.wanted = False  # begun, its connection not taken yet
        self.held = None  # (pool context, connection, store in the transaction)

    def call(self, method, *args):
        if self.wanted or self.held is not None:
            return getattr(self.open()[2], method)(*args)
        with self.sql.pool.get() as conn:
            return getattr(self.sql.claims.store(conn), method)(*args)

    def load(self, id, time):
        return self.call("load", id, time)

    def compare_and_set(self, id, expected, new, time):
        return self.call("compare_and_set", id, expected, new, time)

    def begin(self):
        self.wanted = True

    def open(self):
        """The transaction's (pool context, connection, store), begun at its first use."""
        if self.held is None:
            self.wanted = False
            cm = self.sql.pool.get()
            conn = cm.__enter__()
            store = self.sql.claims.store(conn)
            self.held = (cm, conn, store)
            try:
                store.begin()
            except BaseException as e:
                raise self.end(e)
        return self.held

    def connection(self):
        """The transaction's connection (the persist's row)."""
        return self.open()[1]

    def end(self, e=None):
        """Gives the transaction's connection back to the pool; the exception ``e`` that ended
        it, as the pool tells it (a ``StoreTimeout`` when the watchdog cut it)."""
        held, self.held, self.wanted = self.held, None, False
        if held is not None:
            try:
                held[0].__exit__(None if e is None else type(e), e,
                                 None if e is None else e.__traceback__)
            except BaseException as x:  # noqa: BLE001 - the pool's StoreTimeout
                return x
        return e

    def commit(self):
        if self.held is None and not self.wanted:
            return
        store = self.open()[2]
        try:
            store.commit()
        except BaseException as e:
            quietly(store.rollback)  # (SQLite keeps a transaction whose commit failed)
            raise self.end(e)
        self.end()

    def rollback(self):
        if self.held is None:
            self.wanted = False
            return
        store = self.held[2]
        try:
            store.rollback()
        except BaseException as e:
            raise self.end(e)
        self.end()


class App:
    def __init__(self, o):
        self.o = o
        if len(o.secret) == 1:
            self.receiver = xborder.Receiver(o.secret[0], window=0)
        else:
            self.receiver = xborder.Receiver.with_secrets(o.secret, window=0)
        window = o.window_ms or None
        self.sql = None
        self.clock = Clock(o.clock_skew_ms, o.lease_ms)
        if o.postgres or o.sqlite:
            self.sql = Sql(o, window)
            if o.postgres:
                self.clock.sample = self.sql.now_ms
            self.claims = self.sql.claims
            self.described = self.sql.described
        elif o.redis:
            import redis  # redis-py

            from xborder.redis import RedisClaimStore

            from redis.backoff import NoBackoff
            from redis.retry import Retry

            # Every command and connect bounded by the store timeout, never retried (redis-py 6+
            # retries 3 times by default): a hung Redis is a 503 within the time. A connection
            # whose command timed out is dropped by redis-py.
            timeout_s = o.store_timeout_ms / 1000
            client = redis.Redis.from_url(o.redis, socket_timeout=timeout_s,
                                          socket_connect_timeout=timeout_s,
                                          retry=Retry(NoBackoff(), 0))
            self.claims = xborder.Claims.with_store(
                RedisClaimStore(client), lease_ms=o.lease_ms, window_ms=window
            )

            def sample():
                s, us = client.time()
                return int(s) * 1000 + int(us) // 1000

            self.clock.sample = sample
            self.described = f"claims in redis {o.redis}"
        else:
            self.claims = xborder.Claims(lease_ms=o.lease_ms, window_ms=window, capacity=1_000_000)
            self.described = "claims in memory"
        if o.records:
            os.makedirs(o.records, exist_ok=True)
        self.boot = self.clock.local()
        self.lock = threading.Lock()
        self.written = 0
        self.counter = 0
        self.stats = dict(instance=o.instance, requests=0, processed=0, duplicate=0,
                          in_progress=0, ignored=0, rejected=0, persist_failed=0,
                          store_errors=0, stale=0, again=0, body_too_large=0, body_timeout=0,
                          closed_header_timeout=0, closed_idle_timeout=0, refused_connections=0,
                          bad_requests=0, completions_retried=0, completions_recovered=0,
                          completions_retry_stale=0, completions_retry_given_up=0, completions_retry_dropped=0,
                          recovered=0, catch_ups=0, catch_ups_failed=0, catch_up_unhandled=0)
        # Connections being served, requests in flight (from the first byte of the head to the
        # answer), and the drain after SIGTERM.
        self.connections = 0
        self.in_flight = 0
        self.draining = False
        self.drain_at = None
        self.ended_in_drain = 0
        self.completer = Completer(self)

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
                     at_ms=self.clock.now(), claimed_at_ms=claimed_at, lease_ms=self.o.lease_ms,
                     clock_offset_ms=self.clock.offset_ms)
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
        """(status, answer, headers) for one delivery: ``xborder.handle_delivery``, core's one
        flow (claim, persist, complete or release; every status and Retry-After core's). This
        receiver persists (``persist``) and counts what the answer says."""
        token = self.token()
        claimed_at = []
        req = None if self.sql is None else SqlRequest(self.sql)
        written = []

        def clock():
            now = self.clock.now()
            if not claimed_at:
                claimed_at.append(now)  # the first step is the claim
            return now

        def persist(env):
            if self.o.persist_delay_ms:
                time.sleep(self.o.persist_delay_ms / 1000)
            if req is not None:
                written.append(self.persist_sql(req, env, token, claimed_at[0]))
            else:
                self.persist(env, token, claimed_at[0])

        if req is None:
            reply = xborder.handle_delivery(self.receiver, self.claims, body, signature, persist,
                                            token=token, clock=clock)
        else:
            # The event's row and the claim's completion commit together (core's order:
            # begin, the row, the complete step on the transaction, commit).
            reply = xborder.handle_delivery(self.receiver, req, body, signature, persist,
                                            token=token, clock=clock, transaction=req)
            if reply.persisted and written and self.o.persist:
                # After the commit: the table is what counts (a kill in between loses the line).
                self.append_line(written[0])
        decision, outcome = reply.decision, reply.outcome
        if decision.action == xborder.Action.REJECT:
            self.count("rejected")  # core's status: 400 the request's, 413 too large, 500 ours
            return reply.status, dict(error=decision.error_code, field=decision.error_field), {}
        if decision.action != xborder.Action.PROCESS:
            self.count("ignored")
            return reply.status, dict(result=str(decision.action)), {}
        if reply.persist_error is not None:
            self.count("persist_failed")
            log(f"receiver-python: persist {decision.envelope.id}: {reply.persist_error}")
            return reply.status, dict(error=reply.error_code), reply.headers
        if not reply.persisted:
            if outcome is None or reply.error_code is not None:
                # A claim step failed (the store, or its timeout; SQL: also the complete
                # inside the transaction, rolled back).
                self.count("store_errors")
                return reply.status, dict(error=reply.error_code), reply.headers
            if outcome == xborder.ClaimOutcome.STALE:
                # (SQL) another request took the id over inside this one's transaction:
                # rolled back, 503 with the lease as Retry-After.
                self.count("stale")
                return reply.status, dict(result=str(outcome)), reply.headers
            self.count("in_progress" if outcome == xborder.ClaimOutcome.IN_PROGRESS
                       else "duplicate")
            return reply.status, dict(result=str(outcome)), reply.headers
        # Persisted: 200 whatever complete gave (core's rule).
        if reply.error_code is not None:
            # The store failed (or hung past the timeout) on complete: the claim would stay
            # held and a redelivery after its lease would process the event again. Completed
            # in the background, with the same token, as soon as the store answers.
            self.count("store_errors")
            self.completer.add(decision.envelope.id, token, reply.error_code)
        elif outcome == xborder.ClaimOutcome.STALE:
            self.count("stale")
        self.count("processed")
        return reply.status, dict(result="processed"), reply.headers

    def persist_sql(self, req, env, token, claimed_at):
        """PostgreSQL or SQLite: the event's row on the request's transaction (committed with
        the claim's completion; a kill between them can neither keep the row without the claim
        done nor the reverse); the JSON line to write once committed."""
        at = self.clock.now()
        row = (env.id, env.event, self.o.instance, token, claimed_at, self.o.lease_ms, at)
        req.connection().execute(self.sql.insert, row)
        line = dict(id=env.id, event=env.event, instance=self.o.instance, token=token,
                    at_ms=at, claimed_at_ms=claimed_at, lease_ms=self.o.lease_ms,
                    clock_offset_ms=self.clock.offset_ms)
        return (json.dumps(line) + "\n").encode("utf-8")

    def step(self, what, id, token, at):
        """One claim step in this receiver's store (the Completer's retries)."""
        if self.sql is not None:
            return self.sql.step(what, id, token, at)
        return self.claims.step(what, id, token, at)

    def begin_request(self):
        with self.lock:
            self.in_flight += 1

    def end_request(self):
        with self.lock:
            self.in_flight -= 1
            if self.draining:
                self.ended_in_drain += 1

    def drain(self):
        with self.lock:
            self.drain_at = time.monotonic()
            self.draining = True

    def snapshot(self):
        with self.lock:
            d = dict(self.stats)
            d.update(connections_open=self.connections, in_flight=self.in_flight)
        d["completions_retry_pending"] = self.completer.pending()
        d["clock_offset_ms"] = self.clock.offset_ms
        return d

    def catch_up_once(self):
        """One catch-up (--catch-up): ``xborder.catch_up`` walks the provider's GET
        /v1/external-events down to the checkpoint (core decides each page, wait and retry),
        and hands each event found, oldest first, to the same handling as a delivery (these
        claims, this persist; SQL: the row and the completion in one transaction); the
        checkpoint it returns is written whole (a file beside it, renamed over it)."""
        since = None
        if self.o.checkpoint and os.path.exists(self.o.checkpoint):
            with open(self.o.checkpoint, encoding="utf-8") as f:
                since = f.read().strip() or None
        base = self.o.catch_up.rstrip("/")
        req = None if self.sql is None else SqlRequest(self.sql)
        written = []

        def read(r, path, deadline):
            # Up to MAX_PAGE_BYTES, by chunks, within the page's deadline (each read is also
            # bounded by the socket's timeout): a peer that trickles or hangs is cut.
            data = bytearray()
            src = r if hasattr(r, "read1") else r.fp  # an HTTPError reads through its response
            while True:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"GET {path}: no whole page in {PAGE_TIMEOUT_S} s")
                chunk = src.read1(65536)
                if not chunk:
                    return bytes(data)
                data += chunk
                if len(data) > MAX_PAGE_BYTES:
                    raise RuntimeError(f"GET {path}: a page is read up to {MAX_PAGE_BYTES} bytes")

        def get(path):
            deadline = time.monotonic() + PAGE_TIMEOUT_S
            try:
                with urllib.request.urlopen(base + path, timeout=PAGE_TIMEOUT_S) as r:
                    status, headers, data = r.status, list(r.headers.items()), read(r, path, deadline)
            except urllib.error.HTTPError as e:
                status, headers, data = e.code, list(e.headers.items()), read(e, path, deadline)
            return status, headers, data.decode("utf-8", "replace")

        def persist(env):
            token = f"{self.token()}-catch-up"
            if req is not None:
                written.append(self.persist_sql(req, env, token, self.clock.now()))
            else:
                self.persist(env, token, self.clock.now())

        kw = dict(since=since, token=f"{self.token()}-catch-up", clock=self.clock.now)
        if req is None:
            result = xborder.catch_up(get, self.receiver, self.claims, persist, **kw)
        else:
            result = xborder.catch_up(get, self.receiver, req, persist, transaction=req, **kw)
        if self.o.persist:
            for line in written:
                self.append_line(line)
        if self.o.checkpoint and result.checkpoint is not None:
            tmp = self.o.checkpoint + ".tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(result.checkpoint)
            os.replace(tmp, self.o.checkpoint)
        with self.lock:
            self.stats["recovered"] += result.processed
            self.stats["catch_up_unhandled"] += result.failed
        for d in result.drifts:
            log(f"receiver-python {self.o.instance}: catch-up: {d.code}")
        for e in result.persist_errors:
            log(f"receiver-python {self.o.instance}: catch-up: persist: {e}")
        log(f"receiver-python {self.o.instance}: catch-up: {result.found} events found since "
            f"{since or 'the start'} ({result.processed} processed, {result.skipped} already "
            f"handled or ignored, {result.rejected} rejected, {result.failed} not handled); "
            f"checkpoint {result.checkpoint or 'none'}")

    def catch_up_loop(self):
        """The catch-up at start, then every --catch-up-every-ms, until the drain."""
        while not self.draining:
            try:
                self.catch_up_once()
                self.count("catch_ups")
            except Exception as e:  # the API, the store, the checkpoint file: logged, counted
                self.count("catch_ups_failed")
                log(f"receiver-python {self.o.instance}: catch-up failed: "
                    f"{getattr(e, 'code', '')} {e}")
            time.sleep(self.o.catch_up_every_ms / 1000)

    def upkeep(self):
        """The clock's offset every --clock-sync-ms; idle pooled connections closed."""
        next_sync = time.monotonic() + self.o.clock_sync_ms / 1000
        while True:
            time.sleep(min(1.0, self.o.clock_sync_ms / 1000, self.o.pool_idle_ms / 2000))
            if time.monotonic() >= next_sync:
                self.clock.sync()
                next_sync = time.monotonic() + self.o.clock_sync_ms / 1000
            if self.sql is not None:
                self.sql.reap()


class Completer:
    """Completions cut by a store failure after the event was persisted (Redis and memory; SQL
    stores complete in the event's transaction), retried in the background with the request's
    token and the store's time (the clock offset) until the store answers: ``completed`` (the id
    recorded done; core's contract v3 completes an id whose entry is gone, so this works after
    the lease too) or ``stale`` (another request took the id over), logged either way. One at a
    time, oldest first: while the store fails, the head is retried every ``BACKOFF_S`` doubling
    to ``BACKOFF_MAX_S``; once it answers, the others follow at once. An entry still failing
    ``BOUND_S`` after it was queued is given up (logged); at most ``CAP`` pending (past it,
    logged and dropped)."""

    CAP = 10_000
    BOUND_S = 120.0
    BACKOFF_S = 0.25
    BACKOFF_MAX_S = 1.0

    def __init__(self, app):
        self.app = app
        self.cv = threading.Condition()
        self.queue = collections.deque()  # (queued at, id, token)
        threading.Thread(target=self.run, name="completer", daemon=True).start()

    def pending(self):
        with self.cv:
            return len(self.queue)

    def add(self, id, token, why):
        with self.cv:
            full = len(self.queue) >= self.CAP
            if not full:
                self.queue.append((time.monotonic(), id, token))
                self.cv.notify()
        if full:
            self.app.count("completions_retry_dropped")
            log(f"receiver-python: complete {id}: {why}; {self.CAP} completions pending already: "
                f"dropped (a redelivery after the lease may process it again)")
            return
        self.app.count("completions_retried")
        log(f"receiver-python: complete {id}: {why}; retried in the background")

    def run(self):
        app = self.app
        backoff = self.BACKOFF_S
        while True:
            with self.cv:
                while not self.queue:
                    self.cv.wait()
                queued, id, token = self.queue[0]
            try:
                outcome = app.step("complete", id, token, app.clock.now())
            except Exception as e:  # the store still failing
                now = time.monotonic()
                with self.cv:
                    while self.queue and now - self.queue[0][0] >= self.BOUND_S:
                        _, gone, _ = self.queue.popleft()
                        app.count("completions_retry_given_up")
                        log(f"receiver-python: complete {gone}: still failing after "
                            f"{self.BOUND_S:.0f} s ({type(e).__name__}: {e}); given up")
                time.sleep(backoff)
                backoff = min(backoff * 2, self.BACKOFF_MAX_S)
                continue
            backoff = self.BACKOFF_S
            with self.cv:
                if self.queue and self.queue[0][1] == id and self.queue[0][2] == token:
                    self.queue.popleft()
            ms = round((time.monotonic() - queued) * 1000)
            if outcome == xborder.ClaimOutcome.COMPLETED:
                app.count("completions_recovered")
                log(f"receiver-python: complete {id}: recovered after {ms} ms (recorded done)")
            else:
                app.count("completions_retry_stale")
                log(f"receiver-python: complete {id}: {outcome} after {ms} ms (another request "
                    f"took the id over); stopped")


class Lingerer:
    """Connections answered and closed for writing (refused past the cap, or after a 413, 408 or
    400): what their clients still send is read and discarded, ``limit`` bytes and ``LINGER_S``
    at most, then they are closed. Closing at once, with unread bytes, would send a reset that
    can destroy the answer before the client reads it. One thread for all; at most ``cap``
    lingering (past it, closed at once)."""

    def __init__(self, limit, cap=1024):
        self.limit, self.cap = limit, cap
        self.lock = threading.Lock()
        self.new = []
        self.sel = selectors.DefaultSelector()
        self.wake_r, self.wake_w = socket.socketpair()
        self.wake_r.setblocking(False)
        self.wake_w.setblocking(False)
        self.sel.register(self.wake_r, selectors.EVENT_READ, None)
        self.count = 0
        threading.Thread(target=self.run, name="lingerer", daemon=True).start()

    def add(self, sock):
        """Takes ``sock`` (answered already): shut for writing, drained, closed."""
        quietly(lambda: sock.shutdown(socket.SHUT_WR))
        with self.lock:
            if self.count >= self.cap:
                quietly(sock.close)
                return
            self.count += 1
            self.new.append(sock)
        quietly(lambda: self.wake_w.send(b"x"))

    def run(self):
        left = {}  # sock -> [deadline, bytes left]
        buf = bytearray(65536)
        while True:
            now = time.monotonic()
            for sock, (deadline, _) in list(left.items()):
                if now >= deadline:
                    self.drop(left, sock)
            wait = min((d for d, _ in left.values()), default=now + 1.0) - now
            for key, _ in self.sel.select(max(0.0, wait)):
                if key.data is None:
                    quietly(lambda: self.wake_r.recv(4096))
                    continue
                sock = key.fileobj
                try:
                    n = sock.recv_into(buf)
                except BlockingIOError:
                    continue
                except OSError:
                    n = 0
                left[sock][1] -= n
                if n == 0 or left[sock][1] <= 0:
                    self.drop(left, sock)
            with self.lock:
                new, self.new = self.new, []
            for sock in new:
                try:
                    sock.setblocking(False)
                    self.sel.register(sock, selectors.EVENT_READ, sock)
                    left[sock] = [time.monotonic() + LINGER_S, self.limit]
                except (OSError, ValueError):
                    quietly(sock.close)
                    with self.lock:
                        self.count -= 1

    def busy(self):
        with self.lock:
            return self.count > 0

    def drop(self, left, sock):
        del left[sock]
        quietly(lambda: self.sel.unregister(sock))
        quietly(sock.close)
        with self.lock:
            self.count -= 1


class HeadTimeout(TimeoutError):
    """A request head not received in time (or nothing sent while the server drains):
    ``http.server`` closes the connection on a TimeoutError."""


class BodyTimeout(TimeoutError):
    """The body did not arrive whole within --body-timeout-ms."""


class Wire(io.RawIOBase):
    """A connection's socket, read against the deadline of the phase it is in:

    - ``idle`` (waiting for a request): ``--header-timeout-ms`` from the accept for a new
      connection, ``--idle-timeout-ms`` from the last answer for a kept-alive one; while the
      server drains, closed once idle for --drain-ms;
    - ``head`` (from the first byte): the header timeout (a new connection's from the accept);
      while draining, the drain period and a second at most;
    - ``body``: ``--body-timeout-ms`` from the end of the head;
    - ``work``: no reads expected, no deadline."""

    def __init__(self, sock, app, accepted):
        super().__init__()
        self.sock, self.app, self.accepted = sock, app, accepted
        self.phase, self.deadline = "idle", None
        self.first = True  # no request yet on this connection
        self.in_flight = False
        self.drained = False  # closed idle at the end of the drain

    def readable(self):
        return True

    def wait_for_request(self):
        o = self.app.o
        self.phase = "idle"
        if self.first:
            self.deadline = self.accepted + o.header_timeout_ms / 1000
        else:
            self.deadline = time.monotonic() + o.idle_timeout_ms / 1000

    def readinto(self, b):
        app = self.app
        while True:
            now = time.monotonic()
            if self.deadline is not None and now >= self.deadline:
                if self.phase == "body":
                    raise BodyTimeout("body not received within --body-timeout-ms")
                app.count("closed_header_timeout" if self.phase == "head" or self.first
                          else "closed_idle_timeout")
                raise HeadTimeout(f"{self.phase}: nothing more in time")
            wait = None if self.deadline is None else self.deadline - now
            last = False
            if self.phase in ("idle", "head"):
                wait = SLICE_S if wait is None else min(wait, SLICE_S)
                if app.draining:
                    # An idle connection is served for the drain period, then closed (what
                    # already came is still read); a head being received has a second more.
                    drain_end = app.drain_at + app.o.drain_ms / 1000
                    if self.phase == "idle":
                        if now >= drain_end:
                            wait, last = 0.0, True
                        else:
                            wait = min(wait, drain_end - now)
                    elif now >= max(drain_end, app.drain_at + 1.0):
                        raise HeadTimeout("draining: a head not received within a second")
            self.sock.settimeout(None if wait is None else max(wait, 0.0))
            try:
                n = self.sock.recv_into(b)
            except (TimeoutError, BlockingIOError):
                if last:
                    self.drained = True
                    raise HeadTimeout("draining: an idle connection is closed") from None
                continue
            if n and self.phase == "idle":
                # The first byte of a request: in flight until answered.
                self.phase = "head"
                if not self.first:
                    self.deadline = now + app.o.header_timeout_ms / 1000
                self.in_flight = True
                app.begin_request()
            return n


HEX = re.compile(rb"[0-9A-Fa-f]+")


class TooLarge(Exception):
    pass


class BadFraming(Exception):
    pass


def handler(app: App):
    o = app.o

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self):
            super().setup()
            self.rfile.close()  # the makefile's: it would keep the socket open after close()
            self.wire = Wire(self.connection, app, self.server.accepted_at(self.connection))
            self.rfile = io.BufferedReader(self.wire, 8192)
            self.linger = False

        def handle_one_request(self):
            self.wire.wait_for_request()
            try:
                super().handle_one_request()
            finally:
                self.wire.phase, self.wire.deadline = "work", None
                self.wire.first = False
                if self.wire.in_flight:
                    self.wire.in_flight = False
                    app.end_request()
                # An answer written while draining said Connection: close (and closes); one
                # written just before the drain did not, so its client may send another request:
                # the connection goes back to waiting, for the drain period.
                if self.wire.drained:
                    # Shut for writing and read until the client closes (LINGER_S at most): a
                    # request written just as it closed finds a FIN, not a reset.
                    self.linger = True

        def parse_request(self):
            # The head is in (a pipelined one may have come with the previous request, unseen
            # by the wire): in flight from here at the latest.
            if not self.wire.in_flight:
                self.wire.in_flight = True
                app.begin_request()
            return super().parse_request()

        def end_headers(self):
            self.connection.settimeout(WRITE_TIMEOUT_S)
            super().end_headers()

        def finish(self):
            super().finish()
            if self.linger:
                # Answered and closing: the lingerer reads what the client still sends (a dup
                # of the socket: socketserver closes this one).
                try:
                    app.lingerer.add(self.connection.dup())
                except OSError:
                    pass

        def answer(self, status, body, headers=None, close=False):
            data = json.dumps(body).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            if close or app.draining:
                self.send_header("Connection", "close")  # also sets close_connection
                self.close_connection = True
            self.end_headers()
            self.wfile.write(data)

        def refuse(self, status, body, headers=None):
            """Answers and closes (the lingerer reads what is still coming)."""
            self.answer(status, body, headers, close=True)
            self.linger = True

        def handle_expect_100(self):
            # No "100 Continue" for a body that will be refused unread.
            if self.declared() > o.max_body_bytes:
                return True
            return super().handle_expect_100()

        def declared(self):
            try:
                return int(self.headers.get("Content-Length") or 0)
            except ValueError:
                return 0

        def do_GET(self):
            app.count("requests")
            if self.path == "/healthz":
                return self.answer(200, dict(result="ok"))
            if self.path == "/stats":
                return self.answer(200, app.snapshot())
            return self.answer(404, dict(error="NOT_FOUND"))

        def read_body(self):
            """The body, copied into one buffer as it arrives: Content-Length, or chunked.
            Raises TooLarge past --max-body-bytes (a declared length: before reading any),
            BadFraming, BodyTimeout; None when the client closed before the end."""
            lengths = self.headers.get_all("Content-Length") or []
            codings = self.headers.get_all("Transfer-Encoding") or []
            self.wire.phase = "body"
            self.wire.deadline = time.monotonic() + o.body_timeout_ms / 1000
            if lengths and codings:
                raise BadFraming("Content-Length with Transfer-Encoding")
            if codings:
                if ",".join(codings).replace(" ", "").lower() != "chunked":
                    raise BadFraming("a Transfer-Encoding other than chunked")
                return self.read_chunked()
            if not lengths:
                return b""
            if len(set(v.strip() for v in lengths)) != 1 or not lengths[0].strip().isdigit():
                raise BadFraming("Content-Length differing or not a number")
            length = int(lengths[0])
            if length > o.max_body_bytes:
                raise TooLarge()
            buf = bytearray()
            return buf if self.read_into(buf, length) else None

        def read_into(self, buf, n):
            """Appends the next ``n`` bytes to ``buf``; False when the client closed first."""
            while n > 0:
                chunk = self.rfile.read1(min(n, 65536))
                if not chunk:
                    return False
                buf += chunk
                n -= len(chunk)
            return True

        def read_chunked(self):
            buf = bytearray()
            for _ in range(o.max_body_bytes + 2):  # a chunk has a byte at least, and the last
                line = self.rfile.readline(1026)
                if not line:
                    return None
                if not line.endswith(b"\n"):
                    raise BadFraming("a chunk size line too long")
                size_text = line.split(b";", 1)[0].strip()
                if not HEX.fullmatch(size_text) or len(size_text) > 16:
                    raise BadFraming("a chunk size not in hex")
                size = int(size_text, 16)
                if size == 0:
                    for _ in range(101):  # trailers, then the empty line
                        line = self.rfile.readline(65537)
                        if not line:
                            return None
                        if line in (b"\r\n", b"\n"):
                            return buf
                    raise BadFraming("more than 100 trailer lines")
                if len(buf) + size > o.max_body_bytes:
                    raise TooLarge()
                if not self.read_into(buf, size):
                    return None
                end = self.rfile.readline(3)
                if not end:
                    return None
                if end not in (b"\r\n", b"\n"):
                    raise BadFraming("a chunk not followed by CRLF")
            raise TooLarge()

        def do_POST(self):
            app.count("requests")
            try:
                body = self.read_body()
            except TooLarge:
                app.count("body_too_large")
                return self.refuse(*core_reply("BODY_TOO_LARGE"))
            except BodyTimeout:
                app.count("body_timeout")
                return self.refuse(*core_reply("BODY_TIMEOUT"))
            except BadFraming as e:
                app.count("bad_requests")
                return self.refuse(400, dict(error="BAD_REQUEST", field=str(e)))
            self.wire.phase, self.wire.deadline = "work", None
            if body is None:  # the client went away mid-body: nobody to answer
                self.close_connection = True
                return
            status, answer, headers = app.webhook(bytes(body), self.headers.get("X-Webhook-Signature"))
            del body
            self.answer(status, answer, headers)

        def log_message(self, *args):  # quiet: the stats say what happened
            pass

    return Handler


class Server(ThreadingHTTPServer):
    """``ThreadingHTTPServer`` with at most ``--max-connections`` connections served (a thread
    each); one past the cap is answered 503 ``TOO_MANY_CONNECTIONS`` at once and closed."""

    daemon_threads = True
    request_queue_size = 1024

    def __init__(self, address, handler_class, app):
        self.app = app
        self.accepted = {}
        super().__init__(address, handler_class)
        status, body, headers = core_reply("TOO_MANY_CONNECTIONS")
        data = json.dumps(body).encode("utf-8")
        head = [f"HTTP/1.1 {status} {http.HTTPStatus(status).phrase}",
                "Content-Type: application/json", f"Content-Length: {len(data)}",
                *(f"{k}: {v}" for k, v in headers.items()), "Connection: close"]
        self.refusal = ("\r\n".join(head) + "\r\n\r\n").encode("ascii") + data

    def accepted_at(self, sock):
        with self.app.lock:
            return self.accepted.pop(sock.fileno(), time.monotonic())

    def process_request(self, request, client_address):
        app = self.app
        with app.lock:
            over = app.connections >= app.o.max_connections
            if not over:
                app.connections += 1
                self.accepted[request.fileno()] = time.monotonic()
        if over:
            app.count("refused_connections")
            try:
                request.setblocking(False)
                request.send(self.refusal)  # a few hundred bytes: the socket's buffer takes them
            except OSError:
                pass
            app.lingerer.add(request)
            return
        try:
            threading.Thread(target=self.serve_connection, args=(request, client_address),
                             daemon=True).start()
        except RuntimeError:  # no thread to be had
            with app.lock:
                app.connections -= 1
                self.accepted.pop(request.fileno(), None)
            self.shutdown_request(request)

    def serve_connection(self, request, client_address):
        try:
            self.process_request_thread(request, client_address)
        finally:
            with self.app.lock:
                self.app.connections -= 1

    def handle_error(self, request, client_address):
        # A client that reset or vanished: nothing to say. Anything else is a bug: printed.
        if isinstance(sys.exc_info()[1], OSError):
            return
        super().handle_error(request, client_address)


def drop_new_connections(listener):
    """Attaches a classic BPF socket filter returning 0 (drop) to ``listener`` (Linux
    ``SO_ATTACH_FILTER``): TCP applies it to a listener's SYNs and handshake ACKs. Elsewhere, or
    if the kernel refuses, nothing (the backlog is still taken before the close)."""
    import ctypes

    so_attach_filter = getattr(socket, "SO_ATTACH_FILTER", 26)
    if not sys.platform.startswith("linux"):
        return
    insn = ctypes.create_string_buffer(struct.pack("HBBI", 0x06, 0, 0, 0))  # BPF_RET|BPF_K 0
    prog = struct.pack("HL", 1, ctypes.addressof(insn))
    try:
        listener.setsockopt(socket.SOL_SOCKET, so_attach_filter, prog)
    except OSError as e:
        log(f"shutdown: no socket filter on the listener ({e})")


def main(argv=None):
    o = parse_args(argv if argv is not None else sys.argv[1:])
    host, _, port = o.listen.rpartition(":")
    app = App(o)
    app.lingerer = Lingerer(o.max_body_bytes)
    app.clock.sync()
    threading.Thread(target=app.upkeep, name="upkeep", daemon=True).start()
    if o.catch_up:
        threading.Thread(target=app.catch_up_loop, name="catch-up", daemon=True).start()
    server = Server((host, int(port)), handler(app), app)
    h, p = server.server_address[:2]

    def on_signal(signum, frame):
        if app.draining:
            return
        app.drain()
        # shutdown() waits for serve_forever, which runs on this (the main) thread.
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    print(f"{h}:{p}", flush=True)
    log(f"receiver-python {o.instance}: {app.described}, lease {o.lease_ms} ms, store timeout "
        f"{o.store_timeout_ms} ms, body at most {o.max_body_bytes} bytes in "
        f"{o.body_timeout_ms} ms, at most {o.max_connections} connections, clock offset "
        f"{app.clock.offset_ms} ms")
    server.serve_forever(poll_interval=0.1)
    # Connections the kernel completed but nobody accepted yet: closing the listener would reset
    # them, with their requests perhaps written. Accepted and served like the others.
    # First the listener stops completing handshakes (a filter that drops every packet sent to
    # it: a new client's SYN goes unanswered and its retry, a second later, finds the port
    # closed), so the backlog stops growing; then it is taken in a tight loop (no thread
    # started in between), the listener closed, and what was taken served.
    drop_new_connections(server.socket)
    waiting = []
    server.socket.setblocking(False)
    while len(waiting) < server.request_queue_size:
        try:
            waiting.append(server.socket.accept())
        except OSError:  # BlockingIOError: none left
            break
    server.server_close()  # the listener: new connections are refused
    for request, client_address in waiting:
        request.setblocking(True)
        server.process_request(request, client_address)
    started = app.drain_at
    limit = started + o.grace_ms / 1000
    # Every connection served to its end (idle ones are closed after the drain period, the
    # others after their answer), the lingering ones let go, within the grace.
    while time.monotonic() < limit:
        with app.lock:
            if app.in_flight == 0 and app.connections == 0:
                break
        time.sleep(0.01)
    while time.monotonic() < limit and app.lingerer.busy():
        time.sleep(0.01)
    ms = round((time.monotonic() - started) * 1000)
    with app.lock:
        cut, answered = app.in_flight, app.ended_in_drain
    if cut:
        log(f"shutdown: {answered} in flight answered in {ms} ms, {cut} cut at the grace "
            f"({o.grace_ms} ms)")
    else:
        log(f"shutdown: {answered} in flight answered in {ms} ms")
    left = app.completer.pending()
    if left:
        log(f"shutdown: {left} completions still pending dropped")
    sys.stdout.flush()
    # Threads still waiting on connections or the store end with the process.
    os._exit(1 if cut else 0)


if __name__ == "__main__":
    main()
