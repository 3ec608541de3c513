//! US ABA routing numbers: 9 ASCII digits, an assigned prefix, the checksum.

use std::fmt;

use super::{AccountDetail, AccountProblem, IssueCode};

/// Why a routing number is not a valid ABA number.
///
/// ```
/// use xborder_core::beneficiary::{check_routing_number, RoutingNumberError};
/// assert_eq!(check_routing_number("021000021"), Ok(()));
/// assert_eq!(check_routing_number("021000022"), Err(RoutingNumberError::Checksum));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RoutingNumberError {
    /// Not exactly 9 ASCII digits (ASCII spaces and hyphens aside).
    Format,
    /// All zeros.
    AllZeros,
    /// First two digits outside 00–12, 21–32, 61–72 and 80.
    Prefix,
    /// 3·(d1+d4+d7) + 7·(d2+d5+d8) + (d3+d6+d9) is not a multiple of 10.
    Checksum,
}

impl RoutingNumberError {
    /// The stable code: `INVALID_ROUTING_NUMBER` whatever the cause (the issue code a draft
    /// reports at `paymentInfo.routingNumber`).
    ///
    /// ```
    /// use xborder_core::beneficiary::RoutingNumberError;
    /// assert_eq!(RoutingNumberError::Prefix.code(), "INVALID_ROUTING_NUMBER");
    /// ```
    pub fn code(self) -> &'static str {
        IssueCode::InvalidRoutingNumber.as_str()
    }
}

impl RoutingNumberError {
    /// The cause, for the person filling the form (the message of the issue a draft reports).
    ///
    /// ```
    /// use xborder_core::beneficiary::RoutingNumberError;
    /// assert_eq!(RoutingNumberError::AllZeros.reason(), "a routing number is not all zeros");
    /// ```
    pub fn reason(self) -> &'static str {
        match self {
            RoutingNumberError::Format => "a routing number is exactly 9 ASCII digits",
            RoutingNumberError::AllZeros => "a routing number is not all zeros",
            RoutingNumberError::Prefix => "the first two digits must be 00-12, 21-32, 61-72 or 80",
            RoutingNumberError::Checksum => {
                "the ABA checksum does not hold: look for a mistyped digit or two swapped ones"
            }
        }
    }
}

impl fmt::Display for RoutingNumberError {
    /// The code, then the cause for people.
    ///
    /// ```
    /// use xborder_core::beneficiary::RoutingNumberError;
    /// assert_eq!(RoutingNumberError::Checksum.to_string(),
    ///            "INVALID_ROUTING_NUMBER: the ABA checksum does not hold: look for a mistyped digit or two swapped ones");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code(), self.reason())
    }
}

impl std::error::Error for RoutingNumberError {}

/// Checks an ABA routing number: 9 ASCII digits, not all zeros, an assigned prefix, the checksum.
/// ASCII spaces and hyphens are removed first, as in every account detail
/// ([`AccountDetail::Aba`], whose error carries the reason and its figures).
///
/// ```
/// use xborder_core::beneficiary::{check_routing_number, RoutingNumberError};
/// assert_eq!(check_routing_number("011000015"), Ok(()));
/// assert_eq!(check_routing_number(" 011-000-015"), Ok(()));
/// assert_eq!(check_routing_number("01100001"), Err(RoutingNumberError::Format));
/// assert_eq!(check_routing_number("000000000"), Err(RoutingNumberError::AllZeros));
/// ```
pub fn check_routing_number(number: &str) -> Result<(), RoutingNumberError> {
    let Err(e) = AccountDetail::Aba.check(number) else {
        return Ok(());
    };
    Err(match e.problem {
        AccountProblem::UnknownType
            if number
                .chars()
                .filter(|c| !matches!(c, ' ' | '-'))
                .all(|c| c == '0') =>
        {
            RoutingNumberError::AllZeros
        }
        AccountProblem::UnknownType => RoutingNumberError::Prefix,
        AccountProblem::CheckDigits => RoutingNumberError::Checksum,
        _ => RoutingNumberError::Format,
    })
}
