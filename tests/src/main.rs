//! The Rust runner of the conformance vectors (see `../shared/conformance/FORMAT.md` and
//! `tests/runners/CONTRACT.md`): every case is fed to xborder-core's public API and the result
//! compared with `expect`.
// A test runner: a malformed vector may panic the run (it fails, loudly); the workspace's
// no-panic lints are for the shipped crates. serde_json's `value["key"]` is indexing here.
#![allow(clippy::indexing_slicing)]

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use base64::Engine;
use serde_json::{json, Map, Value};
use xborder_core::api::ApiError;
use xborder_core::beneficiary::{
    check_account, normalize, AccountDetail, AccountParams, AccountState, BeneficiaryValidator,
    FormInput,
};
use xborder_core::catch_up::{CatchUp, CatchUpError};
use xborder_core::claims::{ClaimRules, ClaimStore, Claims, Entry, MemoryClaims, Need, StoreTime};
use xborder_core::delivery::{Decision, Receiver, StoreError, DEFAULT_WINDOW};
use xborder_core::envelope::Envelope;
use xborder_core::events::{Catalog, RegistrationError};
use xborder_core::handling::{Act, Answer, Handling, Next, StoreSteps};
use xborder_core::pagination::{page_info, request_of, ListParams, PageWalker};
use xborder_core::signature::{sign, verify};

/// A case that cannot be run (bad input shape): a failure with a reason.
type Outcome = Result<Value, String>;

/// One op's implementation in this runtime.
type OpFn = fn(&Value) -> Outcome;

fn body(input: &Value) -> Result<Vec<u8>, String> {
    if let Some(b) = input.get("body").and_then(Value::as_str) {
        return Ok(b.as_bytes().to_vec());
    }
    if let Some(b) = input.get("bodyBase64").and_then(Value::as_str) {
        return base64::engine::general_purpose::STANDARD
            .decode(b)
            .map_err(|e| format!("bodyBase64: {e}"));
    }
    Err("input has neither body nor bodyBase64".into())
}

