//! Claims in SQLite, over `rusqlite`: [`SqliteClaims`], the durable store for one instance
//! (or several processes on one machine sharing the file).
//!
//! The same table and statements as PostgreSQL's, in SQLite's dialect ([`LOAD`], [`INSERT`],
//! [`UPDATE`], [`DELETE`]); each is atomic (SQLite has one writer at a time).

use std::path::Path;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension, Transaction};
use xborder_core::claims::{
    ClaimError, ClaimRules, ClaimStore, ClaimTask, Entry, IntoStep, Outcome, Step, StoreTime,
};
use xborder_core::delivery::StoreError;

use crate::{at_param, expiry_param};

/// The table's DDL (`migrations/sqlite.sql`): idempotent; [`SqliteClaims::open`] runs it.
///
/// ```
/// assert!(xborder_sql::sqlite::MIGRATION.contains("WITHOUT ROWID"));
/// ```
pub const MIGRATION: &str = include_str!("../migrations/sqlite.sql");

/// The entry of `?1` unless it expired at `?2` (the step's time).
pub const LOAD: &str = "SELECT entry FROM xborder_claims \
WHERE id = ?1 AND (expires_at IS NULL OR expires_at > ?2)";

/// Writes entry `?2` (expiring at `?3`) for id `?1` when it has no row, or only a row expired
/// at `?4`: one row changed when applied, none when a live row is there.
pub const INSERT: &str = "INSERT INTO xborder_claims AS c (id, entry, expires_at) \
VALUES (?1, ?2, ?3) \
ON CONFLICT (id) DO UPDATE SET entry = excluded.entry, expires_at = excluded.expires_at \
WHERE c.expires_at IS NOT NULL AND c.expires_at <= ?4";

/// Replaces entry `?2` of id `?1` with `?3` (expiring at `?4`) when the row still holds `?2`
/// and has not expired at `?5`.
pub const UPDATE: &str = "UPDATE xborder_claims SET entry = ?3, expires_at = ?4 \
WHERE id = ?1 AND entry = ?2 AND (expires_at IS NULL OR expires_at > ?5)";

/// Removes id `?1`'s row when it still holds entry `?2` and has not expired at `?3`.
pub const DELETE: &str = "DELETE FROM xborder_claims \
WHERE id = ?1 AND entry = ?2 AND (expires_at IS NULL OR expires_at > ?3)";

/// Deletes the rows expired at `?1`.
pub const PURGE: &str = "DELETE FROM xborder_claims WHERE expires_at <= ?1";

/// How long [`SqliteClaims::open`] lets a statement wait for another connection's write
/// (`busy_timeout`): 5 s.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Claims in an SQLite database: the durable default for one instance. A restart keeps every
/// done id (the memory store forgets them), and [`SqliteClaims::complete_in`] commits the
/// completion with the host's own write of the event.
///
/// It owns one connection behind a mutex (`Send + Sync`: share it in an `Arc`); each step
/// holds it for a load and a compare-and-set, a few microseconds. Several `SqliteClaims` (or
/// processes) on one file share the claims: the statements are atomic, and a write waits for
/// another's (the busy timeout) instead of failing.
///
/// Times are the host's clock (`at_ms`, milliseconds since the Unix epoch): a row expires when
/// core says (`StoreTime::expires_at_ms`: the step's time plus the TTL core clamped), and a
/// row that expired at the step's time is no row.
///
/// ```
/// use xborder_core::claims::{ClaimRules, Outcome};
/// use xborder_sql::{SqliteClaims, Step};
/// let claims = SqliteClaims::open(":memory:", ClaimRules::new(30_000)).unwrap();
/// assert_eq!(claims.step(Step::Claim, "evt_1", "req_a", 0).unwrap(), Outcome::Claimed);
/// assert_eq!(claims.step(Step::Claim, "evt_1", "req_b", 10).unwrap(), Outcome::InProgress);
/// assert_eq!(claims.step(Step::Complete, "evt_1", "req_a", 20).unwrap(), Outcome::Completed);
/// assert_eq!(claims.step(Step::Claim, "evt_1", "req_c", 900).unwrap(), Outcome::Duplicate);
/// fn assert_send_sync<T: Send + Sync>() {}
/// assert_send_sync::<SqliteClaims>();
/// ```
#[derive(Debug)]
pub struct SqliteClaims {
    conn: Mutex<Connection>,
    rules: ClaimRules,
}

fn unavailable(e: rusqlite::Error) -> StoreError {
    StoreError::new(format!("sqlite: {e}"))
}

