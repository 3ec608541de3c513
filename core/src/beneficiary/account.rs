//! Account details checked as banks check them: IBAN, BIC, CLABE, CBU, CUIT, IFSC, sort code,
//! BSB, Canadian branch code and ABA routing number.
//!
//! Every check reads the value as a form sends it: ASCII spaces and hyphens are removed and
//! ASCII letters are read without regard to case (`de89 3704-0044…` is read as `DE893704…`). A
//! character is a Unicode scalar value: lengths count them, never bytes. Each check also reads an
//! unfinished value (what [`check_account`](super::check_account) needs): the same checks in the
//! same order, a short value taken as one still being typed.

use std::fmt;
use std::str::FromStr;

use super::iban_registry::IBAN_REGISTRY;
use super::{is_assigned_country, AccountParams, CountryLetters, IssueCode, Reason};

/// A kind of account detail, with the field of `paymentInfo` it is read from. Its name
/// ([`AccountDetail::as_str`], parsed by [`str::parse`]) is the kind of `account.check` and of
/// the form model.
///
/// ```
/// use xborder_core::beneficiary::AccountDetail;
/// assert!(AccountDetail::Iban.check("DE89 3704 0044 0532 0130 00").is_ok());
/// assert_eq!(AccountDetail::Clabe.field(), "accountNumber");
/// assert_eq!(AccountDetail::SortCode.issue_code().as_str(), "INVALID_SORT_CODE");
/// assert_eq!("ca_branch".parse::<AccountDetail>(), Ok(AccountDetail::BranchCode));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AccountDetail {
    /// An IBAN (ISO 13616), in `accountNumber` (`iban`).
    Iban,
    /// A Mexican CLABE (18 digits), in `accountNumber` (`clabe`).
    Clabe,
    /// An Argentine CBU (22 digits), in `accountNumber` (`cbu`).
    Cbu,
    /// An Argentine CUIT/CUIL (11 digits), in `bankDocumentNumber` (`cuit`).
    Cuit,
    /// A BIC (ISO 9362), in `bic` (`bic`).
    Bic,
    /// An Indian IFSC (11 characters), in `ifscCode` (`ifsc`).
    Ifsc,
    /// A British sort code (6 digits), in `sortCode` (`sort_code`).
    SortCode,
    /// An Australian BSB (6 digits), in `bsbNumber` (`bsb`).
    Bsb,
    /// A Canadian branch code (institution 3 + transit 5 digits), in `branchCode` (`ca_branch`).
    BranchCode,
    /// A US ABA routing number (9 digits), in `routingNumber` (`aba`).
    Aba,
}

/// What is wrong with an account detail: what a form tells its user to fix.
///
/// ```
/// use xborder_core::beneficiary::{AccountDetail, AccountProblem};
/// let e = AccountDetail::Iban.check("GB82WEST1234569876543").unwrap_err();
/// assert_eq!(e.problem, AccountProblem::Length { expected: 22, actual: 21 });
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AccountProblem {
    /// The number has the wrong count of characters (a BIC: not 8 or 11; `expected` 11).
    Length {
        /// The count it must have.
        expected: u8,
        /// The count of characters it has (spaces and hyphens removed).
        actual: usize,
    },
    /// The IBAN's first two letters are not a country of the IBAN registry.
    UnknownCountry {
        /// The two letters.
        country: CountryLetters,
    },
    /// A character stands where the layout wants another kind (a letter for a digit, ...).
    Layout,
    /// The first two digits of a CUIT are not one of its types (20, 23, 24, 27, 30, 33, 34, 50,
    /// 51, 55); those of a routing number are outside 00–12, 21–32, 61–72 and 80, or it is all
    /// zeros.
    UnknownType,
    /// The BIC's country letters are not an assigned ISO 3166-1 code (nor `XK`).
    UnknownBicCountry {
        /// The two letters.
        country: CountryLetters,
    },
    /// The check digits do not match the rest: a digit is mistyped or two are swapped (or an
    /// IBAN's are `00`, `01` or `99`, which are never issued).
    CheckDigits,
}

impl AccountProblem {
    /// The reason code of the problem (the reasons table of the account details).
    ///
    /// ```
    /// use xborder_core::beneficiary::{AccountProblem, Reason};
    /// assert_eq!(AccountProblem::UnknownType.reason(), Reason::Type);
    /// ```
    pub fn reason(&self) -> Reason {
        match self {
            AccountProblem::Length { .. } => Reason::Length,
            AccountProblem::UnknownCountry { .. } | AccountProblem::UnknownBicCountry { .. } => {
                Reason::Country
            }
            AccountProblem::Layout => Reason::Layout,
            AccountProblem::UnknownType => Reason::Type,
            AccountProblem::CheckDigits => Reason::CheckDigits,
        }
    }
}

/// An account detail that fails its check: which kind, and what is wrong.
///
/// ```
/// use xborder_core::beneficiary::AccountDetail;
/// let e = AccountDetail::Iban.check("DE89370400440532013001").unwrap_err();
/// assert_eq!(e.code(), "INVALID_IBAN");
/// assert_eq!(e.to_string(), "the IBAN's check digits do not match: look for a mistyped digit or two swapped ones");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct AccountDetailError {
    /// The kind of detail checked.
    pub detail: AccountDetail,
    /// What is wrong.
    pub problem: AccountProblem,
}