fn strs(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn secrets(input: &Value) -> Vec<String> {
    match (
        input.get("secrets"),
        input.get("secret").and_then(Value::as_str),
    ) {
        (Some(list), _) => strs(Some(list)),
        (None, Some(s)) => vec![s.to_owned()],
        (None, None) => vec![],
    }
}

fn event_classify(input: &Value) -> Outcome {
    let name = input
        .get("name")
        .and_then(Value::as_str)
        .ok_or("name must be a string")?;
    let c = Catalog::builtin().classify_name(name);
    let mut out = json!({ "kind": c.kind.as_str() });
    if let Some(p) = c.parts {
        out["entity"] = json!(p.entity());
        out["action"] = json!(p.action());
    }
    Ok(out)
}

fn event_check_registration(input: &Value) -> Outcome {
    let events = strs(input.get("events"));
    let existing = match input.get("existingWebhooks") {
        None => 0,
        Some(v) => v
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or("existingWebhooks must be a count")?,
    };
    Ok(
        match Catalog::builtin().check_registration(&events, existing) {
            Ok(reg) => json!({ "ok": true, "events": reg.events() }),
            Err(e @ RegistrationError::ValidationFailed { .. }) => {
                let RegistrationError::ValidationFailed { rejected } = &e else {
                    unreachable!()
                };
                let rejected: Vec<Value> = rejected
                    .iter()
                    .map(|r| json!({ "event": r.event, "reason": r.reason.as_str() }))
                    .collect();
                json!({ "ok": false, "code": e.code(), "rejected": rejected })
            }
            Err(e) => json!({ "ok": false, "code": e.code() }),
        },
    )
}

fn event_matches(input: &Value) -> Outcome {
    let subs = strs(input.get("subscriptions"));
    let event = input
        .get("event")
        .and_then(Value::as_str)
        .ok_or("event must be a string")?;
    Ok(json!({ "matches": Catalog::builtin().matches(&subs, event) }))
}

fn signature_sign(input: &Value) -> Outcome {
    let secret = input.get("secret").and_then(Value::as_str).unwrap_or("");
    Ok(match sign(secret.as_bytes(), &body(input)?) {
        Ok(s) => json!({ "signature": s }),
        Err(e) => json!({ "ok": false, "error": e.code() }),
    })
}

fn signature_verify(input: &Value) -> Outcome {
    let header = input.get("signature").and_then(Value::as_str);
    Ok(match verify(&secrets(input), &body(input)?, header) {
        Ok(()) => json!({ "ok": true }),
        Err(e) => json!({ "ok": false, "error": e.code() }),
    })
}

fn envelope_json(env: &Envelope) -> Value {
    let mut out = json!({
        "ok": true, "id": env.id(), "event": env.event(), "kind": env.kind().as_str(),
        "entityId": env.entity_id(), "entityType": env.entity_type(),
    });
    if let Some(Ok(data)) = env.data_as::<Value>() {
        out["data"] = data;
    }
    out
}

fn envelope_decode(input: &Value) -> Outcome {
    Ok(match Envelope::decode(&body(input)?) {
        Ok(env) => envelope_json(&env),
        Err(e) => {
            let mut out = json!({ "ok": false, "error": e.code() });
            if let Some(f) = e.field() {
                out["field"] = json!(f);
            }
            out
        }
    })
}

fn webhook_receive(input: &Value) -> Outcome {
    let window = match input.get("window") {
        None => DEFAULT_WINDOW,
        Some(w) => w
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .ok_or("window must be a count")?,
    };
    let deliveries = input
        .get("deliveries")
        .and_then(Value::as_array)
        .ok_or("deliveries must be a list")?;
    let mut rx = match Receiver::new(&secrets(input), window) {
        Ok(rx) => Some(rx),
        Err(e) => {
            let decisions: Vec<Value> = deliveries
                .iter()
                .map(|_| json!({ "action": "reject", "error": e.code() }))
                .collect();
            return Ok(json!({ "decisions": decisions }));
        }
    };
    let mut decisions = Vec::new();
    for d in deliveries {
        let Some(rx) = rx.as_mut() else { break };
        let b = body(d)?;
        let decision = rx.receive(&b, d.get("signature").and_then(Value::as_str));
        let mut out = json!({ "action": decision.action().to_string() });
        if let Some(e) = decision.error() {
            out["error"] = json!(e.code());
        }
        let commit = d.get("commit").and_then(Value::as_bool).unwrap_or(true);
        if let (true, Decision::Process(env) | Decision::Ignore(env)) = (commit, &decision) {
            rx.commit(env.id()).map_err(|e| e.to_string())?;
        }
        decisions.push(out);
    }
    Ok(json!({ "decisions": decisions }))
}

fn beneficiary_validate(input: &Value) -> Outcome {
    let draft = input.get("draft").unwrap_or(&Value::Null);
    let banks = input.get("banks");
    let validator = BeneficiaryValidator::from_documents(
        input.get("rules"),
        banks.and_then(|b| b.get("country")).and_then(Value::as_str),
        banks.and_then(|b| b.get("response")),
    );
    let v = validator.validate(draft);
    let issues: Vec<Value> = v
        .issues
        .iter()
        .map(|i| {
            let mut issue = json!({
                "path": i.path,
                "code": i.code.as_str(),
                "message": i.message,
                "label": i.label,
            });
            if let Some(reason) = i.reason {
                issue["reason"] = json!(reason.as_str());
                issue["params"] = params_json(&i.params);
            }
            issue
        })
        .collect();
    Ok(json!({ "valid": v.valid(), "issues": issues }))
}

/// `params` as the wire has it: the figures present, `{}` when none.
fn params_json(p: &AccountParams) -> Value {
    let mut out = Map::new();
    if let Some(n) = p.expected {
        out.insert("expected".into(), json!(n));
    }
    if let Some(n) = p.actual {
        out.insert("actual".into(), json!(n));
    }
    if let Some(c) = p.country {
        out.insert("country".into(), json!(c.as_str()));
    }
    Value::Object(out)
}

fn beneficiary_form(input: &Value) -> Outcome {
    let banks = input.get("banks");
    let validator = BeneficiaryValidator::from_documents(
        input.get("rules"),
        banks.and_then(|b| b.get("country")).and_then(Value::as_str),
        banks.and_then(|b| b.get("response")),
    );
    let text = |k: &str| input.get(k).and_then(Value::as_str).unwrap_or("");
    // An owner type that is given and not a string is not a valid one.
    let owner = match input.get("ownerType") {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.as_str().unwrap_or("")),
    };
    let fields = match validator.form(text("country"), text("paymentType"), owner) {
        Ok(f) => f,
        Err(e) => return Ok(json!({ "ok": false, "error": e.code.as_str(), "field": e.field })),
    };
    let fields: Vec<Value> = fields
        .iter()
        .map(|f| {
            let options: Option<Vec<Value>> = (f.input == FormInput::Choice).then(|| {
                f.options
                    .iter()
                    .map(|o| json!({ "value": o.value, "label": o.label }))
                    .collect()
            });
            json!({
                "path": f.path,
                "required": f.required,
                "source": f.source.as_str(),
                "input": f.input.as_str(),
                "options": options,
                "account": f.account.map(AccountDetail::as_str),
                "length": f.length().map(|(min, max)| json!({ "min": min, "max": max })),
                "label": f.label,
            })
        })
        .collect();
    Ok(json!({ "fields": fields }))
}

