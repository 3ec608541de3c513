# Type stubs of the xborder package (shipped as xborder/__init__.pyi with py.typed).
# Partial: the main entry points are typed here; every other name of the module is `Any`
# (the `__getattr__` at the end). Checked against the module by python/tests/test_stubs.py.
import enum
from typing import Any, Awaitable, Dict, List, Mapping, Optional, Protocol, Sequence, Union

# What a body may be: the raw bytes (a str is taken as its UTF-8 bytes).
Body = Union[bytes, bytearray, memoryview, str]
# JSON data as Python values, or its JSON text.
JsonInput = Union[str, Mapping[str, Any], List[Any]]

class XborderError(Exception):
    def error_code(self) -> str: ...
    def error_field(self) -> Optional[str]: ...
    class Registration(XborderError):
        code: str
    class Signature(XborderError):
        code: str
    class Envelope(XborderError):
        code: str
        field: Optional[str]
    class Store(XborderError):
        code: str
    class Catalog(XborderError):
        code: str
    class Claim(XborderError):
        code: str
        field: Optional[str]
    class Json(XborderError):
        code: str
    class Pagination(XborderError):
        code: str
        field: Optional[str]

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

class Decision:
    action: Action
    acknowledges: bool
    error_code: Optional[str]
    error_field: Optional[str]
    envelope: Optional[Envelope]

class DecodeLimits:
    max_body_bytes: int
    max_depth: int
    def __init__(self, *, max_body_bytes: int, max_depth: int) -> None: ...

class EventClassification:
    kind: EventKind
    entity: Optional[str]
    action: Optional[str]

class RejectedEvent:
    event: str
    reason: EventKind

class RegistrationCheck:
    ok: bool
    code: Optional[str]
    rejected: List[RejectedEvent]
    events: List[str]

class Issue:
    path: str
    code: IssueCode

class BeneficiaryValidation:
    valid: bool
    issues: List[Issue]

class RequiredField:
    path: str
    description: str
    source: FieldSource

class PageRequest:
    page: Optional[int]
    page_size: Optional[int]
    def __init__(self, *, page: Optional[int] = ..., page_size: Optional[int] = ...) -> None: ...

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

class Drift:
    code: str
    previous_total: Optional[int]
    total: Optional[int]
    count: Optional[int]
    has_next: Optional[bool]

class WalkStep:
    records_json: List[str]
    info: PageInfo
    drifts: List[Drift]
    @property
    def records(self) -> List[Any]: ...

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
    rules_json: Optional[JsonInput] = ...,
    banks_country: Optional[str] = ...,
    banks_json: Optional[JsonInput] = ...,
) -> BeneficiaryValidation: ...
def required_fields(rules_json: Optional[JsonInput], payment_type: str, country: str) -> List[RequiredField]: ...
def list_query(params_json: JsonInput) -> str: ...
def page_info(response_json: JsonInput, request: Optional[PageRequest] = ...) -> PageInfo: ...

class Catalog:
    def __init__(self) -> None: ...
    def add_live(self, name: str) -> None: ...
    def add_wildcard(self, name: str) -> None: ...
    def classify(self, name: str) -> EventClassification: ...
    def is_live(self, name: str) -> bool: ...
    def check_registration(self, events: Sequence[str], existing_webhooks: int = ...) -> RegistrationCheck: ...
    def create_webhook_body(self, events: Sequence[str], url: str, existing_webhooks: int = ...) -> str: ...
    def matches(self, subscriptions: Sequence[str], event: str) -> bool: ...

class Receiver:
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

class PageWalker:
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

class Claims:
    def __init__(self, lease_ms: int = ..., window_ms: Optional[int] = ..., capacity: int = ...) -> None: ...
    @classmethod
    def with_store(cls, store: ClaimStore, lease_ms: int = ..., window_ms: Optional[int] = ...) -> "Claims": ...
    def step(self, step: str, id: str, token: str, at_ms: int) -> ClaimOutcome: ...
    def reply(self, step: str, outcome: ClaimOutcome) -> Optional[ClaimReply]: ...

class ClaimReply:
    status: int
    retry_after_s: Optional[int]

def claim_error_reply(code: str) -> ClaimReply: ...

class ClaimNeed:
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

class ClaimTask:
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
