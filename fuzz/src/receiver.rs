// receiver_model: a structured scenario for delivery::Receiver.

use std::collections::VecDeque;

use arbitrary::{Arbitrary, Unstructured};
use xborder_core::delivery::{Decision, DedupeStore, ReceiveError, Receiver};
use xborder_core::envelope::EnvelopeError;
use xborder_core::signature::{self, SignatureError};

const ID_SPACE: u8 = 6;
const KEY_A: &str = "whsec_model_a";
const KEY_B: &str = "whsec_model_b";
/// (event, entity.type, live): live, planned, unknown, another live family, an entity mismatch.
const EVENTS: [(&str, &str, bool); 5] = [
    ("order:created", "order", true),
    ("order:refunded", "order", false),
    ("order:brand_new", "order", false),
    ("ubo:created", "ubo", true),
    ("order:success", "ubo", true),
];

/// How the delivery's signature or body reach the receiver.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum Tamper {
    /// As signed.
    None,
    /// Signature upper-cased (still valid).
    Uppercase,
    /// Signature with surrounding whitespace (still valid).
    Padded,
    /// One body byte changed after signing.
    FlipBody(u16),
    /// One signature digit changed.
    FlipSig(u8),
    /// Signed with a key the receiver does not hold.
    WrongKey,
    /// No header.
    Missing,
    /// Signature cut short.
    Truncate(u8),
    /// A byte appended to the body after signing.
    Append,
}

impl Tamper {
    fn is_tampered(self) -> bool {
        !matches!(self, Tamper::None | Tamper::Uppercase | Tamper::Padded)
    }
}

/// One delivery of the scenario.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub struct Delivery {
    /// `evt_<id % 6>`.
    pub id: u8,
    /// Index into the event table (mod 5).
    pub event: u8,
    /// Signed with the second key (only valid when the receiver rotates keys).
    pub second_key: bool,
    /// Pretty-printed body instead of compact (the id, not the bytes, is what dedupes).
    pub spaced: bool,
    /// What happens on the way.
    pub tamper: Tamper,
}

/// One step of the scenario.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum Op {
    /// Receive, persist and commit when it says process or ignore.
    Deliver(Delivery),
    /// Receive, then crash before persisting: no commit.
    Crash(Delivery),
    /// Commit an id directly (`evt_<id % 6>`).
    Commit(u8),
}

/// The whole scenario: a window of 0 to 4 ids, one or two keys, up to 64 steps.
#[derive(Debug, Clone, Arbitrary)]
pub struct Scenario {
    /// Window size, mod 5.
    pub window: u8,
    /// The receiver holds both keys (a rotation).
    pub rotate: bool,
    /// The steps.
    pub ops: Vec<Op>,
}

/// The reference: a FIFO of committed ids, oldest forgotten first, a re-commit a no-op.
struct Model {
    cap: usize,
    ring: VecDeque<String>,
}

impl Model {
    fn commit(&mut self, id: &str) {
        if self.cap == 0 || self.ring.iter().any(|x| x == id) {
            return;
        }
        if self.ring.len() >= self.cap {
            self.ring.pop_front();
        }
        self.ring.push_back(id.to_owned());
    }
    fn has(&self, id: &str) -> bool {
        self.ring.iter().any(|x| x == id)
    }
}

