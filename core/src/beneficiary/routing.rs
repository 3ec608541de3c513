//! US ABA routing numbers: 9 ASCII digits, an assigned prefix, the checksum.

use std::fmt;

use super::IssueCode;

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
    /// Not exactly 9 ASCII digits.
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
/// Nothing is trimmed.
///
/// ```
/// use xborder_core::beneficiary::{check_routing_number, RoutingNumberError};
/// assert_eq!(check_routing_number("011000015"), Ok(()));
/// assert_eq!(check_routing_number(" 011000015"), Err(RoutingNumberError::Format));
/// assert_eq!(check_routing_number("000000000"), Err(RoutingNumberError::AllZeros));
/// ```
pub fn check_routing_number(number: &str) -> Result<(), RoutingNumberError> {
    let bytes = number.as_bytes();
    if bytes.len() != 9 || !bytes.iter().all(u8::is_ascii_digit) {
        return Err(RoutingNumberError::Format);
    }
    let d: Vec<u32> = bytes.iter().map(|b| u32::from(b - b'0')).collect();
    if d.iter().all(|&x| x == 0) {
        return Err(RoutingNumberError::AllZeros);
    }
    let prefix = d.iter().take(2).fold(0, |acc, x| acc * 10 + x);
    if !matches!(prefix, 0..=12 | 21..=32 | 61..=72 | 80) {
        return Err(RoutingNumberError::Prefix);
    }
    let weights = [3, 7, 1, 3, 7, 1, 3, 7, 1];
    let sum: u32 = d.iter().zip(weights).map(|(x, w)| x * w).sum();
    if sum % 10 != 0 {
        return Err(RoutingNumberError::Checksum);
    }
    Ok(())
}
