//! An exchange of a sale restored from a replaced register (record 0153), end to end: the real
//! `paydesk-cli` binary, the real mock PSP over loopback, real ledger files and the real back
//! office on a private PostgreSQL. Register A sells a mug (1000) and two teas (350), 600 by
//! card and the rest in cash, and syncs; the owner replaces A; B pairs and restores A.
//! 1. A's mug comes back for a tea of B's: the tea is paid by the credit (350, out of A's
//!    card first); the difference goes back once: 250 to A's card under a new key of B's, 400
//!    out of B's drawer.
//! 2. A's two teas come back for a mug of B's: all 700 is credit (A's card has nothing left,
//!    so out of A's cash); B's mug is charged once at the PSP for its due of 300.
//! 3. Nothing of A's sale is left: a third exchange is refused (`return_exceeds_sold`).
//! 4. The tea of the first new sale comes back (record 0156): its credit goes back where it
//!    came from, A's card: one more refund of A's payment (350, a new key of B's), which now
//!    has its 600 back and no more; B's drawer unmoved. Again is refused, and a refund by
//!    amount finds nothing left (`sale_refund_exceeds`).
//!    The back office takes both restored returns under A's sale, B's return under B's sale,
//!    both new sales, the refunds of A's payment, once each, and nets them.
//!
//! And record 0156's give-back partly in cash out of B's drawer, with a refund by hand of A's
//! payment refused while an exchange credit holds what it has left (record 0158):
//! `a_restored_credit_goes_back_partly_out_of_the_drawer_once_and_the_back_office_nets_it`.
use crate::common;
use crate::support;

use common::*;
use serde_json::{json, Value};
use std::path::Path;

async fn pair(db: &Path, url: &str, code: &str) -> Value {
    let r = sync_pair(db, url, code).await;
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    r.json()
}

async fn sale(db: &Path, url: &str, args: &[&str]) -> Run {
    let mut a = vec!["sale"];
    a.extend_from_slice(args);
    run(db, url, &[], &a).await
}

async fn drawer(db: &Path, url: &str) -> i64 {
    let day = sale(db, url, &["day"]).await.json();
    day["expected_drawer"].as_array().into_iter().flatten().find(|d| d[0] == "usd").and_then(|d| d[1].as_i64()).unwrap_or(0)
}

async fn products(db: &Path, url: &str) {
    for (sku, name, price) in [("MUG", "Mug", "1000"), ("TEA", "Green tea", "350")] {
        let p = sale(db, url, &["product", "--sku", sku, "--name", name, "--price", price, "--currency", "usd"]).await;
        assert_eq!(p.code, Some(0), "{}{}", p.stdout, p.stderr);
    }
}

/// Register A, paired as "Front till", sells a mug (1000) and two teas (350): 600 by card
/// and the 1100 due in cash, and syncs. Returns A's id, the cart and the card step's run.
async fn predecessor_sale(db_a: &Path, url: &str, h: &support::Harness, store: &str) -> (String, i64, Run) {
    let a = pair(db_a, &h.url, &h.owner.pairing_code(store, "Front till").await.unwrap()).await;
    let a_id = a["register_id"].as_str().unwrap().to_string();
    products(db_a, url).await;
    let cart = sale(db_a, url, &["new", "--currency", "usd", "--item", "MUG", "--item", "TEA:2"]).await.json()["cart_id"].as_i64().unwrap();
    let card = sale(db_a, url, &["card", "--cart", &cart.to_string(), "--amount", "600"]).await;
    assert_eq!(card.code, Some(0), "{}{}", card.stdout, card.stderr);
    assert_eq!(card.json()["sale"]["due"].as_i64(), Some(1100), "{}", card.stdout);
    let cash = sale(db_a, url, &["cash", "--cart", &cart.to_string(), "--tendered", "1100"]).await;
    assert_eq!(cash.code, Some(0), "{}{}", cash.stdout, cash.stderr);
    let r = sync_cmd(db_a, &["run", "--once"], &[]).await;
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    (a_id, cart, card)
}

