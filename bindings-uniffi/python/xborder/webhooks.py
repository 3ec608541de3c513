"""Webhooks: signatures (``sign``, ``verify``), the envelope (``decode_envelope``), receiving
(``Receiver``), and one call for a web handler (``handle_delivery``, ``handle_delivery_async``):
verify, decode, claim, persist, complete or release, and the status and ``Retry-After`` to
answer. Every rule is core's."""

import inspect
import json
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Dict, Mapping, Optional, Protocol, Union

from . import _kinds
from ._ffi import CoreEnum, GeneratedError, g, same_members, texts
from ._kinds import Body, Strings
from .claims import AsyncClaims, ClaimOutcome, ClaimReply, Claims, claim_error_reply
from .errors import XborderError, _raise
from .events import Catalog, EventKind, _KIND

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
    """What ``handle_delivery`` did and what to answer: ``status`` and ``retry_after_s`` (send
    ``headers``), the receiver's ``decision``, the claim's last ``outcome`` (None when nothing was
    claimed), the ``error_code`` of a rejected delivery or a failed claim step, and the exception
    your ``persist`` raised (``persist_error``: the event was released for the provider's
    retry)."""

    status: int
    retry_after_s: Optional[int]
    decision: Decision
    outcome: Optional[ClaimOutcome] = None
    error_code: Optional[str] = None
    persist_error: Optional[BaseException] = field(default=None, compare=False)

    @property
    def headers(self) -> Dict[str, str]:
        """``{"Retry-After": "30"}``, or ``{}``."""
        return {} if self.retry_after_s is None else {"Retry-After": str(self.retry_after_s)}

    @property
    def body(self) -> Dict[str, Any]:
        """A JSON-able answer: ``{"result": ...}`` or ``{"error": CODE, "field": ...}``."""
        if self.error_code is not None:
            out: Dict[str, Any] = {"error": self.error_code}
            if self.decision.error_field is not None and self.outcome is None:
                out["field"] = self.decision.error_field
            return out
        if self.persist_error is not None:
            return {"result": "released"}
        return {"result": str(self.outcome if self.outcome is not None else self.decision.action)}


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
    return rx, raw, sig, tok


def _at(clock: Optional[Callable[[], int]]) -> int:
    return _kinds.integer(clock(), "clock()") if clock is not None else _now_ms()


def _unclaimed(decision: Decision) -> DeliveryReply:
    # Not a live, new, verified event: nothing is claimed. The answer is core's
    # (decision.reply): a reject non-2xx (the provider retries it), anything else 200.
    return DeliveryReply(decision.reply.status, decision.reply.retry_after_s, decision,
                         error_code=decision.error_code)


def handle_delivery(receiver: Union[Receiver, str], claims: Claims, body: Body, headers: Headers,
                    persist: Callable[[Envelope], object], *, token: Optional[str] = None,
                    clock: Optional[Callable[[], int]] = None) -> DeliveryReply:
    """One delivery, start to end, for a sync web handler: the receiver verifies and decodes it;
    a live event is claimed in ``claims`` (this request's ``token``: a new UUID by default;
    ``clock``: the time in ms, ``time.time_ns() // 1_000_000`` by default), given to
    ``persist(envelope)``, then completed, or released when ``persist`` raised. Answer
    ``reply.status`` with ``reply.headers``: every status and ``Retry-After`` of a claim is
    core's (``Claims.reply``, ``claim_error_reply``); 503 with ``Retry-After`` while another
    request holds the event."""
    rx, raw, sig, tok = _common(receiver, body, headers, persist, token, clock)
    _kinds.instance(claims, Claims, "claims", "a Claims (for an asyncio store: "
                    "handle_delivery_async with AsyncClaims)")
    decision = rx.receive(raw, sig)
    if decision.action is not Action.PROCESS or decision.envelope is None:
        return _unclaimed(decision)
    env = decision.envelope
    tok = tok or uuid.uuid4().hex
    try:
        outcome = claims.step("claim", env.id, tok, _at(clock))
    except XborderError as e:
        r = claim_error_reply(e.code)
        return DeliveryReply(r.status, r.retry_after_s, decision, error_code=e.code)
    if outcome is not ClaimOutcome.CLAIMED:
        return _answer(claims.reply("claim", outcome), decision, outcome)
    try:
        result = persist(env)
        if inspect.isawaitable(result):
            if inspect.iscoroutine(result):
                result.close()
            raise TypeError("persist must be a sync function here (it returned %s): an async "
                            "one goes to handle_delivery_async" % type(result).__name__)
    except Exception as failure:
        try:
            released = claims.step("release", env.id, tok, _at(clock))
        except XborderError:
            released = ClaimOutcome.RELEASED
        reply = _answer(claims.reply("release", released), decision, released)
        reply.persist_error = failure
        return reply
    # Persisted: answered as completed whatever complete gives (the record makes a retry
    # harmless), stale included (core's reply for it).
    completed = ClaimOutcome.COMPLETED
    try:
        if claims.step("complete", env.id, tok, _at(clock)) is ClaimOutcome.STALE:
            completed = ClaimOutcome.STALE
    except XborderError:
        pass
    return _answer(claims.reply("complete", completed), decision, completed)


def _answer(reply: Any, decision: Decision, outcome: ClaimOutcome) -> DeliveryReply:
    if reply is None:  # core answers every outcome but claimed, which never comes here
        raise AssertionError("no reply for %s" % outcome)
    return DeliveryReply(reply.status, reply.retry_after_s, decision, outcome)


async def handle_delivery_async(receiver: Union[Receiver, str], claims: AsyncClaims, body: Body,
                                headers: Headers,
                                persist: Callable[[Envelope], Union[Awaitable[object], object]], *,
                                token: Optional[str] = None,
                                clock: Optional[Callable[[], int]] = None) -> DeliveryReply:
    """``handle_delivery`` for asyncio: the claims in an ``AsyncClaims`` (e.g. over
    ``xborder.redis.AsyncRedisClaimStore``), ``persist`` a coroutine function (or a sync one);
    nothing blocks the event loop but the receiver's own work (verify and decode, in core)."""
    rx, raw, sig, tok = _common(receiver, body, headers, persist, token, clock)
    _kinds.instance(claims, AsyncClaims, "claims", "an AsyncClaims (for a sync store: "
                    "handle_delivery with Claims)")
    decision = rx.receive(raw, sig)
    if decision.action is not Action.PROCESS or decision.envelope is None:
        return _unclaimed(decision)
    env = decision.envelope
    tok = tok or uuid.uuid4().hex
    try:
        outcome = await claims.step("claim", env.id, tok, _at(clock))
    except XborderError as e:
        r = claim_error_reply(e.code)
        return DeliveryReply(r.status, r.retry_after_s, decision, error_code=e.code)
    if outcome is not ClaimOutcome.CLAIMED:
        return _answer(claims.reply("claim", outcome), decision, outcome)
    try:
        result = persist(env)
        if inspect.isawaitable(result):
            await result
    except Exception as failure:
        try:
            released = await claims.step("release", env.id, tok, _at(clock))
        except XborderError:
            released = ClaimOutcome.RELEASED
        reply = _answer(claims.reply("release", released), decision, released)
        reply.persist_error = failure
        return reply
    completed = ClaimOutcome.COMPLETED
    try:
        if await claims.step("complete", env.id, tok, _at(clock)) is ClaimOutcome.STALE:
            completed = ClaimOutcome.STALE
    except XborderError:
        pass
    return _answer(claims.reply("complete", completed), decision, completed)
