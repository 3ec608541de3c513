//! Claims and events in PostgreSQL (`--postgres URL`) or SQLite (`--sqlite PATH`), over
//! `xborder-sql`: the event's row (`xborder_events`, `stores/sql/receiver-events.sql`) and the
//! claim's completion commit in one transaction, so an event is persisted once whatever dies
//! when: a process killed before the commit leaves neither (the provider's retry does the work),
//! one killed after it leaves both (the retry is a duplicate).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{Semaphore, SemaphorePermit};
use tokio::time::Instant;
use xborder_core::claims::{ClaimError, ClaimRules, Outcome, Step};
use xborder_core::delivery::StoreError;
use xborder_sql::rusqlite;
use xborder_sql::tokio_postgres::{self, Client, NoTls};
use xborder_sql::{PostgresClaims, SqliteClaims};

/// The events table's DDL, shared with the Node and Python receivers.
pub(crate) const EVENTS: &str = include_str!("../../../stores/sql/receiver-events.sql");

/// One insert per processing (PostgreSQL's and SQLite's placeholders).
const INSERT_PG: &str = "INSERT INTO xborder_events \
(id, event, instance, token, claimed_at_ms, lease_ms, at_ms) VALUES ($1, $2, $3, $4, $5, $6, $7)";
const INSERT_SQLITE: &str = "INSERT INTO xborder_events \
(id, event, instance, token, claimed_at_ms, lease_ms, at_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";

/// What is written for one processing.
pub(crate) struct EventRow<'a> {
    pub(crate) id: &'a str,
    pub(crate) event: &'a str,
    pub(crate) instance: &'a str,
    pub(crate) token: &'a str,
    pub(crate) claimed_at_ms: u64,
    pub(crate) lease_ms: u64,
    pub(crate) at_ms: u64,
}

fn int(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

fn store_error(text: String) -> ClaimError {
    ClaimError::Store(StoreError::new(text))
}

/// A few PostgreSQL connections (`--pool`, 4), opened when needed, closed when idle for
/// `--pool-idle-ms` (so an instance that goes quiet gives its connections back to the server),
/// and dropped when they break or when a call on them timed out.
///
/// Every call is bounded by `--store-timeout-ms`: the connect (`connect_timeout`), the wait
/// for a free connection, each statement on the server (`statement_timeout`), and the caller
/// (`App`) bounds each step or transaction as a whole. A connection is given back to the pool
/// only when its call finished ([`Pooled::done`]); one whose call was cut (timed out: the
/// future was dropped) or failed is closed, its connection task aborted, never reused with a
/// statement still running on it.
pub(crate) struct PgPool {
    config: tokio_postgres::Config,
    idle: Mutex<Vec<Idle>>,
    slots: Semaphore,
    timeout: Duration,
    idle_for: Duration,
}

/// An open connection: the client, its connection task, and when it was last given back.
struct Idle {
    client: Client,
    task: tokio::task::AbortHandle,
    since: Instant,
}

/// A connection taken from the pool: given back on drop when [`Pooled::done`] was called and
/// it is still open, closed otherwise.
pub(crate) struct Pooled<'a> {
    pool: &'a PgPool,
    conn: Option<(Client, tokio::task::AbortHandle)>,
    done: bool,
    _slot: SemaphorePermit<'a>,
}

impl Drop for Pooled<'_> {
    fn drop(&mut self) {
        if let Some((client, task)) = self.conn.take() {
            if self.done && !client.is_closed() {
                self.pool.idle().push(Idle {
                    client,
                    task,
                    since: Instant::now(),
                });
            } else {
                // Cut or failed: whatever runs on it is abandoned with the socket.
                task.abort();
            }
        }
    }
}

impl PgPool {
    /// A pool for `url` of at most `size` connections, each call bounded by `timeout`, a
    /// connection idle for `idle_for` closed.
    pub(crate) fn new(
        url: &str,
        size: usize,
        timeout: Duration,
        idle_for: Duration,
    ) -> Result<PgPool, String> {
        let mut config: tokio_postgres::Config =
            url.parse().map_err(|e| format!("postgres: {e}"))?;
        let ms = timeout.as_millis().max(1);
        let options = match config.get_options() {
            Some(o) if !o.is_empty() => format!("{o} -c statement_timeout={ms}"),
            _ => format!("-c statement_timeout={ms}"),
        };
        config.options(&options);
        config.connect_timeout(timeout);
        Ok(PgPool {
            config,
            idle: Mutex::new(Vec::new()),
            slots: Semaphore::new(size.max(1)),
            timeout,
            idle_for,
        })
    }

