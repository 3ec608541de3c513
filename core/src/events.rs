//! Event names: the catalog, classification, registration pre-check and subscription matching.
//!
//! Names have the form `<entity>:<action>` (the provider's API reference, Events). The catalog holds the live
//! names, the listed wildcards and the planned (reserved) names as static data; a [`Catalog`] can
//! be extended at runtime when the provider ships names before xborder does.

use std::fmt;

/// The 33 live event names of the provider's API reference, in the order of its tables.
pub const LIVE_EVENTS: &[&str] = &[
    "order:created",
    "order:awaiting_funds",
    "order:awaiting_funds_timeout",
    "order:funds_received",
    "order:in_progress",
    "order:sent_to_beneficiary",
    "order:success",
    "order:failed",
    "order:cancelled",
    "order:returned",
    "order:proof_of_payment_received",
    "order:invoice_review_required",
    "sender:created",
    "sender:kyb_pending",
    "sender:kyb_approved",
    "sender:kyb_declined",
    "sender:kyc_pending",
    "sender:kyc_approved",
    "sender:kyc_declined",
    "sender:tos_link_generated",
    "sender:tos_accepted",
    "sender:activated",
    "sender:deactivated",
    "ubo:created",
    "ubo:verification_pending",
    "ubo:verification_approved",
    "ubo:verification_declined",
    "beneficiary:created",
    "beneficiary:verification_approved",
    "beneficiary:verification_declined",
    "fiat_deposit:settled",
    "stablecoin_deposit:settled",
    "stablecoin_deposit:rejected",
];

/// The 4 listed wildcards. Other families (deposits, payment methods) have none.
pub const WILDCARDS: &[&str] = &["order:*", "sender:*", "ubo:*", "beneficiary:*"];

/// The 10 planned names: reserved, never emitted, rejected at registration.
pub const PLANNED_EVENTS: &[&str] = &[
    "order:need_review",
    "order:refund_in_progress",
    "order:refunded",
    "sender:verification_pending",
    "sender:verification_approved",
    "sender:verification_declined",
    "beneficiary:verification_pending",
    "payment_method:approved",
    "payment_method:declined",
    "payment_method:pending_user_consent",
];

/// The most webhooks the service lets one merchant register.
pub const MAX_WEBHOOKS: u32 = 5;

/// What a name is, according to a [`Catalog`].
///
/// ```
/// use xborder_core::events::{classify, EventKind};
/// assert_eq!(classify("order:created"), EventKind::Live);
/// assert_eq!(classify("order:teleported"), EventKind::Unknown);
/// assert_eq!(classify("order.created"), EventKind::Invalid);
/// assert_eq!(EventKind::Planned.as_str(), "planned");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EventKind {
    /// In the live tables: emitted and registrable.
    Live,
    /// Reserved: not emitted, rejected at registration.
    Planned,
    /// One of the listed `<entity>:*` wildcards: registrable.
    Wildcard,
    /// Well formed but not in the catalog: a name added after this release.
    Unknown,
    /// Not of the form `<entity>:<action>`.
    Invalid,
}

impl EventKind {
    /// Every kind (the bindings' enums are checked against it).
    ///
    /// ```
    /// assert_eq!(xborder_core::events::EventKind::ALL.len(), 5);
    /// ```
    pub const ALL: &'static [EventKind] = &[
        EventKind::Live,
        EventKind::Planned,
        EventKind::Wildcard,
        EventKind::Unknown,
        EventKind::Invalid,
    ];

    /// The stable lower-case name used by the conformance vectors (`live`, `planned`, ...).
    ///
    /// ```
    /// assert_eq!(xborder_core::events::EventKind::Wildcard.as_str(), "wildcard");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Live => "live",
            EventKind::Planned => "planned",
            EventKind::Wildcard => "wildcard",
            EventKind::Unknown => "unknown",
            EventKind::Invalid => "invalid",
        }
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A well-formed name split into its entity and action (`*` for a wildcard).
///
/// ```
/// use xborder_core::events::EventName;
/// let name = EventName::parse("fiat_deposit:settled").unwrap();
/// assert_eq!((name.entity(), name.action()), ("fiat_deposit", "settled"));
/// assert!(EventName::parse("order:").is_none());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EventName<'a> {
    entity: &'a str,
    action: &'a str,
}

