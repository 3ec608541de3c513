//! [`StoreSteps`]: a [`Handling`] whose claim steps the host runs against its own store one
//! [`Need`] at a time (an async client, a coroutine, a database the binding cannot call): the
//! same order and replies as [`Handling::run`], with every store call in the host's hands.

use super::{Act, Handling, OutOfOrder};
use crate::claims::{ClaimError, ClaimTask, Entry, Need, Outcome};

/// What a [`StoreSteps`] needs next: a store call for the running claim step, or the
/// handling's own next act (claim, persist, complete, release: start them with
/// [`StoreSteps::begin`] or answer with [`StoreSteps::persisted`]; answer: the end).
///
/// ```
/// use xborder_core::handling::{Next, StoreSteps, Handling};
/// use xborder_core::{claims::ClaimRules, delivery::{Decision, ReceiveError}};
/// use xborder_core::signature::SignatureError;
/// let refused = Decision::Reject(ReceiveError::Signature(SignatureError::MissingSignature));
/// let steps = StoreSteps::new(Handling::new(refused, ClaimRules::default(), "t"));
/// assert!(matches!(steps.next(), Next::Act(a) if a.as_str() == "answer"));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Next<'h> {
    /// A store call for the claim step under way: [`Need::Load`] (then
    /// [`StoreSteps::loaded`]) or [`Need::CompareAndSet`] (then [`StoreSteps::swapped`]); a
    /// failed call is [`StoreSteps::store_failed`]. Never [`Need::Done`].
    Store(Need),
    /// The handling's next act.
    Act(Act<'h>),
}

/// A [`Handling`] driven need by need: [`begin`](StoreSteps::begin) the claim, complete or
/// release step the handling waits for at the host's time, answer each store [`Need`], report
/// the persist with [`persisted`](StoreSteps::persisted), until [`Act::Answer`].
///
/// ```
/// use xborder_core::claims::{ClaimRules, ClaimStore, MemoryClaims, Need};
/// use xborder_core::handling::{Act, Handling, Next, StoreSteps};
/// use xborder_core::{delivery::Receiver, signature::sign};
/// let body = br#"{"id":"evt_1","event":"order:created","entity":{"id":"o","type":"order"}}"#;
/// let rx = Receiver::new(&["k"], 10).unwrap();
/// let store = MemoryClaims::new(10); // stands for the host's own (awaited) store
/// let h = Handling::new(rx.receive(body, Some(sign(b"k", body).unwrap().as_str())), ClaimRules::default(), "t");
/// let mut steps = StoreSteps::new(h);
/// let mut at = 0;
/// let answer = loop {
///     let next = match steps.next() {
///         Next::Act(Act::Answer(a)) => break *a,
///         Next::Act(Act::Persist(_)) => steps.persisted(true),
///         Next::Act(_) => { at += 1; steps.begin(at) }
///         Next::Store(Need::Load { id, time }) => steps.loaded(store.load(&id, time).unwrap()),
///         Next::Store(Need::CompareAndSet { id, expected, new, time }) => {
///             let applied = store.compare_and_set(&id, expected.as_ref(), new.as_ref(), time).unwrap();
///             steps.swapped(applied)
///         }
///         Next::Store(_) => unreachable!(),
///         _ => unreachable!("Next is non_exhaustive"),
///     };
///     next.unwrap();
/// };
/// assert_eq!((answer.reply.status, answer.persisted), (200, true));
/// ```
#[derive(Debug, Clone)]
pub struct StoreSteps {
    handling: Handling,
    task: Option<ClaimTask>,
    need: Option<Need>,
}

impl StoreSteps {
    /// `handling`, its claim steps to be run by the host.
    ///
    /// ```
    /// use xborder_core::handling::{Handling, StoreSteps};
    /// use xborder_core::{claims::ClaimRules, delivery::{Decision, ReceiveError}};
    /// use xborder_core::signature::SignatureError;
    /// let d = Decision::Reject(ReceiveError::Signature(SignatureError::EmptySecret));
    /// assert!(StoreSteps::new(Handling::new(d, ClaimRules::default(), "t")).handling().answer().is_some());
    /// ```
    pub fn new(handling: Handling) -> StoreSteps {
        StoreSteps {
            handling,
            task: None,
            need: None,
        }
    }

