# Type stubs of the xborder package (shipped as xborder/__init__.pyi with py.typed).
# Partial: the main entry points are typed here; every other name of the module is `Any`
# (the `__getattr__` at the end). Checked against the module by python/tests/test_stubs.py.
import enum
from typing import Any, Awaitable, Dict, List, Mapping, Optional, Protocol, Sequence, Union

# What a body may be: the raw bytes (a str is taken as its UTF-8 bytes).
Body = Union[bytes, bytearray, memoryview, str]
# JSON data as Python values, or its JSON text.
JsonInput = Union[str, Mapping[str, Any], List[Any]]
# A server document (the rules document, the bank list) as received: the response text (str),
# the response body (bytes, bytearray, memoryview: UTF-8), or the parsed JSON (dict, list).
_Document = Union[str, bytes, bytearray, memoryview, Mapping[str, Any], List[Any]]

class XborderError(Exception):
    def error_code(self) -> str: ...
    def error_field(self) -> Optional[str]: ...
    class Registration(XborderError):
        code: str
        rejected: List[RejectedEvent]
        detail: str
        def __init__(self, code: str, rejected: List[RejectedEvent], detail: str) -> None: ...
    class Signature(XborderError):
        code: str
        detail: str
        def __init__(self, code: str, detail: str) -> None: ...
    class Envelope(XborderError):
        code: str
        field: Optional[str]
        detail: str
        def __init__(self, code: str, field: Optional[str], detail: str) -> None: ...
    class Store(XborderError):
        code: str
        detail: str
        def __init__(self, code: str, detail: str) -> None: ...
    class Catalog(XborderError):
        code: str
        detail: str
        def __init__(self, code: str, detail: str) -> None: ...
    class Claim(XborderError):
        code: str
        field: Optional[str]
        detail: str
        def __init__(self, code: str, field: Optional[str], detail: str) -> None: ...
    class Json(XborderError):
        code: str
        detail: str
        def __init__(self, code: str, detail: str) -> None: ...
    class Document(XborderError):
        """RULES_UNREADABLE or BANKS_UNREADABLE: a document given that cannot be read."""
        code: str
        detail: str
        def __init__(self, code: str, detail: str) -> None: ...
    class Pagination(XborderError):
        code: str
        field: Optional[str]
        detail: str
        def __init__(self, code: str, field: Optional[str], detail: str) -> None: ...

class InternalError(Exception): ...

class Action(enum.Enum):
    PROCESS = 0
    IGNORE = 1
    DUPLICATE = 2
    REJECT = 3

class EventKind(enum.Enum):
    LIVE = 0
    PLANNED = 1
    WILDCARD = 2
    UNKNOWN = 3
    INVALID = 4

class IssueCode(enum.Enum):
    REQUIRED = 0
    INVALID_VALUE = 1
    INVALID_ROUTING_NUMBER = 2
    UNKNOWN_BANK = 3
    RULES_MISMATCH = 4
    BANKS_MISMATCH = 5
    UNSUPPORTED_PAYMENT_TYPE = 6
    RULES_UNREADABLE = 7
    BANKS_UNREADABLE = 8
    INVALID_IBAN = 9
    INVALID_CLABE = 10
    INVALID_CBU = 11
    INVALID_CUIT = 12
    INVALID_BIC = 13
    INVALID_IFSC = 14
    INVALID_SORT_CODE = 15
    INVALID_BSB = 16
    INVALID_BRANCH_CODE = 17

class FieldSource(enum.Enum):
    FIXED = 0
    RULES = 1

class ClaimOutcome(enum.Enum):
    CLAIMED = 0
    IN_PROGRESS = 1
    DUPLICATE = 2
    COMPLETED = 3
    RELEASED = 4
    STALE = 5
    def acknowledges(self) -> bool: ...

