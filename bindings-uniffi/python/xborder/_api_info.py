"""What an error answer of the API says (``ApiErrorInfo``) and what a client may do
(``Retry``): below both ``xborder.api`` (``read_api_error``) and ``xborder.errors`` (an
``ApiError``, ``API_ERROR``, carries the answer), so neither imports the other."""

from dataclasses import dataclass
from typing import Any, List, Optional, Union

from ._ffi import CoreEnum, g, same_members, texts


class Retry(CoreEnum):
    """What a client may do after an error answer (the API takes no idempotency key);
    ``str()`` is FORMAT.md's text: ``after`` (send it again, after ``after_ms`` when given),
    ``check_first`` (it may have taken effect: look it up first, never retry it blind), ``no``."""

    AFTER = g.Retry.AFTER
    CHECK_FIRST = g.Retry.CHECK_FIRST
    NO = g.Retry.NO


same_members(Retry, g.Retry)
_RETRY_TEXT = texts(Retry)
_RETRY = {m.value: m for m in Retry}


@dataclass(frozen=True)
class ApiErrorInfo:
    """An error answer of the API as core reads it: the HTTP ``status``, the API's ``code`` and
    ``message`` (None when not strings), the strings of its ``details`` list (None when not a
    list), its ``request_id`` (a str or an int, else None), and ``retry`` with ``after_ms`` (the
    delay the answer gave, only with ``Retry.AFTER``)."""

    status: int
    code: Optional[str]
    message: Optional[str]
    details: Optional[List[str]]
    request_id: Union[str, int, None]
    retry: Retry
    after_ms: Optional[int]


def _request_id(r: Any) -> Union[str, int, None]:
    if r is None:
        return None
    value: Union[str, int] = r.value
    return value


def _api_info(a: Any) -> ApiErrorInfo:
    """The generated module's ``ApiErrorInfo`` as this package's."""
    return ApiErrorInfo(a.status, a.code, a.message,
                        None if a.details is None else list(a.details),
                        _request_id(a.request_id), _RETRY[a.retry], a.after_ms)