    fn idle(&self) -> std::sync::MutexGuard<'_, Vec<Idle>> {
        self.idle.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Closes the connections idle for `--pool-idle-ms` or more (and the broken ones).
    pub(crate) fn prune(&self) {
        let stale: Vec<Idle> = {
            let mut idle = self.idle();
            let (keep, stale) = std::mem::take(&mut *idle)
                .into_iter()
                .partition(|c| c.since.elapsed() < self.idle_for && !c.client.is_closed());
            *idle = keep;
            stale
        };
        for c in stale {
            c.task.abort();
        }
    }

    async fn connect(&self) -> Result<(Client, tokio::task::AbortHandle), String> {
        let (client, conn) = tokio::time::timeout(self.timeout, self.config.connect(NoTls))
            .await
            .map_err(|_| "postgres: connect timed out".to_owned())?
            .map_err(|e| format!("postgres: {e}"))?;
        let task = tokio::spawn(async move {
            // Ends when the connection closes (the server restarted, or the client dropped),
            // or is aborted (the pool closed it).
            let _ = conn.await;
        });
        Ok((client, task.abort_handle()))
    }

    pub(crate) async fn get(&self) -> Result<Pooled<'_>, String> {
        let slot = tokio::time::timeout(self.timeout, self.slots.acquire())
            .await
            .map_err(|_| "postgres: no pooled connection free in time (--pool)".to_owned())?
            .map_err(|e| format!("postgres pool: {e}"))?;
        self.prune();
        // The most recently used first: the others age out when the load drops.
        let reused = self.idle().pop().map(|c| (c.client, c.task));
        let conn = match reused {
            Some(c) => c,
            None => self.connect().await?,
        };
        Ok(Pooled {
            pool: self,
            conn: Some(conn),
            done: false,
            _slot: slot,
        })
    }

    /// Creates the claims table (`xborder-sql`'s migration) and the events table.
    pub(crate) async fn migrate(&self) -> Result<(), String> {
        let mut c = self.get().await?;
        let client = c.client()?;
        PostgresClaims::migrate(client)
            .await
            .map_err(|e| format!("postgres: {e}"))?;
        // One simple query, one transaction: instances starting together create it in turn.
        client
            .batch_execute(&format!(
                "SELECT pg_advisory_xact_lock(hashtext('xborder_events'));\n{EVENTS}"
            ))
            .await
            .map_err(|e| format!("postgres: {e}"))?;
        c.done();
        Ok(())
    }

    /// The server's clock (`clock_timestamp()`), in Unix milliseconds.
    pub(crate) async fn clock_ms(&self) -> Result<i64, String> {
        let mut c = self.get().await?;
        let ms: i64 = c
            .client()?
            .query_one(
                "SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint",
                &[],
            )
            .await
            .map_err(|e| format!("postgres: {e}"))?
            .try_get(0)
            .map_err(|e| format!("postgres: {e}"))?;
        c.done();
        Ok(ms)
    }
}

impl Pooled<'_> {
    fn client(&self) -> Result<&Client, String> {
        self.conn
            .as_ref()
            .map(|c| &c.0)
            .ok_or_else(|| "postgres: no client".to_owned())
    }

    /// The call finished: the connection may be reused.
    fn done(&mut self) {
        self.done = true;
    }
}

/// The claims of one instance in PostgreSQL.
pub(crate) struct Postgres {
    pub(crate) claims: PostgresClaims,
    pub(crate) pool: PgPool,
}

impl Postgres {
    pub(crate) async fn step(
        &self,
        step: Step,
        id: &str,
        token: &str,
        at: u64,
    ) -> Result<Outcome, ClaimError> {
        let mut c = self.pool.get().await.map_err(store_error)?;
        let client = c.client().map_err(store_error)?;
        let outcome = self.claims.step(client, step, id, token, at).await?;
        c.done();
        Ok(outcome)
    }

