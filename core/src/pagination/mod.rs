//! List parameters, the paginated envelope, page facts and an all-pages walker.
//!
//! Every list endpoint takes `page` (0-based), `pageSize`, `sortBy`, `sortOrder` and `search`,
//! plus filters of its own (`status`, `event`, `email`, ...), and answers
//! `{data, total, page, pageSize}` (some answer `{data, total, hasNext}`, the api-keys list
//! `{data, meta: {total, page, pageSize}}`). Arithmetic is exact up to 2^53 − 1, the largest
//! integer every runtime holds exactly, and errors beyond. Nothing a caller passes is dropped
//! silently: an unknown parameter or an unusable filter is an error. Every walk ends, whatever
//! the server answers (drift `STALLED`).
//!
//! The module by concern: integers exact in every runtime ([`MAX_SAFE_INTEGER`]), errors
//! ([`PaginationError`]), list parameters ([`ListParams`], [`SortOrder`], [`request_of`]), the
//! facts of a page ([`PageInfo`], [`page_info`], [`page_info_of`]), and the walker
//! ([`PageWalker`], [`WalkStep`], [`Drift`]).

mod drift;
mod error;
mod numbers;
mod page;
mod params;
mod walker;

pub use drift::Drift;
pub use error::PaginationError;
pub use numbers::MAX_SAFE_INTEGER;
pub use page::{page_info, page_info_of, PageInfo};
pub use params::{request_of, ListParams, SortOrder};
pub use walker::{PageWalker, WalkStep};

#[cfg(test)]
mod tests;
