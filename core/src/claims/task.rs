//! [`ClaimTask`]: one step driven by the host against its store, one [`Need`] at a time.

use super::store::StoreError;
use super::{
    AsyncClaimStore, ClaimError, ClaimRules, ClaimStore, Entry, IntoStep, Outcome, Step, StoreTime,
    Write, MAX_TIME_MS,
};

/// How many times [`Claims::step`](super::Claims::step) (or a [`ClaimTask`]) re-reads an
/// entry that another instance
/// changed between the load and the compare-and-set before it reports `STORE_UNAVAILABLE`.
pub const MAX_CONFLICTS: u32 = 16;

/// What a [`ClaimTask`] needs next from the store.
///
/// ```
/// use xborder_core::claims::{ClaimRules, ClaimTask, Need};
/// let mut t = ClaimTask::new(ClaimRules::new(10), "claim", "evt_1", "r1", 0).unwrap();
/// let Need::Load { id, time } = t.start() else { unreachable!() };
/// assert_eq!((id.as_str(), time.now_ms), ("evt_1", 0));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Need {
    /// Load the entry of `id`, then call [`ClaimTask::loaded`].
    Load {
        /// The event id.
        id: String,
        /// The step's time, for a store that counts expired entries as none.
        time: StoreTime,
    },
    /// Compare-and-set the entry of `id` (as [`ClaimStore::compare_and_set`]), then call
    /// [`ClaimTask::swapped`] with its answer.
    CompareAndSet {
        /// The event id.
        id: String,
        /// The entry it must still have (`None`: no entry).
        expected: Option<Entry>,
        /// The entry to write (`None`: remove it).
        new: Option<Entry>,
        /// The step's time, and how long the store may keep `new` (from then, and until when).
        time: StoreTime,
    },
    /// The step is over.
    Done(Outcome),
}

/// One step against a store the host reaches on its own terms (asynchronously, for
/// instance): the task says which load or compare-and-set it needs, the host does it and
/// hands the answer back, until [`Need::Done`]. All the deciding is the task's.
///
/// ```
/// use xborder_core::claims::{ClaimRules, ClaimTask, Entry, Need, Outcome};
/// let mut t = ClaimTask::new(ClaimRules::new(30_000), "complete", "evt_1", "r1", 40).unwrap();
/// let Need::Load { .. } = t.start() else { unreachable!() };
/// let need = t.loaded(Some(Entry::held("r1", 0))).unwrap();
/// assert!(matches!(need, Need::CompareAndSet { new: Some(Entry::Done { at: 40 }), .. }));
/// assert_eq!(t.swapped(true).unwrap(), Need::Done(Outcome::Completed));
/// ```
#[derive(Debug, Clone)]
pub struct ClaimTask {
    rules: ClaimRules,
    step: Step,
    id: String,
    token: String,
    at: u64,
    conflicts: u32,
    pending: Option<Outcome>,
}

impl ClaimTask {
    /// A step ([`Step::Claim`], [`Step::Complete`] or [`Step::Release`], or its text: see
    /// [`IntoStep`]) by `token` on `id` at `at` (host milliseconds, at most [`MAX_TIME_MS`]).
    /// `INVALID_STEP` names `do`, `id` or `token` when one is wrong.
    ///
    /// ```
    /// use xborder_core::claims::{ClaimRules, ClaimTask, Step};
    /// let e = ClaimTask::new(ClaimRules::new(10), Step::Claim, "", "r1", 0).unwrap_err();
    /// assert_eq!(e.field(), Some("id"));
    /// let e = ClaimTask::new(ClaimRules::new(10), "finish", "evt_1", "r1", 0).unwrap_err();
    /// assert_eq!(e.field(), Some("do"));
    /// ```
    pub fn new(
        rules: ClaimRules,
        step: impl IntoStep,
        id: &str,
        token: &str,
        at: u64,
    ) -> Result<ClaimTask, ClaimError> {
        let step = step.into_step()?;
        if id.is_empty() {
            return Err(ClaimError::InvalidStep { field: "id" });
        }
        if token.is_empty() {
            return Err(ClaimError::InvalidStep { field: "token" });
        }
        Ok(ClaimTask {
            rules,
            step,
            id: id.to_owned(),
            token: token.to_owned(),
            at: at.min(MAX_TIME_MS),
            conflicts: 0,
            pending: None,
        })
    }