fn is_ident(s: &str) -> bool {
    let mut bytes = s.bytes();
    matches!(bytes.next(), Some(b'a'..=b'z'))
        && bytes.all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'_'))
}

impl<'a> EventName<'a> {
    /// Splits `<entity>:<action>`: exactly one colon, entity `[a-z][a-z0-9_]*`, action the same or
    /// `*`. Nothing is trimmed or lower-cased. `None` when the name is not well formed.
    ///
    /// ```
    /// use xborder_core::events::EventName;
    /// assert!(EventName::parse("order:*").unwrap().is_wildcard());
    /// assert!(EventName::parse("Order:created").is_none());
    /// ```
    pub fn parse(name: &'a str) -> Option<Self> {
        let (entity, action) = name.split_once(':')?;
        if !is_ident(entity) || !(action == "*" || is_ident(action)) {
            return None;
        }
        Some(EventName { entity, action })
    }

    /// The entity (family) part, before the colon.
    ///
    /// ```
    /// assert_eq!(xborder_core::events::EventName::parse("ubo:created").unwrap().entity(), "ubo");
    /// ```
    pub fn entity(&self) -> &'a str {
        self.entity
    }

    /// The action part, after the colon (`*` for a wildcard).
    ///
    /// ```
    /// assert_eq!(xborder_core::events::EventName::parse("ubo:created").unwrap().action(), "created");
    /// ```
    pub fn action(&self) -> &'a str {
        self.action
    }

    /// Whether the action is `*`.
    ///
    /// ```
    /// assert!(!xborder_core::events::EventName::parse("ubo:created").unwrap().is_wildcard());
    /// ```
    pub fn is_wildcard(&self) -> bool {
        self.action == "*"
    }
}

/// The result of classifying a name: its kind and, when well formed, its parts.
///
/// ```
/// use xborder_core::events::{Catalog, EventKind};
/// let c = Catalog::builtin().classify_name("sender:*");
/// assert_eq!(c.kind, EventKind::Wildcard);
/// assert_eq!(c.parts.map(|p| p.entity()), Some("sender"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Classification<'a> {
    /// Live, planned, wildcard, unknown or invalid.
    pub kind: EventKind,
    /// Entity and action, `None` for an invalid name.
    pub parts: Option<EventName<'a>>,
}

/// The event catalog: built-in names plus any added at runtime.
///
/// ```
/// use xborder_core::events::{Catalog, EventKind};
/// let mut catalog = Catalog::builtin();
/// assert_eq!(catalog.classify("order:rejected"), EventKind::Unknown);
/// catalog.add_live("order:rejected").unwrap();
/// assert_eq!(catalog.classify("order:rejected"), EventKind::Live);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Catalog {
    // Sorted, without repeats: a few names at most, so a vector (smaller code in the WASM
    // module than a BTreeSet) with binary search.
    extra_live: Vec<String>,
    extra_wildcards: Vec<String>,
}

/// Adds `name` to a sorted vector of names, once.
fn insert_sorted(names: &mut Vec<String>, name: &str) {
    if let Err(at) = names.binary_search_by(|n| n.as_str().cmp(name)) {
        names.insert(at, name.to_owned());
    }
}

fn contains_sorted(names: &[String], name: &str) -> bool {
    names.binary_search_by(|n| n.as_str().cmp(name)).is_ok()
}

/// Why a name could not be added to a [`Catalog`].
///
/// ```
/// use xborder_core::events::{Catalog, CatalogError};
/// assert_eq!(Catalog::builtin().add_live("nope"), Err(CatalogError::InvalidName("nope".into())));
/// assert_eq!(CatalogError::InvalidName("x".into()).code(), "INVALID_EVENT_NAME");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CatalogError {
    /// The name is not well formed (or, for `add_live`, is a wildcard; for `add_wildcard`, is not).
    InvalidName(String),
}

