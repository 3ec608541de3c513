"""Claims of xborder kept in Redis, for Python (redis-py): sync and asyncio.

The rules are xborder's (core's claim task decides); this only moves entry texts: a load is a
GET, a compare-and-set is core's one Redis script (``services/redis/compare-and-set.lua``,
checked equal to core's ``REDIS_COMPARE_AND_SET`` by ``cargo test -p xborder-redis``), the same
the Rust and Node adapters run.

Sync (a thread per request, e.g. ``http.server.ThreadingHTTPServer`` or Flask)::

    claims = xborder.Claims.with_store(RedisClaimStore(redis.Redis()), lease_ms=30_000)
    claims.step("claim", event_id, token, now_ms)

asyncio (no thread blocks on Redis)::

    outcome = await step_async(redis.asyncio.Redis(), "claim", event_id, token, now_ms)
"""

from __future__ import annotations

import pathlib

import xborder

COMPARE_AND_SET = (
    pathlib.Path(__file__).resolve().parent.parent / "redis" / "compare-and-set.lua"
).read_text(encoding="utf-8")

DEFAULT_PREFIX = "xb:claims:"


def _text(value):
    return value.decode("utf-8") if isinstance(value, bytes) else value


class RedisClaimStore(xborder.ClaimStore):
    """xborder's claim store over a synchronous ``redis.Redis`` client (keys ``prefix + id``).

    A Redis error raised here reaches the caller of ``Claims.step`` as ``STORE_UNAVAILABLE``.
    """

    def __init__(self, client, prefix: str = DEFAULT_PREFIX):
        self._client = client
        self._prefix = prefix
        self._script = client.register_script(COMPARE_AND_SET)

    def load(self, id):
        return _text(self._client.get(self._prefix + id))

    def compare_and_set(self, id, expected, new, ttl_ms):
        applied = self._script(
            keys=[self._prefix + id],
            args=[expected or "", new or "", "" if ttl_ms is None else str(ttl_ms)],
        )
        return applied == 1


async def step_async(
    client,
    step: str,
    id: str,
    token: str,
    at_ms: int,
    *,
    lease_ms: int = 30_000,
    window_ms: int | None = None,
    prefix: str = DEFAULT_PREFIX,
) -> xborder.ClaimOutcome:
    """One claim step against a ``redis.asyncio.Redis`` client: xborder's ``ClaimTask`` says
    which load or compare-and-set it needs; this awaits it and hands the answer back. Raises
    ``XborderError``: ``INVALID_STEP``, or ``STORE_UNAVAILABLE`` (a Redis error, reported
    through ``task.failed`` so the code is xborder's; the Redis error is its ``__cause__``)."""
    task = xborder.ClaimTask(step, id, token, at_ms, lease_ms=lease_ms, window_ms=window_ms)
    need = task.start()
    key = prefix + id
    while True:
        if isinstance(need, xborder.ClaimNeed.DONE):
            return need.outcome
        try:
            if isinstance(need, xborder.ClaimNeed.LOAD):
                need = task.loaded(_text(await client.get(key)))
            else:
                applied = await client.eval(
                    COMPARE_AND_SET,
                    1,
                    key,
                    need.expected or "",
                    need.new or "",
                    "" if need.ttl_ms is None else str(need.ttl_ms),
                )
                need = task.swapped(applied == 1)
        except xborder.XborderError:
            raise
        except Exception as e:  # the store failed: the task ends the step with its code
            try:
                task.failed(f"redis: {e}")
            except xborder.XborderError as failure:
                raise failure from e
            raise
