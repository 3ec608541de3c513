"""xborder.catch_up and xborder.api, against the simulator's GET /v1/external-events
(`xborder-simulator api`, its path in XBORDER_SIMULATOR): the one call, sync and asyncio, finds
what a delivery lost, makes what the webhook path handled a duplicate, holds the checkpoint at a
failed persist, waits and gives up as core says; the walk and the reading of error answers
through the public API, with wrong kinds refused.

Run by tests/run.sh (`bash bindings-uniffi/test.sh python`) against the installed wheel."""

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from typing import Any, Dict, List, Optional, Tuple

import xborder as x
from xborder.catch_up import PATH

SECRET = "whsec_catch_up_test"


def record(n: int, minute: int, name: str = "order:created") -> Dict[str, Any]:
    return {"id": "evt_%d" % n, "name": name, "aggregateType": name.split(":")[0],
            "aggregateId": "ord_%d" % n, "merchantId": "m_1", "payload": {"id": "ord_%d" % n},
            "createdAt": "2026-11-27T12:%02d:00.000Z" % minute}


class Simulator:
    """`xborder-simulator api --events FILE --addr-file ADDRFILE`, started and stopped here."""

    def __init__(self, records: List[Dict[str, Any]]) -> None:
        self.dir = tempfile.mkdtemp()
        self.events = os.path.join(self.dir, "events.jsonl")
        self.write(records)
        addr_file = os.path.join(self.dir, "addr")
        self.proc = subprocess.Popen([os.environ["XBORDER_SIMULATOR"], "api", "--events",
                                      self.events, "--addr-file", addr_file],
                                     stdout=subprocess.DEVNULL)
        for _ in range(200):
            if os.path.exists(addr_file) and open(addr_file).read().strip():
                break
            time.sleep(0.05)
        self.base = "http://" + open(addr_file).read().strip()
        self.paths: List[str] = []

    def write(self, records: List[Dict[str, Any]]) -> None:
        with open(self.events, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in records)

    def get(self, path: str) -> Tuple[int, Dict[str, str], str]:
        """The host's HTTP GET, as a user writes it with urllib."""
        self.paths.append(path)
        try:
            with urllib.request.urlopen(self.base + path) as r:
                return r.status, dict(r.headers.items()), r.read().decode("utf-8")
        except urllib.error.HTTPError as e:
            return e.code, dict(e.headers.items()), e.read().decode("utf-8")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait()


def signed_delivery(r: Dict[str, Any]) -> Tuple[bytes, Dict[str, str]]:
    """The webhook body the provider sends for record r (the same id), and its headers."""
    body = json.dumps({"id": r["id"], "event": r["name"],
                       "entity": {"id": r["aggregateId"], "type": r["aggregateType"],
                                  "data": r["payload"]}}).encode()
    return body, {x.SIGNATURE_HEADER: x.sign(SECRET, body)}


RECORDS = [record(1, 1), record(2, 2), record(3, 3), record(4, 4), record(5, 5)]


def test_one_call_recovers_what_the_webhook_path_lost(sim: Simulator) -> None:
    receiver = x.Receiver(SECRET, window=0)
    claims = x.Claims()
    persisted: List[str] = []
    # evt_2 came as a webhook: handled by handle_delivery.
    body, headers = signed_delivery(RECORDS[1])
    reply = x.handle_delivery(receiver, claims, body, headers, lambda e: persisted.append(e.id))
    assert (reply.status, reply.persisted) == (200, True), reply
    result = x.catch_up(sim.get, receiver, claims, lambda e: persisted.append(e.id),
                        page_size=2)
    assert sim.paths[0] == PATH + "page=0&pageSize=2&sortBy=createdAt&sortOrder=DESC", sim.paths
    assert len(sim.paths) == 3, sim.paths  # 5 records, 2 a page
    assert (result.found, result.processed, result.skipped, result.rejected, result.failed) == \
        (5, 4, 1, 0, 0), result
    assert persisted == ["evt_2", "evt_1", "evt_3", "evt_4", "evt_5"], persisted  # oldest first
    assert result.checkpoint == "2026-11-27T12:05:00.000Z", result
    assert result.drifts == [] and result.persist_errors == []
    # Again from the checkpoint: the overlap (5 minutes) finds them again, all duplicates now.
    again = x.catch_up(sim.get, receiver, claims, lambda e: persisted.append(e.id),
                       since=result.checkpoint)
    assert (again.found, again.processed, again.skipped) == (5, 0, 5), again
    assert again.checkpoint == result.checkpoint
    # A new event while down, with no overlap: only it is found.
    sim.write(RECORDS + [record(6, 7)])
    later = x.catch_up(sim.get, receiver, claims, lambda e: persisted.append(e.id),
                       since=result.checkpoint,
                       overlap_ms=0)
    assert (later.found, later.processed, later.checkpoint) == \
        (2, 1, "2026-11-27T12:07:00.000Z"), later  # evt_5 (at the checkpoint) and evt_6
    sim.write(RECORDS)


