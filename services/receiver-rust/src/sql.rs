//! Claims and events in PostgreSQL (`--postgres URL`) or SQLite (`--sqlite PATH`), over
//! `xborder-sql`: the event's row (`xborder_events`, `services/sql/receiver-events.sql`) and the
//! claim's completion commit in one transaction, so an event is persisted once whatever dies
//! when: a process killed before the commit leaves neither (the provider's retry does the work),
//! one killed after it leaves both (the retry is a duplicate).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{Semaphore, SemaphorePermit};
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

/// A few PostgreSQL connections, opened when needed and dropped when they break (a server
/// restart breaks them all: the next request opens new ones).
pub(crate) struct PgPool {
    url: String,
    idle: Mutex<Vec<Client>>,
    slots: Semaphore,
    timeout: Duration,
}

/// A connection taken from the pool, given back on drop unless it broke.
pub(crate) struct Pooled<'a> {
    pool: &'a PgPool,
    client: Option<Client>,
    _slot: SemaphorePermit<'a>,
}

impl Drop for Pooled<'_> {
    fn drop(&mut self) {
        if let Some(c) = self.client.take() {
            if !c.is_closed() {
                self.pool.idle().push(c);
            }
        }
    }
}

impl PgPool {
    pub(crate) fn new(url: &str, size: usize, timeout: Duration) -> PgPool {
        PgPool {
            url: url.to_owned(),
            idle: Mutex::new(Vec::new()),
            slots: Semaphore::new(size.max(1)),
            timeout,
        }
    }

    fn idle(&self) -> std::sync::MutexGuard<'_, Vec<Client>> {
        self.idle.lock().unwrap_or_else(|p| p.into_inner())
    }

    async fn connect(&self) -> Result<Client, String> {
        let (client, conn) =
            tokio::time::timeout(self.timeout, tokio_postgres::connect(&self.url, NoTls))
                .await
                .map_err(|_| "postgres: connect timed out".to_owned())?
                .map_err(|e| format!("postgres: {e}"))?;
        tokio::spawn(async move {
            // Ends when the connection closes (the server restarted, or the client dropped).
            let _ = conn.await;
        });
        Ok(client)
    }

    pub(crate) async fn get(&self) -> Result<Pooled<'_>, String> {
        let slot = self
            .slots
            .acquire()
            .await
            .map_err(|e| format!("postgres pool: {e}"))?;
        let reused = loop {
            match self.idle().pop() {
                Some(c) if c.is_closed() => continue,
                other => break other,
            }
        };
        let client = match reused {
            Some(c) => c,
            None => self.connect().await?,
        };
        Ok(Pooled {
            pool: self,
            client: Some(client),
            _slot: slot,
        })
    }

    /// Creates the claims table (`xborder-sql`'s migration) and the events table.
    pub(crate) async fn migrate(&self) -> Result<(), String> {
        let c = self.get().await?;
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
            .map_err(|e| format!("postgres: {e}"))
    }
}

impl Pooled<'_> {
    fn client(&self) -> Result<&Client, String> {
        self.client
            .as_ref()
            .ok_or_else(|| "postgres: no client".to_owned())
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
        let c = self.pool.get().await.map_err(store_error)?;
        let client = c.client().map_err(store_error)?;
        self.claims.step(client, step, id, token, at).await
    }

    /// The event's row and `complete`, in one transaction: committed when `complete` answers
    /// `completed`, rolled back otherwise (`stale`: another request took the id over and
    /// persists it itself).
    pub(crate) async fn persist_and_complete(&self, row: &EventRow<'_>) -> Result<Outcome, String> {
        let mut c = self.pool.get().await?;
        let client = c
            .client
            .as_mut()
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
        Ok(outcome)
    }
}

/// The claims of one instance in an SQLite file (one connection; its statements run off the
/// async threads).
pub(crate) struct Sqlite {
    pub(crate) claims: Arc<SqliteClaims>,
}

impl Sqlite {
    pub(crate) fn open(path: &std::path::Path, rules: ClaimRules) -> Result<Sqlite, String> {
        let claims = SqliteClaims::open(path, rules).map_err(|e| format!("sqlite: {e}"))?;
        claims
            .lock()
            .execute_batch(EVENTS)
            .map_err(|e| format!("sqlite: {e}"))?;
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
