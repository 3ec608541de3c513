//! After a run: did the receivers persist every expected event exactly once?
//!
//! Reads the `--expect` list of a run (one id per line) and the receivers' persistence files
//! (JSON lines with at least `id` and `instance`, as `xborder-receiver --persist` writes them)
//! and counts what is missing, what was persisted more than once and what should not have been
//! persisted at all.
//!
//! An event processed twice is explained, and counted apart, when:
//!
//! - one copy was written by an instance that was killed (named with `crashed`): a crash between
//!   persisting and completing the claim makes the redelivery process it again, the
//!   at-least-once contract (nothing lost), not a fault of the claims;
//! - or the later processing took over an expired lease: its claim came after the earlier one's
//!   lease ended (`claimed_at_ms` + `lease_ms`) and before the earlier one persisted (`at_ms`),
//!   so the earlier one was still processing, slower than its lease. The claims allow it by
//!   design (a lease is how a dead instance's events get retried); the cure is a longer lease.
//!
//! Every other double is unexplained: a completion that did not stick (a redelivery after the
//! answer processed again), or a store that forgot it.
//!
//! Clocks: lines that carry `clock_offset_ms` (the receiver's measured offset from its store's
//! clock) name the instances more than a tenth of their lease off (`skewed_instances`: their
//! claims are corrected, not wrong). With the simulator's `--attempts` file, every processing's
//! `claimed_at_ms` is compared with the times the simulator sent that event: a claim more than
//! a tenth of the lease before an attempt was sent or after its answer came is a time the
//! receivers' clocks got wrong (a claim's expiry computed from it is wrong by as much), counted
//! per instance as `claims_off_send_times`, and a failure.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;

use serde::Serialize;

/// What to check.
#[derive(Debug, Clone, Default)]
pub struct CheckConfig {
    /// The `--expect` file of the run.
    pub expect: PathBuf,
    /// The persistence files of every instance.
    pub persisted: Vec<PathBuf>,
    /// The records directory the instances share (`xborder-receiver --records`), one file per
    /// persisted event holding the line its writer wrote: when given, what was persisted is
    /// read there (a writer killed between its record and its log line still persisted the
    /// event), and the log files only say what was processed again.
    pub records: Option<PathBuf>,
    /// Instance names that were killed during the run.
    pub crashed: Vec<String>,
    /// Whether an event persisted twice is acceptable (a run where the claims were lost, as
    /// when Redis restarts without persistence).
    pub allow_duplicates: bool,
    /// The simulator's `--attempts` file: claim times are compared with its send times.
    pub attempts: Option<PathBuf>,
    /// Receivers' logs read for their clocks and claim times only (not counted as persisted):
    /// when empty, the `persisted` files are.
    pub logs: Vec<PathBuf>,
}