    /// BEGIN and the event's row on a pooled connection: the transaction the complete step
    /// and the commit go on ([`Tx`]). A connection whose statement failed is closed (the
    /// server rolls the transaction back).
    pub(crate) async fn begin(&self, row: &EventRow<'_>) -> Result<Tx<'_>, String> {
        let c = self.pool.get().await?;
        let err = |e: tokio_postgres::Error| format!("postgres: {e}");
        let client = c.client()?;
        client.batch_execute("BEGIN").await.map_err(err)?;
        client
            .execute(
                INSERT_PG,
                &[
                    &row.id,
                    &row.event,
                    &row.instance,
                    &row.token,
                    &int(row.claimed_at_ms),
                    &int(row.lease_ms),
                    &int(row.at_ms),
                ],
            )
            .await
            .map_err(err)?;
        Ok(Tx {
            inner: Inner::Postgres { db: self, conn: c },
            failed: false,
        })
    }
}

/// The claims of one instance in an SQLite file (one connection; its statements run off the
/// async threads).
///
/// The connection is this instance's, shared by its requests, and they take turns on it:
/// - one handling at a time, from its claim to its answer ([`Sqlite::turn`], taken by the
///   receiver before the claim act): another request of this instance never meets the claim of
///   a live handling (`in_progress`), it waits for that handling's answer and then finds the id
///   done (`duplicate`). Only a claim left by a dead process (or another process on the file)
///   answers `in_progress`. Without it, two deliveries of one event in flight together (a
///   provider's concurrent twin) could meet on their last retries, one claiming and the other
///   answered `in_progress` while the first ran its transaction, and that one be dead-lettered
///   though its twin persisted the event.
/// - `gate`, one statement or transaction at a time: a transaction on the connection ([`Tx`])
///   is its only user from its BEGIN to its COMMIT or ROLLBACK. Each call takes the gate, moves
///   it into its blocking work and gives it back when that work ends (so a call cut by a
///   timeout still holds it until its statement is over), and a transaction keeps it between
///   its acts. Whoever takes the gate and finds a transaction open (one whose request was cut)
///   rolls it back first.
pub(crate) struct Sqlite {
    pub(crate) claims: Arc<SqliteClaims>,
    gate: Arc<tokio::sync::Mutex<()>>,
    handlings: tokio::sync::Mutex<()>,
}

/// A handling's turn on an SQLite connection ([`Sqlite::turn`]), held until dropped.
pub(crate) type Turn<'a> = tokio::sync::MutexGuard<'a, ()>;

/// The gate of an SQLite connection, held.
type Gate = tokio::sync::OwnedMutexGuard<()>;

/// Rolls back a transaction left open on `conn` by a request that was cut (none open: nothing).
fn end_orphan(conn: &rusqlite::Connection) {
    if !conn.is_autocommit() {
        let _ = conn.execute_batch("ROLLBACK");
    }
}

impl Sqlite {
    /// Opens (and creates) the file; a write waits for another's at most `busy` (SQLite's
    /// `busy_timeout`, `--store-timeout-ms`).
    pub(crate) fn open(
        path: &std::path::Path,
        rules: ClaimRules,
        busy: Duration,
    ) -> Result<Sqlite, String> {
        let claims = SqliteClaims::open(path, rules).map_err(|e| format!("sqlite: {e}"))?;
        {
            let conn = claims.lock();
            conn.busy_timeout(busy)
                .map_err(|e| format!("sqlite: {e}"))?;
            conn.execute_batch(EVENTS)
                .map_err(|e| format!("sqlite: {e}"))?;
        }
        Ok(Sqlite {
            claims: Arc::new(claims),
            gate: Arc::new(tokio::sync::Mutex::new(())),
            handlings: tokio::sync::Mutex::new(()),
        })
    }

    /// Waits for this handling's turn on the connection (first come, first served), held from
    /// the claim to the answer; the caller bounds the wait (`--store-timeout-ms`).
    pub(crate) async fn turn(&self) -> Turn<'_> {
        self.handlings.lock().await
    }

    pub(crate) async fn step(
        &self,
        step: Step,
        id: &str,
        token: &str,
        at: u64,
    ) -> Result<Outcome, ClaimError> {
        let gate = self.gate.clone().lock_owned().await;
        let claims = self.claims.clone();
        let (id, token) = (id.to_owned(), token.to_owned());
        tokio::task::spawn_blocking(move || {
            let conn = claims.lock();
            end_orphan(&conn);
            let outcome = claims.step_on(&conn, step, &id, &token, at);
            drop((conn, gate));
            outcome
        })
        .await
        .map_err(|e| store_error(format!("sqlite: {e}")))?
    }

