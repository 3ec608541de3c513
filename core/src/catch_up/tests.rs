//! The catch-up beyond the vectors: the handling's checkpoint, and walks that always end.

use proptest::prelude::*;
use serde_json::{json, Value};

use super::{CatchUp, Fetched, Recovery};
use crate::claims::{Outcome, Reply};
use crate::delivery::{Decision, ReceiveError, Receiver};
use crate::handling::{Answer, Handling};
use crate::signature::SignatureError;

fn record(id: &str, at: &str) -> Value {
    json!({"id": id, "name": "order:created", "aggregateType": "order", "aggregateId": "o",
        "payload": {"id": "o"}, "createdAt": at})
}

fn page(records: Vec<Value>, total: u64, page: u64, size: u64) -> Value {
    json!({"data": records, "total": total, "page": page, "pageSize": size})
}

/// Three events at 12:01, 12:02, 12:03, walked whole.
fn three() -> Recovery {
    let mut c = CatchUp::new(None).unwrap();
    c.feed(&page(
        vec![
            record("c", "2026-11-27T12:03:00Z"),
            record("b", "2026-11-27T12:02:00Z"),
            record("a", "2026-11-27T12:01:00Z"),
        ],
        3,
        0,
        100,
    ))
    .unwrap();
    assert!(c.is_done());
    c.recover()
}

/// An answer with `status` (persisted for a 200 when `persisted`).
fn answer(status: u16, persisted: bool) -> Answer {
    let mut a = *Handling::new(
        Decision::Reject(ReceiveError::Signature(SignatureError::EmptySecret)),
        Default::default(),
        "t",
    )
    .answer()
    .unwrap();
    a.reply = Reply {
        status,
        retry_after_s: None,
    };
    a.persisted = persisted;
    a.outcome = persisted.then_some(Outcome::Completed);
    a
}

#[test]
fn the_checkpoint_stops_before_the_first_failure() {
    let mut r = three();
    assert_eq!(r.checkpoint(), None, "nothing handled yet");
    assert!(r.handled(&answer(200, true)));
    assert_eq!(r.checkpoint(), Some("2026-11-27T12:01:00Z"));
    assert!(r.handled(&answer(503, false)));
    assert!(r.handled(&answer(200, false)));
    assert!(!r.handled(&answer(200, true)), "no fourth event");
    assert_eq!(r.checkpoint(), Some("2026-11-27T12:01:00Z"));
    let t = r.tally();
    assert_eq!((t.processed, t.skipped, t.rejected, t.failed), (1, 1, 0, 1));
}

#[test]
fn a_rejected_event_is_settled_and_counted() {
    let mut r = three();
    r.handled(&answer(200, true));
    r.handled(&answer(400, false));
    r.handled(&answer(200, false));
    assert_eq!(r.checkpoint(), Some("2026-11-27T12:03:00Z"));
    assert_eq!(r.tally().rejected, 1);
}

#[test]
fn a_failed_oldest_event_keeps_since() {
    let mut c = CatchUp::new(Some("2026-11-27T12:00:00Z")).unwrap();
    c.feed(&page(
        vec![
            record("b", "2026-11-27T12:02:00Z"),
            record("a", "2026-11-27T12:01:00Z"),
        ],
        2,
        0,
        100,
    ))
    .unwrap();
    let mut r = c.recover();
    r.handled(&answer(500, false));
    r.handled(&answer(200, true));
    assert_eq!(r.checkpoint(), Some("2026-11-27T12:00:00Z"));
}

#[test]
fn an_unfinished_walk_keeps_since_whatever_was_handled() {
    let mut c = CatchUp::new(Some("2026-11-27T12:00:00Z")).unwrap();
    c.feed(&page(vec![record("b", "2026-11-27T12:02:00Z")], 5, 0, 1))
        .unwrap();
    assert!(!c.is_done());
    let mut r = c.recover();
    r.handled(&answer(200, true));
    assert_eq!(r.checkpoint(), Some("2026-11-27T12:00:00Z"));
}

#[test]
fn a_recovered_event_is_decided_as_its_delivery() {
    let rx = Receiver::new(&["k"], 10).unwrap();
    let e = super::ExternalEvent::from_record(&json!({"id": "e", "name": "order:created",
        "aggregateType": "beneficiary", "aggregateId": "o", "createdAt": "2026-11-27T12:00:00Z"}))
    .unwrap();
    let d = rx.receive_recovered(&e);
    assert_eq!(d.error().map(|e| e.code()), Some("ENTITY_MISMATCH"));
    let unknown = super::ExternalEvent::from_record(&json!({"id": "u", "name": "order:rejected",
        "aggregateType": "order", "aggregateId": "o", "payload": {"x": 1}, "createdAt": "2026-11-27T12:00:00Z"}))
    .unwrap();
    assert_eq!(rx.receive_recovered(&unknown).action(), "ignore");
    let not_an_object = super::ExternalEvent::from_record(&json!({"id": "n", "name": "order:created",
        "aggregateType": "order", "aggregateId": "o", "payload": [1], "createdAt": "2026-11-27T12:00:00Z"}))
    .unwrap();
    assert_eq!(
        rx.receive_recovered(&not_an_object).reply().status,
        400,
        "entity.data must be an object, as in a delivery"
    );
}