impl CatalogError {
    /// Stable code: `INVALID_EVENT_NAME`.
    ///
    /// ```
    /// # use xborder_core::events::CatalogError;
    /// assert_eq!(CatalogError::InvalidName(String::new()).code(), "INVALID_EVENT_NAME");
    /// ```
    pub fn code(&self) -> &'static str {
        match self {
            CatalogError::InvalidName(_) => "INVALID_EVENT_NAME",
        }
    }
}

impl fmt::Display for CatalogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CatalogError::InvalidName(n) => {
                write!(
                    f,
                    "{}: not a usable event name: \"{}\"",
                    self.code(),
                    n.escape_default()
                )
            }
        }
    }
}

impl std::error::Error for CatalogError {}

impl Catalog {
    /// The catalog of the provider's API reference, with nothing added.
    ///
    /// ```
    /// assert!(xborder_core::events::Catalog::builtin().is_live("order:success"));
    /// ```
    pub fn builtin() -> Self {
        Catalog::default()
    }

    /// Adds a live name the provider started sending before this release knew it.
    /// A planned name added this way becomes live. Wildcards go through [`Catalog::add_wildcard`].
    ///
    /// ```
    /// let mut c = xborder_core::events::Catalog::builtin();
    /// c.add_live("payment_method:approved").unwrap();
    /// assert!(c.is_live("payment_method:approved"));
    /// assert!(c.add_live("order:*").is_err());
    /// ```
    pub fn add_live(&mut self, name: &str) -> Result<(), CatalogError> {
        match EventName::parse(name) {
            Some(n) if !n.is_wildcard() => {
                insert_sorted(&mut self.extra_live, name);
                Ok(())
            }
            _ => Err(CatalogError::InvalidName(name.to_owned())),
        }
    }

    /// Adds a wildcard `<entity>:*` the provider started accepting.
    ///
    /// ```
    /// let mut c = xborder_core::events::Catalog::builtin();
    /// c.add_wildcard("fiat_deposit:*").unwrap();
    /// assert_eq!(c.classify("fiat_deposit:*"), xborder_core::events::EventKind::Wildcard);
    /// ```
    pub fn add_wildcard(&mut self, name: &str) -> Result<(), CatalogError> {
        match EventName::parse(name) {
            Some(n) if n.is_wildcard() => {
                insert_sorted(&mut self.extra_wildcards, name);
                Ok(())
            }
            _ => Err(CatalogError::InvalidName(name.to_owned())),
        }
    }

    /// Whether `name` is live (built in or added).
    ///
    /// ```
    /// assert!(!xborder_core::events::Catalog::builtin().is_live("order:refunded"));
    /// ```
    pub fn is_live(&self, name: &str) -> bool {
        LIVE_EVENTS.contains(&name) || contains_sorted(&self.extra_live, name)
    }

    /// Classifies a name: [`EventKind`] only.
    ///
    /// ```
    /// use xborder_core::events::{Catalog, EventKind};
    /// assert_eq!(Catalog::builtin().classify("order:refunded"), EventKind::Planned);
    /// ```
    pub fn classify(&self, name: &str) -> EventKind {
        self.classify_name(name).kind
    }

