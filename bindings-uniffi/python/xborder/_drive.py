"""The one loop that answers core's store needs from a Python store, written once: ``drive``
(a sync store) and its twin ``drive_async`` (an asyncio store). Every path of this package that
calls a store of the host's runs through them: ``claim_step_async`` and the SQL claims (a
``ClaimTask``'s needs), ``handle_delivery`` and ``handle_delivery_async`` (a handling's ``Load``
and ``CompareAndSet`` acts). A store only loads and compares-and-sets, with the times core gives
(``StoreTime``); the loop only calls it and hands its answer back: every decision is core's."""

import inspect
from typing import Any, Optional, Protocol, TypeVar, Union

from .claims import ClaimCompareAndSet, ClaimLoad, _loaded, _swapped

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

