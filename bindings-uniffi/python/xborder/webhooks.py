"""Webhooks: signatures (``sign``, ``verify``), the envelope (``decode_envelope``), receiving
(``Receiver``), and one call for a web handler (``handle_delivery``, ``handle_delivery_async``):
a thin driver of core's handling (verify, decode, claim, persist, complete or release, and the
status and ``Retry-After`` to answer). Every rule, the order and every reply are core's."""

import inspect
import json
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Dict, Mapping, NoReturn, Optional, Protocol, Union

from . import _kinds
from ._ffi import CoreEnum, GeneratedError, g, same_members, texts
from ._kinds import Body, Strings
from ._drive import drive, drive_async
from .claims import (DEFAULT_LEASE_MS, AsyncClaims, AsyncClaimStore, ClaimCompareAndSet,
                     ClaimLoad, ClaimOutcome, ClaimReply, Claims, ClaimStore, _failures, _OUTCOME,
                     _require_store, _rules, _time)
from .errors import _raise
from ._event_kind import _KIND, EventKind
from .events import Catalog

_SECRETS_HINT = ('pass one secret as verify(secret, ...) / Receiver(secret); several (a key '
                 'rotation) as a list: verify_with_secrets(["whsec_old", "whsec_new"], ...) / '
                 'Receiver.with_secrets(["whsec_old", "whsec_new"])')
SIGNATURE_HEADER = "X-Webhook-Signature"


# --- signatures ---------------------------------------------------------------------------------

def sign(secret: str, body: Body) -> str:
    """The ``X-Webhook-Signature`` of ``body``: lowercase hex HMAC-SHA256 keyed with the UTF-8
    bytes of ``secret``. Raises ``SignatureError`` (``EMPTY_SECRET``)."""
    secret = _kinds.string(secret, "secret")
    if type(body) is not bytes:
        body = _kinds.body(body)
    try:
        text: str = g.sign(secret, body)
    except GeneratedError as e:
        _raise(e)
    return text


def verify(secret: str, body: Body, signature: Optional[str]) -> None:
    """Checks a signature header (None when absent) against the raw body; returns when it
    verifies, raises ``SignatureError`` (``EMPTY_SECRET``, ``MISSING_SIGNATURE``,
    ``MALFORMED_SIGNATURE``, ``SIGNATURE_MISMATCH``) otherwise."""
    if type(secret) is not str:
        _kinds.string(secret, "secret")
    if type(body) is not bytes:
        body = _kinds.body(body)
    if signature is not None and type(signature) is not str:
        _kinds.opt_string(signature, "signature")
    try:
        g.verify(secret, body, signature)
    except GeneratedError as e:
        _raise(e)


def verify_with_secrets(secrets: Strings, body: Body, signature: Optional[str]) -> None:
    """``verify`` during a key rotation: passes when any of ``secrets`` signed the body."""
    secrets = _kinds.strings(secrets, "secrets", _SECRETS_HINT)
    if type(body) is not bytes:
        body = _kinds.body(body)
    _kinds.opt_string(signature, "signature")
    try:
        g.verify_with_secrets(secrets, body, signature)
    except GeneratedError as e:
        _raise(e)


# --- the envelope -------------------------------------------------------------------------------

@dataclass(frozen=True)
class DecodeLimits:
    """Bodies longer (bytes) or nested deeper (arrays and objects, the envelope's own two levels
    included) are refused before they are parsed. ``default_decode_limits()``: core's."""

    max_body_bytes: int
    max_depth: int

    def __post_init__(self) -> None:
        _kinds.integer(self.max_body_bytes, "max_body_bytes")
        _kinds.integer(self.max_depth, "max_depth")


def default_decode_limits() -> DecodeLimits:
    """Core's default limits (1 MiB, depth 64)."""
    d = g.default_decode_limits()
    return DecodeLimits(d.max_body_bytes, d.max_depth)


def _limits(value: object) -> Any:
    limits = _kinds.opt_instance(value, DecodeLimits, "limits", "a DecodeLimits")
    return None if limits is None else g.DecodeLimits(max_body_bytes=limits.max_body_bytes,
                                                      max_depth=limits.max_depth)


@dataclass
class Envelope:
    """A decoded delivery: ``id`` (the idempotency key), ``event``, its ``kind``, the entity's
    ``entity_id`` and ``entity_type``, and ``data_json`` (``entity.data`` as sent, or None)."""

    id: str
    event: str
    kind: EventKind
    entity_id: str
    entity_type: str
    data_json: Optional[str]

    @property
    def data(self) -> Any:
        """``entity.data`` as Python values (``json.loads`` of ``data_json``), or None."""
        return None if self.data_json is None else json.loads(self.data_json)


def _envelope(e: Any) -> Envelope:
    return Envelope(e.id, e.event, _KIND[e.kind], e.entity_id, e.entity_type, e.data_json)


