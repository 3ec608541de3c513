//! Claims in PostgreSQL, over `tokio-postgres`: [`PostgresClaims`].
//!
//! Each load and each compare-and-set is one SQL statement ([`LOAD`], [`INSERT`], [`UPDATE`],
//! [`DELETE`]), sent with its parameter types in one round trip (no prepared statement is kept,
//! so any connection or transaction can run them). The rules are core's: the statements only
//! keep entry texts and apply a change when the row is still the one loaded.

use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{GenericClient, Transaction};
use xborder_core::claims::{
    AsyncClaimStore, ClaimError, ClaimRules, ClaimTask, Entry, IntoStep, Outcome, Step, StoreTime,
};
use xborder_core::delivery::StoreError;

use crate::{at_param, expiry_param};

/// The table's DDL (`migrations/postgres.sql`): idempotent, run it at start or copy it into
/// your migrations.
///
/// ```
/// assert!(xborder_sql::postgres::MIGRATION.contains("CREATE TABLE IF NOT EXISTS xborder_claims"));
/// ```
pub const MIGRATION: &str = include_str!("../migrations/postgres.sql");

/// The lock [`PostgresClaims::migrate`] takes first (the Node and Python stores take the same).
///
/// ```
/// assert!(xborder_sql::postgres::MIGRATION_LOCK.contains("pg_advisory_xact_lock"));
/// ```
pub const MIGRATION_LOCK: &str = "SELECT pg_advisory_xact_lock(hashtext('xborder_claims'))";

/// The entry of `$1` unless it expired at `$2` (the step's time).
pub const LOAD: &str = "SELECT entry FROM xborder_claims \
WHERE id = $1 AND (expires_at IS NULL OR expires_at > $2)";

/// Writes entry `$2` (expiring at `$3`) for id `$1` when it has no row, or only a row expired
/// at `$4`: one row affected when applied, none when a live row is there.
pub const INSERT: &str = "INSERT INTO xborder_claims AS c (id, entry, expires_at) \
VALUES ($1, $2, $3) \
ON CONFLICT (id) DO UPDATE SET entry = excluded.entry, expires_at = excluded.expires_at \
WHERE c.expires_at IS NOT NULL AND c.expires_at <= $4";

/// Replaces entry `$2` of id `$1` with `$3` (expiring at `$4`) when the row still holds `$2`
/// and has not expired at `$5`.
pub const UPDATE: &str = "UPDATE xborder_claims SET entry = $3, expires_at = $4 \
WHERE id = $1 AND entry = $2 AND (expires_at IS NULL OR expires_at > $5)";

/// Removes id `$1`'s row when it still holds entry `$2` and has not expired at `$3`.
pub const DELETE: &str = "DELETE FROM xborder_claims \
WHERE id = $1 AND entry = $2 AND (expires_at IS NULL OR expires_at > $3)";

/// Deletes the rows expired at `$1`.
pub const PURGE: &str = "DELETE FROM xborder_claims WHERE expires_at <= $1";

/// Claims in PostgreSQL, shared by every instance of one consumer that reaches the database.
///
/// It holds only the rules: each call takes the connection to use, a
/// [`tokio_postgres::Client`] (one from your pool: `&**pooled` or however it derefs) or an
/// open [`Transaction`]. A `Client` pipelines concurrent requests, so one may serve every
/// request of an instance; a transaction needs a connection of its own (a pool).
///
/// Times are the host's clock (`at_ms`, milliseconds since the Unix epoch): a row expires when
/// core says (`StoreTime::expires_at_ms`: the step's time plus the TTL, two leases for a claim,
/// the window for a done id), and a row that expired at the step's time is no row. The hosts of
/// one consumer must therefore agree on the time within much less than the lease (NTP does): a
/// host whose clock runs a lease ahead takes over claims still held.
///
/// ```
/// fn assert_send_sync<T: Send + Sync + Copy>() {}
/// assert_send_sync::<xborder_sql::PostgresClaims>();
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PostgresClaims {
    rules: ClaimRules,
}

fn unavailable(e: tokio_postgres::Error) -> StoreError {
    StoreError::new(format!("postgres: {e}"))
}

impl PostgresClaims {
    /// Claims with `rules` in the table `xborder_claims` ([`PostgresClaims::migrate`] creates
    /// it).
    ///
    /// ```
    /// use xborder_core::claims::ClaimRules;
    /// let claims = xborder_sql::PostgresClaims::new(ClaimRules::new(30_000));
    /// assert_eq!(claims.rules().lease_ms(), 30_000);
    /// ```
    pub fn new(rules: ClaimRules) -> Self {
        PostgresClaims { rules }
    }

    /// The rules in use.
    ///
    /// ```
    /// use xborder_core::claims::{ClaimRules, DEFAULT_WINDOW_MS};
    /// let claims = xborder_sql::PostgresClaims::new(ClaimRules::new(5));
    /// assert_eq!(claims.rules().window_ms(), Some(DEFAULT_WINDOW_MS));
    /// ```
    pub fn rules(&self) -> ClaimRules {
        self.rules
    }

