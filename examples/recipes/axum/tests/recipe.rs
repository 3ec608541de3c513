//! The recipe served on 127.0.0.1:0 and sent real deliveries with a plain HTTP/1.1 client (a
//! TCP socket, the request written by hand): signed, tampered, unsigned, duplicate, concurrent,
//! over the body limit, at the body limit, and a failed persist; once with the claims in memory
//! and once in a real redis-server (several instances on one Redis).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use xborder_core::claims::{ClaimRules, Claims};
use xborder_core::envelope::Limits;
use xborder_core::signature::sign;
use xborder_recipe_axum::{router, App, Dedupe, Events};
use xborder_redis::testing::TestServer;
use xborder_redis::{redis, ConnectionManager, RedisClaims};

const SECRET: &str = "whsec_recipe";

struct Answer {
    status: u16,
    retry_after: Option<String>,
    body: Value,
}

/// POST /webhooks with `body` and, when given, the signature header; `Connection: close`, the
/// answer read to its end.
async fn post(addr: SocketAddr, body: &[u8], signature: Option<&str>) -> Answer {
    let mut head = format!(
        "POST /webhooks HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    if let Some(s) = signature {
        head.push_str(&format!("X-Webhook-Signature: {s}\r\n"));
    }
    head.push_str("\r\n");
    let stream = TcpStream::connect(addr).await.unwrap();
    let (mut rd, mut wr) = stream.into_split();
    let mut request = head.into_bytes();
    request.extend_from_slice(body);
    // Written while the answer is read: a server refusing a long body answers before reading it.
    let writer = tokio::spawn(async move {
        let _ = wr.write_all(&request).await;
        wr
    });
    let mut raw = Vec::new();
    rd.read_to_end(&mut raw).await.unwrap();
    drop(writer.await.unwrap());
    let text = String::from_utf8(raw).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let retry_after = lines
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.eq_ignore_ascii_case("retry-after"))
        .map(|(_, v)| v.trim().to_owned());
    let body = serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body:?}"));
    Answer {
        status,
        retry_after,
        body,
    }
}

