//! What a run sends: the events (their envelopes and signatures), the forged deliveries, and the
//! order of the jobs. Built from the seed alone, before anything is sent.

use bytes::Bytes;
use serde::Serialize;
use xborder_core::events::{classify, EventKind, LIVE_EVENTS};
use xborder_core::signature::Signer;

use crate::Config;

/// Event names the provider might add one day: not in core's catalog, so a receiver must
/// acknowledge them (2xx) and not persist them (payments-api.md, delivery rule 4).
pub const UNKNOWN_EVENTS: &[&str] = &[
    "order:teleported",
    "sender:levitated",
    "ubo:cloned",
    "beneficiary:quantum_verified",
    "fiat_deposit:evaporated",
    "payout:created",
];

/// The kinds of forged deliveries, in the order they are cycled through.
pub const FORGED_KINDS: &[&str] = &[
    "wrong_secret",
    "tampered_body",
    "missing_header",
    "malformed_header",
];

/// SplitMix64: small, fast, and the same sequence everywhere for a seed.
#[derive(Debug, Clone)]
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (0 when `n` is 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        // The remainder is below `n`, so it fits a usize.
        usize::try_from(self.next_u64() % n as u64).unwrap_or(0)
    }

    /// Uniform in `[0, 1)`.
    pub(crate) fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Exactly `k` (at most `n`) of `n` flags set, chosen uniformly.
    pub(crate) fn flags(&mut self, n: usize, k: usize) -> Vec<bool> {
        let mut idx: Vec<usize> = (0..n).collect();
        let k = k.min(n);
        for i in 0..k {
            let j = i + self.below(n - i);
            idx.swap(i, j);
        }
        let mut flags = vec![false; n];
        for i in idx.iter().take(k) {
            if let Some(f) = flags.get_mut(*i) {
                *f = true;
            }
        }
        flags
    }
}

/// The number of items a fraction of `n` asks for.
pub(crate) fn share(n: usize, fraction: f64) -> usize {
    if fraction.is_nan() || fraction <= 0.0 {
        return 0;
    }
    let k = (n as f64 * fraction.min(1.0)).round();
    // Bounded by n above.
    k as usize
}

/// One event the provider delivers.
#[derive(Debug)]
pub(crate) struct EventSpec {
    pub(crate) id: String,
    pub(crate) name: &'static str,
    /// In core's live catalog (a receiver persists it); otherwise unknown (acknowledged only).
    pub(crate) live: bool,
    pub(crate) body: Bytes,
    pub(crate) signature: String,
    /// Delivered again after it was acknowledged.
    pub(crate) duplicate: bool,
    /// Its first delivery is two deliveries at once.
    pub(crate) concurrent: bool,
}

/// One delivery that is not the provider's: it must be refused.
#[derive(Debug)]
pub(crate) struct ForgedSpec {
    pub(crate) id: String,
    pub(crate) kind: &'static str,
    pub(crate) body: Bytes,
    pub(crate) header: Option<String>,
}

/// One unit of work for a worker.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Job {
    /// An event's delivery (and its concurrent twin and duplicate, when it has them).
    Event(usize),
    /// A forged delivery.
    Forged(usize),
    /// An old event delivered again, after every event was sent once.
    Replay(usize),
}

#[derive(Debug)]
pub(crate) struct Plan {
    pub(crate) run_id: String,
    pub(crate) events: Vec<EventSpec>,
    pub(crate) forged: Vec<ForgedSpec>,
    pub(crate) jobs: Vec<Job>,
}

#[derive(Serialize)]
struct Envelope<'a> {
    id: &'a str,
    event: &'a str,
    entity: Entity<'a>,
}

#[derive(Serialize)]
struct Entity<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
    data: Data<'a>,
}

/// A plausible snapshot: fields that do not apply are omitted, never null (payments-api.md).
#[derive(Serialize)]
struct Data<'a> {
    id: &'a str,
    status: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    amount: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    currency: Option<&'a str>,
    #[serde(rename = "updatedAt")]
    updated_at: u64,
}

/// The envelope of `name` for event `id`, as payments-api.md shows it:
/// `{"id","event","entity":{"id","type","data"}}`, `entity.type` the name's family.
pub(crate) fn envelope(id: &str, name: &str, n: usize, rng: &mut Rng) -> Result<Vec<u8>, String> {
    let (family, action) = name.split_once(':').unwrap_or((name, ""));
    let entity_id = format!("{}_{:06}", family.get(..3).unwrap_or(family), n);
    let money = matches!(family, "order" | "fiat_deposit" | "stablecoin_deposit");
    let cents = rng.below(10_000_000);
    let env = Envelope {
        id,
        event: name,
        entity: Entity {
            id: &entity_id,
            kind: family,
            data: Data {
                id: &entity_id,
                status: action,
                amount: money.then(|| format!("{}.{:02}", cents / 100, cents % 100)),
                currency: money.then_some(if family == "stablecoin_deposit" {
                    "USDC"
                } else {
                    "USD"
                }),
                updated_at: 1_700_000_000_000 + n as u64,
            },
        },
    };
    serde_json::to_vec(&env).map_err(|e| format!("envelope: {e}"))
}