def decode_envelope(body: Body, limits: Optional[DecodeLimits] = None) -> Envelope:
    """Decodes a delivery's raw body (the signature is not checked: see ``Receiver``). Raises
    ``EnvelopeError`` (``BODY_TOO_LARGE``, ``MALFORMED_JSON``, ``MISSING_FIELD``, ...)."""
    if type(body) is not bytes:
        body = _kinds.body(body)
    try:
        return _envelope(g.decode_envelope(body, _limits(limits)))
    except GeneratedError as e:
        _raise(e)


# --- receiving ----------------------------------------------------------------------------------

class Action(CoreEnum):
    """What to do with a delivery; ``str()`` is FORMAT.md's text (``process``, ``ignore``,
    ``duplicate``, ``reject``)."""

    PROCESS = g.Action.PROCESS
    IGNORE = g.Action.IGNORE
    DUPLICATE = g.Action.DUPLICATE
    REJECT = g.Action.REJECT



same_members(Action, g.Action)
_ACTION_TEXT = texts(Action)
_ACTION = {m.value: m for m in Action}


@dataclass
class Decision:
    """The decision on one delivery: its ``action``; whether to answer 2xx (``acknowledges``);
    for a reject, the ``error_code`` and ``error_field``; the ``envelope`` once decoded; and
    ``reply``, what to answer (core's ``Decision::reply``): 200 for process (once persisted),
    ignore and duplicate; for a reject, 400 (the request's signature or body), 413 (a body over
    the limit), 500 (this service's secret) or 503 with ``Retry-After`` (a store that failed)."""

    action: Action
    acknowledges: bool
    error_code: Optional[str]
    error_field: Optional[str]
    envelope: Optional[Envelope]
    reply: ClaimReply


def _decision(d: Any) -> Decision:
    e = d.envelope
    return Decision(_ACTION[d.action], d.acknowledges, d.error_code, d.error_field,
                    None if e is None else
                    Envelope(e.id, e.event, _KIND[e.kind], e.entity_id, e.entity_type, e.data_json),
                    ClaimReply(d.reply.status, d.reply.retry_after_s))


def _receiver_args(window: object, limits: object, catalog: object) -> Any:
    _kinds.integer(window, "window")
    cat = _kinds.opt_instance(catalog, Catalog, "catalog", "a Catalog")
    return _limits(limits), (None if cat is None else cat._inner)


class Receiver:
    """Verifies, decodes and deduplicates deliveries: ``receive(body, signature)`` gives the
    ``Decision``; ``commit(id)`` once the event is persisted. Keyed with one secret (its UTF-8
    bytes, as given); ``window`` committed ids are remembered in memory (0: none, when claims
    deduplicate). Safe to share between threads."""

    __slots__ = ("_inner",)

    def __init__(self, secret: str, window: int = 10_000, limits: Optional[DecodeLimits] = None,
                 catalog: Optional[Catalog] = None) -> None:
        secret = _kinds.string(secret, "secret")
        lim, cat = _receiver_args(window, limits, catalog)
        try:
            self._inner: Any = g.Receiver(secret, window, lim, cat)
        except GeneratedError as e:
            _raise(e)

    @classmethod
    def with_secrets(cls, secrets: Strings, window: int = 10_000,
                     limits: Optional[DecodeLimits] = None,
                     catalog: Optional[Catalog] = None) -> "Receiver":
        """A receiver for a key rotation: a delivery signed with any of ``secrets`` verifies."""
        secrets = _kinds.strings(secrets, "secrets", _SECRETS_HINT)
        lim, cat = _receiver_args(window, limits, catalog)
        self = cls.__new__(cls)
        try:
            self._inner = g.Receiver.with_secrets(secrets, window, lim, cat)
        except GeneratedError as e:
            _raise(e)
        return self

    def receive(self, body: Body, signature: Optional[str]) -> Decision:
        """Decides one delivery: the raw body exactly as received (bytes, bytearray,
        memoryview, or a str: its UTF-8 bytes) and the ``X-Webhook-Signature`` header (None
        when absent). Remembers nothing: only ``commit`` does."""
        if type(body) is not bytes:
            body = _kinds.body(body)
        if signature is not None and type(signature) is not str:
            _kinds.opt_string(signature, "signature")
        return _decision(self._inner.receive(body, signature))

    def commit(self, id: str) -> None:
        """Records ``id`` as processed: after persisting the event, before answering 2xx."""
        id = _kinds.string(id, "id")
        try:
            self._inner.commit(id)
        except GeneratedError as e:
            _raise(e)

    def __repr__(self) -> str:
        return "Receiver()"


# --- one call for a web handler -----------------------------------------------------------------

