//! Command-line options.

use std::path::PathBuf;

use crate::args;

use xborder_core::claims::DEFAULT_LEASE_MS;
use xborder_core::envelope::Limits;

pub(crate) const USAGE: &str = "\
xborder-receiver: a webhook receiver over xborder-core (claims in Redis, PostgreSQL, SQLite or
in memory)

usage: xborder-receiver --secret KEY [options]

  --listen ADDR            address to bind (default 127.0.0.1:8080; port 0 picks one);
                           the bound address is printed as the first line on stdout
  --secret KEY             webhook signature key (or env XBORDER_SECRET); repeat to accept
                           several during a rotation
  --redis URL              claims in Redis (redis://host:port/), shared by instances;
                           without it, claims in this process's memory
  --postgres URL           claims AND events in PostgreSQL (postgres://user@host:port/db), shared
                           by instances: each event's row (table xborder_events) commits in one
                           transaction with the claim's completion; the tables are created
  --sqlite PATH            the same in an SQLite file (one instance, or processes of one host)
  --pool N                 PostgreSQL connections per instance at most (default 4). Sizing
                           rule: instances x pool <= the server's max_connections -
                           superuser_reserved_connections - headroom for operators and other
                           clients (e.g. 3 instances x 4 = 12 of PostgreSQL's default 100)
  --pool-idle-ms N         a pooled PostgreSQL connection idle that long is closed, so a quiet
                           instance gives its connections back (default 10000)
  --persist PATH           append each processed event to PATH (JSON lines, O_APPEND, one
                           write per line); without it, events are processed but not kept
  --records DIR            keep one record per event id in DIR (linked into place whole, the way a
                           table has a unique key): persisting an event whose record exists
                           writes nothing new and is logged with again: true (a redelivery
                           processed twice, after a crash between persist and complete)
  --fsync                  fdatasync the file after each line (default: write(2) only,
                           which survives a killed process, not a power cut)
  --instance NAME          this instance's name, in tokens and persisted lines (default rx-PID)
  --lease-ms N             how long a claim holds an id (default 30000); keep it shorter than
                           the span of the provider's retries: an instance that dies holding a
                           claim has its event answered 503 in_progress until the lease ends,
                           and dead-lettered if the retries end first
  --window-ms N            how long a done id is remembered (default 604800000, 7 days;
                           0: until the store forgets it)
  --capacity N             done ids the in-memory store remembers at most (default 1000000)
  --prefix TEXT            Redis key prefix (default xb:claims:)
  --store-timeout-ms N     time allowed for every store call (default 2000): Redis connect and
                           each command; PostgreSQL connect, pool acquire, each statement
                           (statement_timeout) and each step or transaction as a whole (a
                           connection whose call timed out is closed, never reused); SQLite's
                           busy_timeout and each step. A timeout is answered as a store failure:
                           core's STORE_UNAVAILABLE reply (503, Retry-After: 1)
  --clock-sync-ms N        how often the store's clock is sampled (default 5000; also at start):
                           Redis TIME or PostgreSQL clock_timestamp(); every claim, completion
                           and release time is this host's clock plus the measured offset, so
                           instances agree whatever their clocks say (SQLite and memory: offset
                           0). A failed sample keeps the last offset; an offset above a tenth of
                           the lease is logged (`clock: this host is N ms off ...`)
  --clock-skew-ms N        for tests: this process's clock reads N ms ahead of the real one (may
                           be negative; default 0); the store's offset corrects it
  --header-timeout-ms N    time a client has to send a whole request head: from the accept for
                           a new connection, from its first byte for the next request on a
                           kept-alive one; then the connection is closed (default 10000)
  --idle-timeout-ms N      time a kept-alive connection may stay silent after an answer before
                           it is closed (default 75000: longer than a load balancer's usual
                           60 s, so the balancer, not this service, closes an idle connection)
  --max-connections N      connections open at once (default 512, under the usual 1024-file
                           limit); one over it is accepted, answered 503 TOO_MANY_CONNECTIONS
                           (core's reply: Retry-After: 1, Connection: close) and closed, never
                           left waiting in the listen backlog
  --max-body-bytes N       the longest body accepted (default 1048576): a declared
                           Content-Length over N is answered 413 (core's BODY_TOO_LARGE) at
                           once, unread; a chunked body is refused so as soon as the bytes
                           received pass N. Either way the connection is closed. A body is
                           copied into one buffer as it arrives: it holds what it received
  --body-timeout-ms N      the whole body must arrive within N ms of the end of the request head
                           (default 10000); otherwise 408 (core's BODY_TIMEOUT), connection
                           closed
  --grace-ms N             on SIGTERM or SIGINT: stop accepting (the listener closed, the
                           connections already in its backlog served), drain (--drain-ms), answer
                           every request in flight, then exit 0 and print `shutdown: N in flight
                           answered in M ms`; past N ms in all (default 10000) exit 1 anyway,
                           saying how many were cut
  --catch-up URL           the provider's API (http://HOST:PORT, e.g. the simulator's `api`):
                           events it dead-lettered are recovered from its GET
                           /v1/external-events at start and every --catch-up-every-ms, each
                           handled as its delivery is (claims make one already processed a
                           duplicate); core's catch-up walks the list down to the checkpoint
  --catch-up-every-ms N    between two catch-ups (default 60000)
  --checkpoint PATH        keep the catch-up's checkpoint in PATH (without it, every catch-up
                           walks the whole list)
  --drain-ms N             after SIGTERM, the open connections are still served: every answer
                           carries Connection: close, and a kept-alive connection is closed only
                           once it has been idle N ms (default 1000, at most --grace-ms), so a
                           request a client writes on it meanwhile is read and answered, never
                           reset
  --naive                  SET key NX then persist, no lease (needs --redis): loses events
                           on a crash, for comparison only
  --persist-delay-ms N     wait N ms before persisting (to show concurrent redeliveries, or a
                           completion after the claim's entry expired; on SQLite inside the
                           handling's turn on the connection: the instance waits with it)
  --fail-persist-every N   fail every Nth persist, an event at most once (to show release and
                           retry)
";

#[derive(Debug, Clone)]
pub(crate) struct Opts {
    pub(crate) listen: String,
    pub(crate) secrets: Vec<String>,
    pub(crate) redis: Option<String>,
    pub(crate) postgres: Option<String>,
    pub(crate) sqlite: Option<PathBuf>,
    pub(crate) pool_size: usize,
    pub(crate) persist: Option<PathBuf>,
    pub(crate) records: Option<PathBuf>,
    pub(crate) fsync: bool,
    pub(crate) instance: String,
    pub(crate) lease_ms: u64,
    pub(crate) window_ms: u64,
    pub(crate) capacity: usize,
    pub(crate) prefix: String,
    pub(crate) store_timeout_ms: u64,
    pub(crate) naive: bool,
    pub(crate) persist_delay_ms: u64,
    pub(crate) fail_persist_every: u64,
    pub(crate) header_timeout_ms: u64,
    pub(crate) idle_timeout_ms: u64,
    pub(crate) max_connections: usize,
    pub(crate) pool_idle_ms: u64,
    pub(crate) max_body_bytes: usize,
    pub(crate) body_timeout_ms: u64,
    pub(crate) clock_sync_ms: u64,
    pub(crate) clock_skew_ms: i64,
    pub(crate) grace_ms: u64,
    pub(crate) drain_ms: u64,
    pub(crate) catch_up: Option<String>,
    pub(crate) catch_up_every_ms: u64,
    pub(crate) checkpoint: Option<PathBuf>,
}

impl Opts {
    pub(crate) fn parse(args: &[String]) -> Result<Opts, String> {
        let mut o = Opts {
            listen: "127.0.0.1:8080".into(),
            secrets: Vec::new(),
            redis: None,
            postgres: None,
            sqlite: None,
            pool_size: 4,
            persist: None,
            records: None,
            fsync: false,
            instance: format!("rx-{}", std::process::id()),
            lease_ms: DEFAULT_LEASE_MS,
            window_ms: 7 * 86_400_000,
            capacity: 1_000_000,
            prefix: "xb:claims:".into(),
            store_timeout_ms: 2_000,
            naive: false,
            persist_delay_ms: 0,
            fail_persist_every: 0,
            header_timeout_ms: 10_000,
            idle_timeout_ms: 75_000,
            max_connections: 512,
            pool_idle_ms: 10_000,
            max_body_bytes: Limits::default().max_body_bytes,
            body_timeout_ms: 10_000,
            clock_sync_ms: 5_000,
            clock_skew_ms: 0,
            grace_ms: 10_000,
            drain_ms: 1_000,
            catch_up: None,
            catch_up_every_ms: 60_000,
            checkpoint: None,
        };
        for (k, v) in args::options(args)? {
            match k.as_str() {
                "listen" => o.listen = args::value(&k, v)?,
                "secret" => o.secrets.push(args::value(&k, v)?),
                "redis" => o.redis = Some(args::value(&k, v)?),
                "postgres" => o.postgres = Some(args::value(&k, v)?),
                "sqlite" => o.sqlite = Some(PathBuf::from(args::value(&k, v)?)),
                "pool" => o.pool_size = args::number(&k, v)?,
                "persist" => o.persist = Some(PathBuf::from(args::value(&k, v)?)),
                "records" => o.records = Some(PathBuf::from(args::value(&k, v)?)),
                "fsync" => o.fsync = true,
                "instance" => o.instance = args::value(&k, v)?,
                "lease-ms" => o.lease_ms = args::number(&k, v)?,
                "window-ms" => o.window_ms = args::number(&k, v)?,
                "capacity" => o.capacity = args::number(&k, v)?,
                "prefix" => o.prefix = args::value(&k, v)?,
                "store-timeout-ms" => o.store_timeout_ms = args::number(&k, v)?,
                "naive" => o.naive = true,
                "persist-delay-ms" => o.persist_delay_ms = args::number(&k, v)?,
                "fail-persist-every" => o.fail_persist_every = args::number(&k, v)?,
                "header-timeout-ms" => o.header_timeout_ms = args::number(&k, v)?,
                "idle-timeout-ms" => o.idle_timeout_ms = args::number(&k, v)?,
                "max-connections" => o.max_connections = args::number(&k, v)?,
                "pool-idle-ms" => o.pool_idle_ms = args::number(&k, v)?,
                "max-body-bytes" => o.max_body_bytes = args::number(&k, v)?,
                "body-timeout-ms" => o.body_timeout_ms = args::number(&k, v)?,
                "clock-sync-ms" => o.clock_sync_ms = args::number(&k, v)?,
                "clock-skew-ms" => o.clock_skew_ms = args::number(&k, v)?,
                "grace-ms" => o.grace_ms = args::number(&k, v)?,
                "drain-ms" => o.drain_ms = args::number(&k, v)?,
                "catch-up" => o.catch_up = Some(args::value(&k, v)?),
                "catch-up-every-ms" => o.catch_up_every_ms = args::number(&k, v)?,
                "checkpoint" => o.checkpoint = Some(PathBuf::from(args::value(&k, v)?)),
                _ => return Err(format!("unknown option --{k}")),
            }
        }
        if o.secrets.is_empty() {
            if let Ok(s) = std::env::var("XBORDER_SECRET") {
                o.secrets.push(s);
            }
        }
        if o.secrets.iter().all(String::is_empty) {
            return Err("give --secret (or XBORDER_SECRET)".into());
        }
        let stores = [o.redis.is_some(), o.postgres.is_some(), o.sqlite.is_some()];
        if stores.iter().filter(|s| **s).count() > 1 {
            return Err("give one of --redis, --postgres, --sqlite".into());
        }
        if o.pool_size == 0 {
            return Err("--pool must be at least 1".into());
        }
        if o.naive && o.catch_up.is_some() {
            return Err("--catch-up needs claims (not --naive)".into());
        }
        if o.checkpoint.is_some() && o.catch_up.is_none() {
            return Err("--checkpoint needs --catch-up URL".into());
        }
        if o.naive && o.redis.is_none() {
            return Err("--naive needs --redis".into());
        }
        if o.lease_ms == 0 {
            return Err("--lease-ms must be at least 1".into());
        }
        for (name, v) in [
            ("--header-timeout-ms", o.header_timeout_ms),
            ("--idle-timeout-ms", o.idle_timeout_ms),
            ("--store-timeout-ms", o.store_timeout_ms),
            ("--pool-idle-ms", o.pool_idle_ms),
            ("--body-timeout-ms", o.body_timeout_ms),
            ("--clock-sync-ms", o.clock_sync_ms),
            (
                "--max-body-bytes",
                u64::try_from(o.max_body_bytes).unwrap_or(u64::MAX),
            ),
        ] {
            if v == 0 {
                return Err(format!("{name} must be at least 1"));
            }
        }
        // tokio's semaphore holds at most usize::MAX >> 3 permits.
        if o.max_connections == 0 || o.max_connections > 1 << 30 {
            return Err("--max-connections must be between 1 and 2^30".into());
        }
        if o.instance.is_empty() {
            return Err("--instance must not be empty".into());
        }
        Ok(o)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn options_parse_and_conflicts_are_refused() {
        let o = Opts::parse(&args(
            "--listen 127.0.0.1:0 --secret a --secret=b --redis redis://127.0.0.1:1/ --lease-ms 500 --instance rx1 --fsync",
        ))
        .unwrap();
        assert_eq!(o.secrets, ["a", "b"]);
        assert_eq!(
            (o.lease_ms, o.instance.as_str(), o.fsync),
            (500, "rx1", true)
        );
        assert!(Opts::parse(&args("--secret a --naive")).is_err());
        let o = Opts::parse(&args(
            "--secret a --postgres postgres://x@127.0.0.1:1/db --pool 4",
        ))
        .unwrap();
        assert_eq!(
            (o.postgres.as_deref(), o.pool_size),
            (Some("postgres://x@127.0.0.1:1/db"), 4)
        );
        let o = Opts::parse(&args("--secret a --sqlite /tmp/x.db")).unwrap();
        assert_eq!(o.sqlite, Some(PathBuf::from("/tmp/x.db")));
        for two in [
            "--redis redis://h/ --postgres postgres://h/db",
            "--sqlite a.db --postgres postgres://h/db",
            "--redis redis://h/ --sqlite a.db",
            "--sqlite a.db --pool 0",
        ] {
            assert!(
                Opts::parse(&args(&format!("--secret a {two}"))).is_err(),
                "{two}"
            );
        }
        assert!(Opts::parse(&args("--secret a --lease-ms x")).is_err());
        assert!(Opts::parse(&args("--secret a --whatever")).is_err());
        let o = Opts::parse(&args("--secret a")).unwrap();
        assert_eq!(
            (o.header_timeout_ms, o.idle_timeout_ms, o.max_connections),
            (10_000, 75_000, 512)
        );
        assert_eq!(
            (
                o.pool_size,
                o.pool_idle_ms,
                o.store_timeout_ms,
                o.max_body_bytes
            ),
            (4, 10_000, 2_000, 1_048_576)
        );
        assert_eq!(
            (
                o.body_timeout_ms,
                o.clock_sync_ms,
                o.clock_skew_ms,
                o.grace_ms
            ),
            (10_000, 5_000, 0, 10_000)
        );
        assert_eq!(o.drain_ms, 1_000);
        let o = Opts::parse(&args("--secret a --drain-ms 250")).unwrap();
        assert_eq!(o.drain_ms, 250);
        let o = Opts::parse(&args(
            "--secret a --clock-skew-ms=-300000 --max-body-bytes 100 --grace-ms 5 --pool-idle-ms 7",
        ))
        .unwrap();
        assert_eq!(
            (
                o.clock_skew_ms,
                o.max_body_bytes,
                o.grace_ms,
                o.pool_idle_ms
            ),
            (-300_000, 100, 5, 7)
        );
        let o = Opts::parse(&args(
            "--secret a --header-timeout-ms 300 --idle-timeout-ms=900 --max-connections 4",
        ))
        .unwrap();
        assert_eq!(
            (o.header_timeout_ms, o.idle_timeout_ms, o.max_connections),
            (300, 900, 4)
        );
        for bad in [
            "--header-timeout-ms 0",
            "--idle-timeout-ms 0",
            "--max-connections 0",
            "--max-connections -1",
            "--idle-timeout-ms soon",
            "--store-timeout-ms 0",
            "--body-timeout-ms 0",
            "--max-body-bytes 0",
            "--clock-sync-ms 0",
        ] {
            assert!(
                Opts::parse(&args(&format!("--secret a {bad}"))).is_err(),
                "{bad}"
            );
        }
    }
}