class Envelope:
    id: str
    event: str
    kind: EventKind
    entity_id: str
    entity_type: str
    data_json: Optional[str]
    @property
    def data(self) -> Any: ...
    __match_args__ = ()
    def __init__(
        self,
        *,
        id: str,
        event: str,
        kind: EventKind,
        entity_id: str,
        entity_type: str,
        data_json: Optional[str],
    ) -> None: ...

class Decision:
    action: Action
    acknowledges: bool
    error_code: Optional[str]
    error_field: Optional[str]
    envelope: Optional[Envelope]
    __match_args__ = ()
    def __init__(
        self,
        *,
        action: Action,
        acknowledges: bool,
        error_code: Optional[str],
        error_field: Optional[str],
        envelope: Optional[Envelope],
    ) -> None: ...

class DecodeLimits:
    max_body_bytes: int
    max_depth: int
    def __init__(self, *, max_body_bytes: int, max_depth: int) -> None: ...
    __match_args__ = ()

class EventClassification:
    kind: EventKind
    entity: Optional[str]
    action: Optional[str]
    __match_args__ = ()
    def __init__(
        self,
        *,
        kind: EventKind,
        entity: Optional[str],
        action: Optional[str],
    ) -> None: ...

class RejectedEvent:
    event: str
    reason: EventKind
    __match_args__ = ()
    def __init__(self, *, event: str, reason: EventKind) -> None: ...

class RegistrationCheck:
    ok: bool
    code: Optional[str]
    rejected: List[RejectedEvent]
    events: List[str]
    __match_args__ = ()
    def __init__(
        self,
        *,
        ok: bool,
        code: Optional[str],
        rejected: List[RejectedEvent],
        events: List[str],
    ) -> None: ...

class Issue:
    path: str
    code: IssueCode
    message: str
    """What to fix, in English, for the person filling the form."""
    label: Optional[str]
    """The rules document's description of the field, where it has one."""
    def __init__(self, *, path: str, code: IssueCode, message: str, label: Optional[str]) -> None: ...
    __match_args__ = ()

class BeneficiaryValidation:
    valid: bool
    issues: List[Issue]
    __match_args__ = ()
    def __init__(self, *, valid: bool, issues: List[Issue]) -> None: ...

class RequiredField:
    path: str
    description: str
    source: FieldSource
    __match_args__ = ()
    def __init__(self, *, path: str, description: str, source: FieldSource) -> None: ...

class PageRequest:
    page: Optional[int]
    page_size: Optional[int]
    def __init__(self, *, page: Optional[int] = ..., page_size: Optional[int] = ...) -> None: ...
    __match_args__ = ()

class PageInfo:
    total: int
    page: int
    page_size: int
    total_pages: int
    has_next: bool
    has_next_conflict: bool
    has_previous: bool
    first_item: int
    last_item: int
    next_page: Optional[int]
    __match_args__ = ()
    def __init__(
        self,
        *,
        total: int,
        page: int,
        page_size: int,
        total_pages: int,
        has_next: bool,
        has_next_conflict: bool,
        has_previous: bool,
        first_item: int,
        last_item: int,
        next_page: Optional[int],
    ) -> None: ...

class Drift:
    code: str
    """TOTAL_CHANGED, REPEATED_RECORDS, HAS_NEXT_CONFLICT, POSSIBLY_SKIPPED or STALLED (two pages
    in a row brought nothing new: the walk ends, so it always ends)."""
    previous_total: Optional[int]
    total: Optional[int]
    count: Optional[int]
    has_next: Optional[bool]
    __match_args__ = ()
    def __init__(
        self,
        *,
        code: str,
        previous_total: Optional[int],
        total: Optional[int],
        count: Optional[int],
        has_next: Optional[bool],
    ) -> None: ...

class WalkStep:
    records_json: List[str]
    info: PageInfo
    drifts: List[Drift]
    @property
    def records(self) -> List[Any]: ...
    __match_args__ = ()
    def __init__(self, *, records_json: List[str], info: PageInfo, drifts: List[Drift]) -> None: ...

