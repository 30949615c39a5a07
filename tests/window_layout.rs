//! Long text never pushes the cashier's controls out of the window. At 1280×800 and at
//! 1024×768, with the longest messages the app produces (an unknown code as long as the
//! field takes, from a scanner that sends 200 characters; a processor URL of 200
//! characters in the status bar and in the settings message) and a cart of 31 lines
//! whose items have long names, every shown button, field and the cart total lie
//! inside the window on every screen, nothing scrolls sideways, and text that is cut
//! short carries its full wording in `title`.

use std::time::{SystemTime, UNIX_EPOCH};

use paydesk_e2e::thirtyfour::prelude::*;
use paydesk_e2e::{App, Launch, LONG};
use paydesk_ledger::{CartId, Ledger, NewProduct};
use paydesk_domain::{Currency, Money};
use serde_json::Value;

const SIZES: [(u32, u32); 2] = [(1280, 800), (1024, 768)];

/// Every problem with the layout as it is on screen now, as readable strings (empty:
/// none). `must_show` are ids that must be wholly visible, even inside a scrolling box.
const LAYOUT_PROBLEMS: &str = r#"
const [mustShow] = arguments;
const W = window.innerWidth, H = window.innerHeight;
const out = new Set();
const label = (e) => (e.id ? '#' + e.id : e.tagName.toLowerCase() + (e.className && typeof e.className === 'string' ? '.' + e.className.trim().split(/\s+/).join('.') : ''))
  + ' "' + (e.textContent || e.value || '').trim().slice(0, 40) + '"';
const box = (r) => `[${Math.round(r.left)},${Math.round(r.top)} → ${Math.round(r.right)},${Math.round(r.bottom)}]`;
const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
const within = (r, b) => r.left >= b.left - 0.5 && r.right <= b.right + 0.5 && r.top >= b.top - 0.5 && r.bottom <= b.bottom + 0.5;
const win = { left: 0, top: 0, right: W, bottom: H };
// The nearest box that scrolls: what is outside it vertically is reached by scrolling.
const scroller = (e) => {
  for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
    if (/(auto|scroll)/.test(getComputedStyle(p).overflowY)) return p;
  }
  return null;
};

for (const el of [document.documentElement, document.body]) {
  if (el.scrollWidth > W) out.add(`${el.tagName.toLowerCase()} is ${el.scrollWidth} px wide in a ${W} px window`);
}
// Nothing is wider than the box that holds it: no sideways scrolling, nothing cut at the
// right edge of a clipping box (the page, a pane, the status bar).
for (const el of document.querySelectorAll('body *')) {
  if (!shown(el) || el.closest('.visually-hidden, svg') || el.matches('input, select, textarea, option')) continue;
  const st = getComputedStyle(el);
  if (st.overflowX === 'visible' || st.textOverflow === 'ellipsis') continue;
  const leaf = [...el.childNodes].every((n) => n.nodeType === Node.TEXT_NODE);
  if (leaf && st.overflowX === 'hidden') continue; // clamped text: its title is checked below
  if (el.scrollWidth > el.clientWidth + 1) out.add(`${label(el)} holds ${el.scrollWidth} px in ${el.clientWidth} px`);
}
// Every shown control, and the total, is inside the window (or inside its scrolling
// box, which is itself inside the window).
const controls = document.querySelectorAll('button, input, select, #cart-total, .statusbar > *, .topbar *');
for (const el of controls) {
  if (!shown(el)) continue;
  const r = el.getBoundingClientRect();
  const s = scroller(el);
  if (!s) {
    if (!within(r, win)) out.add(`${label(el)} at ${box(r)} is outside the ${W}×${H} window`);
    continue;
  }
  const sr = s.getBoundingClientRect();
  if (!within(sr, win)) { out.add(`${label(s)} (holding ${label(el)}) at ${box(sr)} is outside the ${W}×${H} window`); continue; }
  if (mustShow.includes(el.id) && !within(r, sr)) { out.add(`${label(el)} at ${box(r)} is scrolled out of ${label(s)} ${box(sr)}`); continue; }
  if (r.bottom <= sr.top || r.top >= sr.bottom) continue; // scrolled out of view
  if (r.left < sr.left - 0.5 || r.right > sr.right + 0.5) out.add(`${label(el)} at ${box(r)} sticks out of ${label(s)} ${box(sr)}`);
}
for (const id of mustShow) {
  const el = document.getElementById(id);
  if (!el || !shown(el)) out.add(`#${id} is not shown`);
  else if (!within(el.getBoundingClientRect(), win)) out.add(`#${id} at ${box(el.getBoundingClientRect())} is outside the window`);
}
// Text cut short (ellipsis or a line clamp) keeps its full wording in its title.
for (const el of document.querySelectorAll('body *')) {
  if (!shown(el) || el.closest('.visually-hidden, svg')) continue;
  const st = getComputedStyle(el);
  if (st.overflowX !== 'hidden' && st.overflowY !== 'hidden') continue;
  if (![...el.childNodes].every((n) => n.nodeType === Node.TEXT_NODE) || !el.textContent.trim()) continue;
  const cut = el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1;
  if (cut && el.title !== el.textContent) out.add(`${label(el)} is cut short without its full text in title (title: "${el.title.slice(0, 40)}")`);
}
return [...out];
"#;