@dataclass
class DeliveryReply:
    """What ``handle_delivery`` did and what to answer (core's handling decided all of it):
    ``status`` and ``retry_after_s`` (send ``headers``), the receiver's ``decision``, the claim's
    last ``outcome`` (None when nothing was claimed), the ``error_code`` (a rejected delivery's,
    a failed claim step's, or ``PERSIST_FAILED``; with a 200 when ``complete`` failed after the
    persist), whether the event was ``persisted``, and the exception your ``persist`` (or, with
    ``transaction=``, its ``begin`` or ``commit``) raised (``persist_error``: the event was
    released for the provider's retry). It is kept here, never
    swallowed: log it or raise it after answering."""

    status: int
    retry_after_s: Optional[int]
    decision: Decision
    outcome: Optional[ClaimOutcome] = None
    error_code: Optional[str] = None
    persist_error: Optional[BaseException] = field(default=None, compare=False)
    persisted: bool = False

    @property
    def headers(self) -> Dict[str, str]:
        """``{"Retry-After": "30"}``, or ``{}``."""
        return {} if self.retry_after_s is None else {"Retry-After": str(self.retry_after_s)}

    @property
    def body(self) -> Dict[str, Any]:
        """A JSON-able answer: ``{"result": ...}`` for a 2xx (the outcome, or the decision's
        action), else ``{"error": CODE}`` (with ``"field"`` for a rejected delivery's)."""
        if 200 <= self.status < 300 or self.error_code is None:
            return {"result": str(self.outcome if self.outcome is not None
                                  else self.decision.action)}
        out: Dict[str, Any] = {"error": self.error_code}
        if self.decision.error_field is not None and self.outcome is None:
            out["field"] = self.decision.error_field
        return out


class HeaderLookup(Protocol):
    """The request's headers as a framework holds them: a dict, Starlette's ``Headers``,
    ``http.server``'s ``email.message.Message``: anything with ``get(name)``."""

    def get(self, name: str, /) -> Optional[str]: ...


Headers = Union[str, None, HeaderLookup, Mapping[str, str]]
"""The signature header's value (None when absent), or the request's headers (looked up
case-insensitively)."""


def _signature(value: object) -> Optional[str]:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, Mapping) or callable(getattr(value, "get", None)):
        headers: Any = value
        found = headers.get(SIGNATURE_HEADER)
        if found is None and callable(getattr(value, "items", None)):
            wanted = SIGNATURE_HEADER.lower()
            for k, v in headers.items():
                if isinstance(k, str) and k.lower() == wanted:
                    found = v
                    break
        return _kinds.opt_string(found, "headers[%r]" % SIGNATURE_HEADER)
    raise TypeError("headers must be the request's headers (a mapping), the signature header's "
                    "value (a str) or None, got %s" % type(value).__name__)


def _receiver(value: object) -> Receiver:
    if isinstance(value, Receiver):
        return value
    if isinstance(value, str):
        return Receiver(value, window=0)
    raise TypeError("receiver must be a Receiver or the signing secret (a str), got %s"
                    % type(value).__name__)


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def _common(receiver: object, body: object, headers: object, persist: object, token: object,
            clock: object) -> Any:
    rx = _receiver(receiver)
    raw = _kinds.body(body)
    sig = _signature(headers)
    _kinds.function(persist, "persist", "a function taking the Envelope (persist it, or raise)")
    tok = _kinds.opt_string(token, "token")
    if clock is not None:
        _kinds.function(clock, "clock", "a function returning the time in milliseconds (an int)")
    return rx, raw, sig, tok or uuid.uuid4().hex


def _at(clock: Optional[Callable[[], int]]) -> int:
    return _kinds.integer(clock(), "clock()") if clock is not None else _now_ms()


def _store_rules(store: object) -> Any:
    """A store's own lease and window when it has them (``PostgresClaims.store(conn)``), else
    core's defaults."""
    lease = getattr(store, "lease_ms", DEFAULT_LEASE_MS)
    window = getattr(store, "window_ms", None)
    _rules(lease, window)
    return lease, window


# Core ends a handling in at most ~40 acts (3 claim steps of at most 16 conflicts, a persist,
# the answer): a driver that has not seen the answer after this many is facing a bug.
_MAX_ACTS = 256