def test_a_failing_persist_holds_the_checkpoint(sim: Simulator) -> None:
    receiver = x.Receiver(SECRET, window=0)
    claims = x.Claims()
    boom = RuntimeError("database down")

    def persist(e: x.Envelope) -> None:
        if e.id == "evt_3":
            raise boom

    result = x.catch_up(sim.get, receiver, claims, persist, since="2026-11-27T11:00:00Z")
    assert (result.found, result.processed, result.failed) == (5, 4, 1), result
    assert result.checkpoint == "2026-11-27T12:02:00.000Z", result  # before evt_3
    assert result.persist_errors == [boom]
    # The next run tries evt_3 again; the others are duplicates; then the checkpoint moves.
    retry = x.catch_up(sim.get, receiver, claims, lambda e: None, since=result.checkpoint)
    assert (retry.processed, retry.skipped, retry.failed) == (1, 4, 0), retry
    assert retry.checkpoint == "2026-11-27T12:05:00.000Z"


class DictStore:
    """A sync claims store as a host writes one."""

    def __init__(self) -> None:
        self.map: Dict[str, str] = {}

    def load(self, id: str, time: x.StoreTime) -> Optional[str]:
        return self.map.get(id)

    def compare_and_set(self, id: str, expected: Optional[str], new: Optional[str],
                        time: x.StoreTime) -> bool:
        if self.map.get(id) != expected:
            return False
        if new is None:
            self.map.pop(id, None)
        else:
            self.map[id] = new
        return True


class AsyncDictStore(DictStore):
    async def load(self, id: str, time: x.StoreTime) -> Optional[str]:  # type: ignore[override]
        return DictStore.load(self, id, time)

    async def compare_and_set(self, id: str, expected: Optional[str],  # type: ignore[override]
                              new: Optional[str], time: x.StoreTime) -> bool:
        return DictStore.compare_and_set(self, id, expected, new, time)


def test_a_store_of_the_hosts_sync_and_async(sim: Simulator) -> None:
    receiver = x.Receiver(SECRET, window=0)
    store = DictStore()
    body, headers = signed_delivery(RECORDS[0])
    assert x.handle_delivery(receiver, store, body, headers, lambda e: None).persisted
    result = x.catch_up(sim.get, receiver, store, lambda e: None)
    assert (result.processed, result.skipped) == (4, 1), result

    astore = AsyncDictStore()
    persisted: List[str] = []

    async def get(path: str) -> Tuple[int, Dict[str, str], str]:
        return await asyncio.to_thread(sim.get, path)

    async def persist(e: x.Envelope) -> None:
        await asyncio.sleep(0)
        persisted.append(e.id)

    async def run() -> x.CatchUpResult:
        first = await x.handle_delivery_async(receiver, astore, body, headers, persist)
        assert first.persisted
        return await x.catch_up_async(get, receiver, astore, persist, page_size=3)

    result = asyncio.run(run())
    assert (result.found, result.processed, result.skipped) == (5, 4, 1), result
    assert persisted == ["evt_1", "evt_2", "evt_3", "evt_4", "evt_5"], persisted
    assert result.checkpoint == "2026-11-27T12:05:00.000Z"


def test_waits_and_gives_up_as_core_says(sim: Simulator) -> None:
    receiver = x.Receiver(SECRET, window=0)
    answers = [(503, {"Retry-After": "2"}, ""), (429, {}, '{"error": {"CODE": "TOO_MANY_REQUESTS",'
                                                         ' "DETAILS": {"retryAfterMs": 1500}}}')]
    slept: List[int] = []

    def flaky(path: str) -> Tuple[int, Dict[str, str], str]:
        return answers.pop(0) if answers else sim.get(path)

    result = x.catch_up(flaky, receiver, x.Claims(), lambda e: None, sleep=slept.append)
    assert slept == [2000, 1500], slept
    assert result.processed == 5

    # Always 503: four waits (the default 1 s), then API_ERROR with the API's answer.
    slept.clear()
    try:
        x.catch_up(lambda p: (503, [("retry-after", "x")], "<html/>"), receiver, x.Claims(),
                   lambda e: None, sleep=slept.append)
        raise AssertionError("no ApiError")
    except x.ApiError as e:
        assert (e.code, e.status, e.retry, e.after_ms) == ("API_ERROR", 503, x.Retry.AFTER, None)
        assert isinstance(e, x.XborderError)
    assert slept == [1000] * 4, slept
    # A refusal is not retried.
    try:
        x.catch_up(lambda p: (401, {}, '{"error": {"CODE": "UNAUTHORIZED", "MESSAGE": "bad key"},'
                              ' "requestId": "req_7"}'), receiver, x.Claims(), lambda e: None,
                   sleep=slept.append)
        raise AssertionError("no ApiError")
    except x.ApiError as e:
        assert (e.status, e.api_code, e.message, e.request_id, e.retry) == \
            (401, "UNAUTHORIZED", "bad key", "req_7", x.Retry.NO), e.answer
        assert str(e) == "API_ERROR: the API answered 401 UNAUTHORIZED: bad key (request req_7)"
    # A page that is not a list: MALFORMED_RESPONSE.
    try:
        x.catch_up(lambda p: (200, {}, '{"error": "x"}'), receiver, x.Claims(), lambda e: None)
        raise AssertionError("no PaginationError")
    except x.PaginationError as e:
        assert e.code == "MALFORMED_RESPONSE"


