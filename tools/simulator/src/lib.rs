//! # xborder-simulator
//!
//! The payments provider's webhook deliveries, simulated against your endpoint (like
//! `stripe trigger`, at volume). It builds envelopes exactly as payments-api.md shows them
//! (`{"id","event","entity":{"id","type","data"}}`, live names from core's catalog, unknown ones
//! such as `order:teleported`), signs them with [`xborder_core::signature`], and delivers them
//! under the provider's rule: a non-2xx or no answer is retried, up to 5 attempts in total
//! (the simulator's `DeliveryAttempts`, with core's
//! [`MAX_DELIVERY_ATTEMPTS`](xborder_core::delivery::MAX_DELIVERY_ATTEMPTS)), then the delivery
//! is dead-lettered. On top it injects what real deliveries bring:
//!
//! - **duplicates**: the same event delivered again after it was acknowledged;
//! - **concurrent redeliveries**: the same event sent twice at once (to two endpoints when
//!   several `--url`s are given: deliveries are spread over them in turn);
//! - **replays** of old ids, after every event was sent once;
//! - **bad signatures** (wrong key, tampered body, missing or malformed header): each must be
//!   refused, a 2xx on one is an error of the receiver;
//! - **unknown event names**: each must be acknowledged (and not persisted).
//!
//! What a receiver persists: every **live** event, once. Unknown events are acknowledged
//! without persisting (delivery rule 4: consumers ignore names they do not recognise), forged
//! ones are refused. `--expect PATH` writes the ids of the live events, one per line;
//! [`check::check`] (the `check` subcommand) compares them with the receivers' files.
//!
//! The provider also keeps every event in `GET /v1/external-events`, where a consumer recovers
//! what was dead-lettered (core's [`catch_up`](xborder_core::catch_up)): `send --external-events
//! PATH` writes every event it generates there as the provider's record ([`external`]), and the
//! `api` subcommand ([`api`]) serves that list over HTTP.
//!
//! [`slow::run`] (the `slow-body` subcommand) is an attacker instead: connections that trickle
//! their bodies a byte at a time, to see what a receiver does with them (loopback only).
#![forbid(unsafe_code)]

pub mod api;
mod args;
mod attempts;
pub mod check;
pub mod cli;
mod client;
pub mod external;
mod plan;
mod run;
pub mod slow;

pub use plan::{FORGED_KINDS, UNKNOWN_EVENTS};
pub use run::{
    retry_span_ms, run, signed_event, validate, Accepted, Answers, Config, DeadLetter, Latency,
    Progress, Redelivered, Summary,
};
