#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

#[cfg(feature = "testing")]
pub mod testing;

/// The `redis` crate this one is built against (0.32: `>= 0.32, < 0.33`). Build connections
/// with this path (`xborder_redis::redis::Client`) and no second `redis` dependency of yours can
/// disagree with it; a `redis` of another minor version in your `Cargo.toml` is a different
/// crate to Rust, and its connections do not implement this one's `ConnectionLike` (E0277).
pub use redis;

use redis::aio::ConnectionLike;
pub use redis::aio::ConnectionManager;
use redis::{AsyncCommands, Script};
use xborder_core::claims::{
    AsyncClaimStore, ClaimError, ClaimRules, ClaimTask, Entry, Outcome, StoreTime,
    REDIS_COMPARE_AND_SET,
};
pub use xborder_core::claims::{IntoStep, Step};
use xborder_core::delivery::StoreError;

/// Claims in Redis, under keys `<prefix><event id>`.
///
/// Cloning is cheap when the connection is (a [`ConnectionManager`] or a multiplexed
/// connection is a handle): every request of an instance can hold its own clone, or share one
/// (`RedisClaims` is `Send + Sync` when the connection is, and `step` takes `&self`).
///
/// ```
/// fn assert_send_sync<T: Send + Sync + Clone>() {}
/// assert_send_sync::<xborder_redis::RedisClaims>();
/// ```
#[derive(Clone)]
pub struct RedisClaims<C = ConnectionManager> {
    conn: C,
    rules: ClaimRules,
    prefix: String,
    script: Script,
    ttl_margin_ms: u64,
}

impl<C> std::fmt::Debug for RedisClaims<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisClaims")
            .field("rules", &self.rules)
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

fn unavailable(e: redis::RedisError) -> StoreError {
    StoreError::new(format!("redis: {e}"))
}

impl<C: ConnectionLike + Clone + Send + Sync> RedisClaims<C> {
    /// Claims over `conn`, with `rules`, keys prefixed with `prefix`. Nothing is sent to
    /// Redis until the first step.
    ///
    /// ```no_run
    /// # async fn demo() -> redis::RedisResult<()> {
    /// use xborder_core::claims::ClaimRules;
    /// use xborder_redis::{redis, ConnectionManager, RedisClaims};
    /// let client = redis::Client::open("redis://127.0.0.1:6379/")?;
    /// let conn = ConnectionManager::new(client).await?;
    /// let claims = RedisClaims::new(conn, ClaimRules::new(30_000), "xb:claims:");
    /// assert_eq!(claims.rules().lease_ms(), 30_000);
    /// # Ok(()) }
    /// ```
    pub fn new(conn: C, rules: ClaimRules, prefix: impl Into<String>) -> Self {
        RedisClaims {
            conn,
            rules,
            prefix: prefix.into(),
            script: Script::new(REDIS_COMPARE_AND_SET),
            ttl_margin_ms: 0,
        }
    }

    /// Keeps each entry in Redis `margin_ms` longer than core's TTL for it. Core reads an entry
    /// past its TTL as no entry at the step's time, whatever Redis still holds, so a margin
    /// changes no answer; it only stops Redis's own clock from dropping an entry early: when the
    /// steps' times are not Redis's clock (the conformance vectors step at fixed times while
    /// real time passes), or run ahead of it (clock skew).
    ///
    /// ```no_run
    /// # async fn demo(conn: xborder_redis::ConnectionManager) {
    /// use xborder_core::claims::ClaimRules;
    /// let claims = xborder_redis::RedisClaims::new(conn, ClaimRules::new(500), "xb:")
    ///     .with_ttl_margin(60_000);
    /// # }
    /// ```
    #[must_use]
    pub fn with_ttl_margin(mut self, margin_ms: u64) -> Self {
        self.ttl_margin_ms = margin_ms;
        self
    }

    /// The rules in use.
    ///
    /// ```no_run
    /// # async fn demo(conn: xborder_redis::ConnectionManager) {
    /// use xborder_core::claims::ClaimRules;
    /// let claims = xborder_redis::RedisClaims::new(conn, ClaimRules::new(500), "xb:");
    /// assert_eq!(claims.rules().window_ms(), ClaimRules::new(500).window_ms());
    /// # }
    /// ```
    pub fn rules(&self) -> ClaimRules {
        self.rules
    }

