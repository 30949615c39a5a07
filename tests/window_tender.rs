//! The tender panel end to end (record 0035): cash with change, card + cash, a
//! declined card in a split, cancel of a half-paid sale, and a double press refused by
//! the command. Real app, real embedded mock PSP over loopback HTTP, driven through
//! WebDriver under Xvfb; each test also checks the ledger file and the PSP's own API
//! and counters, not the screen alone.

use paydesk_e2e::thirtyfour::prelude::*;
use paydesk_e2e::{App, Launch, LONG};
use paydesk_ledger::{CartId, Ledger};
use paydesk_domain::TenderKind;
use serde_json::Value;

/// Coffee ×2 + croissant = $8.25 and New York's 8.875 % on the coffees ($0.44; the
/// croissant to go is exempt): $8.69, typed like a scanner.
async fn ring_up(app: &App) -> CartId {
    app.scan("COF-001").await;
    app.scan("COF-001").await;
    app.scan("CRO-001").await;
    app.wait_js("return document.getElementById('cart-total').textContent === '$8.69'", "total $8.69", LONG).await;
    CartId(app.js("return window.__TAURI__.core.invoke('get_cart').then((c) => c.id)").await.as_i64().unwrap())
}

/// A function key on the page, as the cashier presses it.
async fn key(app: &App, k: Key) {
    app.el("body").await.send_keys(k).await.unwrap();
}

/// Waits until the panel lists `n` payments and the due is `due` (minor units).
async fn wait_tenders(app: &App, n: usize, due: i64) {
    app.wait_js(
        &format!(
            "const t = document.getElementById('tender'); return !t.hidden && t.dataset.busy !== 'true' \
             && t.dataset.tenders === '{n}' && document.getElementById('tender-due').dataset.minor === '{due}'"
        ),
        &format!("{n} payments and {due} due"),
        LONG,
    )
    .await;
}

/// Waits for the panel's last word: the sale `paid` or `canceled`.
async fn wait_done(app: &App, state: &str) {
    app.wait_js(
        &format!("return document.getElementById('tender-done')?.dataset.state === '{state}'"),
        &format!("the sale {state}"),
        LONG,
    )
    .await;
}

/// Fills the card form (F7) with `amount` on `method` and presses Enter.
async fn pay_card(app: &App, amount: &str, method: &str) {
    key(app, Key::F7).await;
    let field = app.el("#card-form #card-amount").await;
    app.driver
        .execute(
            "document.getElementById('tender-card-method').value = arguments[0]; return true",
            vec![Value::from(method)],
        )
        .await
        .unwrap();
    field.clear().await.unwrap();
    field.send_keys(amount).await.unwrap();
    field.send_keys(Key::Enter).await.unwrap();
}

/// Types `amount` in the cash form (F6) and presses Enter.
async fn pay_cash(app: &App, amount: &str) {
    key(app, Key::F6).await;
    let field = app.el("#cash-form #cash-tendered").await;
    field.send_keys(amount).await.unwrap();
    field.send_keys(Key::Enter).await.unwrap();
}