class _Driver:
    """One handling's acts, the host's side: the store calls and the persist, done by the
    caller; every decision is the generated ``DeliveryHandling``'s (core's)."""

    __slots__ = ("h", "store", "who", "persist_error", "acts", "tx", "open")

    def __init__(self, h: Any, store: object, tx: object = None) -> None:
        self.h = h
        self.store = store
        self.who = type(store).__name__
        self.persist_error: Optional[BaseException] = None
        self.acts = 0
        self.tx: Any = tx
        self.open = False  # the transaction began and is not ended yet

    def count(self) -> None:
        self.acts += 1
        if self.acts > _MAX_ACTS:
            raise RuntimeError("xborder: the delivery handling did not end within %d acts (a bug "
                               "in xborder: please report it)" % _MAX_ACTS)

    def begin(self, at: int) -> Any:
        return self.h.step(at)

    # The store loop's Steps (xborder._drive): the generated handling's acts, a Load or a
    # CompareAndSet act read as the store need it is.

    def need(self, act: Any) -> Optional[Union[ClaimLoad, ClaimCompareAndSet]]:
        if isinstance(act, (g.HandlingAct.LOAD, g.HandlingAct.COMPARE_AND_SET)):
            need = _act(act)
            assert isinstance(need, (ClaimLoad, ClaimCompareAndSet))
            return need
        return None

    def loaded(self, entry: Optional[str]) -> Any:
        return self.h.loaded(entry)

    def swapped(self, applied: bool) -> Any:
        return self.h.swapped(applied)

    def failed(self, method: str, error: BaseException) -> Any:
        return self.h.store_failed("store: %s.%s: %s: %s" % (self.who, method,
                                                             type(error).__name__, error))

    def persisted(self, e: Optional[BaseException]) -> Any:
        if e is not None:
            self.persist_error = e
            self.rollback()
        return self.h.persisted(e is None)

    def begun(self) -> Optional[Exception]:
        """``transaction.begin()`` before the persist (its exception: the write failed)."""
        failure = _sync_call(self.tx.begin, "transaction.begin")
        self.open = failure is None
        return failure

    def rollback(self) -> None:
        """Ends the open transaction without its write (an error of the rollback is the
        driver's to drop: the write is not committed either way, and the reply keeps the
        write's or the commit's exception)."""
        if self.open:
            self.open = False
            _sync_call(self.tx.rollback, "transaction.rollback")

    def committed(self, e: Optional[BaseException]) -> Any:
        """The ``Commit`` act's result: ``transaction.commit()`` raised ``e`` (the reply's
        ``persist_error``; rolled back) or not."""
        if e is not None:
            self.persist_error = e
            self.rollback()
        self.open = False
        return self.h.committed(e is None)

    def reply(self, answer: Any) -> DeliveryReply:
        return DeliveryReply(answer.reply.status, answer.reply.retry_after_s,
                             _decision(self.h.decision()),
                             None if answer.outcome is None else _OUTCOME[answer.outcome],
                             answer.code, self.persist_error, answer.persisted)


_STEPS = (g.HandlingAct.CLAIM, g.HandlingAct.COMPLETE, g.HandlingAct.RELEASE)


# --- the handling, act by act (sans-IO) ----------------------------------------------------------

@dataclass
class HandlingStep:
    """Run the claim step the handling waits for (``step``: ``claim``, ``complete`` or
    ``release``) on event ``id``: ``handling.step(at_ms)``."""

    step: str
    id: str


@dataclass
class HandlingPersist:
    """Persist ``envelope`` (your write), then ``handling.persisted(ok)``."""

    envelope: Envelope


@dataclass
class HandlingCommit:
    """(A handling in a transaction.) Commit the transaction that holds the event's write and
    the claim's completion of event ``id``, then ``handling.committed(ok)``."""

    id: str


@dataclass
class HandlingStepResult:
    """The last claim step a handling ran (``DeliveryHandling.last_step()``): ``step``
    (``claim``, ``complete``, ``release``) and its ``outcome``, or the ``code`` of its error
    (e.g. ``STORE_UNAVAILABLE``)."""

    step: str
    outcome: Optional[ClaimOutcome]
    code: Optional[str]


@dataclass
class HandlingAnswer:
    """The end: answer the provider with ``status`` and ``retry_after_s`` (``headers``); the
    last claim step's ``outcome`` (None: nothing was claimed), the ``code`` (a rejected
    delivery's, a failed claim step's, or ``PERSIST_FAILED``) and whether the event was
    ``persisted``."""

    status: int
    retry_after_s: Optional[int]
    outcome: Optional[ClaimOutcome]
    code: Optional[str]
    persisted: bool

    @property
    def headers(self) -> Dict[str, str]:
        """``{"Retry-After": "30"}``, or ``{}``."""
        return {} if self.retry_after_s is None else {"Retry-After": str(self.retry_after_s)}


HandlingAct = Union[HandlingStep, HandlingPersist, HandlingCommit, ClaimLoad, ClaimCompareAndSet,
                    HandlingAnswer]
"""What a ``DeliveryHandling`` needs next."""

_STEP_NAMES = {g.HandlingAct.CLAIM: "claim", g.HandlingAct.COMPLETE: "complete",
               g.HandlingAct.RELEASE: "release"}


def _handling_answer(a: Any) -> HandlingAnswer:
    return HandlingAnswer(a.reply.status, a.reply.retry_after_s,
                          None if a.outcome is None else _OUTCOME[a.outcome], a.code, a.persisted)