def sign(secret: str, body: Body) -> str: ...
def verify(secret: str, body: Body, signature: Optional[str]) -> None: ...
def verify_with_secrets(secrets: Sequence[str], body: Body, signature: Optional[str]) -> None: ...
def decode_envelope(body: Body, limits: Optional[DecodeLimits] = ...) -> Envelope: ...
def default_decode_limits() -> DecodeLimits: ...
def classify_event(name: str) -> EventClassification: ...
def check_registration(events: Sequence[str], existing_webhooks: int = ...) -> RegistrationCheck: ...
def create_webhook_body(events: Sequence[str], url: str, existing_webhooks: int = ...) -> str: ...
def event_matches(subscriptions: Sequence[str], event: str) -> bool: ...
def validate_beneficiary(
    draft_json: JsonInput,
    rules_json: Optional[_Document] = ...,
    banks_country: Optional[str] = ...,
    banks_json: Optional[_Document] = ...,
) -> BeneficiaryValidation: ...
def required_fields(rules_json: Optional[_Document], payment_type: str, country: str) -> List[RequiredField]: ...
def list_query(params_json: JsonInput) -> str: ...
def page_info(response_json: JsonInput, request: Optional[PageRequest] = ...) -> PageInfo: ...

class BeneficiaryValidatorProtocol(Protocol):
    def validate(self, draft_json: JsonInput) -> BeneficiaryValidation: ...

class BeneficiaryValidator(BeneficiaryValidatorProtocol):
    """The documents read once, to validate many drafts against (safe to share between threads)."""
    def __init__(
        self,
        rules_json: Optional[_Document] = ...,
        banks_country: Optional[str] = ...,
        banks_json: Optional[_Document] = ...,
    ) -> None: ...
    def validate(self, draft_json: JsonInput) -> BeneficiaryValidation: ...
    def __del__(self) -> None: ...

class CatalogProtocol(Protocol):
    def add_live(self, name: str) -> None: ...
    def add_wildcard(self, name: str) -> None: ...
    def classify(self, name: str) -> EventClassification: ...
    def is_live(self, name: str) -> bool: ...
    def check_registration(self, events: Sequence[str], existing_webhooks: int = ...) -> RegistrationCheck: ...
    def create_webhook_body(self, events: Sequence[str], url: str, existing_webhooks: int = ...) -> str: ...
    def matches(self, subscriptions: Sequence[str], event: str) -> bool: ...

class Catalog(CatalogProtocol):
    def __del__(self) -> None: ...
    def __init__(self) -> None: ...
    def add_live(self, name: str) -> None: ...
    def add_wildcard(self, name: str) -> None: ...
    def classify(self, name: str) -> EventClassification: ...
    def is_live(self, name: str) -> bool: ...
    def check_registration(self, events: Sequence[str], existing_webhooks: int = ...) -> RegistrationCheck: ...
    def create_webhook_body(self, events: Sequence[str], url: str, existing_webhooks: int = ...) -> str: ...
    def matches(self, subscriptions: Sequence[str], event: str) -> bool: ...

class ReceiverProtocol(Protocol):
    def receive(self, body: Body, signature: Optional[str]) -> Decision: ...
    def commit(self, id: str) -> None: ...

class Receiver(ReceiverProtocol):
    def __del__(self) -> None: ...
    def __init__(
        self,
        secret: str,
        window: int = ...,
        limits: Optional[DecodeLimits] = ...,
        catalog: Optional[Catalog] = ...,
    ) -> None: ...
    @classmethod
    def with_secrets(
        cls,
        secrets: Sequence[str],
        window: int = ...,
        limits: Optional[DecodeLimits] = ...,
        catalog: Optional[Catalog] = ...,
    ) -> "Receiver": ...
    def receive(self, body: Body, signature: Optional[str]) -> Decision: ...
    def commit(self, id: str) -> None: ...

class PageWalkerProtocol(Protocol):
    def next_query(self) -> Optional[str]: ...
    def is_done(self) -> bool: ...
    def feed(self, response_json: JsonInput) -> WalkStep: ...

