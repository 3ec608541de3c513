//! Beneficiaries: `validateBeneficiary`, the `BeneficiaryValidator` class (`validate`, `form`),
//! `beneficiaryForm`, `normalizeBeneficiary` and `requiredFields`.

use serde_json::Value;
use wasm_bindgen::prelude::*;
use xborder_core::beneficiary::{
    self, BeneficiaryValidator, FormField, FormInput, Validation, ValidationRules,
};

use crate::errors::coded;
use crate::json::{text_in, utf16_len, JsonOut};

#[wasm_bindgen(module = "/js/imports/beneficiary.js")]
extern "C" {
    /// `{valid, issues: [{path, code, message, label, reason?, params?}]}` from every issue's
    /// texts written one after the other in `text`, `lengths` holding eight numbers per issue
    /// (`validation_js`): one crossing for the whole answer.
    #[wasm_bindgen(js_name = makeValidation)]
    fn make_validation(valid: bool, text: &str, lengths: &[u32]) -> JsValue;
}

/// A server document as the caller gave it (`rules`, `banks.response`), as the JSON text of the
/// JS value (the glue's `jsonText`): `None` when absent (`undefined` or `null`, or a value whose
/// JSON is `null`); a JS string is the response text, its JSON a string, handed to core as
/// `Value::String`, which core parses once (`ValidationRules::from_value` /
/// `BankList::from_value` read it as the text); any other value is its JSON document.
fn document_in(text: Option<String>) -> Result<Option<Value>, JsValue> {
    match text {
        None => Ok(None),
        Some(t) => text_in(&t).map(|v| Some(v).filter(|v| !v.is_null())),
    }
}

/// Core's validator over the documents as given (`BeneficiaryValidator::from_documents`):
/// `banks_country` and `banks` are the bank list's `country` and `response`, which the glue
/// checked by kind (`banks.country` a string when there).
fn validator_of(
    rules: Option<String>,
    banks_country: Option<String>,
    banks: Option<String>,
) -> Result<BeneficiaryValidator, JsValue> {
    let rules = document_in(rules)?;
    let banks = document_in(banks)?;
    Ok(BeneficiaryValidator::from_documents(
        rules.as_ref(),
        banks_country.as_deref(),
        banks.as_ref(),
    ))
}

/// `{valid, issues: [{path, code, message, label, reason?, params?}]}`, made by the glue in one
/// call (`makeValidation`): each issue's path, code, message, label (when it has one), reason and
/// params' country (when there) one after the other in `text`; `lengths` holds eight numbers per
/// issue: the lengths in UTF-16 units of the path, the code and the message; the label's plus one
/// (0: no label, `null`); the reason's plus one (0: no reason, neither `reason` nor `params`);
/// `params.expected` and `params.actual` plus one (0: absent); the country's plus one (0: absent).
fn validation_js(v: &Validation) -> JsValue {
    let mut text = String::new();
    let mut lengths = Vec::with_capacity(8 * v.issues.len());
    let len = |s: &str| u32::try_from(utf16_len(s)).unwrap_or(u32::MAX);
    let plus_one = |n: Option<usize>| {
        n.map_or(0, |n| {
            u32::try_from(n).unwrap_or(u32::MAX - 1).saturating_add(1)
        })
    };
    for issue in &v.issues {
        for s in [issue.path.as_str(), issue.code.as_str(), &issue.message] {
            text.push_str(s);
            lengths.push(len(s));
        }
        let mut optional = |s: Option<&str>| match s {
            Some(s) => {
                text.push_str(s);
                lengths.push(len(s).saturating_add(1));
            }
            None => lengths.push(0),
        };
        optional(issue.label.as_deref());
        optional(issue.reason.map(beneficiary::Reason::as_str));
        let p = &issue.params;
        lengths.push(plus_one(p.expected));
        lengths.push(plus_one(p.actual));
        match &p.country {
            Some(c) => {
                text.push_str(c.as_str());
                lengths.push(len(c.as_str()).saturating_add(1));
            }
            None => lengths.push(0),
        }
    }
    make_validation(v.valid(), &text, &lengths)
}

/// `beneficiary.validate`: `{valid, issues}`, every issue. `rules` and `banks` (the bank list's
/// `response`, asked for `banks_country`) as `document_in` reads them; one that cannot be read
/// is an issue (`RULES_UNREADABLE`, `BANKS_UNREADABLE` at path `""`).
#[wasm_bindgen(js_name = validateBeneficiary)]
pub fn validate_beneficiary(
    draft: &str,
    rules: Option<String>,
    banks_country: Option<String>,
    banks: Option<String>,
) -> Result<JsValue, JsValue> {
    let draft = text_in(draft)?;
    let validator = validator_of(rules, banks_country, banks)?;
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
        rules: Option<String>,
        banks_country: Option<String>,
        banks: Option<String>,
    ) -> Result<WasmBeneficiaryValidator, JsValue> {
        Ok(WasmBeneficiaryValidator {
            inner: validator_of(rules, banks_country, banks)?,
        })
    }

    /// `{valid, issues}` of one draft: the answer `validateBeneficiary(draft, rules, banks)`
    /// gives.
    pub fn validate(&self, draft: &str) -> Result<JsValue, JsValue> {
        let draft = text_in(draft)?;
        Ok(validation_js(&self.inner.validate(&draft)))
    }

    /// The fields of the form over these documents: what `beneficiaryForm` gives with them.
    pub fn form(
        &self,
        country: &str,
        payment_type: &str,
        owner_type: Option<String>,
    ) -> Result<String, JsValue> {
        form_js(&self.inner, country, payment_type, owner_type.as_deref())
    }
}

