"""The Python receiver with ``--postgres URL`` (a real PostgreSQL, started here with
tests/servers/postgres.sh and stopped at the end, also on failure) and ``--sqlite PATH``: two
instances sharing the store, signed deliveries processed once (the event's row in
``xborder_events`` and the claim done, written in one transaction), a redelivery answered
``duplicate`` by either instance, a tampered one 400, an unknown name ignored; a transaction that
fails (PostgreSQL: a deferred constraint failing the commit: 500, the claim released; SQLite:
the completion refused inside the transaction: 503 STORE_UNAVAILABLE, the claim left to its
lease) leaves neither the row nor the completion, and the retry processes the event once; PostgreSQL stopped: 503 ``STORE_UNAVAILABLE`` with
Retry-After; ``--catch-up`` on SQLite against the simulator's GET /v1/external-events (events
dead-lettered recovered once each, one delivered before a duplicate, the checkpoint kept). Run by
examples/receiver-python/test.sh."""

import json
import os
import pathlib
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

import psycopg

import xborder

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SERVER_SH = ROOT / "tests" / "servers" / "postgres.sh"
SECRET = "whsec_sql_test"
failures = []
checks = 0


def fail(why):
    failures.append(why)
    print(f"FAIL {why}")


def expect(what, got, want):
    global checks
    checks += 1
    if got != want:
        fail(f"{what}: got {got!r}, want {want!r}")


def body(id, event="order:created"):
    return json.dumps({"id": id, "event": event,
                       "entity": {"id": "ord_" + id, "type": event.split(":")[0], "data": {"n": 1}}},
                      separators=(",", ":")).encode()


def post(addr, data, signature=None):
    sig = xborder.sign(SECRET, data) if signature is None else signature
    req = urllib.request.Request(f"http://{addr}/webhooks", data=data,
                                 headers={"X-Webhook-Signature": sig})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read()), r.headers.get("Retry-After")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read()), e.headers.get("Retry-After")