async fn problems(app: &App, must_show: &[&str]) -> Vec<String> {
    let v = app
        .driver
        .execute(LAYOUT_PROBLEMS, vec![serde_json::json!(must_show)])
        .await
        .expect("layout script")
        .json()
        .clone();
    v.as_array().unwrap().iter().map(|p| p.as_str().unwrap().to_string()).collect()
}

/// Checks the screen as it is; its screenshot goes to target/screenshots/ (the
/// register's also to docs/ with `PAYDESK_SCREENSHOTS=docs`).
async fn assert_fits(app: &App, what: &str, must_show: &[&str]) {
    let size = app.js("return `${window.innerWidth}x${window.innerHeight}`").await;
    let name = format!("layout-{what}-{}", size.as_str().unwrap());
    let shot = if what == "register-long" {
        app.screenshot(&name).await
    } else {
        let dir = paydesk_e2e::app_binary().parent().unwrap().parent().unwrap().join("screenshots");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{name}.png"));
        std::fs::write(&path, app.driver.screenshot_as_png().await.expect("screenshot")).unwrap();
        path
    };
    let p = problems(app, must_show).await;
    let first: Vec<&str> = p.iter().take(25).map(String::as_str).collect();
    assert!(p.is_empty(), "{what} at {size}: {} problems (screenshot {}):\n  {}", p.len(), shot.display(), first.join("\n  "));
}

async fn resize(app: &App, w: u32, h: u32) {
    app.driver.set_window_rect(0, 0, w, h).await.expect("set the window size");
    app.wait_js(
        &format!("return window.innerWidth === {w} && window.innerHeight === {h}"),
        &format!("a {w}×{h} window"),
        LONG,
    )
    .await;
}

fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as i64
}

/// A long item name: words a shelf label might carry, and one unbreakable run.
fn long_name(i: usize) -> String {
    format!(
        "Organic fair-trade single-origin whole-bean coffee, medium roast, resealable 1 kg bag, lot {i} \
         ETHIOPIA-YIRGACHEFFE-KOCHERE-WASHED-GRADE-ONE-HARVEST-2025-{i:02}"
    )
}

/// Stocks the store's ledger with 30 products with long names and puts them in the
/// app's open cart (1 to 999 of each), then scans a demo item so the window shows the
/// cart as the register has it: 31 lines.
async fn fill_long_cart(app: &App) {
    let cart = app.js("return window.__TAURI__.core.invoke('get_cart').then((c) => c.id)").await;
    let cart = CartId(cart.as_i64().expect("cart id"));
    let mut ledger = Ledger::open(app.data_dir.join("ledger.db")).expect("open the app's ledger");
    let products: Vec<NewProduct> = (1..=30)
        .map(|i| NewProduct {
            sku: format!("LONG-{i:02}"),
            name: long_name(i),
            price: Money::new(99 + i as i64 * 7, Currency::Usd),
        })
        .collect();
    ledger.carts_mut().seed_catalog(&products).expect("seed long names");
    for (i, p) in products.iter().enumerate() {
        let qty = if i == 0 { 999 } else { 1 + i as i64 };
        ledger.carts_mut().add(cart, &p.sku, qty, now_ms()).expect("add to the cart");
    }
    drop(ledger);
    app.scan("COF-001").await;
    app.wait_js("return document.querySelectorAll('#cart-lines li').length === 31", "a cart of 31 lines", LONG).await;
}

/// A scanner sends a 200-character code: the field keeps what a code can be, and the
/// register says it knows no such item.
async fn scan_unknown_long_code(app: &App) {
    let code: String = "X9".repeat(100);
    app.scan(&code).await;
    app.wait_js(
        "return document.getElementById('announce').textContent.startsWith('No item has the code')",
        "the unknown-code message",
        LONG,
    )
    .await;
}