def _act(a: Any) -> HandlingAct:
    step = _STEP_NAMES.get(type(a))
    if step is not None:
        return HandlingStep(step, a.id)
    if isinstance(a, g.HandlingAct.PERSIST):
        return HandlingPersist(_envelope(a.envelope))
    if isinstance(a, g.HandlingAct.LOAD):
        return ClaimLoad(a.id, _time(a.time))
    if isinstance(a, g.HandlingAct.COMPARE_AND_SET):
        return ClaimCompareAndSet(a.id, a.expected, a.new, _time(a.time))
    if isinstance(a, g.HandlingAct.COMMIT):
        return HandlingCommit(a.id)
    if isinstance(a, g.HandlingAct.ANSWER):
        return _handling_answer(a.answer)
    raise RuntimeError("xborder: an act this package does not know: %r" % (a,))


def _raise_act(e: Any) -> NoReturn:
    _raise(e)


class DeliveryHandling:
    """One delivery, act by act, for a host that drives it itself (``handle_delivery`` and
    ``handle_delivery_async`` do it for a web handler): ``next()`` says what to do
    (``HandlingStep``, ``HandlingPersist``, ``ClaimLoad``, ``ClaimCompareAndSet``,
    ``HandlingCommit``, ``HandlingAnswer``); core decides the order and every reply. Over a ``Claims``
    (``DeliveryHandling(...)``), ``step(at_ms)`` runs a whole claim step; over your own store
    (``DeliveryHandling.with_store_steps(...)``), it starts it and the store calls come back as
    ``ClaimLoad`` / ``ClaimCompareAndSet``, answered with ``loaded``, ``swapped`` or
    ``store_failed``. ``in_transaction=True``: the event's write and the claim's completion
    are one transaction of yours (begin it at ``HandlingPersist``, the complete step's store
    calls on it, then ``HandlingCommit``: commit, ``committed(ok)``). A call out of order
    raises ``ClaimError`` (``INVALID_STEP``)."""

    __slots__ = ("_inner",)

    def __init__(self, receiver: Union[Receiver, str], claims: Claims, body: Body,
                 headers: Headers, token: str, *, in_transaction: bool = False) -> None:
        rx = _receiver(receiver)
        raw = _kinds.body(body)
        sig = _signature(headers)
        _kinds.instance(claims, Claims, "claims", "a Claims (for your own store: "
                        "DeliveryHandling.with_store_steps)")
        token = _kinds.string(token, "token")
        _kinds.boolean(in_transaction, "in_transaction")
        self._inner: Any = g.DeliveryHandling(rx._inner, claims._inner, raw, sig, token,
                                              in_transaction)

    @classmethod
    def with_store_steps(cls, receiver: Union[Receiver, str], body: Body, headers: Headers,
                         token: str, lease_ms: int = DEFAULT_LEASE_MS,
                         window_ms: Optional[int] = None, *,
                         in_transaction: bool = False) -> "DeliveryHandling":
        """The handling of one delivery whose claims live in a store you call yourself (an
        asyncio client, a database): ``lease_ms`` and ``window_ms`` as for ``Claims``,
        ``in_transaction`` as for the constructor."""
        rx = _receiver(receiver)
        raw = _kinds.body(body)
        sig = _signature(headers)
        token = _kinds.string(token, "token")
        _rules(lease_ms, window_ms)
        _kinds.boolean(in_transaction, "in_transaction")
        self = cls.__new__(cls)
        self._inner = g.DeliveryHandling.with_store_steps(rx._inner, raw, sig, token, lease_ms,
                                                          window_ms, in_transaction)
        return self

    @property
    def decision(self) -> Decision:
        """The receiver's decision the handling started from."""
        return _decision(self._inner.decision())

    def next(self) -> HandlingAct:
        """What to do next."""
        return _act(self._inner.next())

    def step(self, at_ms: int) -> HandlingAct:
        """Runs (over ``Claims``) or starts (over your store: a ``ClaimLoad``) the claim step
        the handling waits for, at ``at_ms`` (your clock, ms): the next act."""
        at_ms = _kinds.integer(at_ms, "at_ms")
        try:
            return _act(self._inner.step(at_ms))
        except GeneratedError as e:
            _raise_act(e)

    def loaded(self, entry: Optional[str]) -> HandlingAct:
        """The entry text your store holds for the ``ClaimLoad``'s id (None: none)."""
        entry = _kinds.opt_string(entry, "entry")
        try:
            return _act(self._inner.loaded(entry))
        except GeneratedError as e:
            _raise_act(e)

    def swapped(self, applied: bool) -> HandlingAct:
        """Whether your store applied the ``ClaimCompareAndSet``."""
        _kinds.boolean(applied, "applied")
        try:
            return _act(self._inner.swapped(applied))
        except GeneratedError as e:
            _raise_act(e)

    def store_failed(self, message: str) -> HandlingAct:
        """Your store's call failed: the step ends with ``STORE_UNAVAILABLE`` and the handling
        goes on as core says."""
        message = _kinds.string(message, "message")
        try:
            return _act(self._inner.store_failed(message))
        except GeneratedError as e:
            _raise_act(e)

    def persisted(self, ok: bool) -> HandlingAct:
        """Whether you persisted the event (False: your write failed)."""
        _kinds.boolean(ok, "ok")
        try:
            return _act(self._inner.persisted(ok))
        except GeneratedError as e:
            _raise_act(e)

    def committed(self, ok: bool) -> HandlingAct:
        """(In a transaction.) Whether your commit succeeded: the answer, or the release when
        it did not."""
        _kinds.boolean(ok, "ok")
        try:
            return _act(self._inner.committed(ok))
        except GeneratedError as e:
            _raise_act(e)

    def last_step(self) -> Optional[HandlingStepResult]:
        """The last claim step run (None before the first)."""
        r = self._inner.last_step()
        return None if r is None else HandlingStepResult(
            r.step, None if r.outcome is None else _OUTCOME[r.outcome], r.code)

    def answer(self) -> Optional[HandlingAnswer]:
        """The answer, once the handling is over (None before)."""
        a = self._inner.answer()
        return None if a is None else _handling_answer(a)

    def __repr__(self) -> str:
        return "DeliveryHandling()"


