"""The form model: the fields a beneficiary form renders for a country, payment type and owner
type, in order (``beneficiary_form``, or ``BeneficiaryValidator.form`` with the documents read
once), each with what to render (``FormInput``), its options, the account kind it holds (check
it as the user types with ``xborder.check_account``), its length and its label. Every rule is
core's."""

from dataclasses import dataclass
from typing import Any, List, Optional, Tuple

from . import _kinds
from ._ffi import CoreEnum, GeneratedError, g, same_members, texts
from ._kinds import Document
from ._account_kind import _KIND, AccountKind
from .errors import _raise


class FormSource(CoreEnum):
    """Where a field comes from; ``str()`` is FORMAT.md's name: ``fixed`` (a rule of the
    payments API: required), ``rules`` (the rules document: required), ``country`` (the
    country's account fields the rules do not list: not required)."""

    FIXED = g.FormSource.FIXED
    RULES = g.FormSource.RULES
    COUNTRY = g.FormSource.COUNTRY


same_members(FormSource, g.FormSource)
_SOURCE_TEXT = texts(FormSource)
_SOURCE = {m.value: m for m in FormSource}


class FormInput(CoreEnum):
    """What to render; ``str()`` is FORMAT.md's name: ``group`` (a heading over sub-fields, no
    input), ``text`` (a text input), ``choice`` (one of ``options``: the bank list's banks)."""

    GROUP = g.FormInput.GROUP
    TEXT = g.FormInput.TEXT
    CHOICE = g.FormInput.CHOICE


same_members(FormInput, g.FormInput)
_INPUT_TEXT = texts(FormInput)
_INPUT = {m.value: m for m in FormInput}


@dataclass(frozen=True)
class FormOption:
    """One option of a ``CHOICE``: the ``value`` to send (a bank's ``id``) and the ``label``
    to show (its ``name``, else its ``id``)."""

    value: str
    label: str


@dataclass(frozen=True)
class AccountLength:
    """The count of characters of an account field in electronic form, ``min`` to ``max``."""

    min: int
    max: int


@dataclass(frozen=True)
class FormField:
    """A field a form renders: its dotted payload ``path``, whether the payload needs it
    (``required``), where it comes from (``source``), what to render (``input``), the
    ``options`` of a ``CHOICE`` (empty otherwise), the ``account`` kind it holds and its
    ``length`` (None for a field that holds no account detail), and the ``label`` to show
    beside it (the rules document's description, else English)."""

    path: str
    required: bool
    source: FormSource
    input: FormInput
    options: Tuple[FormOption, ...]
    account: Optional[AccountKind]
    length: Optional[AccountLength]
    label: str


def _fields(found: Any) -> List[FormField]:
    return [FormField(f.path, f.required, _SOURCE[f.source], _INPUT[f.input],
                      tuple(FormOption(o.value, o.label) for o in f.options),
                      None if f.account is None else _KIND[f.account],
                      None if f.length is None else AccountLength(f.length.min, f.length.max),
                      f.label)
            for f in found]


def beneficiary_form(country: str, payment_type: str, owner_type: Optional[str] = None,
                     rules_json: Optional[Document] = None, banks_country: Optional[str] = None,
                     banks_json: Optional[Document] = None) -> List[FormField]:
    """The fields a beneficiary form renders, in order, for ``country`` (ISO 3166-1 alpha-2,
    upper case), ``payment_type`` and (optionally) ``owner_type``, with the rules document
    and the bank list of ``banks_country`` as ``validate_beneficiary`` takes them (text, bytes
    or parsed JSON; None: not given). Raises ``FormError``: ``INVALID_VALUE`` (``field``:
    ``country``, ``paymentType`` or ``ownerType``), ``RULES_UNREADABLE``, ``RULES_MISMATCH``,
    ``BANKS_UNREADABLE``, ``BANKS_MISMATCH``: a form built on the wrong document is refused,
    never rendered."""
    country = _kinds.string(country, "country")
    payment_type = _kinds.string(payment_type, "payment_type")
    owner_type = _kinds.opt_string(owner_type, "owner_type")
    rules = _kinds.document(rules_json, "rules_json")
    banks_country = _kinds.opt_string(banks_country, "banks_country")
    banks = _kinds.document(banks_json, "banks_json")
    try:
        return _fields(g.beneficiary_form(country, payment_type, owner_type, rules,
                                          banks_country, banks))
    except GeneratedError as e:
        _raise(e)