    /// BEGIN IMMEDIATE (SQLite's write lock first, so the transaction never fails half-way
    /// for a writer that came between) and the event's row: the transaction the complete step
    /// and the commit go on ([`Tx`]). Rolled back when the row fails.
    pub(crate) async fn begin(&self, row: &EventRow<'_>) -> Result<Tx<'_>, String> {
        let gate = self.gate.clone().lock_owned().await;
        let claims = self.claims.clone();
        let values = (
            row.id.to_owned(),
            row.event.to_owned(),
            row.instance.to_owned(),
            row.token.to_owned(),
            int(row.claimed_at_ms),
            int(row.lease_ms),
            int(row.at_ms),
        );
        let (begun, gate) = tokio::task::spawn_blocking(move || {
            let conn = claims.lock();
            end_orphan(&conn);
            let begun = conn
                .execute_batch("BEGIN IMMEDIATE")
                .and_then(|()| conn.execute(INSERT_SQLITE, values))
                .map_err(|e| format!("sqlite: {e}"));
            if begun.is_err() {
                end_orphan(&conn);
            }
            drop(conn);
            (begun, gate)
        })
        .await
        .map_err(|e| format!("sqlite: {e}"))?;
        begun?;
        Ok(Tx {
            inner: Inner::Sqlite {
                claims: self.claims.clone(),
                gate: Some(gate),
            },
            failed: false,
        })
    }
}

/// An open transaction holding the event's row (the persist act), on which the complete step
/// runs ([`Tx::complete`]) before the commit act ([`Tx::commit`]): the row and the claim's
/// completion commit together or not at all. Dropped unfinished, it is rolled back (PostgreSQL:
/// its connection is closed; SQLite: rolled back off the async threads, or by the next user of
/// the connection).
pub(crate) struct Tx<'a> {
    inner: Inner<'a>,
    /// A statement failed in it (PostgreSQL then aborts the transaction, and its COMMIT would
    /// roll back while answering success): the commit rolls back and fails.
    failed: bool,
}

enum Inner<'a> {
    Postgres {
        db: &'a Postgres,
        conn: Pooled<'a>,
    },
    Sqlite {
        claims: Arc<SqliteClaims>,
        /// `None` once lost: an act on it was cut while its statement ran.
        gate: Option<Gate>,
    },
}

fn lost() -> String {
    "sqlite: the transaction was cut (timeout)".to_owned()
}

impl Tx<'_> {
    /// The complete step of `token` on `id` at `at`, on this transaction (as `xborder-sql`'s
    /// `complete_in`, on the transaction's connection).
    pub(crate) async fn complete(
        &mut self,
        id: &str,
        token: &str,
        at: u64,
    ) -> Result<Outcome, ClaimError> {
        let outcome = match &mut self.inner {
            Inner::Postgres { db, conn } => match conn.client() {
                Ok(client) => db.claims.step(client, Step::Complete, id, token, at).await,
                Err(e) => Err(store_error(e)),
            },
            Inner::Sqlite { claims, gate } => match gate.take() {
                None => Err(store_error(lost())),
                Some(held) => {
                    let claims = claims.clone();
                    let (id, token) = (id.to_owned(), token.to_owned());
                    let done = tokio::task::spawn_blocking(move || {
                        let conn = claims.lock();
                        let outcome = claims.step_on(&conn, Step::Complete, &id, &token, at);
                        drop(conn);
                        (outcome, held)
                    })
                    .await;
                    match done {
                        Ok((outcome, held)) => {
                            *gate = Some(held);
                            outcome
                        }
                        Err(e) => Err(store_error(format!("sqlite: {e}"))),
                    }
                }
            },
        };
        if outcome.is_err() {
            self.failed = true;
        }
        outcome
    }

    /// An act on it was cut (timed out): the commit fails.
    pub(crate) fn fail(&mut self) {
        self.failed = true;
    }

    /// COMMIT; rolled back instead (and an error) when a statement failed in it.
    pub(crate) async fn commit(mut self) -> Result<(), String> {
        if self.failed {
            // PostgreSQL: the connection is closed on drop (not `done`), which rolls back.
            if let Inner::Sqlite { claims, gate } = &mut self.inner {
                if let Some(held) = gate.take() {
                    let claims = claims.clone();
                    let _ = tokio::task::spawn_blocking(move || {
                        end_orphan(&claims.lock());
                        drop(held);
                    })
                    .await;
                }
            }
            return Err("a statement failed in the transaction: rolled back".to_owned());
        }
        match &mut self.inner {
            Inner::Postgres { conn, .. } => {
                conn.client()?
                    .batch_execute("COMMIT")
                    .await
                    .map_err(|e| format!("postgres: {e}"))?;
                conn.done();
                Ok(())
            }
            Inner::Sqlite { claims, gate } => {
                let held = gate.take().ok_or_else(lost)?;
                let claims = claims.clone();
                tokio::task::spawn_blocking(move || {
                    let conn = claims.lock();
                    let committed = conn
                        .execute_batch("COMMIT")
                        .map_err(|e| format!("sqlite: {e}"));
                    end_orphan(&conn);
                    drop((conn, held));
                    committed
                })
                .await
                .map_err(|e| format!("sqlite: {e}"))?
            }
        }
    }
}