    /// Runs [`MIGRATION`] (creates the table and its index when missing), after taking
    /// [`MIGRATION_LOCK`] for the migration's own transaction: instances that start together
    /// migrate one after the other (two concurrent `CREATE TABLE IF NOT EXISTS` of one table can
    /// fail in PostgreSQL with a duplicate key in `pg_type`).
    ///
    /// ```no_run
    /// # async fn demo(client: &xborder_sql::tokio_postgres::Client) -> Result<(), xborder_sql::tokio_postgres::Error> {
    /// xborder_sql::PostgresClaims::migrate(client).await?;
    /// # Ok(()) }
    /// ```
    pub async fn migrate<C: GenericClient + Sync>(client: &C) -> Result<(), tokio_postgres::Error> {
        // One simple query: its statements run as one transaction, so the lock is held until
        // the tables exist (inside the host's own transaction, until that one ends).
        client
            .batch_execute(&format!("{MIGRATION_LOCK};\n{MIGRATION}"))
            .await
    }

    /// One step by `token` on event `id` at `at_ms` on `client` (a `Client`, or a
    /// `Transaction`: then the step's write commits or rolls back with it). Core's rules;
    /// each store request is one statement.
    ///
    /// Errors: `INVALID_STEP` (an empty `id` or `token`, or a text that names no step: nothing
    /// is sent), `STORE_UNAVAILABLE` (a failed statement, a row that is not core's text, a row
    /// that kept changing); [`ClaimError::reply`] says what to answer the provider.
    ///
    /// ```no_run
    /// # async fn demo(client: &xborder_sql::tokio_postgres::Client) -> Result<(), xborder_core::claims::ClaimError> {
    /// use xborder_core::claims::{ClaimRules, Outcome};
    /// use xborder_sql::{PostgresClaims, Step};
    /// let claims = PostgresClaims::new(ClaimRules::new(30_000));
    /// if claims.step(client, Step::Claim, "evt_1", "req_42", 1_700_000_000_000).await? == Outcome::Claimed {
    ///     // persist, then complete (or complete_in the transaction that persists)
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn step<C: GenericClient + Sync>(
        &self,
        client: &C,
        step: impl IntoStep,
        id: &str,
        token: &str,
        at_ms: u64,
    ) -> Result<Outcome, ClaimError> {
        ClaimTask::new(self.rules, step, id, token, at_ms)?
            .run_async(&PostgresStore::on(client))
            .await
    }

    /// Completes `id` for `token` inside the host's open transaction `tx`, the one that writes
    /// the event: both commit together, or neither does. Until `tx` commits, other instances
    /// still see the claim (`in_progress` until its lease ends; a takeover then waits for `tx`
    /// on the row's lock); if `tx` rolls back, the claim is as it was and the provider's retry
    /// processes the event again once the lease is over.
    ///
    /// Run it last in `tx`, just before the commit (it locks the claim's row until then), at
    /// `READ COMMITTED` (PostgreSQL's default): at `REPEATABLE READ` or `SERIALIZABLE` a row
    /// changed by another instance meanwhile fails the statement (`STORE_UNAVAILABLE`, and
    /// `tx` is aborted). `stale` means another request took the claim over (the lease ended):
    /// roll back, the event is that request's.
    ///
    /// ```no_run
    /// # async fn demo(client: &mut xborder_sql::tokio_postgres::Client, claims: xborder_sql::PostgresClaims) -> Result<(), Box<dyn std::error::Error>> {
    /// use xborder_core::claims::Outcome;
    /// let (id, token, now) = ("evt_1", "req_42", 1_700_000_000_000);
    /// let tx = client.transaction().await?;
    /// tx.execute("INSERT INTO events (id, body) VALUES ($1, $2)", &[&id, &"{}"]).await?;
    /// match claims.complete_in(&tx, id, token, now).await? {
    ///     Outcome::Completed => tx.commit().await?,
    ///     _ => tx.rollback().await?, // stale: another request holds it now
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn complete_in(
        &self,
        tx: &Transaction<'_>,
        id: &str,
        token: &str,
        at_ms: u64,
    ) -> Result<Outcome, ClaimError> {
        self.step(tx, Step::Complete, id, token, at_ms).await
    }

    /// Deletes the rows expired at `now_ms` (their ids are no rows to any step already); the
    /// number deleted. Run it from one instance now and then (every few minutes or hours). Pass
    /// your clock minus the skew you allow between hosts, so that no host's live claim goes.
    ///
    /// ```no_run
    /// # async fn demo(client: &xborder_sql::tokio_postgres::Client) -> Result<(), xborder_core::claims::ClaimError> {
    /// let now = 1_700_000_000_000;
    /// let gone = xborder_sql::PostgresClaims::purge(client, now - 60_000).await?;
    /// # Ok(()) }
    /// ```
    pub async fn purge<C: GenericClient + Sync>(
        client: &C,
        now_ms: u64,
    ) -> Result<u64, ClaimError> {
        let now = at_param(now_ms);
        client
            .execute_typed(PURGE, &[(&now, Type::INT8)])
            .await
            .map_err(|e| ClaimError::Store(unavailable(e)))
    }
}