    /// One step by `token` on event `id` at `at_ms` (the host's clock, milliseconds): core's
    /// rules, Redis's atomicity. `step` is a [`Step`] ([`Step::Claim`], [`Step::Complete`],
    /// [`Step::Release`]); its text (`"claim"`, ...) is still accepted, as before `Step` (any
    /// [`IntoStep`]), and a text that names no step is `INVALID_STEP` (field `do`), with nothing
    /// sent to Redis.
    ///
    /// Errors: `INVALID_STEP` (an empty `id` or `token`, or no step), `STORE_UNAVAILABLE` (Redis
    /// unreachable or answering an error, an entry that is not one of core's texts, an entry
    /// that kept changing); [`ClaimError::reply`] says what to answer the provider.
    ///
    /// ```no_run
    /// # async fn demo(claims: xborder_redis::RedisClaims) -> Result<(), xborder_core::claims::ClaimError> {
    /// use xborder_core::claims::Outcome;
    /// use xborder_redis::Step;
    /// let now = 1_700_000_000_000;
    /// if claims.step(Step::Claim, "evt_1", "req_42", now).await? == Outcome::Claimed {
    ///     // persist the event, then:
    ///     claims.step(Step::Complete, "evt_1", "req_42", now + 15).await?;
    /// }
    /// let e = claims.step("finish", "evt_1", "req_42", now).await.unwrap_err();
    /// assert_eq!((e.code(), e.field()), ("INVALID_STEP", Some("do")));
    /// # Ok(()) }
    /// ```
    pub async fn step(
        &self,
        step: impl IntoStep,
        id: &str,
        token: &str,
        at_ms: u64,
    ) -> Result<Outcome, ClaimError> {
        ClaimTask::new(self.rules, step, id, token, at_ms)?
            .run_async(self)
            .await
    }
}

/// The store of [`RedisClaims::step`], for a host that drives core's flow itself
/// ([`Handling::run_async`](xborder_core::handling::Handling::run_async), a
/// [`ClaimTask`]): a load is a `GET` of `<prefix><id>`, a compare-and-set is core's
/// [`REDIS_COMPARE_AND_SET`], given core's `time.ttl_ms` (plus the margin of
/// [`RedisClaims::with_ttl_margin`]) for `PX`. Redis's own clock drops an entry; a load reads
/// what Redis still holds whatever `time.now_ms` says (core's rules ignore an entry past its
/// TTL). A Redis error, or a value that is not one of core's entry texts, is a [`StoreError`]
/// (`STORE_UNAVAILABLE`).
///
/// ```
/// fn assert_store<S: xborder_core::claims::AsyncClaimStore>() {}
/// assert_store::<xborder_redis::RedisClaims>();
/// ```
impl<C: ConnectionLike + Clone + Send + Sync> AsyncClaimStore for RedisClaims<C> {
    async fn load(&self, id: &str, _time: StoreTime) -> Result<Option<Entry>, StoreError> {
        let mut conn = self.conn.clone();
        let key = format!("{}{id}", self.prefix);
        let text: Option<String> = conn.get(&key).await.map_err(unavailable)?;
        text.as_deref().map(Entry::decode).transpose()
    }

    async fn compare_and_set(
        &self,
        id: &str,
        expected: Option<&Entry>,
        new: Option<&Entry>,
        time: StoreTime,
    ) -> Result<bool, StoreError> {
        let mut conn = self.conn.clone();
        let key = format!("{}{id}", self.prefix);
        let text = |e: Option<&Entry>| e.map(Entry::encode).unwrap_or_default();
        let ttl = time
            .ttl_ms
            .map(|t| t.saturating_add(self.ttl_margin_ms).to_string())
            .unwrap_or_default();
        let applied: i64 = self
            .script
            .key(&key)
            .arg(text(expected))
            .arg(text(new))
            .arg(ttl)
            .invoke_async(&mut conn)
            .await
            .map_err(unavailable)?;
        Ok(applied == 1)
    }
}
