"""The errors of xborder: one hierarchy under ``XborderError``, each with FORMAT.md's stable
``code`` (``e.code``), the ``field`` concerned where there is one, and ``detail`` (a sentence
for people, never to be parsed). Converted from the generated module's errors in one place
(``_convert``)."""

from typing import Any, Dict, List, NoReturn, Optional, Type, Union

from ._api_info import ApiErrorInfo, Retry, _api_info
from ._event_kind import RejectedEvent, _rejected


class XborderError(Exception):
    """An error of the API: ``code`` is FORMAT.md's (``SIGNATURE_MISMATCH``,
    ``STORE_UNAVAILABLE``, ...), ``field`` the input concerned (or None), ``detail`` for people."""

    code: str
    field: Optional[str]
    detail: str

    def __init__(self, code: str, detail: str, field: Optional[str] = None) -> None:
        super().__init__(code, detail, field)
        self.code = code
        self.detail = detail
        self.field = field

    def __str__(self) -> str:
        # Core's detail names the code first ("SIGNATURE_MISMATCH: the signature ..."): once.
        if self.detail.startswith(self.code):
            return self.detail
        return "%s: %s" % (self.code, self.detail)

    def __repr__(self) -> str:
        return "%s(%r, %r, field=%r)" % (type(self).__name__, self.code, self.detail, self.field)


class RegistrationError(XborderError):
    """``VALIDATION_FAILED`` or ``WEBHOOK_LIMIT_REACHED``: the server would refuse the
    registration; ``rejected`` lists the names refused (each once)."""

    rejected: "List[RejectedEvent]"

    def __init__(self, code: str, detail: str, rejected: "Optional[List[RejectedEvent]]" = None) -> None:
        super().__init__(code, detail)
        self.rejected = list(rejected or [])


class SignatureError(XborderError):
    """``MISSING_SIGNATURE``, ``MALFORMED_SIGNATURE``, ``EMPTY_SECRET``, ``SIGNATURE_MISMATCH``."""


class EnvelopeError(XborderError):
    """The body is not a usable envelope: ``BODY_TOO_LARGE``, ``NESTING_TOO_DEEP``,
    ``MALFORMED_JSON``, ``MISSING_FIELD``, ``INVALID_FIELD``, ``ENTITY_MISMATCH`` (``field``:
    the envelope field, dotted)."""


class StoreError(XborderError):
    """``STORE_UNAVAILABLE``: a store failed (raised, answered the wrong kind, held an entry
    xborder did not write, kept changing). The store's own exception is ``__cause__``."""


class CatalogError(XborderError):
    """``INVALID_EVENT_NAME``: a name could not be added to a ``Catalog``."""


class ClaimError(XborderError):
    """``INVALID_STEP``: ``field`` is ``do`` (the step), ``id`` or ``token``."""


class JsonError(XborderError):
    """``MALFORMED_JSON``: a JSON text argument is not JSON."""


class DocumentError(XborderError):
    """``RULES_UNREADABLE`` or ``BANKS_UNREADABLE``: a server document given cannot be read."""


class FormError(XborderError):
    """A form cannot be built, or an account kind is unknown: ``INVALID_VALUE`` (``field``:
    ``country``, ``paymentType`` or ``ownerType``, the names of the payload), ``RULES_UNREADABLE``,
    ``RULES_MISMATCH``, ``BANKS_UNREADABLE``, ``BANKS_MISMATCH``, ``UNKNOWN_ACCOUNT_KIND``."""


class PaginationError(XborderError):
    """List parameters or a list response are not usable: ``INVALID_PAGE``,
    ``INVALID_PAGE_SIZE``, ``INVALID_SORT_ORDER``, ``INVALID_SORT_BY``, ``INVALID_SEARCH``,
    ``INVALID_FILTER``, ``UNKNOWN_PARAMETER``, ``MALFORMED_RESPONSE``, ``OUT_OF_RANGE``
    (``field``: the parameter or filter key)."""


class CatchUpError(XborderError):
    """A catch-up cannot start: ``INVALID_SINCE`` (``field``: ``since``), ``INVALID_OVERLAP``
    (``overlapMs``). Its page errors (``INVALID_PAGE_SIZE``, ``MALFORMED_RESPONSE``) are
    ``PaginationError``s, the API's refusal an ``ApiError``."""


class ApiError(XborderError):
    """``API_ERROR``: the API answered a catch-up's page request with an error it does not ask
    to retry (a 401, a 404), or the page's tries are spent. ``answer`` is the API's answer as
    core read it (``ApiErrorInfo``); ``status``, ``api_code`` (the API's own code, e.g.
    ``UNAUTHORIZED``), ``message``, ``details``, ``request_id``, ``retry`` and ``after_ms`` are
    its fields."""

    answer: ApiErrorInfo

    def __init__(self, code: str, detail: str, answer: ApiErrorInfo) -> None:
        super().__init__(code, detail)
        self.answer = answer

    @property
    def status(self) -> int:
        """The HTTP status the API answered."""
        return self.answer.status

    @property
    def api_code(self) -> Optional[str]:
        """The API's error code (``UNAUTHORIZED``), when it sent one."""
        return self.answer.code

    @property
    def message(self) -> Optional[str]:
        """The API's message, when it sent one."""
        return self.answer.message

    @property
    def details(self) -> Optional[List[str]]:
        """The strings of the API's ``details`` list."""
        return self.answer.details

    @property
    def request_id(self) -> Union[str, int, None]:
        """The API's ``requestId`` (a str or an int), for its support."""
        return self.answer.request_id

    @property
    def retry(self) -> Retry:
        """What a client may do (core's advice)."""
        return self.answer.retry

    @property
    def after_ms(self) -> Optional[int]:
        """With ``Retry.AFTER``: the delay the answer gave."""
        return self.answer.after_ms


_CLASSES: Dict[str, Type[XborderError]] = {
    "Registration": RegistrationError, "Signature": SignatureError, "Envelope": EnvelopeError,
    "Store": StoreError, "Catalog": CatalogError, "Claim": ClaimError, "Json": JsonError,
    "Document": DocumentError, "Form": FormError, "Pagination": PaginationError,
    "CatchUp": CatchUpError, "Api": ApiError,
}


def _convert(e: Any) -> XborderError:
    """The one conversion of a generated error: its variant's class, core's code and field."""
    cls = _CLASSES.get(type(e).__name__, XborderError)
    code: str = e.error_code()
    detail: str = getattr(e, "detail", "") or str(e)
    if cls is RegistrationError:
        return RegistrationError(code, detail, [_rejected(r) for r in e.rejected])
    if cls is ApiError:
        return ApiError(code, detail, _api_info(e.answer))
    return cls(code, detail, e.error_field())


def _raise(e: Any) -> NoReturn:
    raise _convert(e) from None