fn beneficiary_normalize(input: &Value) -> Outcome {
    let draft = input.get("draft").cloned().unwrap_or(Value::Null);
    Ok(json!({ "draft": normalize(draft) }))
}

fn account_check(input: &Value) -> Outcome {
    let kind = input["kind"].as_str().ok_or("input.kind is not a string")?;
    let value = input["value"]
        .as_str()
        .ok_or("input.value is not a string")?;
    let kind: AccountDetail = match kind.parse() {
        Ok(k) => k,
        Err(e) => return Ok(json!({ "ok": false, "error": e.code() })),
    };
    let c = check_account(kind, value);
    let mut out = json!({
        "state": c.state.as_str(),
        "electronic": c.electronic,
        "display": c.display,
    });
    if let AccountState::Invalid(e) = c.state {
        out["code"] = json!(e.code());
        out["reason"] = json!(e.reason().as_str());
        out["params"] = params_json(&e.params());
    }
    Ok(out)
}

fn pagination_query(input: &Value) -> Outcome {
    Ok(match ListParams::from_value(input) {
        Ok(p) => json!({ "query": p.to_query() }),
        Err(e) => match e.field() {
            Some(field) => json!({ "ok": false, "error": e.code(), "field": field }),
            None => json!({ "ok": false, "error": e.code() }),
        },
    })
}

fn pagination_info(input: &Value) -> Outcome {
    let request = match input.get("request") {
        None | Some(Value::Null) => None,
        Some(r) => match request_of(r) {
            Ok(r) => Some(r),
            Err(e) => return Ok(json!({ "ok": false, "error": e.code() })),
        },
    };
    let response = input.get("response").unwrap_or(&Value::Null);
    Ok(match page_info(response, request) {
        Ok(i) => json!({
            "total": i.total, "page": i.page, "pageSize": i.page_size, "totalPages": i.total_pages,
            "hasNext": i.has_next, "hasNextConflict": i.has_next_conflict, "hasPrevious": i.has_previous, "firstItem": i.first_item,
            "lastItem": i.last_item, "nextPage": i.next_page,
        }),
        Err(e) => json!({ "ok": false, "error": e.code() }),
    })
}

/// The walk FORMAT.md's `pagination.walk` describes: ask for the next query, feed the next
/// page, until the walker is done or the pages run out.
fn pagination_walk(input: &Value) -> Outcome {
    let params = match input.get("request") {
        None | Some(Value::Null) => ListParams::default(),
        Some(r) => match ListParams::from_value(r) {
            Ok(p) => p,
            Err(e) => return Ok(json!({ "ok": false, "error": e.code() })),
        },
    };
    let pages = input
        .get("pages")
        .and_then(Value::as_array)
        .ok_or("pages must be a list")?;
    let mut walker = PageWalker::new(params);
    let (mut queries, mut records, mut drifts) =
        (vec![], vec![], std::collections::BTreeSet::new());
    let mut pages = pages.iter();
    let done = loop {
        let Some(request) = walker.next_request() else {
            break true;
        };
        let Some(page) = pages.next() else {
            break false;
        };
        match walker.feed(page) {
            Ok(step) => {
                queries.push(request.to_query());
                records.extend(
                    step.records(page)
                        .into_iter()
                        .map(|r| r.get("id").cloned().unwrap_or(Value::Null)),
                );
                drifts.extend(step.drift.iter().map(|d| d.code()));
            }
            Err(e) => return Ok(json!({ "ok": false, "error": e.code() })),
        }
    };
    Ok(json!({ "queries": queries, "records": records, "done": done, "drifts": drifts }))
}

