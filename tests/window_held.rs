//! Held sales in the real window (issue #30, record 0128): a sale rung up is held, the
//! next customer pays cash, the register is killed and started again (at 1024×768), the
//! held sale is still listed (not on screen), recalled and paid by card. The PSP has one
//! charge, of the held sale's amount; the cash sale keeps its one cash tender.

use paydesk_domain::TenderKind;
use paydesk_e2e::thirtyfour::prelude::*;
use paydesk_e2e::{App, Launch, LONG};
use paydesk_ledger::{CartId, Ledger, SaleState};
use serde_json::Value;

async fn cart_now(app: &App) -> (CartId, i64) {
    let v = app.js("return window.__TAURI__.core.invoke('get_cart').then((c) => [c.id, c.total])").await;
    (CartId(v[0].as_i64().unwrap()), v[1].as_i64().unwrap())
}

/// The held list as the screen shows it: (cart, items, total) per row, and whether every
/// Recall button is inside the window.
const HELD_ROWS: &str = r#"
const rows = [...document.querySelectorAll('#held-list tr')];
const inside = rows.every((r) => { const b = r.querySelector('button').getBoundingClientRect();
  return b.right <= window.innerWidth && b.bottom <= window.innerHeight && b.width > 0; });
return { rows: rows.map((r) => [+r.dataset.cart, +r.children[1].textContent, r.children[2].textContent]), inside };
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_sale_survives_a_restart_and_is_paid_by_card_once() {
    let launch = Launch::default();
    let app = App::start("held", launch.clone()).await;
    // Coffee $2.50 + $0.22 tax, a croissant to go $3.25 untaxed (New York, record 0131).
    app.scan_up(&["COF-001", "CRO-001"], "$5.97").await;
    let (held, held_total) = cart_now(&app).await;
    app.click("#hold-sale").await;
    app.wait_js(
        "return document.getElementById('cart-total').textContent === '$0.00' && document.getElementById('held-open').dataset.count === '1'",
        "a new sale on screen, one held",
        LONG,
    )
    .await;
    assert_ne!(cart_now(&app).await.0, held, "the screen shows another cart");
    app.click("#held-open").await;
    app.wait_js("return document.querySelectorAll('#held-list tr').length === 1", "the held list", LONG).await;
    let shot = app.screenshot("held-list-1280").await;
    let _ = std::fs::create_dir_all("/work/shots");
    let _ = std::fs::copy(&shot, "/work/shots/held-list-1280x800.png");
    app.click("#held-close").await;

    // The next customer pays cash (exact).
    app.scan_up(&["MUG-001"], "$16.28").await;
    let (cash_cart, cash_total) = cart_now(&app).await;
    app.key(Key::F6).await;
    app.click("#cash-form .quick-cash.exact").await;
    app.el("#cash-tendered").await.send_keys(Key::Enter).await.unwrap();
    app.wait_js("return document.getElementById('tender-done')?.dataset.state === 'paid'", "the cash sale paid", LONG).await;

    // A crash, and the same data folder started again on a smaller screen.
    app.kill_app();
    let again = App::start("held-restarted", Launch { data_from: Some(app.data_dir.clone()), width: 1024, height: 768, ..launch }).await;
    app.close().await;
    let psp = again.psp().await;
    again.wait_js("return document.getElementById('held-open').dataset.count === '1'", "the held sale listed after the restart", LONG).await;
    let (on_screen, total) = cart_now(&again).await;
    assert!(on_screen != held && total == 0, "the held sale is not put back on screen: {on_screen:?}, {total}");

    again.click("#held-open").await;
    let list = again.wait_js(&format!("const r = (() => {{ {HELD_ROWS} }})(); return r.rows.length ? r : null"), "the held list", LONG).await;
    let shot = again.screenshot("held-list-1024").await;
    let _ = std::fs::create_dir_all("/work/shots");
    let _ = std::fs::copy(&shot, "/work/shots/held-list-1024x768.png");
    assert_eq!(list["rows"], serde_json::json!([[held.0, 2, "$5.97"]]), "{list}");
    assert_eq!(list["inside"], Value::Bool(true), "Recall inside the window at 1024×768");

    again.click(&format!("#held-recall-{}", held.0)).await;
    again.wait_js("return document.getElementById('held').hidden && document.getElementById('cart-total').textContent === '$5.97'", "the held sale recalled", LONG).await;
    assert_eq!(cart_now(&again).await, (held, held_total));
    assert_eq!(again.js("return document.getElementById('held-open').hidden").await, Value::Bool(true));
    again.key(Key::F12).await;
    let key = again.wait_result("approved").await;

    // The PSP: one charge, of the held sale's amount.
    assert_eq!(psp.stats().await["charges"], 1);
    let intents = psp.intents_for(&key).await;
    assert_eq!(intents.len(), 1);
    assert_eq!((intents[0]["amount"].as_i64(), intents[0]["status"].as_str()), (Some(held_total), Some("succeeded")));
    // The ledger: the held sale paid by that card alone; the cash sale untouched.
    let l = Ledger::open(again.data_dir.join("ledger.db")).unwrap();
    let sale = l.sales().by_cart(held).unwrap();
    let tenders: Vec<(TenderKind, i64)> = sale.tenders.iter().map(|t| (t.kind, t.amount.amount_minor)).collect();
    assert_eq!((sale.state, tenders), (SaleState::Paid, vec![(TenderKind::Card, held_total)]));
    let cash = l.sales().by_cart(cash_cart).unwrap();
    let tenders: Vec<(TenderKind, i64)> = cash.tenders.iter().map(|t| (t.kind, t.amount.amount_minor)).collect();
    assert_eq!((cash.state, tenders), (SaleState::Paid, vec![(TenderKind::Cash, cash_total)]));
    assert_eq!(l.sales().expected_drawer().unwrap().iter().map(|(_, m)| *m).sum::<i64>(), cash_total, "the drawer holds the cash sale alone");
    assert!(l.carts().held().unwrap().is_empty());
    again.close().await;
}
