"""The catch-up (contract v4 ``events.catch_up``): the events the provider dead-lettered after an
outage longer than its retries, recovered from ``GET /v1/external-events``. ``CatchUp`` is core's
walk, page by page (newest first, down to the checkpoint minus an overlap); ``Recovery`` hands
each event found, oldest first, to the same handling as a delivery; ``catch_up`` and
``catch_up_async`` do all of it in one call with your HTTP client, claims and persist, and
return the checkpoint for the next time. Which page, when to retry, which event is new and
where the checkpoint may move are core's; this module converts and drives."""

import asyncio
import inspect
import json
import time
import uuid
from dataclasses import dataclass, field
from typing import (Any, Awaitable, Callable, List, Optional, Sequence, Tuple, Union)

from . import _kinds
from ._ffi import GeneratedError, g
from .api import ResponseHeaders, _headers, _status, _text
from .claims import DEFAULT_LEASE_MS, AsyncClaims, AsyncClaimStore, Claims, ClaimStore, _rules
from .errors import _raise
from .pagination import Drift
from .webhooks import (AsyncTransaction, DeliveryHandling, DeliveryReply, Envelope, Receiver,
                       Transaction, _async_store, _drive_handling, _drive_handling_async,
                       _receiver, _sync_opened, _sync_store, _transaction)

__all__ = ["CatchUp", "Recovery", "ExternalEvent", "FetchedPage", "FetchedWait", "Fetched",
           "Tally", "CatchUpResult", "catch_up", "catch_up_async"]

_I64 = (1 << 63) - 1


@dataclass(frozen=True)
class ExternalEvent:
    """An event a catch-up found: a record of ``GET /v1/external-events`` read as the webhook
    envelope it stands for (the same ``id``): ``event`` (the record's ``name``), ``entity_id``
    (``aggregateId``), ``entity_type`` (``aggregateType``), ``created_at`` as the provider wrote
    it, and ``data_json`` (``payload`` as JSON text, None when absent or null)."""

    id: str
    event: str
    entity_id: str
    entity_type: str
    created_at: str
    data_json: Optional[str]

    @property
    def data(self) -> Any:
        """``payload`` as Python values, or None."""
        return None if self.data_json is None else json.loads(self.data_json)


def _event(e: Any) -> ExternalEvent:
    return ExternalEvent(e.id, e.event, e.entity_id, e.entity_type, e.created_at, e.data_json)


def _drift(d: Any) -> Drift:
    return Drift(d.code, d.previous_total, d.total, d.count, d.has_next)


@dataclass(frozen=True)
class FetchedPage:
    """``CatchUp.answered``: the page was fed to the walk, with its ``drifts``; ask
    ``next_query()`` again."""

    drifts: List[Drift]


@dataclass(frozen=True)
class FetchedWait:
    """``CatchUp.answered``: the API asked for a retry: send the same query again after ``ms``
    milliseconds (core's delay: the answer's, else 1 s, at most 30 s)."""

    ms: int


Fetched = Union[FetchedPage, FetchedWait]
"""What to do after ``CatchUp.answered``."""


@dataclass(frozen=True)
class Tally:
    """What the handling of a catch-up's events came to: ``processed`` (persisted now),
    ``skipped`` (answered 2xx without a persist: a duplicate, or not a live event), ``rejected``
    (refused as a delivery of it would be; not tried again), ``failed`` (a 5xx: the checkpoint
    stops before the first of them)."""

    processed: int
    skipped: int
    rejected: int
    failed: int


def _signed(value: object, name: str) -> Optional[int]:
    """An optional int as the binding's signed number: a negative one, or one beyond 64 bits,
    reaches core as a number it refuses with its own code (never clamped into its range)."""
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError("%s must be an int or None, got %s" % (name, type(value).__name__))
    return max(-_I64 - 1, min(_I64, int(value)))