fn delivery(id: &str, event: &str, data: &str) -> Vec<u8> {
    let family = event.split(':').next().unwrap();
    format!(r#"{{"id":"{id}","event":"{event}","entity":{{"id":"x_1","type":"{family}","data":{data}}}}}"#)
        .into_bytes()
}

async fn serve(app: App) -> (SocketAddr, Arc<App>) {
    let app = Arc::new(app);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let routes = router(Arc::clone(&app));
    tokio::spawn(async move { axum::serve(listener, routes).await.unwrap() });
    (addr, app)
}

fn events(delay_ms: u64) -> Events {
    Events::with_delay(Duration::from_millis(delay_ms))
}

/// Everything one instance is sent, with its claims in `claims`.
async fn deliveries_are_answered_with_cores_statuses(claims: Dedupe) {
    let rules = ClaimRules::new(2_000);
    let app = App::new(SECRET, Limits::default(), claims, rules, events(200), "i1").unwrap();
    let (addr, app) = serve(app).await;

    // Signed: persisted, 200.
    let body = delivery("evt_1", "order:success", r#"{"amount":"10.00"}"#);
    let sig = sign(SECRET.as_bytes(), &body).unwrap();
    let a = post(addr, &body, Some(&sig)).await;
    assert_eq!(
        (a.status, a.body["action"].as_str()),
        (200, Some("process")),
        "{}",
        a.body
    );
    assert_eq!(a.body["complete"], "completed");
    assert_eq!(app.events.len().await, 1);

    // The same delivery again: a duplicate, 200, nothing persisted again.
    let a = post(addr, &body, Some(&sig)).await;
    assert_eq!(
        (a.status, a.body["action"].as_str()),
        (200, Some("duplicate")),
        "{}",
        a.body
    );

    // Tampered (one byte of the body changed): 400, core's code.
    let tampered = delivery("evt_1", "order:success", r#"{"amount":"99.00"}"#);
    let a = post(addr, &tampered, Some(&sig)).await;
    assert_eq!(
        (a.status, a.body["error"]["code"].as_str()),
        (400, Some("SIGNATURE_MISMATCH"))
    );
    // No header: 400.
    let a = post(addr, &body, None).await;
    assert_eq!(
        (a.status, a.body["error"]["code"].as_str()),
        (400, Some("MISSING_SIGNATURE"))
    );
    // Signed but not an envelope: 400 with the field.
    let no_id = br#"{"event":"order:success","entity":{"id":"o","type":"order"}}"#;
    let a = post(addr, no_id, Some(&sign(SECRET.as_bytes(), no_id).unwrap())).await;
    assert_eq!(
        (a.status, a.body["error"]["code"].as_str()),
        (400, Some("MISSING_FIELD"))
    );
    assert_eq!(a.body["error"]["field"], "id");
    // A name this release does not know: 200, ignored, nothing persisted.
    let later = delivery("evt_2", "order:refunded_twice", "{}");
    let a = post(
        addr,
        &later,
        Some(&sign(SECRET.as_bytes(), &later).unwrap()),
    )
    .await;
    assert_eq!((a.status, a.body["action"].as_str()), (200, Some("ignore")));
    assert_eq!(app.events.len().await, 1);

    // Too large: one byte over the receiver's limit, refused by the body limit in core's
    // format (413, BODY_TOO_LARGE), whether signed or not.
    let limit = Limits::default().max_body_bytes;
    let pad = |total: usize, id: &str| {
        let shell = delivery(id, "order:created", r#"{"pad":""}"#);
        let fill = "x".repeat(total - shell.len());
        delivery(id, "order:created", &format!(r#"{{"pad":"{fill}"}}"#))
    };
    let big = pad(limit + 1, "evt_big");
    assert_eq!(big.len(), limit + 1);
    let a = post(addr, &big, Some(&sign(SECRET.as_bytes(), &big).unwrap())).await;
    assert_eq!(
        (a.status, a.body["error"]["code"].as_str()),
        (413, Some("BODY_TOO_LARGE")),
        "{}",
        a.body
    );
    let a = post(addr, &vec![b' '; 3 * limit], None).await; // over axum's default 2 MB too
    assert_eq!(
        (a.status, a.body["error"]["code"].as_str()),
        (413, Some("BODY_TOO_LARGE"))
    );
    // At the limit exactly: accepted by both limits, processed.
    let fits = pad(limit, "evt_fits");
    assert_eq!(fits.len(), limit);
    let a = post(addr, &fits, Some(&sign(SECRET.as_bytes(), &fits).unwrap())).await;
    assert_eq!(
        (a.status, a.body["action"].as_str()),
        (200, Some("process")),
        "{}",
        a.body
    );

    // A delivery and its retry at once (the persist takes 200 ms): one is processed, the other
    // told to come back (503 with Retry-After: the lease in seconds), then a duplicate.
    let body = delivery("evt_3", "sender:created", "{}");
    let sig = sign(SECRET.as_bytes(), &body).unwrap();
    let (a, b) = tokio::join!(post(addr, &body, Some(&sig)), async {
        tokio::time::sleep(Duration::from_millis(50)).await;
        post(addr, &body, Some(&sig)).await
    });
    assert_eq!((a.status, b.status), (200, 503), "{} / {}", a.body, b.body);
    assert_eq!(b.retry_after.as_deref(), Some("2"));
    assert_eq!(
        post(addr, &body, Some(&sig)).await.body["action"],
        "duplicate"
    );

    // Persisting fails: released, 500, and the provider's retry is processed.
    app.events.fail_next.store(true, Ordering::SeqCst);
    let body = delivery("evt_4", "order:created", "{}");
    let sig = sign(SECRET.as_bytes(), &body).unwrap();
    let a = post(addr, &body, Some(&sig)).await;
    assert_eq!(
        (a.status, a.body["error"]["code"].as_str()),
        (500, Some("PERSIST_FAILED"))
    );
    let a = post(addr, &body, Some(&sig)).await;
    assert_eq!(
        (a.status, a.body["action"].as_str()),
        (200, Some("process"))
    );
    assert_eq!(app.events.len().await, 4); // evt_1, evt_fits, evt_3, evt_4
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_instance_claims_in_memory() {
    let claims = Dedupe::Memory(Claims::in_memory(ClaimRules::new(2_000), 10_000));
    deliveries_are_answered_with_cores_statuses(claims).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instances_share_claims_in_redis() {
    let server = TestServer::start().unwrap_or_else(|e| panic!("{e}"));
    let conn = || async {
        let client = redis::Client::open(server.url()).unwrap();
        ConnectionManager::new(client).await.unwrap()
    };
    let rules = ClaimRules::new(2_000);
    deliveries_are_answered_with_cores_statuses(Dedupe::Redis(RedisClaims::new(
        conn().await,
        rules,
        "a:",
    )))
    .await;

    // Two instances on one Redis: a delivery processed by one is a duplicate for the other.
    let one = App::new(
        SECRET,
        Limits::default(),
        Dedupe::Redis(RedisClaims::new(conn().await, rules, "b:")),
        rules,
        events(0),
        "i1",
    )
    .unwrap();
    let two = App::new(
        SECRET,
        Limits::default(),
        Dedupe::Redis(RedisClaims::new(conn().await, rules, "b:")),
        rules,
        events(0),
        "i2",
    )
    .unwrap();
    let ((a1, _), (a2, app2)) = (serve(one).await, serve(two).await);
    let body = delivery("evt_9", "order:created", "{}");
    let sig = sign(SECRET.as_bytes(), &body).unwrap();
    assert_eq!(post(a1, &body, Some(&sig)).await.body["action"], "process");
    let a = post(a2, &body, Some(&sig)).await;
    assert_eq!(
        (a.status, a.body["action"].as_str()),
        (200, Some("duplicate"))
    );
    assert!(app2.events.is_empty().await);
}

/// A secret pasted with its line end stops the app at start-up.
#[test]
fn a_pasted_secret_is_refused_at_start_up() {
    let claims = Dedupe::Memory(Claims::in_memory(ClaimRules::default(), 10));
    let e = App::new(
        "whsec_k\n",
        Limits::default(),
        claims,
        ClaimRules::default(),
        Events::default(),
        "i",
    )
    .err()
    .unwrap();
    assert_eq!(e.code(), "MALFORMED_SECRET");
}