    /// The first need: always the load of the id's entry.
    ///
    /// ```
    /// use xborder_core::claims::{ClaimRules, ClaimTask, Need};
    /// let mut t = ClaimTask::new(ClaimRules::new(10), "release", "e", "r", 0).unwrap();
    /// assert!(matches!(t.start(), Need::Load { .. }));
    /// ```
    pub fn start(&mut self) -> Need {
        self.pending = None;
        Need::Load {
            id: self.id.clone(),
            time: StoreTime::at(self.at),
        }
    }

    /// The loaded entry (`None`: no entry): the task decides, and needs either a
    /// compare-and-set or nothing more.
    ///
    /// ```
    /// use xborder_core::claims::{ClaimRules, ClaimTask, Need, Outcome};
    /// let mut t = ClaimTask::new(ClaimRules::new(10), "release", "e", "r", 0).unwrap();
    /// t.start();
    /// assert_eq!(t.loaded(None).unwrap(), Need::Done(Outcome::Stale));
    /// ```
    pub fn loaded(&mut self, entry: Option<Entry>) -> Result<Need, ClaimError> {
        let (outcome, write) = self
            .rules
            .decide(entry.as_ref(), self.step, &self.token, self.at);
        let new = match write {
            Write::Keep => return Ok(Need::Done(outcome)),
            Write::Put(e) => Some(e),
            Write::Remove => None,
        };
        self.pending = Some(outcome);
        let ttl_ms = new.as_ref().and_then(|e| self.rules.ttl_ms(e));
        Ok(Need::CompareAndSet {
            id: self.id.clone(),
            expected: entry,
            new,
            time: StoreTime::expiring(self.at, ttl_ms),
        })
    }

    /// The compare-and-set's answer: done when it was applied; otherwise another request
    /// changed the entry meanwhile, and the task loads it again (`STORE_UNAVAILABLE` after
    /// [`MAX_CONFLICTS`] such rounds, or when no compare-and-set was asked).
    ///
    /// ```
    /// use xborder_core::claims::{ClaimRules, ClaimTask, Need};
    /// let mut t = ClaimTask::new(ClaimRules::new(10), "claim", "e", "r", 0).unwrap();
    /// t.start();
    /// t.loaded(None).unwrap();
    /// assert!(matches!(t.swapped(false).unwrap(), Need::Load { .. }));
    /// ```
    pub fn swapped(&mut self, applied: bool) -> Result<Need, ClaimError> {
        let outcome = self.pending.take().ok_or_else(|| {
            ClaimError::Store(StoreError::new(
                "a compare-and-set answer without a request",
            ))
        })?;
        if applied {
            return Ok(Need::Done(outcome));
        }
        self.conflicts += 1;
        if self.conflicts >= MAX_CONFLICTS {
            return Err(ClaimError::Store(StoreError::new(
                "the entry kept changing under concurrent requests",
            )));
        }
        Ok(self.start())
    }

    /// The store call the task asked for failed (an IO error, a timeout): the step ends with
    /// this error, `STORE_UNAVAILABLE` with the host's message. Hosts that drive the task
    /// themselves report a failed call through this, so the code is core's.
    ///
    /// ```
    /// use xborder_core::claims::{ClaimRules, ClaimTask};
    /// let mut t = ClaimTask::new(ClaimRules::new(10), "claim", "e", "r", 0).unwrap();
    /// t.start();
    /// let e = t.failed("redis: connection refused");
    /// assert_eq!(e.code(), "STORE_UNAVAILABLE");
    /// assert!(e.to_string().contains("connection refused"));
    /// ```
    pub fn failed(&mut self, message: impl Into<String>) -> ClaimError {
        self.pending = None;
        ClaimError::Store(StoreError::new(message))
    }