/// FORMAT.md's `api.error`: an error answer read by core's [`ApiError`], from the parsed body or
/// the response text.
fn api_error(input: &Value) -> Outcome {
    let method = input
        .get("method")
        .and_then(Value::as_str)
        .ok_or("method must be a string")?;
    let status = input
        .get("status")
        .and_then(Value::as_u64)
        .and_then(|s| u16::try_from(s).ok())
        .ok_or("status must be an HTTP status")?;
    let headers: Vec<(&str, &str)> = input
        .get("headers")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| v.as_str().map(|v| (k.as_str(), v)))
        .collect();
    let e = match input.get("body") {
        Some(Value::String(text)) => ApiError::read_text(method, status, &headers, text),
        Some(Value::Null) | None => ApiError::read(method, status, &headers, None),
        Some(body) => ApiError::read(method, status, &headers, Some(body)),
    };
    Ok(json!({
        "code": e.code, "message": e.message, "details": e.details, "requestId": e.request_id,
        "retry": e.retry.as_str(), "afterMs": e.retry.after_ms(),
    }))
}

/// FORMAT.md's `events.catch_up`: core's [`CatchUp`] fed the vector's pages as `pagination.walk`
/// is, its events (oldest first), checkpoint and drifts.
fn events_catch_up(input: &Value) -> Outcome {
    let fail = |e: CatchUpError| Ok(json!({ "ok": false, "error": e.code() }));
    let since = match input.get("since") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.as_str()),
        Some(_) => return fail(CatchUpError::InvalidSince),
    };
    let mut c = match CatchUp::new(since) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    if let Some(o) = input.get("overlapMs") {
        c = match o
            .as_u64()
            .ok_or(CatchUpError::InvalidOverlap)
            .and_then(|o| c.overlap_ms(o))
        {
            Ok(c) => c,
            Err(e) => return fail(e),
        };
    }
    if let Some(p) = input.get("pageSize") {
        let size = p.as_u64().ok_or(CatchUpError::Page(
            xborder_core::pagination::PaginationError::InvalidPageSize,
        ));
        c = match size.and_then(|p| c.page_size(p)) {
            Ok(c) => c,
            Err(e) => return fail(e),
        };
    }
    let pages = input
        .get("pages")
        .and_then(Value::as_array)
        .ok_or("pages must be a list")?;
    let (mut queries, mut pages) = (vec![], pages.iter());
    let done = loop {
        let Some(request) = c.next_request() else {
            break true;
        };
        let Some(page) = pages.next() else {
            break false;
        };
        if let Err(e) = c.feed(page) {
            return fail(e);
        }
        queries.push(request.to_query());
    };
    let events: Vec<Value> = c
        .events()
        .map(|e| json!({"id": e.id(), "event": e.event(), "entityId": e.entity_id(), "entityType": e.entity_type()}))
        .collect();
    let drifts: std::collections::BTreeSet<&str> = c.drifts().iter().map(|d| d.code()).collect();
    Ok(
        json!({ "queries": queries, "events": events, "checkpoint": c.checkpoint(), "done": done, "drifts": drifts }),
    )
}

/// The runner's own store, written as a user writes one over SQL: entries kept as the text
/// [`Entry::encode`] gives, compared as text, each with the expiry core gives
/// (`time.expires_at_ms`); an entry whose expiry is at or before `time.now_ms` is no entry. It
/// computes no time of its own, so a wrong time from core shows here.
#[derive(Default)]
struct TextStore(std::sync::Mutex<std::collections::HashMap<String, (String, Option<u64>)>>);

/// The text of `id` live at `now_ms`.
fn live(
    map: &std::collections::HashMap<String, (String, Option<u64>)>,
    id: &str,
    now_ms: u64,
) -> Option<String> {
    map.get(id)
        .filter(|(_, expires)| expires.is_none_or(|e| e > now_ms))
        .map(|(text, _)| text.clone())
}

impl ClaimStore for TextStore {
    fn load(&self, id: &str, time: StoreTime) -> Result<Option<Entry>, StoreError> {
        let map = self.0.lock().map_err(|_| StoreError::new("poisoned"))?;
        live(&map, id, time.now_ms)
            .map(|t| Entry::decode(&t))
            .transpose()
    }
    fn compare_and_set(
        &self,
        id: &str,
        expected: Option<&Entry>,
        new: Option<&Entry>,
        time: StoreTime,
    ) -> Result<bool, StoreError> {
        let mut map = self.0.lock().map_err(|_| StoreError::new("poisoned"))?;
        if live(&map, id, time.now_ms) != expected.map(Entry::encode) {
            return Ok(false);
        }
        match new {
            Some(e) => map.insert(id.to_owned(), (e.encode(), time.expires_at_ms)),
            None => map.remove(id),
        };
        Ok(true)
    }
}

