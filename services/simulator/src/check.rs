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
    r.ok = r.missing == 0
        && r.unexpected == 0
        && r.malformed == 0
        && (cfg.allow_duplicates || r.duplicated_unexplained == 0)
        && (cfg.allow_duplicates || r.processed_again_unexplained == 0);
    Ok(r)
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
}
