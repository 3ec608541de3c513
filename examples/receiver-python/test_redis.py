"""The wheel's Redis adapter (xborder.redis), as the Python receiver uses it, against a real redis-server (started here on a free loopback port,
stopped at the end): every ``delivery.claims`` vector of the project and of
../shared/conformance, through the sync store (``Claims.with_store(RedisClaimStore(...))``) and
through asyncio (``step_async``); one winner among concurrent claims; foreign text and a stopped
server give ``STORE_UNAVAILABLE``. Run by examples/receiver-python/test.sh."""

import asyncio
import json
import os
import pathlib
import socket
import subprocess
import sys
import threading
import time

import redis
import redis.asyncio

import xborder
from xborder.redis import AsyncRedisClaimStore, RedisClaimStore


# The vectors step at their own times while Redis's clock runs on: a zero lease gives a claim a
# 1 ms TTL, which a slow machine outlives between two steps. In the vector runs Redis keeps each
# entry this much past core's TTL; core still reads an entry past its TTL as none at the step's
# time, so no answer changes.
TTL_MARGIN_MS = 600_000


def _margin(time):
    if time.ttl_ms is None:
        return time
    ttl = time.ttl_ms + TTL_MARGIN_MS
    return xborder.StoreTime(time.now_ms, ttl, time.now_ms + ttl)


class VectorRedisClaimStore(RedisClaimStore):
    def compare_and_set(self, id, expected, new, time):
        return super().compare_and_set(id, expected, new, _margin(time))


class AsyncVectorRedisClaimStore(AsyncRedisClaimStore):
    async def compare_and_set(self, id, expected, new, time):
        return await super().compare_and_set(id, expected, new, _margin(time))


def step_async(client, step, id, token, at_ms, *, lease_ms=30_000, window_ms=None, prefix="xb:claims:",
               store=AsyncRedisClaimStore):
    """One claim step through the wheel's asyncio store (xborder.redis)."""
    claims = xborder.AsyncClaims(store(client, prefix=prefix), lease_ms=lease_ms,
                                 window_ms=window_ms)
    return claims.step(step, id, token, at_ms)

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
failures = []


