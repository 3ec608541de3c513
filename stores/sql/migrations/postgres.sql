-- xborder claims in PostgreSQL (crate xborder-sql; the Node and Python stores use the same table).
-- One row per event id: its entry, as xborder-core writes it (`h:<since>:<token>` while a request
-- holds the claim, `d:<at>` once the event is done), and when the row expires, in milliseconds
-- since the Unix epoch on the hosts' clocks: a claim two leases after it was taken, a done id the
-- window after completion (7 days by default), NULL for never (rules without a window). An expired
-- row counts as no row to every statement; the purge below deletes them.
-- Idempotent: run it at every start, or copy it into your migrations.

CREATE TABLE IF NOT EXISTS xborder_claims (
    id         text COLLATE "C" NOT NULL PRIMARY KEY,
    entry      text NOT NULL CHECK (entry <> ''),
    expires_at bigint
);

CREATE INDEX IF NOT EXISTS xborder_claims_expires_at
    ON xborder_claims (expires_at) WHERE expires_at IS NOT NULL;

-- Purge, run every few minutes or hours by one instance ($1: now, in ms since the epoch; pass
-- your clock minus the skew you allow between hosts, so that no live claim is deleted):
--   DELETE FROM xborder_claims WHERE expires_at <= $1;