impl Tx<'_> {
    /// ROLLBACK (the handling answered without a commit: a complete that was not `completed`).
    pub(crate) async fn rollback(mut self) {
        match &mut self.inner {
            // A connection whose statement failed or was cut is closed instead (on drop).
            Inner::Postgres { conn, .. } if !self.failed => {
                if let Ok(client) = conn.client() {
                    if client.batch_execute("ROLLBACK").await.is_ok() {
                        conn.done();
                    }
                }
            }
            Inner::Postgres { .. } => {}
            Inner::Sqlite { claims, gate } => {
                if let Some(held) = gate.take() {
                    let claims = claims.clone();
                    let _ = tokio::task::spawn_blocking(move || {
                        end_orphan(&claims.lock());
                        drop(held);
                    })
                    .await;
                }
            }
        }
    }
}

impl Drop for Tx<'_> {
    fn drop(&mut self) {
        // PostgreSQL: the connection, not `done`, is closed by `Pooled`'s drop.
        if let Inner::Sqlite { claims, gate } = &mut self.inner {
            if let (Some(held), Ok(rt)) = (gate.take(), tokio::runtime::Handle::try_current()) {
                let claims = claims.clone();
                rt.spawn_blocking(move || {
                    end_orphan(&claims.lock());
                    drop(held);
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row<'a>(id: &'a str, token: &'a str) -> EventRow<'a> {
        EventRow {
            id,
            event: "order:created",
            instance: "t",
            token,
            claimed_at_ms: 0,
            lease_ms: 1_000,
            at_ms: 5,
        }
    }

    fn rows(s: &Sqlite, id: &str) -> i64 {
        s.claims
            .lock()
            .query_row(
                "SELECT count(*) FROM xborder_events WHERE id = ?1",
                [id],
                |r| r.get(0),
            )
            .unwrap()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_sqlite_transaction_commits_the_row_with_the_completion_or_neither() {
        let s = Sqlite::open(
            std::path::Path::new(":memory:"),
            ClaimRules::new(1_000),
            Duration::from_secs(1),
        )
        .unwrap();
        // Committed: the row, and the id done.
        assert_eq!(
            s.step(Step::Claim, "a", "r1", 0).await.unwrap(),
            Outcome::Claimed
        );
        let mut tx = s.begin(&row("a", "r1")).await.unwrap();
        assert_eq!(tx.complete("a", "r1", 6).await.unwrap(), Outcome::Completed);
        tx.commit().await.unwrap();
        assert_eq!(rows(&s, "a"), 1);
        assert_eq!(
            s.step(Step::Claim, "a", "r2", 7).await.unwrap(),
            Outcome::Duplicate
        );

        // Dropped unfinished (a request cut): rolled back, the claim still held, the
        // connection free for the next request (not inside the dropped transaction).
        assert_eq!(
            s.step(Step::Claim, "b", "r3", 0).await.unwrap(),
            Outcome::Claimed
        );
        let mut tx = s.begin(&row("b", "r3")).await.unwrap();
        assert_eq!(tx.complete("b", "r3", 6).await.unwrap(), Outcome::Completed);
        drop(tx);
        assert_eq!(
            s.step(Step::Claim, "c", "r4", 0).await.unwrap(),
            Outcome::Claimed
        );
        assert_eq!(rows(&s, "b"), 0);
        assert_eq!(
            s.step(Step::Claim, "b", "r5", 8).await.unwrap(),
            Outcome::InProgress
        );

        // An act cut (`fail`): the commit fails and rolls back.
        let mut tx = s.begin(&row("c", "r4")).await.unwrap();
        tx.fail();
        assert!(tx.commit().await.is_err());
        assert_eq!(rows(&s, "c"), 0);
        assert_eq!(
            s.step(Step::Release, "c", "r4", 9).await.unwrap(),
            Outcome::Released
        );

        // Stale on the transaction (another token took the id over): its outcome; core then
        // answers without a commit, and the rollback leaves no row.
        assert_eq!(
            s.step(Step::Claim, "d", "r6", 0).await.unwrap(),
            Outcome::Claimed
        );
        assert_eq!(
            s.step(Step::Claim, "d", "r7", 2_000).await.unwrap(),
            Outcome::Claimed
        );
        let mut tx = s.begin(&row("d", "r6")).await.unwrap();
        assert_eq!(tx.complete("d", "r6", 2_001).await.unwrap(), Outcome::Stale);
        tx.rollback().await;
        assert_eq!(rows(&s, "d"), 0);
        assert_eq!(
            s.step(Step::Complete, "d", "r7", 2_002).await.unwrap(),
            Outcome::Completed
        );
    }
}
