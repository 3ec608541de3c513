//! Errors as JavaScript values: every xborder error is the glue's `XborderError` (`code`, `message`,
//! `field` where core names one), made from core's [`Coded`] trait in one place ([`coded`]).

use std::fmt::Display;

use wasm_bindgen::prelude::*;
use xborder_core::codes::Coded;

#[wasm_bindgen(module = "/js/imports/errors.js")]
extern "C" {
    #[wasm_bindgen(js_name = xbError)]
    pub(crate) fn xb_error(
        code: &str,
        message: &str,
        field: Option<String>,
        rejected: JsValue,
    ) -> JsValue;
}

/// The `XborderError` of any core error: its code, its English message and its field.
pub(crate) fn coded<E: Coded + ?Sized>(e: &E) -> JsValue {
    xb_error(
        e.code(),
        &e.to_string(),
        e.field().map(str::to_owned),
        JsValue::UNDEFINED,
    )
}

/// An `XborderError` with a code and message of the binding's own (no field).
pub(crate) fn error(code: &str, message: impl Display) -> JsValue {
    xb_error(code, &message.to_string(), None, JsValue::UNDEFINED)
}

#[cfg(any(feature = "webhooks", feature = "pagination"))]
pub(crate) fn type_error(message: &str) -> JsValue {
    js_sys::TypeError::new(message).into()
}

#[cfg(test)]
mod tests {
    /// The SCREAMING_SNAKE string literals of the `.d.ts` type `name` (up to its `;`), following
    /// the other code types it names.
    fn dts_codes(dts: &str, name: &str) -> std::collections::BTreeSet<String> {
        let start = dts
            .find(&format!("export type {name} ="))
            .unwrap_or_else(|| panic!("index.d.ts has no type {name}"));
        let decl = &dts[start..];
        let decl = &decl[..decl.find(';').unwrap()];
        let mut out = std::collections::BTreeSet::new();
        for part in decl.split(['|', '=']).map(str::trim).skip(1) {
            if let Some(code) = part.strip_prefix('"').and_then(|p| p.strip_suffix('"')) {
                out.insert(code.to_owned());
            } else if part.ends_with("Code") {
                out.extend(dts_codes(dts, part));
            }
        }
        out
    }

    /// The `.d.ts` code unions (`ErrorCode`, `IssueCode`, `DriftCode`) are core's lists: a code
    /// added to core fails this until the package declares it (or it is listed here as one JS
    /// cannot meet).
    #[test]
    fn dts_codes_are_cores() {
        let dts = include_str!("../npm/index.d.ts");
        // Codes the npm package reports as an issue, never as a thrown error
        // (INVALID_ROUTING_NUMBER), or reports only in an answer: PERSIST_FAILED, the code of
        // handleDelivery's answer to a failed persist (typed beside ErrorCode in HandlingAnswer).
        let not_thrown_in_js = ["INVALID_ROUTING_NUMBER", "PERSIST_FAILED"];
        // Issue codes that are also thrown: `beneficiaryForm` refuses a form with core's
        // `FormError` (INVALID_VALUE with its field, RULES_MISMATCH, BANKS_MISMATCH beside
        // RULES_UNREADABLE and BANKS_UNREADABLE, which are in ERRORS).
        let form_errors = ["INVALID_VALUE", "RULES_MISMATCH", "BANKS_MISMATCH"];
        let mut core: std::collections::BTreeSet<String> = xborder_core::codes::ERRORS
            .iter()
            .filter(|c| !not_thrown_in_js.contains(c))
            .map(|c| (*c).to_owned())
            .collect();
        for code in form_errors {
            assert!(xborder_core::codes::ISSUES.contains(&code));
            core.insert(code.to_owned());
        }
        assert_eq!(dts_codes(dts, "ErrorCode"), core);
        let issues: std::collections::BTreeSet<String> = xborder_core::codes::ISSUES
            .iter()
            .map(|c| (*c).to_owned())
            .collect();
        assert_eq!(dts_codes(dts, "IssueCode"), issues);
        let drifts: std::collections::BTreeSet<String> = xborder_core::codes::DRIFTS
            .iter()
            .map(|c| (*c).to_owned())
            .collect();
        assert_eq!(dts_codes(dts, "DriftCode"), drifts);
    }

    /// The codes the glue reports itself (the module cannot be asked: it is not loaded, or the
    /// object's memory is gone) are core's constants.
    #[test]
    fn glue_codes_are_cores() {
        let glue = include_str!("../js/api/runtime.js");
        for (name, code) in [
            ("NOT_INITIALIZED", xborder_core::codes::NOT_INITIALIZED),
            ("FREED_CODE", xborder_core::codes::FREED),
        ] {
            assert!(
                glue.contains(&format!("const {name} = '{code}';")),
                "js/api/runtime.js: {name}"
            );
            assert!(xborder_core::codes::ERRORS.contains(&code));
        }
    }
}
