//! From one customer to the next in the real window (issue #28, found by trying it): a
//! paid sale's New sale answers Enter after the cashier looked at another screen, and the
//! next customer's first scan starts their sale instead of "cart is locked"; an unknown
//! code refused in one sale is not shown in the next; the Paid receipt is not wrapped at
//! 1280×800; an offline-accepted sale's panel prints its receipt; and the payment
//! timeline of an offline payment with many attempts keeps every label off the bars and
//! inside the picture.

use paydesk_e2e::thirtyfour::prelude::*;
use paydesk_e2e::{App, Launch, LONG};
use serde_json::Value;

async fn key(app: &App, k: Key) {
    app.el("body").await.send_keys(k).await.unwrap();
}

/// Register → Payments → Register, as a cashier checking something between customers.
async fn away_and_back(app: &App) {
    key(app, Key::F2).await;
    app.wait_js("return !document.getElementById('view-payments').hidden", "the payments screen", LONG).await;
    key(app, Key::F1).await;
    app.wait_js("return !document.getElementById('view-register').hidden", "the register again", LONG).await;
}

async fn card_sale(app: &App, code: &str) -> String {
    app.scan(code).await;
    app.wait_js("return document.querySelectorAll('#cart-lines li').length === 1", "one line in the cart", LONG).await;
    key(app, Key::F12).await;
    app.wait_result("approved").await
}

/// The receipt on screen is drawn one printed line per screen line: nothing wraps,
/// nothing is cut at the right; the card slip above it keeps each row on one line.
const RECEIPT_UNWRAPPED: &str = r#"
const pre = document.querySelector('#checkout .receipt-panel #sale-receipt');
if (!pre || pre.closest('.receipt-panel').dataset.loaded !== 'true') return 'not loaded';
const st = getComputedStyle(pre);
const lines = pre.textContent.split('\n').length;
const lh = parseFloat(st.lineHeight);
const inner = pre.scrollHeight - parseFloat(st.paddingTop) - parseFloat(st.paddingBottom);
const drawn = Math.round(inner / lh);
if (drawn !== lines) return `${lines} lines drawn as ${drawn}`;
if (pre.scrollWidth > pre.clientWidth + 1) return `${pre.scrollWidth} px of text in ${pre.clientWidth} px`;
// The card slip above it: one line per row too (a processor reference included).
const rows = [...document.querySelectorAll('#receipt .row')];
const tall = rows.filter((r) => r.getBoundingClientRect().height > rows[0].getBoundingClientRect().height * 1.5);
if (tall.length) return `slip rows wrapped: ${tall.map((r) => r.textContent).join(' | ')}`;
return 'ok';
"#;

/// Every problem of the timeline picture: a text outside the picture, or over a bar.
const TIMELINE_PROBLEMS: &str = r#"
const svg = document.querySelector('#timeline svg');
if (!svg) return ['no timeline'];
const vb = svg.viewBox.baseVal;
const out = [];
const bars = [...svg.querySelectorAll('rect[fill-opacity]')].map((r) => r.getBBox());
for (const t of svg.querySelectorAll('text')) {
  const b = t.getBBox();
  const what = `"${t.textContent.slice(0, 30)}"`;
  if (b.x < 0 || b.x + b.width > vb.width + 0.5) out.push(`${what} runs out of the picture (${Math.round(b.x)}..${Math.round(b.x + b.width)} of ${vb.width})`);
  for (const r of bars) {
    const over = b.x < r.x + r.width && r.x < b.x + b.width && b.y < r.y + r.height && r.y < b.y + b.height;
    if (over) out.push(`${what} runs over a bar at x ${Math.round(r.x)}`);
  }
}
const box = svg.getBoundingClientRect(), pane = document.getElementById('payment-detail').getBoundingClientRect();
if (box.right > pane.right + 0.5) out.push(`the picture sticks out of the pane (${Math.round(box.right)} > ${Math.round(pane.right)})`);
return out;
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_customer_after_another() {
    let app = App::start("next-sale", Launch::default()).await;
    let psp = app.psp().await;

    // A code the register does not know, then the sale paid in cash: the next sale
    // starts without the old refusal under the barcode field.
    app.scan("COF-001").await;
    app.scan("NOPE-404").await;
    app.wait_js("const e = document.getElementById('scan-error'); return !e.hidden && e.textContent.includes('NOPE-404')", "the unknown code refused", LONG).await;
    key(&app, Key::F6).await;
    app.click("#cash-form .quick-cash.exact").await;
    app.el("#cash-tendered").await.send_keys(Key::Enter).await.unwrap();
    app.wait_js("return document.getElementById('tender-done')?.dataset.state === 'paid'", "the cash sale paid", LONG).await;
    app.click("#tender-new-sale").await;
    app.wait_js("return document.getElementById('tender').hidden && document.getElementById('cart-total').textContent === '$0.00'", "the next sale", LONG).await;
    assert_eq!(app.js("return document.getElementById('scan-error').hidden").await, Value::Bool(true), "the last sale's refusal is still shown");

    // A card sale paid: its receipt is drawn unwrapped at 1280×800.
    card_sale(&app, "COF-001").await;
    let unwrapped = app.wait_js(&format!("const r = (() => {{ {RECEIPT_UNWRAPPED} }})(); return r === 'not loaded' ? null : r"), "the receipt", LONG).await;
    app.screenshot("next-sale-receipt").await;
    assert_eq!(unwrapped, Value::from("ok"), "the Paid receipt at 1280×800");

    // Another screen and back: Enter is New sale.
    away_and_back(&app).await;
    key(&app, Key::Enter).await;
    app.wait_js(
        "return document.getElementById('checkout').hidden && document.getElementById('cart-total').textContent === '$0.00' && document.activeElement.id === 'scan'",
        "Enter to start the next sale after switching screens",
        LONG,
    )
    .await;

    // Paid, another screen and back, and the next customer's item scanned at once: their
    // sale, with that item alone.
    card_sale(&app, "COF-001").await;
    away_and_back(&app).await;
    app.scan("MUG-001").await;
    app.wait_js(
        "const l = [...document.querySelectorAll('#cart-lines li')].map((li) => li.dataset.sku); \
         return document.getElementById('checkout').hidden && l.length === 1 && l[0] === 'MUG-001'",
        "the scan to start the next sale",
        LONG,
    )
    .await;
    assert_eq!(app.js("return document.getElementById('scan-error').hidden").await, Value::Bool(true));
    assert_eq!(psp.stats().await["charges"], 2);

    // The processor unreachable: the sale is accepted offline, and its receipt prints
    // from that panel (no printer set here: the panel says where to set one).
    app.click("#clear-cart").await;
    psp.set_offline(true).await;
    app.scan("COF-001").await;
    key(&app, Key::F12).await;
    app.wait_result("accepted_offline").await;
    app.wait_js("return document.querySelector('#result .receipt-panel')?.dataset.loaded === 'true'", "the offline sale's receipt", LONG).await;
    app.screenshot("next-sale-offline-receipt").await;
    app.click("#result #print-receipt").await;
    // (the paid cash sale's panel, hidden, keeps its own #receipt-msg: look in this one)
    app.wait_js("return document.querySelector('#result #receipt-msg').dataset.code === 'printer_not_set'", "no printer set", LONG).await;
    let msg = app.text("#result #receipt-msg").await;
    assert!(msg.contains("on the Catalog tab (F5)"), "{msg}");

    // Several forwarding attempts fail before the processor is back.
    app.wait_js(
        "return window.__TAURI__.core.invoke('list_payments').then((l) => l[0].attempts >= 3)",
        "several forwarding attempts",
        LONG,
    )
    .await;
    psp.set_offline(false).await;
    app.wait_result("approved").await;
    key(&app, Key::Enter).await;
    app.wait_js("return document.getElementById('checkout').hidden", "the next sale", LONG).await;

    // Its timeline: every label off the bars and inside the picture, at both sizes.
    for (w, h) in [(1280, 800), (1024, 768)] {
        app.driver.set_window_rect(0, 0, w, h).await.unwrap();
        app.wait_js(&format!("return window.innerWidth === {w}"), "the window resized", LONG).await;
        key(&app, Key::F2).await;
        // The newest payment, the offline one.
        app.click("#payments-rows tr:first-child button").await;
        app.wait_js("return !!document.querySelector('#timeline svg text')", "the timeline", LONG).await;
        let problems = app.js(TIMELINE_PROBLEMS).await;
        app.screenshot(&format!("next-sale-timeline-{w}x{h}")).await;
        assert_eq!(problems, Value::Array(vec![]), "the timeline at {w}×{h}");
        key(&app, Key::F1).await;
    }
    app.close().await;
}