    /// Classifies a name and returns its parts.
    ///
    /// ```
    /// use xborder_core::events::{Catalog, EventKind};
    /// let c = Catalog::builtin().classify_name("payment_method:*");
    /// assert_eq!(c.kind, EventKind::Unknown); // no wildcard is listed for that family
    /// ```
    pub fn classify_name<'a>(&self, name: &'a str) -> Classification<'a> {
        let Some(parts) = EventName::parse(name) else {
            return Classification {
                kind: EventKind::Invalid,
                parts: None,
            };
        };
        let kind = if parts.is_wildcard() {
            if WILDCARDS.contains(&name) || contains_sorted(&self.extra_wildcards, name) {
                EventKind::Wildcard
            } else {
                EventKind::Unknown
            }
        } else if self.is_live(name) {
            EventKind::Live
        } else if PLANNED_EVENTS.contains(&name) {
            EventKind::Planned
        } else {
            EventKind::Unknown
        };
        Classification {
            kind,
            parts: Some(parts),
        }
    }

    /// The server's verdict on a Create Webhook call, given before the call is made.
    ///
    /// `existing_webhooks` is how many webhooks are registered already (at [`MAX_WEBHOOKS`] or
    /// more the call is refused whatever the names). Every name that is not live and not a
    /// listed wildcard is rejected, each once, with its kind as the reason. An empty list is
    /// rejected too: it would register nothing.
    ///
    /// ```
    /// use xborder_core::events::{Catalog, RegistrationError, EventKind};
    /// let c = Catalog::builtin();
    /// let ok = c.check_registration(&["order:*", "order:created", "order:created"], 0).unwrap();
    /// assert_eq!(ok.events(), ["order:*", "order:created"]);
    /// let err = c.check_registration(&["order:refunded", "bad name"], 0).unwrap_err();
    /// assert_eq!(err.code(), "VALIDATION_FAILED");
    /// let RegistrationError::ValidationFailed { rejected } = err else { unreachable!() };
    /// assert_eq!(rejected[0].reason, EventKind::Planned);
    /// assert_eq!(rejected[1].reason, EventKind::Invalid);
    /// ```
    pub fn check_registration<S: AsRef<str>>(
        &self,
        events: &[S],
        existing_webhooks: u32,
    ) -> Result<Registration, RegistrationError> {
        if existing_webhooks >= MAX_WEBHOOKS {
            return Err(RegistrationError::WebhookLimitReached {
                existing: existing_webhooks,
            });
        }
        let mut accepted: Vec<String> = Vec::new();
        let mut rejected: Vec<RejectedEvent> = Vec::new();
        for name in events {
            let name = name.as_ref();
            match self.classify(name) {
                EventKind::Live | EventKind::Wildcard => {
                    if !accepted.iter().any(|a| a == name) {
                        accepted.push(name.to_owned());
                    }
                }
                reason => {
                    if !rejected.iter().any(|r| r.event == name) {
                        rejected.push(RejectedEvent {
                            event: name.to_owned(),
                            reason,
                        });
                    }
                }
            }
        }
        if rejected.is_empty() && !accepted.is_empty() {
            Ok(Registration { events: accepted })
        } else {
            Err(RegistrationError::ValidationFailed { rejected })
        }
    }

    /// Whether a delivered `event` is covered by any of `subscriptions`: an identical name, or a
    /// wildcard `<entity>:*` of its family (listed or not: the server decides which wildcards it
    /// accepts; a wildcard covers names added after this release). An invalid event or
    /// subscription matches nothing; a wildcard is not itself an event.
    ///
    /// ```
    /// let c = xborder_core::events::Catalog::builtin();
    /// assert!(c.matches(&["order:*"], "order:brand_new"));
    /// assert!(!c.matches(&["order:created"], "order:failed"));
    /// ```
    pub fn matches<S: AsRef<str>>(&self, subscriptions: &[S], event: &str) -> bool {
        let Some(ev) = EventName::parse(event) else {
            return false;
        };
        if ev.is_wildcard() {
            return false;
        }
        subscriptions
            .iter()
            .any(|s| match EventName::parse(s.as_ref()) {
                Some(sub) if sub.is_wildcard() => sub.entity == ev.entity,
                Some(_) => s.as_ref() == event,
                None => false,
            })
    }
}

/// Classifies a name against the built-in catalog.
///
/// ```
/// assert_eq!(xborder_core::events::classify("ubo:*"), xborder_core::events::EventKind::Wildcard);
/// ```
pub fn classify(name: &str) -> EventKind {
    Catalog::builtin().classify(name)
}

