"""Beneficiary drafts: validate a draft against the server's rules document and bank list
(``validate_beneficiary``, or ``BeneficiaryValidator`` to read the documents once), each issue
with its ``reason`` and ``params`` for a message of one's own, the payload to send
(``normalize_beneficiary``), and the fields a form asks for (``required_fields``; the whole form
model is ``xborder.forms``). Every rule is core's."""

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, overload

from . import _kinds
from ._ffi import CoreEnum, GeneratedError, g, same_members, texts
from ._kinds import Document, JsonInput
from .errors import _raise

if TYPE_CHECKING:
    from .forms import FormField


class IssueCode(CoreEnum):
    """Why a field is wrong; ``str()`` is FORMAT.md's code (``REQUIRED``, ``INVALID_IBAN``...)."""

    REQUIRED = g.IssueCode.REQUIRED
    INVALID_VALUE = g.IssueCode.INVALID_VALUE
    INVALID_ROUTING_NUMBER = g.IssueCode.INVALID_ROUTING_NUMBER
    UNKNOWN_BANK = g.IssueCode.UNKNOWN_BANK
    RULES_MISMATCH = g.IssueCode.RULES_MISMATCH
    BANKS_MISMATCH = g.IssueCode.BANKS_MISMATCH
    UNSUPPORTED_PAYMENT_TYPE = g.IssueCode.UNSUPPORTED_PAYMENT_TYPE
    RULES_UNREADABLE = g.IssueCode.RULES_UNREADABLE
    BANKS_UNREADABLE = g.IssueCode.BANKS_UNREADABLE
    INVALID_IBAN = g.IssueCode.INVALID_IBAN
    INVALID_CLABE = g.IssueCode.INVALID_CLABE
    INVALID_CBU = g.IssueCode.INVALID_CBU
    INVALID_CUIT = g.IssueCode.INVALID_CUIT
    INVALID_BIC = g.IssueCode.INVALID_BIC
    INVALID_IFSC = g.IssueCode.INVALID_IFSC
    INVALID_SORT_CODE = g.IssueCode.INVALID_SORT_CODE
    INVALID_BSB = g.IssueCode.INVALID_BSB
    INVALID_BRANCH_CODE = g.IssueCode.INVALID_BRANCH_CODE



same_members(IssueCode, g.IssueCode)
_ISSUE_TEXT = texts(IssueCode)
_ISSUE = {m.value: m for m in IssueCode}


class FieldSource(CoreEnum):
    """Where a required field comes from: always asked (``FIXED``) or the rules document's."""

    FIXED = g.FieldSource.FIXED
    RULES = g.FieldSource.RULES



same_members(FieldSource, g.FieldSource)
_SOURCE_TEXT = texts(FieldSource)
_SOURCE = {m.value: m for m in FieldSource}


class Reason(CoreEnum):
    """Why an account detail fails, the first problem found; ``str()`` is FORMAT.md's text
    (``LAYOUT``, ``COUNTRY``, ``LENGTH``, ``TYPE``, ``CHECK_DIGITS``)."""

    LAYOUT = g.Reason.LAYOUT
    COUNTRY = g.Reason.COUNTRY
    LENGTH = g.Reason.LENGTH
    TYPE = g.Reason.TYPE
    CHECK_DIGITS = g.Reason.CHECK_DIGITS


same_members(Reason, g.Reason)
_REASON_TEXT = texts(Reason)
_REASON = {m.value: m for m in Reason}


@dataclass(frozen=True)
class AccountParams:
    """The figures of a ``Reason``, to say it in one's own words: ``expected`` and ``actual``
    (counts of characters, ``LENGTH``; ``actual`` without ASCII spaces and hyphens),
    ``country`` (the two letters that are not a country of the kind, ``COUNTRY``); each None
    where the reason names none."""

    expected: Optional[int] = None
    actual: Optional[int] = None
    country: Optional[str] = None


_NO_PARAMS = AccountParams()


def _params(p: Any) -> AccountParams:
    if p is None or (p.expected is None and p.actual is None and p.country is None):
        return _NO_PARAMS
    return AccountParams(p.expected, p.actual, p.country)


@dataclass
class Issue:
    """One problem of a draft, at its dotted ``path``: the ``code``, ``message`` (what to fix,
    in English) and ``label`` (the rules document's description of the field, if any); for an
    account detail (``INVALID_IBAN``, ..., ``INVALID_ROUTING_NUMBER``) the ``reason`` and its
    figures ``params``, to write the message in another language (None and empty otherwise)."""

    path: str
    code: IssueCode
    message: str
    label: Optional[str]
    reason: Optional[Reason] = None
    params: AccountParams = field(default_factory=AccountParams)


@dataclass
class BeneficiaryValidation:
    """Whether the draft is ``valid``, and its ``issues``."""

    valid: bool
    issues: List[Issue]