class CatchUp:
    """The walk of ``GET /v1/external-events`` down to the checkpoint: ``since`` (the
    ``checkpoint`` an earlier catch-up returned; None: everything the provider keeps), minus
    ``overlap_ms`` (5 minutes unless given), ``page_size`` records a page (100 unless given).
    Raises ``CatchUpError`` (``INVALID_SINCE``, ``INVALID_OVERLAP``) or ``PaginationError``
    (``INVALID_PAGE_SIZE``).

    ``next_query()`` gives the query (``GET /v1/external-events?`` + it; None: done), then
    ``answered(status, headers, text)`` (or ``feed(page)``); then ``events()``, oldest first,
    and ``recover()`` to handle them. ``catch_up`` does all of it."""

    __slots__ = ("_inner",)

    def __init__(self, since: Optional[str] = None, overlap_ms: Optional[int] = None,
                 page_size: Optional[int] = None) -> None:
        since = _kinds.opt_string(since, "since")
        overlap = _signed(overlap_ms, "overlap_ms")
        size = _signed(page_size, "page_size")
        try:
            self._inner: Any = g.CatchUp(since, overlap, size)
        except GeneratedError as e:
            _raise(e)

    def next_query(self) -> Optional[str]:
        """The query of the next page (without ``?``), None when the walk is over."""
        query: Optional[str] = self._inner.next_query()
        return query

    def is_done(self) -> bool:
        return bool(self._inner.is_done())

    def feed(self, page: _kinds.JsonInput) -> List[Drift]:
        """The page answered to ``next_query()`` (a dict or its JSON text): its drift. Raises
        ``PaginationError`` (``MALFORMED_RESPONSE``: the page may be asked for again)."""
        text = _kinds.json_text(page, "page")
        try:
            return [_drift(d) for d in self._inner.feed(text)]
        except GeneratedError as e:
            _raise(e)

    def answered(self, status: int, headers: ResponseHeaders,
                 text: Union[str, bytes]) -> Fetched:
        """The answer to ``next_query()`` as your HTTP client got it: ``FetchedPage`` (the page
        was fed) or ``FetchedWait`` (send the same query again after ``ms``). Raises
        ``ApiError`` (``API_ERROR``: an error the API does not ask to retry, or the page's tries
        are spent; ``answer``: what the API said) or ``PaginationError``
        (``MALFORMED_RESPONSE``)."""
        s = _status(status)
        hs = _headers(headers, "headers")
        body = _text(text, "text")
        try:
            f = self._inner.answered(s, hs, body)
        except GeneratedError as e:
            _raise(e)
        if isinstance(f, g.Fetched.WAIT):
            return FetchedWait(f.ms)
        return FetchedPage([_drift(d) for d in f.drifts])

    def events(self) -> List[ExternalEvent]:
        """The events found so far, oldest first."""
        return [_event(e) for e in self._inner.events()]

    def drifts(self) -> List[Drift]:
        """Every drift so far (``MALFORMED_RECORD`` with its ``count``, and the walk's own)."""
        return [_drift(d) for d in self._inner.drifts()]

    def checkpoint(self) -> Optional[str]:
        """The ``since`` of the next catch-up once every event found is handled (see
        ``Recovery.checkpoint``); None: walk everything again."""
        found: Optional[str] = self._inner.checkpoint()
        return found

    def recover(self) -> "Recovery":
        """The handling of the events found (of a copy of the walk)."""
        r = Recovery.__new__(Recovery)
        r._inner = self._inner.recover()
        return r

    def __repr__(self) -> str:
        return "CatchUp(done=%s)" % self.is_done()


def _handling(inner: Any) -> Optional[DeliveryHandling]:
    if inner is None:
        return None
    h = DeliveryHandling.__new__(DeliveryHandling)
    h._inner = inner
    return h


class Recovery:
    """The events a ``CatchUp`` found, handled one by one, oldest first, each as its delivery
    would be: ``handling(receiver, claims, token)`` gives the next event's
    ``DeliveryHandling`` (core's decision for the recovered event, no signature: it came over
    the API), which you drive as a delivery's; then ``handled(handling)``. ``checkpoint()`` is
    the ``since`` of the next catch-up."""

    __slots__ = ("_inner",)
    _inner: Any

    def __init__(self) -> None:
        raise TypeError("a Recovery comes from CatchUp.recover()")

    def events(self) -> List[ExternalEvent]:
        """Every event found, oldest first."""
        return [_event(e) for e in self._inner.events()]

    def next_event(self) -> Optional[ExternalEvent]:
        """The event to handle next, None when every one has been."""
        e = self._inner.next_event()
        return None if e is None else _event(e)

    def handling(self, receiver: Union[Receiver, str], claims: Claims, token: str, *,
                 in_transaction: bool = False) -> Optional[DeliveryHandling]:
        """The handling of the next event, claimed in ``claims`` with the request's ``token``
        (unique: a UUID); None when every event was handled."""
        rx = _receiver(receiver)
        _kinds.instance(claims, Claims, "claims", "a Claims (for your own store: "
                        "Recovery.handling_with_store_steps)")
        token = _kinds.string(token, "token")
        _kinds.boolean(in_transaction, "in_transaction")
        return _handling(self._inner.handling(rx._inner, claims._inner, token, in_transaction))

    def handling_with_store_steps(self, receiver: Union[Receiver, str], token: str,
                                  lease_ms: int = DEFAULT_LEASE_MS,
                                  window_ms: Optional[int] = None, *,
                                  in_transaction: bool = False) -> Optional[DeliveryHandling]:
        """``handling`` over a store you call yourself (as
        ``DeliveryHandling.with_store_steps``)."""
        rx = _receiver(receiver)
        token = _kinds.string(token, "token")
        _rules(lease_ms, window_ms)
        _kinds.boolean(in_transaction, "in_transaction")
        return _handling(self._inner.handling_with_store_steps(rx._inner, token, lease_ms,
                                                               window_ms, in_transaction))

    def handled(self, handling: DeliveryHandling) -> bool:
        """Records the answer of ``handling`` (the last one ``handling`` gave, once over) and
        moves to the next event. False (nothing recorded) for a handling not over, not this
        recovery's for its next event, or already recorded."""
        _kinds.instance(handling, DeliveryHandling, "handling", "a DeliveryHandling")
        return bool(self._inner.handled(handling._inner))

    def tally(self) -> Tally:
        """What the handling came to so far."""
        t = self._inner.tally()
        return Tally(t.processed, t.skipped, t.rejected, t.failed)

    def checkpoint(self) -> Optional[str]:
        """The ``since`` of the next catch-up: up to the newest event handled before the first
        that was not; unchanged when the walk may have missed an event. Keep it."""
        found: Optional[str] = self._inner.checkpoint()
        return found

    def __repr__(self) -> str:
        return "Recovery(checkpoint=%r)" % self.checkpoint()


