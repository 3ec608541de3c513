//! Account details as the user types them (`check_account`), and the reason and figures of an
//! account-detail issue, so an app can say it in its own language.

use std::fmt;

use xborder_core::beneficiary;

use crate::beneficiary::IssueCode;
use crate::XborderError;

/// The kind of an account detail. Text form: FORMAT.md's name (`iban`, `sort_code`,
/// `ca_branch`, ...); [`parse_account_kind`] reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, uniffi::Enum)]
#[uniffi::export(Display)]
pub enum AccountKind {
    /// An IBAN (ISO 13616).
    Iban,
    /// A BIC (ISO 9362).
    Bic,
    /// A Mexican CLABE (18 digits).
    Clabe,
    /// An Argentine CBU (22 digits).
    Cbu,
    /// An Argentine CUIT/CUIL (11 digits).
    Cuit,
    /// An Indian IFSC (11 characters).
    Ifsc,
    /// A British sort code (6 digits).
    SortCode,
    /// An Australian BSB (6 digits).
    Bsb,
    /// A Canadian branch code (institution 3 + transit 5 digits).
    CaBranch,
    /// A US ABA routing number (9 digits).
    Aba,
}

impl From<AccountKind> for beneficiary::AccountDetail {
    fn from(k: AccountKind) -> Self {
        use beneficiary::AccountDetail as D;
        match k {
            AccountKind::Iban => D::Iban,
            AccountKind::Bic => D::Bic,
            AccountKind::Clabe => D::Clabe,
            AccountKind::Cbu => D::Cbu,
            AccountKind::Cuit => D::Cuit,
            AccountKind::Ifsc => D::Ifsc,
            AccountKind::SortCode => D::SortCode,
            AccountKind::Bsb => D::Bsb,
            AccountKind::CaBranch => D::BranchCode,
            AccountKind::Aba => D::Aba,
        }
    }
}

impl AccountKind {
    /// The bindings' kind of core's (non-exhaustive there: `None` for one added later, which
    /// `account_kinds_round_trip` catches).
    pub(crate) fn of(d: beneficiary::AccountDetail) -> Option<Self> {
        use beneficiary::AccountDetail as D;
        Some(match d {
            D::Iban => AccountKind::Iban,
            D::Bic => AccountKind::Bic,
            D::Clabe => AccountKind::Clabe,
            D::Cbu => AccountKind::Cbu,
            D::Cuit => AccountKind::Cuit,
            D::Ifsc => AccountKind::Ifsc,
            D::SortCode => AccountKind::SortCode,
            D::Bsb => AccountKind::Bsb,
            D::BranchCode => AccountKind::CaBranch,
            D::Aba => AccountKind::Aba,
            _ => return None,
        })
    }
}

impl fmt::Display for AccountKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(beneficiary::AccountDetail::from(*self).as_str())
    }
}

/// Why an account detail fails: the first problem found. Text form: `LAYOUT`, `COUNTRY`,
/// `LENGTH`, `TYPE`, `CHECK_DIGITS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, uniffi::Enum)]
#[uniffi::export(Display)]
pub enum Reason {
    /// A character that cannot stand where it stands.
    Layout,
    /// A country that is not one of the kind's (`params.country`).
    Country,
    /// The wrong count of characters (`params.expected`, `params.actual`).
    Length,
    /// A CUIT type or a routing number's first two digits out of range.
    Type,
    /// The check digits do not match (or are never issued).
    CheckDigits,
}

impl Reason {
    pub(crate) fn of(r: beneficiary::Reason) -> Self {
        use beneficiary::Reason as R;
        match r {
            R::Layout => Reason::Layout,
            R::Country => Reason::Country,
            R::Length => Reason::Length,
            R::Type => Reason::Type,
            // Non-exhaustive in the core; `reasons_round_trip` names every one.
            _ => Reason::CheckDigits,
        }
    }

    fn core(self) -> beneficiary::Reason {
        use beneficiary::Reason as R;
        match self {
            Reason::Layout => R::Layout,
            Reason::Country => R::Country,
            Reason::Length => R::Length,
            Reason::Type => R::Type,
            Reason::CheckDigits => R::CheckDigits,
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.core().as_str())
    }
}

/// The figures of a reason, for a message of one's own: each absent where the reason names
/// none.
#[derive(Debug, Clone, PartialEq, Eq, Default, uniffi::Record)]
pub struct AccountParams {
    /// The count of characters the value must have (`LENGTH`).
    #[uniffi(default = None)]
    pub expected: Option<u32>,
    /// The count of characters the value has, ASCII spaces and hyphens removed (`LENGTH`).
    #[uniffi(default = None)]
    pub actual: Option<u32>,
    /// The two letters that are not a country of the kind (`COUNTRY`).
    #[uniffi(default = None)]
    pub country: Option<String>,
}

impl From<beneficiary::AccountParams> for AccountParams {
    fn from(p: beneficiary::AccountParams) -> Self {
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        AccountParams {
            expected: p.expected.map(count),
            actual: p.actual.map(count),
            country: p.country.map(|c| c.as_str().to_owned()),
        }
    }
}

