//! What a server shares between its handlers and threads is `Send + Sync`, checked when this
//! test compiles: the receiver, the claims, the built-in stores, and the documents and walkers
//! a handler keeps.

use std::sync::Arc;

use xborder_core::beneficiary::BeneficiaryValidator;
use xborder_core::claims::{ClaimRules, ClaimTask, Claims, MemoryClaims};
use xborder_core::delivery::{Decision, MemoryWindow, Receiver};
use xborder_core::envelope::Envelope;
use xborder_core::events::Catalog;
use xborder_core::pagination::PageWalker;
use xborder_core::signature::{Signer, Verifier};

fn assert_send_sync<T: Send + Sync>() {}

#[test]
fn what_handlers_share_is_send_and_sync() {
    assert_send_sync::<Receiver>();
    assert_send_sync::<Receiver<MemoryWindow>>();
    assert_send_sync::<Receiver<Arc<MemoryWindow>>>();
    assert_send_sync::<MemoryWindow>();
    assert_send_sync::<Claims>();
    assert_send_sync::<Claims<MemoryClaims>>();
    assert_send_sync::<Claims<&'static MemoryClaims>>();
    assert_send_sync::<MemoryClaims>();
    assert_send_sync::<ClaimTask>();
    assert_send_sync::<ClaimRules>();
    assert_send_sync::<Verifier>();
    assert_send_sync::<Signer>();
    assert_send_sync::<Catalog>();
    assert_send_sync::<Decision>();
    assert_send_sync::<Envelope>();
    assert_send_sync::<BeneficiaryValidator>();
    assert_send_sync::<PageWalker>();
}

/// One receiver and one claims store shared by threads, no lock of the caller's: every id
/// committed (or completed) by one thread is a duplicate for all the others.
#[test]
fn one_receiver_serves_many_threads() {
    let rx = Arc::new(Receiver::new(&["whsec_k"], 1_000).unwrap());
    let claims = Arc::new(Claims::in_memory(ClaimRules::new(30_000), 1_000));
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let (rx, claims) = (Arc::clone(&rx), Arc::clone(&claims));
            std::thread::spawn(move || {
                for i in 0..50 {
                    let id = format!("evt_{t}_{i}");
                    rx.commit(&id).unwrap();
                    let token = format!("r{t}");
                    claims.step("claim", &id, &token, 0).unwrap();
                    claims.step("complete", &id, &token, 1).unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!((rx.store().len(), claims.store().len()), (400, 400));
}