impl SqliteClaims {
    /// Opens (or creates) the database at `path` (`":memory:"`: a private one in this process),
    /// sets WAL mode on a file (readers never wait for the writer; the mode stays with the
    /// file) and a [`BUSY_TIMEOUT`], and runs [`MIGRATION`].
    ///
    /// ```
    /// let dir = std::env::temp_dir().join(format!("xb-doc-open-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// let claims = xborder_sql::SqliteClaims::open(dir.join("claims.db"), Default::default()).unwrap();
    /// let mode: String = claims.lock().query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
    /// assert_eq!(mode, "wal");
    /// # drop(claims); std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    pub fn open(path: impl AsRef<Path>, rules: ClaimRules) -> rusqlite::Result<Self> {
        let conn = Connection::open(path)?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        // A file answers "wal"; an in-memory database keeps "memory" (nothing to change).
        let _mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
        SqliteClaims::migrate(&conn)?;
        Ok(SqliteClaims::new(conn, rules))
    }

    /// Claims over the host's connection, as the host configured it (run
    /// [`SqliteClaims::migrate`] on it once; set a busy timeout when other connections write
    /// the same file).
    ///
    /// ```
    /// use xborder_sql::{rusqlite::Connection, SqliteClaims};
    /// let conn = Connection::open_in_memory().unwrap();
    /// SqliteClaims::migrate(&conn).unwrap();
    /// let claims = SqliteClaims::new(conn, Default::default());
    /// assert_eq!(claims.rules().lease_ms(), 30_000);
    /// ```
    pub fn new(conn: Connection, rules: ClaimRules) -> Self {
        SqliteClaims {
            conn: Mutex::new(conn),
            rules,
        }
    }

    /// Runs [`MIGRATION`] on `conn`.
    ///
    /// ```
    /// let conn = xborder_sql::rusqlite::Connection::open_in_memory().unwrap();
    /// xborder_sql::SqliteClaims::migrate(&conn).unwrap();
    /// xborder_sql::SqliteClaims::migrate(&conn).unwrap(); // idempotent
    /// ```
    pub fn migrate(conn: &Connection) -> rusqlite::Result<()> {
        conn.execute_batch(MIGRATION)
    }

    /// The rules in use.
    ///
    /// ```
    /// use xborder_core::claims::ClaimRules;
    /// let c = xborder_sql::SqliteClaims::open(":memory:", ClaimRules::new(7)).unwrap();
    /// assert_eq!(c.rules().lease_ms(), 7);
    /// ```
    pub fn rules(&self) -> ClaimRules {
        self.rules
    }

    /// The connection, locked: for the host's own statements and transactions on it (with
    /// `":memory:"`, the only way to reach the claims' database). Steps of this `SqliteClaims`
    /// wait while it is held: pass the transaction to [`SqliteClaims::complete_in`] instead of
    /// calling [`SqliteClaims::step`] then. A lock poisoned by a panic is taken over.
    ///
    /// ```
    /// let claims = xborder_sql::SqliteClaims::open(":memory:", Default::default()).unwrap();
    /// let n: i64 = claims.lock().query_row("SELECT count(*) FROM xborder_claims", [], |r| r.get(0)).unwrap();
    /// assert_eq!(n, 0);
    /// ```
    pub fn lock(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// One step by `token` on event `id` at `at_ms` on the claims' connection (autocommit).
    ///
    /// Errors: `INVALID_STEP` (an empty `id` or `token`, or a text that names no step),
    /// `STORE_UNAVAILABLE` (SQLite failed, busy past the timeout, or holds a row that is not
    /// core's text).
    ///
    /// ```
    /// use xborder_core::claims::ClaimRules;
    /// let claims = xborder_sql::SqliteClaims::open(":memory:", ClaimRules::new(10)).unwrap();
    /// assert_eq!(claims.step("claim", "e", "r1", 0).unwrap(), "claimed");
    /// assert_eq!(claims.step("release", "e", "r2", 1).unwrap(), "stale");
    /// let e = claims.step("finish", "e", "r1", 2).unwrap_err();
    /// assert_eq!((e.code(), e.field()), ("INVALID_STEP", Some("do")));
    /// ```
    pub fn step(
        &self,
        step: impl IntoStep,
        id: &str,
        token: &str,
        at_ms: u64,
    ) -> Result<Outcome, ClaimError> {
        self.step_on(&self.lock(), step, id, token, at_ms)
    }

    /// One step on another connection to the same database (or inside a transaction: a
    /// [`Transaction`] derefs to its [`Connection`]).
    ///
    /// ```
    /// use xborder_core::claims::ClaimRules;
    /// let claims = xborder_sql::SqliteClaims::open(":memory:", ClaimRules::new(10)).unwrap();
    /// let conn = claims.lock();
    /// assert_eq!(claims.step_on(&conn, "claim", "e", "r1", 0).unwrap(), "claimed");
    /// ```
    pub fn step_on(
        &self,
        conn: &Connection,
        step: impl IntoStep,
        id: &str,
        token: &str,
        at_ms: u64,
    ) -> Result<Outcome, ClaimError> {
        ClaimTask::new(self.rules, step, id, token, at_ms)?.run(&SqliteStore::on(conn))
    }

    /// Completes `id` for `token` inside the host's open transaction `tx`, the one that writes
    /// the event: both commit together, or neither does (a rollback leaves the claim held
    /// until its lease ends, then the provider's retry processes the event). Begin `tx` with
    /// [`rusqlite::TransactionBehavior::Immediate`]: a deferred transaction that read before
    /// another connection wrote cannot write any more (`SQLITE_BUSY`, `STORE_UNAVAILABLE`).
    /// `tx` may be on the claims' own connection ([`SqliteClaims::lock`]) or on another one
    /// to the same file.
    ///
    /// ```
    /// use xborder_core::claims::{ClaimRules, Outcome, Step};
    /// use xborder_sql::{rusqlite::TransactionBehavior, SqliteClaims};
    /// let claims = SqliteClaims::open(":memory:", ClaimRules::new(30_000)).unwrap();
    /// claims.lock().execute_batch("CREATE TABLE events (id TEXT PRIMARY KEY, body TEXT)").unwrap();
    /// let (id, token, now) = ("evt_1", "req_42", 1_700_000_000_000);
    /// assert_eq!(claims.step(Step::Claim, id, token, now).unwrap(), Outcome::Claimed);
    /// {
    ///     let mut conn = claims.lock();
    ///     let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).unwrap();
    ///     tx.execute("INSERT INTO events (id, body) VALUES (?1, ?2)", (id, "{}")).unwrap();
    ///     match claims.complete_in(&tx, id, token, now + 5).unwrap() {
    ///         Outcome::Completed => tx.commit().unwrap(),
    ///         _ => tx.rollback().unwrap(), // stale: another request holds it now
    ///     }
    /// }
    /// assert_eq!(claims.step(Step::Claim, id, "req_43", now + 9).unwrap(), Outcome::Duplicate);
    /// ```
    pub fn complete_in(
        &self,
        tx: &Transaction<'_>,
        id: &str,
        token: &str,
        at_ms: u64,
    ) -> Result<Outcome, ClaimError> {
        self.step_on(tx, Step::Complete, id, token, at_ms)
    }

    /// Deletes the rows expired at `now_ms` (no step sees them already); the number deleted.
    /// Run it now and then (every few minutes or hours).
    ///
    /// ```
    /// use xborder_core::claims::ClaimRules;
    /// let claims = xborder_sql::SqliteClaims::open(":memory:", ClaimRules::new(10).with_window(100)).unwrap();
    /// claims.step("claim", "e", "r1", 0).unwrap();
    /// claims.step("complete", "e", "r1", 5).unwrap(); // expires at 105
    /// assert_eq!(claims.purge(104).unwrap(), 0);
    /// assert_eq!(claims.purge(105).unwrap(), 1);
    /// ```
    pub fn purge(&self, now_ms: u64) -> Result<usize, ClaimError> {
        self.lock()
            .execute(PURGE, [at_param(now_ms)])
            .map_err(|e| ClaimError::Store(unavailable(e)))
    }
}

