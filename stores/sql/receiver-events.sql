-- The events table of the reference receivers in examples/ (xborder-receiver, the Node and the
-- Python receivers) with --postgres or --sqlite: one row per processing of an event, written in
-- the same transaction as the claim's completion. One statement, valid in PostgreSQL and SQLite.
--
-- There is deliberately no unique key on `id`: a consumer's own table would have one, but the
-- fault test (tests/fault/fault-test.sh) counts every processing here, so that an event processed
-- twice shows as two rows instead of being hidden by the key.

CREATE TABLE IF NOT EXISTS xborder_events (
    id            text   NOT NULL,
    event         text   NOT NULL,
    instance      text   NOT NULL,
    token         text   NOT NULL,
    claimed_at_ms bigint NOT NULL,
    lease_ms      bigint NOT NULL,
    at_ms         bigint NOT NULL
);
