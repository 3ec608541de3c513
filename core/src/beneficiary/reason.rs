//! Why an account detail fails, as an app says it in its own language: a [`Reason`] and its
//! figures ([`AccountParams`]), beside the English message of every account-detail issue.

use std::fmt;

/// The kind of problem an account detail has (the first found, in the order of the
/// account-details table): what an app that writes its own messages switches on.
///
/// ```
/// use xborder_core::beneficiary::{AccountDetail, Reason};
/// let e = AccountDetail::Iban.check("DE00370400440532013000").unwrap_err();
/// assert_eq!(e.reason(), Reason::CheckDigits);
/// assert_eq!(e.reason().as_str(), "CHECK_DIGITS");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Reason {
    /// A character that cannot stand where it stands (a letter where a digit must be, ...).
    Layout,
    /// A country that is not one of the kind's: not in the IBAN registry, not an assigned ISO
    /// 3166-1 code in a BIC (`params.country`).
    Country,
    /// The wrong count of characters (`params.expected`, where the kind has one count, and
    /// `params.actual`).
    Length,
    /// A CUIT whose first two digits are not one of its types; a routing number whose first
    /// two digits are outside the assigned ranges, or that is all zeros.
    Type,
    /// The check digits do not match the rest (or are ones never issued: IBAN `00`, `01`, `99`).
    CheckDigits,
}

impl Reason {
    /// The stable SCREAMING_SNAKE name (`LAYOUT`, `COUNTRY`, `LENGTH`, `TYPE`, `CHECK_DIGITS`).
    ///
    /// ```
    /// assert_eq!(xborder_core::beneficiary::Reason::Type.as_str(), "TYPE");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Layout => "LAYOUT",
            Reason::Country => "COUNTRY",
            Reason::Length => "LENGTH",
            Reason::Type => "TYPE",
            Reason::CheckDigits => "CHECK_DIGITS",
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Two upper-case ASCII letters A–Z naming a country, as an account detail holds them (an IBAN's
/// first two, a BIC's 5th and 6th): shown and debug-printed as the letters.
///
/// ```
/// use xborder_core::beneficiary::{AccountDetail, AccountProblem};
/// let e = AccountDetail::Iban.check("XX12").unwrap_err();
/// let AccountProblem::UnknownCountry { country } = e.problem else { unreachable!() };
/// assert_eq!(country.as_str(), "XX");
/// assert_eq!(format!("{country:?}"), "\"XX\"");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CountryLetters([u8; 2]);

impl CountryLetters {
    /// The two letters, when both are ASCII `A`–`Z` (else `None`).
    ///
    /// ```
    /// use xborder_core::beneficiary::CountryLetters;
    /// assert_eq!(CountryLetters::new(b"DE").map(|c| c.to_string()), Some("DE".to_owned()));
    /// assert_eq!(CountryLetters::new(b"de"), None);
    /// ```
    pub fn new(letters: &[u8]) -> Option<CountryLetters> {
        match letters {
            [a, b] if a.is_ascii_uppercase() && b.is_ascii_uppercase() => {
                Some(CountryLetters([*a, *b]))
            }
            _ => None,
        }
    }

    /// The two letters as text (`"XX"`).
    ///
    /// ```
    /// use xborder_core::beneficiary::AccountDetail;
    /// let e = AccountDetail::Bic.check("DEUTZZFF").unwrap_err();
    /// assert_eq!(e.params().country.unwrap().as_str(), "ZZ");
    /// ```
    pub fn as_str(&self) -> &str {
        // Always two ASCII letters (the only constructor checks them).
        std::str::from_utf8(&self.0).unwrap_or("??")
    }
}

impl fmt::Debug for CountryLetters {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for CountryLetters {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The figures of an account-detail problem, so an app can say it in its own words: empty
/// where the reason names no figure.
///
/// ```
/// use xborder_core::beneficiary::{AccountDetail, AccountParams};
/// let e = AccountDetail::Iban.check("GB82WEST1234569876543").unwrap_err();
/// let p = e.params();
/// assert_eq!((p.expected, p.actual, p.country), (Some(22), Some(21), None));
/// assert!(AccountParams::default().is_empty());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub struct AccountParams {
    /// The count of characters the value must have (`LENGTH`, where the kind has one count).
    pub expected: Option<usize>,
    /// The count of characters the value has, ASCII spaces and hyphens removed (`LENGTH`).
    pub actual: Option<usize>,
    /// The country letters that are not a country of the kind (`COUNTRY`).
    pub country: Option<CountryLetters>,
}

impl AccountParams {
    /// Whether it holds no figure (`params` is `{}`).
    ///
    /// ```
    /// use xborder_core::beneficiary::AccountDetail;
    /// assert!(AccountDetail::SortCode.check("12345A").unwrap_err().params().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.expected.is_none() && self.actual.is_none() && self.country.is_none()
    }
}
