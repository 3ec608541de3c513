"""Claims kept in Redis, over redis-py (``pip install 'xborder[redis]'``): ``RedisClaimStore``
for a ``redis.Redis`` client (``Claims.with_store``), ``AsyncRedisClaimStore`` for a
``redis.asyncio.Redis`` one (``AsyncClaims``). Entry texts only: a load is a GET, a
compare-and-set is the project's one script (``redis_compare_and_set.lua``, shipped in this package;
the Rust and Node adapters run the same). Both take redis-py's own answers (``bytes`` or ``str``
values, whatever ``decode_responses`` is; integer replies 1 and 0).

    import redis
    claims = xborder.Claims.with_store(RedisClaimStore(redis.Redis()))

Keys are ``prefix + id``; each write expires after the ``ttl_ms`` core gives (``StoreTime``: the
claims' window for a finished id, 7 days by default; two leases for a claimed one), so Redis
never grows for ever.
"""

from typing import TYPE_CHECKING, Any, List, Optional

from . import _kinds
from .claims import StoreTime

if TYPE_CHECKING:
    import redis
    import redis.asyncio

DEFAULT_PREFIX = "xb:claims:"


def _script_text() -> str:
    try:
        from importlib.resources import files
    except ImportError:  # Python 3.8
        from importlib.resources import read_text
        return read_text(__package__ or "xborder", "redis_compare_and_set.lua", encoding="utf-8")
    return files(__package__ or "xborder").joinpath("redis_compare_and_set.lua").read_text(encoding="utf-8")


COMPARE_AND_SET: str = _script_text()
"""The compare-and-set script (KEYS[1]; ARGV: expected, new, ttl_ms; "" for None)."""


def _text(value: object) -> Optional[str]:
    """A GET's answer as text: redis-py gives bytes (or str with decode_responses=True)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8")
    raise TypeError("redis GET answered %s, not bytes, str or None" % type(value).__name__)


def _applied(value: object) -> bool:
    """The script's answer: the integer 1 (applied) or 0 (not)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return value == 1
    if isinstance(value, (bytes, str)) and value in (b"0", b"1", "0", "1"):
        return value in (b"1", "1")
    raise TypeError("the compare-and-set script answered %r, not 1 or 0" % (value,))


def _args(expected: Optional[str], new: Optional[str], time: StoreTime) -> List[str]:
    """The script's arguments: core's ``ttl_ms`` as given ("" for none)."""
    return [expected or "", new or "", "" if time.ttl_ms is None else str(time.ttl_ms)]


class RedisClaimStore:
    """A ``ClaimStore`` over a sync ``redis.Redis`` client. A Redis error reaches the caller of
    ``Claims.step`` as ``StoreError`` (``STORE_UNAVAILABLE``), the Redis error as its cause."""

    def __init__(self, client: "redis.Redis", prefix: str = DEFAULT_PREFIX) -> None:
        if not callable(getattr(client, "register_script", None)) or not callable(
                getattr(client, "get", None)):
            raise TypeError("client must be a redis.Redis client, got %s" % type(client).__name__)
        self.prefix = _kinds.string(prefix, "prefix")
        self.client = client
        self._script: Any = client.register_script(COMPARE_AND_SET)

    def load(self, id: str, time: StoreTime) -> Optional[str]:
        """A GET (Redis drops an expired key itself: ``time`` is not needed)."""
        return _text(self.client.get(self.prefix + id))

    def compare_and_set(self, id: str, expected: Optional[str], new: Optional[str],
                        time: StoreTime) -> bool:
        """The script: the new entry expires after ``time.ttl_ms``."""
        return _applied(self._script(keys=[self.prefix + id], args=_args(expected, new, time)))

    def __repr__(self) -> str:
        return "RedisClaimStore(prefix=%r)" % self.prefix


class AsyncRedisClaimStore:
    """An ``AsyncClaimStore`` over a ``redis.asyncio.Redis`` client (for ``AsyncClaims``)."""

    def __init__(self, client: "redis.asyncio.Redis", prefix: str = DEFAULT_PREFIX) -> None:
        if not callable(getattr(client, "register_script", None)) or not callable(
                getattr(client, "get", None)):
            raise TypeError("client must be a redis.asyncio.Redis client, got %s"
                            % type(client).__name__)
        self.prefix = _kinds.string(prefix, "prefix")
        self.client = client
        self._script: Any = client.register_script(COMPARE_AND_SET)

    async def load(self, id: str, time: StoreTime) -> Optional[str]:
        """``RedisClaimStore.load``, awaited."""
        return _text(await self.client.get(self.prefix + id))

    async def compare_and_set(self, id: str, expected: Optional[str], new: Optional[str],
                              time: StoreTime) -> bool:
        """``RedisClaimStore.compare_and_set``, awaited."""
        return _applied(await self._script(keys=[self.prefix + id],
                                           args=_args(expected, new, time)))

    def __repr__(self) -> str:
        return "AsyncRedisClaimStore(prefix=%r)" % self.prefix
