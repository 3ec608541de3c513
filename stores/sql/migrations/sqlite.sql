-- xborder claims in SQLite (crate xborder-sql; the Node and Python stores use the same table).
-- One row per event id: its entry, as xborder-core writes it (`h:<since>:<token>` while a request
-- holds the claim, `d:<at>` once the event is done), and when the row expires, in milliseconds
-- since the Unix epoch on the host's clock: a claim two leases after it was taken, a done id the
-- window after completion (7 days by default), NULL for never (rules without a window). An expired
-- row counts as no row to every statement; the purge below deletes them.
-- Idempotent: run it at every start, or copy it into your migrations. Use WAL mode
-- (PRAGMA journal_mode = WAL) and a busy timeout: readers then never wait for the writer.

CREATE TABLE IF NOT EXISTS xborder_claims (
    id         TEXT NOT NULL PRIMARY KEY,
    entry      TEXT NOT NULL CHECK (entry <> ''),
    expires_at INTEGER
) WITHOUT ROWID;

CREATE INDEX IF NOT EXISTS xborder_claims_expires_at
    ON xborder_claims (expires_at) WHERE expires_at IS NOT NULL;

-- Purge, run every few minutes or hours (?1: now, in ms since the epoch):
--   DELETE FROM xborder_claims WHERE expires_at <= ?1;