fn claim_steps<S: ClaimStore>(claims: &Claims<S>, steps: &[Value]) -> Result<Vec<String>, String> {
    steps
        .iter()
        .map(|s| {
            let text = |k: &str| {
                s.get(k)
                    .and_then(Value::as_str)
                    .ok_or(format!("step {k} must be a string"))
            };
            let at = s
                .get("at")
                .and_then(Value::as_u64)
                .ok_or("step at must be a count")?;
            Ok(
                match claims.step(text("do")?, text("id")?, text("token")?, at) {
                    Ok(o) => o.as_str().to_owned(),
                    Err(e) => e.code().to_owned(),
                },
            )
        })
        .collect()
}

/// Runs the steps twice, with the built-in store and with [`TextStore`] through the public
/// [`ClaimStore`] interface (FORMAT.md): both must give the expected results.
/// The claims' rules of a vector's input: `leaseMs`, and `windowMs` when given (without it, done
/// ids are duplicates for ever, FORMAT.md, not for the API's 7 days).
fn claim_rules_of(input: &Value) -> Result<ClaimRules, String> {
    let count = |k: &str| match input.get(k) {
        None => Ok(None),
        Some(v) => v.as_u64().map(Some).ok_or(format!("{k} must be a count")),
    };
    let rules = ClaimRules::new(count("leaseMs")?.ok_or("leaseMs is required")?);
    Ok(match count("windowMs")? {
        Some(w) => rules.with_window(w),
        None => rules.without_window(),
    })
}

fn delivery_claims(input: &Value) -> Outcome {
    let rules = claim_rules_of(input)?;
    let steps = input
        .get("steps")
        .and_then(Value::as_array)
        .ok_or("steps must be a list")?;
    let builtin = claim_steps(&Claims::in_memory(rules, DEFAULT_WINDOW), steps)?;
    let own = claim_steps(&Claims::with_store(rules, TextStore::default()), steps)?;
    if builtin != own {
        return Err(format!(
            "the built-in store gave {builtin:?}, the runner's own store {own:?}"
        ));
    }
    Ok(json!({ "results": builtin }))
}

/// `delivery.handle` (the project's op, tests/vectors/DECISIONS.md): deliveries of one receiver
/// (`secret`) and one claims store (`leaseMs`, `windowMs`), each a [`Handling`] advanced one act
/// per step (`{"go": name, "at": ms}`), its persist scripted (`"ok"` or `"fail"`). Each step's
/// act is written `name:act:result`; `answers` holds each finished delivery's answer. Run with
/// the built-in store and with [`TextStore`]: both must agree.
fn delivery_handle(input: &Value) -> Outcome {
    let rules = claim_rules_of(input)?;
    let builtin = handle_steps(input, &MemoryClaims::new(DEFAULT_WINDOW), rules)?;
    let own = handle_steps(input, &TextStore::default(), rules)?;
    if builtin != own {
        return Err(format!(
            "the built-in store gave {builtin}, the runner's own store {own}"
        ));
    }
    Ok(builtin)
}

fn answer_json(a: &Answer) -> Value {
    json!({
        "status": a.reply.status,
        "retryAfter": a.reply.retry_after_s,
        "outcome": a.outcome.map(|o| o.as_str()),
        "code": a.code,
        "persisted": a.persisted,
    })
}

/// Answers `steps`' store calls against `store` until the handling's next act (a claim step
/// ends within core's conflict limit).
fn run_store_calls<S: ClaimStore>(steps: &mut StoreSteps, store: &S) -> Result<(), String> {
    for _ in 0..64 {
        let need = match steps.next() {
            Next::Store(need) => need,
            _ => return Ok(()),
        };
        let went = match need {
            Need::Load { id, time } => match store.load(&id, time) {
                Ok(entry) => steps.loaded(entry),
                Err(e) => steps.store_failed(e.to_string()),
            },
            Need::CompareAndSet {
                id,
                expected,
                new,
                time,
            } => match store.compare_and_set(&id, expected.as_ref(), new.as_ref(), time) {
                Ok(applied) => steps.swapped(applied),
                Err(e) => steps.store_failed(e.to_string()),
            },
            other => return Err(format!("a store call this runner does not know: {other:?}")),
        };
        went.map_err(|e| e.to_string())?;
    }
    Err("a claim step that did not end".into())
}

