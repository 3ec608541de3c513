//! `serde::Serialize` for the results a service returns as JSON (cargo feature `serde`): the
//! same shapes the npm package's objects have, keys in camelCase, texts as the stable codes.
//! Written by hand, one `impl` per type, so that a shape changes only here and with a test.
//!
//! Not enabled by the WASM bindings (the browser module carries no serializer of these).

use serde::ser::{Serialize, SerializeMap, SerializeStruct, Serializer};
use serde_json::value::RawValue;

use crate::beneficiary::{FieldSource, Issue, IssueCode, RequiredField, Validation};
use crate::claims::{ClaimError, Outcome, Reply, Step};
use crate::codes::Coded;
use crate::delivery::{Action, Decision, ReceiveError};
use crate::envelope::Envelope;
use crate::events::EventKind;
use crate::pagination::{Drift, PageInfo, WalkStep};

/// A type that serializes as its text (`as_str`).
macro_rules! as_text {
    ($($ty:ty),* $(,)?) => {$(
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
    )*};
}

as_text!(Action, EventKind, Outcome, Step, IssueCode, FieldSource);

/// `{code, message, field?}`: an error as a service answers it (`message` is its `Display`).
fn coded<S: Serializer>(e: &dyn Coded, s: S) -> Result<S::Ok, S::Error> {
    let field = e.field();
    let mut m = s.serialize_map(Some(2 + usize::from(field.is_some())))?;
    m.serialize_entry("code", e.code())?;
    m.serialize_entry("message", &e.to_string())?;
    if let Some(field) = field {
        m.serialize_entry("field", field)?;
    }
    m.end()
}

impl Serialize for ReceiveError {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        coded(self, s)
    }
}

impl Serialize for ClaimError {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        coded(self, s)
    }
}

impl Serialize for Reply {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Reply", 2)?;
        st.serialize_field("status", &self.status)?;
        st.serialize_field("retryAfter", &self.retry_after_s)?;
        st.end()
    }
}

impl Serialize for Envelope {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // `entity.data` as the raw JSON text it was sent as (serde_json writes it in place;
        // the decoder checked it is one JSON object).
        let data = self
            .raw_data()
            .map(serde_json::from_str::<&RawValue>)
            .transpose()
            .map_err(serde::ser::Error::custom)?;
        let mut m = s.serialize_map(Some(5 + usize::from(data.is_some())))?;
        m.serialize_entry("id", self.id())?;
        m.serialize_entry("event", self.event())?;
        m.serialize_entry("kind", &self.kind())?;
        m.serialize_entry("entityId", self.entity_id())?;
        m.serialize_entry("entityType", self.entity_type())?;
        if let Some(data) = data {
            m.serialize_entry("data", data)?;
        }
        m.end()
    }
}

impl Serialize for Decision {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("action", &self.action())?;
        if let Some(env) = self.envelope() {
            m.serialize_entry("envelope", env)?;
        }
        if let Some(e) = self.error() {
            m.serialize_entry("error", e)?;
        }
        m.serialize_entry("reply", &self.reply())?;
        m.end()
    }
}

impl Serialize for Issue {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Issue", 4)?;
        st.serialize_field("path", &self.path)?;
        st.serialize_field("code", &self.code)?;
        st.serialize_field("message", &*self.message)?;
        st.serialize_field("label", &self.label)?;
        st.end()
    }
}

impl Serialize for Validation {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Validation", 2)?;
        st.serialize_field("valid", &self.valid())?;
        st.serialize_field("issues", &self.issues)?;
        st.end()
    }
}

impl Serialize for RequiredField {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("RequiredField", 3)?;
        st.serialize_field("path", &self.path)?;
        st.serialize_field("description", &self.description)?;
        st.serialize_field("source", &self.source)?;
        st.end()
    }
}

