"""Claims on event ids, for consumers that run several instances: ``claim`` before processing a
delivery, ``complete`` after persisting it, ``release`` when persisting failed. In memory
(``Claims()``), in a store of yours (``Claims.with_store``: sync; ``AsyncClaims``: asyncio), or
as a task you drive (``ClaimTask``). Every decision, and the status and ``Retry-After`` to answer,
is core's."""

import inspect
import threading
from dataclasses import dataclass
from typing import Any, Dict, NoReturn, Optional, Protocol, Union, runtime_checkable

from . import _kinds
from ._drive import ClaimCompareAndSet as ClaimCompareAndSet
from ._drive import ClaimLoad as ClaimLoad
from ._drive import StoreTime as StoreTime
from ._drive import _loaded, _swapped, drive, drive_async
from ._drive import _time as _time
from ._ffi import CoreEnum, GeneratedError, g, same_members, texts
from .errors import StoreError, XborderError, _convert

DEFAULT_LEASE_MS = 30_000
"""How long a claim holds an id by default (core's default lease: 30 s)."""


class ClaimOutcome(CoreEnum):
    """The answer to one claim step; ``str()`` is FORMAT.md's text (``claimed``,
    ``in_progress``, ``duplicate``, ``completed``, ``released``, ``stale``)."""

    CLAIMED = g.ClaimOutcome.CLAIMED
    IN_PROGRESS = g.ClaimOutcome.IN_PROGRESS
    DUPLICATE = g.ClaimOutcome.DUPLICATE
    COMPLETED = g.ClaimOutcome.COMPLETED
    RELEASED = g.ClaimOutcome.RELEASED
    STALE = g.ClaimOutcome.STALE


    def acknowledges(self) -> bool:
        """Whether the delivery is answered 2xx (core's rule: ``duplicate``, ``completed``)."""
        return bool(self.value.acknowledges())


same_members(ClaimOutcome, g.ClaimOutcome)
_OUTCOME_TEXT = texts(ClaimOutcome)
_OUTCOME = {m.value: m for m in ClaimOutcome}


@dataclass
class ClaimReply:
    """What to answer the provider: an HTTP status and, when the provider should wait before
    retrying, a ``Retry-After`` in seconds (core's ``claims::Reply``)."""

    status: int
    retry_after_s: Optional[int]

    @property
    def headers(self) -> Dict[str, str]:
        """``{"Retry-After": "30"}``, or ``{}`` when the reply has none."""
        return {} if self.retry_after_s is None else {"Retry-After": str(self.retry_after_s)}


def _reply(r: Any) -> ClaimReply:
    return ClaimReply(r.status, r.retry_after_s)


def claim_error_reply(code: str) -> ClaimReply:
    """What to answer when a claim step raised the error with ``code`` (``e.code``), or for a
    refusal of the receiver's own: ``STORE_UNAVAILABLE`` and ``TOO_MANY_CONNECTIONS`` are 503
    with ``Retry-After``, ``BODY_TIMEOUT`` 408, ``BODY_TOO_LARGE`` 413, anything else 500
    (core's rule)."""
    code = _kinds.string(code, "code")
    return _reply(g.claim_error_reply(code))


def _step_args(step: object, id: object, token: object, at_ms: object) -> None:
    _kinds.string(step, "step")
    _kinds.string(id, "id")
    _kinds.string(token, "token")
    _kinds.integer(at_ms, "at_ms")


def _rules(lease_ms: object, window_ms: object) -> None:
    _kinds.integer(lease_ms, "lease_ms")
    _kinds.opt_integer(window_ms, "window_ms")


# --- stores -------------------------------------------------------------------------------------

@runtime_checkable
class ClaimStore(Protocol):
    """A store of claims shared by a consumer's instances (Redis, SQL, a dict in memory), called
    from the thread of ``Claims.step``. It keeps entry *texts* and never reads them. Subclass it
    or give any object with these two methods. An exception from either (or an answer of the
    wrong kind) fails the step with ``StoreError`` (``STORE_UNAVAILABLE``). The times are core's
    (``StoreTime``): write and compare them as given."""

    def load(self, id: str, time: StoreTime) -> Optional[str]:
        """The entry text of ``id``, or None when it has none (in a store that keeps expiry:
        or only one that expired at ``time.now_ms``)."""
        ...

    def compare_and_set(self, id: str, expected: Optional[str], new: Optional[str],
                        time: StoreTime) -> bool:
        """Atomically: when the entry text of ``id`` is ``expected`` (None: no entry, or only
        one expired at ``time.now_ms``), make it ``new`` (None: remove it), which the store may
        drop after ``time.ttl_ms`` milliseconds, at ``time.expires_at_ms`` (None: keep it), and
        answer True; otherwise change nothing and answer False."""
        ...