fn body_of(id: &str, d: &Delivery, seq: usize) -> Vec<u8> {
    let (event, entity, _) = EVENTS[usize::from(d.event) % EVENTS.len()];
    if d.spaced {
        format!("{{ \"id\": \"{id}\", \"event\": \"{event}\",\n  \"entity\": {{ \"id\": \"ent_{seq}\", \"type\": \"{entity}\", \"data\": {{ \"seq\": {seq} }} }} }}")
    } else {
        format!(r#"{{"id":"{id}","event":"{event}","entity":{{"id":"ent_{seq}","type":"{entity}","data":{{"seq":{seq}}}}}}}"#)
    }
    .into_bytes()
}

/// Drives `delivery::Receiver` through deliveries, commits and crashes over six ids and a window
/// of 0 to 4, against a model: a committed id still in the window is always `duplicate`, an id
/// never committed (or forgotten) never is; a tampered delivery is always `reject` with a
/// signature error; a valid one is `process` (live) or `ignore` (otherwise) when new; receiving
/// remembers nothing; the window's contents equal the model's after every step.
pub fn receiver_model(data: &[u8]) {
    if let Ok(scenario) = Scenario::arbitrary_take_rest(Unstructured::new(data)) {
        receiver_scenario(&scenario);
    }
}

/// [`receiver_model`] on a decoded scenario (the libFuzzer bin takes a `Scenario` directly, so
/// `cargo fuzz fmt receiver_model FILE` prints it; the bytes decode the same way in both).
pub fn receiver_scenario(scenario: &Scenario) {
    let keys: &[&str] = if scenario.rotate {
        &[KEY_A, KEY_B]
    } else {
        &[KEY_A]
    };
    let window = usize::from(scenario.window % 5);
    let rx = Receiver::new(keys, window).expect("non-empty keys");
    let mut model = Model {
        cap: window,
        ring: VecDeque::new(),
    };
    let ids: Vec<String> = (0..ID_SPACE).map(|n| format!("evt_{n}")).collect();

    for (seq, op) in scenario.ops.iter().take(64).enumerate() {
        let (d, commit) = match op {
            Op::Commit(n) => {
                let id = &ids[usize::from(n % ID_SPACE)];
                rx.commit(id).expect("MemoryWindow commit");
                model.commit(id);
                check_window(&rx, &model, &ids);
                continue;
            }
            Op::Deliver(d) => (d, true),
            Op::Crash(d) => (d, false),
        };
        let id = &ids[usize::from(d.id % ID_SPACE)];
        let (_, _, live) = EVENTS[usize::from(d.event) % EVENTS.len()];
        let mismatch = usize::from(d.event) % EVENTS.len() == 4;
        let mut body = body_of(id, d, seq);
        let key = if d.second_key { KEY_B } else { KEY_A };
        let unknown_key = d.second_key && !scenario.rotate;
        let mut sig = signature::sign(key.as_bytes(), &body).expect("non-empty key");
        let mut header = Some(sig.clone());
        match d.tamper {
            Tamper::None => {}
            Tamper::Uppercase => header = Some(sig.to_ascii_uppercase()),
            Tamper::Padded => header = Some(format!("\t {sig} \r\n")),
            Tamper::FlipBody(i) => {
                let at = usize::from(i) % body.len();
                body[at] ^= 0x01;
            }
            Tamper::FlipSig(i) => {
                let at = usize::from(i) % 64;
                let c = if sig.as_bytes()[at] == b'0' { "1" } else { "0" };
                sig.replace_range(at..=at, c);
                header = Some(sig.clone());
            }
            Tamper::WrongKey => {
                header = Some(signature::sign(b"whsec_not_held", &body).expect("non-empty key"))
            }
            Tamper::Missing => header = None,
            Tamper::Truncate(n) => header = Some(sig[..usize::from(n) % 64].to_owned()),
            Tamper::Append => body.push(b' '),
        }

        let decision = rx.receive(&body, header.as_deref());
        assert_eq!(
            decision,
            rx.receive(&body, header.as_deref()),
            "receive is not pure"
        );
        let what = format!(
            "step {seq}: {op:?} on {id} (window {window}, committed {:?})",
            model.ring
        );
        if d.tamper.is_tampered() || unknown_key {
            let Decision::Reject(ReceiveError::Signature(e)) = &decision else {
                panic!("a tampered delivery was not rejected: {decision:?}; {what}");
            };
            let want = match d.tamper {
                Tamper::Missing => SignatureError::MissingSignature,
                Tamper::Truncate(n) if n % 64 == 0 => SignatureError::MissingSignature,
                Tamper::Truncate(_) => SignatureError::MalformedSignature,
                _ => SignatureError::SignatureMismatch,
            };
            assert_eq!(*e, want, "{what}");
        } else if mismatch {
            assert!(
                matches!(
                    decision,
                    Decision::Reject(ReceiveError::Envelope(EnvelopeError::EntityMismatch { .. }))
                ),
                "an entity mismatch was not rejected: {decision:?}; {what}"
            );
        } else if model.has(id) {
            assert!(
                matches!(decision, Decision::Duplicate(_)),
                "a committed id in the window was not a duplicate: {decision:?}; {what}"
            );
        } else {
            assert!(
                !matches!(decision, Decision::Duplicate(_)),
                "an uncommitted (or forgotten) id was a duplicate: {decision:?}; {what}"
            );
            let want = if live { "process" } else { "ignore" };
            assert_eq!(decision.action(), want, "{what}");
        }
        if let Some(env) = decision.envelope() {
            assert_eq!(env.id(), id);
        }
        assert_eq!(decision.acknowledges(), decision.error().is_none());

        if commit && matches!(decision, Decision::Process(_) | Decision::Ignore(_)) {
            rx.commit(id).expect("MemoryWindow commit");
            model.commit(id);
        }
        check_window(&rx, &model, &ids);
    }
}

fn check_window(rx: &Receiver, model: &Model, ids: &[String]) {
    let store = rx.store();
    assert_eq!(
        store.len(),
        model.ring.len(),
        "window length; model {:?}",
        model.ring
    );
    assert!(store.len() <= store.capacity());
    for id in ids {
        assert_eq!(
            store.is_committed(id).expect("MemoryWindow lookup"),
            model.has(id),
            "is_committed({id}); model {:?}",
            model.ring
        );
    }
}