impl Serialize for PageInfo {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("PageInfo", 10)?;
        st.serialize_field("total", &self.total)?;
        st.serialize_field("page", &self.page)?;
        st.serialize_field("pageSize", &self.page_size)?;
        st.serialize_field("totalPages", &self.total_pages)?;
        st.serialize_field("hasNext", &self.has_next)?;
        st.serialize_field("hasNextConflict", &self.has_next_conflict)?;
        st.serialize_field("hasPrevious", &self.has_previous)?;
        st.serialize_field("firstItem", &self.first_item)?;
        st.serialize_field("lastItem", &self.last_item)?;
        st.serialize_field("nextPage", &self.next_page)?;
        st.end()
    }
}

impl Serialize for Drift {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("code", self.code())?;
        match *self {
            Drift::TotalChanged { from, to } => {
                m.serialize_entry("from", &from)?;
                m.serialize_entry("to", &to)?;
            }
            Drift::RepeatedRecords { count } | Drift::PossiblySkipped { count } => {
                m.serialize_entry("count", &count)?;
            }
            Drift::HasNextConflict { has_next } => m.serialize_entry("hasNext", &has_next)?,
            Drift::Stalled => {}
        }
        m.end()
    }
}

impl Serialize for WalkStep {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("WalkStep", 3)?;
        st.serialize_field("fresh", &self.fresh)?;
        st.serialize_field("info", &self.info)?;
        st.serialize_field("drift", &self.drift)?;
        st.end()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use crate::beneficiary::{required_fields, BeneficiaryValidator};
    use crate::claims::{reply_to_code, ClaimError, ClaimRules, Claims, Outcome, Step};
    use crate::delivery::Receiver;
    use crate::pagination::{page_info, Drift, ListParams, PageWalker};
    use crate::signature::sign;

    fn to_json<T: serde::Serialize>(v: &T) -> Value {
        serde_json::to_value(v).unwrap()
    }