# --- one call ------------------------------------------------------------------------------------

@dataclass
class CatchUpResult:
    """What ``catch_up`` did: ``checkpoint`` (keep it; pass it as ``since`` next time), how many
    events it ``found``, the ``Tally`` of their handling (``processed``, ``skipped``,
    ``rejected``, ``failed``), the walk's ``drifts``, and the exceptions your ``persist`` raised
    (``persist_errors``: those events were released and count as ``failed``; never
    swallowed)."""

    checkpoint: Optional[str]
    found: int
    processed: int
    skipped: int
    rejected: int
    failed: int
    drifts: List[Drift]
    persist_errors: List[BaseException] = field(default_factory=list, compare=False)


PATH = "/v1/external-events?"
"""The path ``get`` is given: this, then the query."""

Response = Tuple[int, ResponseHeaders, Union[str, bytes]]
"""What ``get`` returns: the answer's status, headers and body text (or bytes)."""


def _response(value: object) -> Tuple[int, Any, str]:
    if not isinstance(value, (tuple, list)) or len(value) != 3:
        raise TypeError("get(path) must return (status, headers, text), got %s"
                        % type(value).__name__)
    status, headers, text = value
    return (_status(status, "get(path) status"), _headers(headers, "get(path) headers"),
            _text(text, "get(path) text"))


def _sync_result(fn: Callable[..., object], what: str, *args: object) -> object:
    result = fn(*args)
    if inspect.isawaitable(result):
        if inspect.iscoroutine(result):
            result.close()
        raise TypeError("%s must be sync here (it returned %s): an async one goes to "
                        "catch_up_async" % (what, type(result).__name__))
    return result


def _options(since: Optional[str], overlap_ms: Optional[int], page_size: Optional[int],
             get: object, sleep: object, persist: object, token: object,
             clock: object) -> Tuple[CatchUp, str]:
    _kinds.function(get, "get", "a function of the path returning (status, headers, text)")
    if sleep is not None:
        _kinds.function(sleep, "sleep", "a function of milliseconds that waits them")
    _kinds.function(persist, "persist", "a function taking the Envelope (persist it, or raise)")
    tok = _kinds.opt_string(token, "token")
    if clock is not None:
        _kinds.function(clock, "clock", "a function returning the time in milliseconds (an int)")
    walk = CatchUp(since, overlap_ms, page_size)
    return walk, tok or uuid.uuid4().hex


def _result(walk: CatchUp, recovery: Any, replies: Sequence[DeliveryReply]) -> CatchUpResult:
    t = recovery.tally()
    return CatchUpResult(recovery.checkpoint(), len(recovery.events()), t.processed, t.skipped,
                         t.rejected, t.failed, walk.drifts(),
                         [r.persist_error for r in replies if r.persist_error is not None])