def start_receiver(store_args, persist, instance):
    p = subprocess.Popen([sys.executable, str(HERE / "server.py"), "--listen", "127.0.0.1:0",
                          "--secret", SECRET, *store_args, "--persist", persist,
                          "--instance", instance, "--lease-ms", "2000"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    addr = p.stdout.readline().strip()
    if not addr:
        p.kill()
        raise RuntimeError(f"{instance} did not start: {p.stderr.read()}")
    return p, addr


def stop(p):
    p.terminate()
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def lines(path):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def scenario(name, store_args, query, refuse, allow, work, complete_refused=False):
    """Two instances on one store; query(sql) -> rows; refuse()/allow() make the next
    processing of evt_fail fail (its commit; with ``complete_refused``, the complete step's
    statement inside the transaction), then let it pass."""
    p1 = p2 = None
    f1, f2 = os.path.join(work, f"{name}-1.jsonl"), os.path.join(work, f"{name}-2.jsonl")
    try:
        p1, a1 = start_receiver(store_args, f1, f"{name}-rx1")
        p2, a2 = start_receiver(store_args, f2, f"{name}-rx2")
        for id in ("evt_a", "evt_b", "evt_c"):
            expect(f"{name} {id}", post(a1, body(id))[:2], (200, {"result": "processed"}))
        expect(f"{name} redelivery to rx1", post(a1, body("evt_a"))[:2], (200, {"result": "duplicate"}))
        expect(f"{name} redelivery to rx2", post(a2, body("evt_b"))[:2], (200, {"result": "duplicate"}))
        expect(f"{name} rx2 new event", post(a2, body("evt_d"))[:2], (200, {"result": "processed"}))
        expect(f"{name} tampered", post(a1, body("evt_e"), xborder.sign(SECRET, b"other"))[:2],
               (400, {"error": "SIGNATURE_MISMATCH", "field": None}))
        expect(f"{name} unknown name ignored", post(a2, body("evt_u", "order:teleported"))[0], 200)

        refuse()
        status, answer, _ = post(a1, body("evt_fail"))
        expect(f"{name} failed transaction: no event row",
               query("SELECT count(*) FROM xborder_events WHERE id = 'evt_fail'"), [(0,)])
        if complete_refused:
            # Core: a complete that fails inside the transaction commits nothing (rolled
            # back) and is answered with its error's reply; the claim is left to its lease.
            expect(f"{name} complete refused answer", (status, answer), (503, {"error": "STORE_UNAVAILABLE"}))
            expect(f"{name} complete refused: the claim held until its lease",
                   query("SELECT count(*) FROM xborder_claims WHERE id = 'evt_fail'"), [(1,)])
            time.sleep(2.2)  # the lease (--lease-ms 2000)
        else:
            expect(f"{name} failed transaction answer", (status >= 500, answer), (True, {"error": "PERSIST_FAILED"}))
            expect(f"{name} failed transaction: claim released (no live row)",
                   query("SELECT count(*) FROM xborder_claims WHERE id = 'evt_fail'"), [(0,)])
        allow()
        expect(f"{name} the retry processes it", post(a2, body("evt_fail"))[:2], (200, {"result": "processed"}))
        expect(f"{name} then a duplicate", post(a1, body("evt_fail"))[:2], (200, {"result": "duplicate"}))

        rows = query("SELECT id, instance FROM xborder_events ORDER BY id")
        expect(f"{name} event rows (one per event)", rows,
               [("evt_a", f"{name}-rx1"), ("evt_b", f"{name}-rx1"), ("evt_c", f"{name}-rx1"),
                ("evt_d", f"{name}-rx2"), ("evt_fail", f"{name}-rx2")])
        done = query("SELECT id FROM xborder_claims WHERE entry LIKE 'd:%' ORDER BY id")
        expect(f"{name} done claims", done,
               [("evt_a",), ("evt_b",), ("evt_c",), ("evt_d",), ("evt_fail",)])
        expect(f"{name} rx1 lines", [l["id"] for l in lines(f1)], ["evt_a", "evt_b", "evt_c"])
        expect(f"{name} rx2 lines", [l["id"] for l in lines(f2)], ["evt_d", "evt_fail"])
        line = (lines(f1) or [{}])[0]
        expect(f"{name} line fields", sorted(line),
               ["at_ms", "claimed_at_ms", "clock_offset_ms", "event", "id", "instance", "lease_ms",
                "token"])
        with urllib.request.urlopen(f"http://{a1}/stats", timeout=10) as r:
            stats = json.loads(r.read())
        expect(f"{name} rx1 stats", (stats["processed"], stats["duplicate"], stats["persist_failed"],
                                     stats["store_errors"], stats["rejected"]),
               (3, 2, 0, 1, 1) if complete_refused else (3, 2, 1, 0, 1))
        return a1
    finally:
        for p in (p1, p2):
            if p is not None:
                stop(p)


def catch_up_scenario(work):
    """--sqlite --catch-up against the simulator's GET /v1/external-events (issue 34): five
    events the provider dead-lettered, one delivered before (a duplicate to the catch-up):
    every event one row, the checkpoint the newest event's time. No timing is asserted: the
    test waits for the receiver's own count of catch-ups."""
    db = os.path.join(work, "catch-up.db")
    records = os.path.join(work, "external-events.jsonl")
    at = "2026-11-27T12:0{}:00.000Z".format
    with open(records, "w", encoding="utf-8") as f:
        for n in range(5):
            f.write(json.dumps({"id": f"evt_cu_{n}", "name": "order:created",
                                "aggregateType": "order", "aggregateId": f"ord_{n}",
                                "merchantId": "m_1", "payload": {"id": f"ord_{n}", "amount": 10.5},
                                "createdAt": at(n)}) + "\n")
    addr_file = os.path.join(work, "api.addr")
    api = subprocess.Popen([str(ROOT / "target" / "debug" / "xborder-simulator"), "api",
                            "--events", records, "--addr-file", addr_file],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        first, addr = start_receiver(["--sqlite", db], os.path.join(work, "cu1.jsonl"), "cu1")
        try:
            expect("catch-up: delivered before", post(addr, body("evt_cu_1"))[:2],
                   (200, {"result": "processed"}))
        finally:
            stop(first)
        for _ in range(600):  # the simulator's start, not a timing
            if os.path.exists(addr_file) and open(addr_file, encoding="utf-8").read():
                break
            time.sleep(0.05)
        api_addr = open(addr_file, encoding="utf-8").read().strip()
        checkpoint = os.path.join(work, "checkpoint")
        back, addr = start_receiver(["--sqlite", db, "--catch-up", f"http://{api_addr}",
                                     "--catch-up-every-ms", "100", "--checkpoint", checkpoint],
                                    os.path.join(work, "cu2.jsonl"), "cu2")
        try:
            stats = {}
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                with urllib.request.urlopen(f"http://{addr}/stats", timeout=10) as r:
                    stats = json.loads(r.read())
                if stats["catch_ups"] >= 2 or stats["catch_ups_failed"]:
                    break
                time.sleep(0.05)
            expect("catch-up: two catch-ups, none failed, none unhandled",
                   (stats.get("catch_ups", 0) >= 2, stats.get("catch_ups_failed"),
                    stats.get("catch_up_unhandled")), (True, 0, 0))
            expect("catch-up: recovered", stats.get("recovered"), 4)
            with open(checkpoint, encoding="utf-8") as f:
                expect("catch-up: checkpoint", f.read(), at(4))
            c = sqlite3.connect(db, timeout=5)
            try:
                ids = [r[0] for r in c.execute("SELECT id FROM xborder_events ORDER BY id")]
            finally:
                c.close()
            expect("catch-up: one row each", ids, [f"evt_cu_{n}" for n in range(5)])
        finally:
            stop(back)
    finally:
        api.kill()
        api.wait()


def main():
    work = tempfile.mkdtemp(prefix="xb-rxpy-sql-")
    pg_dir = tempfile.mkdtemp(prefix="xb-rxpy-pg-", dir="/tmp")
    os.chmod(pg_dir, 0o755)
    try:
        # SQLite: the completion of evt_fail refused inside the transaction (a trigger).
        path = os.path.join(work, "claims.db")

        def squery(sql):
            c = sqlite3.connect(path, timeout=5)
            try:
                return c.execute(sql).fetchall()
            finally:
                c.close()

        def sexec(sql):
            c = sqlite3.connect(path, timeout=5)
            try:
                with c:
                    c.execute(sql)
            finally:
                c.close()

        scenario("sqlite", ["--sqlite", path], squery,
                 lambda: sexec("CREATE TRIGGER refuse BEFORE UPDATE ON xborder_claims "
                               "WHEN NEW.id = 'evt_fail' AND NEW.entry LIKE 'd:%' "
                               "BEGIN SELECT RAISE(ABORT, 'refused by the test'); END"),
                 lambda: sexec("DROP TRIGGER refuse"), work, complete_refused=True)

        catch_up_scenario(work)

        r = subprocess.run(["bash", str(SERVER_SH), "start", pg_dir], capture_output=True, text=True,
                           env=dict(os.environ, XBORDER_PG_OWNER=str(os.getpid())), timeout=120)
        if r.returncode != 0:
            raise RuntimeError(f"postgres did not start: {r.stderr}")
        url = r.stdout.strip().splitlines()[-1]

        def pquery(sql):
            with psycopg.connect(url, autocommit=True) as c:
                return [tuple(row) for row in c.execute(sql).fetchall()]

        def pexec(sql):
            with psycopg.connect(url, autocommit=True) as c:
                c.execute(sql)

        # PostgreSQL: the commit fails after complete_in (a deferred constraint trigger).
        refuse = """
            CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS
              $$ BEGIN RAISE EXCEPTION 'refused by the test at commit'; END $$;
            CREATE CONSTRAINT TRIGGER refuse AFTER INSERT ON xborder_events
              DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.id = 'evt_fail')
              EXECUTE FUNCTION refuse();"""
        allow = "DROP TRIGGER refuse ON xborder_events; DROP FUNCTION refuse();"
        scenario("postgres", ["--postgres", url, "--pool", "4"], pquery,
                 lambda: pexec(refuse), lambda: pexec(allow), work)

        # PostgreSQL stopped: the claim cannot be taken, 503 with Retry-After (core's reply).
        p, addr = start_receiver(["--postgres", url], os.path.join(work, "down.jsonl"), "down")
        try:
            expect("postgres up", post(addr, body("evt_up"))[:2], (200, {"result": "processed"}))
            subprocess.run(["bash", str(SERVER_SH), "stop", pg_dir], capture_output=True, timeout=60)
            status, answer, retry = post(addr, body("evt_down"))
            expect("postgres down", (status, answer, retry is not None),
                   (503, {"error": "STORE_UNAVAILABLE"}, True))
        finally:
            stop(p)
    finally:
        subprocess.run(["bash", str(SERVER_SH), "stop", pg_dir], capture_output=True, timeout=60)
        shutil.rmtree(pg_dir, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)
    print(f"receiver-python sql: postgres and sqlite, two instances each: {checks} checks, "
          f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