/// Core's async store interface over one client, or a transaction (then the writes commit or
/// roll back with it): what [`PostgresClaims::step`] hands core's [`ClaimTask::run_async`], for
/// a host that drives core's flow itself (`Handling::run_async` on the transaction that writes
/// the event). A load is [`LOAD`], a compare-and-set one of [`INSERT`], [`UPDATE`], [`DELETE`];
/// each writes `time.expires_at_ms` and compares with `time.now_ms` as core gives them. A failed
/// statement, or a row that is not core's text, is a [`StoreError`] (`STORE_UNAVAILABLE`). Its
/// futures are `Send` (a tokio handler can await them).
///
/// ```no_run
/// # async fn demo(client: &xborder_sql::tokio_postgres::Client) -> Result<(), xborder_core::claims::ClaimError> {
/// use xborder_core::claims::{ClaimRules, ClaimTask, Outcome};
/// let task = ClaimTask::new(ClaimRules::new(30_000), "claim", "evt_1", "req_42", 1_700_000_000_000)?;
/// let _outcome = task.run_async(&xborder_sql::PostgresStore::on(client)).await?;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct PostgresStore<'a, C> {
    client: &'a C,
}

impl<C> Clone for PostgresStore<'_, C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C> Copy for PostgresStore<'_, C> {}

impl<'a, C: GenericClient + Sync> PostgresStore<'a, C> {
    /// The store over `client` (a `Client` or a `Transaction`; the claims' table must be there:
    /// [`PostgresClaims::migrate`]).
    ///
    /// ```no_run
    /// # fn demo(client: &xborder_sql::tokio_postgres::Client) {
    /// let store = xborder_sql::PostgresStore::on(client);
    /// # }
    /// ```
    pub fn on(client: &'a C) -> Self {
        PostgresStore { client }
    }
}

impl<C: GenericClient + Sync> AsyncClaimStore for PostgresStore<'_, C> {
    async fn load(&self, id: &str, time: StoreTime) -> Result<Option<Entry>, StoreError> {
        let text = load(self.client, id, at_param(time.now_ms))
            .await
            .map_err(unavailable)?;
        text.as_deref().map(Entry::decode).transpose()
    }

    async fn compare_and_set(
        &self,
        id: &str,
        expected: Option<&Entry>,
        new: Option<&Entry>,
        time: StoreTime,
    ) -> Result<bool, StoreError> {
        let expires_at = expiry_param(time.expires_at_ms)?;
        compare_and_set(
            self.client,
            id,
            expected,
            new,
            expires_at,
            at_param(time.now_ms),
        )
        .await
        .map_err(unavailable)
    }
}

async fn load<C: GenericClient + Sync>(
    client: &C,
    id: &str,
    now: i64,
) -> Result<Option<String>, tokio_postgres::Error> {
    let row = client
        .query_typed_opt(LOAD, &[(&id, Type::TEXT), (&now, Type::INT8)])
        .await?;
    row.map(|r| r.try_get::<_, String>(0)).transpose()
}

async fn compare_and_set<C: GenericClient + Sync>(
    client: &C,
    id: &str,
    expected: Option<&Entry>,
    new: Option<&Entry>,
    expires_at: Option<i64>,
    now: i64,
) -> Result<bool, tokio_postgres::Error> {
    let n = match (expected.map(Entry::encode), new.map(Entry::encode)) {
        (None, Some(new)) => {
            let params: [(&(dyn ToSql + Sync), Type); 4] = [
                (&id, Type::TEXT),
                (&new, Type::TEXT),
                (&expires_at, Type::INT8),
                (&now, Type::INT8),
            ];
            client.execute_typed(INSERT, &params).await?
        }
        (Some(old), Some(new)) => {
            let params: [(&(dyn ToSql + Sync), Type); 5] = [
                (&id, Type::TEXT),
                (&old, Type::TEXT),
                (&new, Type::TEXT),
                (&expires_at, Type::INT8),
                (&now, Type::INT8),
            ];
            client.execute_typed(UPDATE, &params).await?
        }
        (Some(old), None) => {
            let params: [(&(dyn ToSql + Sync), Type); 3] =
                [(&id, Type::TEXT), (&old, Type::TEXT), (&now, Type::INT8)];
            client.execute_typed(DELETE, &params).await?
        }
        // Core never asks to remove what is not there; "no row" is already the case when the
        // id has no live row.
        (None, None) => return Ok(load(client, id, now).await?.is_none()),
    };
    Ok(n == 1)
}
