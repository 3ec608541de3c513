"""What an event name is (``EventKind``) and a name a registration refuses
(``RejectedEvent``): below both ``xborder.events`` and ``xborder.errors`` (a
``RegistrationError`` carries the names refused), so neither imports the other."""

from dataclasses import dataclass
from typing import Any

from ._ffi import CoreEnum, g, same_members, texts


class EventKind(CoreEnum):
    """What an event name is; ``str()`` is FORMAT.md's text (``live``, ``planned``, ...)."""

    LIVE = g.EventKind.LIVE
    PLANNED = g.EventKind.PLANNED
    WILDCARD = g.EventKind.WILDCARD
    UNKNOWN = g.EventKind.UNKNOWN
    INVALID = g.EventKind.INVALID



same_members(EventKind, g.EventKind)
_KIND_TEXT = texts(EventKind)
_KIND = {m.value: m for m in EventKind}


@dataclass
class RejectedEvent:
    """A name a registration refuses, and why (its kind)."""

    event: str
    reason: EventKind


def _rejected(r: Any) -> RejectedEvent:
    return RejectedEvent(r.event, _KIND[r.reason])
