//! Command-line arguments: `--name value` or `--name=value`.

use std::path::PathBuf;

use crate::args::{number, options, value};
use crate::check::CheckConfig;
use crate::{Config, Progress};

/// Usage of both subcommands.
pub const USAGE: &str = "\
xborder-simulator: the provider's webhook deliveries against your endpoint

usage:
  xborder-simulator [send] --url URL [--url URL ...] --secret KEY [options]
  xborder-simulator check --expect PATH --persisted PATH [--persisted PATH ...]
                          [--records DIR] [--crashed INSTANCE ...] [--allow-duplicates]
                          [--attempts PATH] [--logs PATH ...] [--json PATH]
  xborder-simulator slow-body --target HOST:PORT [...] (slow-body --help)
  xborder-simulator api --events PATH [--listen ADDR] [--addr-file PATH] (api --help)

send options (fractions are of --events):
  --url URL             endpoint, http:// only; repeat (or comma-separate) to spread
                        deliveries over several instances in turn; one that refuses
                        connections is waited for 10 s before the run
  --secret KEY          the webhook signature key (or env XBORDER_SECRET)
  --events N            distinct good events (default 1000)
  --duplicates F        delivered again after they were acknowledged (default 0)
  --concurrent F        first delivery sent twice at once (default 0)
  --replays F           old ids delivered again at the end (default 0)
  --bad-signatures F    forged deliveries, must be refused (default 0)
  --unknown F           unknown event names, must be acknowledged (default 0)
  --concurrency N       jobs in flight (default 16)
  --seed N              seed of every choice (default 1)
  --run-id ID           id prefix evt_<ID>_ (default: fresh, from the clock)
  --max-attempts N      attempts per delivery before dead-letter (default 5, the provider's)
  --backoff-ms N        delay before the first retry, doubled each time, plus up to half of
                        it in jitter (default 50)
  --backoff-max-ms N    longest delay between attempts (default 5000)
  --lease-ms N          the receivers' claim lease: warn when the retries end within it
  --timeout-ms N        time allowed per request (default 10000)
  --rate N              jobs started per second at most (default 0: unlimited)
  --json PATH           write the summary as JSON
  --expect PATH         write the ids a receiver must persist (live events), one per line
  --attempts PATH       write every attempt of a live event, one JSON line each: id, sent_ms
                        and ended_ms (wall clock), status (0: no answer), for check --attempts
  --external-events PATH  append every event generated (live and unknown) as the
                        provider's GET /v1/external-events record, one JSON line each, before
                        sending: what `xborder-simulator api --events PATH` serves
  --quiet               no progress line

retries and leases: by default the attempts of a delivery come at 0, 50, 150, 350 and 750 ms
(plus jitter, up to 1,125 ms): the provider's real schedule is longer, the default is small so
tests run fast. An instance that dies holding a claim answers nothing, and every other instance
answers its event 503 in_progress until the claim's lease ends; when the lease is longer than
the retries (xborder-receiver's default 30 s against these 0.75 s), the event is dead-lettered.
Keep the lease shorter than the span of the provider's retries (first to last attempt, without
jitter), and give it with --lease-ms to be warned. The summary shows the span and counts the
dead letters held by a claim to the last retry.

check categories: an event processed twice where one copy came from an instance named with
--crashed is the crash's (it died between persist and complete); one where the later claim came
after the earlier's lease ended and before it persisted is a takeover after a lease expiry (a
processing slower than the lease: reported, not failed on; lines need claimed_at_ms, lease_ms
and at_ms, as xborder-receiver writes them); any other is unexplained (a completion that did
not stick, or a store that forgot it) and fails unless --allow-duplicates.

check clocks: lines with clock_offset_ms name the instances more than a tenth of their lease off
their store's clock (skewed instances, corrected by the receivers). With --attempts (the send's
file), each processing's claimed_at_ms is compared with the times its event was sent: one
more than a tenth of the lease before an attempt or after its answer is a claim time a clock
got wrong (a failure). --logs PATH: receivers' lines read for the clocks only (when the
persisted files are a table without them), not counted as persisted.

exit status: 0 ok; 1 a delivery was dead-lettered or a bad signature accepted (send), or an
event is missing, unexpected, or processed twice without a crash or a lease expiry to explain
it, or a claim time off the send times (check);
2 usage or file error.
";