impl AccountDetailError {
    /// The issue code (`INVALID_IBAN`, `INVALID_CLABE`, ...).
    ///
    /// ```
    /// use xborder_core::beneficiary::AccountDetail;
    /// assert_eq!(AccountDetail::Bsb.check("12345").unwrap_err().code(), "INVALID_BSB");
    /// ```
    pub fn code(&self) -> &'static str {
        self.detail.issue_code().as_str()
    }

    /// The reason code (`LAYOUT`, `COUNTRY`, `LENGTH`, `TYPE`, `CHECK_DIGITS`).
    ///
    /// ```
    /// use xborder_core::beneficiary::{AccountDetail, Reason};
    /// assert_eq!(AccountDetail::Cuit.check("21123456786").unwrap_err().reason(), Reason::Type);
    /// ```
    pub fn reason(&self) -> Reason {
        self.problem.reason()
    }

    /// The figures an app needs to say the problem in its own words: `expected` and `actual`
    /// for a length (a BIC: `actual` only), `country` for a country; none for the others.
    ///
    /// ```
    /// use xborder_core::beneficiary::AccountDetail;
    /// let p = AccountDetail::Bic.check("DEUTDEF").unwrap_err().params();
    /// assert_eq!((p.expected, p.actual), (None, Some(7)));
    /// ```
    pub fn params(&self) -> AccountParams {
        let mut p = AccountParams::default();
        match self.problem {
            AccountProblem::Length { expected, actual } => {
                if self.detail != AccountDetail::Bic {
                    p.expected = Some(usize::from(expected));
                }
                p.actual = Some(actual);
            }
            AccountProblem::UnknownCountry { country }
            | AccountProblem::UnknownBicCountry { country } => p.country = Some(country),
            AccountProblem::Layout | AccountProblem::UnknownType | AccountProblem::CheckDigits => {}
        }
        p
    }
}

impl fmt::Display for AccountDetailError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.detail.name();
        match self.problem {
            AccountProblem::Length { expected, actual } => match self.detail {
                AccountDetail::Iban => write!(
                    f,
                    "this IBAN has {actual} characters, its country's IBANs have {expected}: look for a missing or extra character"
                ),
                AccountDetail::Bic => write!(
                    f,
                    "a BIC has 8 or 11 characters, this one has {actual}"
                ),
                _ => write!(
                    f,
                    "a {name} has {expected} {}, this one has {actual}",
                    if self.detail.digits_only() { "digits" } else { "characters" }
                ),
            },
            AccountProblem::UnknownCountry { country } => write!(
                f,
                "an IBAN starts with its country's two letters, and {country} is not a country that uses IBANs"
            ),
            AccountProblem::Layout => match self.detail {
                AccountDetail::Iban => f.write_str(
                    "an IBAN is its country's two letters, two check digits, then the letters and digits its country's IBANs have: a character is out of place",
                ),
                AccountDetail::Bic => f.write_str(
                    "a BIC is 4 letters (the bank), 2 letters (the country), 2 letters or digits (the place), then optionally 3 letters or digits (the branch)",
                ),
                AccountDetail::Ifsc => f.write_str(
                    "an IFSC is 4 letters (the bank), the digit 0, then 6 letters or digits (the branch)",
                ),
                _ => write!(f, "a {name} has digits only"),
            },
            AccountProblem::UnknownType => match self.detail {
                AccountDetail::Aba => f.write_str(
                    "a routing number starts with 00-12, 21-32, 61-72 or 80, and is not all zeros",
                ),
                _ => f.write_str(
                    "a CUIT or CUIL starts with 20, 23, 24, 27, 30, 33, 34, 50, 51 or 55",
                ),
            },
            AccountProblem::UnknownBicCountry { country } => write!(
                f,
                "the BIC's 5th and 6th letters must be an ISO 3166-1 country code, and {country} is not one"
            ),
            AccountProblem::CheckDigits => write!(
                f,
                "the {name}'s check digits do not match: look for a mistyped digit or two swapped ones"
            ),
        }
    }
}

impl std::error::Error for AccountDetailError {}

/// A name that is none of the ten account kinds (`UNKNOWN_ACCOUNT_KIND`).
///
/// ```
/// use xborder_core::beneficiary::{AccountDetail, UnknownAccountKind};
/// let e = "swift".parse::<AccountDetail>().unwrap_err();
/// assert_eq!(e.code(), "UNKNOWN_ACCOUNT_KIND");
/// assert_eq!(e.to_string(), "UNKNOWN_ACCOUNT_KIND: swift is not an account kind (iban, bic, clabe, cbu, cuit, ifsc, sort_code, bsb, ca_branch, aba)");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct UnknownAccountKind {
    /// The name given.
    pub name: String,
}

impl UnknownAccountKind {
    /// Its code, `UNKNOWN_ACCOUNT_KIND`, for a binding that refuses a kind before asking core.
    ///
    /// ```
    /// use xborder_core::beneficiary::UnknownAccountKind;
    /// assert_eq!(UnknownAccountKind::CODE, "UNKNOWN_ACCOUNT_KIND");
    /// ```
    pub const CODE: &'static str = "UNKNOWN_ACCOUNT_KIND";

