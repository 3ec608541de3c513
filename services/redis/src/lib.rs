//! # xborder-redis
//!
//! Claims of [`xborder_core::claims`] kept in Redis, so that every instance of one consumer
//! shares them: a delivery and its retry arriving at two instances at once are processed once.
//!
//! The rules are core's ([`ClaimTask`] decides); this crate only moves entry texts: a load is a
//! `GET`, a compare-and-set is core's [`REDIS_COMPARE_AND_SET`] script, the same one the Node
//! and Python adapters run. The host injects its connection (a `redis` crate
//! [`ConnectionManager`] or multiplexed connection) and its clock (`at_ms`).
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use xborder_core::claims::{ClaimRules, Outcome};
//! use xborder_redis::RedisClaims;
//! let client = redis::Client::open("redis://127.0.0.1:6379/")?;
//! let conn = redis::aio::ConnectionManager::new(client).await?;
//! let claims = RedisClaims::new(conn, ClaimRules::new(30_000).with_window(7 * 86_400_000), "xb:claims:");
//! let now = 1_700_000_000_000;
//! if claims.step("claim", "evt_1", "req_42", now).await? == Outcome::Claimed {
//!     // persist the event, then:
//!     claims.step("complete", "evt_1", "req_42", now + 15).await?;
//! }
//! # Ok(()) }
//! ```
//!
//! ## What Redis does not promise
//! - **Clock skew.** Each instance passes its own clock. An entry carries the time of the
//!   instance that wrote it; another instance compares it with its own clock. With a skew of
//!   `s` ms, a claim looks expired `s` ms early (or late) to the other instance: a lease much
//!   longer than the skew (seconds against milliseconds, with NTP) keeps a takeover from
//!   happening while the first holder still works. A done id is a duplicate for the window
//!   give or take `s`.
//! - **A Redis restart** without persistence (`appendonly no`, no snapshot) forgets every
//!   entry: claims in progress are lost (their holders' `complete` then answers `stale`, and a
//!   retry arriving meanwhile is processed again) and done ids are forgotten (a redelivery of
//!   an event already persisted is processed a second time). Nothing is lost: the cost is
//!   duplicates, which the host's persistence must tolerate (an upsert by event id). With
//!   `appendonly yes` and `appendfsync everysec`, at most the last second of entries is lost.
//! - **Unreachable Redis**: every step fails with `STORE_UNAVAILABLE`; answer non-2xx and the
//!   provider retries (5 attempts in all).
#![forbid(unsafe_code)]

#[cfg(feature = "testing")]
pub mod testing;

use redis::aio::ConnectionLike;
pub use redis::aio::ConnectionManager;
use redis::{AsyncCommands, Script};
use xborder_core::claims::{
    ClaimError, ClaimRules, ClaimTask, Entry, Need, Outcome, REDIS_COMPARE_AND_SET,
};
use xborder_core::delivery::StoreError;

/// Claims in Redis, under keys `<prefix><event id>`.
///
/// Cloning is cheap when the connection is (a [`ConnectionManager`] or a multiplexed
/// connection is a handle): every request of an instance can hold its own clone.
#[derive(Clone)]
pub struct RedisClaims<C = ConnectionManager> {
    conn: C,
    rules: ClaimRules,
    prefix: String,
    script: Script,
}

impl<C> std::fmt::Debug for RedisClaims<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisClaims")
            .field("rules", &self.rules)
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

fn unavailable(e: redis::RedisError) -> ClaimError {
    ClaimError::Store(StoreError::new(format!("redis: {e}")))
}

impl<C: ConnectionLike + Clone + Send + Sync> RedisClaims<C> {
    /// Claims over `conn`, with `rules`, keys prefixed with `prefix`.
    pub fn new(conn: C, rules: ClaimRules, prefix: impl Into<String>) -> Self {
        RedisClaims {
            conn,
            rules,
            prefix: prefix.into(),
            script: Script::new(REDIS_COMPARE_AND_SET),
        }
    }

    /// The rules in use.
    pub fn rules(&self) -> ClaimRules {
        self.rules
    }

    /// One step (`claim`, `complete`, `release`) by `token` on event `id` at `at_ms` (the
    /// host's clock, milliseconds): core's rules, Redis's atomicity.
    pub async fn step(
        &self,
        step: &str,
        id: &str,
        token: &str,
        at_ms: u64,
    ) -> Result<Outcome, ClaimError> {
        let mut task = ClaimTask::new(self.rules, step, id, token, at_ms)?;
        let mut conn = self.conn.clone();
        let key = format!("{}{id}", self.prefix);
        let mut need = task.start();
        loop {
            need = match need {
                Need::Done(outcome) => return Ok(outcome),
                Need::Load { .. } => {
                    let text: Option<String> = conn.get(&key).await.map_err(unavailable)?;
                    let entry = text.as_deref().map(Entry::decode).transpose()?;
                    task.loaded(entry)?
                }
                Need::CompareAndSet {
                    expected,
                    new,
                    ttl_ms,
                    ..
                } => {
                    let text = |e: Option<Entry>| e.map(|e| e.encode()).unwrap_or_default();
                    let applied: i64 = self
                        .script
                        .key(&key)
                        .arg(text(expected))
                        .arg(text(new))
                        .arg(ttl_ms.map(|t| t.to_string()).unwrap_or_default())
                        .invoke_async(&mut conn)
                        .await
                        .map_err(unavailable)?;
                    task.swapped(applied == 1)?
                }
                // `Need` may grow: an answer this adapter does not know cannot be carried out.
                _ => {
                    return Err(ClaimError::Store(StoreError::new(
                        "xborder-redis does not know this store request: upgrade it",
                    )))
                }
            };
        }
    }
}
