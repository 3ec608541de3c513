"""The one loop that answers core's store needs from a Python store, written once: ``drive``
(a sync store) and its twin ``drive_async`` (an asyncio store). Every path of this package that
calls a store of the host's runs through them: ``claim_step_async`` and the SQL claims (a
``ClaimTask``'s needs), ``handle_delivery`` and ``handle_delivery_async`` (a handling's ``Load``
and ``CompareAndSet`` acts). A store only loads and compares-and-sets, with the times core gives
(``StoreTime``); the loop only calls it and hands its answer back: every decision is core's."""

import inspect
from dataclasses import dataclass
from typing import Any, Optional, Protocol, TypeVar, Union

# What the loop is fed (re-exported by xborder.claims, where users find them): the times a store
# is given, and the two calls core asks of it.


@dataclass(frozen=True)
class StoreTime:
    """The times of one store call, as core has clamped them (``now_ms`` and ``ttl_ms`` at
    most 2**48 - 1, ``expires_at_ms`` their sum, below 2**49): the
    step's time ``now_ms``, and for a write how long the store may keep the new entry
    (``ttl_ms``, from ``now_ms``) and until when (``expires_at_ms``); None: no limit (a load or a
    removal has none). A store writes and compares these numbers as they are, and never reads
    an entry's text for a time nor clamps one: a SQL store keeps ``expires_at_ms`` in a column
    and counts a row whose expiry is at or before ``now_ms`` as no row; a Redis store gives
    ``ttl_ms`` to ``PEXPIRE``."""

    now_ms: int
    ttl_ms: Optional[int]
    expires_at_ms: Optional[int]


def _time(t: Any) -> StoreTime:
    """The generated module's ``StoreTime`` as this package's."""
    return StoreTime(t.now_ms, t.ttl_ms, t.expires_at_ms)


@dataclass
class ClaimLoad:
    """Load the entry text of ``id`` at ``time`` (as ``ClaimStore.load``), then
    ``task.loaded(text_or_None)``."""

    id: str
    time: StoreTime


@dataclass
class ClaimCompareAndSet:
    """Compare-and-set the entry text of ``id`` (as ``ClaimStore.compare_and_set``), then
    ``task.swapped(applied)``."""

    id: str
    expected: Optional[str]
    new: Optional[str]
    time: StoreTime


def _loaded(value: object, who: str) -> Optional[str]:
    if value is not None and not isinstance(value, str):
        raise TypeError("%s.load must return a str or None, got %s" % (who, type(value).__name__))
    return value


def _swapped(value: object, who: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError("%s.compare_and_set must return a bool, got %s"
                        % (who, type(value).__name__))
    return value


T = TypeVar("T")

StoreNeed = Union[ClaimLoad, ClaimCompareAndSet]
"""A call core asks of the store."""

# Core's store needs end within its conflict limit (16 compare-and-sets, a load each, per
# step): a run of more is a bug, not a store's answer.
MAX_NEEDS = 64


class Steps(Protocol[T]):
    """What the loop hands a store's answers to (a ``ClaimTask``, a handling): each call gives
    the next thing, a store need or not (``need`` tells)."""

    def need(self, next: T) -> Optional[StoreNeed]:
        """``next`` as a store need, None when it is something else (the loop ends)."""
        ...

    def loaded(self, entry: Optional[str]) -> T:
        ...

    def swapped(self, applied: bool) -> T:
        ...

    def failed(self, method: str, error: Exception) -> T:
        """The store call ``method`` raised ``error`` (or answered something of the wrong
        kind): core's answer to a store failure (it may raise)."""
        ...


def _ended() -> RuntimeError:
    return RuntimeError("xborder: core asked more than %d store calls in a row (a bug in "
                        "xborder: please report it)" % MAX_NEEDS)


def drive(store: Any, next: T, steps: "Steps[T]", who: str) -> T:
    """Answers the store needs from ``next`` on with the sync ``store`` (``load(id, time)``,
    ``compare_and_set(id, expected, new, time)``), until core gives something else: that. A
    store's exception (an ``Exception``), or an answer of the wrong kind, goes to
    ``steps.failed``."""
    for _ in range(MAX_NEEDS):
        need = steps.need(next)
        if need is None:
            return next
        if isinstance(need, ClaimLoad):
            try:
                entry = _loaded(store.load(need.id, need.time), who)
            except Exception as e:
                next = steps.failed("load", e)
                continue
            next = steps.loaded(entry)
        else:
            try:
                applied = _swapped(store.compare_and_set(need.id, need.expected, need.new,
                                                         need.time), who)
            except Exception as e:
                next = steps.failed("compare_and_set", e)
                continue
            next = steps.swapped(applied)
    raise _ended()


async def _awaited(value: Any, who: str, method: str) -> Any:
    if not inspect.isawaitable(value):
        raise TypeError("%s.%s must be async (return an awaitable), got %s: for a sync store, "
                        "Claims.with_store or handle_delivery" % (who, method,
                                                                   type(value).__name__))
    return await value


async def drive_async(store: Any, next: T, steps: "Steps[T]", who: str) -> T:
    """``drive`` with an asyncio ``store``: its calls are awaited (one that returns no
    awaitable is a store failure)."""
    for _ in range(MAX_NEEDS):
        need = steps.need(next)
        if need is None:
            return next
        if isinstance(need, ClaimLoad):
            try:
                entry = _loaded(await _awaited(store.load(need.id, need.time), who, "load"), who)
            except Exception as e:
                next = steps.failed("load", e)
                continue
            next = steps.loaded(entry)
        else:
            try:
                applied = _swapped(await _awaited(
                    store.compare_and_set(need.id, need.expected, need.new, need.time), who,
                    "compare_and_set"), who)
            except Exception as e:
                next = steps.failed("compare_and_set", e)
                continue
            next = steps.swapped(applied)
    raise _ended()

