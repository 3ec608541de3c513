#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(feature = "api")]
pub mod api;
pub mod beneficiary;
#[cfg(feature = "api")]
pub mod catch_up;
pub mod claims;
pub mod codes;
mod countries;
pub mod delivery;
mod digest;
pub mod envelope;
pub mod events;
pub mod handling;
mod json;
pub mod pagination;
mod scan;
#[cfg(feature = "serde")]
mod ser;
pub mod signature;
pub mod transport;
mod window;

pub use json::{parse_json, MalformedJson, MAX_JSON_DEPTH};