/// Core's store interface over one connection, or a transaction (a [`Transaction`] derefs to
/// its [`Connection`]): what [`SqliteClaims::step_on`] hands core's
/// [`ClaimTask::run`], for a host that drives core's flow itself on its own connection
/// (`Handling::run` with the transaction that writes the event). A load is [`LOAD`], a
/// compare-and-set one of [`INSERT`], [`UPDATE`], [`DELETE`]; each writes
/// `time.expires_at_ms` and compares with `time.now_ms` as core gives them. An SQLite error, or
/// a row that is not core's text, is a [`StoreError`] (`STORE_UNAVAILABLE`).
///
/// ```
/// use xborder_core::claims::{ClaimRules, ClaimStore, ClaimTask, Entry, Outcome, StoreTime};
/// use xborder_sql::{rusqlite::Connection, SqliteClaims, SqliteStore};
/// let conn = Connection::open_in_memory().unwrap();
/// SqliteClaims::migrate(&conn).unwrap();
/// let store = SqliteStore::on(&conn);
/// let task = ClaimTask::new(ClaimRules::new(10), "claim", "e", "r1", 0).unwrap();
/// assert_eq!(task.run(&store).unwrap(), Outcome::Claimed);
/// assert_eq!(store.load("e", StoreTime::at(19)).unwrap(), Some(Entry::held("r1", 0)));
/// assert_eq!(store.load("e", StoreTime::at(20)).unwrap(), None); // two leases on
/// ```
#[derive(Debug, Clone, Copy)]
pub struct SqliteStore<'a> {
    conn: &'a Connection,
}