/// The keys of the card tenders in the ledger, in order, with their state.
fn card_tenders(app: &App, cart: CartId) -> Vec<(String, String)> {
    let l = Ledger::open(app.data_dir.join("ledger.db")).unwrap();
    l.sales().by_cart(cart)
        .unwrap()
        .tenders
        .iter()
        .filter(|t| t.kind == TenderKind::Card)
        .map(|t| (t.checkout_key.clone().unwrap(), t.state.as_str().to_string()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cash_with_change_records_the_tender_and_the_drawer() {
    let app = App::start("tender-cash", Launch::default()).await;
    let psp = app.psp().await;
    let cart = ring_up(&app).await;

    key(&app, Key::F6).await;
    app.wait_js("return document.activeElement.id === 'cash-tendered'", "the cash field focused", LONG).await;
    assert_eq!(app.text("#tender-due").await, "$8.69");
    let quick = app.js("return [...document.querySelectorAll('.quick-cash')].map((b) => b.dataset.minor).join(',')").await;
    assert_eq!(quick, "869,1000,2000,5000");
    // the $10 note: the change is shown before the cashier confirms
    app.click(".quick-cash[data-minor='1000']").await;
    assert_eq!(app.text("#cash-preview").await, "Change to give: $1.31");
    assert_eq!(app.text("#tender-title").await, "Take payment", "not Paid before it is");
    app.screenshot("tender").await;
    app.el("#cash-tendered").await.send_keys(Key::Enter).await.unwrap();
    wait_done(&app, "paid").await;
    assert_eq!(app.text("#tender-title").await, "Paid");
    assert_eq!(app.text("#cash-change strong").await, "$1.31");

    // The ledger: one cash tender, $10 in and $1.31 out of the drawer.
    let l = Ledger::open(app.data_dir.join("ledger.db")).unwrap();
    let sale = l.sales().by_cart(cart).unwrap();
    assert_eq!(sale.tenders.len(), 1);
    let t = &sale.tenders[0];
    assert_eq!((t.kind, t.amount.amount_minor, t.cash_tendered_minor, t.change_minor), (TenderKind::Cash, 869, Some(1000), Some(131)));
    let moves: Vec<(String, i64)> =
        l.sales().cash_movements(Some(cart)).unwrap().iter().map(|m| (m.kind.as_str().to_string(), m.amount.amount_minor)).collect();
    assert_eq!(moves, vec![("sale_in".to_string(), 1000), ("change_out".to_string(), -131)]);
    assert_eq!(l.sales().expected_drawer().unwrap().iter().map(|(_, m)| *m).sum::<i64>(), 869);
    assert_eq!(psp.stats().await["charges"], 0, "cash never reaches the PSP");

    // End of day: cash per kind and the drawer. Then Enter: the next customer.
    app.el("#tender-new-sale").await.send_keys(Key::Enter).await.unwrap();
    app.wait_js(
        "return document.getElementById('tender').hidden && document.activeElement.id === 'scan' \
         && document.getElementById('cart-total').textContent === '$0.00'",
        "an empty cart for the next customer",
        LONG,
    )
    .await;
    key(&app, Key::F3).await;
    // The shift is open: End of day keeps the expected drawer for the blind close.
    app.wait_js("return document.getElementById('r-drawer')?.dataset.hidden === 'true'", "the drawer hidden on End of day", LONG).await;
    assert_eq!(app.js("return document.getElementById('r-gross').dataset.value").await, "869", "the cash sale is in the sales");
    assert_eq!(app.js("return document.getElementById('r-tender-cash-usd').dataset.count").await, "1");
    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn card_then_cash_is_one_charge_for_the_card_part() {
    let app = App::start("tender-card-cash", Launch::default()).await;
    let psp = app.psp().await;
    let cart = ring_up(&app).await;

    app.click("#pay-split").await;
    app.wait_js("return document.activeElement.id === 'card-amount' && document.activeElement.value === '8.69'", "the open amount as the default", LONG).await;
    pay_card(&app, "5.00", "pm_card_visa").await;
    wait_tenders(&app, 1, 369).await;
    assert_eq!(app.text("#tender-title").await, "Take payment");
    assert!(app.text("#tender-notice").await.contains("Still due: $3.69"));
    pay_cash(&app, "3.69").await;
    wait_done(&app, "paid").await;

    let cards = card_tenders(&app, cart);
    assert_eq!(cards.len(), 1);
    let intents = psp.intents_for(&cards[0].0).await;
    assert_eq!(intents.len(), 1, "{intents:?}");
    assert_eq!((intents[0]["amount"].as_i64(), intents[0]["status"].as_str()), (Some(500), Some("succeeded")));
    assert_eq!(psp.stats().await["charges"], 1);
    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declined_second_card_keeps_the_first_and_a_third_pays_the_rest() {
    let app = App::start("tender-decline", Launch::default()).await;
    let psp = app.psp().await;
    let cart = ring_up(&app).await;

    pay_card(&app, "3.00", "pm_card_visa").await;
    wait_tenders(&app, 1, 569).await;
    pay_card(&app, "2.00", "pm_card_chargeDeclined").await;
    wait_tenders(&app, 2, 569).await;
    // loud, with what is still due; the first card stays paid
    app.wait_js("return document.getElementById('tender-msg')?.dataset.outcome === 'declined'", "the decline", LONG).await;
    let notice = app.text("#tender-notice").await;
    assert!(notice.contains("Declined") && notice.contains("Still due: $5.69"), "{notice}");
    app.wait_js("return document.getElementById('alert').textContent.startsWith('Declined')", "the decline read out", LONG).await;
    let states = app.js("return [...document.querySelectorAll('#tender-list li')].map((li) => li.dataset.state).join(',')").await;
    assert_eq!(states, "settled,void");
    app.screenshot("tender-split").await;

    // the card form is open again with the rest as its amount: a third card pays it
    app.wait_js("return document.getElementById('card-amount')?.value === '5.69'", "the rest as the amount", LONG).await;
    pay_card(&app, "5.69", "pm_card_visa").await;
    wait_done(&app, "paid").await;
    assert_eq!(app.text("#tender-title").await, "Paid");

    let cards = card_tenders(&app, cart);
    let states: Vec<&str> = cards.iter().map(|(_, s)| s.as_str()).collect();
    assert_eq!(states, ["settled", "void", "settled"]);
    for (i, (k, _)) in cards.iter().enumerate() {
        let intents = psp.intents_for(k).await;
        assert_eq!(intents.len(), 1, "{k}: {intents:?}");
        let succeeded = intents[0]["status"] == "succeeded";
        assert_eq!(succeeded, i != 1, "{k}: {}", intents[0]);
    }
    let stats = psp.stats().await;
    assert_eq!((stats["charges"].as_u64(), stats["declines"].as_u64()), (Some(2), Some(1)), "{stats}");
    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_of_a_half_paid_sale_refunds_the_card_once_and_returns_the_cash() {
    let app = App::start("tender-cancel", Launch::default()).await;
    let psp = app.psp().await;
    let cart = ring_up(&app).await;

    pay_card(&app, "4.00", "pm_card_visa").await;
    wait_tenders(&app, 1, 469).await;
    pay_cash(&app, "2.00").await;
    wait_tenders(&app, 2, 269).await;
    // Esc does not leave a part-paid sale behind
    key(&app, Key::Escape).await;
    key(&app, Key::Escape).await;
    assert_eq!(app.js("return document.getElementById('tender').hidden").await, false);

    key(&app, Key::F8).await;
    let reason = app.el("#cancel-reason").await;
    reason.send_keys("customer changed their mind").await.unwrap();
    reason.send_keys(Key::Enter).await.unwrap();
    wait_done(&app, "canceled").await;
    assert_eq!(app.text("#cash-returned").await, "$2.00");
    let lines = app.js("return [...document.querySelectorAll('#cancel-lines li[data-kind=refund]')].map((li) => li.dataset.key)").await;
    let cards = card_tenders(&app, cart);
    assert_eq!(lines, serde_json::json!([cards[0].0]));
    assert_eq!(app.text("#tender-title").await, "Canceled");
    app.screenshot("tender-canceled").await;

    // the PSP: one refund of the one card; pressing cancel again refunds nothing more
    assert_eq!(psp.stats().await["refunds"], 1);
    let again = app.js("return window.__TAURI__.core.invoke('cancel_sale', { reason: 'pressed again' }).then((r) => r.cash_returned)").await;
    assert_eq!(again, 0);
    let stats = psp.stats().await;
    assert_eq!((stats["charges"].as_u64(), stats["refunds"].as_u64()), (Some(1), Some(1)), "{stats}");
    let intents = psp.intents_for(&cards[0].0).await;
    assert_eq!((intents.len(), intents[0]["amount"].as_i64()), (1, Some(400)), "{intents:?}");
    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_press_on_the_same_view_is_refused_by_the_command() {
    let app = App::start("tender-double", Launch::default()).await;
    let psp = app.psp().await;
    let cart = ring_up(&app).await;
    key(&app, Key::F7).await;
    app.el("#card-form").await;

    // The same card press twice, each on the view the screen drew (0 tenders): the
    // second is refused by the command and charges nothing.
    let r = app
        .js("const inv = window.__TAURI__.core.invoke; \
             const args = { amount: '3.00', paymentMethod: 'pm_card_visa', seenTenders: 0 }; \
             return inv('pay_card', args).then((a) => inv('pay_card', args).then(() => [a.outcome, 'taken twice'], (e) => [a.outcome, e.code]))")
        .await;
    assert_eq!(r, serde_json::json!(["paid", "sale_changed"]));
    // Two cash presses at once on the same view: one tender, the other refused.
    let r = app
        .js("const inv = window.__TAURI__.core.invoke; \
             const args = { tendered: '1.00', seenTenders: 1 }; \
             return Promise.allSettled([inv('pay_cash', args), inv('pay_cash', args)]) \
               .then((rs) => rs.map((x) => x.status === 'fulfilled' ? 'ok' : x.reason.code).sort())")
        .await;
    let codes: Vec<&str> = r.as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
    assert_eq!(codes[0], "ok", "{r}");
    assert!(["sale_changed", "tender_in_flight"].contains(&codes[1]), "{r}");

    let l = Ledger::open(app.data_dir.join("ledger.db")).unwrap();
    let sale = l.sales().by_cart(cart).unwrap();
    assert_eq!(sale.tenders.len(), 2, "one card and one cash, nothing twice");
    assert_eq!(sale.totals.due_minor, 869 - 300 - 100);
    assert_eq!(psp.stats().await["charges"], 1);

    // The real screen: a stale press from the card form (drawn with 0 tenders) is
    // refused and the panel redraws the sale as it is now.
    app.el("#card-amount").await.send_keys(Key::Enter).await.unwrap();
    app.wait_js("return document.getElementById('tender-msg')?.dataset.code === 'sale_changed'", "the refusal on screen", LONG).await;
    wait_tenders(&app, 2, 469).await;
    assert_eq!(psp.stats().await["charges"], 1);
    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_card_is_pending_with_its_key_and_blocks_cash_without_a_reason() {
    let app = App::start("tender-unknown", Launch::default()).await;
    let psp = app.psp().await;
    let cart = ring_up(&app).await;
    pay_cash(&app, "2.00").await;
    wait_tenders(&app, 1, 669).await;

    // The processor takes a minute: the card's outcome stays unknown.
    psp.script("/v1/payment_intents", "slow", 1, Some(60_000)).await;
    pay_card(&app, "3.00", "pm_card_visa").await;
    let key = app
        .wait_js("return document.getElementById('tender-pending')?.dataset.key", "the pending card with its key", LONG)
        .await;
    let key = key.as_str().unwrap().to_string();
    assert_eq!(card_tenders(&app, cart), vec![(key.clone(), "pending".to_string())]);
    assert!(app.text("#tender-pending").await.contains(&key), "the key is on screen");
    assert_ne!(app.text("#tender-title").await, "Paid");
    app.screenshot("tender-pending").await;

    // Cash now, without a reason: refused by the register, nothing recorded.
    pay_cash(&app, "1.00").await;
    app.wait_js(
        "return document.getElementById('tender-msg')?.dataset.code === 'tender_unknown_outstanding'",
        "the refusal",
        LONG,
    )
    .await;
    let l = Ledger::open(app.data_dir.join("ledger.db")).unwrap();
    assert_eq!(l.sales().by_cart(cart).unwrap().tenders.len(), 2);
    drop(l);

    // With a reason (the override), the cash is taken and the pending card stops counting.
    key_and_reason_cash(&app, "1.00", "card reader frozen, customer paid cash").await;
    wait_tenders(&app, 3, 569).await;
    let states = app.js("return [...document.querySelectorAll('#tender-list li')].map((li) => li.dataset.state).join(',')").await;
    assert_eq!(states, "settled,superseded,settled");
    assert!(psp.intents_for(&key).await.len() <= 1, "never a second charge for the key");
    app.close().await;
}

/// The cash form (F6) while a card is pending: amount and the override reason, Enter.
async fn key_and_reason_cash(app: &App, amount: &str, reason: &str) {
    key(app, Key::F6).await;
    app.el("#cash-reason").await.send_keys(reason).await.unwrap();
    let field = app.el("#cash-form #cash-tendered").await;
    field.send_keys(amount).await.unwrap();
    field.send_keys(Key::Enter).await.unwrap();
}