/// Where a value being typed stands. Text form: `empty`, `incomplete`, `complete`, `invalid`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, uniffi::Enum)]
#[uniffi::export(Display)]
pub enum AccountState {
    /// Nothing typed (spaces and hyphens aside).
    Empty,
    /// Nothing wrong yet: keep typing (show no error).
    Incomplete,
    /// Exactly a value validation accepts for the kind.
    Complete,
    /// Wrong whatever is typed after it: `code`, `reason`, `params` and `message` say why.
    Invalid,
}

impl fmt::Display for AccountState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AccountState::Empty => "empty",
            AccountState::Incomplete => "incomplete",
            AccountState::Complete => "complete",
            AccountState::Invalid => "invalid",
        })
    }
}

/// One account detail as the user types it: its state, the electronic form (what the API
/// takes) and the display form (what the input shows); for an invalid value, why.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct AccountCheck {
    /// Empty, incomplete, complete or invalid.
    pub state: AccountState,
    /// ASCII spaces and hyphens removed, ASCII letters upper-cased, everything else kept.
    pub electronic: String,
    /// `electronic` grouped for reading (an IBAN in fours, a sort code `12-34-56`, ...).
    pub display: String,
    /// The kind's issue code (`INVALID_IBAN`, ...), when invalid.
    pub code: Option<IssueCode>,
    /// Why, when invalid.
    pub reason: Option<Reason>,
    /// The figures of `reason`, when invalid.
    pub params: Option<AccountParams>,
    /// What to fix, in English, when invalid.
    pub message: Option<String>,
}

impl From<beneficiary::AccountCheck> for AccountCheck {
    fn from(c: beneficiary::AccountCheck) -> Self {
        let (state, error) = match c.state {
            beneficiary::AccountState::Empty => (AccountState::Empty, None),
            beneficiary::AccountState::Incomplete => (AccountState::Incomplete, None),
            beneficiary::AccountState::Complete => (AccountState::Complete, None),
            beneficiary::AccountState::Invalid(e) => (AccountState::Invalid, Some(e)),
            // Non-exhaustive in the core: a state added later reads as not finished.
            _ => (AccountState::Incomplete, None),
        };
        AccountCheck {
            state,
            electronic: c.electronic,
            display: c.display,
            code: error.as_ref().map(|e| e.detail.issue_code().into()),
            reason: error.as_ref().map(|e| Reason::of(e.reason())),
            params: error.as_ref().map(|e| e.params().into()),
            message: error.as_ref().map(ToString::to_string),
        }
    }
}

/// Reads an account kind's name (`iban`, `bic`, `clabe`, `cbu`, `cuit`, `ifsc`, `sort_code`,
/// `bsb`, `ca_branch`, `aba`); throws `UNKNOWN_ACCOUNT_KIND` for another.
#[uniffi::export]
pub fn parse_account_kind(name: String) -> Result<AccountKind, XborderError> {
    let detail: beneficiary::AccountDetail = name.parse()?;
    // A kind core has and these bindings do not yet (`account_kinds_round_trip` fails then):
    // unknown here, with core's code.
    AccountKind::of(detail).ok_or_else(|| XborderError::Form {
        code: beneficiary::UnknownAccountKind::CODE.to_owned(),
        field: None,
        detail: format!("the account kind `{name}` is not known to these bindings"),
    })
}

/// Checks one account detail as the user types it (cheap enough for every keystroke): `Empty`,
/// `Incomplete` (show nothing red), `Complete` (exactly what validation accepts) or `Invalid`
/// (wrong whatever is typed next), with the electronic and display forms.
#[uniffi::export]
pub fn check_account(kind: AccountKind, value: String) -> AccountCheck {
    beneficiary::check_account(kind.into(), &value).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn account_kinds_round_trip() {
        for d in beneficiary::AccountDetail::ALL {
            let k = AccountKind::of(*d).unwrap();
            assert_eq!(k.to_string(), d.as_str());
            assert_eq!(parse_account_kind(d.as_str().to_owned()).unwrap(), k);
        }
        let e = parse_account_kind("IBAN".into()).unwrap_err();
        assert_eq!(e.error_code(), "UNKNOWN_ACCOUNT_KIND");
    }

    #[test]
    fn reasons_round_trip() {
        for r in [
            beneficiary::Reason::Layout,
            beneficiary::Reason::Country,
            beneficiary::Reason::Length,
            beneficiary::Reason::Type,
            beneficiary::Reason::CheckDigits,
        ] {
            assert_eq!(Reason::of(r).to_string(), r.as_str());
        }
    }

    #[test]
    fn an_invalid_check_carries_why() {
        let c = check_account(AccountKind::Iban, "DE893704004405320130001".into());
        assert_eq!(c.state, AccountState::Invalid);
        assert_eq!(c.code, Some(IssueCode::InvalidIban));
        assert_eq!(c.reason, Some(Reason::Length));
        let p = c.params.unwrap();
        assert_eq!((p.expected, p.actual), (Some(22), Some(23)));
        assert!(c.message.unwrap().contains("22"));
        let typing = check_account(AccountKind::Iban, "de89 3704".into());
        assert_eq!(
            (typing.state, typing.code),
            (AccountState::Incomplete, None)
        );
        assert_eq!(typing.display, "DE89 3704");
    }
}