impl<'a> SqliteStore<'a> {
    /// The store over `conn` (the claims' table must be there: [`SqliteClaims::migrate`]).
    ///
    /// ```
    /// let conn = xborder_sql::rusqlite::Connection::open_in_memory().unwrap();
    /// let _store = xborder_sql::SqliteStore::on(&conn);
    /// ```
    pub fn on(conn: &'a Connection) -> Self {
        SqliteStore { conn }
    }
}

impl ClaimStore for SqliteStore<'_> {
    fn load(&self, id: &str, time: StoreTime) -> Result<Option<Entry>, StoreError> {
        load(self.conn, id, at_param(time.now_ms))
    }

    fn compare_and_set(
        &self,
        id: &str,
        expected: Option<&Entry>,
        new: Option<&Entry>,
        time: StoreTime,
    ) -> Result<bool, StoreError> {
        let (expires_at, now) = (expiry_param(time.expires_at_ms)?, at_param(time.now_ms));
        let run = |sql: &str, p: &[&dyn rusqlite::ToSql]| {
            self.conn
                .prepare_cached(sql)
                .and_then(|mut s| s.execute(p))
                .map_err(unavailable)
        };
        let n = match (expected.map(Entry::encode), new.map(Entry::encode)) {
            (None, Some(new)) => run(INSERT, params![id, new, expires_at, now])?,
            (Some(old), Some(new)) => run(UPDATE, params![id, old, new, expires_at, now])?,
            (Some(old), None) => run(DELETE, params![id, old, now])?,
            // Core never asks to remove what is not there.
            (None, None) => return Ok(load(self.conn, id, now)?.is_none()),
        };
        Ok(n == 1)
    }
}

fn load(conn: &Connection, id: &str, now: i64) -> Result<Option<Entry>, StoreError> {
    let text: Option<String> = conn
        .prepare_cached(LOAD)
        .and_then(|mut s| s.query_row(params![id, now], |r| r.get(0)).optional())
        .map_err(unavailable)?;
    text.as_deref().map(Entry::decode).transpose()
}

/// Core's synchronous store interface, for `Claims::with_store` and the other hosts of a
/// [`ClaimStore`]: [`SqliteStore`] on the claims' own connection ([`SqliteClaims::lock`], held
/// for the call). Each call is given its time: a row expires at `time.expires_at_ms` and one
/// that expired at `time.now_ms` is no row, as in [`SqliteClaims::step`] (the outcomes are the
/// same).
///
/// ```
/// use xborder_core::claims::{ClaimRules, ClaimStore, Claims, Outcome, Step, StoreTime};
/// let store = xborder_sql::SqliteClaims::open(":memory:", ClaimRules::new(10)).unwrap();
/// let claims = Claims::with_store(ClaimRules::new(10), store);
/// assert_eq!(claims.step(Step::Claim, "e", "r1", 0).unwrap(), Outcome::Claimed);
/// assert_eq!(claims.step(Step::Claim, "e", "r2", 5).unwrap(), Outcome::InProgress);
/// assert_eq!(claims.store().load("e", StoreTime::at(20)).unwrap(), None); // two leases on
/// assert_eq!(claims.step(Step::Claim, "e", "r2", 25).unwrap(), Outcome::Claimed);
/// ```
impl ClaimStore for SqliteClaims {
    fn load(&self, id: &str, time: StoreTime) -> Result<Option<Entry>, StoreError> {
        SqliteStore::on(&self.lock()).load(id, time)
    }

    fn compare_and_set(
        &self,
        id: &str,
        expected: Option<&Entry>,
        new: Option<&Entry>,
        time: StoreTime,
    ) -> Result<bool, StoreError> {
        SqliteStore::on(&self.lock()).compare_and_set(id, expected, new, time)
    }
}
