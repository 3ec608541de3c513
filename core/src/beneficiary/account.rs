//! Account details checked as banks check them: IBAN, BIC, CLABE, CBU, CUIT, IFSC, sort code,
//! BSB and Canadian branch code.
//!
//! Every check reads the value as a form sends it: ASCII spaces and hyphens are removed and
//! letters are read without regard to case (`de89 3704-0044…` is read as `DE893704…`).

use std::fmt;

use super::iban_registry::IBAN_REGISTRY;
use super::{is_assigned_country, IssueCode};

/// A kind of account detail, with the field of `paymentInfo` it is read from.
///
/// ```
/// use xborder_core::beneficiary::AccountDetail;
/// assert!(AccountDetail::Iban.check("DE89 3704 0044 0532 0130 00").is_ok());
/// assert_eq!(AccountDetail::Clabe.field(), "accountNumber");
/// assert_eq!(AccountDetail::SortCode.issue_code().as_str(), "INVALID_SORT_CODE");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AccountDetail {
    /// An IBAN (ISO 13616), in `accountNumber`.
    Iban,
    /// A Mexican CLABE (18 digits), in `accountNumber`.
    Clabe,
    /// An Argentine CBU (22 digits), in `accountNumber`.
    Cbu,
    /// An Argentine CUIT/CUIL (11 digits), in `bankDocumentNumber`.
    Cuit,
    /// A BIC (ISO 9362), in `bic`.
    Bic,
    /// An Indian IFSC (11 characters), in `ifscCode`.
    Ifsc,
    /// A British sort code (6 digits), in `sortCode`.
    SortCode,
    /// An Australian BSB (6 digits), in `bsbNumber`.
    Bsb,
    /// A Canadian branch code (institution 3 + transit 5 digits), in `branchCode`.
    BranchCode,
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
    /// The number has the wrong count of characters.
    Length {
        /// The count it must have.
        expected: u8,
        /// The count it has (spaces and hyphens removed).
        actual: usize,
    },
    /// The IBAN's first two letters are not a country of the IBAN registry.
    UnknownCountry {
        /// The two characters, upper case.
        country: [u8; 2],
    },
    /// A character stands where the layout wants another kind (a letter for a digit, ...).
    Layout,
    /// The first two digits of a CUIT are not one of its types (20, 23, 24, 27, 30, 33, 34, 50,
    /// 51, 55).
    UnknownType,
    /// The BIC's country letters are not an assigned ISO 3166-1 code.
    UnknownBicCountry,
    /// The check digits do not match the rest: a digit is mistyped or two are swapped.
    CheckDigits,
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
            AccountProblem::UnknownCountry { country: [a, b] } => write!(
                f,
                "an IBAN starts with its country's two letters, and {}{} is not a country that uses IBANs",
                char::from(a),
                char::from(b)
            ),
            AccountProblem::Layout => match self.detail {
                AccountDetail::Iban => f.write_str(
                    "this IBAN has a letter where its country's IBANs have a digit, or another character out of place",
                ),
                AccountDetail::Bic => f.write_str(
                    "a BIC is 4 letters (the bank), 2 letters (the country), 2 letters or digits (the place), then optionally 3 letters or digits (the branch)",
                ),
                AccountDetail::Ifsc => f.write_str(
                    "an IFSC is 4 letters (the bank), the digit 0, then 6 letters or digits (the branch)",
                ),
                _ => write!(f, "a {name} has digits only"),
            },
            AccountProblem::UnknownType => f.write_str(
                "a CUIT or CUIL starts with 20, 23, 24, 27, 30, 33, 34, 50, 51 or 55",
            ),
            AccountProblem::UnknownBicCountry => f.write_str(
                "the BIC's 5th and 6th letters must be an ISO 3166-1 country code",
            ),
            AccountProblem::CheckDigits => write!(
                f,
                "the {name}'s check digits do not match: look for a mistyped digit or two swapped ones"
            ),
        }
    }
}

impl std::error::Error for AccountDetailError {}

/// A value with ASCII spaces and hyphens removed and ASCII letters upper-cased, on the stack:
/// no format checked here is longer than 34 characters, so a longer value is only counted.
struct Compact {
    buf: [u8; 34],
    len: usize,
}