    #[test]
    fn decisions_and_envelopes_as_the_docs_show() {
        let rx = Receiver::new(&["whsec_k"], 10).unwrap();
        let body = br#"{"id":"evt_1","event":"order:success","entity":{"id":"ord_1","type":"order","data":{"amount":"10.00","n":1.50}}}"#;
        let d = rx.receive(body, Some(&sign(b"whsec_k", body).unwrap()));
        assert_eq!(
            to_json(&d),
            json!({"action": "process",
                   "envelope": {"id": "evt_1", "event": "order:success", "kind": "live",
                                "entityId": "ord_1", "entityType": "order",
                                "data": {"amount": "10.00", "n": 1.50}},
                   "reply": {"status": 200, "retryAfter": null}})
        );
        // `data` is the text as sent, not a re-serialized value (1.50 stays 1.50).
        let text = serde_json::to_string(d.envelope().unwrap()).unwrap();
        assert!(
            text.ends_with(r#""data":{"amount":"10.00","n":1.50}}"#),
            "{text}"
        );

        let no_data =
            br#"{"id":"evt_2","event":"order:planned_thing","entity":{"id":"o","type":"order"}}"#;
        let d = rx.receive(no_data, Some(&sign(b"whsec_k", no_data).unwrap()));
        assert_eq!(
            to_json(&d),
            json!({"action": "ignore",
                   "envelope": {"id": "evt_2", "event": "order:planned_thing", "kind": "unknown",
                                "entityId": "o", "entityType": "order"},
                   "reply": {"status": 200, "retryAfter": null}})
        );

        let d = rx.receive(body, Some(&"0".repeat(64)));
        assert_eq!(
            to_json(&d),
            json!({"action": "reject",
                   "error": {"code": "SIGNATURE_MISMATCH", "message": d.error().unwrap().to_string()},
                   "reply": {"status": 400, "retryAfter": null}})
        );
        let missing = br#"{"event":"order:success","entity":{"id":"o","type":"order"}}"#;
        let d = rx.receive(missing, Some(&sign(b"whsec_k", missing).unwrap()));
        assert_eq!(to_json(&d)["error"]["code"], "MISSING_FIELD");
        assert_eq!(to_json(&d)["error"]["field"], "id");
        assert_eq!(to_json(&d.action()), json!("reject"));
    }

    #[test]
    fn claims_results_as_the_docs_show() {
        let c = Claims::in_memory(ClaimRules::new(2_500), 10);
        let first = c.step(Step::Claim, "evt_1", "r1", 0).unwrap();
        let second = c.step(Step::Claim, "evt_1", "r2", 1).unwrap();
        assert_eq!(
            (to_json(&first), to_json(&second)),
            (json!("claimed"), json!("in_progress"))
        );
        assert_eq!(to_json(&Step::Complete), json!("complete"));
        let reply = c.rules().reply(Step::Claim, Outcome::InProgress).unwrap();
        assert_eq!(to_json(&reply), json!({"status": 503, "retryAfter": 3}));
        assert_eq!(
            to_json(&reply_to_code("BODY_TOO_LARGE")),
            json!({"status": 413, "retryAfter": null})
        );
        let e = ClaimError::InvalidStep { field: "token" };
        assert_eq!(
            to_json(&e),
            json!({"code": "INVALID_STEP", "message": "INVALID_STEP: token must not be empty", "field": "token"})
        );
    }

    #[test]
    fn validations_and_fields_as_the_docs_show() {
        let banks = json!({"data": [{"id": "bank_co_001", "name": "Bancolombia"}]});
        let form = BeneficiaryValidator::from_documents(None, Some("CO"), Some(&banks));
        let v = form.validate(
            &json!({"ownerType": "individual", "country": "CO", "paymentType": "bank_account",
            "firstName": "Ana", "lastName": "Gómez",
            "paymentInfo": {"bankId": "bank_co_404", "accountNumber": "04512345678"}}),
        );
        let issue = v
            .issues
            .iter()
            .find(|i| i.code.as_str() == "UNKNOWN_BANK")
            .unwrap();
        let got = to_json(&v);
        assert_eq!(got["valid"], json!(false));
        assert!(got["issues"].as_array().unwrap().contains(&json!({
            "path": "paymentInfo.bankId", "code": "UNKNOWN_BANK",
            "message": issue.message.as_ref(), "label": null})));
        assert_eq!(got["issues"].as_array().unwrap().len(), v.issues.len());
        assert_eq!(
            to_json(&crate::beneficiary::Validation::default()),
            json!({"valid": true, "issues": []})
        );

        let f = &required_fields(None, "bank_account", "US")[4];
        assert_eq!(
            to_json(f),
            json!({"path": "paymentInfo.routingNumber", "description": f.description, "source": "fixed"})
        );
    }

    #[test]
    fn page_facts_and_drift_as_the_docs_show() {
        let info = page_info(
            &json!({"data": [{"id": "a"}], "total": 11, "page": 0, "pageSize": 10}),
            None,
        )
        .unwrap();
        assert_eq!(
            to_json(&info),
            json!({"total": 11, "page": 0, "pageSize": 10, "totalPages": 2, "hasNext": true,
                   "hasNextConflict": false, "hasPrevious": false, "firstItem": 1, "lastItem": 1,
                   "nextPage": 1})
        );
        assert_eq!(
            to_json(&Drift::TotalChanged { from: 3, to: 4 }),
            json!({"code": "TOTAL_CHANGED", "from": 3, "to": 4})
        );
        assert_eq!(
            to_json(&Drift::RepeatedRecords { count: 2 }),
            json!({"code": "REPEATED_RECORDS", "count": 2})
        );
        assert_eq!(
            to_json(&Drift::PossiblySkipped { count: 1 }),
            json!({"code": "POSSIBLY_SKIPPED", "count": 1})
        );
        assert_eq!(
            to_json(&Drift::HasNextConflict { has_next: true }),
            json!({"code": "HAS_NEXT_CONFLICT", "hasNext": true})
        );
        assert_eq!(to_json(&Drift::Stalled), json!({"code": "STALLED"}));

        let mut w = PageWalker::new(ListParams::default());
        let step = w
            .feed(&json!({"data": [{"id": "a"}], "total": 1, "page": 0, "pageSize": 10}))
            .unwrap();
        let got = to_json(&step);
        assert_eq!(
            (got["fresh"].clone(), got["drift"].clone()),
            (json!([0]), json!([]))
        );
        assert_eq!(got["info"], to_json(&step.info));
    }
}
