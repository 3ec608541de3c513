//! # xborder-wasm
//!
//! The WebAssembly face of [`xborder_core`], published on npm as `xborder-wasm`. Conversion only:
//! every rule lives in the core; this crate turns JS values into core inputs and core results
//! into JS values, with JS naming (camelCase).
//!
//! - Every parameter is checked by kind in JavaScript before the call (`js/api/`, the public
//!   API over this crate, one module per concern): a wrong kind is a `TypeError` naming the parameter, never coerced. What
//!   reaches Rust is already of its Rust type: secrets as a list of strings, bodies as bytes (a
//!   string's UTF-8 encoding), counts as non-negative integers.
//! - JSON documents (drafts, rules, bank lists, list parameters, paginated responses) are JS
//!   values. JavaScript writes each as its JSON text (`JSON.stringify`: `toJSON` is honoured,
//!   `undefined` dropped, a lone surrogate escaped, non-finite numbers refused) and core's one
//!   JSON parser (`xborder_core::parse_json`, its scanner) reads it into the `serde_json::Value`
//!   serde_json would parse from that text, as every runtime reads its documents. A server
//!   document given as its response text (a rules document, a bank list: a JS string) is handed
//!   to core as that text; the envelope is read by the same scanner, and the only JSON written
//!   is the webhook registration body (strings).
//! - Errors are `XborderError` instances (`name`, `code`, `field`, `rejected` where they
//!   apply); validation results are plain objects.
//! - The signature header may be the host's header collection: the glue gathers its values,
//!   and core's `signature_header` picks the one to verify.
//! - A panic (none is expected) becomes an `XborderError` with code `INTERNAL_ERROR`, and the
//!   module is re-instantiated at once; the glue makes the objects made before again on their
//!   next call. The test hook that panics on purpose is in the `test-hooks` build only.
//!
//! One module per concern, as in core: `account` (account details as typed), `api` (the API's
//! error answers), `catch_up` (the walk of `GET /v1/external-events` and the recovery of what it
//! found), `events`, `signatures` (signatures, envelopes and
//! the receiver), `claims`, `handling` (one delivery from the decision to the answer), `beneficiary`, `pagination`; `errors` makes every error an
//! `XborderError` through core's `Coded` trait, `json` reads JS values as JSON documents. The
//! JavaScript each imports is `js/imports/<concern>.js`; the public API over it is `js/api/`.
//!
//! The cargo features `webhooks` (signatures, envelopes, the receiver, claims and webhook
//! registration), `events` (event names), `pagination` (list queries, the page walker) and `api`
//! (the API's error answers and the catch-up, with `pagination`) are on
//! by default: without them (`--no-default-features`) the crate is the forms module
//! (`xborder-wasm/forms`: beneficiaries only), for pages that render a beneficiary form.

mod account;
#[cfg(feature = "api")]
mod api;
mod beneficiary;
#[cfg(feature = "api")]
mod catch_up;
#[cfg(feature = "webhooks")]
mod claims;
mod errors;
#[cfg(feature = "events")]
mod events;
#[cfg(feature = "webhooks")]
mod handling;
mod json;
#[cfg(feature = "pagination")]
mod pagination;
#[cfg(feature = "webhooks")]
mod signatures;

use wasm_bindgen::prelude::*;

use crate::errors::error;

// ---------------------------------------------------------------------------------------------
// Panics

#[wasm_bindgen(start)]
fn start() {
    std::panic::set_hook(Box::new(|info| {
        // The instance is left in an unknown state: the next call gets a fresh one.
        wasm_bindgen::handler::schedule_reinit();
        wasm_bindgen::throw_val(error(
            xborder_core::codes::INTERNAL_ERROR,
            format!("{}: xborder-wasm hit a bug ({info}); the module was reset, objects created before (Receiver) must be created again", xborder_core::codes::INTERNAL_ERROR),
        ));
    }));
}

/// A call with no argument: after a panic, wasm-bindgen replaces the instance on the next call.
#[doc(hidden)]
#[wasm_bindgen(js_name = __xborderReset)]
pub fn reset() {}

/// For the package's own tests, in the `test-hooks` build only (never in the published module):
/// panics, to show the hook turns it into an `XborderError` and the package recovers.
#[cfg(feature = "test-hooks")]
#[doc(hidden)]
#[wasm_bindgen(js_name = __panicForTests)]
#[allow(clippy::panic)]
pub fn panic_for_tests() {
    panic!("deliberate panic for the panic-recovery test");
}

/// talc instead of std's dlmalloc: about 7 KB smaller in the module (no threads in this build).
#[cfg(all(not(target_feature = "atomics"), target_family = "wasm"))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
