//! Catch-up: the events the provider dead-lettered, recovered from `GET /v1/external-events`
//! (FORMAT.md `events.catch_up`).
//!
//! After an outage longer than the provider's five attempts, a webhook event is dead-lettered:
//! no delivery will come. The provider keeps every event in `GET /v1/external-events`, a list
//! with no `since` filter, so a consumer walks it newest first down to its last checkpoint
//! ([`CatchUp`]), and feeds each event found, oldest first, to the same handling as a delivery
//! ([`Recovery`], [`Receiver::receive_recovered`](crate::delivery::Receiver::receive_recovered)).
//! It rests on one assumption: a record's `id` is the `id` its webhook envelope had (the
//! envelope's `id` is "stable across replays"), so the claims make an event the webhook path
//! already processed a `duplicate`. An outage longer than the provider keeps external events
//! loses what it dropped; the walk cannot tell (a checkpoint older than the oldest record kept
//! is only reported by the provider's own retention).
//!
//! The module by concern: the date-time of a record ([`timestamp_ms`]), a record read as an
//! event ([`ExternalEvent`]), the walk ([`CatchUp`], [`CatchUpDrift`], [`CatchUpError`]), a page
//! request's answer and its retries ([`CatchUp::answered`], [`Fetched`]), and the handling of
//! what it found ([`Recovery`], [`Tally`]).

mod answer;
mod drift;
mod error;
mod payload;
mod receive;
mod record;
mod recovery;
mod time;
mod walk;

pub use answer::Fetched;
pub use drift::CatchUpDrift;
pub use error::CatchUpError;
pub use record::ExternalEvent;
pub use recovery::{Recovery, Tally};
pub use time::{date_time, timestamp_ms};
pub use walk::CatchUp;

#[cfg(test)]
mod tests;