impl Compact {
    fn of(value: &str) -> Compact {
        let mut c = Compact {
            buf: [0; 34],
            len: 0,
        };
        for b in value.bytes().filter(|b| !matches!(b, b' ' | b'-')) {
            if let Some(slot) = c.buf.get_mut(c.len) {
                *slot = b.to_ascii_uppercase();
            }
            c.len += 1;
        }
        c
    }

    /// The bytes, when the whole value fits (else a length problem is reported first).
    fn bytes(&self) -> &[u8] {
        self.buf.get(..self.len).unwrap_or(&self.buf)
    }

    fn digits(&self) -> Option<impl Iterator<Item = u32> + '_> {
        let b = self.bytes();
        b.iter()
            .all(u8::is_ascii_digit)
            .then(|| b.iter().map(|d| u32::from(d - b'0')))
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

/// Whether `value` is an IBAN to check (the "when" of an IBAN): spaces and hyphens removed, it
/// starts with two ASCII letters, and it has no `.`: an Argentine CBU alias (`mi.alias.banco`,
/// letters, digits, dots and hyphens) is not an IBAN to check.
pub(super) fn iban_shaped(value: &str) -> bool {
    let mut chars = value.bytes().filter(|b| !matches!(b, b' ' | b'-'));
    chars.next().is_some_and(|b| b.is_ascii_alphabetic())
        && chars.next().is_some_and(|b| b.is_ascii_alphabetic())
        && !value.contains('.')
}

impl AccountDetail {
    /// Every kind, in the order of the crate's account-details table.
    ///
    /// ```
    /// assert_eq!(xborder_core::beneficiary::AccountDetail::ALL.len(), 9);
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
    ];

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
    /// ```
    pub fn check(self, value: &str) -> Result<(), AccountDetailError> {
        let c = Compact::of(value);
        let problem = match self {
            AccountDetail::Iban => iban(&c),
            AccountDetail::Clabe => clabe(&c),
            AccountDetail::Cbu => cbu(&c),
            AccountDetail::Cuit => cuit(&c),
            AccountDetail::Bic => bic(&c),
            AccountDetail::Ifsc => ifsc(&c),
            AccountDetail::SortCode | AccountDetail::Bsb => digits(&c, 6),
            AccountDetail::BranchCode => digits(&c, 8),
        };
        match problem {
            None => Ok(()),
            Some(problem) => Err(AccountDetailError {
                detail: self,
                problem,
            }),
        }
    }
}

fn length(c: &Compact, expected: u8) -> Option<AccountProblem> {
    (c.len != usize::from(expected)).then_some(AccountProblem::Length {
        expected,
        actual: c.len,
    })
}

fn digits(c: &Compact, count: u8) -> Option<AccountProblem> {
    length(c, count).or_else(|| c.digits().is_none().then_some(AccountProblem::Layout))
}

