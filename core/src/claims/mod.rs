//! Claims on event ids, shared by the instances of one consumer.
//!
//! The provider retries a delivery that was not answered 2xx, and it retries on a slow 2xx too,
//! so a delivery and its retry often arrive at two instances at once. Before processing, an
//! instance **claims** the event id with a token of its own request; it then persists the event
//! and **completes** the claim (or **releases** it when processing failed, so a retry can take
//! it). A second claim while the first is working is answered `in_progress` (answer non-2xx:
//! the provider retries later); a claim after completion is a `duplicate` (answer 2xx).
//!
//! The rules live here, once: [`ClaimRules::decide`] reads the stored [`Entry`] and says what to
//! write. A store only keeps entries and offers one atomic compare-and-set
//! ([`ClaimStore`]); [`MemoryClaims`] is the built-in one, a Redis or SQL store is a few lines
//! over [`Entry::encode`] / [`Entry::decode`]. [`Claims`] runs a step against a store
//! synchronously; a host whose store is asynchronous drives a [`ClaimTask`] instead (it asks for
//! one load or one compare-and-set at a time, and never blocks).
//!
//! ```
//! use xborder_core::claims::{ClaimRules, Claims, Outcome, Step};
//! let claims = Claims::in_memory(ClaimRules::new(30_000), 10_000);
//! assert_eq!(claims.step(Step::Claim, "evt_1", "req_a", 0).unwrap(), Outcome::Claimed);
//! assert_eq!(claims.step(Step::Claim, "evt_1", "req_b", 10).unwrap(), Outcome::InProgress);
//! assert_eq!(claims.step(Step::Complete, "evt_1", "req_a", 20).unwrap(), Outcome::Completed);
//! assert_eq!(claims.step(Step::Claim, "evt_1", "req_c", 900).unwrap(), Outcome::Duplicate);
//! ```
//!
//! The module by concern: steps ([`Step`], [`IntoStep`]) and their [`Outcome`]s, the replies to
//! the provider ([`Reply`], [`reply_to_code`]), errors ([`ClaimError`]), stored entries
//! ([`Entry`], [`Write`]), the rules ([`ClaimRules`]), the store interface ([`ClaimStore`], the times it is given: [`StoreTime`]) and
//! its Redis script ([`REDIS_COMPARE_AND_SET`]), the task a host drives ([`ClaimTask`],
//! [`Need`]), the synchronous runner ([`Claims`]) and the built-in store ([`MemoryClaims`]).

mod entry;
mod error;
mod memory;
mod outcome;
mod redis_script;
mod reply;
mod rules;
mod runner;
mod step;
pub(crate) mod store;
mod task;
mod time;

pub use entry::{Entry, Write};
pub use error::ClaimError;
pub use memory::MemoryClaims;
pub use outcome::Outcome;
pub use redis_script::REDIS_COMPARE_AND_SET;
pub use reply::{reply_to_code, Reply};
pub use rules::{ClaimRules, DEFAULT_LEASE_MS, DEFAULT_WINDOW_MS};
pub use runner::Claims;
pub use step::{IntoStep, Step};
pub use store::{AsyncClaimStore, ClaimStore};
pub use task::{ClaimTask, Need, MAX_CONFLICTS};
pub use time::{StoreTime, MAX_TIME_MS};

#[cfg(test)]
mod tests;
