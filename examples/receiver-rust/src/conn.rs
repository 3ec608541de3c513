//! One connection's limits: the header timeout, the idle keep-alive timeout, and the cap on open
//! connections (the semaphore in `main.rs`).
//!
//! The two timeouts follow Go's `net/http` (`ReadHeaderTimeout`, `IdleTimeout`):
//!
//! - a **new** connection must send a whole request head within `--header-timeout-ms` of being
//!   accepted (a client that connects and sends nothing, or half a header, is closed then);
//! - **between requests** on a kept-alive connection, the client may send nothing for up to
//!   `--idle-timeout-ms` after the previous answer; from the first byte of its next request, it
//!   has `--header-timeout-ms` to finish that request's head.
//!
//! A connection with a request being handled (reading its body, claiming, persisting) is never
//! closed by either: the watchdog waits for the answer. hyper's own `header_read_timeout` is not
//! used: hyper starts it whenever it waits for a head, at accept and after every answer, so it
//! would also close every kept-alive connection at the header timeout and leave no room for a
//! longer idle one.
//!
//! The watchdog runs in the connection's own task: closing is dropping the connection (its
//! socket), with nothing else to stop.

use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::Notify;
use tokio::time::Instant;

/// No byte of the next head read yet.
const NONE: u64 = u64::MAX;

/// Why the watchdog closed a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Closed {
    /// A request head not received whole in time (a new connection that sent nothing or part
    /// of a head, or a kept-alive one that started a request and stalled).
    Header,
    /// Nothing sent for the idle timeout after an answer.
    Idle,
    /// Shutting down: nothing sent for the drain period (`--drain-ms`) since the answer or
    /// since the shutdown began, whichever came last.
    Drained,
}

/// What the connection's reader, its service and its watchdog share.
pub(crate) struct Watch {
    start: Instant,
    header: Duration,
    idle: Duration,
    /// Milliseconds since `start` when the first byte of the next head came (`NONE`: not yet).
    head_started: AtomicU64,
    /// Milliseconds since `start` when the last answer was handed back (0 at accept).
    waiting_since: AtomicU64,
    /// Requests being handled.
    in_flight: AtomicU32,
    /// A request was received on this connection.
    served: AtomicBool,
    /// Shutting down: milliseconds since `start` when the drain began (`NONE`: not draining).
    drain_since: AtomicU64,
    /// The drain period, in milliseconds.
    drain_ms: AtomicU64,
    wake: Notify,
}

impl Watch {
    pub(crate) fn new(header: Duration, idle: Duration) -> Arc<Watch> {
        Arc::new(Watch {
            start: Instant::now(),
            header,
            idle,
            head_started: AtomicU64::new(NONE),
            waiting_since: AtomicU64::new(0),
            in_flight: AtomicU32::new(0),
            served: AtomicBool::new(false),
            drain_since: AtomicU64::new(NONE),
            drain_ms: AtomicU64::new(0),
            wake: Notify::new(),
        })
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX - 1)
    }

    /// Bytes came in: the first of a head starts its header timeout.
    fn read(&self) {
        if self.in_flight.load(Ordering::Acquire) == 0
            && self
                .head_started
                .compare_exchange(NONE, self.now_ms(), Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        {
            self.wake.notify_one();
        }
    }

    /// A request's head was parsed and handed to the service; the guard marks its answer.
    pub(crate) fn request(self: &Arc<Self>) -> InFlight {
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        self.served.store(true, Ordering::Release);
        self.head_started.store(NONE, Ordering::Release);
        InFlight(self.clone())
    }

    /// Shutting down: from now on the connection is closed once it has been idle (no request
    /// being handled, no byte of a next head received) for `drain`, counted from its last
    /// answer or from now, whichever is later. A request whose bytes came in is answered first.
    pub(crate) fn drain(&self, drain: Duration) {
        let ms = u64::try_from(drain.as_millis()).unwrap_or(u64::MAX / 4);
        self.drain_ms.store(ms.min(u64::MAX / 4), Ordering::Release);
        let _ = self.drain_since.compare_exchange(
            NONE,
            self.now_ms(),
            Ordering::AcqRel,
            Ordering::Relaxed,
        );
        self.wake.notify_one();
    }

    /// When the connection is to be closed unless something happens first (`None`: a request
    /// is being handled).
    fn deadline_ms(&self) -> Option<(u64, Closed)> {
        if self.in_flight.load(Ordering::Acquire) > 0 {
            return None;
        }
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX / 2);
        let head = self.head_started.load(Ordering::Acquire);
        let timeout = self.timeout_ms(head, ms);
        let drain_since = self.drain_since.load(Ordering::Acquire);
        if drain_since == NONE || head != NONE {
            return Some(timeout);
        }
        // Draining and idle: closed after the drain period of silence.
        let since = drain_since.max(self.waiting_since.load(Ordering::Acquire));
        let drained = since.saturating_add(self.drain_ms.load(Ordering::Acquire));
        Some(if drained <= timeout.0 {
            (drained, Closed::Drained)
        } else {
            timeout
        })
    }

    /// The header or idle timeout's deadline.
    fn timeout_ms(&self, head: u64, ms: impl Fn(Duration) -> u64) -> (u64, Closed) {
        if head != NONE {
            (head.saturating_add(ms(self.header)), Closed::Header)
        } else if !self.served.load(Ordering::Acquire) {
            (ms(self.header), Closed::Header)
        } else {
            let since = self.waiting_since.load(Ordering::Acquire);
            (since.saturating_add(ms(self.idle)), Closed::Idle)
        }
    }

    /// Resolves when the connection is to be closed, and says why.
    pub(crate) async fn expired(&self) -> Closed {
        loop {
            match self.deadline_ms() {
                None => self.wake.notified().await,
                Some((at, why)) => {
                    let now = self.now_ms();
                    if now >= at {
                        return why;
                    }
                    tokio::select! {
                        () = tokio::time::sleep(Duration::from_millis(at - now)) => {}
                        () = self.wake.notified() => {}
                    }
                }
            }
        }
    }
}