/// No shift open: the first item of a sale is refused at once with the offer to open one
/// (not after the sale is rung up and the cash typed). And a cash amount typed into a
/// sale refused for want of a shift (its items rung up before the shift closed) is still
/// there once the shift is open.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shift_is_asked_for_at_the_first_item_and_typed_cash_is_kept() {
    let launch = Launch { staff: paydesk_e2e::StaffStart::OwnerNoShift, ..Launch::default() };
    let app = App::start("first-item-shift", launch).await;

    app.scan("COF-001").await;
    app.wait_js("return document.getElementById('scan-error').dataset.code === 'no_open_shift'", "the first item refused", LONG).await;
    assert_eq!(app.js("return !!document.querySelector('#scan-error #offer-open-shift') && document.querySelectorAll('#cart-lines li').length").await, Value::from(0));
    app.screenshot("next-sale-no-shift").await;

    // A sale rung up earlier, still on screen (written to the ledger as the register left it).
    let cart = app.js("return window.__TAURI__.core.invoke('get_cart').then((c) => c.id)").await.as_i64().unwrap();
    {
        let mut l = paydesk_ledger::Ledger::open(app.data_dir.join("ledger.db")).unwrap();
        l.carts_mut().add(paydesk_ledger::CartId(cart), "MUG-001", 1, 1).unwrap();
    }
    // The refused code is still in the field: Enter again.
    app.el("#scan").await.send_keys(Key::Enter).await.unwrap();
    app.wait_js("return document.querySelectorAll('#cart-lines li').length === 2", "the sale on screen", LONG).await;
    key(&app, Key::F6).await;
    let field = app.el("#cash-tendered").await;
    field.send_keys("20.00").await.unwrap();
    field.send_keys(Key::Enter).await.unwrap();
    app.wait_js("return document.getElementById('tender-msg')?.dataset.code === 'no_open_shift'", "refused: no shift", LONG).await;
    assert_eq!(app.js("return document.getElementById('cash-tendered').value").await, Value::from("20.00"), "the typed cash is lost");

    // The shift opened from the offer; back at the sale, the amount is still there.
    app.click("#tender-msg #offer-open-shift").await;
    app.wait_js("return document.getElementById('view-shift').dataset.open === 'false'", "the shift screen", LONG).await;
    app.click("#shift-open").await;
    app.wait_js("return document.getElementById('view-shift').dataset.open === 'true'", "the shift open", LONG).await;
    key(&app, Key::F1).await;
    assert_eq!(app.js("return document.getElementById('cash-tendered').value").await, Value::from("20.00"));
    app.click("#cash-confirm").await;
    app.wait_js("return document.getElementById('tender-done')?.dataset.state === 'paid'", "the sale paid", LONG).await;
    app.close().await;
}