@dataclass
class RequiredField:
    """A field a form asks for: its dotted ``path``, the rules document's ``description`` and
    its ``source``."""

    path: str
    description: str
    source: FieldSource


def _validation(v: Any) -> BeneficiaryValidation:
    return BeneficiaryValidation(v.valid, [
        Issue(i.path, _ISSUE[i.code], i.message, i.label,
              None if i.reason is None else _REASON[i.reason], _params(i.params))
        for i in v.issues])


def validate_beneficiary(draft_json: JsonInput, rules_json: Optional[Document] = None,
                         banks_country: Optional[str] = None,
                         banks_json: Optional[Document] = None) -> BeneficiaryValidation:
    """Validates a draft (the payload of ``POST /v1/beneficiaries``: a dict, or its JSON text)
    against the rules document and the bank list of ``banks_country``, each as the server
    sent it (text, bytes or parsed JSON; None: not given). An unreadable document is an issue
    (``RULES_UNREADABLE``, ``BANKS_UNREADABLE``), never "no rules"."""
    draft = _kinds.json_text(draft_json, "draft_json")
    rules = _kinds.document(rules_json, "rules_json")
    country = _kinds.opt_string(banks_country, "banks_country")
    banks = _kinds.document(banks_json, "banks_json")
    try:
        return _validation(g.validate_beneficiary(draft, rules, country, banks))
    except GeneratedError as e:
        _raise(e)


def required_fields(rules_json: Optional[Document], payment_type: str,
                    country: str) -> List[RequiredField]:
    """The fields a form asks for, with the rules document's descriptions. Raises
    ``DocumentError`` (``RULES_UNREADABLE``) for a document it cannot read."""
    rules = _kinds.document(rules_json, "rules_json")
    payment_type = _kinds.string(payment_type, "payment_type")
    country = _kinds.string(country, "country")
    try:
        found = g.required_fields(rules, payment_type, country)
    except GeneratedError as e:
        _raise(e)
    return [RequiredField(f.path, f.description, _SOURCE[f.source]) for f in found]


class BeneficiaryValidator:
    """The documents read once, to validate many drafts against (safe to share between
    threads)."""

    __slots__ = ("_inner",)

    def __init__(self, rules_json: Optional[Document] = None, banks_country: Optional[str] = None,
                 banks_json: Optional[Document] = None) -> None:
        rules = _kinds.document(rules_json, "rules_json")
        country = _kinds.opt_string(banks_country, "banks_country")
        banks = _kinds.document(banks_json, "banks_json")
        try:
            self._inner: Any = g.BeneficiaryValidator(rules, country, banks)
        except GeneratedError as e:
            _raise(e)

    def validate(self, draft_json: JsonInput) -> BeneficiaryValidation:
        """Validates a draft (a dict, or its JSON text)."""
        draft = _kinds.json_text(draft_json, "draft_json")
        try:
            return _validation(self._inner.validate(draft))
        except GeneratedError as e:
            _raise(e)

    def form(self, country: str, payment_type: str,
             owner_type: Optional[str] = None) -> "List[FormField]":
        """The fields a form renders for ``country``, ``payment_type`` and (optionally)
        ``owner_type``, from the documents this validator read (``xborder.forms``). Raises
        ``FormError``: ``INVALID_VALUE`` (``field``: ``country``, ``paymentType`` or
        ``ownerType``), ``RULES_UNREADABLE``, ``RULES_MISMATCH``, ``BANKS_UNREADABLE``,
        ``BANKS_MISMATCH``: a form built on the wrong document is refused, never rendered."""
        from .forms import _fields
        country = _kinds.string(country, "country")
        payment_type = _kinds.string(payment_type, "payment_type")
        owner_type = _kinds.opt_string(owner_type, "owner_type")
        try:
            return _fields(self._inner.form(country, payment_type, owner_type))
        except GeneratedError as e:
            _raise(e)

    def __repr__(self) -> str:
        return "BeneficiaryValidator()"


@overload
def normalize_beneficiary(draft_json: str) -> str: ...
@overload
def normalize_beneficiary(draft_json: Mapping[str, Any]) -> Dict[str, Any]: ...
@overload
def normalize_beneficiary(draft_json: Sequence[Any]) -> List[Any]: ...


def normalize_beneficiary(draft_json: JsonInput) -> Any:
    """The payload to send: the draft with every account detail validation checks (IBAN, sort
    code, routing number, ...) in electronic form (``de89 3704 …`` → ``DE893704…``,
    ``12-34-56`` → ``123456``), nothing else changed, nothing added or removed; normalizing
    twice changes nothing more. Returns the kind given: a dict for a dict (a list for a
    list), JSON text for JSON text. Raises ``JsonError`` (``MALFORMED_JSON``) for text that is
    not JSON."""
    text = _kinds.json_text(draft_json, "draft_json")
    try:
        out: str = g.normalize_beneficiary(text)
    except GeneratedError as e:
        _raise(e)
    return out if isinstance(draft_json, str) else json.loads(out)
