"""Account details as the user types them: ``check_account(kind, value)`` says whether an IBAN,
BIC, CLABE, CBU, CUIT, IFSC, sort code, BSB, Canadian branch code or ABA routing number being
typed is empty, incomplete (keep typing: show nothing red), complete (exactly what validation
accepts) or invalid (wrong whatever is typed next, with the issue code, the ``Reason`` and its
figures), with its electronic form (what the API takes) and display form (what the input
shows). Cheap enough for every keystroke. Every rule is core's."""

from dataclasses import dataclass
from typing import Any, Optional, Union

from . import _kinds
from ._account_kind import _BY_NAME, _KIND
from ._account_kind import AccountKind as AccountKind
from ._ffi import CoreEnum, GeneratedError, g, same_members, texts
from .beneficiaries import _ISSUE, _REASON, AccountParams, IssueCode, Reason, _params
from .errors import _raise


class AccountState(CoreEnum):
    """Where a value being typed stands; ``str()`` is FORMAT.md's name (``empty``,
    ``incomplete``, ``complete``, ``invalid``)."""

    EMPTY = g.AccountState.EMPTY
    INCOMPLETE = g.AccountState.INCOMPLETE
    COMPLETE = g.AccountState.COMPLETE
    INVALID = g.AccountState.INVALID


same_members(AccountState, g.AccountState)
_STATE_TEXT = texts(AccountState)
_STATE = {m.value: m for m in AccountState}


@dataclass(frozen=True)
class AccountCheck:
    """One account detail as typed: its ``state``, the ``electronic`` form (ASCII spaces and
    hyphens removed, ASCII letters upper-cased: what the API takes) and the ``display`` form
    (grouped for reading: ``DE89 3704 0044``, ``12-34-56``). When ``state`` is ``INVALID``:
    the kind's issue ``code`` (``INVALID_IBAN``, ...), the ``reason``, its figures ``params``
    and an English ``message``; all None otherwise."""

    state: AccountState
    electronic: str
    display: str
    code: Optional[IssueCode]
    reason: Optional[Reason]
    params: Optional[AccountParams]
    message: Optional[str]


def _kind(kind: object) -> Any:
    """The generated member of an ``AccountKind`` or of its name (read by core)."""
    if isinstance(kind, AccountKind):
        return kind.value
    if isinstance(kind, str):
        member = _BY_NAME.get(kind)  # core's own text of each kind, read at import
        if member is not None:
            return member
        try:  # core reads the name, and refuses it with its code
            return g.parse_account_kind(kind)
        except GeneratedError as e:
            _raise(e)
    raise TypeError("kind must be an AccountKind or its name (a str such as \"iban\"), got %s"
                    % type(kind).__name__)


def check_account(kind: Union[AccountKind, str], value: str) -> AccountCheck:
    """Checks one account detail as the user types it: ``kind`` is an ``AccountKind`` or its
    name (``"iban"``, ``"sort_code"``, ...; another name raises ``FormError`` with ``code``
    ``UNKNOWN_ACCOUNT_KIND``), ``value`` the text typed so far."""
    member = _kind(kind)
    value = _kinds.string(value, "value")
    c = g.check_account(member, value)
    if c.code is None:
        return AccountCheck(_STATE[c.state], c.electronic, c.display, None, None, None, None)
    return AccountCheck(_STATE[c.state], c.electronic, c.display, _ISSUE[c.code],
                        None if c.reason is None else _REASON[c.reason],
                        None if c.params is None else _params(c.params), c.message)
