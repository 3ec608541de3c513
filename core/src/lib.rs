//! # xborder-core
//!
//! The pure core of xborder: everything an integrator of the cross-border payments API would
//! otherwise hand-write in every app, written once. No IO, no bindings: the WASM and uniffi
//! crates only convert types around it.
//!
//! - [`events`]: the event catalog, classification, registration pre-check, matching.
//! - [`signature`]: `X-Webhook-Signature` signing and constant-time verification.
//! - [`envelope`]: decoding the webhook envelope from raw bytes, `entity.data` kept raw.
//! - [`delivery`]: the receiver (process / ignore / duplicate / reject) and dedupe stores.
//! - [`claims`]: claims on event ids shared by several instances (claim, complete, release),
//!   the built-in store and the interface a shared one (Redis, SQL) implements.
//! - [`beneficiary`]: beneficiary drafts checked before they are sent (fixed rules, the server's
//!   rules document, bank lists, routing numbers), and the fields a form asks for.
//! - [`pagination`]: list parameters and their query string (endpoint filters included), page
//!   facts, an all-pages walker that flags drift.
//! - [`MalformedJson`]: the error for a JSON input that is not JSON.
//! - [`codes`]: every code xborder reports, in one list the bindings are checked against.
//!
//! The repository's `ARCHITECTURE.md` maps the crate, its bindings and its tests.
//!
//! ```
//! use xborder_core::{delivery::Receiver, signature::sign};
//! let body = br#"{"id":"evt_1","event":"order:success","entity":{"id":"ord_1","type":"order","data":{}}}"#;
//! let mut rx = Receiver::new(&["whsec_k"], 10_000).unwrap();
//! let decision = rx.receive(body, Some(&sign(b"whsec_k", body).unwrap()));
//! assert_eq!(decision.action(), "process");
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod beneficiary;
pub mod claims;
pub mod codes;
mod countries;
pub mod delivery;
pub mod envelope;
pub mod events;
mod json;
pub mod pagination;
mod scan;
pub mod signature;
mod window;

pub use json::{MalformedJson, MAX_JSON_DEPTH};
