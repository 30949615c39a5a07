//! Department keys and typed prices in the real window (issue #30, record 0126): Casey, a
//! cashier, presses the Food key twice and types $3.00, then $150.00; the second is above
//! the store's $100.00 open-price limit, so the manager's approval dialog opens and
//! Marcus's PIN sends it again. The sale holds two Food lines at their own prices, is
//! paid in cash, and its receipt lists both. At 1280x800 and 1024x768, with screenshots.

use paydesk_e2e::thirtyfour::prelude::*;
use paydesk_e2e::{App, Launch, LONG};
use paydesk_ledger::{CartId, Ledger, PriceSource};

/// Presses the department key `sku` and types `price` in the prompt.
async fn ring(app: &App, sku: &str, price: &str) {
    app.click(&format!(".dept-key[data-sku='{sku}']")).await;
    app.wait_js("return !document.getElementById('open-price').hidden", "the price prompt", LONG).await;
    let f = app.el("#open-price-amount").await;
    f.send_keys(price).await.unwrap();
    f.send_keys(Key::Enter).await.unwrap();
}

async fn food_twice_with_an_approval(width: u32, height: u32) {
    let name = format!("open-price-{width}");
    let app = App::start(&name, Launch { width, height, ..Launch::default() }).await;
    app.click("#lock").await;
    app.wait_js("return document.body.dataset.screen === 'signin'", "the sign-in screen", LONG).await;
    app.sign_in_as("Casey", "3333").await;
    app.wait_js("return document.querySelectorAll('.dept-key').length === 2", "the two department keys", LONG).await;
    assert_eq!(app.js("return document.querySelector(\".item[data-sku='DEPT-FOOD']\")").await, serde_json::Value::Null, "a key is not an item");
    app.screenshot(&format!("openprice-keys-{width}x{height}")).await;

    ring(&app, "DEPT-FOOD", "3.00").await;
    app.wait_js("return document.querySelectorAll(\".cart-line[data-sku='DEPT-FOOD']\").length === 1", "the first Food line", LONG).await;
    ring(&app, "DEPT-FOOD", "150.00").await;
    // Above the $100.00 limit: a manager approves, inline, over the prompt.
    app.wait_js("return !document.getElementById('approval').hidden", "the approval dialog", LONG).await;
    app.screenshot(&format!("openprice-approval-{width}x{height}")).await;
    app.js("document.getElementById('approval-name').value = 'Marcus'; return true").await;
    app.el("#approval-pin").await.send_keys("2222").await.unwrap();
    app.click("#approval-ok").await;
    app.wait_js("return document.querySelectorAll(\".cart-line[data-sku='DEPT-FOOD']\").length === 2", "the second Food line", LONG).await;
    app.wait_js("return document.getElementById('cart-total').textContent === '$153.00'", "the total", LONG).await;
    let prices = app.js("return [...document.querySelectorAll('.cart-line')].map((l) => l.dataset.priceSource + ':' + l.dataset.unitPrice)").await;
    assert_eq!(prices, serde_json::json!(["open:300", "open:15000"]));
    app.screenshot(&format!("openprice-cart-{width}x{height}")).await;

    // Paid in cash: the receipt lists both Food lines.
    app.key(Key::F6).await;
    let f = app.el("#cash-form #cash-tendered").await;
    f.send_keys("153.00").await.unwrap();
    f.send_keys(Key::Enter).await.unwrap();
    app.wait_js("return document.getElementById('tender-done')?.dataset.state === 'paid'", "the sale paid", LONG).await;
    app.wait_js("return document.querySelector('#view-register .receipt-panel')?.dataset.loaded === 'true'", "the receipt", LONG).await;
    let receipt = app.text("#view-register .receipt-panel").await;
    assert_eq!(receipt.matches("Grocery food").count(), 2, "{receipt}");
    assert!(receipt.contains("3.00") && receipt.contains("150.00"), "{receipt}");
    app.screenshot(&format!("openprice-receipt-{width}x{height}")).await;
    let cart = CartId(app.js("return +document.querySelector('#view-register .receipt-panel').dataset.cart").await.as_i64().unwrap());

    let l = Ledger::open_reader(app.data_dir.join("ledger.db")).unwrap();
    let lines: Vec<(i64, i64, PriceSource)> =
        l.carts().by_id(cart).unwrap().lines.iter().map(|x| (x.line_no, x.unit_price.amount_minor, x.price_source)).collect();
    assert_eq!(lines, [(1, 300, PriceSource::Open), (2, 15_000, PriceSource::Open)]);
    let marcus = l.roster().by_name("Marcus").unwrap().unwrap().id;
    let row = l.audit().log().unwrap().into_iter().rev().find(|e| e.action == "open_price_above_limit").expect("the approval audited");
    assert_eq!(row.approver_id, Some(marcus));
    assert!(row.after.as_deref().unwrap_or_default().contains("15000"), "{row:?}");
    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_department_key_twice_one_above_the_limit_at_1280x800() {
    food_twice_with_an_approval(1280, 800).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_department_key_twice_one_above_the_limit_at_1024x768() {
    food_twice_with_an_approval(1024, 768).await;
}