/// Each `{go, at}` advances its delivery by one act, driving core's `StoreSteps` against
/// `store` (the host's loop every binding runs).
fn handle_steps<S: ClaimStore>(input: &Value, store: &S, rules: ClaimRules) -> Outcome {
    let secret = input
        .get("secret")
        .and_then(Value::as_str)
        .ok_or("secret must be a string")?;
    let receiver = Receiver::new(&[secret], DEFAULT_WINDOW).map_err(|e| e.to_string())?;
    let deliveries = input
        .get("deliveries")
        .and_then(Value::as_object)
        .ok_or("deliveries must be an object")?;
    let mut handlings: std::collections::BTreeMap<String, StoreSteps> = Default::default();
    let mut acts = Vec::new();
    let mut answers = Map::new();
    for step in input
        .get("steps")
        .and_then(Value::as_array)
        .ok_or("steps must be a list")?
    {
        let name = step
            .get("go")
            .and_then(Value::as_str)
            .ok_or("step go must be a string")?;
        let at = step
            .get("at")
            .and_then(Value::as_u64)
            .ok_or("step at must be a count")?;
        let d = deliveries.get(name).ok_or(format!("no delivery {name}"))?;
        if !handlings.contains_key(name) {
            let body = serde_json::to_vec(d.get("body").ok_or("a delivery has a body")?)
                .map_err(|e| e.to_string())?;
            let signature = match d.get("signature").and_then(Value::as_str) {
                Some("valid") | None => {
                    Some(sign(secret.as_bytes(), &body).map_err(|e| e.to_string())?)
                }
                Some("missing") => None,
                Some(other) => Some(other.to_owned()),
            };
            let token = d.get("token").and_then(Value::as_str).unwrap_or(name);
            let decision = receiver.receive(&body, signature.as_deref());
            let mut h = Handling::new(decision, rules, token);
            if input.get("transaction").and_then(Value::as_bool) == Some(true) {
                h = h.in_transaction();
            }
            handlings.insert(name.to_owned(), StoreSteps::new(h));
        }
        let h = handlings.get_mut(name).ok_or("unreachable")?;
        let act = match h.next() {
            Next::Act(Act::Answer(a)) => {
                answers.insert(name.to_owned(), answer_json(a));
                format!("answer:{}", a.reply.status)
            }
            Next::Act(Act::Persist(_)) => {
                let ok = d.get("persist").and_then(Value::as_str).unwrap_or("ok") == "ok";
                h.persisted(ok).map_err(|e| e.to_string())?;
                format!("persist:{}", if ok { "ok" } else { "fail" })
            }
            Next::Act(Act::Commit { .. }) => {
                let ok = d.get("commit").and_then(Value::as_str).unwrap_or("ok") == "ok";
                h.committed(ok).map_err(|e| e.to_string())?;
                format!("commit:{}", if ok { "ok" } else { "fail" })
            }
            Next::Act(Act::Claim { .. } | Act::Complete { .. } | Act::Release { .. }) => {
                h.begin(at).map_err(|e| e.to_string())?;
                run_store_calls(h, store)?;
                match h.handling().last_step() {
                    Some((step, Ok(outcome))) => format!("{}:{}", step.as_str(), outcome.as_str()),
                    Some((step, Err(code))) => format!("{}:{code}", step.as_str()),
                    None => return Err("a step that left no result".into()),
                }
            }
            _ => return Err("an act this runner does not know".into()),
        };
        acts.push(Value::String(format!("{name}:{act}")));
    }
    Ok(json!({ "acts": acts, "answers": answers }))
}

/// The ops FORMAT.md defines that this runner does not implement yet: counted as skipped (and
/// named in a `SKIP` line), never passed or failed. Implementing one: its arm in [`op`], and its
/// name out of this list.
const NOT_YET: &[&str] = &[];

/// Every op FORMAT.md defines, with this runtime's implementation: `Some(None)` for an op of
/// [`NOT_YET`], `None` for a name FORMAT.md does not define (a failure).
fn op(name: &str) -> Option<Option<OpFn>> {
    if NOT_YET.contains(&name) {
        return Some(None);
    }
    let f: OpFn = match name {
        "event.classify" => event_classify,
        "event.check_registration" => event_check_registration,
        "event.matches" => event_matches,
        "signature.sign" => signature_sign,
        "signature.verify" => signature_verify,
        "envelope.decode" => envelope_decode,
        "webhook.receive" => webhook_receive,
        "beneficiary.validate" => beneficiary_validate,
        "pagination.query" => pagination_query,
        "pagination.info" => pagination_info,
        "pagination.walk" => pagination_walk,
        "delivery.claims" => delivery_claims,
        "delivery.handle" => delivery_handle,
        "account.check" => account_check,
        "beneficiary.normalize" => beneficiary_normalize,
        "beneficiary.form" => beneficiary_form,
        "api.error" => api_error,
        "events.catch_up" => events_catch_up,
        _ => return None,
    };
    Some(Some(f))
}

