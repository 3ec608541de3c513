"""Event names: classify them, check a webhook registration, match subscriptions; a ``Catalog``
extends the built-in names. Every rule is core's."""

from dataclasses import dataclass
from typing import Any, List, Optional

from . import _kinds
from ._kinds import Strings
from ._event_kind import _KIND, _rejected
from ._event_kind import EventKind as EventKind, RejectedEvent as RejectedEvent
from ._ffi import GeneratedError, g
from .errors import _raise

_LIST_HINT = 'pass a list of event names: ["order:created"]'
_SUBS_HINT = 'pass a list of event names or wildcards: ["order:*"]'


@dataclass
class EventClassification:
    """An event name's kind, and its entity and action when it has them (``order``,
    ``created``)."""

    kind: EventKind
    entity: Optional[str]
    action: Optional[str]


@dataclass
class RegistrationCheck:
    """The check of a Create Webhook call: ``ok`` with the ``events`` to send, or the ``code``
    (``VALIDATION_FAILED``, ``WEBHOOK_LIMIT_REACHED``) and the names ``rejected``."""

    ok: bool
    code: Optional[str]
    rejected: List[RejectedEvent]
    events: List[str]


def _classification(c: Any) -> EventClassification:
    return EventClassification(_KIND[c.kind], c.entity, c.action)


def _registration(r: Any) -> RegistrationCheck:
    return RegistrationCheck(r.ok, r.code, [_rejected(j) for j in r.rejected], list(r.events))


def classify_event(name: str) -> EventClassification:
    """Classifies an event name against the built-in catalog."""
    if type(name) is not str:
        _kinds.string(name, "name")
    return _classification(g.classify_event(name))


def check_registration(events: Strings, existing_webhooks: int = 0) -> RegistrationCheck:
    """Checks a Create Webhook call: every name live or a listed wildcard, fewer than 5 webhooks
    existing already."""
    events = _kinds.strings(events, "events", _LIST_HINT)
    existing_webhooks = _kinds.integer(existing_webhooks, "existing_webhooks", _kinds.U32)
    return _registration(g.check_registration(events, existing_webhooks))


def create_webhook_body(events: Strings, url: str, existing_webhooks: int = 0) -> str:
    """The JSON body of ``POST /v1/webhooks`` after the check of ``check_registration``; raises
    ``RegistrationError`` when the server would refuse it."""
    events = _kinds.strings(events, "events", _LIST_HINT)
    url = _kinds.string(url, "url")
    existing_webhooks = _kinds.integer(existing_webhooks, "existing_webhooks", _kinds.U32)
    try:
        text: str = g.create_webhook_body(events, url, existing_webhooks)
    except GeneratedError as e:
        _raise(e)
    return text


def event_matches(subscriptions: Strings, event: str) -> bool:
    """Whether a delivered ``event`` is covered by any of ``subscriptions`` (the name itself, or
    a wildcard of its family)."""
    subscriptions = _kinds.strings(subscriptions, "subscriptions", _SUBS_HINT)
    event = _kinds.string(event, "event")
    return bool(g.event_matches(subscriptions, event))


class Catalog:
    """The built-in event names, extended with names this release does not know yet (give it to
    a ``Receiver``, which copies it: add names first). Safe to share between threads."""

    __slots__ = ("_inner",)

    def __init__(self) -> None:
        self._inner: Any = g.Catalog()

    def add_live(self, name: str) -> None:
        """Adds a live event name; a bad name raises ``CatalogError`` (``INVALID_EVENT_NAME``)."""
        name = _kinds.string(name, "name")
        try:
            self._inner.add_live(name)
        except GeneratedError as e:
            _raise(e)

    def add_wildcard(self, name: str) -> None:
        """Adds a wildcard (``family:*``) a registration may list."""
        name = _kinds.string(name, "name")
        try:
            self._inner.add_wildcard(name)
        except GeneratedError as e:
            _raise(e)

    def classify(self, name: str) -> EventClassification:
        name = _kinds.string(name, "name")
        return _classification(self._inner.classify(name))

    def is_live(self, name: str) -> bool:
        name = _kinds.string(name, "name")
        return bool(self._inner.is_live(name))

    def check_registration(self, events: Strings, existing_webhooks: int = 0) -> RegistrationCheck:
        events = _kinds.strings(events, "events", _LIST_HINT)
        existing_webhooks = _kinds.integer(existing_webhooks, "existing_webhooks", _kinds.U32)
        return _registration(self._inner.check_registration(events, existing_webhooks))

    def create_webhook_body(self, events: Strings, url: str, existing_webhooks: int = 0) -> str:
        events = _kinds.strings(events, "events", _LIST_HINT)
        url = _kinds.string(url, "url")
        existing_webhooks = _kinds.integer(existing_webhooks, "existing_webhooks", _kinds.U32)
        try:
            text: str = self._inner.create_webhook_body(events, url, existing_webhooks)
        except GeneratedError as e:
            _raise(e)
        return text

    def matches(self, subscriptions: Strings, event: str) -> bool:
        subscriptions = _kinds.strings(subscriptions, "subscriptions", _SUBS_HINT)
        event = _kinds.string(event, "event")
        return bool(self._inner.matches(subscriptions, event))

    def __repr__(self) -> str:
        return "Catalog()"
