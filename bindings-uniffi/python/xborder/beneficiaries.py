"""Beneficiary forms: validate a draft against the server's rules document and bank list
(``validate_beneficiary``, or ``BeneficiaryValidator`` to read the documents once), and the
fields a form asks for (``required_fields``). Every rule is core's."""

from dataclasses import dataclass
from typing import Any, List, Optional

from . import _kinds
from ._ffi import CoreEnum, GeneratedError, g, same_members, texts
from ._kinds import Document, JsonInput
from .errors import _raise


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


@dataclass
class Issue:
    """One problem of a draft, at its dotted ``path``: the ``code``, ``message`` (what to fix,
    in English) and ``label`` (the rules document's description of the field, if any)."""

    path: str
    code: IssueCode
    message: str
    label: Optional[str]


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
    return BeneficiaryValidation(v.valid, [Issue(i.path, _ISSUE[i.code], i.message, i.label)
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

    def __repr__(self) -> str:
        return "BeneficiaryValidator()"
