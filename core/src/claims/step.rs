//! [`Step`]: what a request does to an id's claim, and [`IntoStep`], what the methods that
//! run a step take as one (a `Step` or its text).

use std::fmt;

use super::ClaimError;

/// What a request does to an id's claim.
///
/// ```
/// use xborder_core::claims::Step;
/// assert_eq!(Step::parse("release"), Some(Step::Release));
/// assert_eq!(Step::parse("Release"), None);
/// assert_eq!(Step::Claim.as_str(), "claim");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Take the id before processing it.
    Claim,
    /// The event is persisted: the id is done.
    Complete,
    /// Processing failed: give the id back so that a retry processes it.
    Release,
}

impl Step {
    /// Every step.
    ///
    /// ```
    /// assert_eq!(xborder_core::claims::Step::ALL.len(), 3);
    /// ```
    pub const ALL: &'static [Step] = &[Step::Claim, Step::Complete, Step::Release];

    /// The step named `text` (`claim`, `complete`, `release`; exact case).
    ///
    /// ```
    /// assert_eq!(xborder_core::claims::Step::parse("finish"), None);
    /// ```
    pub fn parse(text: &str) -> Option<Step> {
        Step::ALL.iter().copied().find(|s| s.as_str() == text)
    }

    /// Its text, the same in every xborder runtime.
    ///
    /// ```
    /// assert_eq!(xborder_core::claims::Step::Complete.as_str(), "complete");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Step::Claim => "claim",
            Step::Complete => "complete",
            Step::Release => "release",
        }
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Step {
    type Err = ClaimError;

    /// [`Step::parse`], with `INVALID_STEP` (field `do`) for a text that is not a step.
    ///
    /// ```
    /// use xborder_core::claims::Step;
    /// assert_eq!("claim".parse::<Step>().unwrap(), Step::Claim);
    /// assert_eq!("Claim".parse::<Step>().unwrap_err().code(), "INVALID_STEP");
    /// ```
    fn from_str(text: &str) -> Result<Step, ClaimError> {
        Step::parse(text).ok_or(ClaimError::InvalidStep { field: "do" })
    }
}

/// What [`Claims::step`](super::Claims::step), [`ClaimTask::new`](super::ClaimTask::new) (and
/// the `xborder-redis` crate's `step`) take as the
/// step: a [`Step`] (what Rust code passes), or its text (`"claim"`, `"complete"`, `"release"`,
/// as a host reads it from configuration or JSON, and as these methods took before `Step`),
/// refused with `INVALID_STEP` (field `do`) when it names no step.
///
/// ```
/// use xborder_core::claims::{IntoStep, Step};
/// assert_eq!(Step::Release.into_step().unwrap(), Step::Release);
/// assert_eq!("complete".into_step().unwrap(), Step::Complete);
/// assert_eq!(String::from("finish").into_step().unwrap_err().field(), Some("do"));
/// ```
pub trait IntoStep {
    /// The step, or `INVALID_STEP` (field `do`).
    ///
    /// ```
    /// use xborder_core::claims::IntoStep;
    /// assert_eq!("release".into_step().unwrap().as_str(), "release");
    /// ```
    fn into_step(self) -> Result<Step, ClaimError>;
}

impl IntoStep for Step {
    fn into_step(self) -> Result<Step, ClaimError> {
        Ok(self)
    }
}

impl IntoStep for &str {
    fn into_step(self) -> Result<Step, ClaimError> {
        self.parse()
    }
}

impl IntoStep for &String {
    fn into_step(self) -> Result<Step, ClaimError> {
        self.parse()
    }
}

impl IntoStep for String {
    fn into_step(self) -> Result<Step, ClaimError> {
        self.parse()
    }
}