def fail(why):
    failures.append(why)
    print(f"FAIL {why}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def vectors():
    dirs = [ROOT / "tests/vectors", ROOT.parent / "shared/conformance"]
    dirs += [pathlib.Path(d) for d in os.environ.get("XBORDER_VECTORS_DIR", "").split(":") if d]
    for d in dirs:
        if d.is_dir():
            for f in sorted(d.glob("*.json")):
                for m, case in enumerate(json.loads(f.read_text())["cases"]):
                    if case["op"] == "delivery.claims":
                        yield f"{d.name}/{f.name}:{m}", case


def text(outcome):
    """FORMAT.md's text of an outcome (``claimed``, ``in_progress``, ...)."""
    return str(outcome)


def outcome_text(fn):
    try:
        return text(fn())
    except xborder.XborderError as e:
        return e.code


async def outcome_text_async(coro):
    try:
        return text(await coro)
    except xborder.XborderError as e:
        return e.code


def start_server():
    """A redis-server on a port the kernel hands out free; if it exits all the same (something
    took the port in between), another one, five times in all. Waits (5 s at most) until it
    answers; returns (process, port)."""
    why = ""
    for _ in range(5):
        port = free_port()
        server = subprocess.Popen(
            [os.environ.get("XBORDER_REDIS_SERVER", "redis-server"), "--port", str(port),
             "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL)
        why = f"redis-server did not listen on {port} within 5 s"
        probe = redis.Redis(port=port)
        for _ in range(100):
            try:
                probe.ping()
                probe.close()
                return server, port
            except redis.ConnectionError:
                if server.poll() is not None:
                    why = f"redis-server exited ({server.returncode}) before it listened on {port}"
                    break
                time.sleep(0.05)
        probe.close()
        server.kill()
        server.wait()
    raise RuntimeError(why)


def main():
    server, port = start_server()
    try:
        client = redis.Redis(port=port)
        cases = list(vectors())
        # The project's folder, and shared/conformance when it is there, must each give cases.
        found = {key.split("/")[0] for key, _ in cases}
        for d in (ROOT / "tests/vectors", ROOT.parent / "shared/conformance"):
            if (d.is_dir() or d.name == "vectors") and d.name not in found:
                fail(f"no delivery.claims case in {d}")

        # FORMAT.md's absent windowMs (a done id is a duplicate for ever): the longest window
        # (the API's None is core's default, 7 days).
        # Sync: the store interface.
        for key, case in cases:
            inp = case["input"]
            claims = xborder.Claims.with_store(
                VectorRedisClaimStore(client, prefix=f"s:{key}:"),
                lease_ms=inp["leaseMs"], window_ms=inp.get("windowMs", 2**64 - 1))
            got = [outcome_text(lambda s=s: claims.step(s["do"], s["id"], s["token"], s["at"]))
                   for s in inp["steps"]]
            if got != case["expect"]["results"]:
                fail(f"sync {key} :: {case['name']}: got {got}")

        # asyncio: the sans-IO task, nothing blocks.
        async def run_async():
            aclient = redis.asyncio.Redis(port=port)
            for key, case in cases:
                inp = case["input"]
                got = []
                for s in inp["steps"]:
                    got.append(await outcome_text_async(step_async(
                        aclient, s["do"], s["id"], s["token"], s["at"],
                        lease_ms=inp["leaseMs"], window_ms=inp.get("windowMs", 2**64 - 1),
                        prefix=f"a:{key}:", store=AsyncVectorRedisClaimStore)))
                if got != case["expect"]["results"]:
                    fail(f"async {key} :: {case['name']}: got {got}")
            # Concurrent claims of one id on separate connections: exactly one claimed.
            conns = [redis.asyncio.Redis(port=port) for _ in range(16)]
            for round_ in range(10):
                outs = await asyncio.gather(*(
                    step_async(c, "claim", f"evt_{round_}", f"r{i}", 1000, prefix="c:")
                    for i, c in enumerate(conns)))
                texts = [text(o) for o in outs]
                if texts.count("claimed") != 1 or texts.count("in_progress") != 15:
                    fail(f"async round {round_}: {texts}")
            for c in conns:
                await c.aclose()
            await aclient.aclose()

        asyncio.run(run_async())

        # Threads sharing one sync store: exactly one claimed.
        claims = xborder.Claims.with_store(RedisClaimStore(client, prefix="t:"), lease_ms=30_000)
        outs = []
        threads = [threading.Thread(target=lambda i=i: outs.append(
            text(claims.step("claim", "evt_t", f"r{i}", 1000)))) for i in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if outs.count("claimed") != 1 or outs.count("in_progress") != 15:
            fail(f"threads: {outs}")

        # Foreign text; then a stopped server.
        client.set("f:x", "not ours")
        f = xborder.Claims.with_store(RedisClaimStore(client, prefix="f:"), lease_ms=1000)
        got = outcome_text(lambda: f.step("claim", "x", "r1", 0))
        if got != "STORE_UNAVAILABLE":
            fail(f"foreign entry: {got}")
        server.kill()
        server.wait()
        down = redis.Redis(port=port, socket_connect_timeout=1)
        g = xborder.Claims.with_store(RedisClaimStore(down, prefix="f:"), lease_ms=1000)
        got = outcome_text(lambda: g.step("claim", "y", "r1", 0))
        if got != "STORE_UNAVAILABLE":
            fail(f"stopped server (sync): {got}")

        async def down_async():
            a = redis.asyncio.Redis(port=port, socket_connect_timeout=1)
            try:
                return await outcome_text_async(step_async(a, "claim", "y", "r1", 0, prefix="f:"))
            finally:
                await a.aclose()

        got = asyncio.run(down_async())
        if got != "STORE_UNAVAILABLE":
            fail(f"stopped server (async): {got}")
        print(f"redis (python): {len(cases)} delivery.claims cases, sync and asyncio, "
              f"{len(failures)} failed")
    finally:
        server.kill()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