@runtime_checkable
class AsyncClaimStore(Protocol):
    """``ClaimStore``'s two methods as coroutines, for ``AsyncClaims`` (asyncio)."""

    async def load(self, id: str, time: StoreTime) -> Optional[str]:
        ...

    async def compare_and_set(self, id: str, expected: Optional[str], new: Optional[str],
                              time: StoreTime) -> bool:
        ...


def _require_store(store: object, name: str, sync: bool) -> None:
    for method in ("load", "compare_and_set"):
        fn = getattr(store, method, None)
        if not callable(fn):
            raise TypeError("%s must have the methods load(id, time) and compare_and_set(id, "
                            "expected, new, time)%s, got %s" % (name, "" if sync else " as coroutines",
                                                         type(store).__name__))
        if sync and inspect.iscoroutinefunction(fn):
            raise TypeError("%s must be a sync store, got %s whose %s is async: use "
                            "AsyncClaims(store) for an asyncio store"
                            % (name, type(store).__name__, method))
        if not sync and not inspect.iscoroutinefunction(fn) and (
                inspect.ismethod(fn) or inspect.isfunction(fn)):
            raise TypeError("%s must be an asyncio store (async def %s), got %s whose %s is "
                            "sync: use Claims.with_store(store) for a sync store"
                            % (name, method, type(store).__name__, method))


# The exception a store raised on this thread, made the __cause__ of the StoreError.
_failures = threading.local()


class _Bridge(g.ClaimStore):  # type: ignore[misc]
    """A user's sync store as the generated module's foreign ClaimStore: its answers checked."""

    def __init__(self, store: ClaimStore) -> None:
        self._store = store
        self._who = type(store).__name__

    def load(self, id: str, time: Any) -> Optional[str]:
        try:
            return _loaded(self._store.load(id, _time(time)), self._who)
        except BaseException as e:
            _failures.last = e
            raise

    def compare_and_set(self, id: str, expected: Optional[str], new: Optional[str],
                        time: Any) -> bool:
        try:
            return _swapped(self._store.compare_and_set(id, expected, new, _time(time)),
                            self._who)
        except BaseException as e:
            _failures.last = e
            raise


def _raise_step(e: Any) -> NoReturn:
    err = _convert(e)
    cause = getattr(_failures, "last", None)
    _failures.last = None
    raise err from (cause if isinstance(err, StoreError) else None)


class Claims:
    """Claims on event ids: in this process (``Claims()``), or in a store shared by instances
    (``Claims.with_store(store)``). A claim holds an id for ``lease_ms``; a done id is a duplicate
    for ``window_ms`` after completion (None: core's default, 7 days, so no store grows for
    ever). Safe to share between threads."""

    __slots__ = ("_inner", "_lease_ms", "_window_ms")

    def __init__(self, lease_ms: int = DEFAULT_LEASE_MS, window_ms: Optional[int] = None,
                 capacity: int = 10_000) -> None:
        """In memory: at most ``capacity`` done ids remembered (oldest forgotten first)."""
        _rules(lease_ms, window_ms)
        _kinds.integer(capacity, "capacity")
        self._lease_ms, self._window_ms = lease_ms, window_ms
        self._inner: Any = g.Claims(lease_ms, window_ms, capacity)

    @classmethod
    def with_store(cls, store: ClaimStore, lease_ms: int = DEFAULT_LEASE_MS,
                   window_ms: Optional[int] = None) -> "Claims":
        """Claims kept in your ``store`` (see ``ClaimStore``), called from the thread of
        ``step``; for an asyncio store, ``AsyncClaims``."""
        _require_store(store, "store", sync=True)
        _rules(lease_ms, window_ms)
        self = cls.__new__(cls)
        self._lease_ms, self._window_ms = lease_ms, window_ms
        self._inner = g.Claims.with_store(_Bridge(store), lease_ms, window_ms)
        return self

    @property
    def lease_ms(self) -> int:
        return self._lease_ms

    @property
    def window_ms(self) -> Optional[int]:
        return self._window_ms

    def step(self, step: str, id: str, token: str, at_ms: int) -> ClaimOutcome:
        """One step (``claim``, ``complete``, ``release``) by ``token`` (this request's own) on
        event ``id`` at ``at_ms`` (your clock, ms). Raises ``ClaimError`` (``INVALID_STEP``) or
        ``StoreError`` (``STORE_UNAVAILABLE``)."""
        _step_args(step, id, token, at_ms)
        try:
            return _OUTCOME[self._inner.step(step, id, token, at_ms)]
        except GeneratedError as e:
            _raise_step(e)

    def reply(self, step: str, outcome: ClaimOutcome) -> Optional[ClaimReply]:
        """What to answer after ``step`` gave ``outcome`` (None after ``claimed``: persist
        first): core's status and ``Retry-After`` (the lease, for ``in_progress``)."""
        return _reply_of(self._inner, step, outcome)

    def __repr__(self) -> str:
        return "Claims(lease_ms=%d, window_ms=%r)" % (self._lease_ms, self._window_ms)