/// The scene of both tests: A's sale (`predecessor_sale`) synced, A replaced and its ledger
/// gone, B paired as "Front till" with A's history restored and the products entered;
/// `before` is B's expected drawer then.
struct Replaced {
    _dirs: (tempfile::TempDir, tempfile::TempDir),
    db_b: std::path::PathBuf,
    psp: Psp,
    url: String,
    h: support::Harness,
    store: String,
    a_id: String,
    b_id: String,
    cart: i64,
    card: Run,
    before: i64,
}

async fn replaced() -> Replaced {
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (db_a, db_b) = (dir_a.path().join("ledger.db"), dir_b.path().join("ledger.db"));
    let psp_dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(psp_dir.path()).await;
    let url = psp.url();
    let h = support::Harness::start().await;
    let store = h.owner.create_store("Main St").await.unwrap();
    let (a_id, cart, card) = predecessor_sale(&db_a, &url, &h, &store).await;
    drop(dir_a);
    h.owner.post(&format!("/admin/stores/{store}/registers/{a_id}/replace"), &json!({})).await.unwrap();
    let b = pair(&db_b, &h.url, &h.owner.pairing_code(&store, "Front till").await.unwrap()).await;
    let b_id = b["register_id"].as_str().unwrap().to_string();
    let r = sync_cmd(&db_b, &["restore", "--from", &a_id], &[]).await;
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    products(&db_b, &url).await;
    let before = drawer(&db_b, &url).await;
    Replaced { _dirs: (dir_b, psp_dir), db_b, psp, url, h, store, a_id, b_id, cart, card, before }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replacement_exchanges_its_predecessors_sale_refunding_once_charging_once_and_the_back_office_nets_it() {
    let Replaced { _dirs, db_b, psp, url, h, store, a_id, b_id, cart, card, before } = replaced().await;
    let pi = card.json()["checkout"]["psp_payment_id"].as_str().unwrap().to_string();

    // 1. The mug for a tea, by receipt number.
    let n1 = sale(&db_b, &url, &["new", "--currency", "usd", "--item", "TEA"]).await.json()["cart_id"].as_i64().unwrap();
    let x = sale(&db_b, &url, &["exchange", "--receipt", &format!("{cart:06}"), "--line", "0:1", "--into", &n1.to_string(), "--reason", "swap", "--json"]).await;
    assert_eq!(x.code, Some(0), "{}{}", x.stdout, x.stderr);
    let j = x.json();
    assert_eq!((j["credit"].as_i64(), j["return"]["total_minor"].as_i64(), j["return"]["number"].as_str()), (Some(350), Some(1000), Some(format!("{cart:06}-R1").as_str())), "{j}");
    assert_eq!((j["new_sale"]["state"].as_str(), j["new_sale"]["due"].as_i64()), (Some("paid"), Some(0)), "{j}");
    let refunds = j["card_refunds"].as_array().unwrap();
    assert_eq!(refunds.len(), 1, "{j}");
    assert_eq!((refunds[0]["amount"].as_i64(), refunds[0]["state"].as_str()), (Some(250), Some("succeeded")), "{j}");
    let key = refunds[0]["refund_key"].as_str().unwrap().to_string();
    assert_eq!(j["cash_out"].as_i64(), Some(400), "{j}");
    let at_psp = psp.get(&format!("/v1/refunds?payment_intent={pi}")).await;
    let data = at_psp["data"].as_array().unwrap();
    assert_eq!(data.len(), 1, "exactly one refund of A's payment: {at_psp}");
    assert_eq!((data[0]["amount"].as_i64(), data[0]["metadata"]["refund_key"].as_str()), (Some(250), Some(key.as_str())), "{at_psp}");
    assert_eq!(drawer(&db_b, &url).await, before - 400);

    // 2. The two teas for a mug, by predecessor and sale id: all credit, the rest charged once.
    let n2 = sale(&db_b, &url, &["new", "--currency", "usd", "--item", "MUG"]).await.json()["cart_id"].as_i64().unwrap();
    let x = sale(&db_b, &url, &["exchange", "--restored-from", &a_id, "--sale", &cart.to_string(), "--line", "1:2", "--into", &n2.to_string(), "--json"]).await;
    assert_eq!(x.code, Some(0), "{}{}", x.stdout, x.stderr);
    let j = x.json();
    assert_eq!((j["credit"].as_i64(), j["card_refunds"].as_array().map(Vec::len), j["cash_out"].as_i64()), (Some(700), Some(0), Some(0)), "{j}");
    assert_eq!(j["new_sale"]["due"].as_i64(), Some(300), "{j}");
    let pay = sale(&db_b, &url, &["card", "--cart", &n2.to_string(), "--amount", "300"]).await;
    assert_eq!(pay.code, Some(0), "{}{}", pay.stdout, pay.stderr);
    assert_eq!(pay.json()["sale"]["state"].as_str(), Some("paid"), "{}", pay.stdout);
    let b_pi = pay.json()["checkout"]["psp_payment_id"].as_str().unwrap().to_string();
    let charged = psp.get(&format!("/v1/payment_intents/{b_pi}")).await;
    assert_eq!((charged["amount"].as_i64(), charged["status"].as_str()), (Some(300), Some("succeeded")), "{charged}");
    assert_eq!(psp.get(&format!("/v1/refunds?payment_intent={pi}")).await["data"].as_array().unwrap().len(), 1, "no second refund of A's payment");

    // 3. Nothing is left of A's sale.
    let n3 = sale(&db_b, &url, &["new", "--currency", "usd", "--item", "TEA"]).await.json()["cart_id"].as_i64().unwrap();
    let over = sale(&db_b, &url, &["exchange", "--restored-from", &a_id, "--sale", &cart.to_string(), "--line", "1:1", "--into", &n3.to_string()]).await;
    assert_eq!((over.code, over.json()["error"]["code"].as_str()), (Some(1), Some("return_exceeds_sold")), "{}", over.stdout);

    // 4. The first new sale's tea comes back: all of it was credit out of A's card, so it
    //    goes back to A's card, once, under a new key; A's payment then has its 600 back.
    let back = sale(&db_b, &url, &["return", "--cart", &n1.to_string(), "--line", "0:1", "--json"]).await;
    assert_eq!(back.code, Some(0), "{}{}", back.stdout, back.stderr);
    let j = back.json();
    let refunds = j["card_refunds"].as_array().unwrap();
    assert_eq!(refunds.len(), 1, "{j}");
    assert_eq!((refunds[0]["amount"].as_i64(), refunds[0]["state"].as_str()), (Some(350), Some("succeeded")), "{j}");
    let key2 = refunds[0]["refund_key"].as_str().unwrap().to_string();
    assert_ne!(key2, key, "a new key");
    assert_eq!(j["cash_out"].as_i64(), Some(0), "{j}");
    let at_psp = psp.get(&format!("/v1/refunds?payment_intent={pi}")).await;
    let mut got: Vec<(Option<i64>, Option<String>)> = at_psp["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["amount"].as_i64(), r["metadata"]["refund_key"].as_str().map(str::to_string)))
        .collect();
    got.sort();
    assert_eq!(got, [(Some(250), Some(key.clone())), (Some(350), Some(key2.clone()))], "two refunds of A's payment, each once: {at_psp}");
    assert_eq!(drawer(&db_b, &url).await, before - 400, "nothing more left the drawer");
    let again = sale(&db_b, &url, &["return", "--cart", &n1.to_string(), "--line", "0:1"]).await;
    assert_eq!((again.code, again.json()["error"]["code"].as_str()), (Some(1), Some("return_exceeds_sold")), "{}", again.stdout);
    let more = sale(&db_b, &url, &["refund", "--cart", &n1.to_string(), "--amount", "1"]).await;
    assert_eq!((more.code, more.json()["error"]["code"].as_str()), (Some(1), Some("sale_refund_exceeds")), "{}{}", more.stdout, more.stderr);
    assert_eq!(psp.get(&format!("/v1/refunds?payment_intent={pi}")).await["data"].as_array().unwrap().len(), 2, "no third refund of A's payment");

    // Up: both returns under A's sale (taken by B), both new sales as B's, netted once.
    let r = sync_cmd(&db_b, &["run", "--once"], &[]).await;
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    assert_eq!(sync_cmd(&db_b, &["status"], &[]).await.json()["queued"].as_u64(), Some(0));
    assert_eq!(h.count(&format!("SELECT sum(total)::int8 FROM sale_returns WHERE register_id::text = '{a_id}' AND taken_by::text = '{b_id}'")).await, 1700);
    assert_eq!(h.count(&format!("SELECT sum(amount)::int8 FROM cash_refunds WHERE register_id::text = '{a_id}' AND drawer_register_id::text = '{b_id}'")).await, 400);
    assert_eq!(h.count(&format!("SELECT sum(total)::int8 FROM sales WHERE register_id::text = '{b_id}'")).await, 1350);
    assert_eq!(h.count(&format!("SELECT sum(total)::int8 FROM sale_returns WHERE register_id::text = '{b_id}'")).await, 350);
    let d = h.owner.get("/admin/dashboard").await.unwrap();
    let net = d["sales_net"].as_array().unwrap().iter().find(|s| s["store_id"] == store.as_str()).unwrap().clone();
    assert_eq!(
        (net["sales"].as_i64(), net["sold"].as_i64(), net["returned"].as_i64(), net["net"].as_i64()),
        (Some(3), Some(1700 + 1350), Some(1700 + 350), Some(1350 - 350)),
        "{net}"
    );
}

/// The count of `sql` (one bigint) in the back office, 0 for NULL.
async fn figure(h: &support::Harness, sql: &str) -> i64 {
    h.count(&format!("SELECT coalesce(({sql}), 0)::int8")).await
}

/// The refunds of A's payment at the PSP as (amount, refund key), sorted.
async fn psp_refunds(psp: &Psp, pi: &str) -> Vec<(i64, String)> {
    let at_psp = psp.get(&format!("/v1/refunds?payment_intent={pi}")).await;
    let mut got: Vec<(i64, String)> = at_psp["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["amount"].as_i64().unwrap(), r["metadata"]["refund_key"].as_str().unwrap().to_string()))
        .collect();
    got.sort();
    got
}

/// Record 0156's give-back partly in cash, with the real back office (record 0158). A sells a
/// mug (1000) and two teas (350 each): 600 by card, 1100 in cash. At B:
/// 1. one tea comes back (restored return): 350 on A's card, which then has 250 left;
/// 2. A's mug pays B's mug (1000): a credit of 250 out of A's card and 750 out of A's cash;
///    no money moves;
/// 3. a refund by hand of A's payment is refused: its 250 left pays B's mug (before record
///    0158 it went through, and the customer got those 250 twice);
/// 4. B's mug comes back: the credit goes back where it came from, 250 on A's card (one more
///    refund under a new key) and 750 out of B's drawer;
/// 5. the other tea comes back (a return after the give-back): A's card has nothing left,
///    A's cash 350, so 350 out of B's drawer;
/// 6. nothing is left anywhere: every route refused, nothing sent.
///    The PSP: two refunds of A's payment (350, 250) = the 600 it paid. B's drawer: down
///    750 + 350 = 1100 = A's cash. The back office: both cash give-backs as cash refunds of
///    A's sale out of B's drawer (1100), returns 1700 under A's sale and 1000 under B's, net
///    0, nothing refused or held.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restored_credit_goes_back_partly_out_of_the_drawer_once_and_the_back_office_nets_it() {
    let Replaced { _dirs, db_b, psp, url, h, store, a_id, b_id, cart, card, before } = replaced().await;
    let pi = card.json()["checkout"]["psp_payment_id"].as_str().unwrap().to_string();
    let a_key = card.json()["checkout"]["checkout_key"].as_str().unwrap().to_string();
    let restored = |line: &'static str| {
        let (a_id, cart) = (a_id.clone(), cart.to_string());
        let (db, url) = (db_b.clone(), url.clone());
        async move { sale(&db, &url, &["return", "--restored-from", &a_id, "--sale", &cart, "--line", line, "--json"]).await }
    };

    // 1. One tea back: all of it to A's card.
    let t1 = restored("1:1").await;
    assert_eq!(t1.code, Some(0), "{}{}", t1.stdout, t1.stderr);
    let j = t1.json();
    let k1 = j["card_refunds"][0]["refund_key"].as_str().unwrap().to_string();
    assert_eq!((j["card_refunds"].as_array().map(Vec::len), j["card_refunds"][0]["amount"].as_i64(), j["cash_out"].as_i64()), (Some(1), Some(350), Some(0)), "{j}");

    // 2. A's mug for B's mug: all credit, 250 of it out of A's card, 750 out of A's cash.
    let n1 = sale(&db_b, &url, &["new", "--currency", "usd", "--item", "MUG"]).await.json()["cart_id"].as_i64().unwrap();
    let x = sale(&db_b, &url, &["exchange", "--restored-from", &a_id, "--sale", &cart.to_string(), "--line", "0:1", "--into", &n1.to_string(), "--json"]).await;
    assert_eq!(x.code, Some(0), "{}{}", x.stdout, x.stderr);
    let j = x.json();
    assert_eq!((j["credit"].as_i64(), j["card_refunds"].as_array().map(Vec::len), j["cash_out"].as_i64()), (Some(1000), Some(0), Some(0)), "{j}");
    assert_eq!((j["new_sale"]["state"].as_str(), j["new_sale"]["due"].as_i64()), (Some("paid"), Some(0)), "{j}");
    assert_eq!(drawer(&db_b, &url).await, before);

    // 3. A refund by hand of A's payment (a row of B's ledger since step 1): its 250 left pay
    //    B's mug, so nothing is refundable by hand; nothing sent.
    for amount in [None, Some("1")] {
        let mut args = vec!["refund", "--payment", a_key.as_str()];
        args.extend(amount.iter().flat_map(|a| ["--amount", *a]));
        let by_hand = run(&db_b, &url, &[], &args).await;
        assert_eq!((by_hand.code, by_hand.json()["error"]["code"].as_str()), (Some(1), Some("refund_exceeds_captured")), "{}{}", by_hand.stdout, by_hand.stderr);
    }
    assert_eq!(psp_refunds(&psp, &pi).await, [(350, k1.clone())], "only the tea's refund");

    // 4. B's mug back: the credit goes back where it came from, A's card then B's drawer.
    let back = sale(&db_b, &url, &["return", "--cart", &n1.to_string(), "--line", "0:1", "--json"]).await;
    assert_eq!(back.code, Some(0), "{}{}", back.stdout, back.stderr);
    let j = back.json();
    assert_eq!((j["card_refunds"].as_array().map(Vec::len), j["card_refunds"][0]["amount"].as_i64(), j["cash_out"].as_i64()), (Some(1), Some(250), Some(750)), "{j}");
    assert_eq!(j["card_refunds"][0]["state"].as_str(), Some("succeeded"), "{j}");
    let k2 = j["card_refunds"][0]["refund_key"].as_str().unwrap().to_string();
    let mut want = vec![(250, k2.clone()), (350, k1.clone())];
    want.sort();
    assert_eq!(psp_refunds(&psp, &pi).await, want, "A's card: its 600 back in two refunds, each once");
    assert_eq!(drawer(&db_b, &url).await, before - 750, "the credit's cash out of B's drawer");

    // 5. The other tea, after the give-back: A's card has nothing left; A's cash 1100 less
    //    the 750 given back = 350, all of the tea.
    let t2 = restored("1:1").await;
    assert_eq!(t2.code, Some(0), "{}{}", t2.stdout, t2.stderr);
    assert_eq!((t2.json()["card_refunds"].as_array().map(Vec::len), t2.json()["cash_out"].as_i64()), (Some(0), Some(350)), "{}", t2.stdout);
    assert_eq!(drawer(&db_b, &url).await, before - 1100, "A's cash, all of it, once");

    // 6. Nothing is left of either sale: every route refused, nothing sent or paid out.
    let again = sale(&db_b, &url, &["return", "--cart", &n1.to_string(), "--line", "0:1"]).await;
    assert_eq!((again.code, again.json()["error"]["code"].as_str()), (Some(1), Some("return_exceeds_sold")), "{}", again.stdout);
    let more = sale(&db_b, &url, &["refund", "--cart", &n1.to_string(), "--amount", "1"]).await;
    assert_eq!((more.code, more.json()["error"]["code"].as_str()), (Some(1), Some("sale_refund_exceeds")), "{}{}", more.stdout, more.stderr);
    let over = restored("1:1").await;
    assert_eq!((over.code, over.json()["error"]["code"].as_str()), (Some(1), Some("return_exceeds_sold")), "{}", over.stdout);
    // A's payment has its 600 back: refunded, nothing left to refund by hand.
    let by_hand = run(&db_b, &url, &[], &["refund", "--payment", &a_key, "--amount", "1"]).await;
    assert_eq!((by_hand.code, by_hand.json()["error"]["code"].as_str()), (Some(1), Some("wrong_state")), "{}", by_hand.stdout);
    assert_eq!(psp_refunds(&psp, &pi).await.len(), 2, "no third refund of A's payment");
    assert_eq!(drawer(&db_b, &url).await, before - 1100);

    // Up: nothing refused or held; each cash give-back once, under A's sale, out of B's drawer.
    let r = sync_cmd(&db_b, &["run", "--once"], &[]).await;
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    assert_eq!(sync_cmd(&db_b, &["status"], &[]).await.json()["queued"].as_u64(), Some(0), "every fact taken");
    assert_eq!(figure(&h, "SELECT count(*) FROM held_batches").await, 0, "no batch held back");
    let cash_rows = |w: &str| format!("SELECT sum(amount) FROM cash_refunds WHERE {w}");
    assert_eq!(figure(&h, &cash_rows(&format!("register_id::text = '{a_id}' AND drawer_register_id::text = '{b_id}'"))).await, 750 + 350);
    assert_eq!(figure(&h, &format!("SELECT count(*) FROM cash_refunds WHERE drawer_register_id::text = '{b_id}'")).await, 2, "two drawer movements, one row each");
    assert_eq!(figure(&h, &cash_rows(&format!("register_id::text = '{b_id}'"))).await, 0, "none counted under B's own sale again");
    assert_eq!(figure(&h, &format!("SELECT sum(amount) FROM refunds WHERE checkout_key = '{a_key}' AND state = 'succeeded'")).await, 600);
    assert_eq!(figure(&h, &format!("SELECT count(*) FROM refunds WHERE checkout_key = '{a_key}'")).await, 2);
    assert_eq!(figure(&h, &format!("SELECT sum(total) FROM sale_returns WHERE register_id::text = '{a_id}' AND taken_by::text = '{b_id}'")).await, 1700);
    assert_eq!(figure(&h, &format!("SELECT sum(total) FROM sale_returns WHERE register_id::text = '{b_id}'")).await, 1000);
    assert_eq!(figure(&h, &format!("SELECT sum(total) FROM sales WHERE register_id::text = '{b_id}'")).await, 1000);
    let d = h.owner.get("/admin/dashboard").await.unwrap();
    let net = d["sales_net"].as_array().unwrap().iter().find(|s| s["store_id"] == store.as_str()).unwrap().clone();
    assert_eq!(
        (net["sales"].as_i64(), net["sold"].as_i64(), net["returned"].as_i64(), net["net"].as_i64(), net["cash_refunded"].as_i64()),
        (Some(2), Some(1700 + 1000), Some(1700 + 1000), Some(0), Some(1100)),
        "{net}"
    );
}