/// Core's form (`BeneficiaryValidator::form`) as the JSON text of `[{path, required, source,
/// input, options?, account?, length?, label}]` (`options` for a choice, `account` and `length`
/// where core names an account kind), which the glue parses; core's refusal (`FormError`)
/// thrown with its code and field.
fn form_js(
    validator: &BeneficiaryValidator,
    country: &str,
    payment_type: &str,
    owner_type: Option<&str>,
) -> Result<String, JsValue> {
    let fields = validator
        .form(country, payment_type, owner_type)
        .map_err(|e| coded(&e))?;
    let mut out = JsonOut::default();
    out.array(&fields, field_js);
    Ok(out.text)
}

fn field_js(out: &mut JsonOut, f: &FormField) {
    out.open();
    out.key_str("path", &f.path);
    out.key("required");
    out.raw(if f.required { "true" } else { "false" });
    out.key_str("source", f.source.as_str());
    out.key_str("input", f.input.as_str());
    if f.input == FormInput::Choice {
        out.key("options");
        out.array(&f.options, |out, o| {
            out.open();
            out.key_str("value", &o.value);
            out.key_str("label", &o.label);
            out.close();
        });
    }
    if let Some(kind) = f.account {
        out.key_str("account", kind.as_str());
    }
    if let Some((min, max)) = f.length() {
        out.key("length");
        out.open();
        out.key("min");
        out.number(min.into());
        out.key("max");
        out.number(max.into());
        out.close();
    }
    out.key_str("label", &f.label);
    out.close();
}

/// `beneficiary.form`: the fields a form renders for `country`, `payment_type` and
/// `owner_type` (absent: any), over the rules document and bank list read as
/// `validateBeneficiary` reads them. Throws core's refusal: `INVALID_VALUE` (with `field`),
/// `RULES_UNREADABLE`, `RULES_MISMATCH`, `BANKS_UNREADABLE`, `BANKS_MISMATCH`.
#[wasm_bindgen(js_name = beneficiaryForm)]
pub fn beneficiary_form(
    country: &str,
    payment_type: &str,
    owner_type: Option<String>,
    rules: Option<String>,
    banks_country: Option<String>,
    banks: Option<String>,
) -> Result<String, JsValue> {
    let validator = validator_of(rules, banks_country, banks)?;
    form_js(&validator, country, payment_type, owner_type.as_deref())
}

/// `beneficiary.normalize`: what core's `normalize` changes in the draft (given as its JSON
/// text), as the JSON text of `{field: text}`: the `paymentInfo` fields core rewrote (account
/// details in electronic form; normalize changes nothing else), which the glue writes into a new
/// value of the draft's plain JSON data (keys in their order).
#[wasm_bindgen(js_name = normalizeBeneficiary)]
pub fn normalize_beneficiary(draft: &str) -> Result<String, JsValue> {
    let before = text_in(draft)?;
    let after = beneficiary::normalize(before.clone());
    let info = |v: &Value| v.get("paymentInfo").and_then(Value::as_object).cloned();
    let mut out = JsonOut::default();
    out.open();
    if let (Some(b), Some(a)) = (info(&before), info(&after)) {
        for (field, new) in &a {
            if let (Some(text), true) = (new.as_str(), b.get(field) != Some(new)) {
                out.key_str(field, text);
            }
        }
    }
    out.close();
    Ok(out.text)
}

/// The fields a form must ask for, as the JSON text of `[{path, description, source}]`, parents
/// before children. Throws `RULES_UNREADABLE` (core's sentence saying what to pass) when the rules
/// document was given and cannot be read: a form cannot be built from it.
#[wasm_bindgen(js_name = requiredFields)]
pub fn required_fields(
    rules: Option<String>,
    payment_type: &str,
    country: &str,
) -> Result<String, JsValue> {
    let rules = match document_in(rules)? {
        Some(v) => Some(ValidationRules::from_value(&v).map_err(|e| coded(&e))?),
        None => None,
    };
    let fields = beneficiary::required_fields(rules.as_ref(), payment_type, country);
    let mut out = JsonOut::default();
    out.array(&fields, |out, f| {
        out.open();
        out.key_str("path", &f.path);
        out.key_str("description", &f.description);
        out.key_str("source", f.source.as_str());
        out.close();
    });
    Ok(out.text)
}