    /// The stable code, `UNKNOWN_ACCOUNT_KIND`.
    ///
    /// ```
    /// use xborder_core::beneficiary::AccountDetail;
    /// assert_eq!("IBAN".parse::<AccountDetail>().unwrap_err().code(), "UNKNOWN_ACCOUNT_KIND");
    /// ```
    pub fn code(&self) -> &'static str {
        Self::CODE
    }
}

impl fmt::Display for UnknownAccountKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} is not an account kind (iban, bic, clabe, cbu, cuit, ifsc, sort_code, bsb, ca_branch, aba)",
            self.code(),
            self.name
        )
    }
}

impl std::error::Error for UnknownAccountKind {}

impl FromStr for AccountDetail {
    type Err = UnknownAccountKind;

    /// One of the ten names, exactly (`iban`, `bic`, `clabe`, `cbu`, `cuit`, `ifsc`,
    /// `sort_code`, `bsb`, `ca_branch`, `aba`).
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        AccountDetail::ALL
            .iter()
            .copied()
            .find(|d| d.as_str() == name)
            .ok_or_else(|| UnknownAccountKind {
                name: name.to_owned(),
            })
    }
}

impl fmt::Display for AccountDetail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A byte that stands for a character that is not ASCII: no layout accepts it.
const NOT_ASCII: u8 = 0xFF;

/// The longest value read in full: an IBAN has at most 34 characters, every other kind fewer.
const MAX: usize = 34;

/// A value with ASCII spaces and hyphens removed and ASCII letters upper-cased, on the stack
/// (a character that is not ASCII as [`NOT_ASCII`]): no kind is longer than 34 characters, so a
/// longer value is only counted. `len` counts characters.
pub(super) struct Compact {
    buf: [u8; MAX],
    pub(super) len: usize,
}

impl Compact {
    pub(super) fn of(value: &str) -> Compact {
        let mut c = Compact {
            buf: [0; MAX],
            len: 0,
        };
        for ch in value.chars().filter(|ch| !matches!(ch, ' ' | '-')) {
            if let Some(slot) = c.buf.get_mut(c.len) {
                *slot = u8::try_from(ch)
                    .ok()
                    .filter(u8::is_ascii)
                    .map_or(NOT_ASCII, |b| b.to_ascii_uppercase());
            }
            c.len += 1;
        }
        c
    }

    /// The bytes, when the whole value fits (else the first 34: a length problem is reported
    /// before anything past them is read).
    fn bytes(&self) -> &[u8] {
        self.buf.get(..self.len).unwrap_or(&self.buf)
    }
}

fn is_alnum(b: &u8) -> bool {
    b.is_ascii_uppercase() || b.is_ascii_digit()
}

/// Whether `value`, compacted, is `count` ASCII digits (the "when" of CLABE and CBU).
pub(super) fn is_digits(value: &str, count: usize) -> bool {
    let c = Compact::of(value);
    c.len == count && c.bytes().iter().all(u8::is_ascii_digit)
}

/// Whether `value` is an IBAN to check outside the IBAN countries and Argentina: spaces and
/// hyphens removed, it starts with two ASCII letters (dots and all: a `.` exempts nothing).
pub(super) fn iban_shaped(value: &str) -> bool {
    let mut chars = value.chars().filter(|ch| !matches!(ch, ' ' | '-'));
    chars.next().is_some_and(|ch| ch.is_ascii_alphabetic())
        && chars.next().is_some_and(|ch| ch.is_ascii_alphabetic())
}