/// Parses the `send` options (the subcommand name already removed).
pub fn parse_send(args: &[String]) -> Result<Config, String> {
    let mut cfg = Config {
        secret: std::env::var("XBORDER_SECRET").unwrap_or_default(),
        ..Config::default()
    };
    for (k, v) in options(args)? {
        match k.as_str() {
            "url" => cfg.urls.extend(
                value(&k, v)?
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned),
            ),
            "secret" => cfg.secret = value(&k, v)?,
            "events" => cfg.events = number(&k, v)?,
            "duplicates" => cfg.duplicates = number(&k, v)?,
            "concurrent" => cfg.concurrent = number(&k, v)?,
            "replays" => cfg.replays = number(&k, v)?,
            "bad-signatures" => cfg.bad_signatures = number(&k, v)?,
            "unknown" => cfg.unknown = number(&k, v)?,
            "concurrency" => cfg.concurrency = number(&k, v)?,
            "seed" => cfg.seed = number(&k, v)?,
            "run-id" => cfg.run_id = Some(value(&k, v)?),
            "max-attempts" => cfg.max_attempts = number(&k, v)?,
            "backoff-ms" => cfg.backoff_ms = number(&k, v)?,
            "backoff-max-ms" => cfg.backoff_max_ms = number(&k, v)?,
            "lease-ms" => cfg.lease_ms = Some(number(&k, v)?),
            "timeout-ms" => cfg.timeout_ms = number(&k, v)?,
            "rate" => cfg.rate = number(&k, v)?,
            "json" => cfg.json = Some(PathBuf::from(value(&k, v)?)),
            "expect" => cfg.expect = Some(PathBuf::from(value(&k, v)?)),
            "attempts" => cfg.attempts = Some(PathBuf::from(value(&k, v)?)),
            "external-events" => cfg.external_events = Some(PathBuf::from(value(&k, v)?)),
            "quiet" => cfg.progress = Progress::Off,
            _ => return Err(format!("unknown option --{k}")),
        }
    }
    crate::validate(&cfg)?;
    Ok(cfg)
}

/// Parses the `check` options; also returns the `--json` path.
pub fn parse_check(args: &[String]) -> Result<(CheckConfig, Option<PathBuf>), String> {
    let mut cfg = CheckConfig::default();
    let mut json = None;
    let mut expect = None;
    for (k, v) in options(args)? {
        match k.as_str() {
            "expect" => expect = Some(PathBuf::from(value(&k, v)?)),
            "persisted" => cfg.persisted.push(PathBuf::from(value(&k, v)?)),
            "records" => cfg.records = Some(PathBuf::from(value(&k, v)?)),
            "crashed" => cfg.crashed.push(value(&k, v)?),
            "allow-duplicates" => cfg.allow_duplicates = true,
            "attempts" => cfg.attempts = Some(PathBuf::from(value(&k, v)?)),
            "logs" => cfg.logs.push(PathBuf::from(value(&k, v)?)),
            "json" => json = Some(PathBuf::from(value(&k, v)?)),
            _ => return Err(format!("unknown option --{k}")),
        }
    }
    cfg.expect = expect.ok_or("give --expect PATH")?;
    if cfg.persisted.is_empty() {
        return Err("give --persisted PATH (once per file)".into());
    }
    Ok((cfg, json))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn the_brief_s_command_line_parses() {
        let cfg = parse_send(&args(
            "--url http://127.0.0.1:8080/webhooks --secret whsec_x --events 5000 --duplicates 0.2 \
             --concurrent 0.05 --replays 0.01 --bad-signatures 0.01 --unknown 0.02 \
             --concurrency 32 --seed 1 --url=http://127.0.0.1:8081/w,http://127.0.0.1:8082/w --quiet",
        ))
        .unwrap();
        assert_eq!(cfg.urls.len(), 3);
        assert_eq!((cfg.events, cfg.concurrency, cfg.seed), (5000, 32, 1));
        assert_eq!(cfg.duplicates, 0.2);
        assert_eq!(cfg.progress, Progress::Off);
        assert!(parse_send(&args("--url http://a/ --secret k --duplicates 2")).is_err());
        assert!(parse_send(&args("--url http://a/ --secret k --bogus 1")).is_err());
        assert!(parse_send(&args("--url http://a/ --secret k --events many")).is_err());
        let (c, json) = parse_check(&args(
            "--expect e --persisted a --persisted b --crashed rx1 --allow-duplicates",
        ))
        .unwrap();
        assert_eq!(
            (c.persisted.len(), c.crashed.len(), c.allow_duplicates),
            (2, 1, true)
        );
        assert!(json.is_none());
        let cfg = parse_send(&args("--url http://a/ --secret k --lease-ms 30000")).unwrap();
        assert_eq!(cfg.lease_ms, Some(30_000));
        assert!(parse_send(&args("--url http://a/ --secret k --lease-ms long")).is_err());
    }

    /// The schedule --help states is the default one.
    #[test]
    fn the_default_schedule_is_the_one_the_help_states() {
        let cfg = Config::default();
        assert_eq!(crate::retry_span_ms(&cfg), (750, 1125));
        assert!(USAGE.contains("0, 50, 150, 350 and 750 ms"));
        assert!(USAGE.contains("up to 1,125 ms"));
        assert_eq!(cfg.max_attempts, 5);
    }
}