class Transaction(Protocol):
    """The host's transaction that holds the event's write and the claim's completion
    (``handle_delivery(..., transaction=)``): ``begin`` opens it (before ``persist``),
    ``commit`` commits it (raises when it did not), ``rollback`` drops it. The SQL stores
    (``PostgresClaims(...).store(conn)``, ``SqliteClaims(...).store(conn)``) are one, on their
    connection."""

    def begin(self) -> object: ...

    def commit(self) -> object: ...

    def rollback(self) -> object: ...


class AsyncTransaction(Protocol):
    """``Transaction`` for ``handle_delivery_async``: coroutine functions
    (``AsyncPostgresClaims(...).store(conn)`` is one)."""

    def begin(self) -> Awaitable[object]: ...

    def commit(self) -> Awaitable[object]: ...

    def rollback(self) -> Awaitable[object]: ...


def _transaction(tx: object, sync: bool) -> None:
    if tx is None:
        return
    for method in ("begin", "commit", "rollback"):
        fn = getattr(tx, method, None)
        if not callable(fn):
            raise TypeError("transaction must be %s (begin, commit, rollback), got %s"
                            % ("a Transaction" if sync else "an AsyncTransaction",
                               type(tx).__name__))
        if inspect.iscoroutinefunction(fn) == sync:
            raise TypeError("transaction must be %s: %s.%s is %s (%s)"
                            % ("a Transaction" if sync else "an AsyncTransaction",
                               type(tx).__name__, method, "async" if sync else "not async",
                               "an async one goes to handle_delivery_async" if sync
                               else "a sync one goes to handle_delivery"))


def _sync_call(fn: Callable[[], object], what: str) -> Optional[Exception]:
    """``fn()`` for a sync driver (an awaitable returned is a ``TypeError``): its exception."""
    try:
        result = fn()
        if inspect.isawaitable(result):
            if inspect.iscoroutine(result):
                result.close()
            raise TypeError("%s must be sync here (it returned %s): an async one goes to "
                            "handle_delivery_async" % (what, type(result).__name__))
    except Exception as failure:
        return failure
    return None


def _sync_persist(persist: Callable[[Envelope], object], env: Envelope) -> Optional[Exception]:
    try:
        result = persist(env)
        if inspect.isawaitable(result):
            if inspect.iscoroutine(result):
                result.close()
            raise TypeError("persist must be a sync function here (it returned %s): an async "
                            "one goes to handle_delivery_async" % type(result).__name__)
    except Exception as failure:
        return failure
    return None


def _sql_hint(claims: object) -> str:
    if callable(getattr(claims, "store", None)) and callable(getattr(claims, "complete_in", None)):
        return " (SQL claims take the connection: claims.store(conn))"
    return ""


def _sync_store(claims: object) -> None:
    if isinstance(claims, AsyncClaims):
        raise TypeError("claims must be a Claims or a sync ClaimStore, got an AsyncClaims: "
                        "for an asyncio store, handle_delivery_async")
    if not isinstance(claims, Claims):
        if not callable(getattr(claims, "load", None)):
            raise TypeError("claims must be a Claims (in memory, or Claims.with_store(store)) "
                            "or a sync ClaimStore (load, compare_and_set), got %s%s"
                            % (type(claims).__name__, _sql_hint(claims)))
        _require_store(claims, "claims", sync=True)


