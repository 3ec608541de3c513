"""xborder.redis against a real redis-server (started here, stopped at the end): every
``delivery.claims`` vector of tests/vectors through the sync store (``Claims.with_store(
RedisClaimStore(...))``) and the asyncio one (``AsyncClaims(AsyncRedisClaimStore(...))``), with
redis-py's own answers (bytes, and str with decode_responses=True); one winner among concurrent
claimers (threads, and asyncio tasks on separate connections); finished ids expire (the default
window); a foreign entry and a stopped server are STORE_UNAVAILABLE; wrong kinds."""

import asyncio
import json
import os
import pathlib
import sys
import threading
from typing import Any, Callable, List, Optional

import redis
import redis.asyncio

import xborder
from xborder import StoreTime
from xborder.redis import COMPARE_AND_SET, AsyncRedisClaimStore, RedisClaimStore

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import redis_server  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[3]
failures: List[str] = []

# The vectors step at their own times while Redis's clock runs on: a zero lease gives a claim a
# 1 ms TTL, which a slow machine outlives between two steps. Redis keeps each entry this much
# past core's TTL in the vector runs; core still reads an entry past its TTL as none at the
# step's time, so no answer changes.
TTL_MARGIN_MS = 600_000


def _margin(time: StoreTime) -> StoreTime:
    if time.ttl_ms is None:
        return time
    ttl = time.ttl_ms + TTL_MARGIN_MS
    return StoreTime(time.now_ms, ttl, time.now_ms + ttl)


class VectorRedisClaimStore(RedisClaimStore):
    def compare_and_set(self, id: str, expected: Optional[str], new: Optional[str],
                        time: StoreTime) -> bool:
        return super().compare_and_set(id, expected, new, _margin(time))


class AsyncVectorRedisClaimStore(AsyncRedisClaimStore):
    async def compare_and_set(self, id: str, expected: Optional[str], new: Optional[str],
                              time: StoreTime) -> bool:
        return await super().compare_and_set(id, expected, new, _margin(time))


def fail(why: str) -> None:
    failures.append(why)
    print("FAIL " + why)


def cases() -> List[Any]:
    out = []
    for f in sorted((ROOT / "tests" / "vectors").glob("*.json")):
        for m, case in enumerate(json.loads(f.read_text())["cases"]):
            if case["op"] == "delivery.claims":
                out.append(("%s:%d" % (f.name, m), case))
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


