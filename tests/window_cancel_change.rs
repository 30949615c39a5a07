//! A sale whose card was accepted offline and declined when forwarded, after a gift card
//! that gives change paid the rest, in the real window (issue #29, records 0028 and 0148).
//! While the customer is still at the counter the panel stops saying "paid" and shows what is
//! due again; the sale is canceled, and the cashier is told to give the gift card's value back
//! and take its change back. Checked beyond the screen: the drawer expects what it did before
//! the sale, the ledger's sale is canceled, and the processor charged nothing. Japanese at
//! 1024x768 and English at 1280x800.

use paydesk_e2e::thirtyfour::prelude::*;
use paydesk_e2e::{App, Launch, LONG};
use paydesk_ledger::{CartId, Ledger, SaleState};
use serde_json::Value;

/// A yen demo store at `width`x`height`.
fn launch(width: u32, height: u32) -> Launch {
    let mut l = Launch { width, height, ..Launch::default() };
    l.env.push(("PAYDESK_DEMO_STORE".into(), "ja-JP".into()));
    l
}

fn ledger(app: &App) -> Ledger {
    Ledger::open(app.data_dir.join("ledger.db")).unwrap()
}

fn expected_drawer(app: &App) -> i64 {
    ledger(app).sales().expected_drawer().unwrap().iter().map(|(_, m)| *m).sum()
}

/// What the cancel told the cashier, as the screen has it.
struct Told {
    store_lines: Value,
    change: String,
    message: String,
}

