"""xborder.postgres (psycopg 3, sync and asyncio) against a real PostgreSQL (started here with
tests/servers/postgres.sh, stopped at the end, also on failure) and xborder.sqlite (sqlite3,
a file): every ``delivery.claims`` vector (tests/vectors, ../shared/conformance and its v3/ when
present, XBORDER_VECTORS_DIR); the statements and migrations are the Rust crate's
(stores/sql); one winner among concurrent claims from several connections (also over an
expired row); complete inside the host's transaction (rolled back: neither the event's row nor
the completion, the id claimable again once the lease ends; committed: a duplicate); expiry and
purge; store failures are STORE_UNAVAILABLE; handle_delivery(..., transaction=store) (a
failed commit: 500 PERSIST_FAILED, the claim released; stale inside: rolled back, 503); every public parameter with a wrong kind (TypeError
or ValueError naming it); ``import xborder`` and ``xborder.postgres`` without psycopg."""

import asyncio
import json
import os
import pathlib
import re
import sqlite3
import subprocess
import sys
import tempfile
import threading
from typing import Any, Callable, Dict, List, Optional, Tuple

import psycopg

import xborder
import xborder.postgres as xp
import xborder.sqlite as xs
from xborder import ClaimOutcome

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pg_server  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[3]
FOREVER = 2**64 - 1  # FORMAT.md's absent windowMs: duplicates for ever (the longest window)
failures: List[str] = []
counts: Dict[str, int] = {}


def fail(why: str) -> None:
    failures.append(why)
    print("FAIL " + why)


def expect(what: str, got: Any, want: Any) -> None:
    counts["checks"] = counts.get("checks", 0) + 1
    if got != want:
        fail("%s: got %r, want %r" % (what, got, want))


def cases() -> List[Tuple[str, Dict[str, Any]]]:
    dirs = [ROOT / "tests" / "vectors"]
    dirs += [d for d in (ROOT.parent / "shared" / "conformance",
                         ROOT.parent / "shared" / "conformance" / "v3") if d.is_dir()]
    dirs += [pathlib.Path(d) for d in os.environ.get("XBORDER_VECTORS_DIR", "").split(":") if d]
    out = []
    for d in dirs:
        for f in sorted(d.glob("*.json")):
            for m, case in enumerate(json.loads(f.read_text(encoding="utf-8"))["cases"]):
                if case["op"] == "delivery.claims":
                    out.append(("%s/%s:%d %s" % (d.name, f.name, m, case["name"]), case))
    return out


def text(fn: Callable[[], Any]) -> str:
    try:
        return str(fn())
    except xborder.XborderError as e:
        return e.code


async def atext(coro: Any) -> str:
    try:
        return str(await coro)
    except xborder.XborderError as e:
        return e.code


def rules(case: Dict[str, Any]) -> Tuple[int, int]:
    inp = case["input"]
    return inp["leaseMs"], inp.get("windowMs", FOREVER)


def wrong(what: str, call: Callable[[], Any], name: str,
          kinds: Tuple[type, ...] = (TypeError, ValueError)) -> None:
    counts["wrong kinds"] = counts.get("wrong kinds", 0) + 1
    try:
        r = call()
        if asyncio.iscoroutine(r):
            asyncio.run(r)
        fail("%s: accepted" % what)
    except kinds as e:
        if name not in str(e):
            fail("%s: the %s does not name %s: %s" % (what, type(e).__name__, name, e))
    except Exception as e:  # noqa: BLE001
        fail("%s: %s instead of %s: %s" % (what, type(e).__name__, kinds, e))


# --- the Rust crate's statements and migrations ----------------------------------------------------

def rust_consts(path: pathlib.Path) -> Dict[str, str]:
    """The ``pub const NAME: &str = "...";`` of a Rust file, with its line continuations."""
    src = path.read_text(encoding="utf-8")
    out = {}
    for name, lit in re.findall(r'pub const (\w+): &str =\s*"((?:[^"\\]|\\.)*)";', src, re.S):
        out[name] = re.sub(r"\\\n\s*", "", lit).replace('\\"', '"')
    return out


def same_as_rust() -> None:
    for mod, engine in ((xp, "postgres"), (xs, "sqlite")):
        rust = rust_consts(ROOT / "stores" / "sql" / "src" / ("%s.rs" % engine))
        for name in ("LOAD", "INSERT", "UPDATE", "DELETE", "PURGE"):
            expect("%s.%s is the Rust crate's" % (engine, name), getattr(mod, name), rust.get(name))
        sql = (ROOT / "stores" / "sql" / "migrations" / ("%s.sql" % engine)).read_text("utf-8")
        expect("%s.MIGRATION is stores/sql/migrations/%s.sql" % (engine, engine),
               mod.MIGRATION, sql)
        expect("%s.TABLE" % engine, mod.TABLE, "xborder_claims")


# --- vectors -----------------------------------------------------------------------------------------

def vectors_postgres(url: str, vectors: List[Tuple[str, Dict[str, Any]]]) -> None:
    for autocommit in (True, False):
        with psycopg.connect(url, autocommit=autocommit) as conn:
            for key, case in vectors:
                conn.execute("DELETE FROM xborder_claims")  # the vectors reuse ids
                conn.commit()
                lease, window = rules(case)
                claims = xp.PostgresClaims(lease_ms=lease, window_ms=window)
                got = [text(lambda s=s: claims.step(conn, s["do"], s["id"], s["token"], s["at"]))
                       for s in case["input"]["steps"]]
                if got != case["expect"]["results"]:
                    fail("postgres sync (autocommit=%s) %s: got %s, want %s"
                         % (autocommit, key, got, case["expect"]["results"]))
                if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                    fail("postgres sync (autocommit=%s) %s: a transaction left open" % (autocommit, key))
    counts["postgres sync vectors"] = 2 * len(vectors)

    async def run() -> None:
        for autocommit in (True, False):
            conn = await psycopg.AsyncConnection.connect(url, autocommit=autocommit)
            try:
                for key, case in vectors:
                    await conn.execute("DELETE FROM xborder_claims")
                    await conn.commit()
                    lease, window = rules(case)
                    claims = xp.AsyncPostgresClaims(lease_ms=lease, window_ms=window)
                    got = [await atext(claims.step(conn, s["do"], s["id"], s["token"], s["at"]))
                           for s in case["input"]["steps"]]
                    if got != case["expect"]["results"]:
                        fail("postgres async (autocommit=%s) %s: got %s, want %s"
                             % (autocommit, key, got, case["expect"]["results"]))
            finally:
                await conn.close()

    asyncio.run(run())
    counts["postgres async vectors"] = 2 * len(vectors)