impl AccountDetail {
    /// Every kind, in the order of the crate's account-details table.
    ///
    /// ```
    /// assert_eq!(xborder_core::beneficiary::AccountDetail::ALL.len(), 10);
    /// ```
    pub const ALL: &'static [AccountDetail] = &[
        AccountDetail::Iban,
        AccountDetail::Clabe,
        AccountDetail::Cbu,
        AccountDetail::Cuit,
        AccountDetail::Bic,
        AccountDetail::Ifsc,
        AccountDetail::SortCode,
        AccountDetail::Bsb,
        AccountDetail::BranchCode,
        AccountDetail::Aba,
    ];

    /// The kind's name, as `account.check` and the form model name it.
    ///
    /// ```
    /// use xborder_core::beneficiary::AccountDetail;
    /// assert_eq!(AccountDetail::SortCode.as_str(), "sort_code");
    /// assert_eq!(AccountDetail::Aba.as_str(), "aba");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            AccountDetail::Iban => "iban",
            AccountDetail::Clabe => "clabe",
            AccountDetail::Cbu => "cbu",
            AccountDetail::Cuit => "cuit",
            AccountDetail::Bic => "bic",
            AccountDetail::Ifsc => "ifsc",
            AccountDetail::SortCode => "sort_code",
            AccountDetail::Bsb => "bsb",
            AccountDetail::BranchCode => "ca_branch",
            AccountDetail::Aba => "aba",
        }
    }

    /// The field of `paymentInfo` it is read from.
    ///
    /// ```
    /// assert_eq!(xborder_core::beneficiary::AccountDetail::Cuit.field(), "bankDocumentNumber");
    /// ```
    pub fn field(self) -> &'static str {
        match self {
            AccountDetail::Iban | AccountDetail::Clabe | AccountDetail::Cbu => "accountNumber",
            AccountDetail::Cuit => "bankDocumentNumber",
            AccountDetail::Bic => "bic",
            AccountDetail::Ifsc => "ifscCode",
            AccountDetail::SortCode => "sortCode",
            AccountDetail::Bsb => "bsbNumber",
            AccountDetail::BranchCode => "branchCode",
            AccountDetail::Aba => "routingNumber",
        }
    }

    /// The country whose drafts it is checked for (`None`: any country).
    ///
    /// ```
    /// use xborder_core::beneficiary::AccountDetail;
    /// assert_eq!((AccountDetail::Clabe.country(), AccountDetail::Iban.country()), (Some("MX"), None));
    /// ```
    pub fn country(self) -> Option<&'static str> {
        match self {
            AccountDetail::Iban | AccountDetail::Bic => None,
            AccountDetail::Clabe => Some("MX"),
            AccountDetail::Cbu | AccountDetail::Cuit => Some("AR"),
            AccountDetail::Ifsc => Some("IN"),
            AccountDetail::SortCode => Some("GB"),
            AccountDetail::Bsb => Some("AU"),
            AccountDetail::BranchCode => Some("CA"),
            AccountDetail::Aba => Some("US"),
        }
    }

    /// The issue reported when the check fails.
    ///
    /// ```
    /// use xborder_core::beneficiary::{AccountDetail, IssueCode};
    /// assert_eq!(AccountDetail::Iban.issue_code(), IssueCode::InvalidIban);
    /// ```
    pub fn issue_code(self) -> IssueCode {
        match self {
            AccountDetail::Iban => IssueCode::InvalidIban,
            AccountDetail::Clabe => IssueCode::InvalidClabe,
            AccountDetail::Cbu => IssueCode::InvalidCbu,
            AccountDetail::Cuit => IssueCode::InvalidCuit,
            AccountDetail::Bic => IssueCode::InvalidBic,
            AccountDetail::Ifsc => IssueCode::InvalidIfsc,
            AccountDetail::SortCode => IssueCode::InvalidSortCode,
            AccountDetail::Bsb => IssueCode::InvalidBsb,
            AccountDetail::BranchCode => IssueCode::InvalidBranchCode,
            AccountDetail::Aba => IssueCode::InvalidRoutingNumber,
        }
    }

    /// The count of characters the kind has in electronic form, `(min, max)`: an IBAN 15–34,
    /// a BIC 8–11, the others one count.
    ///
    /// ```
    /// use xborder_core::beneficiary::AccountDetail;
    /// assert_eq!(AccountDetail::Iban.length(), (15, 34));
    /// assert_eq!(AccountDetail::Aba.length(), (9, 9));
    /// ```
    pub fn length(self) -> (u8, u8) {
        match self {
            AccountDetail::Iban => (15, 34),
            AccountDetail::Bic => (8, 11),
            _ => {
                let n = self.count();
                (n, n)
            }
        }
    }

    /// The one count of the kinds that have one (an IBAN's is its country's, a BIC's 8 or 11).
    fn count(self) -> u8 {
        match self {
            AccountDetail::Clabe => 18,
            AccountDetail::Cbu => 22,
            AccountDetail::Cuit | AccountDetail::Ifsc | AccountDetail::Bic => 11,
            AccountDetail::SortCode | AccountDetail::Bsb => 6,
            AccountDetail::BranchCode => 8,
            AccountDetail::Aba => 9,
            AccountDetail::Iban => 34,
        }
    }

    /// The name a message uses (`IBAN`, `sort code`, ...).
    fn name(self) -> &'static str {
        match self {
            AccountDetail::Iban => "IBAN",
            AccountDetail::Clabe => "CLABE",
            AccountDetail::Cbu => "CBU",
            AccountDetail::Cuit => "CUIT",
            AccountDetail::Bic => "BIC",
            AccountDetail::Ifsc => "IFSC",
            AccountDetail::SortCode => "sort code",
            AccountDetail::Bsb => "BSB",
            AccountDetail::BranchCode => "branch code",
            AccountDetail::Aba => "routing number",
        }
    }

    fn digits_only(self) -> bool {
        !matches!(
            self,
            AccountDetail::Iban | AccountDetail::Bic | AccountDetail::Ifsc
        )
    }

    /// Checks `value` as banks check this kind of detail (spaces and hyphens removed, letters
    /// in either case).
    ///
    /// ```
    /// use xborder_core::beneficiary::{AccountDetail, AccountProblem};
    /// assert!(AccountDetail::Clabe.check("002010077777777771").is_ok());
    /// assert_eq!(AccountDetail::Clabe.check("002010077777777772").unwrap_err().problem, AccountProblem::CheckDigits);
    /// assert!(AccountDetail::Cuit.check("20-12345678-6").is_ok());
    /// assert!(AccountDetail::Bic.check("deutdeff500").is_ok());
    /// assert!(AccountDetail::Aba.check("021-000-021").is_ok());
    /// ```
    pub fn check(self, value: &str) -> Result<(), AccountDetailError> {
        match self.problem(&Compact::of(value), false) {
            None => Ok(()),
            Some(problem) => Err(AccountDetailError {
                detail: self,
                problem,
            }),
        }
    }

    /// Whether a compacted value of `len` characters has a full length of this kind (an IBAN:
    /// its country's, read from `c`).
    pub(super) fn is_full(self, c: &Compact) -> bool {
        match self {
            AccountDetail::Iban => c
                .bytes()
                .get(..2)
                .and_then(registry)
                .is_some_and(|(len, _)| c.len == usize::from(len)),
            AccountDetail::Bic => c.len == 8 || c.len == 11,
            _ => c.len == usize::from(self.count()),
        }
    }

    /// The first problem of `c`, in the order of the reasons table. `partial`: `c` may still be
    /// being typed, so a value shorter than the kind's length is not a problem in itself and
    /// only the checks its characters so far can fail are made.
    pub(super) fn problem(self, c: &Compact, partial: bool) -> Option<AccountProblem> {
        match self {
            AccountDetail::Iban => iban(c, partial),
            AccountDetail::Bic => bic(c, partial),
            AccountDetail::Ifsc => ifsc(c, partial),
            _ => digits_kind(self, c, partial),
        }
    }
}

