//! Beneficiaries: `validateBeneficiary`, the `BeneficiaryValidator` class (`validate`, `form`),
//! `beneficiaryForm`, `normalizeBeneficiary` and `requiredFields`.

use js_sys::{Array, Object, Reflect};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use xborder_core::beneficiary::{
    self, BeneficiaryValidator, FormField, FormInput, Validation, ValidationRules,
};

use crate::errors::coded;
use crate::json::{is_absent, is_well_formed, js_array, js_object, js_str, json_in, utf16_len};

#[wasm_bindgen(module = "/js/imports/beneficiary.js")]
extern "C" {
    /// `{valid, issues: [{path, code, message, label, reason?, params?}]}` from every issue's
    /// texts written one after the other in `text`, `lengths` holding eight numbers per issue
    /// (`validation_js`): one crossing for the whole answer.
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

    /// The fields of the form over these documents: what `beneficiaryForm` gives with them.
    pub fn form(
        &self,
        country: &str,
        payment_type: &str,
        owner_type: Option<String>,
    ) -> Result<JsValue, JsValue> {
        form_js(&self.inner, country, payment_type, owner_type.as_deref())
    }
}

/// Core's form (`BeneficiaryValidator::form`) as JS: `[{path, required, source, input,
/// options?, account?, length?, label}]` (`options` for a choice, `account` and `length` where
/// core names an account kind); core's refusal (`FormError`) thrown with its code and field.
fn form_js(
    validator: &BeneficiaryValidator,
    country: &str,
    payment_type: &str,
    owner_type: Option<&str>,
) -> Result<JsValue, JsValue> {
    let fields = validator
        .form(country, payment_type, owner_type)
        .map_err(|e| coded(&e))?;
    Ok(js_array(fields.iter().map(field_js)))
}

fn field_js(f: &FormField) -> JsValue {
    let mut pairs = vec![
        ("path", js_str(&f.path)),
        ("required", JsValue::from_bool(f.required)),
        ("source", js_str(f.source.as_str())),
        ("input", js_str(f.input.as_str())),
    ];
    if f.input == FormInput::Choice {
        let options = f
            .options
            .iter()
            .map(|o| js_object(&[("value", js_str(&o.value)), ("label", js_str(&o.label))]));
        pairs.push(("options", js_array(options)));
    }
    if let Some(kind) = f.account {
        pairs.push(("account", js_str(kind.as_str())));
    }
    if let Some((min, max)) = f.length() {
        let n = |x: u8| JsValue::from_f64(f64::from(x));
        pairs.push(("length", js_object(&[("min", n(min)), ("max", n(max))])));
    }
    pairs.push(("label", js_str(&f.label)));
    js_object(&pairs)
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
    rules: JsValue,
    banks_country: Option<String>,
    banks: JsValue,
) -> Result<JsValue, JsValue> {
    let validator = validator_of(&rules, banks_country, &banks)?;
    form_js(&validator, country, payment_type, owner_type.as_deref())
}

#[wasm_bindgen(module = "/js/imports/json.js")]
extern "C" {
    /// The value as plain JSON data (`JSON.parse(JSON.stringify(value))`): a new value.
    #[wasm_bindgen(js_name = plainJson, catch)]
    fn plain_json(value: &JsValue) -> Result<JsValue, JsValue>;
}

/// `beneficiary.normalize`: core's `normalize` of the draft, as a new JS value (the draft's plain
/// JSON data, keys in their order, with every string core changed written in).
#[wasm_bindgen(js_name = normalizeBeneficiary)]
pub fn normalize_beneficiary(draft: JsValue) -> Result<JsValue, JsValue> {
    let before = json_in(&draft)?;
    let after = beneficiary::normalize(before.clone());
    let out = plain_json(&draft)?;
    Ok(write_changes(&before, &after, out))
}

/// `js` (the plain data of `before`) with what differs in `after` written in: a string where a
/// string changed, any other difference as the whole value of `after` there.
fn write_changes(before: &Value, after: &Value, js: JsValue) -> JsValue {
    match (before, after) {
        _ if before == after => js,
        (Value::Object(b), Value::Object(a))
            if b.len() == a.len() && a.keys().all(|k| b.contains_key(k)) =>
        {
            for (k, new) in a {
                let key = JsValue::from_str(k);
                let old = Reflect::get(&js, &key).unwrap_or(JsValue::UNDEFINED);
                let v = b
                    .get(k)
                    .map_or_else(|| value_js(new), |b| write_changes(b, new, old));
                let _ = Reflect::set(&js, &key, &v);
            }
            js
        }
        (Value::Array(b), Value::Array(a)) if b.len() == a.len() => {
            for (i, (old, new)) in b.iter().zip(a).enumerate() {
                let at = u32::try_from(i).unwrap_or(u32::MAX);
                let item = Reflect::get_u32(&js, at).unwrap_or(JsValue::UNDEFINED);
                let _ = Reflect::set_u32(&js, at, &write_changes(old, new, item));
            }
            js
        }
        _ => value_js(after),
    }
}

/// A JSON value as a JS value (numbers as the doubles they were read from).
fn value_js(v: &Value) -> JsValue {
    match v {
        Value::Null => JsValue::NULL,
        Value::Bool(b) => JsValue::from_bool(*b),
        Value::Number(n) => JsValue::from_f64(n.as_f64().unwrap_or(0.0)),
        Value::String(s) => js_str(s),
        Value::Array(items) => items.iter().map(value_js).collect::<Array>().into(),
        Value::Object(map) => {
            let out = Object::new();
            for (k, x) in map {
                let _ = Reflect::set(&out, &JsValue::from_str(k), &value_js(x));
            }
            out.into()
        }
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