def vectors_sqlite(folder: str, vectors: List[Tuple[str, Dict[str, Any]]]) -> None:
    opened = [xs.connect(os.path.join(folder, "vectors.db")),
              sqlite3.connect(os.path.join(folder, "plain.db"))]  # sqlite3's defaults: deferred
    xs.migrate(opened[1])
    for conn in opened:
        for key, case in vectors:
            conn.execute("DELETE FROM xborder_claims")
            conn.commit()
            lease, window = rules(case)
            claims = xs.SqliteClaims(lease_ms=lease, window_ms=window)
            got = [text(lambda s=s: claims.step(conn, s["do"], s["id"], s["token"], s["at"]))
                   for s in case["input"]["steps"]]
            if got != case["expect"]["results"]:
                fail("sqlite %s: got %s, want %s" % (key, got, case["expect"]["results"]))
            if conn.in_transaction:
                fail("sqlite %s: a transaction left open" % key)
        conn.close()
    counts["sqlite vectors"] = 2 * len(vectors)


# --- concurrency ---------------------------------------------------------------------------------------

def winners(outs: List[str], n: int, what: str) -> None:
    counts["concurrent rounds"] = counts.get("concurrent rounds", 0) + 1
    if outs.count("claimed") != 1 or outs.count("in_progress") != n - 1:
        fail("%s: %s (want one claimed, %d in_progress)" % (what, outs, n - 1))


def threads_round(n: int, step: Callable[[int], str]) -> List[str]:
    outs: List[str] = []
    lock = threading.Lock()
    barrier = threading.Barrier(n)

    def run(i: int) -> None:
        barrier.wait()
        o = step(i)
        with lock:
            outs.append(o)

    ts = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return outs