/// A request being handled; dropped once its answer is handed to hyper.
pub(crate) struct InFlight(Arc<Watch>);

impl Drop for InFlight {
    fn drop(&mut self) {
        let w = &self.0;
        w.waiting_since.store(w.now_ms(), Ordering::Release);
        w.in_flight.fetch_sub(1, Ordering::AcqRel);
        w.wake.notify_one();
    }
}

/// The connection's socket, telling the watch when bytes come in.
pub(crate) struct Watched<I> {
    io: I,
    watch: Arc<Watch>,
}

impl<I> Watched<I> {
    pub(crate) fn new(io: I, watch: Arc<Watch>) -> Self {
        Watched { io, watch }
    }
}

impl<I: AsyncRead + Unpin> AsyncRead for Watched<I> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.io).poll_read(cx, buf);
        if matches!(r, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.watch.read();
        }
        r
    }
}

impl<I: AsyncWrite + Unpin> AsyncWrite for Watched<I> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_new_connection_has_the_header_timeout_a_kept_alive_one_the_idle_one() {
        let w = Watch::new(Duration::from_millis(100), Duration::from_millis(1000));
        // Nothing sent: closed at the header timeout.
        assert_eq!(w.expired().await, Closed::Header);
        assert!(w.start.elapsed() >= Duration::from_millis(100));

        let w = Watch::new(Duration::from_millis(100), Duration::from_millis(1000));
        let guard = w.request();
        // A request in flight holds the connection however long it takes.
        let held = tokio::time::timeout(Duration::from_secs(5), w.expired()).await;
        assert!(held.is_err());
        drop(guard);
        let t = Instant::now();
        assert_eq!(w.expired().await, Closed::Idle);
        assert!(t.elapsed() >= Duration::from_millis(1000));

        // After an answer, a byte of the next head: the header timeout from that byte.
        let w = Watch::new(Duration::from_millis(100), Duration::from_millis(1000));
        drop(w.request());
        tokio::time::sleep(Duration::from_millis(300)).await;
        w.read();
        let t = Instant::now();
        assert_eq!(w.expired().await, Closed::Header);
        let took = t.elapsed();
        assert!(took >= Duration::from_millis(100) && took < Duration::from_millis(200));
    }

    #[tokio::test(start_paused = true)]
    async fn draining_closes_a_connection_once_idle_for_the_drain_period() {
        // Idle since an answer long ago: closed the drain period after the drain began.
        let w = Watch::new(Duration::from_millis(100), Duration::from_secs(75));
        drop(w.request());
        tokio::time::sleep(Duration::from_secs(30)).await;
        w.drain(Duration::from_millis(1000));
        let t = Instant::now();
        assert_eq!(w.expired().await, Closed::Drained);
        assert!(t.elapsed() >= Duration::from_millis(1000));

        // A request in flight when the drain begins: never closed under it; the drain period
        // counts from its answer.
        let w = Watch::new(Duration::from_millis(100), Duration::from_secs(75));
        let guard = w.request();
        w.drain(Duration::from_millis(1000));
        let held = tokio::time::timeout(Duration::from_secs(5), w.expired()).await;
        assert!(held.is_err());
        drop(guard);
        let t = Instant::now();
        assert_eq!(w.expired().await, Closed::Drained);
        assert!(t.elapsed() >= Duration::from_millis(1000));

        // Bytes of a next head received: not drained, the header timeout applies.
        let w = Watch::new(Duration::from_millis(100), Duration::from_secs(75));
        drop(w.request());
        w.drain(Duration::from_millis(1000));
        w.read();
        assert_eq!(w.expired().await, Closed::Header);
    }
}
