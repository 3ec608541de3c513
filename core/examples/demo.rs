//! The main job of xborder, end to end: a webhook consumer receives a signed batch of
//! deliveries, and a form checks two beneficiary drafts against the server's rules and bank list.
//!
//! Run: `cargo run -p xborder-core --example demo`

#![allow(clippy::expect_used, clippy::panic)] // a demo: a broken fixture should stop it loudly

use serde_json::Value;
use xborder_core::beneficiary::{required_fields, BeneficiaryValidator, ValidationRules};
use xborder_core::delivery::{Decision, Receiver, MAX_DELIVERY_ATTEMPTS};
use xborder_core::pagination::{page_info, ListParams};
use xborder_core::signature::sign;

const SECRET: &str = "whsec_demo_2f1c9a";

fn fixture(name: &str) -> Value {
    let path = format!("{}/examples/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn envelope(id: &str, event: &str, entity_type: &str, amount: &str) -> Vec<u8> {
    format!(
        r#"{{"id":"{id}","event":"{event}","entity":{{"id":"ord_77","type":"{entity_type}","data":{{"status":"funds_received","amount":"{amount}","currency":"USD"}}}}}}"#
    )
    .into_bytes()
}

fn main() {
    println!("== Webhooks: a signed batch through the receiver (window of 10,000 committed ids)");
    let rx = Receiver::new(&[SECRET], 10_000).expect("a non-empty secret");
    let paid = envelope("evt_100", "order:funds_received", "order", "250.00");
    let paid_sig = sign(SECRET.as_bytes(), &paid).expect("secret");
    let tampered = envelope("evt_100", "order:funds_received", "order", "950.00");
    let crashed = envelope("evt_101", "sender:kyb_approved", "sender", "0");
    let crashed_sig = sign(SECRET.as_bytes(), &crashed).expect("secret");
    let future = envelope(
        "evt_102",
        "order:awaiting_beneficiary_verification",
        "order",
        "1.00",
    );
    let future_sig = sign(SECRET.as_bytes(), &future).expect("secret");

    // (label, body, signature header, does the consumer persist and commit?)
    let batch: Vec<(&str, &[u8], Option<&str>, bool)> = vec![
        ("valid delivery", &paid, Some(&paid_sig), true),
        (
            "tampered body, original signature",
            &tampered,
            Some(&paid_sig),
            true,
        ),
        (
            "the same event again (provider retry)",
            &paid,
            Some(&paid_sig),
            true,
        ),
        (
            "crash before persisting",
            &crashed,
            Some(&crashed_sig),
            false,
        ),
        (
            "redelivery after the crash",
            &crashed,
            Some(&crashed_sig),
            true,
        ),
        (
            "event name newer than this release",
            &future,
            Some(&future_sig),
            true,
        ),
        ("no signature header", &paid, None, true),
    ];
    for (label, body, signature, persists) in batch {
        let decision = rx.receive(body, signature);
        let detail = match &decision {
            Decision::Process(env) | Decision::Ignore(env) | Decision::Duplicate(env) => {
                format!(
                    "{} {} ({}) amount={}",
                    env.id(),
                    env.event(),
                    env.kind(),
                    env.data_str("amount").unwrap_or_default()
                )
            }
            Decision::Reject(err) => err.to_string(),
            _ => String::new(),
        };
        let mut answer = if decision.acknowledges() {
            "2xx"
        } else {
            "non-2xx, provider retries"
        };
        if let Decision::Process(env) | Decision::Ignore(env) = &decision {
            if persists {
                rx.commit(env.id()).expect("in-memory store");
            } else {
                answer = "no answer: consumer crashed, provider retries";
            }
        }
        println!(
            "  {label:<40} -> {:<9} [{answer}] {detail}",
            decision.action()
        );
    }

    println!("\n== The provider's rule: 5 attempts, then dead-letter");
    for attempt in 1..=MAX_DELIVERY_ATTEMPTS {
        let then = if attempt < MAX_DELIVERY_ATTEMPTS {
            format!("retry (attempt {})", attempt + 1)
        } else {
            format!("dead-lettered after {attempt} attempts")
        };
        println!("  attempt {attempt}: endpoint down -> {then}");
    }

    println!("\n== Beneficiary drafts against the server's rules and bank list");
    // The documents as the server sent them; one that cannot be read is reported, not skipped.
    let rules_co = fixture("rules-co-individual.json");
    let co = BeneficiaryValidator::from_documents(
        Some(&rules_co),
        Some("CO"),
        Some(&fixture("banks-co.json")),
    );
    let us =
        BeneficiaryValidator::from_documents(Some(&fixture("rules-us-business.json")), None, None);
    for (name, draft, validator) in [
        (
            "draft-co.json (CO, individual)",
            fixture("draft-co.json"),
            &co,
        ),
        (
            "draft-us.json (US, business)",
            fixture("draft-us.json"),
            &us,
        ),
    ] {
        let v = validator.validate(&draft);
        println!(
            "  {name}: {}",
            if v.valid() { "valid" } else { "not valid" }
        );
        for issue in &v.issues {
            let label = issue.label.as_deref().unwrap_or("");
            println!(
                "    {:<28} {:<24} {label:<14} {}",
                issue.path, issue.code, issue.message
            );
        }
    }
    let rules_co = ValidationRules::from_value(&rules_co).expect("a rules document");
    let fields = required_fields(Some(&rules_co), "bank_account", "CO");
    println!(
        "  a CO bank_account form asks for {} fields: {}",
        fields.len(),
        fields
            .iter()
            .map(|f| f.path.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );

    println!("\n== Paging");
    let params = ListParams::default().page(2).search("Ana María");
    println!("  GET /v1/beneficiaries?{}", params.to_query());
    let response: Value = serde_json::json!({"data": [{"id": "b21"}, {"id": "b22"}], "total": 22, "page": 2, "pageSize": 10});
    match page_info(&response, None) {
        Ok(info) => println!(
            "  records {}-{} of {}, page {} of {}, next page: {:?}",
            info.first_item,
            info.last_item,
            info.total,
            info.page + 1,
            info.total_pages,
            info.next_page
        ),
        Err(e) => println!("  {e}"),
    }
}