/// The counts.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CheckReport {
    /// Ids the run expected persisted.
    pub expected: usize,
    /// Lines read from the persistence files.
    pub persisted_lines: usize,
    /// Distinct ids of this run among them.
    pub persisted_distinct: usize,
    /// Expected ids persisted exactly once.
    pub exactly_once: usize,
    /// Expected ids never persisted (lost).
    pub missing: usize,
    /// Ids persisted more than once.
    pub duplicated: usize,
    /// Copies beyond the first, over all ids.
    pub extra_copies: usize,
    /// Of the duplicated ids, those with a copy from a crashed instance.
    pub duplicated_by_crash: usize,
    /// Of the duplicated ids (no crash), those whose later copies each took over an expired
    /// lease while an earlier processing was still under way.
    pub duplicated_after_lease: usize,
    /// Duplicated ids with no crash nor lease expiry to explain them.
    pub duplicated_unexplained: usize,
    /// Lines marked `"again": true`: a receiver processed the event a second time and found
    /// its record there (`xborder-receiver --records`), so nothing new was kept.
    pub processed_again: usize,
    /// Of those, the ones whose record was written by a crashed instance (the crash fell
    /// between persist and complete: the at-least-once cost).
    pub processed_again_by_crash: usize,
    /// Of those (no crash), the ones that took over the record's writer's expired lease while
    /// it was still processing (claimed after its lease ended, before it persisted).
    pub processed_again_after_lease: usize,
    /// Processed again with no crash nor lease expiry to explain it (allowed only with
    /// `allow_duplicates`): a completion that did not stick, or a store that forgot it.
    pub processed_again_unexplained: usize,
    /// Ids of this run persisted but not expected (a forged or unknown event persisted).
    pub unexpected: usize,
    /// Lines of other runs (another id prefix), not counted.
    pub other_runs: usize,
    /// Lines that are not JSON objects with an `id`.
    pub malformed: usize,
    /// Up to 20 examples of each problem.
    pub examples: BTreeMap<String, Vec<String>>,
    /// Persisted lines per instance.
    pub per_instance: BTreeMap<String, usize>,
    /// Per instance, the `clock_offset_ms` of largest size its lines carry (its clock's
    /// distance from its store's, which it corrects), for instances whose lines carry one.
    pub clock_offsets_ms: BTreeMap<String, i64>,
    /// Instances more than a tenth of their lease off their store's clock.
    pub skewed_instances: Vec<String>,
    /// Processings whose `claimed_at_ms` was compared with the simulator's send times
    /// (`--attempts`).
    pub claims_timed: usize,
    /// Of those, claimed more than a tenth of the lease before the event was sent or after the
    /// answer came: a receiver's clock got it wrong.
    pub claims_off_send_times: usize,
    /// The same, per instance.
    pub claims_off_by_instance: BTreeMap<String, usize>,
    /// The farthest such claim from an attempt, in ms.
    pub claims_off_max_ms: u64,
    /// Nothing missing, nothing unexpected, nothing malformed, and no double unless allowed
    /// or explained by a crash.
    pub ok: bool,
}

fn example(r: &mut CheckReport, what: &str, id: &str) {
    let list = r.examples.entry(what.to_owned()).or_default();
    if list.len() < 20 {
        list.push(id.to_owned());
    }
}

/// One processing of an event, as its line or record says.
#[derive(Debug, Clone)]
struct Processing {
    instance: String,
    claimed_at_ms: Option<u64>,
    lease_ms: Option<u64>,
    at_ms: Option<u64>,
    clock_offset_ms: Option<i64>,
}

impl Processing {
    fn of(v: &serde_json::Value) -> Processing {
        let n = |k: &str| v.get(k).and_then(serde_json::Value::as_u64);
        Processing {
            instance: v
                .get("instance")
                .and_then(|i| i.as_str())
                .unwrap_or("?")
                .to_owned(),
            claimed_at_ms: n("claimed_at_ms"),
            lease_ms: n("lease_ms"),
            at_ms: n("at_ms"),
            clock_offset_ms: v.get("clock_offset_ms").and_then(serde_json::Value::as_i64),
        }
    }

    /// Whether `later` claimed the id after this processing's lease ended and before this one
    /// persisted: it took over an expired lease while this one was still under way.
    fn taken_over_by(&self, later: &Processing) -> bool {
        match (
            self.claimed_at_ms,
            self.lease_ms,
            self.at_ms,
            later.claimed_at_ms,
        ) {
            (Some(claimed), Some(lease), Some(persisted), Some(taken)) => {
                taken >= claimed.saturating_add(lease) && taken < persisted
            }
            _ => false,
        }
    }
}

/// Whether every processing after the earliest took over an expired lease of an earlier one.
fn all_after_lease(mut all: Vec<&Processing>) -> bool {
    all.sort_by_key(|p| p.claimed_at_ms.unwrap_or(0));
    all.iter().enumerate().skip(1).all(|(i, later)| {
        all.get(..i)
            .unwrap_or(&[])
            .iter()
            .any(|earlier| earlier.taken_over_by(later))
    })
}