    /// The handling (its decision, its answer once over).
    ///
    /// ```
    /// use xborder_core::handling::{Handling, StoreSteps};
    /// use xborder_core::{claims::ClaimRules, delivery::{Decision, ReceiveError}};
    /// use xborder_core::signature::SignatureError;
    /// let d = Decision::Reject(ReceiveError::Signature(SignatureError::EmptySecret));
    /// let steps = StoreSteps::new(Handling::new(d, ClaimRules::default(), "t"));
    /// assert_eq!(steps.handling().answer().unwrap().reply.status, 500);
    /// ```
    pub fn handling(&self) -> &Handling {
        &self.handling
    }

    /// What to do next: the running step's store call, or the handling's next act.
    ///
    /// ```
    /// use xborder_core::handling::{Next, StoreSteps, Handling};
    /// use xborder_core::{claims::{ClaimRules, Need}, delivery::Receiver, signature::sign};
    /// let body = br#"{"id":"evt_1","event":"order:created","entity":{"id":"o","type":"order"}}"#;
    /// let rx = Receiver::new(&["k"], 10).unwrap();
    /// let mut steps = StoreSteps::new(Handling::new(rx.receive(body, Some(sign(b"k", body).unwrap().as_str())), ClaimRules::default(), "t"));
    /// assert!(matches!(steps.next(), Next::Act(a) if a.as_str() == "claim"));
    /// steps.begin(5).unwrap();
    /// assert!(matches!(steps.next(), Next::Store(Need::Load { id, .. }) if id == "evt_1"));
    /// ```
    pub fn next(&self) -> Next<'_> {
        match &self.need {
            Some(need) => Next::Store(need.clone()),
            None => Next::Act(self.handling.next()),
        }
    }

    /// Starts the claim, complete or release step the handling waits for, at `at_ms` (the
    /// host's clock): its first store call (the load), or the act it led to when the step could
    /// not start. Refused ([`OutOfOrder`]) while a step runs, before a persist or after the
    /// answer.
    ///
    /// ```
    /// use xborder_core::handling::{Handling, StoreSteps};
    /// use xborder_core::{claims::ClaimRules, delivery::{Decision, ReceiveError}};
    /// use xborder_core::signature::SignatureError;
    /// let d = Decision::Reject(ReceiveError::Signature(SignatureError::EmptySecret));
    /// let mut steps = StoreSteps::new(Handling::new(d, ClaimRules::default(), "t"));
    /// assert_eq!(steps.begin(0).unwrap_err().expected, "answer");
    /// ```
    pub fn begin(&mut self, at_ms: u64) -> Result<Next<'_>, OutOfOrder> {
        let step = match (&self.need, self.handling.pending_step()) {
            (None, Some(step)) => step,
            _ => return Err(self.out_of_order("begin")),
        };
        match self.handling.task(step, at_ms) {
            Ok(mut task) => {
                self.need = Some(task.start());
                self.task = Some(task);
            }
            Err(e) => self.handling.feed(step, Err(e)),
        }
        Ok(self.next())
    }

    /// The entry the load found (`None`: none): the next store call, or the act the step led
    /// to. Refused unless a load was asked.
    ///
    /// ```
    /// use xborder_core::handling::{Next, StoreSteps, Handling};
    /// use xborder_core::{claims::{ClaimRules, Need}, delivery::Receiver, signature::sign};
    /// let body = br#"{"id":"evt_1","event":"order:created","entity":{"id":"o","type":"order"}}"#;
    /// let rx = Receiver::new(&["k"], 10).unwrap();
    /// let mut steps = StoreSteps::new(Handling::new(rx.receive(body, Some(sign(b"k", body).unwrap().as_str())), ClaimRules::default(), "t"));
    /// steps.begin(5).unwrap();
    /// assert!(matches!(steps.loaded(None).unwrap(), Next::Store(Need::CompareAndSet { .. })));
    /// ```
    pub fn loaded(&mut self, entry: Option<Entry>) -> Result<Next<'_>, OutOfOrder> {
        if !matches!(self.need, Some(Need::Load { .. })) {
            return Err(self.out_of_order("loaded"));
        }
        let result = match self.task.as_mut() {
            Some(task) => task.loaded(entry),
            None => return Err(self.out_of_order("loaded")),
        };
        Ok(self.went(result))
    }

    /// Whether the store applied the compare-and-set asked: the step's end (the act it led to)
    /// or, when another request changed the entry meanwhile, a new load. Refused unless a
    /// compare-and-set was asked.
    ///
    /// ```
    /// use xborder_core::handling::{Act, Next, StoreSteps, Handling};
    /// use xborder_core::{claims::ClaimRules, delivery::Receiver, signature::sign};
    /// let body = br#"{"id":"evt_1","event":"order:created","entity":{"id":"o","type":"order"}}"#;
    /// let rx = Receiver::new(&["k"], 10).unwrap();
    /// let mut steps = StoreSteps::new(Handling::new(rx.receive(body, Some(sign(b"k", body).unwrap().as_str())), ClaimRules::default(), "t"));
    /// steps.begin(5).unwrap();
    /// steps.loaded(None).unwrap();
    /// assert!(matches!(steps.swapped(true).unwrap(), Next::Act(Act::Persist(_))));
    /// ```
    pub fn swapped(&mut self, applied: bool) -> Result<Next<'_>, OutOfOrder> {
        if !matches!(self.need, Some(Need::CompareAndSet { .. })) {
            return Err(self.out_of_order("swapped"));
        }
        let result = match self.task.as_mut() {
            Some(task) => task.swapped(applied),
            None => return Err(self.out_of_order("swapped")),
        };
        Ok(self.went(result))
    }

    /// The store call asked failed (an IO error, a timeout, an answer the host could not read):
    /// the step ends with core's `STORE_UNAVAILABLE` carrying `message`, and the handling goes
    /// on from there (a failed claim is answered 503; a failed complete still 200). Refused
    /// unless a store call was asked.
    ///
    /// ```
    /// use xborder_core::handling::{Act, Next, StoreSteps, Handling};
    /// use xborder_core::{claims::ClaimRules, delivery::Receiver, signature::sign};
    /// let body = br#"{"id":"evt_1","event":"order:created","entity":{"id":"o","type":"order"}}"#;
    /// let rx = Receiver::new(&["k"], 10).unwrap();
    /// let mut steps = StoreSteps::new(Handling::new(rx.receive(body, Some(sign(b"k", body).unwrap().as_str())), ClaimRules::default(), "t"));
    /// steps.begin(5).unwrap();
    /// let Next::Act(Act::Answer(a)) = steps.store_failed("redis: timeout").unwrap() else { panic!() };
    /// assert_eq!((a.reply.status, a.code), (503, Some("STORE_UNAVAILABLE")));
    /// ```
    pub fn store_failed(&mut self, message: impl Into<String>) -> Result<Next<'_>, OutOfOrder> {
        let error = match (&self.need, self.task.as_mut()) {
            (Some(_), Some(task)) => task.failed(message),
            _ => return Err(self.out_of_order("store_failed")),
        };
        Ok(self.went(Err(error)))
    }

    /// Whether the host persisted the event (`false`: its write failed): on to the complete or
    /// release step ([`StoreSteps::begin`] it). Refused unless the handling waits for a persist.
    ///
    /// ```
    /// use xborder_core::handling::{Handling, StoreSteps};
    /// use xborder_core::{claims::ClaimRules, delivery::Receiver, signature::sign};
    /// let body = br#"{"id":"evt_1","event":"order:created","entity":{"id":"o","type":"order"}}"#;
    /// let rx = Receiver::new(&["k"], 10).unwrap();
    /// let mut steps = StoreSteps::new(Handling::new(rx.receive(body, Some(sign(b"k", body).unwrap().as_str())), ClaimRules::default(), "t"));
    /// assert_eq!(steps.persisted(true).unwrap_err().expected, "claim");
    /// ```
    pub fn persisted(&mut self, ok: bool) -> Result<Next<'_>, OutOfOrder> {
        if self.need.is_some() {
            return Err(self.out_of_order("persist"));
        }
        self.handling.persisted(ok)?;
        Ok(self.next())
    }

    /// (A handling [`in_transaction`](Handling::in_transaction).) Whether the host's commit
    /// succeeded: the answer, or on to the release step. Refused unless the handling waits for a
    /// commit.
    ///
    /// ```
    /// use xborder_core::handling::{Handling, StoreSteps};
    /// use xborder_core::{claims::ClaimRules, delivery::Receiver, signature::sign};
    /// let body = br#"{"id":"evt_1","event":"order:created","entity":{"id":"o","type":"order"}}"#;
    /// let rx = Receiver::new(&["k"], 10).unwrap();
    /// let h = Handling::new(rx.receive(body, Some(sign(b"k", body).unwrap().as_str())), ClaimRules::default(), "t");
    /// let mut steps = StoreSteps::new(h.in_transaction());
    /// assert_eq!(steps.committed(true).unwrap_err().expected, "claim");
    /// ```
    pub fn committed(&mut self, ok: bool) -> Result<Next<'_>, OutOfOrder> {
        if self.need.is_some() {
            return Err(self.out_of_order("commit"));
        }
        self.handling.committed(ok)?;
        Ok(self.next())
    }

    /// A task's answer: the next store call, or (the step over) its result fed to the handling.
    fn went(&mut self, result: Result<Need, ClaimError>) -> Next<'_> {
        let outcome: Result<Outcome, ClaimError> = match result {
            Ok(Need::Done(outcome)) => Ok(outcome),
            Ok(need) => {
                self.need = Some(need);
                return self.next();
            }
            Err(e) => Err(e),
        };
        self.need = None;
        self.task = None;
        if let Some(step) = self.handling.pending_step() {
            self.handling.feed(step, outcome);
        }
        self.next()
    }

    fn out_of_order(&self, got: &'static str) -> OutOfOrder {
        let expected = match &self.need {
            Some(Need::Load { .. }) => "loaded",
            Some(Need::CompareAndSet { .. }) => "swapped",
            _ => self.handling.next().as_str(),
        };
        OutOfOrder { expected, got }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::claims::{ClaimRules, ClaimStore, MemoryClaims};
    use crate::delivery::Receiver;
    use crate::signature::sign;

    const BODY: &[u8] =
        br#"{"id":"evt_1","event":"order:created","entity":{"id":"o1","type":"order"}}"#;

    fn steps(token: &str) -> StoreSteps {
        let rx = Receiver::new(&["k"], 10).unwrap();
        StoreSteps::new(Handling::new(
            rx.receive(BODY, Some(sign(b"k", BODY).unwrap().as_str())),
            ClaimRules::new(30_000),
            token,
        ))
    }

    /// Drives `s` against `store`, persisting with `persist`, answering every need.
    fn drive(mut s: StoreSteps, store: &MemoryClaims, persist: bool) -> super::super::Answer {
        for _ in 0..20 {
            let r = match s.next() {
                Next::Act(Act::Answer(a)) => return *a,
                Next::Act(Act::Persist(_)) => s.persisted(persist).map(|_| ()),
                Next::Act(_) => s.begin(7).map(|_| ()),
                Next::Store(Need::Load { id, time }) => {
                    s.loaded(store.load(&id, time).unwrap()).map(|_| ())
                }
                Next::Store(Need::CompareAndSet {
                    id,
                    expected,
                    new,
                    time,
                }) => {
                    let applied = store
                        .compare_and_set(&id, expected.as_ref(), new.as_ref(), time)
                        .unwrap();
                    s.swapped(applied).map(|_| ())
                }
                other => panic!("{other:?}"),
            };
            r.unwrap();
        }
        panic!("no answer in 20 rounds");
    }

    #[test]
    fn answers_as_run_does() {
        let store = MemoryClaims::new(10);
        let a = drive(steps("t1"), &store, false);
        assert_eq!((a.reply.status, a.code), (500, Some("PERSIST_FAILED")));
        let a = drive(steps("t2"), &store, true);
        assert_eq!(
            (a.reply.status, a.persisted, a.outcome),
            (200, true, Some(Outcome::Completed))
        );
        let a = drive(steps("t3"), &store, true);
        assert_eq!(
            (a.reply.status, a.persisted, a.outcome),
            (200, false, Some(Outcome::Duplicate))
        );
    }

    #[test]
    fn calls_out_of_order_are_refused_and_change_nothing() {
        let mut s = steps("t");
        assert_eq!(s.loaded(None).unwrap_err().expected, "claim");
        assert_eq!(s.swapped(true).unwrap_err().got, "swapped");
        assert!(s.store_failed("x").is_err());
        s.begin(1).unwrap();
        assert_eq!(s.begin(1).unwrap_err().expected, "loaded");
        assert_eq!(s.persisted(true).unwrap_err().expected, "loaded");
        assert_eq!(s.swapped(true).unwrap_err().expected, "loaded");
        assert!(matches!(
            s.loaded(None).unwrap(),
            Next::Store(Need::CompareAndSet { .. })
        ));
        assert_eq!(s.loaded(None).unwrap_err().expected, "swapped");
        // Another request took the id meanwhile: a new load, and then the claim is theirs.
        assert!(matches!(
            s.swapped(false).unwrap(),
            Next::Store(Need::Load { .. })
        ));
        let held = Entry::held("other", 1);
        match s.loaded(Some(held)).unwrap() {
            Next::Act(Act::Answer(a)) => assert_eq!(a.reply.status, 503),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn in_a_transaction_the_complete_runs_before_the_commit_and_a_failed_commit_releases() {
        let store = MemoryClaims::new(10);
        let mut s = StoreSteps::new(steps("t").handling().clone().in_transaction());
        let mut acts = Vec::new();
        let mut commit = true;
        for _ in 0..40 {
            let r = match s.next() {
                Next::Act(Act::Answer(a)) => {
                    acts.push(format!("answer:{}:{:?}", a.reply.status, a.code));
                    if commit {
                        // Once more, the commit failing: the claim is released, 500.
                        commit = false;
                        s = StoreSteps::new(steps("u").handling().clone().in_transaction());
                        continue;
                    }
                    break;
                }
                Next::Act(Act::Persist(_)) => s.persisted(true).map(|_| ()),
                Next::Act(Act::Commit { .. }) => {
                    acts.push("commit".into());
                    s.committed(commit).map(|_| ())
                }
                Next::Act(a) => {
                    acts.push(a.as_str().to_owned());
                    s.begin(3).map(|_| ())
                }
                Next::Store(Need::Load { id, time }) => {
                    s.loaded(store.load(&id, time).unwrap()).map(|_| ())
                }
                Next::Store(Need::CompareAndSet {
                    id,
                    expected,
                    new,
                    time,
                }) => s
                    .swapped(
                        store
                            .compare_and_set(&id, expected.as_ref(), new.as_ref(), time)
                            .unwrap(),
                    )
                    .map(|_| ()),
                other => panic!("{other:?}"),
            };
            r.unwrap();
        }
        assert_eq!(
            acts,
            [
                "claim",
                "complete",
                "commit",
                "answer:200:None",
                // The second delivery of evt_1 finds it done (the memory store kept the
                // first's completion): a duplicate, answered at once.
                "claim",
                "answer:200:None",
            ]
        );
    }

    #[test]
    fn a_failed_complete_is_still_answered_200() {
        let mut s = steps("t");
        s.begin(1).unwrap();
        s.loaded(None).unwrap();
        s.swapped(true).unwrap();
        s.persisted(true).unwrap();
        s.begin(2).unwrap();
        match s.store_failed("pg: gone").unwrap() {
            Next::Act(Act::Answer(a)) => {
                assert_eq!(
                    (a.reply.status, a.code, a.persisted),
                    (200, Some("STORE_UNAVAILABLE"), true)
                )
            }
            other => panic!("{other:?}"),
        }
    }
}