fn num_eq(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => a.as_u64().zip(b.as_u64()).map_or(x == y, |(p, q)| p == q),
        _ => false,
    }
}

/// Deep equality with numbers compared by value; (v4) an expected `null` matches a key that is
/// `null` or absent, so an object's keys beyond the expected ones must be `null`.
fn deep_eq(expected: &Value, actual: &Value) -> bool {
    match (expected, actual) {
        (Value::Number(_), Value::Number(_)) => num_eq(expected, actual),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| deep_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.iter().all(|(k, v)| key_eq(v, y.get(k)))
                && y.iter().all(|(k, w)| x.contains_key(k) || w.is_null())
        }
        _ => expected == actual,
    }
}

/// An expected key's value against the actual one: `null` matches `null` or absent.
fn key_eq(expected: &Value, actual: Option<&Value>) -> bool {
    match actual {
        None => expected.is_null(),
        Some(a) => deep_eq(expected, a),
    }
}

/// (v4) An expected issue matches an actual one when every key it has equals the actual
/// issue's (`{path, code}` matches an issue that also carries `reason`, `message`, `label`).
fn element_matches(expected: &Value, actual: &Value) -> bool {
    match (expected.as_object(), actual.as_object()) {
        (Some(e), Some(_)) => e.iter().all(|(k, v)| key_eq(v, actual.get(k))),
        _ => deep_eq(expected, actual),
    }
}

/// (v4) The expected elements paired one to one with actual elements they match, none left
/// over on either side: a search over every pairing (the lists are short).
fn paired(expected: &Value, actual: &Value) -> bool {
    fn pair(e: &[Value], a: &[Value], used: &mut Vec<bool>) -> bool {
        let Some((first, rest)) = e.split_first() else {
            return true;
        };
        for (i, cand) in a.iter().enumerate() {
            if !used[i] && element_matches(first, cand) {
                used[i] = true;
                if pair(rest, a, used) {
                    return true;
                }
                used[i] = false;
            }
        }
        false
    }
    let (Some(x), Some(y)) = (expected.as_array(), actual.as_array()) else {
        return false;
    };
    x.len() == y.len() && pair(x, y, &mut vec![false; y.len()])
}

/// (v4) `fields` and `events`: element by element, in order, each matched by its keys, the
/// same length.
fn in_order(expected: &Value, actual: &Value) -> bool {
    match (expected.as_array(), actual.as_array()) {
        (Some(x), Some(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(e, a)| element_matches(e, a))
        }
        _ => false,
    }
}

/// Same elements, order ignored, counted with multiplicity.
fn multiset_eq(expected: &Value, actual: &Value) -> bool {
    let (Some(x), Some(y)) = (expected.as_array(), actual.as_array()) else {
        return false;
    };
    let mut left: Vec<&Value> = y.iter().collect();
    x.len() == y.len()
        && x.iter()
            .all(|e| match left.iter().position(|a| deep_eq(e, a)) {
                Some(i) => {
                    left.swap_remove(i);
                    true
                }
                None => false,
            })
}

/// Equal as sets: the same distinct values, whatever their order and count.
fn set_eq(expected: &Value, actual: &Value) -> bool {
    match (expected.as_array(), actual.as_array()) {
        (Some(e), Some(a)) => {
            e.iter().all(|x| a.iter().any(|y| deep_eq(x, y)))
                && a.iter().all(|y| e.iter().any(|x| deep_eq(x, y)))
        }
        _ => false,
    }
}

/// Partial match: every key of `expect` equals the same key of `actual` (an expected `null`:
/// `null` or absent).
fn check(expect: &Map<String, Value>, actual: &Value) -> Result<(), String> {
    for (k, want) in expect {
        let same = match actual.get(k) {
            None => want.is_null(),
            Some(got) if k == "issues" => paired(want, got),
            Some(got) if matches!(k.as_str(), "fields" | "events") => in_order(want, got),
            Some(got) if k == "rejected" => multiset_eq(want, got),
            Some(got) if k == "drifts" => set_eq(want, got),
            Some(got) => deep_eq(want, got),
        };
        if !same {
            return Err(format!(
                "{k}: expected {want}, got {}",
                actual
                    .get(k)
                    .map_or_else(|| "nothing".into(), Value::to_string)
            ));
        }
    }
    Ok(())
}

/// The contract v4 files this runner reads whatever folders it is given, when present.
const V4_FILES: &[&str] = &["accounts.json", "forms.json"];