pub(crate) fn build(cfg: &Config, run_id: &str) -> Result<Plan, String> {
    let signer =
        Signer::new(cfg.secret.as_bytes()).map_err(|e| format!("--secret: {}", e.code()))?;
    let wrong = Signer::new(format!("{}_rotated_out", cfg.secret).as_bytes())
        .map_err(|e| format!("--secret: {}", e.code()))?;
    let mut rng = Rng::new(cfg.seed);
    let n = cfg.events;
    let unknown = rng.flags(n, share(n, cfg.unknown));
    let duplicate = rng.flags(n, share(n, cfg.duplicates));
    let concurrent = rng.flags(n, share(n, cfg.concurrent));
    let mut events = Vec::with_capacity(n);
    for i in 0..n {
        let is_unknown = unknown.get(i).copied().unwrap_or(false);
        let pool = if is_unknown {
            UNKNOWN_EVENTS
        } else {
            LIVE_EVENTS
        };
        let name = pool
            .get(rng.below(pool.len()))
            .copied()
            .unwrap_or("order:created");
        let id = format!("evt_{run_id}_{i:06}");
        let body = envelope(&id, name, i, &mut rng)?;
        events.push(EventSpec {
            signature: signer.sign(&body),
            body: Bytes::from(body),
            live: classify(name) == EventKind::Live,
            name,
            id,
            duplicate: duplicate.get(i).copied().unwrap_or(false),
            concurrent: concurrent.get(i).copied().unwrap_or(false),
        });
    }

    let mut forged = Vec::new();
    for k in 0..share(n.max(1), cfg.bad_signatures) {
        let kind = FORGED_KINDS
            .get(k % FORGED_KINDS.len())
            .copied()
            .unwrap_or("wrong_secret");
        let id = format!("evt_{run_id}_forged_{k:04}");
        let name = LIVE_EVENTS
            .get(rng.below(LIVE_EVENTS.len()))
            .copied()
            .unwrap_or("order:created");
        let body = envelope(&id, name, k, &mut rng)?;
        let good = signer.sign(&body);
        let (body, header) = match kind {
            "wrong_secret" => {
                let sig = wrong.sign(&body);
                (body, Some(sig))
            }
            "tampered_body" => {
                // The provider's signature of the original, over a body that says otherwise.
                let text =
                    String::from_utf8_lossy(&body).replacen("\"status\":\"", "\"status\":\"x", 1);
                (text.into_bytes(), Some(good))
            }
            "missing_header" => (body, None),
            _ => (body, Some(format!("sha256={good}"))),
        };
        forged.push(ForgedSpec {
            id,
            kind,
            body: Bytes::from(body),
            header,
        });
    }

    // Events in order, forged deliveries spread among them, then the replays of old ids.
    let mut keyed: Vec<(u64, Job)> = (0..n).map(|i| (i as u64 * 2 + 1, Job::Event(i))).collect();
    for k in 0..forged.len() {
        let at = rng.below(n.max(1)) as u64 * 2;
        keyed.push((at, Job::Forged(k)));
    }
    keyed.sort_by_key(|(k, _)| *k);
    let mut jobs: Vec<Job> = keyed.into_iter().map(|(_, j)| j).collect();
    let replays = if n == 0 { 0 } else { share(n, cfg.replays) };
    for _ in 0..replays {
        jobs.push(Job::Replay(rng.below(n)));
    }
    Ok(Plan {
        run_id: run_id.to_owned(),
        events,
        forged,
        jobs,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use xborder_core::delivery::Receiver;

    #[test]
    fn unknown_names_are_unknown_to_core() {
        for name in UNKNOWN_EVENTS {
            assert_eq!(classify(name), EventKind::Unknown, "{name}");
        }
    }

    #[test]
    fn plans_are_what_core_decides_they_are() {
        let cfg = Config {
            secret: "whsec_test".into(),
            events: 400,
            duplicates: 0.2,
            concurrent: 0.05,
            replays: 0.01,
            bad_signatures: 0.05,
            unknown: 0.1,
            ..Config::default()
        };
        let plan = build(&cfg, "t1").unwrap();
        let rx = Receiver::new(&["whsec_test"], 0).unwrap();
        assert_eq!(plan.events.len(), 400);
        assert_eq!(plan.events.iter().filter(|e| !e.live).count(), 40);
        assert_eq!(plan.events.iter().filter(|e| e.duplicate).count(), 80);
        assert_eq!(plan.events.iter().filter(|e| e.concurrent).count(), 20);
        assert_eq!(plan.forged.len(), 20);
        assert_eq!(
            plan.jobs
                .iter()
                .filter(|j| matches!(j, Job::Replay(_)))
                .count(),
            4
        );
        assert_eq!(plan.jobs.len(), 400 + 20 + 4);
        for e in &plan.events {
            let d = rx.receive(&e.body, Some(&e.signature));
            let want = if e.live { "process" } else { "ignore" };
            assert_eq!(d.action(), want, "{}", String::from_utf8_lossy(&e.body));
            let env = d.envelope().unwrap();
            assert_eq!((env.id(), env.event()), (e.id.as_str(), e.name));
        }
        let text = std::str::from_utf8(&plan.events[0].body).unwrap();
        assert!(
            text.starts_with(r#"{"id":"evt_t1_000000","event":""#),
            "{text}"
        );
        for f in &plan.forged {
            let d = rx.receive(&f.body, f.header.as_deref());
            assert_eq!(d.action(), "reject", "{}", f.kind);
        }
        // The same seed, the same plan.
        let again = build(&cfg, "t1").unwrap();
        assert_eq!(plan.events[7].body, again.events[7].body);
    }

    #[test]
    fn flags_and_shares_are_exact() {
        let mut r = Rng::new(3);
        assert_eq!(r.flags(10, 3).iter().filter(|f| **f).count(), 3);
        assert_eq!(r.flags(2, 5).iter().filter(|f| **f).count(), 2);
        assert_eq!(share(5000, 0.2), 1000);
        assert_eq!(share(5000, f64::NAN), 0);
        assert_eq!(share(5000, 7.0), 5000);
    }
}