/// The unknown-code message is also under the barcode field, in full: where the cashier
/// looks, and readable however narrow the status bar is.
async fn assert_scan_error_in_full(app: &App) {
    let v = app
        .js("const e = document.getElementById('scan-error'); \
             return !!e && !e.hidden && e.textContent === document.getElementById('announce').textContent \
               && e.scrollHeight <= e.clientHeight + 1 && e.scrollWidth <= e.clientWidth + 1")
        .await;
    assert_eq!(v, Value::Bool(true), "the unknown-code message is not shown in full under the field");
}

async fn show(app: &App, key: Key, ready: &str) {
    app.el("body").await.send_keys(key).await.unwrap();
    app.wait_js(ready, "the screen to be drawn", LONG).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_text_never_pushes_the_cart_or_charge_out_of_the_window() {
    let app = App::start("layout", Launch::default()).await;
    let psp = app.psp().await;
    fill_long_cart(&app).await;
    scan_unknown_long_code(&app).await;
    for (w, h) in SIZES {
        resize(&app, w, h).await;
        assert_fits(&app, "register", &["scan", "cart-total", "charge", "announce"]).await;
        assert_scan_error_in_full(&app).await;
    }

    // The long cart paid: the receipt lists every line, New sale stays in reach.
    app.click("#charge").await;
    let key = app.wait_result("approved").await;
    assert_eq!(psp.intents_for(&key).await.len(), 1);
    for (w, h) in SIZES {
        resize(&app, w, h).await;
        assert_fits(&app, "receipt", &["new-sale", "receipt"]).await;
    }
    app.click("#new-sale").await;
    app.wait_js("return document.getElementById('checkout').hidden", "the cart for the next customer", LONG).await;

    // The longest processor URL settings take (200 characters): in the settings message
    // and, from now on, in the status bar on every screen.
    let url = format!("http://127.0.0.1:9/{}", "v1-payments-gateway-".repeat(10));
    let url = &url[..200];
    show(&app, Key::F4, "return !!document.getElementById('set-psp_url')").await;
    let field = app.el("#set-psp_url").await;
    field.clear().await.unwrap();
    field.send_keys(url).await.unwrap();
    let key_field = app.el("#set-psp_key").await;
    key_field.clear().await.unwrap();
    key_field.send_keys("sk_test_unreachable_processor").await.unwrap();
    app.click("#save-settings").await;
    let applied = format!(
        "const m = document.getElementById('settings-msg'); \
         return m.dataset.applied === 'now' && m.textContent.includes({0:?}) \
           && document.getElementById('fault-profile').textContent === 'PSP: ' + {0:?}",
        url
    );
    app.wait_js(&applied, "the 200-character PSP URL to be in use", LONG).await;
    for (w, h) in SIZES {
        resize(&app, w, h).await;
        assert_fits(&app, "settings-saved", &["save-settings", "settings-msg", "fault-profile", "announce"]).await;
    }

    show(&app, Key::F1, "return document.activeElement.id === 'scan'").await;
    fill_long_cart(&app).await;
    scan_unknown_long_code(&app).await;
    for (w, h) in SIZES {
        resize(&app, w, h).await;
        show(&app, Key::F1, "return document.activeElement.id === 'scan'").await;
        scan_unknown_long_code(&app).await;
        assert_fits(&app, "register-long", &["scan", "cart-total", "charge", "announce", "fault-profile"]).await;
        assert_scan_error_in_full(&app).await;
        show(&app, Key::F2, "return document.querySelectorAll('#payments-rows tr').length === 1 && !!document.getElementById('timeline')").await;
        assert_fits(&app, "payments", &["fault-profile", "announce"]).await;
        show(&app, Key::F3, "return !!document.getElementById('r-gross')").await;
        assert_fits(&app, "report", &["fault-profile", "announce"]).await;
        show(&app, Key::F4, "return !!document.getElementById('save-settings')").await;
        assert_fits(&app, "settings", &["save-settings", "fault-profile", "announce"]).await;
    }

    let violations = app.js("return document.body.dataset.cspViolations || '0'").await;
    assert_eq!(violations, Value::from("0"), "{}", app.js("return document.body.dataset.cspLast").await);
    app.close().await;
}

/// The tender panel over a long cart of long names, with four payments listed (a card,
/// a declined card, cash, another card): its sums, its buttons and each form's fields
/// and confirm button lie inside the window at both sizes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tender_panel_fits_with_several_tenders_and_long_names() {
    let app = App::start("layout-tender", Launch::default()).await;
    fill_long_cart(&app).await;
    let n = app
        .js("const inv = window.__TAURI__.core.invoke; \
             return inv('pay_card', { amount: '1.00', paymentMethod: 'pm_card_visa', seenTenders: 0 }) \
               .then(() => inv('pay_card', { amount: '1.00', paymentMethod: 'pm_card_chargeDeclinedInsufficientFunds', seenTenders: 1 })) \
               .then(() => inv('pay_cash', { tendered: '2.50', seenTenders: 2 })) \
               .then(() => inv('pay_card', { amount: '1.00', paymentMethod: 'pm_card_visa', seenTenders: 3 })) \
               .then((r) => r.sale.tenders.length)")
        .await;
    assert_eq!(n, 4);
    let forms: [(Key, &str, &[&str]); 3] = [
        (Key::F6, "tender-cash", &["tender-due", "tender-cash", "tender-card", "tender-cancel", "cash-tendered", "cash-confirm"]),
        (Key::F7, "tender-card", &["tender-due", "card-amount", "tender-card-method", "card-confirm"]),
        (Key::F8, "tender-cancel", &["tender-due", "cancel-reason", "cancel-confirm"]),
    ];
    for (w, h) in SIZES {
        resize(&app, w, h).await;
        for (key, what, must) in &forms {
            show(&app, key.clone(), "return document.getElementById('tender').dataset.tenders === '4' && !!document.querySelector('#tender-work form')").await;
            assert_fits(&app, what, must).await;
        }
    }
    let violations = app.js("return document.body.dataset.cspViolations || '0'").await;
    assert_eq!(violations, Value::from("0"), "{}", app.js("return document.body.dataset.cspLast").await);
    app.close().await;
}

