"""xborder: the cross-border payments API core (Rust) for Python. Verify and receive webhook
deliveries, recover the events an outage lost (``catch_up``), claim event ids across instances, check account details as they are typed, build
beneficiary forms, validate and normalize their drafts, build list queries and walk every page.
Every rule is the Rust core's; this package converts Python values to it and back, and checks
every parameter's kind (a ``TypeError`` or ``ValueError`` naming it).

Modules by concern: ``xborder.webhooks`` (signatures, the envelope, ``Receiver``,
``handle_delivery``), ``xborder.claims``, ``xborder.events``, ``xborder.beneficiaries``,
``xborder.accounts`` (``check_account``), ``xborder.forms`` (``beneficiary_form``),
``xborder.pagination``, ``xborder.api`` (``read_api_error``), ``xborder.catch_up``
(``CatchUp``, ``catch_up``: events the provider dead-lettered), ``xborder.errors``, and the claim stores ``xborder.redis`` (redis-py,
``xborder[redis]``), ``xborder.postgres`` (psycopg 3, ``xborder[postgres]``) and
``xborder.sqlite`` (sqlite3). Everything but the stores is re-exported here.
"""

from .api import ApiErrorInfo, Retry, read_api_error
from .accounts import AccountCheck, AccountKind, AccountState, check_account
from .beneficiaries import (AccountParams, BeneficiaryValidation, BeneficiaryValidator,
                            FieldSource, Issue, IssueCode, Reason, RequiredField,
                            normalize_beneficiary, required_fields, validate_beneficiary)
from .catch_up import (CatchUp, CatchUpResult, ExternalEvent, Fetched, FetchedPage, FetchedWait,
                       Recovery, Tally, catch_up, catch_up_async)
from .claims import (DEFAULT_LEASE_MS, AsyncClaims, AsyncClaimStore, ClaimCompareAndSet,
                     ClaimDone, ClaimLoad, ClaimNeed, ClaimOutcome, ClaimReply, Claims,
                     ClaimStore, ClaimTask, StoreTime, claim_error_reply, claim_step_async)
from .errors import (ApiError, CatalogError, CatchUpError, ClaimError, DocumentError, EnvelopeError, FormError,
                     JsonError, PaginationError, RegistrationError, SignatureError, StoreError,
                     XborderError)
from .events import (Catalog, EventClassification, EventKind, RegistrationCheck, RejectedEvent,
                     check_registration, classify_event, create_webhook_body, event_matches)
from .forms import AccountLength, FormField, FormInput, FormOption, FormSource, beneficiary_form
from .pagination import (Drift, PageInfo, PageRequest, PageWalker, WalkStep, list_query,
                         page_info)
from .webhooks import (SIGNATURE_HEADER, Action, Decision, DecodeLimits, DeliveryHandling,
                       DeliveryReply, Envelope, HandlingAct, HandlingAnswer, HandlingCommit,
                       HandlingPersist, HandlingStep, HandlingStepResult, Receiver,
                       AsyncTransaction, Transaction, decode_envelope, default_decode_limits,
                       handle_delivery, handle_delivery_async, sign, verify, verify_with_secrets)

__all__ = [
    # webhooks
    "sign", "verify", "verify_with_secrets", "decode_envelope", "default_decode_limits",
    "DecodeLimits", "Envelope", "Action", "Decision", "Receiver", "handle_delivery",
    "handle_delivery_async", "DeliveryReply", "SIGNATURE_HEADER", "DeliveryHandling",
    "HandlingAct", "HandlingStep", "HandlingPersist", "HandlingCommit", "HandlingAnswer",
    "HandlingStepResult", "Transaction", "AsyncTransaction",
    # claims
    "Claims", "AsyncClaims", "ClaimStore", "AsyncClaimStore", "ClaimOutcome", "ClaimReply",
    "claim_error_reply", "ClaimTask", "ClaimNeed", "ClaimLoad", "ClaimCompareAndSet", "ClaimDone",
    "claim_step_async", "DEFAULT_LEASE_MS", "StoreTime",
    # events
    "classify_event", "check_registration", "create_webhook_body", "event_matches", "Catalog",
    "EventKind", "EventClassification", "RegistrationCheck", "RejectedEvent",
    # beneficiaries
    "validate_beneficiary", "required_fields", "BeneficiaryValidator", "BeneficiaryValidation",
    "Issue", "IssueCode", "RequiredField", "FieldSource", "normalize_beneficiary", "Reason",
    "AccountParams",
    # accounts
    "check_account", "AccountKind", "AccountState", "AccountCheck",
    # forms
    "beneficiary_form", "FormField", "FormSource", "FormInput", "FormOption", "AccountLength",
    # pagination
    "list_query", "page_info", "PageWalker", "PageRequest", "PageInfo", "WalkStep", "Drift",
    # api
    "read_api_error", "ApiErrorInfo", "Retry",
    # catch_up
    "CatchUp", "Recovery", "ExternalEvent", "Fetched", "FetchedPage", "FetchedWait", "Tally",
    "CatchUpResult", "catch_up", "catch_up_async",
    # errors
    "XborderError", "RegistrationError", "SignatureError", "EnvelopeError", "StoreError",
    "CatalogError", "ClaimError", "JsonError", "DocumentError", "FormError", "PaginationError",
    "CatchUpError", "ApiError",
]