class PageWalker(PageWalkerProtocol):
    def __del__(self) -> None: ...
    def __init__(self, params_json: JsonInput) -> None: ...
    def next_query(self) -> Optional[str]: ...
    def is_done(self) -> bool: ...
    def feed(self, response_json: JsonInput) -> WalkStep: ...

class ClaimStore:
    """Subclass it to keep claims in your store (sync: called from the thread of `step`)."""
    def load(self, id: str) -> Optional[str]: ...
    def compare_and_set(
        self, id: str, expected: Optional[str], new: Optional[str], ttl_ms: Optional[int]
    ) -> bool: ...

class ClaimsProtocol(Protocol):
    def step(self, step: str, id: str, token: str, at_ms: int) -> ClaimOutcome: ...
    def reply(self, step: str, outcome: ClaimOutcome) -> Optional[ClaimReply]: ...

class Claims(ClaimsProtocol):
    def __del__(self) -> None: ...
    def __init__(self, lease_ms: int = ..., window_ms: Optional[int] = ..., capacity: int = ...) -> None: ...
    @classmethod
    def with_store(cls, store: ClaimStore, lease_ms: int = ..., window_ms: Optional[int] = ...) -> "Claims": ...
    def step(self, step: str, id: str, token: str, at_ms: int) -> ClaimOutcome: ...
    def reply(self, step: str, outcome: ClaimOutcome) -> Optional[ClaimReply]: ...

class ClaimReply:
    status: int
    retry_after_s: Optional[int]
    __match_args__ = ()
    def __init__(self, *, status: int, retry_after_s: Optional[int]) -> None: ...

def claim_error_reply(code: str) -> ClaimReply: ...

class ClaimNeed:
    def is_load(self) -> bool: ...
    def is_LOAD(self) -> bool: ...
    def is_compare_and_set(self) -> bool: ...
    def is_COMPARE_AND_SET(self) -> bool: ...
    def is_done(self) -> bool: ...
    def is_DONE(self) -> bool: ...
    class LOAD(ClaimNeed):
        id: str
        def __init__(self, id: str) -> None: ...
    class COMPARE_AND_SET(ClaimNeed):
        id: str
        expected: Optional[str]
        new: Optional[str]
        ttl_ms: Optional[int]
        def __init__(
            self, id: str, expected: Optional[str], new: Optional[str], ttl_ms: Optional[int]
        ) -> None: ...
    class DONE(ClaimNeed):
        outcome: ClaimOutcome
        def __init__(self, outcome: ClaimOutcome) -> None: ...

class ClaimTaskProtocol(Protocol):
    def start(self) -> ClaimNeed: ...
    def loaded(self, entry: Optional[str]) -> ClaimNeed: ...
    def swapped(self, applied: bool) -> ClaimNeed: ...
    def failed(self, message: str) -> None: ...

class ClaimTask(ClaimTaskProtocol):
    def __del__(self) -> None: ...
    def __init__(
        self,
        step: str,
        id: str,
        token: str,
        at_ms: int,
        lease_ms: int = ...,
        window_ms: Optional[int] = ...,
    ) -> None: ...
    def start(self) -> ClaimNeed: ...
    def loaded(self, entry: Optional[str]) -> ClaimNeed: ...
    def swapped(self, applied: bool) -> ClaimNeed: ...
    def failed(self, message: str) -> None: ...

class AsyncClaimStore(Protocol):
    """What `claim_step_async` awaits: the `ClaimStore` methods as coroutines."""
    def load(self, id: str) -> Awaitable[Optional[str]]: ...
    def compare_and_set(
        self, id: str, expected: Optional[str], new: Optional[str], ttl_ms: Optional[int]
    ) -> Awaitable[bool]: ...

async def claim_step_async(
    store: AsyncClaimStore,
    step: str,
    id: str,
    token: str,
    at_ms: int,
    *,
    lease_ms: int = ...,
    window_ms: Optional[int] = ...,
) -> ClaimOutcome: ...

def __getattr__(name: str) -> Any: ...