def handle_delivery(receiver: Union[Receiver, str], claims: Union[Claims, ClaimStore],
                    body: Body, headers: Headers, persist: Callable[[Envelope], object], *,
                    token: Optional[str] = None,
                    clock: Optional[Callable[[], int]] = None,
                    transaction: Optional[Transaction] = None) -> DeliveryReply:
    """One delivery, start to end, for a sync web handler, as core's handling says: the
    receiver verifies and decodes it; a live event is claimed in ``claims`` (a ``Claims``: in
    memory or ``Claims.with_store``; or a sync store itself: ``xborder.redis.RedisClaimStore``,
    ``PostgresClaims(...).store(conn)``, ``SqliteClaims(...).store(conn)``, any object with
    ``load(id, time)`` and ``compare_and_set(id, expected, new, time)``, given core's times),
    with this request's ``token`` (a new UUID by default) at
    ``clock()`` (ms; ``time.time_ns() // 1_000_000`` by default), given to
    ``persist(envelope)``, then completed, or released when ``persist`` raised (its exception
    is the reply's ``persist_error``, never swallowed). Answer ``reply.status`` with
    ``reply.headers``: every status and ``Retry-After`` is core's; 503 with ``Retry-After``
    while another request holds the event; 200 once persisted, whatever ``complete`` gives.

    With a ``transaction`` (a ``Transaction``: ``begin()``, ``commit()``, ``rollback()``; the
    SQL stores are one, on their connection: ``transaction=store``), the event's write and the
    claim's completion commit together, in core's order: claim (committed at once), then
    ``transaction.begin()`` and ``persist(envelope)`` (your write on the same connection, not
    committed), the complete step's store calls inside that transaction, ``commit()``, the
    answer. A write or a commit that raised is rolled back and the claim released: 500
    ``PERSIST_FAILED``, the exception as ``persist_error``. A complete that is not
    ``completed`` there commits nothing: rolled back, answered as core says (``stale``: 503
    with the lease as ``Retry-After``; a store error: its reply), ``persisted`` False."""
    rx, raw, sig, tok = _common(receiver, body, headers, persist, token, clock)
    _sync_store(claims)
    _transaction(transaction, sync=True)
    in_tx = transaction is not None
    h, store = _sync_opened(
        claims, lambda c: g.DeliveryHandling(rx._inner, c, raw, sig, tok, in_tx),
        lambda lease, window: g.DeliveryHandling.with_store_steps(rx._inner, raw, sig, tok, lease,
                                                                   window, in_tx))
    return _drive_handling(h, store, persist, clock, transaction)


def _sync_opened(claims: object, over_claims: Callable[[Any], Any],
                 over_store: Callable[[int, Optional[int]], Any]) -> Any:
    """A generated handling and the store its acts go to: ``over_claims(claims._inner)`` over
    a ``Claims`` (no store: it answers inside each step), else ``over_store(lease, window)``
    over the host's sync store (``claims`` itself, with its own lease and window)."""
    if isinstance(claims, Claims):
        return over_claims(claims._inner), None
    lease, window = _store_rules(claims)
    return over_store(lease, window), claims


def _drive_handling(h: Any, store: object, persist: Callable[[Envelope], object],
                    clock: Optional[Callable[[], int]],
                    transaction: Optional[Transaction]) -> DeliveryReply:
    """The one sync driver of a generated handling (a delivery's, or a recovered event's: the
    catch-up's): its acts until the answer, the claim steps at ``clock()``, the store acts
    answered by ``store``, the host's ``persist`` (and ``transaction``). Every decision is the
    handling's (core's)."""
    in_tx = transaction is not None
    d = _Driver(h, store, transaction)
    try:
        act = h.next()
        while not isinstance(act, g.HandlingAct.ANSWER):
            d.count()
            if isinstance(act, _STEPS):
                act = d.begin(_at(clock))
            elif isinstance(act, g.HandlingAct.PERSIST):
                env = _envelope(act.envelope)
                failure = d.begun() if in_tx else None
                if failure is None:
                    failure = _sync_persist(persist, env)
                act = d.persisted(failure)
            elif isinstance(act, g.HandlingAct.COMMIT):
                act = d.committed(_sync_call(d.tx.commit, "transaction.commit"))
            elif isinstance(act, (g.HandlingAct.LOAD, g.HandlingAct.COMPARE_AND_SET)):
                act = drive(store, act, d, d.who)  # the package's one store loop
            else:
                raise RuntimeError("xborder: an act this package does not know: %r" % (act,))
    except GeneratedError as e:  # INVALID_STEP: a bug of this driver
        _raise(e)
    finally:
        d.rollback()  # a transaction still open at the answer (or after an exception)
        # A store of Claims.with_store that raised left its exception for a StoreError's
        # cause: the handling answered it, so it is dropped (with its frames).
        _failures.last = None
    return d.reply(act.answer)