/// Reads the files and counts.
pub fn check(cfg: &CheckConfig) -> Result<CheckReport, String> {
    let expect_text = std::fs::read_to_string(&cfg.expect)
        .map_err(|e| format!("--expect {}: {e}", cfg.expect.display()))?;
    let expected: Vec<&str> = expect_text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let expected_set: HashSet<&str> = expected.iter().copied().collect();
    // This run's prefix: `evt_<run>_` (its ids end in `_<n>`).
    let prefix = expected
        .first()
        .and_then(|id| id.rfind('_').and_then(|i| id.get(..=i)))
        .unwrap_or("")
        .to_owned();

    let mut r = CheckReport {
        expected: expected.len(),
        ..CheckReport::default()
    };
    // id -> the processings that persisted it (a new record, or a line without records).
    let mut copies: BTreeMap<String, Vec<Processing>> = BTreeMap::new();
    // ids processed again (their record existed).
    let mut again: Vec<(String, Processing)> = Vec::new();
    // Every processing line, for the clocks (when no --logs are given).
    let mut timeline: Vec<(String, Processing)> = Vec::new();
    for path in &cfg.persisted {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("--persisted {}: {e}", path.display()))?;
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            r.persisted_lines += 1;
            let v: serde_json::Value = match serde_json::from_str(line) {
                Ok(v) => v,
                Err(_) => {
                    r.malformed += 1;
                    example(&mut r, "malformed", line);
                    continue;
                }
            };
            let Some(id) = v.get("id").and_then(|i| i.as_str()) else {
                r.malformed += 1;
                example(&mut r, "malformed", line);
                continue;
            };
            let processing = Processing::of(&v);
            *r.per_instance
                .entry(processing.instance.clone())
                .or_default() += 1;
            if !prefix.is_empty() && !id.starts_with(&prefix) {
                r.other_runs += 1;
                continue;
            }
            if cfg.logs.is_empty() {
                timeline.push((id.to_owned(), processing.clone()));
            }
            if v.get("again").and_then(serde_json::Value::as_bool) == Some(true) {
                again.push((id.to_owned(), processing));
            } else {
                copies.entry(id.to_owned()).or_default().push(processing);
            }
        }
    }
    if let Some(dir) = &cfg.records {
        copies.clear();
        let entries =
            std::fs::read_dir(dir).map_err(|e| format!("--records {}: {e}", dir.display()))?;
        for entry in entries {
            let path = entry.map_err(|e| e.to_string())?.path();
            // A receiver writes a record under a hidden temporary name and links it into place:
            // one left behind (an instance killed mid-write) was never a persisted event.
            if path
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with('.'))
            {
                continue;
            }
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("record {}: {e}", path.display()))?;
            let v: serde_json::Value = match serde_json::from_str(text.trim()) {
                Ok(v) => v,
                Err(_) => {
                    r.malformed += 1;
                    example(&mut r, "malformed", &path.display().to_string());
                    continue;
                }
            };
            let (Some(id), Some(_)) = (
                v.get("id").and_then(|i| i.as_str()),
                v.get("instance").and_then(|i| i.as_str()),
            ) else {
                r.malformed += 1;
                example(&mut r, "malformed", &path.display().to_string());
                continue;
            };
            if !prefix.is_empty() && !id.starts_with(&prefix) {
                continue;
            }
            copies
                .entry(id.to_owned())
                .or_default()
                .push(Processing::of(&v));
        }
    }
    let crashed = |p: &Processing| cfg.crashed.contains(&p.instance);
    for (id, later) in &again {
        r.processed_again += 1;
        let creators = copies.get(id).map_or(&[][..], Vec::as_slice);
        if creators.iter().any(crashed) {
            r.processed_again_by_crash += 1;
            example(&mut r, "processed_again_by_crash", id);
        } else if creators.iter().any(|c| c.taken_over_by(later)) {
            r.processed_again_after_lease += 1;
            example(&mut r, "processed_again_after_lease", id);
        } else {
            r.processed_again_unexplained += 1;
            example(&mut r, "processed_again_unexplained", id);
        }
    }
    r.persisted_distinct = copies.len();
    for id in &expected {
        match copies.get(*id).map_or(0, Vec::len) {
            0 => {
                r.missing += 1;
                example(&mut r, "missing", id);
            }
            1 => r.exactly_once += 1,
            _ => {}
        }
    }
    for (id, copies) in &copies {
        if !expected_set.contains(id.as_str()) {
            r.unexpected += 1;
            example(&mut r, "unexpected", id);
        }
        if copies.len() > 1 {
            r.duplicated += 1;
            r.extra_copies += copies.len() - 1;
            let instances: Vec<&str> = copies.iter().map(|p| p.instance.as_str()).collect();
            if copies.iter().any(crashed) {
                r.duplicated_by_crash += 1;
                example(&mut r, "duplicated_by_crash", id);
            } else if all_after_lease(copies.iter().collect()) {
                r.duplicated_after_lease += 1;
                example(&mut r, "duplicated_after_lease", id);
            } else {
                r.duplicated_unexplained += 1;
                example(
                    &mut r,
                    "duplicated_unexplained",
                    &format!("{id} ({})", instances.join(", ")),
                );
            }
        }
    }
    for path in &cfg.logs {
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("--logs {}: {e}", path.display()))?;
        for line in text.lines() {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            if let Some(id) = v.get("id").and_then(|i| i.as_str()) {
                if prefix.is_empty() || id.starts_with(&prefix) {
                    timeline.push((id.to_owned(), Processing::of(&v)));
                }
            }
        }
    }
    clocks(&mut r, &timeline, cfg.attempts.as_ref())?;
    r.ok = r.missing == 0
        && r.unexpected == 0
        && r.malformed == 0
        && r.claims_off_send_times == 0
        && (cfg.allow_duplicates || r.duplicated_unexplained == 0)
        && (cfg.allow_duplicates || r.processed_again_unexplained == 0);
    Ok(r)
}