def _reply_of(inner: Any, step: object, outcome: object) -> Optional[ClaimReply]:
    _kinds.string(step, "step")
    _kinds.instance(outcome, ClaimOutcome, "outcome", "a ClaimOutcome")
    try:
        r = inner.reply(step, outcome.value)  # type: ignore[attr-defined]
    except GeneratedError as e:
        _raise_step(e)
    return None if r is None else _reply(r)


# --- the sans-IO task, and asyncio ----------------------------------------------------------------

@dataclass
class ClaimDone:
    """The step is over: its ``outcome``."""

    outcome: ClaimOutcome


ClaimNeed = Union[ClaimLoad, ClaimCompareAndSet, ClaimDone]
"""What a ``ClaimTask`` needs next."""


def _need(n: Any) -> ClaimNeed:
    if isinstance(n, g.ClaimNeed.LOAD):
        return ClaimLoad(n.id, _time(n.time))
    if isinstance(n, g.ClaimNeed.COMPARE_AND_SET):
        return ClaimCompareAndSet(n.id, n.expected, n.new, _time(n.time))
    return ClaimDone(_OUTCOME[n.outcome])


class ClaimTask:
    """One claim step against a store you reach on your own terms (a coroutine, an event loop):
    ``start()``, do what each need asks, hand the answer back with ``loaded`` or ``swapped``,
    until ``ClaimDone``. Nothing blocks; every decision is core's."""

    __slots__ = ("_inner",)

    def __init__(self, step: str, id: str, token: str, at_ms: int,
                 lease_ms: int = DEFAULT_LEASE_MS, window_ms: Optional[int] = None) -> None:
        _step_args(step, id, token, at_ms)
        _rules(lease_ms, window_ms)
        try:
            self._inner: Any = g.ClaimTask(step, id, token, at_ms, lease_ms, window_ms)
        except GeneratedError as e:
            _raise_step(e)

    def start(self) -> ClaimNeed:
        try:
            return _need(self._inner.start())
        except GeneratedError as e:
            _raise_step(e)

    def loaded(self, entry: Optional[str]) -> ClaimNeed:
        """The entry text your store holds for the id (None: none)."""
        _kinds.opt_string(entry, "entry")
        try:
            return _need(self._inner.loaded(entry))
        except GeneratedError as e:
            _raise_step(e)

    def swapped(self, applied: bool) -> ClaimNeed:
        """Whether your store applied the compare-and-set."""
        _kinds.boolean(applied, "applied")
        try:
            return _need(self._inner.swapped(applied))
        except GeneratedError as e:
            _raise_step(e)

    def failed(self, message: str) -> NoReturn:
        """Your store failed: raises ``StoreError`` (``STORE_UNAVAILABLE``)."""
        _kinds.string(message, "message")
        try:
            self._inner.failed(message)
        except GeneratedError as e:
            raise _convert(e) from None
        raise AssertionError("ClaimTask.failed returned")  # core always raises


def _store_failed(task: ClaimTask, method: str, error: BaseException) -> NoReturn:
    try:
        task.failed("store: %s: %s: %s" % (method, type(error).__name__, error))
    except XborderError as failure:
        raise failure from error