/// A `Length` problem when `c` is longer than `expected`, or (not `partial`) of another length.
fn length(c: &Compact, expected: u8, partial: bool) -> Option<AccountProblem> {
    let n = usize::from(expected);
    (c.len > n || (!partial && c.len != n)).then_some(AccountProblem::Length {
        expected,
        actual: c.len,
    })
}

/// Whether `bytes` follow a registry structure (`8n12c`: 8 digits, then 12 letters or digits);
/// `partial`: whether they begin one.
fn follows(structure: &str, mut bytes: &[u8], partial: bool) -> bool {
    let mut count = 0usize;
    for s in structure.bytes() {
        if s.is_ascii_digit() {
            count = count * 10 + usize::from(s - b'0');
            continue;
        }
        let (run, rest) = bytes.split_at(count.min(bytes.len()));
        let ok = match s {
            b'n' => run.iter().all(u8::is_ascii_digit),
            b'a' => run.iter().all(u8::is_ascii_uppercase),
            _ => run.iter().all(is_alnum),
        };
        if !ok {
            return false;
        }
        if run.len() < count {
            return partial;
        }
        bytes = rest;
        count = 0;
    }
    bytes.is_empty()
}

/// The registry's entry of a country: `(IBAN length, BBAN structure)`.
fn registry(country: &[u8]) -> Option<(u8, &'static str)> {
    IBAN_REGISTRY
        .binary_search_by(|(cc, _, _)| cc.as_bytes().cmp(country))
        .ok()
        .and_then(|i| IBAN_REGISTRY.get(i))
        .map(|(_, len, structure)| (*len, *structure))
}

fn iban(c: &Compact, partial: bool) -> Option<AccountProblem> {
    let b = c.bytes();
    let letters = b.get(..2).unwrap_or(b);
    if !letters.iter().all(u8::is_ascii_uppercase) || (!partial && letters.len() < 2) {
        return Some(AccountProblem::Layout);
    }
    // Fewer than two letters typed so far: nothing more to check.
    let country = CountryLetters::new(letters)?;
    let Some((len, structure)) = registry(letters) else {
        return Some(AccountProblem::UnknownCountry { country });
    };
    if let Some(p) = length(c, len, partial) {
        return Some(p);
    }
    let (check, bban) = (
        b.get(2..4.min(b.len())).unwrap_or_default(),
        b.get(4..).unwrap_or_default(),
    );
    if !check.iter().all(u8::is_ascii_digit) || !follows(structure, bban, partial) {
        return Some(AccountProblem::Layout);
    }
    // ISO 13616 computes check digits 02 to 98: 00, 01 and 99 are never issued.
    if matches!(check, b"00" | b"01" | b"99") {
        return Some(AccountProblem::CheckDigits);
    }
    if partial {
        return None;
    }
    // The number with its first four characters moved to the end, each letter as two digits
    // (A = 10 ... Z = 35), must be 1 mod 97.
    // Digits gather in a u64 and are reduced mod 97 only when it could overflow (below 10^16:
    // two more digits always fit), one division every seven characters or so.
    let mut rem = 0u64;
    for ch in bban.iter().chain(letters).chain(check) {
        if rem >= 10_000_000_000_000_000 {
            rem %= 97;
        }
        rem = match ch {
            b'0'..=b'9' => rem * 10 + u64::from(ch - b'0'),
            b'A'..=b'Z' => rem * 100 + u64::from(ch - b'A') + 10,
            _ => return Some(AccountProblem::Layout),
        };
    }
    (rem % 97 != 1).then_some(AccountProblem::CheckDigits)
}

/// `(10 − Σ (dᵢ·wᵢ mod 10) mod 10) mod 10`, the check digit of CLABE and CBU blocks.
fn weighted_check(digits: &[u8], weights: &[u32]) -> u32 {
    let sum: u32 = digits
        .iter()
        .zip(weights.iter().cycle())
        .map(|(d, w)| (u32::from(d.wrapping_sub(b'0')) * w) % 10)
        .sum();
    (10 - sum % 10) % 10
}