/// A tenth of a processing's lease (1 s when its line does not say).
fn tenth_of_lease(p: &Processing) -> u64 {
    p.lease_ms.map_or(1_000, |l| l / 10)
}

/// The clock counts: instances off their store's clock, and claims off the send times.
fn clocks(
    r: &mut CheckReport,
    timeline: &[(String, Processing)],
    attempts: Option<&PathBuf>,
) -> Result<(), String> {
    for (_, p) in timeline {
        if let Some(off) = p.clock_offset_ms {
            let e = r.clock_offsets_ms.entry(p.instance.clone()).or_insert(off);
            if off.unsigned_abs() > e.unsigned_abs() {
                *e = off;
            }
            if off.unsigned_abs() > tenth_of_lease(p) && !r.skewed_instances.contains(&p.instance) {
                r.skewed_instances.push(p.instance.clone());
            }
        }
    }
    r.skewed_instances.sort();
    let Some(path) = attempts else {
        return Ok(());
    };
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("--attempts {}: {e}", path.display()))?;
    let mut sent: BTreeMap<String, Vec<(u64, u64)>> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line)
            .map_err(|e| format!("--attempts {}: {e}", path.display()))?;
        let n = |k: &str| v.get(k).and_then(serde_json::Value::as_u64);
        if let (Some(id), Some(s), Some(e)) = (
            v.get("id").and_then(|i| i.as_str()),
            n("sent_ms"),
            n("ended_ms"),
        ) {
            sent.entry(id.to_owned()).or_default().push((s, e));
        }
    }
    for (id, p) in timeline {
        let (Some(claimed), Some(times)) = (p.claimed_at_ms, sent.get(id)) else {
            continue;
        };
        r.claims_timed += 1;
        let off = times
            .iter()
            .map(|&(s, e)| {
                if claimed < s {
                    s - claimed
                } else {
                    claimed.saturating_sub(e)
                }
            })
            .min()
            .unwrap_or(0);
        if off > tenth_of_lease(p) {
            r.claims_off_send_times += 1;
            *r.claims_off_by_instance
                .entry(p.instance.clone())
                .or_default() += 1;
            r.claims_off_max_ms = r.claims_off_max_ms.max(off);
            example(
                r,
                "claims_off_send_times",
                &format!("{id} ({}, {off} ms)", p.instance),
            );
        }
    }
    Ok(())
}

