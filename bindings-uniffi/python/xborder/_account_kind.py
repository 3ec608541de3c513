"""The kind of an account detail (``AccountKind``, re-exported by ``xborder.accounts``): below
``xborder.accounts`` and ``xborder.forms`` (a form field names the kind it takes), so that
``forms`` need not import ``accounts``, which imports ``beneficiaries``, which builds forms."""

from ._ffi import CoreEnum, g, same_members, texts


class AccountKind(CoreEnum):
    """The kind of an account detail; ``str()`` is FORMAT.md's name (``iban``, ``sort_code``,
    ``ca_branch``, ...), which ``check_account`` also takes."""

    IBAN = g.AccountKind.IBAN
    BIC = g.AccountKind.BIC
    CLABE = g.AccountKind.CLABE
    CBU = g.AccountKind.CBU
    CUIT = g.AccountKind.CUIT
    IFSC = g.AccountKind.IFSC
    SORT_CODE = g.AccountKind.SORT_CODE
    BSB = g.AccountKind.BSB
    CA_BRANCH = g.AccountKind.CA_BRANCH
    ABA = g.AccountKind.ABA


same_members(AccountKind, g.AccountKind)
_KIND_TEXT = texts(AccountKind)
_KIND = {m.value: m for m in AccountKind}
_BY_NAME = {text: m.value for m, text in _KIND_TEXT.items()}
