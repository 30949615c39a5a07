//! The bench's comparison mode, `idempotency_layer(false)`: it really turns the layer
//! off (so the bench's "on / off" ratio measures something), and the default keeps it.
use crate::common;
use common::*;

#[tokio::test]
async fn with_the_layer_off_every_post_executes_and_nothing_is_stored() {
    let psp = start(mock_psp::MockPsp::builder().idempotency_layer(false)).await;
    let a = psp.create_pi(SK_A, "same-key", "1200", "pm_card_visa", &[]).await;
    let b = psp.create_pi(SK_A, "same-key", "1200", "pm_card_visa", &[]).await;
    assert_eq!((a.status, b.status), (200, 200));
    assert!(!a.replayed() && !b.replayed());
    assert_ne!(a.json()["id"], b.json()["id"], "layer off: the same key charges again");
    assert_eq!(psp.all_pis(SK_A).await.len(), 2);
    let st = psp.stats().await;
    assert_eq!(st["charges"], 2, "{st}");
    assert_eq!(st["replays"], 0, "{st}");
    // A decline is executed (and counted) too, with Stripe's 402.
    let d = psp.create_pi(SK_A, "k2", "500", "pm_card_chargeDeclined", &[]).await;
    assert_eq!(d.status, 402);
    assert_eq!(psp.stats().await["declines"], 1);
    // Nothing was claimed or stored.
    let db = psp.dir.path().join("psp.sqlite3");
    let n: i64 = rusqlite::Connection::open(db).unwrap().query_row("SELECT count(*) FROM idem", [], |r| r.get(0)).unwrap();
    assert_eq!(n, 0);
}

#[tokio::test]
async fn by_default_the_layer_is_on() {
    let psp = start_default().await;
    let a = psp.create_pi(SK_A, "same-key", "1200", "pm_card_visa", &[]).await;
    let b = psp.create_pi(SK_A, "same-key", "1200", "pm_card_visa", &[]).await;
    assert_eq!(a.json()["id"], b.json()["id"]);
    assert!(b.replayed());
    assert_eq!(psp.all_pis(SK_A).await.len(), 1);
}