    /// Runs the task to its end against a synchronous store.
    ///
    /// ```
    /// use xborder_core::claims::{ClaimRules, ClaimTask, MemoryClaims, Outcome};
    /// let store = MemoryClaims::new(10);
    /// let t = ClaimTask::new(ClaimRules::new(10), "claim", "e", "r", 0).unwrap();
    /// assert_eq!(t.run(&store).unwrap(), Outcome::Claimed);
    /// ```
    pub fn run<S: ClaimStore + ?Sized>(mut self, store: &S) -> Result<Outcome, ClaimError> {
        let mut need = self.start();
        loop {
            need = match need {
                Need::Done(outcome) => return Ok(outcome),
                Need::Load { id, time } => self.loaded(store.load(&id, time)?)?,
                Need::CompareAndSet {
                    id,
                    expected,
                    new,
                    time,
                } => {
                    let applied =
                        store.compare_and_set(&id, expected.as_ref(), new.as_ref(), time)?;
                    self.swapped(applied)?
                }
            };
        }
    }

    /// [`ClaimTask::run`] against a store reached asynchronously: the same loads and
    /// compare-and-sets, awaited (`Send` when the store's futures are, as [`AsyncClaimStore`]
    /// asks).
    ///
    /// ```
    /// # use std::future::Future;
    /// use xborder_core::claims::{AsyncClaimStore, ClaimRules, ClaimStore, ClaimTask, Entry, MemoryClaims, Outcome, StoreTime};
    /// # use xborder_core::delivery::StoreError;
    /// struct Remote(MemoryClaims);
    /// impl AsyncClaimStore for Remote {
    ///     fn load(&self, id: &str, t: StoreTime) -> impl Future<Output = Result<Option<Entry>, StoreError>> + Send {
    ///         let a = self.0.load(id, t); async move { a }
    ///     }
    ///     fn compare_and_set(&self, id: &str, e: Option<&Entry>, n: Option<&Entry>, t: StoreTime)
    ///         -> impl Future<Output = Result<bool, StoreError>> + Send {
    ///         let a = self.0.compare_and_set(id, e, n, t); async move { a }
    ///     }
    /// }
    /// let store = Remote(MemoryClaims::new(10));
    /// let task = ClaimTask::new(ClaimRules::new(10), "claim", "e", "r", 0).unwrap();
    /// let step = task.run_async(&store); // awaited on the host's runtime: `step.await`
    /// # fn block_on<F: Future>(f: F) -> F::Output {
    /// #     use std::{pin::pin, sync::Arc, task::{Context, Poll, Wake, Waker}};
    /// #     struct W; impl Wake for W { fn wake(self: Arc<Self>) {} }
    /// #     let waker = Waker::from(Arc::new(W)); let mut cx = Context::from_waker(&waker);
    /// #     let mut f = pin!(f); loop { if let Poll::Ready(v) = f.as_mut().poll(&mut cx) { return v; } }
    /// # }
    /// assert_eq!(block_on(step).unwrap(), Outcome::Claimed);
    /// ```
    pub async fn run_async<S: AsyncClaimStore + ?Sized>(
        mut self,
        store: &S,
    ) -> Result<Outcome, ClaimError> {
        let mut need = self.start();
        loop {
            need = match need {
                Need::Done(outcome) => return Ok(outcome),
                Need::Load { id, time } => {
                    let entry = store.load(&id, time).await?;
                    self.loaded(entry)?
                }
                Need::CompareAndSet {
                    id,
                    expected,
                    new,
                    time,
                } => {
                    let applied = store
                        .compare_and_set(&id, expected.as_ref(), new.as_ref(), time)
                        .await?;
                    self.swapped(applied)?
                }
            };
        }
    }
}