fn check_digit_at(bytes: &[u8], at: usize) -> Option<u32> {
    bytes.get(at).map(|d| u32::from(d.wrapping_sub(b'0')))
}

/// The kinds of digits only: CLABE, CBU, CUIT, sort code, BSB, branch code, routing number.
fn digits_kind(kind: AccountDetail, c: &Compact, partial: bool) -> Option<AccountProblem> {
    if let Some(p) = length(c, kind.count(), partial) {
        return Some(p);
    }
    let b = c.bytes();
    if !b.iter().all(u8::is_ascii_digit) {
        return Some(AccountProblem::Layout);
    }
    let prefix = b.get(..2);
    let full = !partial;
    match kind {
        AccountDetail::Clabe if full => {
            let body = b.get(..17).unwrap_or(b);
            (check_digit_at(b, 17) != Some(weighted_check(body, &[3, 7, 1])))
                .then_some(AccountProblem::CheckDigits)
        }
        AccountDetail::Cbu => {
            // The first block (bank and branch) is whole from its check digit, the 8th, on.
            let first = weighted_check(b.get(..7).unwrap_or(b), &[7, 1, 3, 9, 7, 1, 3]);
            if b.len() >= 8 && check_digit_at(b, 7) != Some(first) {
                return Some(AccountProblem::CheckDigits);
            }
            let second = weighted_check(
                b.get(8..21).unwrap_or_default(),
                &[3, 9, 7, 1, 3, 9, 7, 1, 3, 9, 7, 1, 3],
            );
            (full && check_digit_at(b, 21) != Some(second)).then_some(AccountProblem::CheckDigits)
        }
        AccountDetail::Cuit => {
            const TYPES: [&[u8]; 10] = [
                b"20", b"23", b"24", b"27", b"30", b"33", b"34", b"50", b"51", b"55",
            ];
            if prefix.is_some_and(|t| !TYPES.contains(&t)) {
                return Some(AccountProblem::UnknownType);
            }
            if partial {
                return None;
            }
            let s: u32 = b
                .iter()
                .zip([5, 4, 3, 2, 7, 6, 5, 4, 3, 2])
                .map(|(d, w)| u32::from(d - b'0') * w)
                .sum();
            let expected = match s % 11 {
                0 => 0,
                1 => 9,
                r => 11 - r,
            };
            (check_digit_at(b, 10) != Some(expected)).then_some(AccountProblem::CheckDigits)
        }
        AccountDetail::Aba => {
            let assigned = |p: &[u8]| {
                let n = p.iter().fold(0u32, |acc, d| acc * 10 + u32::from(d - b'0'));
                matches!(n, 0..=12 | 21..=32 | 61..=72 | 80)
            };
            if prefix.is_some_and(|p| !assigned(p)) || (full && b.iter().all(|d| *d == b'0')) {
                return Some(AccountProblem::UnknownType);
            }
            let weights = [3, 7, 1, 3, 7, 1, 3, 7, 1];
            let sum: u32 = b
                .iter()
                .zip(weights)
                .map(|(d, w)| u32::from(d - b'0') * w)
                .sum();
            (full && sum % 10 != 0).then_some(AccountProblem::CheckDigits)
        }
        _ => None,
    }
}

fn bic(c: &Compact, partial: bool) -> Option<AccountProblem> {
    if c.len > 11 || (!partial && c.len != 8 && c.len != 11) {
        return Some(AccountProblem::Length {
            expected: 11,
            actual: c.len,
        });
    }
    let b = c.bytes();
    let layout = b.iter().enumerate().all(|(i, ch)| {
        if i < 6 {
            ch.is_ascii_uppercase()
        } else {
            is_alnum(ch)
        }
    });
    if !layout {
        return Some(AccountProblem::Layout);
    }
    let country = CountryLetters::new(b.get(4..6)?)?;
    let assigned = country.as_str() == "XK" || is_assigned_country(country.as_str());
    (!assigned).then_some(AccountProblem::UnknownBicCountry { country })
}

