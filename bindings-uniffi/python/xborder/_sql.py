"""What ``xborder.postgres`` and ``xborder.sqlite`` share: core's ``ClaimTask`` driven against
one table, ``xborder_claims`` (entry texts and their expiry in ms), one SQL statement per load and
per compare-and-set. The statements and the table are the Rust crate's (stores/sql), so Rust,
Node and Python instances can share one table. Every decision is core's; the statements keep
texts and apply a change only when the row is still the one loaded."""

import time
from typing import Any, Awaitable, Callable, List, NamedTuple, Optional, Tuple

from . import _kinds
from ._ffi import g
from .claims import (DEFAULT_LEASE_MS, ClaimCompareAndSet, ClaimDone, ClaimLoad, ClaimNeed,
                     ClaimOutcome, ClaimReply, ClaimTask, _reply_of, _rules, _store_failed)
from .errors import XborderError

TABLE = "xborder_claims"

# Core clamps a step's time to xborder_core::claims::MAX_TIME_MS (2**48 - 1): the row's times
# are the entry's. A row's expiry saturates at the largest bigint.
_MAX_TIME_MS = (1 << 48) - 1
_I64_MAX = (1 << 63) - 1


def now_param(at_ms: int) -> int:
    """The step's time as the statements take it (core's clamp)."""
    return min(at_ms, _MAX_TIME_MS)


def expiry(now: int, ttl_ms: Optional[int]) -> Optional[int]:
    """When a row written at ``now`` with core's ``ttl_ms`` expires (None: never)."""
    return None if ttl_ms is None else min(now + ttl_ms, _I64_MAX)


def migration(name: str) -> str:
    """The text of ``migrations/<name>`` shipped in the package (copied at build time from
    stores/sql/migrations/, the one source)."""
    try:
        from importlib.resources import files
    except ImportError:  # Python 3.8
        import os
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "migrations", name),
                  encoding="utf-8") as f:
            return f.read()
    return files(__package__ or "xborder").joinpath("migrations").joinpath(name).read_text(
        encoding="utf-8")


class Statements(NamedTuple):
    load: str
    insert: str
    update: str
    delete: str


Call = Tuple[str, List[Any]]
"""A statement and its parameters (id, entries, times)."""


def _call(sql: Statements, need: ClaimCompareAndSet, now: int, int8: Callable[[int], Any]
          ) -> Optional[Call]:
    """The one statement of a compare-and-set (None: nothing to write, ``(None, None)``)."""
    exp = expiry(now, need.ttl_ms)
    exp_p = None if exp is None else int8(exp)
    now_p = int8(now)
    if need.expected is None and need.new is not None:
        return sql.insert, [need.id, need.new, exp_p, now_p]
    if need.expected is not None and need.new is not None:
        return sql.update, [need.id, need.expected, need.new, exp_p, now_p]
    if need.expected is not None:
        return sql.delete, [need.id, need.expected, now_p]
    return None


def drive(task: ClaimTask, sql: Statements, now: int, int8: Callable[[int], Any],
          query: Callable[[str, List[Any]], Optional[str]],
          execute: Callable[[str, List[Any]], int],
          finish: Optional[Callable[[], None]] = None) -> ClaimOutcome:
    """Runs ``task``: ``query`` answers a load (the entry text or None), ``execute`` a
    compare-and-set statement (the rows changed); ``finish`` (the commit of a transaction the
    step opened) runs at the end. Any exception but core's is ``StoreError``
    (``STORE_UNAVAILABLE``), the exception as ``__cause__``."""
    need: ClaimNeed = task.start()
    method = "load"
    try:
        while not isinstance(need, ClaimDone):
            if isinstance(need, ClaimLoad):
                method = "load"
                need = task.loaded(_text(query(sql.load, [need.id, int8(now)])))
            else:
                method = "compare_and_set"
                call = _call(sql, need, now, int8)
                if call is None:
                    applied = query(sql.load, [need.id, int8(now)]) is None
                else:
                    applied = execute(*call) == 1
                need = task.swapped(applied)
        if finish is not None:
            method = "commit"
            finish()
        return need.outcome
    except XborderError:
        raise
    except Exception as e:
        _store_failed(task, method, e)