impl CheckReport {
    /// The counts as a table, for people.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let mut row = |k: &str, v: String| out.push_str(&format!("{k:<24} {v}\n"));
        row("expected", self.expected.to_string());
        row(
            "persisted",
            format!(
                "{} lines, {} distinct ids of this run ({} lines of other runs)",
                self.persisted_lines, self.persisted_distinct, self.other_runs
            ),
        );
        row("exactly once", self.exactly_once.to_string());
        row("missing (lost)", self.missing.to_string());
        row(
            "persisted twice or more",
            format!(
                "{} ids, {} extra copies: {} with a copy by a killed instance, {} after a lease \
                 expiry, {} unexplained",
                self.duplicated,
                self.extra_copies,
                self.duplicated_by_crash,
                self.duplicated_after_lease,
                self.duplicated_unexplained
            ),
        );
        row(
            "processed again",
            format!(
                "{} (record found, nothing new kept): {} after a crash, {} after a lease expiry \
                 (taken over while still processing), {} unexplained",
                self.processed_again,
                self.processed_again_by_crash,
                self.processed_again_after_lease,
                self.processed_again_unexplained
            ),
        );
        row("unexpected", self.unexpected.to_string());
        row("malformed lines", self.malformed.to_string());
        let per: Vec<String> = self
            .per_instance
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        row("per instance", per.join(", "));
        if !self.clock_offsets_ms.is_empty() {
            let offs: Vec<String> = self
                .clock_offsets_ms
                .iter()
                .map(|(k, v)| format!("{k} {v:+} ms"))
                .collect();
            row(
                "clock offsets",
                format!(
                    "{} (from the store's clock; skewed instances, over a tenth of the lease: {})",
                    offs.join(", "),
                    if self.skewed_instances.is_empty() {
                        "none".to_owned()
                    } else {
                        self.skewed_instances.join(", ")
                    }
                ),
            );
        }
        if self.claims_timed > 0 {
            let per: Vec<String> = self
                .claims_off_by_instance
                .iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect();
            row(
                "claims off send times",
                format!(
                    "{} of {} claims more than a tenth of the lease from the simulator's attempts{}",
                    self.claims_off_send_times,
                    self.claims_timed,
                    if per.is_empty() {
                        String::new()
                    } else {
                        format!(
                            " ({}; up to {} ms)",
                            per.join(", "),
                            self.claims_off_max_ms
                        )
                    }
                ),
            );
        }
        for (what, ids) in &self.examples {
            row(&format!("  e.g. {what}"), ids.join(" "));
        }
        row("result", if self.ok { "ok" } else { "FAILED" }.to_owned());
        out
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn counts_missing_doubles_crashes_and_strangers() {
        let dir = std::env::temp_dir().join(format!("xb-check-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let expect = dir.join("expect");
        std::fs::write(
            &expect,
            "evt_r1_000000\nevt_r1_000001\nevt_r1_000002\nevt_r1_000003\n",
        )
        .unwrap();
        let a = dir.join("a.jsonl");
        let b = dir.join("b.jsonl");
        let line = |id: &str, i: &str| {
            format!("{{\"id\":\"{id}\",\"event\":\"order:created\",\"instance\":\"{i}\"}}\n")
        };
        std::fs::write(
            &a,
            [
                line("evt_r1_000000", "rx1"),
                line("evt_r1_000001", "rx1"),
                line("evt_r0_000001", "rx1"),
            ]
            .concat(),
        )
        .unwrap();
        std::fs::write(
            &b,
            [
                line("evt_r1_000001", "rx2"),
                line("evt_r1_000002", "rx2"),
                line("evt_r1_000002", "rx2"),
                line("evt_r1_forged_0001", "rx2"),
            ]
            .concat(),
        )
        .unwrap();
        let mut cfg = CheckConfig {
            expect,
            persisted: vec![a, b],
            crashed: vec!["rx1".into()],
            ..CheckConfig::default()
        };
        let r = check(&cfg).unwrap();
        assert_eq!(
            (r.expected, r.exactly_once, r.missing, r.duplicated),
            (4, 1, 1, 2)
        );
        assert_eq!((r.duplicated_by_crash, r.duplicated_unexplained), (1, 1));
        assert_eq!((r.unexpected, r.other_runs, r.malformed), (1, 1, 0));
        assert!(!r.ok);
        cfg.allow_duplicates = true;
        assert!(!check(&cfg).unwrap().ok, "still missing one");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_record_found_again_is_explained_only_by_its_writer_crashing() {
        let dir = std::env::temp_dir().join(format!("xb-check-again-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let expect = dir.join("expect");
        std::fs::write(&expect, "evt_r1_000000\nevt_r1_000001\n").unwrap();
        let log = dir.join("a.jsonl");
        let line = |id: &str, i: &str, again: bool| {
            let a = if again { ",\"again\":true" } else { "" };
            format!("{{\"id\":\"{id}\",\"instance\":\"{i}\"{a}}}\n")
        };
        std::fs::write(
            &log,
            [
                line("evt_r1_000000", "rx1", false),
                line("evt_r1_000000", "rx2", true), // rx1 wrote it, then was killed
                line("evt_r1_000001", "rx2", false),
                line("evt_r1_000001", "rx3", true), // rx2 was not killed
            ]
            .concat(),
        )
        .unwrap();
        let mut cfg = CheckConfig {
            expect,
            persisted: vec![log],
            crashed: vec!["rx1".into()],
            ..CheckConfig::default()
        };
        let r = check(&cfg).unwrap();
        assert_eq!(
            (r.exactly_once, r.missing, r.duplicated, r.processed_again),
            (2, 0, 0, 2)
        );
        assert_eq!(
            (r.processed_again_by_crash, r.processed_again_unexplained),
            (1, 1)
        );
        assert!(!r.ok);
        cfg.allow_duplicates = true;
        assert!(check(&cfg).unwrap().ok);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A writer killed between its record and its log line persisted the event: the record
    /// says so, and the retry that found it is explained by that writer's crash.
    #[test]
    fn records_are_what_was_persisted() {
        let dir = std::env::temp_dir().join(format!("xb-check-records-{}", std::process::id()));
        let records = dir.join("records");
        std::fs::create_dir_all(&records).unwrap();
        let expect = dir.join("expect");
        std::fs::write(&expect, "evt_r1_000000\nevt_r1_000001\n").unwrap();
        let record = |name: &str, id: &str, i: &str| {
            std::fs::write(
                records.join(name),
                format!("{{\"id\":\"{id}\",\"instance\":\"{i}\"}}\n"),
            )
            .unwrap();
        };
        record("a.json", "evt_r1_000000", "rx1"); // rx1 was killed before its log line
        record("b.json", "evt_r1_000001", "rx2");
        let log = dir.join("log.jsonl");
        std::fs::write(
            &log,
            "{\"id\":\"evt_r1_000000\",\"instance\":\"rx3\",\"again\":true}\n\
             {\"id\":\"evt_r1_000001\",\"instance\":\"rx2\"}\n",
        )
        .unwrap();
        let mut cfg = CheckConfig {
            expect,
            persisted: vec![log],
            crashed: vec!["rx1".into()],
            ..CheckConfig::default()
        };
        let without = check(&cfg).unwrap();
        assert_eq!(
            (without.missing, without.processed_again_unexplained),
            (1, 1)
        );
        // A temporary left by an instance killed mid-write (receivers link records into place).
        std::fs::write(records.join(".c.json.77-3.tmp"), "{\"id\":\"evt_r1_0").unwrap();
        cfg.records = Some(records);
        let r = check(&cfg).unwrap();
        assert_eq!(
            (r.exactly_once, r.missing, r.duplicated, r.malformed),
            (2, 0, 0, 0)
        );
        assert_eq!((r.processed_again, r.processed_again_by_crash), (1, 1));
        assert!(r.ok, "{}", r.table());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A later processing that claimed after the earlier one's lease ended and before it
    /// persisted took over an expired lease: counted so, and not a failure; one that claimed
    /// after the earlier one persisted found no completion: unexplained.
    #[test]
    fn a_takeover_after_a_lease_expiry_is_its_own_category() {
        let dir = std::env::temp_dir().join(format!("xb-check-lease-{}", std::process::id()));
        let records = dir.join("records");
        std::fs::create_dir_all(&records).unwrap();
        let expect = dir.join("expect");
        std::fs::write(&expect, "evt_r1_000000\nevt_r1_000001\nevt_r1_000002\n").unwrap();
        let line = |id: &str, i: &str, claimed: u64, at: u64, again: bool| {
            let a = if again { ",\"again\":true" } else { "" };
            format!(
                "{{\"id\":\"{id}\",\"instance\":\"{i}\",\"claimed_at_ms\":{claimed},\"lease_ms\":500,\"at_ms\":{at}{a}}}\n"
            )
        };
        // 0: rx1 claimed at 1000 and persisted at 2000 (slow); rx2 claimed at 1600, after the
        //    lease (1500), before rx1 persisted: a takeover.
        // 1: rx2 claimed at 2600, after rx1 persisted at 2000: the completion did not stick.
        // 2: rx2 claimed at 1200, within rx1's lease: unexplained too.
        let log = dir.join("log.jsonl");
        std::fs::write(
            &log,
            [
                line("evt_r1_000000", "rx1", 1000, 2000, false),
                line("evt_r1_000000", "rx2", 1600, 2600, false),
                line("evt_r1_000001", "rx1", 1000, 2000, false),
                line("evt_r1_000001", "rx2", 2600, 3600, false),
                line("evt_r1_000002", "rx1", 1000, 2000, false),
                line("evt_r1_000002", "rx2", 1200, 2200, false),
            ]
            .concat(),
        )
        .unwrap();
        let mut cfg = CheckConfig {
            expect: expect.clone(),
            persisted: vec![log.clone()],
            ..CheckConfig::default()
        };
        let r = check(&cfg).unwrap();
        assert_eq!(
            (
                r.duplicated,
                r.duplicated_after_lease,
                r.duplicated_unexplained
            ),
            (3, 1, 2)
        );
        assert!(!r.ok);
        assert!(
            r.table().contains("1 after a lease expiry"),
            "{}",
            r.table()
        );

        // With records: the record is the first writer's; the again lines are compared to it.
        for (name, id) in [("a.json", "evt_r1_000000"), ("b.json", "evt_r1_000001")] {
            std::fs::write(records.join(name), line(id, "rx1", 1000, 2000, false)).unwrap();
        }
        std::fs::write(
            records.join("c.json"),
            line("evt_r1_000002", "rx1", 1000, 2000, false),
        )
        .unwrap();
        std::fs::write(
            &log,
            [
                line("evt_r1_000000", "rx1", 1000, 2000, false),
                line("evt_r1_000000", "rx2", 1600, 2600, true),
                line("evt_r1_000001", "rx1", 1000, 2000, false),
                line("evt_r1_000002", "rx1", 1000, 2000, false),
            ]
            .concat(),
        )
        .unwrap();
        cfg.records = Some(records);
        let r = check(&cfg).unwrap();
        assert_eq!(
            (
                r.processed_again,
                r.processed_again_after_lease,
                r.processed_again_unexplained
            ),
            (1, 1, 0)
        );
        assert!(r.ok, "{}", r.table());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// An instance 5 minutes ahead whose claims are corrected is named, not failed; one whose
    /// claims carry its own clock is counted off the send times, per instance.
    #[test]
    fn clocks_skewed_instances_and_claims_off_the_send_times() {
        let dir = std::env::temp_dir().join(format!("xb-check-clock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let expect = dir.join("expect");
        std::fs::write(&expect, "evt_r1_000000\nevt_r1_000001\nevt_r1_000002\n").unwrap();
        let attempts = dir.join("attempts.jsonl");
        std::fs::write(
            &attempts,
            "{\"id\":\"evt_r1_000000\",\"sent_ms\":10000,\"ended_ms\":10050,\"status\":503}\n\
             {\"id\":\"evt_r1_000000\",\"sent_ms\":12000,\"ended_ms\":12040,\"status\":200}\n\
             {\"id\":\"evt_r1_000001\",\"sent_ms\":10000,\"ended_ms\":10030,\"status\":200}\n\
             {\"id\":\"evt_r1_000002\",\"sent_ms\":10000,\"ended_ms\":10030,\"status\":200}\n",
        )
        .unwrap();
        let line = |id: &str, i: &str, claimed: u64, off: i64| {
            format!(
                "{{\"id\":\"{id}\",\"instance\":\"{i}\",\"claimed_at_ms\":{claimed},\"lease_ms\":2000,\"at_ms\":{claimed},\"clock_offset_ms\":{off}}}\n"
            )
        };
        let log = dir.join("log.jsonl");
        // 0: rx1 (5 min ahead, corrected) claimed within the second attempt (+150 ms: within a
        //    tenth of the lease); 1: rx2 on time; 2: rx3's claim carries its own clock.
        std::fs::write(
            &log,
            [
                line("evt_r1_000000", "rx1", 12_190, -300_000),
                line("evt_r1_000001", "rx2", 10_010, 3),
                line("evt_r1_000002", "rx3", 310_010, 0),
            ]
            .concat(),
        )
        .unwrap();
        let mut cfg = CheckConfig {
            expect,
            persisted: vec![log.clone()],
            ..CheckConfig::default()
        };
        let r = check(&cfg).unwrap();
        assert!(r.ok, "without --attempts: {}", r.table());
        assert_eq!(r.skewed_instances, ["rx1"]);
        assert_eq!(r.clock_offsets_ms.get("rx1"), Some(&-300_000));
        assert_eq!(r.claims_timed, 0);
        cfg.attempts = Some(attempts);
        let r = check(&cfg).unwrap();
        assert_eq!((r.claims_timed, r.claims_off_send_times), (3, 1));
        assert_eq!(r.claims_off_by_instance.get("rx3"), Some(&1));
        assert_eq!(r.claims_off_max_ms, 299_980);
        assert!(!r.ok);
        assert!(r.table().contains("1 of 3 claims"), "{}", r.table());
        // The same lines as --logs beside a table without clocks: read for the clocks only.
        let table = dir.join("table.jsonl");
        std::fs::write(
            &table,
            "{\"id\":\"evt_r1_000000\",\"instance\":\"rx1\"}\n\
             {\"id\":\"evt_r1_000001\",\"instance\":\"rx2\"}\n\
             {\"id\":\"evt_r1_000002\",\"instance\":\"rx3\"}\n",
        )
        .unwrap();
        cfg.persisted = vec![table];
        cfg.logs = vec![log];
        let r = check(&cfg).unwrap();
        assert_eq!((r.exactly_once, r.persisted_lines), (3, 3));
        assert_eq!((r.claims_timed, r.claims_off_send_times), (3, 1));
        assert_eq!(r.skewed_instances, ["rx1"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
