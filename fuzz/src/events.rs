// event_names: `event \n subscription \n subscription ...`.

use serde_json::Value;
use xborder_core::events::{
    self, Catalog, EventKind, EventName, RegistrationError, RejectedEvent, LIVE_EVENTS,
    MAX_WEBHOOKS, PLANNED_EVENTS, WILDCARDS,
};

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some('a'..='z'))
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// Well formed per FORMAT.md: exactly one `:`, entity `[a-z][a-z0-9_]*`, action the same or `*`.
fn model_parts(name: &str) -> Option<(&str, &str)> {
    if name.matches(':').count() != 1 {
        return None;
    }
    let (entity, action) = name.split_once(':')?;
    (is_ident(entity) && (action == "*" || is_ident(action))).then_some((entity, action))
}

fn model_kind(name: &str) -> EventKind {
    match model_parts(name) {
        None => EventKind::Invalid,
        Some((_, "*")) if WILDCARDS.contains(&name) => EventKind::Wildcard,
        Some((_, "*")) => EventKind::Unknown,
        Some(_) if LIVE_EVENTS.contains(&name) => EventKind::Live,
        Some(_) if PLANNED_EVENTS.contains(&name) => EventKind::Planned,
        Some(_) => EventKind::Unknown,
    }
}

fn model_matches(subscriptions: &[&str], event: &str) -> bool {
    let Some((entity, action)) = model_parts(event) else {
        return false;
    };
    action != "*"
        && subscriptions.iter().any(|s| match model_parts(s) {
            Some((e, "*")) => e == entity,
            Some(_) => *s == event,
            None => false,
        })
}

fn check_name(catalog: &Catalog, name: &str) {
    let class = catalog.classify_name(name);
    assert_eq!(class.kind, model_kind(name), "kind of {name:?}");
    assert_eq!(events::classify(name), class.kind);
    assert_eq!(catalog.classify(name), class.kind);
    assert!(!class.kind.as_str().is_empty());
    match (class.parts, model_parts(name)) {
        (Some(parts), Some((entity, action))) => {
            assert_eq!(
                (parts.entity(), parts.action()),
                (entity, action),
                "parts of {name:?}"
            );
            let rebuilt = format!("{}:{}", parts.entity(), parts.action());
            assert_eq!(rebuilt, name, "well-formed name does not round-trip");
            assert_eq!(EventName::parse(&rebuilt), Some(parts));
            assert_eq!(parts.is_wildcard(), action == "*");
        }
        (None, None) => assert_eq!(class.kind, EventKind::Invalid),
        (got, want) => panic!("well-formedness of {name:?}: got {got:?}, model {want:?}"),
    }
    let plain = model_parts(name).is_some_and(|(_, a)| a != "*");
    let wild = model_parts(name).is_some_and(|(_, a)| a == "*");
    let mut c = catalog.clone();
    assert_eq!(c.add_live(name).is_ok(), plain, "add_live({name:?})");
    if plain {
        assert_eq!(c.classify(name), EventKind::Live);
        assert!(c.is_live(name));
    }
    let mut c = catalog.clone();
    assert_eq!(c.add_wildcard(name).is_ok(), wild, "add_wildcard({name:?})");
    if wild {
        assert_eq!(c.classify(name), EventKind::Wildcard);
    }
}

/// `Catalog::classify_name` and `matches` on names: the kind and the well-formedness agree with
/// a model of FORMAT.md, a well-formed name round-trips through its parts, `add_live` and
/// `add_wildcard` accept exactly the well-formed plain / wildcard names, and the first line
/// (the event) matches the others (subscriptions) exactly when the model says so.
pub fn event_names(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let names: Vec<&str> = text.split('\n').take(16).collect();
    let catalog = Catalog::builtin();
    for name in &names {
        check_name(&catalog, name);
    }
    let Some((event, subscriptions)) = names.split_first() else {
        return;
    };
    assert_eq!(
        catalog.matches(subscriptions, event),
        model_matches(subscriptions, event),
        "matches({subscriptions:?}, {event:?})"
    );
    let plain = model_parts(event).is_some_and(|(_, a)| a != "*");
    assert_eq!(
        catalog.matches(&[event], event),
        plain,
        "an event matching itself"
    );
}

// ---------------------------------------------------------------------------------------------
// registration: `existingWebhooks \n name \n name ...`.

/// `Catalog::check_registration`: exactly the model of FORMAT.md (limit first; every name not
/// live and not a listed wildcard rejected once with its kind; accepted names once, in order; an
/// empty list refused), and the Create Webhook body is JSON carrying the accepted names.
pub fn registration(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.split('\n');
    let existing = lines
        .next()
        .and_then(|l| l.trim().parse::<u32>().ok())
        .unwrap_or(0);
    let names: Vec<&str> = lines.take(64).collect();
    let catalog = Catalog::builtin();
    let got = catalog.check_registration(&names, existing);

    let expected = if existing >= MAX_WEBHOOKS {
        Err(RegistrationError::WebhookLimitReached { existing })
    } else {
        let mut accepted: Vec<String> = Vec::new();
        let mut rejected: Vec<RejectedEvent> = Vec::new();
        for name in &names {
            match model_kind(name) {
                EventKind::Live | EventKind::Wildcard => {
                    if !accepted.iter().any(|a| a == name) {
                        accepted.push((*name).to_owned());
                    }
                }
                reason => {
                    if !rejected.iter().any(|r| r.event == *name) {
                        rejected.push(RejectedEvent::new(*name, reason));
                    }
                }
            }
        }
        if rejected.is_empty() && !accepted.is_empty() {
            Ok(accepted)
        } else {
            Err(RegistrationError::ValidationFailed { rejected })
        }
    };
    match (got, expected) {
        (Ok(reg), Ok(accepted)) => {
            assert_eq!(reg.events(), accepted.as_slice());
            // An accepted name is ASCII `entity:action` (or `entity:*`): a path of a valid URL.
            let url = format!(
                "https://x.test/{}",
                names.first().copied().unwrap_or_default()
            );
            let body: Value = serde_json::from_str(
                &reg.create_webhook_body(&url)
                    .expect("a URL create_webhook_body accepts"),
            )
            .expect("Create Webhook body is JSON");
            assert_eq!(body["url"], url);
            assert_eq!(body["events"], serde_json::json!(accepted));
        }
        (Err(e), Err(want)) => {
            assert_eq!(e, want);
            assert!(e.to_string().starts_with(e.code()));
        }
        (got, want) => panic!("check_registration: got {got:?}, model {want:?}"),
    }
}
