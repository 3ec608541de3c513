//! What a receiver's HTTP layer refuses before a body reaches core, and what it answers.
//!
//! Core reads no socket, but the limits a webhook endpoint on the public internet must hold are
//! part of receiving safely, and their answers are core's like every other (the provider retries
//! each one): a body that has not arrived in full within its deadline (`BODY_TIMEOUT`, 408), and
//! a connection past the host's cap (`TOO_MANY_CONNECTIONS`, 503 with `Retry-After: 1`). A body
//! over the limit is [`EnvelopeError::BodyTooLarge`](crate::envelope::EnvelopeError) (413),
//! whether the host saw it in `Content-Length` or counted it as it arrived.
//!
//! ```
//! use xborder_core::{claims::reply_to_code, transport::TransportError};
//! let e = TransportError::BodyTimeout { limit_ms: 10_000 };
//! assert_eq!((e.code(), e.reply().status), ("BODY_TIMEOUT", 408));
//! assert_eq!(reply_to_code("TOO_MANY_CONNECTIONS").retry_after_s, Some(1));
//! ```

use std::fmt;

use crate::claims::{reply_to_code, Reply};

/// Why a receiver refused a request before its body reached core.
///
/// ```
/// use xborder_core::transport::TransportError;
/// let e = TransportError::TooManyConnections { limit: 512 };
/// assert_eq!(e.to_string(), "TOO_MANY_CONNECTIONS: 512 connections are open already; retry later");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TransportError {
    /// The body did not arrive in full within `limit_ms` of the request's head (a slow or
    /// stalled client): answered 408 and the connection closed.
    BodyTimeout {
        /// The deadline for the whole body, in milliseconds.
        limit_ms: u64,
    },
    /// The host has `limit` connections open already: this one is answered 503 with
    /// `Retry-After: 1` and closed, rather than left waiting unaccepted.
    TooManyConnections {
        /// The host's connection cap.
        limit: u64,
    },
}

impl TransportError {
    /// Stable code: `BODY_TIMEOUT` or `TOO_MANY_CONNECTIONS`.
    ///
    /// ```
    /// use xborder_core::transport::TransportError;
    /// assert_eq!(TransportError::BodyTimeout { limit_ms: 1 }.code(), "BODY_TIMEOUT");
    /// ```
    pub fn code(self) -> &'static str {
        match self {
            TransportError::BodyTimeout { .. } => "BODY_TIMEOUT",
            TransportError::TooManyConnections { .. } => "TOO_MANY_CONNECTIONS",
        }
    }

    /// What to answer: `BODY_TIMEOUT` → 408 (the request's fault: the provider retries on its
    /// schedule), `TOO_MANY_CONNECTIONS` → 503 with `Retry-After: 1` (this service is busy for a
    /// moment). Close the connection after either.
    ///
    /// ```
    /// use xborder_core::transport::TransportError;
    /// let r = TransportError::TooManyConnections { limit: 8 }.reply();
    /// assert_eq!((r.status, r.retry_after_s), (503, Some(1)));
    /// assert_eq!(TransportError::BodyTimeout { limit_ms: 1 }.reply().status, 408);
    /// ```
    pub fn reply(self) -> Reply {
        reply_to_code(self.code())
    }
}

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TransportError::BodyTimeout { limit_ms } => write!(
                f,
                "BODY_TIMEOUT: the body did not arrive in full within {limit_ms} ms"
            ),
            TransportError::TooManyConnections { limit } => write!(
                f,
                "TOO_MANY_CONNECTIONS: {limit} connections are open already; retry later"
            ),
        }
    }
}

impl std::error::Error for TransportError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_refusal_has_its_status() {
        let timeout = TransportError::BodyTimeout { limit_ms: 5 }.reply();
        assert_eq!((timeout.status, timeout.retry_after_s), (408, None));
        let busy = TransportError::TooManyConnections { limit: 5 }.reply();
        assert_eq!((busy.status, busy.retry_after_s), (503, Some(1)));
        assert_eq!(
            TransportError::BodyTimeout { limit_ms: 5 }.to_string(),
            "BODY_TIMEOUT: the body did not arrive in full within 5 ms"
        );
    }
}