def _async_store(claims: object) -> Any:
    if isinstance(claims, AsyncClaims):
        return claims.store, claims.lease_ms, claims.window_ms
    if isinstance(claims, Claims):
        raise TypeError("claims must be an AsyncClaims or an asyncio store, got a Claims: for "
                        "a sync store, handle_delivery")
    if not callable(getattr(claims, "load", None)):
        raise TypeError("claims must be an AsyncClaims or an asyncio store (async load, "
                        "compare_and_set), got %s%s" % (type(claims).__name__, _sql_hint(claims)))
    _require_store(claims, "claims", sync=False)
    lease, window = _store_rules(claims)
    return claims, lease, window


async def _awaited(value: Any, who: str, method: str) -> Any:
    if not inspect.isawaitable(value):
        raise TypeError("%s.%s must be async (return an awaitable), got %s: for a sync store, "
                        "handle_delivery" % (who, method, type(value).__name__))
    return await value


async def handle_delivery_async(receiver: Union[Receiver, str],
                                claims: Union[AsyncClaims, AsyncClaimStore], body: Body,
                                headers: Headers,
                                persist: Callable[[Envelope], Union[Awaitable[object], object]], *,
                                token: Optional[str] = None,
                                clock: Optional[Callable[[], int]] = None,
                                transaction: Optional[AsyncTransaction] = None) -> DeliveryReply:
    """``handle_delivery`` for asyncio: the claims in an ``AsyncClaims`` (e.g. over
    ``xborder.redis.AsyncRedisClaimStore``) or an asyncio store itself
    (``AsyncPostgresClaims(...).store(conn)``, any object with ``async load(id, time)`` and
    ``async compare_and_set(id, expected, new, time)``: awaited as core's handling asks), ``persist`` a coroutine function (or
    a sync one); nothing blocks the event loop but core's own work (verify, decode, decide).
    A ``transaction`` is an ``AsyncTransaction`` (``async begin()``, ``commit()``,
    ``rollback()``; ``AsyncPostgresClaims(...).store(conn)`` is one), driven as in
    ``handle_delivery``."""
    rx, raw, sig, tok = _common(receiver, body, headers, persist, token, clock)
    store, lease, window = _async_store(claims)
    _transaction(transaction, sync=False)
    in_tx = transaction is not None
    h = g.DeliveryHandling.with_store_steps(rx._inner, raw, sig, tok, lease, window, in_tx)
    return await _drive_handling_async(h, store, persist, clock, transaction)


async def _drive_handling_async(h: Any, store: object,
                                persist: Callable[[Envelope], Union[Awaitable[object], object]],
                                clock: Optional[Callable[[], int]],
                                transaction: Optional[AsyncTransaction]) -> DeliveryReply:
    """``_drive_handling`` for asyncio: the store's calls, ``persist`` and the
    ``transaction``'s are awaited."""
    in_tx = transaction is not None
    d = _Driver(h, store)
    tx: Any = transaction
    try:
        act = h.next()
        while not isinstance(act, g.HandlingAct.ANSWER):
            d.count()
            if isinstance(act, _STEPS):
                act = d.begin(_at(clock))
            elif isinstance(act, g.HandlingAct.PERSIST):
                failure: Optional[Exception] = None
                try:
                    if in_tx:
                        await _awaited(tx.begin(), "transaction", "begin")
                        d.open = True
                    result = persist(_envelope(act.envelope))
                    if inspect.isawaitable(result):
                        await result
                except Exception as e:
                    failure = e
                if failure is not None:
                    d.persist_error = failure
                    await _rollback_async(d, tx)
                act = h.persisted(failure is None)
            elif isinstance(act, g.HandlingAct.COMMIT):
                failure = None
                try:
                    await _awaited(tx.commit(), "transaction", "commit")
                except Exception as e:
                    failure = e
                    d.persist_error = e
                    await _rollback_async(d, tx)
                d.open = False
                act = h.committed(failure is None)
            elif isinstance(act, (g.HandlingAct.LOAD, g.HandlingAct.COMPARE_AND_SET)):
                act = await drive_async(store, act, d, d.who)  # the package's one store loop
            else:
                raise RuntimeError("xborder: an act this package does not know: %r" % (act,))
    except GeneratedError as e:  # INVALID_STEP: a bug of this driver
        _raise(e)
    finally:
        await _rollback_async(d, tx)  # still open at the answer (or after an exception)
    return d.reply(act.answer)


async def _rollback_async(d: _Driver, tx: Any) -> None:
    """``_Driver.rollback`` awaited."""
    if d.open:
        d.open = False
        try:
            await _awaited(tx.rollback(), "transaction", "rollback")
        except Exception:
            pass