class _TaskSteps:
    """A ``ClaimTask`` as the store loop's ``Steps`` (``xborder._drive``): a store failure
    raises ``StoreError``, the store's exception as its cause."""

    __slots__ = ("task",)

    def __init__(self, task: ClaimTask) -> None:
        self.task = task

    def need(self, next: ClaimNeed) -> Optional[Union[ClaimLoad, ClaimCompareAndSet]]:
        return None if isinstance(next, ClaimDone) else next

    def loaded(self, entry: Optional[str]) -> ClaimNeed:
        return self.task.loaded(entry)

    def swapped(self, applied: bool) -> ClaimNeed:
        return self.task.swapped(applied)

    def failed(self, method: str, error: Exception) -> ClaimNeed:
        _store_failed(self.task, method, error)


def _outcome(need: ClaimNeed) -> ClaimOutcome:
    if not isinstance(need, ClaimDone):  # the loop ends on Done only
        raise RuntimeError("xborder: a claim step ended on %r (a bug in xborder)" % (need,))
    return need.outcome


def _run_task(task: ClaimTask, store: Any, who: str) -> ClaimOutcome:
    """Runs ``task`` to its outcome against the sync ``store`` (the one loop,
    ``xborder._drive.drive``)."""
    return _outcome(drive(store, task.start(), _TaskSteps(task), who))


async def _run_task_async(task: ClaimTask, store: Any, who: str) -> ClaimOutcome:
    """``_run_task`` with an asyncio ``store`` (``xborder._drive.drive_async``)."""
    return _outcome(await drive_async(store, task.start(), _TaskSteps(task), who))


async def claim_step_async(store: AsyncClaimStore, step: str, id: str, token: str, at_ms: int, *,
                           lease_ms: int = DEFAULT_LEASE_MS,
                           window_ms: Optional[int] = None) -> ClaimOutcome:
    """One claim step against an asyncio store: awaits ``store.load`` /
    ``store.compare_and_set`` as core's ``ClaimTask`` asks, with core's times; nothing blocks
    the loop. A store's exception, or an answer of the wrong kind, is ``StoreError``
    (``STORE_UNAVAILABLE``) with it as ``__cause__``."""
    _require_store(store, "store", sync=False)
    task = ClaimTask(step, id, token, at_ms, lease_ms, window_ms)
    return await _run_task_async(task, store, type(store).__name__)


class AsyncClaims:
    """Claims kept in an asyncio store (``AsyncClaimStore``, e.g. ``xborder.redis.
    AsyncRedisClaimStore``): ``await claims.step(...)``; ``reply`` as ``Claims.reply``, with
    this object's lease."""

    __slots__ = ("_store", "_lease_ms", "_window_ms", "_rules")

    def __init__(self, store: AsyncClaimStore, lease_ms: int = DEFAULT_LEASE_MS,
                 window_ms: Optional[int] = None) -> None:
        _require_store(store, "store", sync=False)
        _rules(lease_ms, window_ms)
        self._store = store
        self._lease_ms, self._window_ms = lease_ms, window_ms
        # Core's replies need the rules (the lease is the Retry-After of in_progress): the same
        # lease and window, no store (a capacity of 0 holds nothing).
        self._rules: Any = g.Claims(lease_ms, window_ms, 0)

    @property
    def store(self) -> AsyncClaimStore:
        return self._store

    @property
    def lease_ms(self) -> int:
        return self._lease_ms

    @property
    def window_ms(self) -> Optional[int]:
        return self._window_ms

    async def step(self, step: str, id: str, token: str, at_ms: int) -> ClaimOutcome:
        """``Claims.step`` against the asyncio store."""
        return await claim_step_async(self._store, step, id, token, at_ms,
                                      lease_ms=self._lease_ms, window_ms=self._window_ms)

    def reply(self, step: str, outcome: ClaimOutcome) -> Optional[ClaimReply]:
        """What to answer after ``step`` gave ``outcome`` (core's rule, this lease)."""
        return _reply_of(self._rules, step, outcome)

    def __repr__(self) -> str:
        return "AsyncClaims(%s, lease_ms=%d, window_ms=%r)" % (
            type(self._store).__name__, self._lease_ms, self._window_ms)