async def drive_async(task: ClaimTask, sql: Statements, now: int, int8: Callable[[int], Any],
                      query: Callable[[str, List[Any]], Awaitable[Optional[str]]],
                      execute: Callable[[str, List[Any]], Awaitable[int]],
                      finish: Optional[Callable[[], Awaitable[None]]] = None) -> ClaimOutcome:
    """``drive`` with coroutines."""
    need: ClaimNeed = task.start()
    method = "load"
    try:
        while not isinstance(need, ClaimDone):
            if isinstance(need, ClaimLoad):
                method = "load"
                need = task.loaded(_text(await query(sql.load, [need.id, int8(now)])))
            else:
                method = "compare_and_set"
                call = _call(sql, need, now, int8)
                if call is None:
                    applied = await query(sql.load, [need.id, int8(now)]) is None
                else:
                    applied = await execute(*call) == 1
                need = task.swapped(applied)
        if finish is not None:
            method = "commit"
            await finish()
        return need.outcome
    except XborderError:
        raise
    except Exception as e:
        _store_failed(task, method, e)


def store_load(sql: Statements, id: str, now: int, int8: Callable[[int], Any],
               query: Callable[[str, List[Any]], Optional[str]]) -> Optional[str]:
    """A store's load: the entry text of ``id`` unless it expired at ``now``."""
    return _text(query(sql.load, [id, int8(now)]))


def store_call(sql: Statements, id: str, expected: Optional[str], new: Optional[str],
               ttl_ms: Optional[int], now: int, int8: Callable[[int], Any]) -> Optional[Call]:
    """A store's compare-and-set as one statement (None: ``(None, None)``, nothing to write:
    applied when there is no live row, a load tells)."""
    return _call(sql, ClaimCompareAndSet(id, expected, new, ttl_ms), now, int8)


class StepTime:
    """The time of the claim step a store's calls belong to: the statements' ``now``
    (``step_at``, which ``handle_delivery`` calls before each step). Without it, the host's
    clock."""

    __slots__ = ("lease_ms", "window_ms", "_now")

    def __init__(self, claims: "SqlClaims") -> None:
        self.lease_ms = claims.lease_ms
        self.window_ms = claims.window_ms
        self._now: Optional[int] = None

    def step_at(self, at_ms: int) -> None:
        """The time (ms) of the claim step the next calls belong to: a row expired at it is no
        row, a row written expires at it plus the TTL core gives."""
        self._now = now_param(_kinds.integer(at_ms, "at_ms"))

    def _time(self) -> int:
        return self._now if self._now is not None else now_param(time.time_ns() // 1_000_000)


def _text(value: object) -> Optional[str]:
    if value is None or isinstance(value, str):
        return value
    raise TypeError("the entry column holds %s, not text" % type(value).__name__)


class SqlClaims:
    """The rules (lease, window) of an SQL claim store; each call takes the connection."""

    __slots__ = ("_lease_ms", "_window_ms", "_rules")

    def __init__(self, lease_ms: int = DEFAULT_LEASE_MS, window_ms: Optional[int] = None) -> None:
        _rules(lease_ms, window_ms)
        self._lease_ms, self._window_ms = lease_ms, window_ms
        # Core's replies need the rules (the lease is the Retry-After of in_progress).
        self._rules: Any = g.Claims(lease_ms, window_ms, 0)

    @property
    def lease_ms(self) -> int:
        """How long a claim holds an id."""
        return self._lease_ms

    @property
    def window_ms(self) -> Optional[int]:
        """How long a done id stays a duplicate (None: core's default, 7 days)."""
        return self._window_ms

    def reply(self, step: str, outcome: ClaimOutcome) -> Optional[ClaimReply]:
        """What to answer after ``step`` gave ``outcome`` (None after ``claimed``: persist
        first): core's status and ``Retry-After`` (the lease, for ``in_progress``)."""
        return _reply_of(self._rules, step, outcome)

    def _task(self, step: str, id: str, token: str, at_ms: int) -> ClaimTask:
        return ClaimTask(step, id, token, at_ms, self._lease_ms, self._window_ms)

    def __repr__(self) -> str:
        return "%s(lease_ms=%d, window_ms=%r)" % (type(self).__name__, self._lease_ms,
                                                  self._window_ms)


def now_ms_param(now_ms: object) -> int:
    """``purge``'s ``now_ms``, checked and clamped as a step's time."""
    return now_param(_kinds.integer(now_ms, "now_ms"))