def concurrency_postgres(url: str) -> None:
    n = 8
    conns = [psycopg.connect(url, autocommit=i % 2 == 0) for i in range(n)]
    try:
        claims = xp.PostgresClaims(lease_ms=1_000)
        for r in range(10):
            # Odd rounds: the even round's claim expired (two leases on): one takes the row over.
            at = 10_000 * (r % 2) + 1
            outs = threads_round(n, lambda i: text(
                lambda: claims.step(conns[i], "claim", "evt_t%d" % (r // 2), "r%d_%d" % (r, i), at)))
            winners(outs, n, "postgres threads round %d" % r)
    finally:
        for c in conns:
            c.close()

    async def run() -> None:
        aconns = [await psycopg.AsyncConnection.connect(url, autocommit=True) for _ in range(n)]
        try:
            claims = xp.AsyncPostgresClaims(lease_ms=1_000)
            for r in range(10):
                at = 10_000 * (r % 2) + 1
                outs = await asyncio.gather(*(
                    atext(claims.step(c, "claim", "evt_a%d" % (r // 2), "r%d_%d" % (r, i), at))
                    for i, c in enumerate(aconns)))
                winners(list(outs), n, "postgres asyncio round %d" % r)
        finally:
            for c in aconns:
                await c.close()

    asyncio.run(run())


def concurrent_migrations(url: str) -> None:
    """Eight instances starting together each migrate a schema with no table yet: all succeed
    (without MIGRATION_LOCK, CREATE TABLE IF NOT EXISTS races fail in pg_type)."""
    for r in range(5):
        schema = "mig%d" % r
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute("CREATE SCHEMA %s" % schema)
        conns = [psycopg.connect(url, autocommit=True, options="-c search_path=%s" % schema)
                 for _ in range(8)]
        try:
            errors: List[str] = []

            def one(i: int) -> str:
                try:
                    xp.migrate(conns[i])
                    return "ok"
                except Exception as e:  # noqa: BLE001 - reported below
                    errors.append("%s: %s" % (type(e).__name__, e))
                    return "failed"
            outs = threads_round(8, one)
            expect("round %d: 8 concurrent migrations" % r, (outs.count("ok"), errors), (8, []))
        finally:
            for c in conns:
                c.close()
    expect("the migration's lock is the Rust crate's",
           xp.MIGRATION_LOCK, rust_consts(ROOT / "stores" / "sql" / "src" / "postgres.rs")["MIGRATION_LOCK"])


def concurrency_sqlite(folder: str) -> None:
    n = 8
    path = os.path.join(folder, "concurrent.db")
    xs.connect(path).close()
    claims = xs.SqliteClaims(lease_ms=1_000)
    for r in range(10):
        at = 10_000 * (r % 2) + 1

        def step(i: int) -> str:
            conn = xs.connect(path)
            try:
                return text(lambda: claims.step(conn, "claim", "evt_%d" % (r // 2), "r%d_%d" % (r, i), at))
            finally:
                conn.close()

        winners(threads_round(n, step), n, "sqlite threads round %d" % r)


# --- complete inside the host's transaction --------------------------------------------------------------

LEASE = 1_000


def transactions_postgres(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn, psycopg.connect(url) as other:
        conn.execute("CREATE TABLE IF NOT EXISTS events (id text PRIMARY KEY)")
        claims = xp.PostgresClaims(lease_ms=LEASE)

        def rows(id: str) -> int:
            return int(conn.execute("SELECT count(*) FROM events WHERE id = %s", (id,)).fetchone()[0])

        t0 = 1_000_000
        expect("pg claim", claims.step(conn, "claim", "evt_rb", "r1", t0), ClaimOutcome.CLAIMED)
        with conn.transaction():
            conn.execute("INSERT INTO events (id) VALUES ('evt_rb')")
            expect("pg complete_in (to roll back)", claims.complete_in(conn, "evt_rb", "r1", t0 + 5),
                   ClaimOutcome.COMPLETED)
            # Another connection still sees the claim until the commit.
            expect("pg other connection during the transaction",
                   text(lambda: claims.step(other, "claim", "evt_rb", "r9", t0 + 6)), "in_progress")
            raise psycopg.Rollback()
        expect("pg rolled back: no event row", rows("evt_rb"), 0)
        expect("pg rolled back: still held within the lease",
               claims.step(other, "claim", "evt_rb", "r2", t0 + LEASE - 1), ClaimOutcome.IN_PROGRESS)
        expect("pg rolled back: claimable once the lease ends",
               claims.step(other, "claim", "evt_rb", "r2", t0 + LEASE + 1), ClaimOutcome.CLAIMED)
        with conn.transaction():
            conn.execute("INSERT INTO events (id) VALUES ('evt_rb')")
            expect("pg complete_in (committed)", claims.complete_in(conn, "evt_rb", "r2", t0 + LEASE + 2),
                   ClaimOutcome.COMPLETED)
        expect("pg committed: the event row", rows("evt_rb"), 1)
        expect("pg committed: a duplicate", claims.step(other, "claim", "evt_rb", "r3", t0 + LEASE + 3),
               ClaimOutcome.DUPLICATE)
        # A non-autocommit connection: the host's implicit transaction, committed by the host.
        expect("pg claim 2", claims.step(other, "claim", "evt_ic", "r1", t0), ClaimOutcome.CLAIMED)
        other.execute("INSERT INTO events (id) VALUES ('evt_ic')")
        expect("pg complete_in (implicit transaction)", claims.complete_in(other, "evt_ic", "r1", t0 + 1),
               ClaimOutcome.COMPLETED)
        other.commit()
        expect("pg implicit transaction committed", claims.step(conn, "claim", "evt_ic", "r2", t0 + 2),
               ClaimOutcome.DUPLICATE)
        # Stale: the lease ended and another request took the id over; the host rolls back.
        expect("pg claim 3", claims.step(conn, "claim", "evt_st", "r1", t0), ClaimOutcome.CLAIMED)
        expect("pg takeover", claims.step(other, "claim", "evt_st", "r2", t0 + LEASE + 1),
               ClaimOutcome.CLAIMED)
        with conn.transaction():
            conn.execute("INSERT INTO events (id) VALUES ('evt_st')")
            expect("pg complete_in stale", claims.complete_in(conn, "evt_st", "r1", t0 + LEASE + 2),
                   ClaimOutcome.STALE)
            raise psycopg.Rollback()
        expect("pg stale: no event row", rows("evt_st"), 0)
        wrong("pg complete_in outside a transaction",
              lambda: claims.complete_in(conn, "evt_st", "r2", t0), "conn", (ValueError,))

    async def run() -> None:
        conn = await psycopg.AsyncConnection.connect(url, autocommit=True)
        try:
            claims = xp.AsyncPostgresClaims(lease_ms=LEASE)

            async def rows(id: str) -> int:
                cur = await conn.execute("SELECT count(*) FROM events WHERE id = %s", (id,))
                row = await cur.fetchone()
                return int(row[0]) if row else -1

            t0 = 2_000_000
            expect("apg claim", await claims.step(conn, "claim", "evt_arb", "r1", t0), ClaimOutcome.CLAIMED)
            async with conn.transaction():
                await conn.execute("INSERT INTO events (id) VALUES ('evt_arb')")
                expect("apg complete_in", await claims.complete_in(conn, "evt_arb", "r1", t0 + 1),
                       ClaimOutcome.COMPLETED)
                raise psycopg.Rollback()
            expect("apg rolled back: no row", await rows("evt_arb"), 0)
            expect("apg rolled back: held", await claims.step(conn, "claim", "evt_arb", "r2", t0 + 2),
                   ClaimOutcome.IN_PROGRESS)
            expect("apg rolled back: claimable after the lease",
                   await claims.step(conn, "claim", "evt_arb", "r2", t0 + LEASE + 1), ClaimOutcome.CLAIMED)
            async with conn.transaction():
                await conn.execute("INSERT INTO events (id) VALUES ('evt_arb')")
                expect("apg complete_in committed",
                       await claims.complete_in(conn, "evt_arb", "r2", t0 + LEASE + 2), ClaimOutcome.COMPLETED)
            expect("apg committed: row", await rows("evt_arb"), 1)
            expect("apg committed: duplicate",
                   await claims.step(conn, "claim", "evt_arb", "r3", t0 + LEASE + 3), ClaimOutcome.DUPLICATE)
            try:
                await claims.complete_in(conn, "evt_arb", "r3", t0)
                fail("apg complete_in outside a transaction accepted")
            except ValueError as e:
                expect("apg complete_in outside a transaction names conn", "conn" in str(e), True)
        finally:
            await conn.close()

    asyncio.run(run())


def transactions_sqlite(folder: str) -> None:
    path = os.path.join(folder, "tx.db")
    conn, other = xs.connect(path), xs.connect(path)
    conn.execute("CREATE TABLE IF NOT EXISTS events (id TEXT PRIMARY KEY)")
    claims = xs.SqliteClaims(lease_ms=LEASE)

    def rows(id: str) -> int:
        return int(other.execute("SELECT count(*) FROM events WHERE id = ?", (id,)).fetchone()[0])

    t0 = 1_000_000
    expect("sqlite claim", claims.step(conn, "claim", "evt_rb", "r1", t0), ClaimOutcome.CLAIMED)
    try:
        with conn:
            conn.execute("INSERT INTO events (id) VALUES ('evt_rb')")
            expect("sqlite complete_in (to roll back)", claims.complete_in(conn, "evt_rb", "r1", t0 + 5),
                   ClaimOutcome.COMPLETED)
            # Another connection reads the last commit (WAL): still the claim.
            expect("sqlite other connection during the transaction",
                   text(lambda: claims.step(other, "claim", "evt_rb", "r9", t0 + 6)), "in_progress")
            raise RuntimeError("the host failed before its commit")
    except RuntimeError:
        pass
    expect("sqlite rolled back: no event row", rows("evt_rb"), 0)
    expect("sqlite rolled back: still held within the lease",
           claims.step(other, "claim", "evt_rb", "r2", t0 + LEASE - 1), ClaimOutcome.IN_PROGRESS)
    expect("sqlite rolled back: claimable once the lease ends",
           claims.step(other, "claim", "evt_rb", "r2", t0 + LEASE + 1), ClaimOutcome.CLAIMED)
    with other:  # the transaction on another connection to the same file
        other.execute("INSERT INTO events (id) VALUES ('evt_rb')")
        expect("sqlite complete_in (committed)", claims.complete_in(other, "evt_rb", "r2", t0 + LEASE + 2),
               ClaimOutcome.COMPLETED)
    expect("sqlite committed: the event row", rows("evt_rb"), 1)
    expect("sqlite committed: a duplicate", claims.step(conn, "claim", "evt_rb", "r3", t0 + LEASE + 3),
           ClaimOutcome.DUPLICATE)
    expect("sqlite claim 3", claims.step(conn, "claim", "evt_st", "r1", t0), ClaimOutcome.CLAIMED)
    expect("sqlite takeover", claims.step(other, "claim", "evt_st", "r2", t0 + LEASE + 1),
           ClaimOutcome.CLAIMED)
    with conn:
        conn.execute("INSERT INTO events (id) VALUES ('evt_st')")
        outcome = claims.complete_in(conn, "evt_st", "r1", t0 + LEASE + 2)
        expect("sqlite complete_in stale", outcome, ClaimOutcome.STALE)
        conn.rollback()
    expect("sqlite stale: no event row", rows("evt_st"), 0)
    wrong("sqlite complete_in outside a transaction",
          lambda: claims.complete_in(conn, "evt_st", "r2", t0), "conn", (ValueError,))
    # A deferred transaction of sqlite3's defaults works too when it writes first.
    plain = sqlite3.connect(path, timeout=5)
    expect("sqlite deferred claim", claims.step(plain, "claim", "evt_pl", "r1", t0), ClaimOutcome.CLAIMED)
    with plain:
        plain.execute("INSERT INTO events (id) VALUES ('evt_pl')")
        expect("sqlite deferred complete_in", claims.complete_in(plain, "evt_pl", "r1", t0 + 1),
               ClaimOutcome.COMPLETED)
    expect("sqlite deferred committed", claims.step(conn, "claim", "evt_pl", "r2", t0 + 2),
           ClaimOutcome.DUPLICATE)
    for c in (conn, other, plain):
        c.close()


# --- expiry, purge, failures -------------------------------------------------------------------------------

def expiry(step: Callable[..., Any], purge: Callable[[int], int], count: Callable[[], int],
           engine: str) -> None:
    # lease 10, window 100: a claim's row lives two leases, a done id's the window.
    expect("%s claim" % engine, step("claim", "e1", "r1", 0), ClaimOutcome.CLAIMED)
    expect("%s complete" % engine, step("complete", "e1", "r1", 5), ClaimOutcome.COMPLETED)  # until 105
    expect("%s claim (abandoned)" % engine, step("claim", "e2", "r1", 0), ClaimOutcome.CLAIMED)  # until 20
    expect("%s duplicate within the window" % engine, step("claim", "e1", "r2", 104), ClaimOutcome.DUPLICATE)
    expect("%s rows" % engine, count(), 2)
    expect("%s purge at 19" % engine, purge(19), 0)
    expect("%s purge at 20: the abandoned claim" % engine, purge(20), 1)
    expect("%s purge at 104" % engine, purge(104), 0)
    expect("%s an expired done id is no row" % engine, step("claim", "e1", "r3", 105), ClaimOutcome.CLAIMED)
    expect("%s complete again" % engine, step("complete", "e1", "r3", 106), ClaimOutcome.COMPLETED)  # 206
    expect("%s purge at 205" % engine, purge(205), 0)
    expect("%s purge at 206" % engine, purge(206), 1)
    expect("%s rows after purge" % engine, count(), 0)


def core_expiry(step: str, id: str, at: int, lease_ms: int, window_ms: int) -> Optional[int]:
    """The expiry core gives the write of ``step`` at ``at`` on an id with no row (claim) or held
    by r1 since ``at`` (complete), read from a ClaimTask's compare-and-set."""
    task = xborder.ClaimTask(step, id, "r1", at, lease_ms, window_ms)
    task.start()
    held = None if step == "claim" else "h:%d:r1" % min(at, (1 << 48) - 1)
    need = task.loaded(held)
    assert isinstance(need, xborder.ClaimCompareAndSet), need
    return need.time.expires_at_ms


def times_as_given(claims: Any, conn: Any, expires: Callable[[str], Any], engine: str) -> None:
    """The row's expiry is the one core gives, never one the store computed (the step's time
    plus the TTL, or a clamp of its own): at an ordinary time; at a time past 2**48, which core
    clamps (2**48 - 1, and its expiry clamped alike); through the store's own compare-and-set with
    a time whose expiry is not now + ttl (the store writes it as given)."""
    max_ms = (1 << 48) - 1
    for id, at in (("t_now", 1_000), ("t_far", 1 << 60)):
        want = core_expiry("claim", id, at, 500, 7_000)
        expect("%s claim at %d: core's expiry" % (engine, at), claims.step(conn, "claim", id, "r1", at),
               ClaimOutcome.CLAIMED)
        expect("%s row expiry is core's (claim at %d)" % (engine, at), expires(id), want)
        want = core_expiry("complete", id, at, 500, 7_000)
        expect("%s complete at %d" % (engine, at), claims.step(conn, "complete", id, "r1", at),
               ClaimOutcome.COMPLETED)
        expect("%s row expiry is core's (complete at %d)" % (engine, at), expires(id), want)
    expect("%s core's own times: 2 leases, the window" % engine,
           [core_expiry("claim", "t", 1_000, 500, 7_000), core_expiry("complete", "t", 1_000, 500, 7_000)],
           [2_000, 8_000])
    expect("%s past 2**48: the row's expiry is from core's clamped time, not the step's own"
           % engine, expires("t_far") <= max_ms + 7_000 < (1 << 60), True)
    store = claims.store(conn)
    odd = xborder.StoreTime(now_ms=10, ttl_ms=5, expires_at_ms=12_345)
    expect("%s store write" % engine, store.compare_and_set("t_odd", None, "h:10:r1", odd), True)
    expect("%s the store writes expires_at_ms as given" % engine, expires("t_odd"), 12_345)
    expect("%s a row live at now_ms" % engine, store.load("t_odd", xborder.StoreTime(12_344, None, None)),
           "h:10:r1")
    expect("%s a row expired at now_ms is no row" % engine,
           store.load("t_odd", xborder.StoreTime(12_345, None, None)), None)


def failures_postgres(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DELETE FROM xborder_claims")
        claims = xp.PostgresClaims(lease_ms=10, window_ms=100)
        expiry(lambda *a: claims.step(conn, *a), lambda n: xp.purge(conn, n),
               lambda: int(conn.execute("SELECT count(*) FROM xborder_claims").fetchone()[0]), "pg")

        def pg_expires(id: str) -> Any:
            row = conn.execute("SELECT expires_at FROM xborder_claims WHERE id = %s", [id]).fetchone()
            return None if row is None else row[0]

        times_as_given(xp.PostgresClaims(lease_ms=500, window_ms=7_000), conn, pg_expires, "pg")
        conn.execute("INSERT INTO xborder_claims (id, entry) VALUES ('foreign', 'not ours')")
        expect("pg foreign entry", text(lambda: claims.step(conn, "claim", "foreign", "r1", 0)),
               "STORE_UNAVAILABLE")
        expect("pg ids are kept as given (case, spaces, unicode)",
               [str(claims.step(conn, "claim", i, "r1", 0)) for i in ("E", "e ", "é", "e")],
               ["claimed"] * 4)
        conn.execute("CREATE SCHEMA IF NOT EXISTS empty")
    with psycopg.connect(url, autocommit=True, options="-c search_path=empty") as bare:
        try:
            claims.step(bare, "claim", "x", "r1", 0)
            fail("pg without the table: claimed")
        except xborder.StoreError as e:
            expect("pg without the table", (e.code, isinstance(e.__cause__, psycopg.Error)),
                   ("STORE_UNAVAILABLE", True))
        xp.migrate(bare)  # a second schema gets its own table
        expect("pg migrated schema", claims.step(bare, "claim", "x", "r1", 0), ClaimOutcome.CLAIMED)
    # A non-autocommit connection whose step failed is rolled back (usable again).
    with psycopg.connect(url, options="-c search_path=nowhere") as broken:
        expect("pg failure (no autocommit)", text(lambda: claims.step(broken, "claim", "x", "r", 0)),
               "STORE_UNAVAILABLE")
        expect("pg failure rolled back", broken.info.transaction_status, psycopg.pq.TransactionStatus.IDLE)
        try:
            xp.purge(broken, 0)
            fail("pg purge without the table")
        except xborder.StoreError as e:
            expect("pg purge failure", e.code, "STORE_UNAVAILABLE")
    closed = psycopg.connect(url)
    closed.close()
    try:
        claims.step(closed, "claim", "x", "r1", 0)
        fail("pg closed connection: claimed")
    except xborder.StoreError as e:
        expect("pg closed connection", (e.code, isinstance(e.__cause__, psycopg.Error)),
               ("STORE_UNAVAILABLE", True))

    async def run() -> None:
        conn = await psycopg.AsyncConnection.connect(url, autocommit=True)
        try:
            await conn.execute("DELETE FROM xborder_claims")
            await xp.migrate_async(conn)
            aclaims = xp.AsyncPostgresClaims(lease_ms=10, window_ms=100)
            expect("apg claim", await aclaims.step(conn, "claim", "e", "r1", 0), ClaimOutcome.CLAIMED)
            expect("apg complete", await aclaims.step(conn, "complete", "e", "r1", 5), ClaimOutcome.COMPLETED)
            expect("apg purge at 104", await xp.purge_async(conn, 104), 0)
            expect("apg purge at 105", await xp.purge_async(conn, 105), 1)
            expect("apg reply", aclaims.reply("claim", ClaimOutcome.IN_PROGRESS),
                   xborder.ClaimReply(503, 1))
        finally:
            await conn.close()
        closed = await psycopg.AsyncConnection.connect(url)
        await closed.close()
        expect("apg closed connection", await atext(aclaims.step(closed, "claim", "x", "r", 0)),
               "STORE_UNAVAILABLE")

    asyncio.run(run())


def failures_sqlite(folder: str) -> None:
    conn = xs.connect(os.path.join(folder, "expiry.db"))
    claims = xs.SqliteClaims(lease_ms=10, window_ms=100)
    expiry(lambda *a: claims.step(conn, *a), lambda n: xs.purge(conn, n),
           lambda: int(conn.execute("SELECT count(*) FROM xborder_claims").fetchone()[0]), "sqlite")

    def sqlite_expires(id: str) -> Any:
        row = conn.execute("SELECT expires_at FROM xborder_claims WHERE id = ?", [id]).fetchone()
        return None if row is None else row[0]

    times_as_given(xs.SqliteClaims(lease_ms=500, window_ms=7_000), conn, sqlite_expires, "sqlite")
    expect("sqlite WAL", conn.execute("PRAGMA journal_mode").fetchone()[0], "wal")
    with conn:
        conn.execute("INSERT INTO xborder_claims (id, entry) VALUES ('foreign', 'not ours')")
    expect("sqlite foreign entry", text(lambda: claims.step(conn, "claim", "foreign", "r1", 0)),
           "STORE_UNAVAILABLE")
    conn.close()
    bare = sqlite3.connect(":memory:")
    try:
        claims.step(bare, "claim", "x", "r1", 0)
        fail("sqlite without the table: claimed")
    except xborder.StoreError as e:
        expect("sqlite without the table", (e.code, isinstance(e.__cause__, sqlite3.Error)),
               ("STORE_UNAVAILABLE", True))
    try:
        xs.purge(bare, 0)
        fail("sqlite purge without the table")
    except xborder.StoreError as e:
        expect("sqlite purge failure", e.code, "STORE_UNAVAILABLE")
    xs.migrate(bare)
    xs.migrate(bare)  # idempotent
    expect("sqlite migrated", claims.step(bare, "claim", "x", "r1", 0), ClaimOutcome.CLAIMED)
    # migrate inside the host's transaction joins it (no commit of the host's work).
    bare.execute("CREATE TABLE t (x)")
    bare.execute("INSERT INTO t VALUES (1)")
    xs.migrate(bare)
    expect("sqlite migrate kept the host's transaction open", bare.in_transaction, True)
    bare.rollback()
    expect("sqlite host's insert rolled back", bare.execute("SELECT count(*) FROM t").fetchone()[0], 0)
    bare.close()
    expect("sqlite closed connection", text(lambda: claims.step(bare, "claim", "x", "r1", 0)),
           "STORE_UNAVAILABLE")
    mem = xs.connect(":memory:")
    expect("sqlite :memory:", claims.step(mem, "claim", "x", "r1", 0), ClaimOutcome.CLAIMED)
    mem.close()


# --- wrong kinds -------------------------------------------------------------------------------------------

def wrong_kinds(url: str, folder: str) -> None:
    lite = xs.connect(":memory:")
    pg = psycopg.connect(url, autocommit=True)
    try:
        for cls, conn in ((xp.PostgresClaims, pg), (xs.SqliteClaims, lite)):
            n = cls.__name__
            wrong(n + "(lease_ms='1')", lambda: cls(lease_ms="1"), "lease_ms")  # type: ignore[arg-type]
            wrong(n + "(lease_ms=True)", lambda: cls(lease_ms=True), "lease_ms")
            wrong(n + "(lease_ms=-1)", lambda: cls(lease_ms=-1), "lease_ms")
            wrong(n + "(window_ms='1')", lambda: cls(window_ms="1"), "window_ms")  # type: ignore[arg-type]
            wrong(n + "(window_ms=1.5)", lambda: cls(window_ms=1.5), "window_ms")  # type: ignore[arg-type]
            c: Any = cls()
            other = lite if conn is pg else pg
            wrong(n + ".step(conn=other engine)", lambda: c.step(other, "claim", "e", "r", 0), "conn")
            wrong(n + ".step(conn=str)", lambda: c.step("postgres://", "claim", "e", "r", 0), "conn")
            wrong(n + ".step(step=b'claim')", lambda: c.step(conn, b"claim", "e", "r", 0), "step")
            wrong(n + ".step(step='finish')", lambda: c.step(conn, "finish", "e", "r", 0), "do",
                  (xborder.ClaimError,))
            wrong(n + ".step(id=1)", lambda: c.step(conn, "claim", 1, "r", 0), "id")
            wrong(n + ".step(id='')", lambda: c.step(conn, "claim", "", "r", 0), "id",
                  (xborder.ClaimError,))
            wrong(n + ".step(token=None)", lambda: c.step(conn, "claim", "e", None, 0), "token")
            wrong(n + ".step(at_ms='0')", lambda: c.step(conn, "claim", "e", "r", "0"), "at_ms")
            wrong(n + ".step(at_ms=-1)", lambda: c.step(conn, "claim", "e", "r", -1), "at_ms")
            wrong(n + ".step(at_ms=1.0)", lambda: c.step(conn, "claim", "e", "r", 1.0), "at_ms")
            wrong(n + ".complete_in(conn=None)", lambda: c.complete_in(None, "e", "r", 0), "conn")
            wrong(n + ".complete_in(conn=other)", lambda: c.complete_in(other, "e", "r", 0), "conn")
            wrong(n + ".reply(step=1)", lambda: c.reply(1, ClaimOutcome.CLAIMED), "step")
            wrong(n + ".reply(outcome='claimed')", lambda: c.reply("claim", "claimed"), "outcome")
        ac: Any = xp.AsyncPostgresClaims()
        wrong("AsyncPostgresClaims(lease_ms=None)", lambda: xp.AsyncPostgresClaims(lease_ms=None), "lease_ms")  # type: ignore[arg-type]
        wrong("AsyncPostgresClaims.step(sync conn)", lambda: ac.step(pg, "claim", "e", "r", 0), "conn")
        wrong("AsyncPostgresClaims.step(conn=None)", lambda: ac.step(None, "claim", "e", "r", 0), "conn")
        wrong("AsyncPostgresClaims.complete_in(sqlite)", lambda: ac.complete_in(lite, "e", "r", 0), "conn")
        aconn = asyncio.run(psycopg.AsyncConnection.connect(url))
        wrong("PostgresClaims.step(async conn)", lambda: xp.PostgresClaims().step(
            aconn, "claim", "e", "r", 0), "AsyncConnection")  # type: ignore[arg-type]
        asyncio.run(aconn.close())
        anyx: Any = xp
        wrong("postgres.migrate(sqlite)", lambda: anyx.migrate(lite), "conn")
        wrong("postgres.migrate_async(sync)", lambda: anyx.migrate_async(pg), "conn")
        wrong("postgres.purge(conn=None)", lambda: anyx.purge(None, 0), "conn")
        wrong("postgres.purge(now_ms='0')", lambda: anyx.purge(pg, "0"), "now_ms")
        wrong("postgres.purge(now_ms=-1)", lambda: anyx.purge(pg, -1), "now_ms")
        wrong("postgres.purge_async(sync)", lambda: anyx.purge_async(pg, 0), "conn")
        anys: Any = xs
        wrong("sqlite.migrate(pg)", lambda: anys.migrate(pg), "conn")
        wrong("sqlite.purge(conn='x.db')", lambda: anys.purge("x.db", 0), "conn")
        wrong("sqlite.purge(now_ms=None)", lambda: anys.purge(lite, None), "now_ms")
        wrong("sqlite.purge(now_ms=True)", lambda: anys.purge(lite, True), "now_ms")
        wrong("sqlite.connect(path=42)", lambda: anys.connect(42), "path")
        wrong("sqlite.connect(path=b'x.db')", lambda: anys.connect(b"x.db"), "path")
        wrong("sqlite.connect(check_same_thread=1)",
              lambda: anys.connect(os.path.join(folder, "k.db"), check_same_thread=1), "check_same_thread")
        p = xs.connect(pathlib.Path(folder) / "pathlike.db", check_same_thread=False)
        expect("sqlite.connect(PathLike)", isinstance(p, sqlite3.Connection), True)
        p.close()
    finally:
        pg.close()
        lite.close()


def without_psycopg() -> None:
    """``import xborder`` and ``xborder.postgres`` work without psycopg; its calls say what to
    install."""
    code = ("import sys; sys.modules['psycopg'] = None\n"
            "import xborder, xborder.postgres as xp, xborder.sqlite\n"
            "assert 'psycopg' not in [m for m in sys.modules if sys.modules[m] is not None]\n"
            "try:\n    xp.PostgresClaims().step(object(), 'claim', 'e', 'r', 0)\n"
            "except TypeError as e:\n    assert \"xborder[postgres]\" in str(e), e\n"
            "else:\n    raise SystemExit('accepted')\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    expect("without psycopg: %s" % r.stderr.strip()[-300:], r.returncode, 0)


def one_call_postgres(url: str) -> None:
    """handle_delivery over PostgresClaims.store(conn) (autocommit, and a connection the store
    commits itself) and handle_delivery_async over AsyncPostgresClaims.store(conn): processed,
    duplicate, held by another request (503, this lease), a failed persist released."""
    secret = "whsec_sql"

    def delivery(id: str) -> Tuple[bytes, str]:
        body = json.dumps({"id": id, "event": "order:created",
                           "entity": {"id": "o", "type": "order"}}).encode()
        return body, xborder.sign(secret, body)

    claims = xp.PostgresClaims(lease_ms=20_000)
    for autocommit in (True, False):
        with psycopg.connect(url, autocommit=autocommit) as conn:
            store = claims.store(conn)
            b, s = delivery("one_call_sync_%s" % autocommit)
            r = xborder.handle_delivery(secret, store, b, s, lambda e: None, clock=lambda: 1000)
            expect("one call sync %s" % autocommit, (r.status, str(r.outcome)), (200, "completed"))
            r = xborder.handle_delivery(secret, store, b, s, lambda e: None, clock=lambda: 2000)
            expect("one call sync %s: duplicate" % autocommit, (r.status, str(r.outcome)),
                   (200, "duplicate"))
            expect("one call sync %s: no transaction left open" % autocommit,
                   str(conn.info.transaction_status.name), "IDLE")
            b, s = delivery("one_call_held_%s" % autocommit)
            claims.step(conn, "claim", "one_call_held_%s" % autocommit, "other", 1000)
            r = xborder.handle_delivery(secret, store, b, s, lambda e: None, clock=lambda: 1001)
            expect("one call sync %s: held" % autocommit, (r.status, r.headers),
                   (503, {"Retry-After": "20"}))

    async def run() -> None:
        aclaims = xp.AsyncPostgresClaims(lease_ms=10_000)
        conn = await psycopg.AsyncConnection.connect(url, autocommit=True)
        try:
            store = aclaims.store(conn)
            b, s = delivery("one_call_async")
            saved: List[str] = []

            async def save(env: xborder.Envelope) -> None:
                saved.append(env.id)
            r = await xborder.handle_delivery_async(secret, store, b, s, save, clock=lambda: 5000)
            expect("one call async", (r.status, str(r.outcome), saved),
                   (200, "completed", ["one_call_async"]))
            r = await xborder.handle_delivery_async(secret, store, b, s, save, clock=lambda: 6000)
            expect("one call async: duplicate", (r.status, str(r.outcome)), (200, "duplicate"))

            async def broken(env: xborder.Envelope) -> None:
                raise OSError("disk full")
            b, s = delivery("one_call_async_fail")
            r = await xborder.handle_delivery_async(secret, store, b, s, broken, clock=lambda: 5000)
            expect("one call async: persist failed", (r.status, r.error_code, str(r.persist_error)),
                   (500, "PERSIST_FAILED", "disk full"))
            row = await (await conn.execute("SELECT count(*) FROM xborder_claims WHERE id = "
                                            "'one_call_async_fail'")).fetchone()
            expect("one call async: released", row and row[0], 0)
            b, s = delivery("one_call_async_held")
            await aclaims.step(conn, "claim", "one_call_async_held", "other", 5000)
            r = await xborder.handle_delivery_async(secret, store, b, s, save, clock=lambda: 5001)
            expect("one call async: held", (r.status, r.headers), (503, {"Retry-After": "10"}))
        finally:
            await conn.close()
    asyncio.run(run())


def _tx_delivery(secret: str, id: str) -> Tuple[bytes, str]:
    body = json.dumps({"id": id, "event": "order:created",
                       "entity": {"id": "o", "type": "order"}}).encode()
    return body, xborder.sign(secret, body)


def _clock(*times: int) -> Callable[[], int]:
    """A clock giving ``times`` one by one (the last for ever after)."""
    left = list(times)

    def now() -> int:
        return left.pop(0) if len(left) > 1 else left[0]
    return now


def in_transaction_postgres(url: str) -> None:
    """handle_delivery(..., transaction=store) over PostgresClaims.store(conn) (autocommit and
    not) and handle_delivery_async over AsyncPostgresClaims.store(conn): the event's row and
    the completion commit together; a commit that fails (a deferred unique constraint) is 500
    PERSIST_FAILED, neither the row nor the completion, the claim released, a retry takes it;
    a write that fails likewise; a complete that is stale inside the transaction (another
    request took the event over) commits nothing: rolled back, 503 with the lease."""
    secret = "whsec_tx"
    claims = xp.PostgresClaims(lease_ms=20_000)
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute("CREATE TABLE IF NOT EXISTS tx_events (id text PRIMARY KEY, n int, "
                      "CONSTRAINT tx_events_n UNIQUE (n) DEFERRABLE INITIALLY DEFERRED)")

        def rows(id: str) -> int:
            return int(admin.execute("SELECT count(*) FROM tx_events WHERE id = %s",
                                     (id,)).fetchone()[0])

        def claim_rows(id: str) -> int:
            return int(admin.execute("SELECT count(*) FROM xborder_claims WHERE id = %s",
                                     (id,)).fetchone()[0])

        for autocommit in (True, False):
            tag = "pg tx %s" % ("autocommit" if autocommit else "implicit")
            base = 1000 if autocommit else 2000
            with psycopg.connect(url, autocommit=autocommit) as conn:
                store = claims.store(conn)

                def insert(n: int) -> Callable[[xborder.Envelope], None]:
                    def persist(env: xborder.Envelope) -> None:
                        expect("%s: persist inside the transaction" % tag,
                               conn.info.transaction_status.name in ("INTRANS", "IDLE"), True)
                        conn.execute("INSERT INTO tx_events (id, n) VALUES (%s, %s)", (env.id, n))
                    return persist

                id = "tx_ok_%s" % autocommit
                b, s = _tx_delivery(secret, id)
                r = xborder.handle_delivery(secret, store, b, s, insert(base + 1),
                                            clock=lambda: 1000, transaction=store)
                expect("%s: ok" % tag, (r.status, str(r.outcome), r.persisted, rows(id)),
                       (200, "completed", True, 1))
                expect("%s: idle after" % tag, conn.info.transaction_status.name, "IDLE")
                r = xborder.handle_delivery(secret, store, b, s, insert(base + 99),
                                            clock=lambda: 2000, transaction=store)
                expect("%s: redelivery" % tag, (r.status, str(r.outcome), r.persisted),
                       (200, "duplicate", False))

                id = "tx_commit_fails_%s" % autocommit
                b, s = _tx_delivery(secret, id)
                r = xborder.handle_delivery(secret, store, b, s, insert(base + 1),
                                            clock=lambda: 1000, transaction=store)
                expect("%s: commit fails" % tag,
                       (r.status, r.error_code, str(r.outcome), r.persisted,
                        type(r.persist_error).__name__),
                       (500, "PERSIST_FAILED", "released", False, "UniqueViolation"))
                expect("%s: commit fails: no row, claim released, idle" % tag,
                       (rows(id), claim_rows(id), conn.info.transaction_status.name),
                       (0, 0, "IDLE"))
                r = xborder.handle_delivery(secret, store, b, s, insert(base + 2),
                                            clock=lambda: 1500, transaction=store)
                expect("%s: the retry takes it" % tag, (r.status, str(r.outcome), rows(id)),
                       (200, "completed", 1))

                id = "tx_write_fails_%s" % autocommit
                b, s = _tx_delivery(secret, id)

                def broken(env: xborder.Envelope) -> None:
                    conn.execute("INSERT INTO tx_events (id, n) VALUES (%s, 'not a number')",
                                 (env.id,))
                r = xborder.handle_delivery(secret, store, b, s, broken, clock=lambda: 1000,
                                            transaction=store)
                expect("%s: write fails" % tag,
                       (r.status, r.error_code, str(r.outcome), rows(id), claim_rows(id),
                        conn.info.transaction_status.name),
                       (500, "PERSIST_FAILED", "released", 0, 0, "IDLE"))

                id = "tx_stale_%s" % autocommit
                b, s = _tx_delivery(secret, id)
                with psycopg.connect(url, autocommit=True) as other:
                    def slow(env: xborder.Envelope) -> None:
                        # The lease ran out: another request takes the event over meanwhile.
                        expect("%s: takeover" % tag,
                               claims.step(other, "claim", env.id, "other", 1000 + 20_001),
                               ClaimOutcome.CLAIMED)
                        insert(base + 3)(env)
                    r = xborder.handle_delivery(secret, store, b, s, slow,
                                                clock=_clock(1000, 1000 + 20_002),
                                                transaction=store, token="first")
                expect("%s: stale inside the transaction" % tag,
                       (r.status, r.headers, str(r.outcome), r.persisted, rows(id),
                        conn.info.transaction_status.name),
                       (503, {"Retry-After": "20"}, "stale", False, 0, "IDLE"))
                counts["pg in transaction"] = counts.get("pg in transaction", 0) + 1

    async def run() -> None:
        aclaims = xp.AsyncPostgresClaims(lease_ms=10_000)
        conn = await psycopg.AsyncConnection.connect(url, autocommit=True)
        try:
            store = aclaims.store(conn)

            def insert(n: int) -> Callable[[xborder.Envelope], Any]:
                async def persist(env: xborder.Envelope) -> None:
                    await conn.execute("INSERT INTO tx_events (id, n) VALUES (%s, %s)",
                                       (env.id, n))
                return persist

            async def count(table: str, id: str) -> int:
                row = await (await conn.execute("SELECT count(*) FROM %s WHERE id = %%s" % table,
                                                (id,))).fetchone()
                return int(row[0]) if row else -1

            b, s = _tx_delivery(secret, "tx_async_ok")
            r = await xborder.handle_delivery_async(secret, store, b, s, insert(3001),
                                                    clock=lambda: 5000, transaction=store)
            expect("pg tx async: ok", (r.status, str(r.outcome), await count("tx_events", "tx_async_ok")),
                   (200, "completed", 1))
            b, s = _tx_delivery(secret, "tx_async_commit_fails")
            r = await xborder.handle_delivery_async(secret, store, b, s, insert(3001),
                                                    clock=lambda: 5000, transaction=store)
            expect("pg tx async: commit fails",
                   (r.status, r.error_code, str(r.outcome), type(r.persist_error).__name__,
                    await count("tx_events", "tx_async_commit_fails"),
                    await count("xborder_claims", "tx_async_commit_fails"),
                    conn.info.transaction_status.name),
                   (500, "PERSIST_FAILED", "released", "UniqueViolation", 0, 0, "IDLE"))
            r = await xborder.handle_delivery_async(secret, store, b, s, insert(3002),
                                                    clock=lambda: 5001, transaction=store)
            expect("pg tx async: the retry takes it", (r.status, str(r.outcome)),
                   (200, "completed"))
            counts["pg in transaction"] = counts.get("pg in transaction", 0) + 1
        finally:
            await conn.close()
    asyncio.run(run())


def in_transaction_sqlite(folder: str) -> None:
    """handle_delivery(..., transaction=store) over SqliteClaims.store(conn): the event's row
    and the completion commit together; a commit that fails (a deferred foreign key) is 500
    PERSIST_FAILED, rolled back, the claim released, a retry takes it."""
    secret = "whsec_tx"
    path = os.path.join(folder, "in_tx.db")
    conn, other = xs.connect(path), xs.connect(path)
    try:
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("CREATE TABLE parents (id TEXT PRIMARY KEY)")
        conn.execute("CREATE TABLE tx_events (id TEXT PRIMARY KEY, parent TEXT REFERENCES "
                     "parents (id) DEFERRABLE INITIALLY DEFERRED)")
        conn.execute("INSERT INTO parents (id) VALUES ('p')")
        conn.commit()
        store = xs.SqliteClaims(lease_ms=20_000).store(conn)

        def insert(parent: str) -> Callable[[xborder.Envelope], None]:
            def persist(env: xborder.Envelope) -> None:
                expect("sqlite tx: persist inside the transaction", conn.in_transaction, True)
                conn.execute("INSERT INTO tx_events (id, parent) VALUES (?, ?)", (env.id, parent))
            return persist

        def rows(table: str, id: str) -> int:
            return int(other.execute("SELECT count(*) FROM %s WHERE id = ?" % table,
                                     (id,)).fetchone()[0])

        b, s = _tx_delivery(secret, "sq_ok")
        r = xborder.handle_delivery(secret, store, b, s, insert("p"), clock=lambda: 1000,
                                    transaction=store)
        expect("sqlite tx: ok", (r.status, str(r.outcome), rows("tx_events", "sq_ok"),
                                 conn.in_transaction), (200, "completed", 1, False))
        r = xborder.handle_delivery(secret, store, b, s, insert("p"), clock=lambda: 2000,
                                    transaction=store)
        expect("sqlite tx: redelivery", (r.status, str(r.outcome)), (200, "duplicate"))
        b, s = _tx_delivery(secret, "sq_commit_fails")
        r = xborder.handle_delivery(secret, store, b, s, insert("missing"), clock=lambda: 1000,
                                    transaction=store)
        expect("sqlite tx: commit fails",
               (r.status, r.error_code, str(r.outcome), type(r.persist_error).__name__,
                rows("tx_events", "sq_commit_fails"), rows("xborder_claims", "sq_commit_fails"),
                conn.in_transaction),
               (500, "PERSIST_FAILED", "released", "IntegrityError", 0, 0, False))
        r = xborder.handle_delivery(secret, store, b, s, insert("p"), clock=lambda: 1001,
                                    transaction=store)
        expect("sqlite tx: the retry takes it", (r.status, str(r.outcome)), (200, "completed"))
        counts["sqlite in transaction"] = counts.get("sqlite in transaction", 0) + 1
    finally:
        conn.close()
        other.close()


def main() -> int:
    vectors = cases()
    if not vectors:
        fail("no delivery.claims vector found")
    same_as_rust()
    without_psycopg()
    folder = tempfile.mkdtemp(prefix="xb-python-sqlite-")
    try:
        vectors_sqlite(folder, vectors)
        concurrency_sqlite(folder)
        transactions_sqlite(folder)
        failures_sqlite(folder)
        in_transaction_sqlite(folder)
    finally:
        import shutil
        shutil.rmtree(folder, ignore_errors=True)
    server = pg_server.start()
    folder = tempfile.mkdtemp(prefix="xb-python-sql-")
    try:
        with psycopg.connect(server.url, autocommit=True) as conn:
            xp.migrate(conn)
            xp.migrate(conn)  # idempotent
        vectors_postgres(server.url, vectors)
        concurrency_postgres(server.url)
        concurrent_migrations(server.url)
        transactions_postgres(server.url)
        failures_postgres(server.url)
        one_call_postgres(server.url)
        in_transaction_postgres(server.url)
        wrong_kinds(server.url, folder)
    finally:
        server.stop()
        import shutil
        shutil.rmtree(folder, ignore_errors=True)
    print("sql: %d delivery.claims vectors; %s; %d failed"
          % (len(vectors), ", ".join("%s %d" % kv for kv in sorted(counts.items())), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
