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
use crate::envelope::EnvelopeError;

/// A request body gathered as it arrives into ONE buffer that never grows past the limit, so the
/// memory a body holds is the bytes received (plus at most the buffer's doubling), however it
/// is cut into frames or chunks. The host copies each frame in with [`BodyBuffer::push`] and
/// drops the frame at once: a list of frames would keep alive every read buffer they were cut
/// from (a body trickled a byte per TCP segment held about 4 KB of memory per byte that way).
/// A declared `Content-Length` over the limit is refused before a byte is read
/// ([`BodyBuffer::new`]); bytes past it as they come. Both are
/// [`EnvelopeError::BodyTooLarge`] (413). The deadline for the whole body is the host's clock
/// ([`TransportError::BodyTimeout`]).
///
/// ```
/// use xborder_core::transport::BodyBuffer;
/// let mut body = BodyBuffer::new(None, 8).unwrap();
/// body.push(b"{\"a\"").unwrap();
/// body.push(b":1}").unwrap();
/// assert_eq!(body.into_bytes(), b"{\"a\":1}");
/// assert_eq!(BodyBuffer::new(Some(9), 8).unwrap_err().code(), "BODY_TOO_LARGE");
/// let mut body = BodyBuffer::new(None, 4).unwrap();
/// assert_eq!(body.push(b"12345").unwrap_err().code(), "BODY_TOO_LARGE");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyBuffer {
    buf: Vec<u8>,
    limit: usize,
}

impl BodyBuffer {
    /// An empty buffer for a body of at most `limit` bytes; `declared` is the request's
    /// `Content-Length` when it has one: over the limit, `BODY_TOO_LARGE` before a byte is read;
    /// within it, reserved once.
    ///
    /// ```
    /// use xborder_core::transport::BodyBuffer;
    /// assert!(BodyBuffer::new(Some(1024), 1024).is_ok());
    /// assert!(BodyBuffer::new(Some(1025), 1024).is_err());
    /// ```
    pub fn new(declared: Option<u64>, limit: usize) -> Result<BodyBuffer, EnvelopeError> {
        let too_large = EnvelopeError::BodyTooLarge { limit };
        let reserve = match declared {
            Some(n) => usize::try_from(n)
                .ok()
                .filter(|n| *n <= limit)
                .ok_or(too_large)?,
            None => 0,
        };
        Ok(BodyBuffer {
            buf: Vec::with_capacity(reserve),
            limit,
        })
    }

    /// Copies `chunk` in; `BODY_TOO_LARGE` (and nothing copied) when the body would pass the
    /// limit. The buffer doubles as it grows, never past the limit.
    ///
    /// ```
    /// use xborder_core::transport::BodyBuffer;
    /// let mut body = BodyBuffer::new(None, 3).unwrap();
    /// body.push(b"ab").unwrap();
    /// assert!(body.push(b"cd").is_err());
    /// assert_eq!(body.len(), 2);
    /// ```
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), EnvelopeError> {
        let need = self.buf.len().saturating_add(chunk.len());
        if need > self.limit {
            return Err(EnvelopeError::BodyTooLarge { limit: self.limit });
        }
        if need > self.buf.capacity() {
            let target = need
                .max(self.buf.capacity().saturating_mul(2))
                .min(self.limit);
            self.buf
                .reserve_exact(target.saturating_sub(self.buf.len()));
        }
        self.buf.extend_from_slice(chunk);
        Ok(())
    }

    /// The bytes received so far.
    ///
    /// ```
    /// use xborder_core::transport::BodyBuffer;
    /// assert_eq!(BodyBuffer::new(None, 3).unwrap().len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Whether nothing was received.
    ///
    /// ```
    /// use xborder_core::transport::BodyBuffer;
    /// assert!(BodyBuffer::new(None, 3).unwrap().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// The whole body, to hand to the receiver.
    ///
    /// ```
    /// use xborder_core::transport::BodyBuffer;
    /// let mut body = BodyBuffer::new(Some(2), 8).unwrap();
    /// body.push(b"{}").unwrap();
    /// assert_eq!(body.into_bytes(), b"{}");
    /// ```
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }
}

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
    fn a_trickled_body_holds_what_it_received() {
        let limit = 1 << 20;
        let mut body = BodyBuffer::new(None, limit).unwrap();
        for _ in 0..50_000 {
            body.push(b"x").unwrap();
        }
        assert_eq!(body.len(), 50_000);
        // Doubling: never more than twice what arrived, never past the limit.
        assert!(body.buf.capacity() <= 100_000, "{}", body.buf.capacity());
        let mut full = BodyBuffer::new(Some(limit as u64), limit).unwrap();
        full.push(&vec![0; limit]).unwrap();
        assert_eq!(full.buf.capacity(), limit);
        assert!(full.push(b"x").is_err());
        assert_eq!(full.len(), limit);
        assert!(BodyBuffer::new(Some(u64::MAX), limit).is_err());
    }

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