/// A name refused by the registration pre-check, with the reason (its kind).
///
/// ```
/// use xborder_core::events::{RejectedEvent, EventKind};
/// let r = RejectedEvent::new("order:refunded", EventKind::Planned);
/// assert_eq!(r.reason.as_str(), "planned");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RejectedEvent {
    /// The name as given.
    pub event: String,
    /// `Planned`, `Unknown` or `Invalid`.
    pub reason: EventKind,
}

impl RejectedEvent {
    /// A refused name and why.
    ///
    /// ```
    /// use xborder_core::events::{EventKind, RejectedEvent};
    /// assert_eq!(RejectedEvent::new("x", EventKind::Invalid).event, "x");
    /// ```
    pub fn new(event: impl Into<String>, reason: EventKind) -> Self {
        RejectedEvent {
            event: event.into(),
            reason,
        }
    }
}

/// Why a registration would fail.
///
/// ```
/// let err = xborder_core::events::Catalog::builtin().check_registration(&["order:created"], 5).unwrap_err();
/// assert_eq!(err.code(), "WEBHOOK_LIMIT_REACHED");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RegistrationError {
    /// The server's 400 `VALIDATION_FAILED`: some names are not registrable (or none were given).
    ValidationFailed {
        /// Each refused name once, in the order given.
        rejected: Vec<RejectedEvent>,
    },
    /// [`MAX_WEBHOOKS`] are registered already.
    WebhookLimitReached {
        /// How many the caller said exist.
        existing: u32,
    },
    /// The URL given for the Create Webhook body is not an absolute `http://` or `https://`
    /// URL with a host ([`Registration::create_webhook_body`] says exactly what is accepted).
    InvalidUrl {
        /// What is wrong with it, in a few words (`"it is empty"`, `"it has no host"`, ...).
        reason: &'static str,
    },
}

impl RegistrationError {
    /// Stable code: `VALIDATION_FAILED`, `WEBHOOK_LIMIT_REACHED` or `INVALID_URL`.
    ///
    /// ```
    /// use xborder_core::events::RegistrationError;
    /// assert_eq!(RegistrationError::ValidationFailed { rejected: vec![] }.code(), "VALIDATION_FAILED");
    /// ```
    pub fn code(&self) -> &'static str {
        match self {
            RegistrationError::ValidationFailed { .. } => "VALIDATION_FAILED",
            RegistrationError::WebhookLimitReached { .. } => "WEBHOOK_LIMIT_REACHED",
            RegistrationError::InvalidUrl { .. } => "INVALID_URL",
        }
    }
}

impl fmt::Display for RegistrationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegistrationError::ValidationFailed { rejected } if rejected.is_empty() => {
                write!(f, "{}: no event names given", self.code())
            }
            RegistrationError::ValidationFailed { rejected } => {
                write!(f, "{}: not registrable:", self.code())?;
                for r in rejected {
                    write!(f, " \"{}\" ({})", r.event.escape_default(), r.reason)?;
                }
                Ok(())
            }
            RegistrationError::WebhookLimitReached { existing } => write!(
                f,
                "{}: {existing} webhooks registered, the limit is {MAX_WEBHOOKS}",
                self.code()
            ),
            RegistrationError::InvalidUrl { reason } => write!(
                f,
                "{}: the webhook url must be an absolute http:// or https:// URL with a host (https://example.com/hooks), and {reason}",
                self.code()
            ),
        }
    }
}

impl std::error::Error for RegistrationError {}

/// A checked list of names, ready for the Create Webhook body.
///
/// ```
/// let reg = xborder_core::events::Catalog::builtin().check_registration(&["order:*"], 0).unwrap();
/// let body = reg.create_webhook_body("https://example.com/hooks").unwrap();
/// assert_eq!(body, r#"{"events":["order:*"],"url":"https://example.com/hooks"}"#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registration {
    events: Vec<String>,
}