/// Boxes planted on the register screen, each breaking one rule of `LAYOUT_PROBLEMS`.
/// Styled through the CSSOM: the page's content security policy refuses inline
/// `style` attributes.
const PLANT_BROKEN_LAYOUT: &str = r#"
const add = (tag, id, text, style, parent = document.body) => {
  const e = document.createElement(tag);
  if (id) e.id = id;
  e.textContent = text;
  Object.assign(e.style, style);
  parent.appendChild(e);
  return e;
};
add('button', 'planted-outside', 'Out', { position: 'fixed', left: '1500px', top: '10px' });
const clip = add('div', 'planted-clip', '', { position: 'fixed', left: '0', top: '100px', width: '80px', height: '20px', overflow: 'hidden' });
add('div', '', '', { width: '600px', height: '10px' }, clip);
add('p', 'planted-cut', 'A sentence far too long for its box', { position: 'fixed', left: '0', top: '140px', width: '60px',
  margin: '0', overflow: 'hidden', whiteSpace: 'nowrap', textOverflow: 'ellipsis' });
add('button', 'planted-hidden', 'Hidden', { visibility: 'hidden' });
return true;
"#;

/// The layout check fails on a broken layout: a button outside the window, a box that
/// clips what it holds, text cut short without its title and a control that must show
/// but is hidden are each reported; the same screen without them is clean. (The check
/// has no rule for boxes that overlap: none is planted.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_layout_check_names_a_broken_layout() {
    let app = App::start("layout-broken", Launch::default()).await;
    resize(&app, 1024, 768).await;
    assert_eq!(problems(&app, &["scan"]).await, Vec::<String>::new(), "the register before the plant");
    app.js(PLANT_BROKEN_LAYOUT).await;
    let p = problems(&app, &["scan", "planted-hidden"]).await;
    println!("{p:#?}");
    for (id, says) in [
        ("#planted-outside", "is outside the 1024×768 window"),
        ("#planted-clip", "holds 600 px in 80 px"),
        ("#planted-cut", "is cut short without its full text in title"),
        ("#planted-hidden", "is not shown"),
    ] {
        assert!(p.iter().any(|x| x.starts_with(id) && x.contains(says)), "{id} ({says}) not reported: {p:#?}");
    }
    app.js("document.querySelectorAll('[id^=planted-]').forEach((e) => e.remove()); return true").await;
    assert_eq!(problems(&app, &["scan"]).await, Vec::<String>::new(), "the register once the plant is gone");
    app.close().await;
}