def test_the_walk_and_recovery_act_by_act(sim: Simulator) -> None:
    walk = x.CatchUp(page_size=5)
    query = walk.next_query()
    assert query is not None
    status, headers, text = sim.get(PATH + query)
    assert walk.answered(status, headers, text) == x.FetchedPage([])
    assert walk.is_done() and walk.next_query() is None
    assert [e.id for e in walk.events()] == ["evt_1", "evt_2", "evt_3", "evt_4", "evt_5"]
    assert walk.events()[0].data == {"id": "ord_1"}
    recovery = walk.recover()
    receiver, claims = x.Receiver(SECRET, window=0), x.Claims()
    h = recovery.handling(receiver, claims, "t-0")
    assert h is not None and recovery.next_event() == walk.events()[0]
    assert not recovery.handled(h), "not over"
    act = h.next()
    while not isinstance(act, x.HandlingAnswer):
        if isinstance(act, x.HandlingStep):
            act = h.step(1_000)
        elif isinstance(act, x.HandlingPersist):
            assert act.envelope.id == "evt_1" and act.envelope.data == {"id": "ord_1"}
            act = h.persisted(True)
    assert recovery.handled(h) and not recovery.handled(h)
    assert recovery.tally() == x.Tally(1, 0, 0, 0)
    assert recovery.next_event() is not None and recovery.next_event().id == "evt_2"  # type: ignore[union-attr]
    assert recovery.checkpoint() == "2026-11-27T12:01:00.000Z"  # up to the last one handled


def test_kinds_and_core_errors() -> None:
    cases: List[Tuple[Dict[str, Any], type, str]] = [
        ({"overlap_ms": -1}, x.CatchUpError, "INVALID_OVERLAP"),
        ({"overlap_ms": 1 << 80}, x.CatchUpError, "INVALID_OVERLAP"),
        ({"page_size": -5}, x.PaginationError, "INVALID_PAGE_SIZE"),
        ({"page_size": 0}, x.PaginationError, "INVALID_PAGE_SIZE"),
        ({"since": "27/11/2026"}, x.CatchUpError, "INVALID_SINCE")]
    for kwargs, cls, code in cases:
        try:
            x.CatchUp(**kwargs)
            raise AssertionError("%r accepted" % kwargs)
        except x.XborderError as e:
            assert isinstance(e, cls) and e.code == code, (kwargs, e)
    bads: List[Dict[str, Any]] = [{"overlap_ms": True}, {"page_size": 1.0}, {"since": 5}]
    for bad in bads:
        try:
            x.CatchUp(**bad)
            raise AssertionError("%r accepted" % bad)
        except TypeError:
            pass
    info = x.read_api_error("GET", 429, [("RETRY-AFTER", "3")], b'{"requestId": 41}')
    assert (info.retry, str(info.retry), info.after_ms, info.request_id) == \
        (x.Retry.AFTER, "after", 3000, 41)
    info = x.read_api_error("post", 503, {"Retry-After": "3"}, {"error": "busy"})
    assert (info.retry, info.after_ms, info.message) == (x.Retry.CHECK_FIRST, None, "busy")
    assert x.read_api_error("GET", 500, None, b"\xff").code is None
    for args in [("GET", 70000), ("GET", True), (5, 400)]:
        try:
            x.read_api_error(*args)  # type: ignore[arg-type]
            raise AssertionError("%r accepted" % (args,))
        except (TypeError, ValueError):
            pass
    for headers in ["Retry-After: 3", [("a",)], {"a": 1}]:
        try:
            x.read_api_error("GET", 429, headers)  # type: ignore[arg-type]
            raise AssertionError("%r accepted" % (headers,))
        except TypeError:
            pass
    try:
        x.catch_up("http://api", x.Receiver(SECRET), x.Claims(), lambda e: None)  # type: ignore[arg-type]
        raise AssertionError("a str get accepted")
    except TypeError:
        pass
    try:
        x.catch_up(lambda p: (200, {}, "{}"), x.Receiver(SECRET),
                   x.AsyncClaims(AsyncDictStore()), lambda e: None)  # type: ignore[arg-type]
        raise AssertionError("an AsyncClaims accepted by the sync call")
    except TypeError:
        pass


def main() -> None:
    if "XBORDER_SIMULATOR" not in os.environ:
        sys.exit("test_catch_up.py: set XBORDER_SIMULATOR (target/debug/xborder-simulator)")
    test_kinds_and_core_errors()
    sim = Simulator(RECORDS)
    try:
        for t in [test_one_call_recovers_what_the_webhook_path_lost,
                  test_a_failing_persist_holds_the_checkpoint,
                  test_a_store_of_the_hosts_sync_and_async,
                  test_waits_and_gives_up_as_core_says,
                  test_the_walk_and_recovery_act_by_act]:
            sim.paths.clear()
            t(sim)
            print("ok", t.__name__)
    finally:
        sim.stop()
    print("test_catch_up.py: all passed")


if __name__ == "__main__":
    main()