impl Registration {
    /// The accepted names, each once, in first-seen order.
    ///
    /// ```
    /// let reg = xborder_core::events::Catalog::builtin().check_registration(&["ubo:created"], 0).unwrap();
    /// assert_eq!(reg.events(), ["ubo:created"]);
    /// ```
    pub fn events(&self) -> &[String] {
        &self.events
    }

    /// The JSON body of `POST /v1/webhooks`: `{"events":[...],"url":"..."}` (field-notes.md),
    /// the URL written as given.
    ///
    /// `INVALID_URL` unless `url` is an absolute `http://` or `https://` URL with a host: the
    /// scheme (either case) and `://`, then a host that is not empty (after any `user@`; an IP
    /// literal in brackets, `[::1]`, has something inside them), then, when a `:` follows the
    /// host, a port of 1 to 5 ASCII digits up to 65535; then anything (a path, a query, a
    /// fragment) that holds no whitespace and no control character, as the whole URL holds none
    /// (nothing is trimmed: a pasted space is refused, not dropped).
    ///
    /// ```
    /// use xborder_core::events::Catalog;
    /// let reg = Catalog::builtin().check_registration(&["ubo:created"], 0).unwrap();
    /// assert!(reg.create_webhook_body("https://x.test/h").unwrap().starts_with(r#"{"events":["ubo:created"]"#));
    /// for bad in ["", "x.test/h", "ftp://x.test/h", "https://", "https:///h", " https://x.test/h", "https://x.test:http/h"] {
    ///     assert_eq!(reg.create_webhook_body(bad).unwrap_err().code(), "INVALID_URL", "{bad:?}");
    /// }
    /// ```
    pub fn create_webhook_body(&self, url: &str) -> Result<String, RegistrationError> {
        #[derive(serde::Serialize)]
        struct Body<'a> {
            events: &'a [String],
            url: &'a str,
        }
        check_webhook_url(url).map_err(|reason| RegistrationError::InvalidUrl { reason })?;
        // Writing strings into a String cannot fail: the empty fallback is never taken.
        Ok(serde_json::to_string(&Body {
            events: &self.events,
            url,
        })
        .unwrap_or_default())
    }
}

