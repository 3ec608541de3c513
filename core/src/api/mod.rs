//! The provider's API answers: an error answer read into its parts ([`ApiError`]) and what a
//! client may do next ([`Retry`]) (FORMAT.md `api.error`).
//!
//! The provider's own SDK retries 5xx on `POST` (so a timeout can create a beneficiary twice:
//! the API takes no idempotency key) and ignores the 429 body's `DETAILS.retryAfterMs`. Here a
//! 429 is retried after its delay, a 5xx on a request that may have taken effect is
//! [`Retry::CheckFirst`] (look it up before sending it again), and only a repeatable request is
//! retried blind.

mod error;
mod retry;

pub use error::ApiError;
pub use retry::Retry;