/// ¥800 (muffin, egg sandwich, sparkling water): ¥300 on a card the processor will decline,
/// accepted offline while the processor is unreachable; a change-giving gift card of ¥1,000
/// for the ¥500 left (¥500 change from the drawer); the processor back, the card declined at
/// forwarding; then Cancel sale (F8) with a reason. Screenshots named after `shot`; the gift
/// card's row then reads `handed_back`.
async fn sell_reopen_and_cancel(app: &App, shot: &str, handed_back: &str) -> Told {
    let psp = app.psp().await;
    let gift = app
        .js("return window.__TAURI__.core.invoke('add_tender_type', { form: { name: 'ギフトカード', kind: 'voucher', gives_change: true, counts_for_stamp: false } }).then((t) => t.id)")
        .await
        .as_i64()
        .unwrap();
    let before = expected_drawer(app);
    app.key(Key::F1).await;
    app.scan_up(&["MUF-001", "SAN-001", "WAT-001"], "¥800").await;
    let cart = CartId(app.js("return window.__TAURI__.core.invoke('get_cart').then((c) => c.id)").await.as_i64().unwrap());

    psp.set_offline(true).await;
    app.key(Key::F7).await;
    app.el("#card-form #card-amount").await;
    app.js("document.getElementById('tender-card-method').value = 'pm_card_chargeDeclined'; document.getElementById('card-amount').value = '300'; return true").await;
    app.el("#card-form #card-amount").await.send_keys(Key::Enter).await.unwrap();
    app.wait_js("const t = document.getElementById('tender'); return t.dataset.busy !== 'true' && t.dataset.tenders === '1'", "the card accepted offline", LONG)
        .await;

    app.key(Key::F6).await;
    app.el("#cash-form").await;
    app.click(&format!("#tender-store-{gift}")).await;
    let amount = app.el("#store-form #store-amount").await;
    amount.clear().await.unwrap();
    amount.send_keys("1000").await.unwrap();
    app.el("#store-form #store-reference").await.send_keys("GC-9").await.unwrap();
    amount.send_keys(Key::Enter).await.unwrap();
    app.wait_js("return document.getElementById('tender-done')?.dataset.state === 'paid'", "the sale paid", LONG).await;
    assert_eq!(app.el("#store-change").await.attr("data-minor").await.unwrap().as_deref(), Some("500"));
    assert_eq!(expected_drawer(app), before - 500, "the change left the drawer");

    // The processor back: the forwarded card is declined and the sale reopens. The panel,
    // still on screen, stops saying paid: ¥300 is due and the tender buttons are back.
    psp.set_offline(false).await;
    app.wait_js(
        "const t = document.getElementById('tender'); return t.dataset.state === 'unpaid_balance' && !!document.getElementById('tender-msg') \
         && document.getElementById('tender-due').dataset.minor === '300' && !document.getElementById('tender-cancel').disabled",
        "the panel showing the balance reopened",
        LONG,
    )
    .await;
    assert_eq!(ledger(app).sales().by_cart(cart).unwrap().state, SaleState::UnpaidBalance);
    assert!(app.js("return document.getElementById('tender-done') === null").await.as_bool().unwrap(), "no 'paid' left on the panel");
    assert!(app.text("#tender-msg").await.contains("¥300"));
    app.screenshot(&format!("{shot}-reopened")).await;

    // Cancel: the gift card's ¥1,000 and its slip named, ¥500 to take back.
    app.key(Key::F8).await;
    let reason = app.el("#cancel-reason").await;
    reason.send_keys("customer gave it all back").await.unwrap();
    reason.send_keys(Key::Enter).await.unwrap();
    app.wait_js("return document.getElementById('tender-done')?.dataset.state === 'canceled'", "the sale canceled", LONG).await;
    app.screenshot(&format!("{shot}-canceled")).await;
    let gift_row = app.js("return document.querySelector(\"#tender-list li[data-kind='store']\").textContent").await;
    assert!(gift_row.as_str().unwrap().contains(handed_back), "the gift card's row says it went back: {gift_row}");
    let told = Told {
        store_lines: app.js("return [...document.querySelectorAll('#cancel-lines li[data-kind=store]')].map((li) => li.textContent)").await,
        change: app.text("#change-collected").await,
        message: app.text("#tender-done p").await,
    };

    // Beyond the screen: the drawer as before the sale, the sale canceled, nothing charged.
    assert_eq!(expected_drawer(app), before, "the change came back into the drawer");
    let l = ledger(app);
    let sale = l.sales().by_cart(cart).unwrap();
    assert_eq!(sale.state, SaleState::Canceled);
    let key = sale.tenders.iter().find_map(|t| t.checkout_key.clone()).expect("the card's key");
    let intents = psp.intents_for(&key).await;
    assert!(intents.iter().all(|i| i["status"] != "succeeded"), "the declined card was never charged: {intents:?}");
    assert_eq!(psp.stats().await["refunds"].as_u64(), Some(0), "nothing to refund");
    told
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_japanese_at_1024x768_the_reopened_sale_is_canceled_and_the_change_comes_back() {
    let app = App::start("cancel-change-ja", launch(1024, 768)).await;
    let told = sell_reopen_and_cancel(&app, "cancel-change-ja-1024x768", "返却済").await;
    let lines = told.store_lines.as_array().unwrap();
    assert_eq!(lines.len(), 1, "{lines:?}");
    let line = lines[0].as_str().unwrap();
    assert!(line.contains("ギフトカード") && line.contains("¥1,000") && line.contains("GC-9"), "{line}");
    assert_eq!(told.change, "¥500");
    assert!(told.message.contains("¥500"), "{}", told.message);
    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_english_at_1280x800_the_reopened_sale_is_canceled_and_the_change_comes_back() {
    let app = App::start("cancel-change-en", launch(1280, 800)).await;
    app.choose_language("en").await;
    let told = sell_reopen_and_cancel(&app, "cancel-change-en-1280x800", "handed back").await;
    let lines = told.store_lines.as_array().unwrap();
    assert_eq!(lines.len(), 1, "{lines:?}");
    let line = lines[0].as_str().unwrap();
    assert!(line.contains("ギフトカード") && line.contains("¥1,000") && line.contains("GC-9") && line.contains("back"), "{line}");
    assert_eq!(told.change, "¥500");
    assert!(told.message.contains("¥500"), "{}", told.message);
    app.close().await;
}
