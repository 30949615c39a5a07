//! A tax-exempt sale in the real window (record 0135), en-US (New York City, 8.875 %): Casey,
//! a cashier, rings a coffee and an egg sandwich ($10.29 with tax), marks the sale tax exempt
//! with a resale certificate, Marcus approves it inline with his PIN; the cart shows tax
//! $0.00 and the reason, the sale is paid $9.45 in cash and its receipt says why. Then the
//! same register at 1024×768: the owner marks the next sale exempt alone and pays it.
//! Screenshots to /work/shots/exempt-*.png.

use paydesk_e2e::thirtyfour::prelude::*;
use paydesk_e2e::{App, Launch, LONG};
use paydesk_ledger::{CartId, Ledger, SaleState};

const REASON: &str = "Resale certificate ST-120 #4471";

fn shot(path: &std::path::Path, name: &str) {
    let _ = std::fs::create_dir_all("/work/shots");
    let _ = std::fs::copy(path, format!("/work/shots/{name}.png"));
}

/// Opens "Tax exempt…", types the reason and applies it.
async fn mark_exempt(app: &App, reason: &str) {
    app.wait_js("const b = document.getElementById('tax-exempt'); return !b.hidden && !b.disabled", "Tax exempt… on the cart", LONG).await;
    app.click("#tax-exempt").await;
    app.wait_js("return !document.getElementById('exempt-form').hidden", "the reason form", LONG).await;
    app.el("#exempt-reason").await.send_keys(reason).await.unwrap();
    app.click("#exempt-apply").await;
}

/// Pays the sale on screen in cash, exactly; waits for its receipt and returns its text.
async fn pay_cash_exact(app: &App) -> String {
    app.key(Key::F6).await;
    app.click("#cash-form .quick-cash.exact").await;
    app.el("#cash-tendered").await.send_keys(Key::Enter).await.unwrap();
    app.wait_js("return document.getElementById('tender-done')?.dataset.state === 'paid'", "the sale paid", LONG).await;
    app.wait_js("return document.querySelector('#view-register .receipt-panel')?.dataset.loaded === 'true'", "the receipt", LONG).await;
    app.js("return document.querySelector('#view-register .receipt-panel').innerText").await.as_str().unwrap_or("").to_string()
}

const EXEMPT_ON_CART: &str = "const t = document.getElementById('sum-exempt-tax'); const r = document.getElementById('sum-exempt');
  return document.getElementById('cart-total').textContent === '$9.45' && t && t.dataset.tax === '0' && r && r.innerText";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cashier_marks_a_sale_tax_exempt_with_a_managers_pin_and_pays_it_untaxed() {
    let launch = Launch::default();
    let app = App::start("tax-exempt", launch.clone()).await;
    app.click("#lock").await;
    app.wait_js("return document.body.dataset.screen === 'signin'", "the sign-in screen", LONG).await;
    app.sign_in_as("Casey", "3333").await;
    app.wait_js("return document.getElementById('whoami').dataset.role === 'cashier'", "Casey in the status bar", LONG).await;

    // A coffee $2.50 and an egg sandwich $6.95: $9.45 + 8.875 % = $10.29.
    app.scan_up(&["COF-001", "SAN-001"], "$10.29").await;
    mark_exempt(&app, REASON).await;
    // A cashier's press asks a manager inline; Marcus approves.
    app.wait_js("return !document.getElementById('approval').hidden", "the approval dialog", LONG).await;
    app.js("document.getElementById('approval-name').value = 'Marcus'; return true").await;
    app.el("#approval-pin").await.send_keys("2222").await.unwrap();
    app.click("#approval-ok").await;
    app.wait_js("return document.getElementById('approval').hidden", "the dialog closed", LONG).await;
    let shown = app.wait_js(EXEMPT_ON_CART, "tax $0.00 and the reason on the cart", LONG).await;
    assert!(shown.as_str().unwrap().contains(REASON), "{shown}");
    assert_eq!(app.text("#sum-exempt-tax dd").await, "$0.00");
    let p = app.screenshot("exempt-cart-1280").await;
    shot(&p, "exempt-cart-1280x800");

    let receipt = pay_cash_exact(&app).await;
    assert!(receipt.contains(&format!("Tax exempt: {REASON}")), "{receipt}");
    assert!(receipt.contains("$9.45") && !receipt.contains("8.875"), "{receipt}");
    let p = app.screenshot("exempt-receipt-1280").await;
    shot(&p, "exempt-receipt-1280x800");

    let l = Ledger::open_reader(app.data_dir.join("ledger.db")).unwrap();
    let (casey, marcus) = (l.roster().by_name("Casey").unwrap().unwrap().id, l.roster().by_name("Marcus").unwrap().unwrap().id);
    let row = l.audit().log().unwrap().into_iter().rev().find(|e| e.action == "tax_exempt_set").expect("the exemption audited");
    assert_eq!((row.actor_id, row.approver_id, row.reason.as_str()), (Some(casey), Some(marcus), REASON), "{row:?}");
    let cart: i64 = row.detail.as_deref().and_then(|d| d.strip_prefix("cart:")).unwrap().parse().unwrap();
    let sale = l.sales().by_cart(CartId(cart)).unwrap();
    assert_eq!((sale.state, sale.cart.total.amount_minor), (SaleState::Paid, 945));
    drop(l);

    // The same register on a smaller screen: the owner marks the next sale exempt alone.
    app.kill_app();
    let again = App::start("tax-exempt-1024", Launch { data_from: Some(app.data_dir.clone()), width: 1024, height: 768, ..launch }).await;
    app.close().await;
    again.scan_up(&["COF-001", "SAN-001"], "$10.29").await;
    mark_exempt(&again, "Diplomatic card 12-345").await;
    again.wait_js("return document.getElementById('cart-total').textContent === '$9.45'", "exempt without an approval", LONG).await;
    let inside = again
        .js("const r = document.getElementById('sum-exempt').getBoundingClientRect(); const b = document.getElementById('tax-exempt').getBoundingClientRect();
             return r.right <= window.innerWidth && b.right <= window.innerWidth && b.width > 0")
        .await;
    assert_eq!(inside, serde_json::Value::Bool(true), "the reason and the button inside the window at 1024×768");
    let p = again.screenshot("exempt-cart-1024").await;
    shot(&p, "exempt-cart-1024x768");
    let receipt = pay_cash_exact(&again).await;
    assert!(receipt.contains("Tax exempt: Diplomatic card 12-345"), "{receipt}");
    let p = again.screenshot("exempt-receipt-1024").await;
    shot(&p, "exempt-receipt-1024x768");
    again.close().await;
}
