//! [`Reply`]: what a receiver answers the provider, and [`reply_to_code`], the reply to an
//! error code.

use super::store::StoreError;
use super::ClaimError;

/// What a receiver answers the provider: an HTTP status and, when the provider should wait
/// before retrying, a `Retry-After` in seconds. Given by
/// [`ClaimRules::reply`](super::ClaimRules::reply) for a step's
/// outcome and by [`ClaimError::reply`] for a step that failed, so every runtime's receiver
/// answers alike.
///
/// ```
/// use xborder_core::claims::{ClaimRules, Outcome, Step};
/// let r = ClaimRules::new(2_500).reply(Step::Claim, Outcome::InProgress).unwrap();
/// assert_eq!((r.status, r.retry_after_s), (503, Some(3)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Reply {
    /// The HTTP status: 200, 400, 413, 500 or 503.
    pub status: u16,
    /// Seconds for a `Retry-After` header, when one goes with the status.
    pub retry_after_s: Option<u64>,
}

impl Reply {
    /// 200, no `Retry-After`: what `process` (once persisted), `ignore` and `duplicate` answer.
    ///
    /// ```
    /// use xborder_core::claims::Reply;
    /// assert_eq!((Reply::OK.status, Reply::OK.retry_after_s), (200, None));
    /// ```
    pub const OK: Reply = Reply {
        status: 200,
        retry_after_s: None,
    };
    pub(super) const RETRY: Reply = Reply {
        status: 500,
        retry_after_s: None,
    };

    /// Whether the provider takes the delivery as done (a 2xx status).
    ///
    /// ```
    /// use xborder_core::claims::{ClaimRules, Outcome, Step};
    /// assert!(ClaimRules::default().reply(Step::Claim, Outcome::Duplicate).unwrap().acknowledges());
    /// ```
    pub fn acknowledges(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

/// What to answer the provider for a delivery refused, or a step failed, with the error `code`
/// (as a binding's exception or a rejected decision carries it). The provider retries every
/// answer that is not 2xx (five attempts, then a dead letter), so the status says whose the
/// fault is, for the logs of both sides:
/// - the request's: a signature that is missing, malformed or does not match, a body that is not
///   an envelope → 400; `BODY_TOO_LARGE` → 413; `BODY_TIMEOUT` (a body not in full within the
///   receiver's deadline) → 408;
/// - this service's: a secret that is empty or malformed (its configuration), `INVALID_STEP`
///   (the host's bug), `PERSIST_FAILED` (the host's persist failed, the claim released), any
///   other code → 500;
/// - for a moment: `STORE_UNAVAILABLE` → 503 with `Retry-After: 1` ([`ClaimError::reply`]), and
///   `TOO_MANY_CONNECTIONS` (the receiver's connection cap) the same
///   ([`TransportError::reply`](crate::transport::TransportError::reply)).
///
/// ```
/// use xborder_core::claims::reply_to_code;
/// assert_eq!(reply_to_code("STORE_UNAVAILABLE").retry_after_s, Some(1));
/// assert_eq!(reply_to_code("SIGNATURE_MISMATCH").status, 400);
/// assert_eq!(reply_to_code("MISSING_FIELD").status, 400);
/// assert_eq!(reply_to_code("BODY_TOO_LARGE").status, 413);
/// assert_eq!(reply_to_code("BODY_TIMEOUT").status, 408);
/// assert_eq!(reply_to_code("TOO_MANY_CONNECTIONS").retry_after_s, Some(1));
/// assert_eq!(reply_to_code("MALFORMED_SECRET").status, 500);
/// assert_eq!(reply_to_code("INVALID_STEP").status, 500);
/// assert_eq!(reply_to_code("PERSIST_FAILED").status, 500);
/// assert_eq!(reply_to_code("ANYTHING").status, 500);
/// ```
pub fn reply_to_code(code: &str) -> Reply {
    match code {
        "STORE_UNAVAILABLE" => ClaimError::Store(StoreError::new(code)).reply(),
        "MISSING_SIGNATURE"
        | "MALFORMED_SIGNATURE"
        | "SIGNATURE_MISMATCH"
        | "MALFORMED_JSON"
        | "NESTING_TOO_DEEP"
        | "MISSING_FIELD"
        | "INVALID_FIELD"
        | "ENTITY_MISMATCH" => Reply {
            status: 400,
            retry_after_s: None,
        },
        "BODY_TOO_LARGE" => Reply {
            status: 413,
            retry_after_s: None,
        },
        "BODY_TIMEOUT" => Reply {
            status: 408,
            retry_after_s: None,
        },
        "TOO_MANY_CONNECTIONS" => Reply {
            status: 503,
            retry_after_s: Some(1),
        },
        _ => Reply::RETRY,
    }
}
