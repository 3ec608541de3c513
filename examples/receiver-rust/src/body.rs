//! The request body, read into ONE buffer as it arrives: memory held is memory counted.
//!
//! `Limited::new(body, limit).collect()` keeps every frame's `Bytes`, and each of those keeps
//! alive the read buffer hyper cut it from: a body trickled one byte per TCP segment held about
//! 4 KB of memory per byte received (issue 30: four such connections, 0.19 MiB of body, took
//! the process to 806 MB), so the limit counted bytes, not memory. Here each frame is copied
//! into one `Vec` and dropped at once (hyper's buffer is then free to be reused), the `Vec`
//! never grows past the limit, and:
//!
//! - a declared `Content-Length` over the limit is refused before a byte is read;
//! - a body (chunked, or longer than declared) is refused as soon as the bytes received pass the
//!   limit;
//! - the whole body must arrive by `deadline`.

use bytes::Buf;
use http_body_util::BodyExt;
use hyper::body::Body;
use tokio::time::Instant;
use xborder_core::transport::BodyBuffer;

/// Why a body was not read whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BodyError {
    /// Its declared length, or the bytes received, passed the limit (`BODY_TOO_LARGE`).
    TooLarge,
    /// Not received whole by the deadline (`BODY_TIMEOUT`).
    Timeout,
    /// The connection broke, or the chunked encoding was malformed (`BODY_UNREADABLE`).
    Unreadable,
}

impl BodyError {
    /// The code core answers for (`xborder_core::claims::reply_to_code`).
    pub(crate) fn code(self) -> &'static str {
        match self {
            BodyError::TooLarge => "BODY_TOO_LARGE",
            BodyError::Timeout => "BODY_TIMEOUT",
            BodyError::Unreadable => "BODY_UNREADABLE",
        }
    }
}

/// Reads `body` whole into one buffer (core's [`BodyBuffer`]: the limit and the buffer's growth
/// are core's rule), refusing it past `limit` bytes or after `deadline`; each frame is copied in
/// and dropped at once, with its hold on hyper's read buffer.
pub(crate) async fn read_body<B>(
    mut body: B,
    limit: usize,
    deadline: Instant,
) -> Result<Vec<u8>, BodyError>
where
    B: Body + Unpin,
{
    let mut buf =
        BodyBuffer::new(body.size_hint().exact(), limit).map_err(|_| BodyError::TooLarge)?;
    loop {
        let frame = match tokio::time::timeout_at(deadline, body.frame()).await {
            Err(_) => return Err(BodyError::Timeout),
            Ok(None) => return Ok(buf.into_bytes()),
            Ok(Some(Err(_))) => return Err(BodyError::Unreadable),
            Ok(Some(Ok(frame))) => frame,
        };
        // Trailers carry nothing signed: skipped.
        let Ok(mut data) = frame.into_data() else {
            continue;
        };
        while data.has_remaining() {
            let chunk = data.chunk();
            let n = chunk.len();
            buf.push(chunk).map_err(|_| BodyError::TooLarge)?;
            data.advance(n);
        }
        // `data` (the frame, and its hold on hyper's read buffer) is dropped here.
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use bytes::Bytes;
    use http_body_util::Full;
    use hyper::body::Frame;
    use std::pin::Pin;
    use std::task::{Context, Poll};
    use std::time::Duration;

    /// A body sent in the given frames, then stalled for ever (`stall`) or ended.
    struct Frames {
        parts: std::vec::IntoIter<&'static [u8]>,
        stall: bool,
    }

    fn frames(parts: Vec<&'static [u8]>, stall: bool) -> Frames {
        Frames {
            parts: parts.into_iter(),
            stall,
        }
    }

    impl Body for Frames {
        type Data = Bytes;
        type Error = std::io::Error;
        fn poll_frame(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
            match self.parts.next() {
                Some(p) => Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(p))))),
                None if self.stall => Poll::Pending,
                None => Poll::Ready(None),
            }
        }
    }

    fn later() -> Instant {
        Instant::now() + Duration::from_secs(10)
    }

    #[tokio::test]
    async fn copies_frames_into_one_buffer_and_refuses_past_the_limit() {
        let got = read_body(frames(vec![b"ab", b"cd", b"e"], false), 5, later()).await;
        assert_eq!(got.unwrap(), b"abcde");
        let got = read_body(frames(vec![b"ab", b"cd", b"ef"], false), 5, later()).await;
        assert_eq!(got, Err(BodyError::TooLarge));
        // Refused as soon as the bytes pass the limit, though the body then stalls.
        let got = read_body(frames(vec![b"abc", b"def"], true), 5, later()).await;
        assert_eq!(got, Err(BodyError::TooLarge));
        // A declared length over the limit: refused unread.
        let full = Full::new(Bytes::from_static(b"abcdef"));
        assert_eq!(read_body(full, 5, later()).await, Err(BodyError::TooLarge));
        // A declared length within it: reserved once, exactly.
        let full = Full::new(Bytes::from_static(b"abcde"));
        let got = read_body(full, 5, later()).await.unwrap();
        assert_eq!((got.as_slice(), got.capacity()), (&b"abcde"[..], 5));
        // Undeclared: the buffer never grows past the limit.
        let got = read_body(frames(vec![b"abc", b"d", b"e"], false), 5, later()).await;
        assert!(got.unwrap().capacity() <= 5);
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_that_stalls_times_out() {
        let t = Instant::now();
        let got = read_body(frames(vec![b"ab"], true), 5, t + Duration::from_millis(300)).await;
        assert_eq!(got, Err(BodyError::Timeout));
        assert!(t.elapsed() >= Duration::from_millis(300));
    }
}