/// Contract v4's files of ops not every runtime has yet (issue 34's `api.error` and
/// `events.catch_up`, run here first): read by the runners that implement them, beside
/// whatever files they are given (the others join when their runtime has the ops).
const V4_OWN: &[&str] = &["api.json"];

fn vector_files() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = match std::env::var("XBORDER_VECTOR_DIRS") {
        Ok(v) if !v.is_empty() => v
            .split(':')
            .filter(|s| !s.is_empty())
            .map(PathBuf::from)
            .collect(),
        _ => {
            let root = Path::new(env!("CARGO_MANIFEST_DIR"));
            let mut d = vec![
                root.join("vectors"),
                root.join("vectors/hostile"),
                root.join("../../shared/conformance"),
                root.join("../../shared/conformance/v2"),
            ];
            if let Ok(extra) = std::env::var("XBORDER_VECTORS_DIR") {
                d.extend(
                    extra
                        .split(':')
                        .filter(|s| !s.is_empty())
                        .map(PathBuf::from),
                );
            }
            d
        }
    };
    dirs.retain(|d| d.is_dir());
    let mut files: Vec<PathBuf> = dirs
        .iter()
        .filter_map(|d| std::fs::read_dir(d).ok())
        .flatten()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    // XBORDER_VECTOR_FILES (tests/runners/CONTRACT.md) names the single files; without it, v4's
    // accounts and forms files beside this crate.
    let v4 = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance/v4");
    let singles: Vec<PathBuf> = match std::env::var("XBORDER_VECTOR_FILES") {
        Ok(v) if !v.is_empty() => v
            .split(':')
            .filter(|s| !s.is_empty())
            .map(PathBuf::from)
            .collect(),
        _ => V4_FILES.iter().map(|name| v4.join(name)).collect(),
    };
    // The project's vectors of ops not every runtime has yet (issue 33's `delivery.handle`, run
    // here first): tests/vectors/handling/, read by the runners that implement them, whatever
    // folders they are given (the others join when their runtime has the op; DECISIONS.md).
    let own = Path::new(env!("CARGO_MANIFEST_DIR")).join("vectors/handling");
    let mut own: Vec<PathBuf> = std::fs::read_dir(&own)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    own.sort();
    for f in own {
        if !files.iter().any(|g| g.file_name() == f.file_name()) {
            files.push(f);
        }
    }
    let singles = singles
        .into_iter()
        .chain(V4_OWN.iter().map(|name| v4.join(name)));
    for f in singles {
        let listed = files.iter().any(|g| {
            g.file_name() == f.file_name() && g.parent().is_some_and(|p| p.ends_with("v4"))
        });
        if f.is_file() && !listed {
            files.push(f);
        }
    }
    files
}

fn main() -> ExitCode {
    let (mut passed, mut failed, mut skipped) = (0u64, 0u64, 0u64);
    let mut skipped_ops = std::collections::BTreeSet::new();
    let files = vector_files();
    for file in &files {
        let shown = file.display();
        let doc: Value = match std::fs::read_to_string(file)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
        {
            Ok(d) => d,
            Err(e) => {
                println!("FAIL {shown}: unreadable vector file: {e}");
                failed += 1;
                continue;
            }
        };
        for case in doc
            .get("cases")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let name = case.get("name").and_then(Value::as_str).unwrap_or("?");
            let op_name = case.get("op").and_then(Value::as_str).unwrap_or("");
            let input = case.get("input").unwrap_or(&Value::Null);
            let result = match op(op_name) {
                None => Err(format!("op {op_name:?} is not defined by FORMAT.md")),
                Some(None) => {
                    skipped += 1;
                    skipped_ops.insert(op_name.to_owned());
                    continue;
                }
                Some(Some(f)) => f(input).and_then(|actual| {
                    match case.get("expect").and_then(Value::as_object) {
                        Some(expect) => check(expect, &actual),
                        None => Err("case has no expect object".into()),
                    }
                }),
            };
            match result {
                Ok(()) => passed += 1,
                Err(why) => {
                    failed += 1;
                    println!("FAIL {shown} :: {name}: {why}");
                }
            }
        }
    }
    for op in &skipped_ops {
        println!("SKIP {op}");
    }
    if files.is_empty() {
        println!("FAIL no vector files found");
        failed += 1;
    }
    if skipped > 0 {
        println!("conformance: {passed} passed, {failed} failed, {skipped} skipped");
    } else {
        println!("conformance: {passed} passed, {failed} failed");
    }
    if failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