def catch_up(get: Callable[[str], Response], receiver: Union[Receiver, str],
             claims: Union[Claims, ClaimStore], persist: Callable[[Envelope], object], *,
             since: Optional[str] = None, overlap_ms: Optional[int] = None,
             page_size: Optional[int] = None, sleep: Optional[Callable[[int], object]] = None,
             token: Optional[str] = None, clock: Optional[Callable[[], int]] = None,
             transaction: Optional[Transaction] = None) -> CatchUpResult:
    """One catch-up, start to end: ``get(path)`` (your authenticated HTTP GET of the API:
    ``path`` is ``/v1/external-events?`` + the query; returns ``(status, headers, text)``) for
    every page core asks for, ``sleep(ms)`` (``time.sleep`` by default) when the API asks to
    wait (core decides each retry, and gives up with ``ApiError``, ``API_ERROR``); then every
    event found, oldest first, handled as ``handle_delivery`` handles a delivery (the receiver's
    decision for the recovered event, claimed in ``claims``, given to ``persist``, completed or
    released; with ``transaction`` as there), each with the token ``<token>:<n>``. An event
    the webhook path already handled is a duplicate (``skipped``). Returns the
    ``CatchUpResult``: keep its ``checkpoint`` (a failed event holds it) and pass it as
    ``since`` next time."""
    walk, prefix = _options(since, overlap_ms, page_size, get, sleep, persist, token, clock)
    rx = _receiver(receiver)
    _sync_store(claims)
    _transaction(transaction, sync=True)
    in_tx = transaction is not None
    wait: Callable[[int], object] = sleep if sleep is not None else (
        lambda ms: time.sleep(ms / 1000))
    query = walk.next_query()
    while query is not None:
        status, headers, text = _response(_sync_result(get, "get", PATH + query))
        try:
            fetched = walk._inner.answered(status, headers, text)
        except GeneratedError as e:
            _raise(e)
        if isinstance(fetched, g.Fetched.WAIT):
            _sync_result(wait, "sleep", fetched.ms)
        query = walk.next_query()
    recovery = walk._inner.recover()
    replies: List[DeliveryReply] = []
    n = 0
    while True:
        tok = "%s:%d" % (prefix, n)
        h, store = _sync_opened(
            claims, lambda c: recovery.handling(rx._inner, c, tok, in_tx),
            lambda lease, window: recovery.handling_with_store_steps(rx._inner, tok, lease,
                                                                     window, in_tx))
        if h is None:
            break
        replies.append(_drive_handling(h, store, persist, clock, transaction))
        if not recovery.handled(h):  # core records every answer: never a loop
            break
        n += 1
    return _result(walk, recovery, replies)


async def catch_up_async(get: Callable[[str], Union[Awaitable[Response], Response]],
                         receiver: Union[Receiver, str],
                         claims: Union[AsyncClaims, AsyncClaimStore],
                         persist: Callable[[Envelope], Union[Awaitable[object], object]], *,
                         since: Optional[str] = None, overlap_ms: Optional[int] = None,
                         page_size: Optional[int] = None,
                         sleep: Optional[Callable[[int], Union[Awaitable[object], object]]] = None,
                         token: Optional[str] = None, clock: Optional[Callable[[], int]] = None,
                         transaction: Optional[AsyncTransaction] = None) -> CatchUpResult:
    """``catch_up`` for asyncio: ``get`` a coroutine function (or a sync one), ``sleep``
    ``asyncio.sleep`` by default, the claims in an ``AsyncClaims`` or an asyncio store, each
    event handled as ``handle_delivery_async`` handles a delivery."""
    walk, prefix = _options(since, overlap_ms, page_size, get, sleep, persist, token, clock)
    rx = _receiver(receiver)
    store, lease, window = _async_store(claims)
    _transaction(transaction, sync=False)
    in_tx = transaction is not None
    query = walk.next_query()
    while query is not None:
        answer: Any = get(PATH + query)
        if inspect.isawaitable(answer):
            answer = await answer
        status, headers, text = _response(answer)
        try:
            fetched = walk._inner.answered(status, headers, text)
        except GeneratedError as e:
            _raise(e)
        if isinstance(fetched, g.Fetched.WAIT):
            waited: Any = (sleep(fetched.ms) if sleep is not None
                           else asyncio.sleep(fetched.ms / 1000))
            if inspect.isawaitable(waited):
                await waited
        query = walk.next_query()
    recovery = walk._inner.recover()
    replies: List[DeliveryReply] = []
    n = 0
    while True:
        h = recovery.handling_with_store_steps(rx._inner, "%s:%d" % (prefix, n), lease, window,
                                               in_tx)
        if h is None:
            break
        replies.append(await _drive_handling_async(h, store, persist, clock, transaction))
        if not recovery.handled(h):  # core records every answer: never a loop
            break
        n += 1
    return _result(walk, recovery, replies)