fn ifsc(c: &Compact, partial: bool) -> Option<AccountProblem> {
    if let Some(p) = length(c, 11, partial) {
        return Some(p);
    }
    let ok = c.bytes().iter().enumerate().all(|(i, ch)| match i {
        0..=3 => ch.is_ascii_uppercase(),
        4 => *ch == b'0',
        _ => is_alnum(ch),
    });
    (!ok).then_some(AccountProblem::Layout)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn registry_is_sorted_and_consistent() {
        assert!(IBAN_REGISTRY.windows(2).all(|w| w[0].0 < w[1].0));
        for (cc, len, structure) in IBAN_REGISTRY {
            let mut count = 0usize;
            let mut total = 4usize;
            for s in structure.bytes() {
                if s.is_ascii_digit() {
                    count = count * 10 + usize::from(s - b'0');
                } else {
                    assert!(matches!(s, b'n' | b'a' | b'c'), "{cc}");
                    total += count;
                    count = 0;
                }
            }
            assert_eq!(total, usize::from(*len), "{cc}");
        }
    }

    #[test]
    fn known_values() {
        use AccountDetail as A;
        for (kind, good) in [
            (A::Iban, "DE89 3704 0044 0532 0130 00"),
            (A::Iban, "gb82west12345698765432"),
            (A::Iban, "NL91ABNA0417164300"),
            (A::Clabe, "002010077777777771"),
            (A::Cbu, "2850590940090418135201"),
            (A::Cuit, "20-12345678-6"),
            (A::Bic, "DEUTDEFF"),
            (A::Bic, "DEUTDEFF500"),
            (A::Bic, "ABCDXK22"),
            (A::Ifsc, "HDFC0001234"),
            (A::SortCode, "12-34-56"),
            (A::Bsb, "062-000"),
            (A::BranchCode, "00312345"),
        ] {
            assert_eq!(kind.check(good), Ok(()), "{kind:?} {good}");
        }
        for (kind, bad, problem) in [
            (
                A::Iban,
                "DE89370400440532013001",
                AccountProblem::CheckDigits,
            ),
            (
                A::Iban,
                "GB82WEST1234569876543",
                AccountProblem::Length {
                    expected: 22,
                    actual: 21,
                },
            ),
            (
                A::Iban,
                "XX82WEST1234569876543",
                AccountProblem::UnknownCountry {
                    country: CountryLetters::new(b"XX").unwrap(),
                },
            ),
            (A::Iban, "GB82W3ST12345698765432", AccountProblem::Layout),
            (A::Iban, "GBX2WEST12345698765432", AccountProblem::Layout),
            (A::Clabe, "002010077777777772", AccountProblem::CheckDigits),
            (
                A::Cbu,
                "2850591940090418135201",
                AccountProblem::CheckDigits,
            ),
            (A::Cuit, "21123456786", AccountProblem::UnknownType),
            (A::Cuit, "20123456787", AccountProblem::CheckDigits),
            (
                A::Bic,
                "DEUTZZFF",
                AccountProblem::UnknownBicCountry {
                    country: CountryLetters::new(b"ZZ").unwrap(),
                },
            ),
            (A::Bic, "DEU1DEFF", AccountProblem::Layout),
            (A::Ifsc, "HDFC1001234", AccountProblem::Layout),
            (
                A::SortCode,
                "12345",
                AccountProblem::Length {
                    expected: 6,
                    actual: 5,
                },
            ),
            (A::Bsb, "06200A", AccountProblem::Layout),
            (
                A::BranchCode,
                "000312345",
                AccountProblem::Length {
                    expected: 8,
                    actual: 9,
                },
            ),
        ] {
            assert_eq!(
                kind.check(bad).map_err(|e| e.problem),
                Err(problem),
                "{kind:?} {bad}"
            );
        }
    }

    #[test]
    fn every_message_names_what_to_fix() {
        for kind in AccountDetail::ALL {
            let e = kind.check("1").unwrap_err();
            let text = e.to_string();
            assert!(text.contains("has") || text.contains("is"), "{text}");
            assert!(!text.is_empty());
        }
        assert_eq!(
            AccountDetail::Iban.check("ZZ12").unwrap_err().to_string(),
            "an IBAN starts with its country's two letters, and ZZ is not a country that uses IBANs"
        );
    }

    /// Lengths count characters (Unicode scalar values), not bytes; check digits 00, 01 and 99
    /// are never valid; a dot is a character like any other.
    #[test]
    fn contract_v4_rules() {
        let e = AccountDetail::Iban
            .check("DE89370400440532013000\u{1F600}")
            .unwrap_err();
        assert_eq!(
            e.problem,
            AccountProblem::Length {
                expected: 22,
                actual: 23
            }
        );
        assert!(e.to_string().starts_with("this IBAN has 23 characters"));
        assert_eq!(e.params().actual, Some(23));
        for v in ["DE00370400440000000060", "DE99370400440000000024"] {
            assert_eq!(
                AccountDetail::Iban.check(v).map_err(|e| e.reason()),
                Err(Reason::CheckDigits),
                "{v}"
            );
        }
        assert_eq!(
            AccountDetail::Iban
                .check("ES91.2100.0418.4502.0005.1332")
                .map_err(|e| e.reason()),
            Err(Reason::Length)
        );
        assert_eq!(
            AccountDetail::Iban.check("1DE89").map_err(|e| e.reason()),
            Err(Reason::Layout)
        );
        assert_eq!(
            format!("{:?}", AccountDetail::Iban.check("IR").unwrap_err().problem),
            "UnknownCountry { country: \"IR\" }"
        );
        assert_eq!(
            format!(
                "{:?}",
                AccountDetail::Iban.check("QQ12").unwrap_err().problem
            ),
            "UnknownCountry { country: \"QQ\" }"
        );
        for v in ["021-000-021", "0210 0002 1", " 021000021"] {
            assert_eq!(AccountDetail::Aba.check(v), Ok(()), "{v}");
        }
        assert_eq!(
            AccountDetail::Aba.check("--").map_err(|e| e.reason()),
            Err(Reason::Length)
        );
    }

    #[test]
    fn long_and_odd_values_are_refused_without_panic() {
        let long = "9".repeat(200);
        let odd = ["", "-", "  ", "é", "ÄÖ12", "DE", "DE8", "\u{0}\u{0}"];
        for kind in AccountDetail::ALL {
            assert!(kind.check(&long).is_err());
            for v in odd {
                assert!(kind.check(v).is_err(), "{kind:?} {v:?}");
            }
        }
    }

    /// A valid IBAN of `country` from a BBAN of its structure: the check digits computed.
    fn make_iban(country: &str, bban: &str) -> String {
        let rearranged = format!("{bban}{country}00");
        let mut rem = 0u32;
        for ch in rearranged.bytes() {
            let v = if ch.is_ascii_digit() {
                u32::from(ch - b'0')
            } else {
                u32::from(ch - b'A') + 10
            };
            rem = if v < 10 { rem * 10 + v } else { rem * 100 + v } % 97;
        }
        format!("{country}{:02}{bban}", 98 - rem)
    }

    fn bban_of(structure: &str, seed: &[u8]) -> String {
        let mut out = String::new();
        let mut count = 0usize;
        let mut i = 0usize;
        for s in structure.bytes() {
            if s.is_ascii_digit() {
                count = count * 10 + usize::from(s - b'0');
                continue;
            }
            for _ in 0..count {
                let r = seed[i % seed.len()];
                i += 1;
                out.push(match s {
                    b'n' => char::from(b'0' + r % 10),
                    b'a' => char::from(b'A' + r % 26),
                    _ if r % 2 == 0 => char::from(b'0' + r % 10),
                    _ => char::from(b'A' + r % 26),
                });
            }
            count = 0;
        }
        out
    }

    fn with_digits(value: &str, weights_len: usize) -> String {
        value.chars().take(weights_len).collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(10_000))]

        /// Any single changed digit of a valid IBAN is caught, and so is any swap of two
        /// adjacent different digits.
        #[test]
        fn iban_catches_one_changed_digit_and_adjacent_swaps(
            entry in 0..IBAN_REGISTRY.len(),
            seed in proptest::collection::vec(any::<u8>(), 1..40),
            at in any::<usize>(),
            delta in 1u8..10,
        ) {
            let (cc, _, structure) = IBAN_REGISTRY[entry];
            let good = make_iban(cc, &bban_of(structure, &seed));
            prop_assert_eq!(AccountDetail::Iban.check(&good), Ok(()));
            let bytes = good.as_bytes();
            let digit_positions: Vec<usize> =
                (2..bytes.len()).filter(|i| bytes[*i].is_ascii_digit()).collect();
            let i = digit_positions[at % digit_positions.len()];
            let mut changed = bytes.to_vec();
            changed[i] = b'0' + (changed[i] - b'0' + delta) % 10;
            let changed = String::from_utf8(changed).unwrap();
            prop_assert!(AccountDetail::Iban.check(&changed).is_err(), "{} -> {}", good, changed);
            // Two adjacent different digits swapped (after the country letters).
            let pairs: Vec<usize> = (2..bytes.len() - 1)
                .filter(|i| bytes[*i].is_ascii_digit() && bytes[i + 1].is_ascii_digit() && bytes[*i] != bytes[i + 1])
                .collect();
            if !pairs.is_empty() {
                let j = pairs[at % pairs.len()];
                let mut swapped = bytes.to_vec();
                swapped.swap(j, j + 1);
                let swapped = String::from_utf8(swapped).unwrap();
                prop_assert!(AccountDetail::Iban.check(&swapped).is_err(), "{} -> {}", good, swapped);
            }
        }

        /// Any single changed digit of a valid CLABE or CBU is caught.
        #[test]
        fn clabe_and_cbu_catch_one_changed_digit(
            digits in proptest::collection::vec(0u8..10, 22),
            at in 0usize..22,
            delta in 1u8..10,
        ) {
            let text: String = digits.iter().map(|d| char::from(b'0' + d)).collect();
            // A valid CLABE: 17 digits and their check digit.
            let body = with_digits(&text, 17);
            let clabe = format!("{body}{}", weighted_check(body.as_bytes(), &[3, 7, 1]));
            // A valid CBU: two blocks and their check digits.
            let b1 = with_digits(&text, 7);
            let b2: String = text.chars().skip(7).take(13).collect();
            let cbu = format!(
                "{b1}{}{b2}{}",
                weighted_check(b1.as_bytes(), &[7, 1, 3, 9, 7, 1, 3]),
                weighted_check(b2.as_bytes(), &[3, 9, 7, 1, 3, 9, 7, 1, 3, 9, 7, 1, 3])
            );
            for (kind, good) in [(AccountDetail::Clabe, clabe), (AccountDetail::Cbu, cbu)] {
                prop_assert_eq!(kind.check(&good), Ok(()));
                let mut changed = good.clone().into_bytes();
                let i = at % changed.len();
                changed[i] = b'0' + (changed[i] - b'0' + delta) % 10;
                let changed = String::from_utf8(changed).unwrap();
                prop_assert!(kind.check(&changed).is_err(), "{:?} {} -> {}", kind, good, changed);
            }
        }

        /// No input panics, and spaces, hyphens and case never change a verdict.
        #[test]
        fn separators_and_case_do_not_matter(value in "[0-9A-Za-z -]{0,40}") {
            for kind in AccountDetail::ALL {
                let plain: String = value.chars().filter(|c| *c != ' ' && *c != '-').collect();
                prop_assert_eq!(
                    kind.check(&value).is_ok(),
                    kind.check(&plain.to_ascii_lowercase()).is_ok()
                );
            }
        }
    }
}