/// Whether `bytes` follow a registry structure (`8n12c`: 8 digits, then 12 letters or digits).
fn follows(structure: &str, mut bytes: &[u8]) -> bool {
    let mut count = 0usize;
    for s in structure.bytes() {
        if s.is_ascii_digit() {
            count = count * 10 + usize::from(s - b'0');
            continue;
        }
        let Some((run, rest)) = bytes.split_at_checked(count) else {
            return false;
        };
        let ok = match s {
            b'n' => run.iter().all(u8::is_ascii_digit),
            b'a' => run.iter().all(u8::is_ascii_uppercase),
            _ => run.iter().all(is_alnum),
        };
        if !ok {
            return false;
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

fn iban(c: &Compact) -> Option<AccountProblem> {
    let b = c.bytes();
    let Some(country) = b.get(..2) else {
        // Norway's, the shortest IBANs, have 15 characters.
        return Some(AccountProblem::Length {
            expected: 15,
            actual: c.len,
        });
    };
    let Some((len, structure)) = registry(country) else {
        // Shown in the message: anything but an ASCII letter or digit as `?`.
        let shown = |i: usize| {
            country
                .get(i)
                .copied()
                .filter(|b| b.is_ascii_alphanumeric())
                .unwrap_or(b'?')
        };
        return Some(AccountProblem::UnknownCountry {
            country: [shown(0), shown(1)],
        });
    };
    if let Some(p) = length(c, len) {
        return Some(p);
    }
    let (check, bban) = (
        b.get(2..4).unwrap_or_default(),
        b.get(4..).unwrap_or_default(),
    );
    if !check.iter().all(u8::is_ascii_digit) || !follows(structure, bban) {
        return Some(AccountProblem::Layout);
    }
    // The number with its first four characters moved to the end, each letter as two digits
    // (A = 10 ... Z = 35), must be 1 mod 97.
    // Digits gather in a u64 and are reduced mod 97 only when it could overflow (below 10^16:
    // two more digits always fit), one division every seven characters or so.
    let mut rem = 0u64;
    for ch in bban.iter().chain(country).chain(check) {
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
        .map(|(d, w)| (u32::from(d - b'0') * w) % 10)
        .sum();
    (10 - sum % 10) % 10
}

fn check_digit_at(bytes: &[u8], at: usize) -> Option<u32> {
    bytes.get(at).map(|d| u32::from(d - b'0'))
}

fn clabe(c: &Compact) -> Option<AccountProblem> {
    if let Some(p) = digits(c, 18) {
        return Some(p);
    }
    let b = c.bytes();
    let body = b.get(..17).unwrap_or(b);
    (check_digit_at(b, 17) != Some(weighted_check(body, &[3, 7, 1])))
        .then_some(AccountProblem::CheckDigits)
}

fn cbu(c: &Compact) -> Option<AccountProblem> {
    if let Some(p) = digits(c, 22) {
        return Some(p);
    }
    let b = c.bytes();
    let first = weighted_check(b.get(..7).unwrap_or(b), &[7, 1, 3, 9, 7, 1, 3]);
    let second = weighted_check(
        b.get(8..21).unwrap_or(b),
        &[3, 9, 7, 1, 3, 9, 7, 1, 3, 9, 7, 1, 3],
    );
    (check_digit_at(b, 7) != Some(first) || check_digit_at(b, 21) != Some(second))
        .then_some(AccountProblem::CheckDigits)
}

fn cuit(c: &Compact) -> Option<AccountProblem> {
    if let Some(p) = digits(c, 11) {
        return Some(p);
    }
    let b = c.bytes();
    const TYPES: [&[u8]; 10] = [
        b"20", b"23", b"24", b"27", b"30", b"33", b"34", b"50", b"51", b"55",
    ];
    if !b.get(..2).is_some_and(|t| TYPES.contains(&t)) {
        return Some(AccountProblem::UnknownType);
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

fn bic(c: &Compact) -> Option<AccountProblem> {
    if c.len != 8 && c.len != 11 {
        return Some(AccountProblem::Length {
            expected: 11,
            actual: c.len,
        });
    }
    let b = c.bytes();
    let (bank, country, rest) = (
        b.get(..4).unwrap_or_default(),
        b.get(4..6).unwrap_or_default(),
        b.get(6..).unwrap_or_default(),
    );
    if !bank.iter().all(u8::is_ascii_uppercase)
        || !country.iter().all(u8::is_ascii_uppercase)
        || !rest.iter().all(is_alnum)
    {
        return Some(AccountProblem::Layout);
    }
    let assigned = country == b"XK" || std::str::from_utf8(country).is_ok_and(is_assigned_country);
    (!assigned).then_some(AccountProblem::UnknownBicCountry)
}

fn ifsc(c: &Compact) -> Option<AccountProblem> {
    if let Some(p) = length(c, 11) {
        return Some(p);
    }
    let b = c.bytes();
    let ok = b
        .get(..4)
        .is_some_and(|s| s.iter().all(u8::is_ascii_uppercase))
        && b.get(4) == Some(&b'0')
        && b.get(5..).is_some_and(|s| s.iter().all(is_alnum));
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
                AccountProblem::UnknownCountry { country: *b"XX" },
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
            (A::Bic, "DEUTZZFF", AccountProblem::UnknownBicCountry),
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