def main() -> int:
    lua = (ROOT / "core" / "src" / "claims" / "redis_compare_and_set.lua").read_text(encoding="utf-8")
    if COMPARE_AND_SET != lua:
        fail("the wheel's redis_compare_and_set.lua differs from core/src/claims/redis_compare_and_set.lua")
    server, port = redis_server.start()
    try:
        vectors = cases()
        if not vectors:
            fail("no delivery.claims vector found")
        for decode in (False, True):
            client = redis.Redis(port=port, decode_responses=decode)
            for key, case in vectors:
                inp = case["input"]
                window = inp.get("windowMs", 2**64 - 1)  # FORMAT.md's absent window: the longest
                claims = xborder.Claims.with_store(
                    VectorRedisClaimStore(client, prefix="s%d:%s:" % (decode, key)),
                    lease_ms=inp["leaseMs"], window_ms=window)
                got = [text(lambda s=s: claims.step(s["do"], s["id"], s["token"], s["at"]))
                       for s in inp["steps"]]
                if got != case["expect"]["results"]:
                    fail("sync (decode_responses=%s) %s %s: got %s" % (decode, key, case["name"], got))

        async def run_async() -> None:
            for decode in (False, True):
                aclient = redis.asyncio.Redis(port=port, decode_responses=decode)
                for key, case in vectors:
                    inp = case["input"]
                    claims = xborder.AsyncClaims(
                        AsyncVectorRedisClaimStore(aclient, prefix="a%d:%s:" % (decode, key)),
                        lease_ms=inp["leaseMs"], window_ms=inp.get("windowMs", 2**64 - 1))
                    got = [await atext(claims.step(s["do"], s["id"], s["token"], s["at"]))
                           for s in inp["steps"]]
                    if got != case["expect"]["results"]:
                        fail("async %s %s: got %s" % (key, case["name"], got))
                await aclient.aclose()
            # Concurrent claimers on separate connections: exactly one claims.
            conns = [redis.asyncio.Redis(port=port) for _ in range(8)]
            for round_ in range(5):
                outs = await asyncio.gather(*(
                    xborder.AsyncClaims(AsyncRedisClaimStore(c, prefix="c:")).step(
                        "claim", "evt_%d" % round_, "r%d" % i, 1000)
                    for i, c in enumerate(conns)))
                texts = [str(o) for o in outs]
                if texts.count("claimed") != 1 or texts.count("in_progress") != 7:
                    fail("async round %d: %s" % (round_, texts))
            for c in conns:
                await c.aclose()

        asyncio.run(run_async())

        client = redis.Redis(port=port)
        claims = xborder.Claims.with_store(RedisClaimStore(client, prefix="t:"))
        outs: List[str] = []
        threads = [threading.Thread(target=lambda i=i: outs.append(
            str(claims.step("claim", "evt_t", "r%d" % i, 1000)))) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if outs.count("claimed") != 1 or outs.count("in_progress") != 7:
            fail("threads: %s" % outs)

        # The default window: a finished id's key expires (7 days, core's), never kept for ever.
        done = xborder.Claims.with_store(RedisClaimStore(client, prefix="w:"))
        done.step("claim", "evt_w", "r1", 1000)
        done.step("complete", "evt_w", "r1", 1001)
        ttl = client.pttl("w:evt_w")
        if not (0 < ttl <= 7 * 86_400_000):
            fail("a finished id's key has TTL %s ms, want one within 7 days" % ttl)

        client.set("f:x", "not ours")
        foreign = xborder.Claims.with_store(RedisClaimStore(client, prefix="f:"))
        if text(lambda: foreign.step("claim", "x", "r1", 0)) != "STORE_UNAVAILABLE":
            fail("a foreign entry is not STORE_UNAVAILABLE")

        # Wrong kinds.
        for bad, call in (("client", lambda: RedisClaimStore("redis://")),
                          ("prefix", lambda: RedisClaimStore(client, prefix=b"x")),
                          ("client", lambda: AsyncRedisClaimStore(42)),
                          ("store", lambda: xborder.Claims.with_store(
                              AsyncRedisClaimStore(redis.asyncio.Redis(port=port)))),
                          ("store", lambda: xborder.AsyncClaims(RedisClaimStore(client)))):
            try:
                call()
                fail("%s of the wrong kind was accepted" % bad)
            except TypeError as e:
                if bad not in str(e):
                    fail("the TypeError does not name %s: %s" % (bad, e))

        server.kill()
        server.wait()
        down = xborder.Claims.with_store(RedisClaimStore(redis.Redis(port=port, socket_connect_timeout=1)))
        try:
            down.step("claim", "y", "r1", 0)
            fail("a stopped server claimed")
        except xborder.StoreError as e:
            if e.code != "STORE_UNAVAILABLE" or not isinstance(e.__cause__, redis.ConnectionError):
                fail("a stopped server: %r, cause %r" % (e, e.__cause__))

        async def down_async() -> str:
            a = redis.asyncio.Redis(port=port, socket_connect_timeout=1)
            try:
                return await atext(xborder.AsyncClaims(AsyncRedisClaimStore(a)).step("claim", "y", "r1", 0))
            finally:
                await a.aclose()

        if asyncio.run(down_async()) != "STORE_UNAVAILABLE":
            fail("a stopped server (asyncio) is not STORE_UNAVAILABLE")
        print("redis: %d delivery.claims vectors, sync (bytes and str answers) and asyncio, "
              "concurrency, expiry, failures: %d failed" % (len(vectors), len(failures)))
    finally:
        server.kill()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