#[test]
fn a_page_answer_is_retried_as_the_api_says_then_given_up() {
    let mut c = CatchUp::new(None).unwrap();
    let busy = r#"{"error": {"CODE": "TOO_MANY_REQUESTS", "MESSAGE": "Slow down", "DETAILS": {"retryAfterMs": 1500}}}"#;
    // Four waits (the delay of the body, of the header cut to 30 s, the default), then the
    // fifth answer to the same request ends the catch-up with the API's error.
    assert_eq!(c.answered(429, &[], busy), Ok(Fetched::Wait { ms: 1_500 }));
    assert_eq!(
        c.answered(503, &[("retry-after", "3600")], ""),
        Ok(Fetched::Wait { ms: 30_000 })
    );
    assert_eq!(
        c.answered(502, &[], "<html>"),
        Ok(Fetched::Wait { ms: 1_000 })
    );
    assert_eq!(c.answered(500, &[], ""), Ok(Fetched::Wait { ms: 1_000 }));
    let e = c.answered(429, &[], busy).unwrap_err();
    assert_eq!(e.code(), "API_ERROR");
    assert_eq!(
        e.to_string(),
        "API_ERROR: the API answered 429 TOO_MANY_REQUESTS: Slow down"
    );
    assert!(c.next_request().is_some(), "the walk can go on");
    // A page resets the tries: four more waits are allowed for the next request.
    let mut c = CatchUp::new(None).unwrap().page_size(1).unwrap();
    assert_eq!(c.answered(500, &[], ""), Ok(Fetched::Wait { ms: 1_000 }));
    let first = page(vec![record("b", "2026-11-27T12:02:00Z")], 2, 0, 1).to_string();
    assert_eq!(
        c.answered(200, &[], &first),
        Ok(Fetched::Page { drifts: vec![] })
    );
    for _ in 0..4 {
        assert_eq!(c.answered(504, &[], ""), Ok(Fetched::Wait { ms: 1_000 }));
    }
    assert_eq!(c.answered(504, &[], "").unwrap_err().code(), "API_ERROR");
}

#[test]
fn a_page_answer_that_is_not_a_list_is_malformed_and_changes_nothing() {
    let mut c = CatchUp::new(None).unwrap();
    for text in ["", "<html>", "[]", r#"{"data": 1}"#] {
        let e = c.answered(200, &[], text).unwrap_err();
        assert_eq!(e.code(), "MALFORMED_RESPONSE", "{text}");
    }
    assert_eq!(c.next_request().unwrap().page, 0);
    // Not retried: a 401 or a 404 ends the catch-up at once, with the request id.
    let e = CatchUp::new(None)
        .unwrap()
        .answered(404, &[], r#"{"error": "Not found", "requestId": "r-9"}"#)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "API_ERROR: the API answered 404: Not found (request r-9)"
    );
}

fn any_record() -> impl Strategy<Value = Value> {
    prop_oneof![
        (0u8..20, 0u32..86_400).prop_map(|(id, s)| record(
            &format!("e{id}"),
            &format!(
                "2026-11-27T{:02}:{:02}:{:02}Z",
                s / 3600,
                s / 60 % 60,
                s % 60
            )
        )),
        (0u8..20).prop_map(|id| json!({"id": format!("e{id}")})),
        Just(json!({"name": "x"})),
    ]
}

proptest! {
    /// Whatever the server answers, a catch-up ends within the pages it is given plus none,
    /// passes each id on once, oldest first, and never panics.
    #[test]
    fn every_walk_ends_and_passes_each_id_once(
        pages in proptest::collection::vec(
            (proptest::collection::vec(any_record(), 0..6), 0u64..30, 0u64..5, proptest::option::of(any::<bool>())),
            0..40,
        ),
        since in proptest::option::of(0u32..86_400),
        overlap in 0u64..100_000_000,
    ) {
        let since = since.map(|s| format!("2026-11-27T{:02}:{:02}:{:02}Z", s / 3600, s / 60 % 60, s % 60));
        let mut c = CatchUp::new(since.as_deref()).unwrap().overlap_ms(overlap).unwrap().page_size(5).unwrap();
        let mut fed = 0;
        for (records, total, number, has_next) in &pages {
            if c.next_request().is_none() {
                break;
            }
            let mut p = page(records.clone(), *total, *number, 5);
            if let Some(h) = has_next {
                p["hasNext"] = json!(h);
            }
            let _ = c.feed(&p);
            fed += 1;
        }
        prop_assert!(fed <= pages.len());
        let ids: Vec<&str> = c.events().map(|e| e.id()).collect();
        let unique: std::collections::BTreeSet<&&str> = ids.iter().collect();
        prop_assert_eq!(unique.len(), ids.len());
        let times: Vec<i64> = c.events().map(|e| e.created_at_ms()).collect();
        prop_assert!(times.windows(2).all(|w| w[0] <= w[1]));
        if c.is_done() && c.drifts().iter().all(|d| !d.may_have_missed()) && !ids.is_empty() {
            prop_assert_eq!(c.checkpoint(), c.events().last().map(|e| e.created_at()));
        } else {
            prop_assert_eq!(c.checkpoint(), since.as_deref());
        }
    }

    /// A server that answers the same full page forever is stopped by the walk (STALLED).
    #[test]
    fn a_server_that_ignores_page_is_left(n in 1usize..5) {
        let records: Vec<Value> = (0..n).map(|i| record(&format!("e{i}"), "2026-11-27T12:00:00Z")).collect();
        let mut c = CatchUp::new(None).unwrap().page_size(n as u64).unwrap();
        let mut pages = 0;
        while c.next_request().is_some() {
            c.feed(&page(records.clone(), 1_000, 0, n as u64)).unwrap();
            pages += 1;
            prop_assert!(pages <= 3);
        }
        prop_assert!(c.drifts().iter().any(|d| d.code() == "STALLED"));
    }
}
