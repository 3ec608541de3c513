"""The API's error answers (contract v4 ``api.error``): ``read_api_error`` reads what an error
answer says (code, message, details, request id) and whether to send the request again
(``Retry``). Every rule is core's; this module converts."""

from typing import Any, Iterable, List, Mapping, Optional, Tuple, Union

from . import _kinds
from ._api_info import ApiErrorInfo, Retry, _api_info
from ._ffi import GeneratedError, g
from .errors import _raise

__all__ = ["read_api_error", "ApiErrorInfo", "Retry", "ResponseHeaders", "ResponseBody"]

ResponseHeaders = Union[None, Mapping[str, str], Iterable[Tuple[str, str]]]
"""An answer's headers as an HTTP client holds them: a mapping (a dict, ``requests``'
``CaseInsensitiveDict``, ``httpx.Headers``, ``http.client``'s message: anything with
``items()``), a list of ``(name, value)`` pairs, or None. Names are read without regard to
case."""

ResponseBody = Union[None, str, bytes, bytearray, memoryview, Mapping[str, Any], List[Any],
                     int, float, bool]
"""An answer's body: its text (``str``) or raw bytes (UTF-8), read by core (one that is not JSON
reads as no body); or the body you parsed (a dict, a list, ...); None: no body."""


def _headers(value: object, name: str) -> List[Any]:
    """The generated ``HttpHeader`` list of ``value`` (``ResponseHeaders``)."""
    if value is None:
        return []
    if isinstance(value, (str, bytes, bytearray, memoryview)):
        raise TypeError("%s must be a mapping of header names to values or a list of (name, "
                        "value) pairs, got %s" % (name, type(value).__name__))
    items: Any = value
    if callable(getattr(value, "items", None)):
        items = items.items()
    out = []
    try:
        pairs = list(items)
    except TypeError:
        raise TypeError("%s must be a mapping of header names to values or a list of (name, "
                        "value) pairs, got %s" % (name, type(value).__name__)) from None
    for i, pair in enumerate(pairs):
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError("%s[%d] must be a (name, value) pair of str, got %s"
                            % (name, i, type(pair).__name__))
        k, v = pair
        out.append(g.HttpHeader(name=_kinds.string(k, "%s[%d] name" % (name, i)),
                                value=_kinds.string(v, "%s[%r]" % (name, k))))
    return out


def _status(value: object, name: str = "status") -> int:
    return _kinds.integer(value, name, hi=_kinds.U16)


def _text(value: object, name: str) -> str:
    """A response text as core reads it: a str, or bytes decoded as UTF-8 (bytes that are not
    UTF-8, or a str with lone surrogates, are not JSON: core reads them as such)."""
    if isinstance(value, str):
        return _kinds._unicode(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        text = _kinds.document(value, name)
        assert text is not None
        return text
    raise TypeError("%s must be the response text (a str) or its bytes, got %s"
                    % (name, type(value).__name__))


def read_api_error(method: str, status: int, headers: ResponseHeaders = None,
                   body: ResponseBody = None) -> ApiErrorInfo:
    """What the API's error answer to a ``method`` request says: ``status``, its ``headers``
    (for ``Retry-After``) and its ``body``: the response text or bytes (parsed once by core; an
    HTML page reads as no body), or the body you parsed (a dict); None when there was none.
    ``retry`` says whether to send the request again (``after``: after ``after_ms`` when
    given; ``check_first``: a ``POST`` that may have taken effect; ``no``)."""
    method = _kinds.string(method, "method")
    status = _status(status)
    hs = _headers(headers, "headers")
    try:
        if body is None:
            return _api_info(g.read_api_error(method, status, hs, None))
        if isinstance(body, (str, bytes, bytearray, memoryview)):
            return _api_info(g.read_api_error_text(method, status, _text(body, "body"), hs))
        if isinstance(body, (Mapping, list, tuple, int, float)):
            text = _kinds._dumps(body, "body", ensure_ascii=True)
            return _api_info(g.read_api_error(method, status, hs, text))
    except GeneratedError as e:
        _raise(e)
    raise TypeError("body must be the response text (str), its bytes, the parsed body (a "
                    "dict, a list, a number) or None, got %s" % type(body).__name__)
