//! Beneficiaries: `validateBeneficiary`, the `BeneficiaryValidator` class and `requiredFields`.

use serde_json::Value;
use wasm_bindgen::prelude::*;
use xborder_core::beneficiary::{self, BeneficiaryValidator, Validation, ValidationRules};

use crate::errors::coded;
use crate::json::{is_absent, is_well_formed, js_array, js_object, js_str, json_in, utf16_len};

#[wasm_bindgen(module = "/js/imports/beneficiary.js")]
extern "C" {
    /// `{valid, issues: [{path, code, message, label}]}` from every issue's texts written one
    /// after the other in `text`, `lengths` holding four numbers per issue (`validation_js`):
    /// one crossing for the whole answer.
    #[wasm_bindgen(js_name = makeValidation)]
    fn make_validation(valid: bool, text: &str, lengths: &[u32]) -> JsValue;
}

/// A server document as the caller gave it (`rules`, `banks.response`): `None` when absent
/// (`undefined` or `null`); a JS string is the response text, handed to core as a JSON string,
/// which core parses once (`ValidationRules::from_value` / `BankList::from_value` read a
/// `Value::String` as the text); any other value is its JSON document. A string that is not
/// well-formed UTF-16 (a lone surrogate: no UTF-8 text has one) takes the tape, which refuses it
/// with `MALFORMED_JSON`, as in any other JS value.
fn document_in(v: &JsValue) -> Result<Option<Value>, JsValue> {
    if is_absent(v) {
        return Ok(None);
    }
    if let Some(text) = v.as_string().filter(|_| is_well_formed(v)) {
        return Ok(Some(Value::String(text)));
    }
    json_in(v).map(Some)
}

/// Core's validator over the documents as given (`BeneficiaryValidator::from_documents`):
/// `banks_country` and `banks` are the bank list's `country` and `response`, which the glue
/// checked by kind (`banks.country` a string when there).
fn validator_of(
    rules: &JsValue,
    banks_country: Option<String>,
    banks: &JsValue,
) -> Result<BeneficiaryValidator, JsValue> {
    let rules = document_in(rules)?;
    let banks = document_in(banks)?;
    Ok(BeneficiaryValidator::from_documents(
        rules.as_ref(),
        banks_country.as_deref(),
        banks.as_ref(),
    ))
}

/// `{valid, issues: [{path, code, message, label}]}`, made by the glue in one call
/// (`makeValidation`): each issue's path, code, message and label (when it has one) one after
/// the other in `text`; `lengths` holds four numbers per issue, the lengths in UTF-16 units of
/// the path, the code and the message, and the label's plus one (0: no label, `null`).
fn validation_js(v: &Validation) -> JsValue {
    let mut text = String::new();
    let mut lengths = Vec::with_capacity(4 * v.issues.len());
    for issue in &v.issues {
        let label = issue.label.as_deref();
        let texts = [
            Some(issue.path.as_str()),
            Some(issue.code.as_str()),
            Some(&issue.message),
            label,
        ];
        for (i, s) in texts.into_iter().enumerate() {
            let Some(s) = s else {
                lengths.push(0);
                continue;
            };
            text.push_str(s);
            let n = u32::try_from(utf16_len(s)).unwrap_or(u32::MAX);
            lengths.push(if i == 3 { n.saturating_add(1) } else { n });
        }
    }
    make_validation(v.valid(), &text, &lengths)
}

/// `beneficiary.validate`: `{valid, issues}`, every issue. `rules` and `banks` (the bank list's
/// `response`, asked for `banks_country`) as `document_in` reads them; one that cannot be read
/// is an issue (`RULES_UNREADABLE`, `BANKS_UNREADABLE` at path `""`).
#[wasm_bindgen(js_name = validateBeneficiary)]
pub fn validate_beneficiary(
    draft: JsValue,
    rules: JsValue,
    banks_country: Option<String>,
    banks: JsValue,
) -> Result<JsValue, JsValue> {
    let draft = json_in(&draft)?;
    let validator = validator_of(&rules, banks_country, &banks)?;
    Ok(validation_js(&validator.validate(&draft)))
}

/// A rules document and a bank list read once (core's `BeneficiaryValidator`), to validate many
/// drafts against, only the draft crossing per call.
#[wasm_bindgen(js_name = BeneficiaryValidator)]
pub struct WasmBeneficiaryValidator {
    inner: BeneficiaryValidator,
}

#[wasm_bindgen(js_class = BeneficiaryValidator)]
impl WasmBeneficiaryValidator {
    /// Reads the rules document and the bank list (either may be absent), as
    /// `validateBeneficiary` does on every call.
    #[wasm_bindgen(constructor)]
    pub fn new(
        rules: JsValue,
        banks_country: Option<String>,
        banks: JsValue,
    ) -> Result<WasmBeneficiaryValidator, JsValue> {
        Ok(WasmBeneficiaryValidator {
            inner: validator_of(&rules, banks_country, &banks)?,
        })
    }

    /// `{valid, issues}` of one draft: the answer `validateBeneficiary(draft, rules, banks)`
    /// gives.
    pub fn validate(&self, draft: JsValue) -> Result<JsValue, JsValue> {
        let draft = json_in(&draft)?;
        Ok(validation_js(&self.inner.validate(&draft)))
    }
}

/// The fields a form must ask for: `[{path, description, source}]`, parents before children.
/// Throws `RULES_UNREADABLE` (core's sentence saying what to pass) when the rules document was
/// given and cannot be read: a form cannot be built from it.
#[wasm_bindgen(js_name = requiredFields)]
pub fn required_fields(
    rules: JsValue,
    payment_type: &str,
    country: &str,
) -> Result<JsValue, JsValue> {
    // A document whose JSON is `null` (a `toJSON` answering null) is not given, as in
    // `BeneficiaryValidator::from_documents`.
    let rules = match document_in(&rules)? {
        Some(v) if !v.is_null() => Some(ValidationRules::from_value(&v).map_err(|e| coded(&e))?),
        _ => None,
    };
    let fields = beneficiary::required_fields(rules.as_ref(), payment_type, country);
    Ok(js_array(fields.iter().map(|f| {
        js_object(&[
            ("path", js_str(&f.path)),
            ("description", js_str(&f.description)),
            ("source", js_str(f.source.as_str())),
        ])
    })))
}