/// Whether `url` is what [`Registration::create_webhook_body`] accepts; why not, in a few words.
/// Read as bytes, split only at ASCII bytes (so never inside a character) with `get`: no
/// substring search and no `str` slicing, whose panic paths would cost the browser module more
/// than the check itself.
fn check_webhook_url(url: &str) -> Result<(), &'static str> {
    if url.is_empty() {
        return Err("it is empty");
    }
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err("it holds whitespace or a control character");
    }
    let bytes = url.as_bytes();
    let not_absolute = "it is not absolute (no scheme://)";
    let colon = bytes.iter().position(|&b| b == b':').ok_or(not_absolute)?;
    if bytes.get(colon + 1..colon + 3) != Some(b"//".as_slice()) {
        return Err(not_absolute);
    }
    let scheme = bytes.get(..colon).unwrap_or_default();
    if !scheme.eq_ignore_ascii_case(b"http") && !scheme.eq_ignore_ascii_case(b"https") {
        return Err("its scheme is not http or https");
    }
    let rest = bytes.get(colon + 3..).unwrap_or_default();
    let end = rest
        .iter()
        .position(|b| matches!(b, b'/' | b'?' | b'#'))
        .unwrap_or(rest.len());
    let authority = rest.get(..end).unwrap_or_default();
    let host_port = match authority.iter().rposition(|&b| b == b'@') {
        Some(at) => authority.get(at + 1..).unwrap_or_default(),
        None => authority,
    };
    let (host, port) = if host_port.first() == Some(&b'[') {
        let close = host_port
            .iter()
            .position(|&b| b == b']')
            .ok_or("its [host] is not closed")?;
        let host = host_port.get(1..close).unwrap_or_default();
        match host_port.get(close + 1..).unwrap_or_default() {
            [] => (host, None),
            [b':', port @ ..] => (host, Some(port)),
            _ => return Err("it has text after its [host]"),
        }
    } else {
        match host_port.iter().position(|&b| b == b':') {
            Some(c) => (
                host_port.get(..c).unwrap_or_default(),
                Some(host_port.get(c + 1..).unwrap_or_default()),
            ),
            None => (host_port, None),
        }
    };
    if host.is_empty() {
        return Err("it has no host");
    }
    if let Some(port) = port {
        // At most 5 digits (read only then): the value cannot overflow.
        let number = (1..=5).contains(&port.len()) && port.iter().all(u8::is_ascii_digit);
        if !number || port.iter().fold(0u32, |n, &d| n * 10 + u32::from(d - b'0')) > 65_535 {
            return Err("its port is not a number from 0 to 65535");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = include_str!("../spec/payments-api.md");

    /// Every backticked `entity:action` in the live tables of the spec, in order.
    fn spec_section(start: &str, end: &str) -> &'static str {
        let from = SPEC.find(start).unwrap();
        let to = SPEC[from..].find(end).unwrap() + from;
        &SPEC[from..to]
    }

    fn table_names(section: &str) -> Vec<String> {
        section
            .lines()
            .filter_map(|l| l.strip_prefix("| "))
            .filter_map(|l| l.split(" |").next())
            .filter(|n| n.contains(':'))
            .map(str::to_owned)
            .collect()
    }

    fn backticked(section: &str) -> Vec<String> {
        section
            .split('`')
            .skip(1)
            .step_by(2)
            .filter(|n| n.contains(':'))
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn vendored_spec_is_current() {
        // The spec is vendored so the crate builds alone; when the shared folder is beside the
        // checkout, the copy must still equal it.
        let shared = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../shared/spec/payments-api.md"
        );
        if let Ok(text) = std::fs::read_to_string(shared) {
            assert_eq!(
                text, SPEC,
                "core/spec/payments-api.md is stale: copy {shared}"
            );
        }
    }

    #[test]
    fn live_table_matches_spec() {
        let live = table_names(spec_section("### Order events", "### Planned events"));
        assert_eq!(live, LIVE_EVENTS.to_vec());
    }

    #[test]
    fn wildcards_match_spec() {
        let line = SPEC
            .lines()
            .find(|l| l.starts_with("Event names have the form"))
            .unwrap();
        let listed: Vec<String> = backticked(line)
            .into_iter()
            .filter(|n| n.ends_with(":*") && !n.starts_with('<'))
            .collect();
        assert_eq!(listed, WILDCARDS.to_vec());
    }

    #[test]
    fn planned_match_spec() {
        let planned = backticked(spec_section("### Planned events", "The refund states"));
        assert_eq!(planned, PLANNED_EVENTS.to_vec());
    }

    #[test]
    fn catalog_is_disjoint_and_well_formed() {
        for n in LIVE_EVENTS.iter().chain(PLANNED_EVENTS) {
            let p = EventName::parse(n).unwrap();
            assert!(!p.is_wildcard());
        }
        for n in LIVE_EVENTS {
            assert!(!PLANNED_EVENTS.contains(n), "{n}");
        }
    }

    #[test]
    fn planned_added_as_live_becomes_live() {
        let mut c = Catalog::builtin();
        assert_eq!(c.classify("order:refunded"), EventKind::Planned);
        c.add_live("order:refunded").unwrap();
        assert_eq!(c.classify("order:refunded"), EventKind::Live);
        assert!(c.check_registration(&["order:refunded"], 0).is_ok());
    }

    #[test]
    fn empty_registration_is_rejected() {
        let err = Catalog::builtin()
            .check_registration::<&str>(&[], 0)
            .unwrap_err();
        assert_eq!(
            err,
            RegistrationError::ValidationFailed { rejected: vec![] }
        );
    }

    #[test]
    fn body_is_json_with_escaping() {
        let reg = Catalog::builtin()
            .check_registration(&["order:created"], 4)
            .unwrap();
        let body: serde_json::Value =
            serde_json::from_str(&reg.create_webhook_body("https://x.test/a\"b").unwrap()).unwrap();
        assert_eq!(body["url"], "https://x.test/a\"b");
        assert_eq!(body["events"][0], "order:created");
    }

    #[test]
    fn webhook_url_is_an_absolute_http_url_with_a_host() {
        let reg = Catalog::builtin()
            .check_registration(&["order:created"], 0)
            .unwrap();
        for good in [
            "https://example.com/hooks",
            "http://example.com",
            "HTTPS://EXAMPLE.COM/H",
            "https://x.test:8443/h?a=b#c",
            "https://user:pw@x.test/h",
            "http://127.0.0.1:0/",
            "https://[::1]:65535/h",
            "https://[::1]",
            "https://bücher.example/ä",
            "https://x.test?q",
        ] {
            let body: serde_json::Value =
                serde_json::from_str(&reg.create_webhook_body(good).unwrap()).unwrap();
            assert_eq!(body["url"], good);
        }
        for (bad, reason) in [
            ("", "it is empty"),
            ("example.com/hooks", "it is not absolute (no scheme://)"),
            ("/hooks", "it is not absolute (no scheme://)"),
            ("https:example.com", "it is not absolute (no scheme://)"),
            ("ftp://example.com", "its scheme is not http or https"),
            ("javascript://x.test", "its scheme is not http or https"),
            ("://x.test", "its scheme is not http or https"),
            ("https://", "it has no host"),
            ("https:///hooks", "it has no host"),
            ("https://user@/h", "it has no host"),
            ("https://:443/h", "it has no host"),
            ("https://[]/h", "it has no host"),
            ("https://[::1/h", "its [host] is not closed"),
            ("https://[::1]x/h", "it has text after its [host]"),
            (
                "https://x.test:/h",
                "its port is not a number from 0 to 65535",
            ),
            (
                "https://x.test:65536/h",
                "its port is not a number from 0 to 65535",
            ),
            (
                "https://x.test:+1/h",
                "its port is not a number from 0 to 65535",
            ),
            (
                "https://x.test:1:2/h",
                "its port is not a number from 0 to 65535",
            ),
            (
                " https://x.test/h",
                "it holds whitespace or a control character",
            ),
            (
                "https://x.test/h\n",
                "it holds whitespace or a control character",
            ),
            (
                "https://x.test/a b",
                "it holds whitespace or a control character",
            ),
            (
                "https://x.test/\u{0}",
                "it holds whitespace or a control character",
            ),
            (
                "https://x.test/\u{a0}",
                "it holds whitespace or a control character",
            ),
        ] {
            let e = reg.create_webhook_body(bad).unwrap_err();
            assert_eq!(e, RegistrationError::InvalidUrl { reason }, "{bad:?}");
            assert_eq!(e.code(), "INVALID_URL");
            assert!(e.to_string().starts_with("INVALID_URL: ") && e.to_string().ends_with(reason));
        }
    }

    proptest::proptest! {
        // The hardening issue asks for at least 10,000 cases of these properties.
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(10_000))]
        #[test]
        fn classify_never_panics_and_parts_round_trip(s in "\\PC*") {
            let c = Catalog::builtin().classify_name(&s);
            if let Some(p) = c.parts {
                proptest::prop_assert_eq!(format!("{}:{}", p.entity(), p.action()), s);
            } else {
                proptest::prop_assert_eq!(c.kind, EventKind::Invalid);
            }
        }

        #[test]
        fn well_formed_names_round_trip(e in "[a-z][a-z0-9_]{0,12}", a in "[a-z][a-z0-9_]{0,12}") {
            let name = format!("{e}:{a}");
            let p = EventName::parse(&name).unwrap();
            proptest::prop_assert_eq!((p.entity(), p.action()), (e.as_str(), a.as_str()));
            let wildcard = format!("{}:*", e);
            proptest::prop_assert!(Catalog::builtin().matches(&[wildcard], &name));
        }
    }
}
