//! Claims and events in PostgreSQL (`--postgres URL`) or SQLite (`--sqlite PATH`), over
//! `xborder-sql`: the event's row (`xborder_events`, `services/sql/receiver-events.sql`) and the
//! claim's completion commit in one transaction, so an event is persisted once whatever dies
//! when: a process killed before the commit leaves neither (the provider's retry does the work),
//! one killed after it leaves both (the retry is a duplicate).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{Semaphore, SemaphorePermit};
use tokio::time::Instant;
use xborder_core::claims::{ClaimError, ClaimRules, Outcome, Step};
use xborder_core::delivery::StoreError;
use xborder_sql::rusqlite::{self, TransactionBehavior};
use xborder_sql::tokio_postgres::{self, Client, NoTls};
use xborder_sql::{PostgresClaims, SqliteClaims};

/// The events table's DDL, shared with the Node and Python receivers.
pub(crate) const EVENTS: &str = include_str!("../../sql/receiver-events.sql");

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

    /// The event's row and `complete`, in one transaction: committed when `complete` answers
    /// `completed`, rolled back otherwise (`stale`: another request took the id over and
    /// persists it itself).
    pub(crate) async fn persist_and_complete(&self, row: &EventRow<'_>) -> Result<Outcome, String> {
        let mut c = self.pool.get().await?;
        let client = c
            .conn
            .as_mut()
            .map(|c| &mut c.0)
            .ok_or_else(|| "postgres: no client".to_owned())?;
        let err = |e: tokio_postgres::Error| format!("postgres: {e}");
        let tx = client.transaction().await.map_err(err)?;
        tx.execute(
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
        let outcome = self
            .claims
            .complete_in(&tx, row.id, row.token, row.at_ms)
            .await
            .map_err(|e| e.to_string())?;
        if outcome == Outcome::Completed {
            tx.commit().await.map_err(err)?;
        } else {
            tx.rollback().await.map_err(err)?;
        }
        c.done();
        Ok(outcome)
    }
}

/// The claims of one instance in an SQLite file (one connection; its statements run off the
/// async threads).
pub(crate) struct Sqlite {
    pub(crate) claims: Arc<SqliteClaims>,
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
        })
    }

    pub(crate) async fn step(
        &self,
        step: Step,
        id: &str,
        token: &str,
        at: u64,
    ) -> Result<Outcome, ClaimError> {
        let claims = self.claims.clone();
        let (id, token) = (id.to_owned(), token.to_owned());
        tokio::task::spawn_blocking(move || claims.step(step, &id, &token, at))
            .await
            .map_err(|e| store_error(format!("sqlite: {e}")))?
    }

    /// As [`Postgres::persist_and_complete`], in an immediate transaction (it takes SQLite's
    /// write lock first, so it never fails half-way for a writer that came between).
    pub(crate) async fn persist_and_complete(&self, row: &EventRow<'_>) -> Result<Outcome, String> {
        let claims = self.claims.clone();
        let values = (
            row.id.to_owned(),
            row.event.to_owned(),
            row.instance.to_owned(),
            row.token.to_owned(),
            int(row.claimed_at_ms),
            int(row.lease_ms),
            row.at_ms,
        );
        tokio::task::spawn_blocking(move || {
            let (id, event, instance, token, claimed_at, lease, at) = values;
            let err = |e: rusqlite::Error| format!("sqlite: {e}");
            let mut conn = claims.lock();
            let tx = conn
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(err)?;
            tx.execute(
                INSERT_SQLITE,
                (&id, &event, &instance, &token, claimed_at, lease, int(at)),
            )
            .map_err(err)?;
            let outcome = claims
                .complete_in(&tx, &id, &token, at)
                .map_err(|e| e.to_string())?;
            if outcome == Outcome::Completed {
                tx.commit().map_err(err)?;
            } else {
                tx.rollback().map_err(err)?;
            }
            Ok(outcome)
        })
        .await
        .map_err(|e| format!("sqlite: {e}"))?
    }
}
