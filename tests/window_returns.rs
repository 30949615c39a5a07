//! Returns per item in the real window (issue #29, record 0117): Payments → Receipts → a
//! sale → "Return items". Each test checks the PSP (its refunds and their amounts) and the
//! drawer (the cash movement and the expected drawer) in the ledger file, not the screen
//! alone: one of three lines of a card + cash sale comes back card first; a take-out food
//! line (8 %) comes back with ※ and its 8 % figures on the return document (in Japanese);
//! a second return beyond what is left is refused naming the line, with nothing written;
//! the document prints to the ESC/POS test printer and a second print is marked REPRINT;
//! a cashier's return opens the approval dialog and the audit names both people; a
//! receipt's barcode scanned at Payments opens its Return items.
//! Screenshots at 1280x800 and 1024x768 under target/screenshots.

use std::time::Duration;

use paydesk_domain::TenderKind;
use paydesk_e2e::thirtyfour::prelude::*;
use paydesk_e2e::{App, Launch, Psp, LONG};
use paydesk_ledger::{CartId, Ledger};
use paydesk_receipt::test_printer::{Printout, TestPrinter};
use serde_json::Value;

fn launch(ja: bool, width: u32, height: u32) -> Launch {
    let mut l = Launch { width, height, ..Launch::default() };
    if ja {
        l.env.push(("PAYDESK_DEMO_STORE".into(), "ja-JP".into()));
    }
    l
}

async fn key(app: &App, k: Key) {
    app.key(k).await;
}

/// A paid sale: `card` by card (typed; none when empty), the rest in cash.
async fn sale(app: &App, skus: &[&str], total: &str, card: &str) -> CartId {
    CartId(app.paid_split_sale(skus, total, card).await)
}

/// Next customer, Payments (F2) → Receipts → the sale → "Return items": the form open.
async fn open_returns(app: &App, cart: CartId) {
    app.click("#tender-new-sale").await;
    key(app, Key::F2).await;
    let show = format!("#sale-show-{}", cart.0);
    app.wait_js(&format!("return document.querySelector('{show}') !== null"), "the sale in the Receipts list", LONG).await;
    app.click(&show).await;
    app.wait_js(&format!("return document.querySelector('#payment-detail .return-panel[data-cart=\"{}\"]') !== null", cart.0), "the sale shown", LONG)
        .await;
    app.click("#payment-detail #return-open").await;
    app.wait_js("return document.querySelector('#payment-detail #return-form') !== null", "the Returns form", LONG).await;
}

/// Types quantities (line index, how many) and a reason, presses Return; the answer's
/// element id: `return-done` or the message's code.
async fn submit(app: &App, quantities: &[(usize, u32)], reason: &str) -> String {
    for (line, q) in quantities {
        let css = format!("#payment-detail #return-qty-{line}");
        // A long sale's lines scroll inside the detail pane, as the cashier scrolls them.
        app.js(&format!("document.querySelector('{css}').scrollIntoView({{ block: 'center' }}); return true")).await;
        let f = app.el(&css).await;
        f.clear().await.unwrap();
        f.send_keys(q.to_string()).await.unwrap();
    }
    app.js("document.querySelector('#payment-detail #return-reason').scrollIntoView({ block: 'center' }); return true").await;
    app.el("#payment-detail #return-reason").await.send_keys(reason).await.unwrap();
    app.click("#payment-detail #return-submit").await;
    let v = app
        .wait_js(
            "if (document.querySelector('#payment-detail #return-done')) return 'done'; \
             const b = document.querySelector('#payment-detail #return-msg .bad'); return b ? b.dataset.code : false",
            "the return's answer",
            LONG,
        )
        .await;
    v.as_str().unwrap().to_string()
}

fn ledger(app: &App) -> Ledger {
    Ledger::open(app.data_dir.join("ledger.db")).unwrap()
}

/// The sale's cash movements as (kind, amount), in order.
fn moves(app: &App, cart: CartId) -> Vec<(String, i64)> {
    ledger(app).sales().cash_movements(Some(cart)).unwrap().iter().map(|m| (m.kind.as_str().to_string(), m.amount.amount_minor)).collect()
}

fn expected_drawer(app: &App) -> i64 {
    ledger(app).sales().expected_drawer().unwrap().iter().map(|(_, m)| *m).sum()
}

/// The PSP's refunds of the card tender(s) of `cart`, as (amount, status).
async fn psp_refunds(app: &App, psp: &Psp, cart: CartId) -> Vec<(i64, String)> {
    let keys: Vec<String> = ledger(app)
        .sales()
        .by_cart(cart)
        .unwrap()
        .tenders
        .iter()
        .filter(|t| t.kind == TenderKind::Card)
        .map(|t| t.checkout_key.clone().unwrap())
        .collect();
    let mut out = Vec::new();
    for k in keys {
        for pi in psp.intents_for(&k).await {
            let list = psp.get(&format!("/v1/refunds?payment_intent={}", pi["id"].as_str().unwrap())).await;
            for r in list["data"].as_array().cloned().unwrap_or_default() {
                out.push((r["amount"].as_i64().unwrap(), r["status"].as_str().unwrap().to_string()));
            }
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_of_three_lines_of_a_card_and_cash_sale_comes_back_card_first_then_cash() {
    let app = App::start("returns-split", launch(false, 1280, 800)).await;
    let psp = app.psp().await;
    // Coffee $2.50 + croissant $3.25 + mug $14.95 = $20.70, and New York's 8.875 % on the
    // coffee and the mug (the croissant to go is exempt): $1.55, $22.25 in all. $10.00 by
    // card, $12.25 cash.
    let cart = sale(&app, &["COF-001", "CRO-001", "MUG-001"], "$22.25", "10.00").await;
    open_returns(&app, cart).await;
    let rows = app.js("return [...document.querySelectorAll('#return-form tbody tr')].map((r) => r.textContent).join('|')").await;
    assert_eq!(rows, Value::from("Coffee, regular10|Croissant10|PayDesk mug10"), "name, sold, returned, the quantity cell");
    // Nothing is on the register: no Exchange button, and the line says how to get one.
    assert_eq!(app.js("return document.querySelector('#payment-detail #exchange-submit') === null").await, Value::Bool(true));
    assert_eq!(
        app.text("#payment-detail #exchange-how").await,
        "To exchange, ring the new items up on the register first, then open this sale again."
    );
    app.screenshot("returns-form-1280x800").await;

    // The mug ($14.95 and its $1.33 tax = $16.28): $10.00 back to the card (all it paid),
    // $6.28 from the drawer.
    assert_eq!(submit(&app, &[(2, 1)], "damaged box").await, "done");
    let done = app.el("#payment-detail #return-done").await;
    assert_eq!(done.attr("data-cash").await.unwrap().as_deref(), Some("628"));
    let message = done.text().await.unwrap();
    assert!(message.contains("Hand $6.28 back from the drawer") && message.contains(&format!("{:06}-R1", cart.0)), "{message}");
    let doc = app.text("#payment-detail #return-doc").await;
    for want in ["RETURN", "PayDesk mug x1", "$16.28", "$10.00", "$6.28", &format!("{:06}", cart.0)] {
        assert!(doc.contains(want), "{want:?} not on the document:\n{doc}");
    }
    app.screenshot("returns-done-1280x800").await;

    // The PSP: one refund of the card, $10.00, succeeded (driven before the command answered).
    let refunds = psp_refunds(&app, &psp, cart).await;
    assert_eq!(refunds, vec![(1000, "succeeded".to_string())]);
    // The drawer: $12.25 in, $6.28 out for the return; the drawer expects $5.97.
    assert_eq!(moves(&app, cart), vec![("sale_in".to_string(), 1225), ("refund_out".to_string(), -628)]);
    assert_eq!(expected_drawer(&app), 597);
    let l = ledger(&app);
    let r = l.returns().by_sale(cart).unwrap();
    assert_eq!((r.len(), r[0].total_minor, r[0].cash_out_minor, r[0].lines[0].line), (1, 1628, 628, 2));
    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_take_out_food_line_comes_back_with_its_8_percent_on_the_return_document_in_japanese() {
    let app = App::start("returns-ja", launch(true, 1024, 768)).await;
    let psp = app.psp().await;
    // Coffee ¥250 (take-out, 8 %) and a mug ¥1,650 (10 %), paid in cash.
    let cart = sale(&app, &["COF-001", "MUG-001"], "¥1,900", "").await;
    open_returns(&app, cart).await;
    assert_eq!(app.text("#payment-detail #return-open").await, "返品");
    assert!(app.text("#payment-detail #exchange-how").await.starts_with("交換するには、先に新しい商品をレジに登録"));
    assert_eq!(submit(&app, &[(0, 1)], "注文間違い").await, "done");
    let message = app.text("#payment-detail #return-done").await;
    assert!(message.contains("ドロアから ¥250 をお返しください"), "{message}");
    let doc = app.text("#payment-detail #return-doc").await;
    for want in ["返品伝票", "適格返還請求書", "※ブレンドコーヒー ×1", "8%対象", "内消費税", "¥18", "現金で返金", "T7000012050002"] {
        assert!(doc.contains(want), "{want:?} not on the document:\n{doc}");
    }
    assert!(!doc.contains("10%対象"), "only the returned line's rate:\n{doc}");
    app.screenshot("returns-ja-1024x768").await;

    // The ledger holds the same 8 % figures; the drawer paid ¥250 out; the PSP saw nothing.
    let r = &ledger(&app).returns().by_sale(cart).unwrap()[0];
    let rates: Vec<(u32, i64, i64)> = r.rates.iter().map(|x| (x.ppm, x.gross, x.tax)).collect();
    assert_eq!(rates, vec![(80_000, 250, 18)]);
    assert_eq!(moves(&app, cart), vec![("sale_in".to_string(), 1900), ("refund_out".to_string(), -250)]);
    assert_eq!(expected_drawer(&app), 1650);
    let stats = psp.stats().await;
    assert_eq!((stats["charges"].as_u64(), stats["refunds"].as_u64()), (Some(0), Some(0)), "{stats}");
    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_return_beyond_what_is_left_is_refused_naming_the_line_and_writes_nothing() {
    let app = App::start("returns-beyond", launch(false, 1280, 800)).await;
    let psp = app.psp().await;
    // Coffee ×2 + croissant = $8.25 and $0.44 tax on the coffees: $8.69, $5.00 by card and
    // $3.69 cash.
    let cart = sale(&app, &["COF-001", "COF-001", "CRO-001"], "$8.69", "5.00").await;
    open_returns(&app, cart).await;
    // Meanwhile one coffee comes back elsewhere (another window, a replayed call): this
    // form still says 2 left.
    let other = app
        .js(&format!(
            "return window.__TAURI__.core.invoke('return_lines', {{ cart: {}, lines: [{{ line: 0, quantity: 1 }}], reason: 'first return' }})\
             .then((r) => r.number, (e) => JSON.stringify(e))",
            cart.0
        ))
        .await;
    assert_eq!(other, Value::from(format!("{:06}-R1", cart.0)));
    let (moves_before, drawer_before) = (moves(&app, cart), expected_drawer(&app));
    let refunds_before = psp.stats().await["refunds"].clone();
    assert_eq!(refunds_before, 1, "the first return's $2.72 (a coffee and its $0.22 tax) went to the card");

    assert_eq!(submit(&app, &[(0, 2)], "second return").await, "invalid_input");
    let said = app.text("#payment-detail #return-msg").await;
    assert_eq!(said, "Line 1 (Coffee, regular): 2 sold and 1 already returned, so 2 more cannot be returned. Nothing was returned.");
    app.screenshot("returns-refused-1280x800").await;

    // Nothing written: one return, the same drawer, no second refund at the PSP.
    assert_eq!(ledger(&app).returns().by_sale(cart).unwrap().len(), 1);
    assert_eq!((moves(&app, cart), expected_drawer(&app)), (moves_before, drawer_before));
    assert_eq!(psp.stats().await["refunds"], refunds_before);
    assert_eq!(psp_refunds(&app, &psp, cart).await.iter().map(|(a, _)| *a).collect::<Vec<_>>(), vec![272]);
    app.close().await;
}

fn job(printer: &TestPrinter) -> Printout {
    printer.next_job(Duration::from_secs(30)).expect("a print job").expect("ESC/POS the test printer understands")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_return_document_reaches_the_printer_and_a_second_print_is_marked_reprint() {
    let printer = TestPrinter::start().unwrap();
    let app = App::start("returns-print", launch(false, 1024, 768)).await;
    let psp = app.psp().await;
    let addr = printer.addr().to_string();
    app.js(&format!("return window.__TAURI__.core.invoke('save_printer', {{ printer: '{addr}', confirmPort: true }}).then(() => true)")).await;
    // $3.25 + $14.95 and the mug's $1.33 tax; the croissant to go is exempt.
    let cart = sale(&app, &["CRO-001", "MUG-001"], "$19.53", "").await;
    open_returns(&app, cart).await;
    assert_eq!(submit(&app, &[(0, 1)], "stale").await, "done");
    assert_eq!(app.text("#payment-detail #return-print").await, "Print return document");

    assert_eq!(app.print_return_document(1).await, "Return document sent to the printer.");
    let first = job(&printer);
    let text = first.texts().join("\n");
    assert!(text.contains("RETURN") && text.contains("Croissant x1") && text.contains("$3.25") && !text.contains("REPRINT"), "{text}");
    assert_eq!((first.cuts, first.kicks.len()), (1, 0), "cut, and the drawer never opens");
    assert_eq!(app.text("#payment-detail #return-print").await, "Reprint return document");

    assert_eq!(app.print_return_document(2).await, "Return document reprint sent to the printer.");
    let second = job(&printer).texts().join("\n");
    assert!(second.contains("REPRINT") && second.contains("Croissant x1"), "{second}");
    assert!(app.text("#payment-detail #return-doc").await.contains("REPRINT"), "the screen shows what the next print is");
    app.screenshot("returns-printed-1024x768").await;

    // The ledger recorded both prints, the first the original; the drawer paid $3.25 out;
    // the PSP saw no card.
    let l = ledger(&app);
    let id = l.returns().by_sale(cart).unwrap()[0].id;
    let prints: Vec<(i64, bool)> = l.returns().prints(id).unwrap().iter().map(|p| (p.print_no, p.reprint)).collect();
    assert_eq!(prints, vec![(1, false), (2, true)]);
    assert_eq!(moves(&app, cart), vec![("sale_in".to_string(), 1953), ("refund_out".to_string(), -325)]);
    assert_eq!(expected_drawer(&app), 1628);
    assert_eq!(psp.stats().await["refunds"], 0);
    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cashiers_return_asks_a_manager_inline_and_the_audit_names_both() {
    // The owner opened the shift (Launch::default); Casey, a cashier, takes the register.
    let app = App::start("returns-cashier", launch(false, 1280, 800)).await;
    let psp = app.psp().await;
    app.click("#lock").await;
    app.wait_js("return document.body.dataset.screen === 'signin'", "the sign-in screen", LONG).await;
    app.sign_in_as("Casey", "3333").await;
    let cart = sale(&app, &["COF-001", "CRO-001"], "$5.97", "").await;
    open_returns(&app, cart).await;
    app.js("document.querySelector('#payment-detail #return-qty-1').scrollIntoView({ block: 'center' }); return true").await;
    let f = app.el("#payment-detail #return-qty-1").await;
    f.clear().await.unwrap();
    f.send_keys("1").await.unwrap();
    app.el("#payment-detail #return-reason").await.send_keys("stale croissant").await.unwrap();
    app.click("#payment-detail #return-submit").await;
    // A refund is a manager's: the dialog opens over the form, Marcus approves.
    app.wait_js("return !document.getElementById('approval').hidden", "the approval dialog", LONG).await;
    assert_eq!(ledger(&app).returns().by_sale(cart).unwrap().len(), 0, "nothing before the approval");
    app.js("document.getElementById('approval-name').value = 'Marcus'; return true").await;
    app.el("#approval-pin").await.send_keys("2222").await.unwrap();
    app.click("#approval-ok").await;
    app.wait_js("return document.querySelector('#payment-detail #return-done') !== null", "the return done", LONG).await;
    assert_eq!(app.el("#payment-detail #return-done").await.attr("data-cash").await.unwrap().as_deref(), Some("325"));

    let l = ledger(&app);
    let (casey, marcus) = (l.roster().by_name("Casey").unwrap().unwrap().id, l.roster().by_name("Marcus").unwrap().unwrap().id);
    assert_eq!(l.returns().by_sale(cart).unwrap()[0].staff_id, Some(casey));
    let approved = l.audit().log().unwrap().into_iter().rev().find(|e| e.approver_id.is_some()).expect("an approval row");
    assert_eq!((approved.actor_id, approved.approver_id), (Some(casey), Some(marcus)), "{approved:?}");
    assert_eq!(moves(&app, cart), vec![("sale_in".to_string(), 597), ("refund_out".to_string(), -325)]);
    assert_eq!(psp.stats().await["refunds"], 0, "a cash sale's return never reaches the PSP");
    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_receipts_barcode_scanned_at_payments_opens_its_return_form() {
    let printer = TestPrinter::start().unwrap();
    let app = App::start("returns-scan", launch(true, 1280, 800)).await;
    let addr = printer.addr().to_string();
    app.js(&format!("return window.__TAURI__.core.invoke('save_printer', {{ printer: '{addr}', confirmPort: true }}).then(() => true)")).await;
    let cart = sale(&app, &["COF-001", "MUG-001"], "¥1,900", "").await;
    // The receipt prints with its number as a CODE128 barcode under it.
    app.click("#view-register #print-receipt").await;
    let printed = job(&printer);
    assert_eq!(printed.barcodes, vec![format!("{:06}", cart.0)], "{:?}", printed.texts());

    // Next customer; at Payments the scanner "types" the barcode and Enter.
    app.click("#tender-new-sale").await;
    key(&app, Key::F2).await;
    let field = app.el("#sales-find").await;
    field.send_keys("99999").await.unwrap();
    field.send_keys(Key::Enter).await.unwrap();
    let refused = app.wait_js("const m = document.getElementById('sales-find-msg'); return !m.hidden && m.textContent", "the refusal", LONG).await;
    assert!(refused.as_str().unwrap().contains("99999"), "{refused}");
    field.send_keys(printed.barcodes[0].as_str()).await.unwrap();
    field.send_keys(Key::Enter).await.unwrap();
    app.wait_js(&format!("return document.querySelector('#payment-detail .return-panel[data-cart=\"{}\"] #return-form') !== null", cart.0), "the sale's Returns form", LONG)
        .await;
    assert!(app.js("return document.getElementById('sales-find-msg').hidden").await.as_bool().unwrap(), "the refusal is gone");
    app.screenshot("returns-scanned-1280x800").await;
    app.close().await;
}

/// A receipt's barcode scanned at the register's own scan field (record 0125): the field
/// looks items up first, and a code no item has that is a paid sale's receipt number opens
/// that sale at Payments with its Return items form. A six-digit code that is neither stays
/// "not in the catalog" on the register, and nothing is rung up. At 1024x768.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_receipts_barcode_scanned_at_the_register_opens_its_return_form() {
    let app = App::start("returns-scan-register", launch(true, 1024, 768)).await;
    let cart = sale(&app, &["COF-001", "MUG-001"], "¥1,900", "").await;
    app.click("#tender-new-sale").await;
    app.wait_js("return document.getElementById('cart-total').textContent === '¥0'", "the next customer's empty cart", LONG).await;

    app.scan("999999").await;
    let refused = app.wait_js("const b = document.getElementById('scan-error'); return !b.hidden && b.dataset.code", "the unknown code refused", LONG).await;
    assert_eq!(refused, serde_json::json!("unknown_item"));
    assert_eq!(app.js("return document.getElementById('view-register').hidden").await, serde_json::json!(false), "still at the register");

    app.scan(&format!("{:06}", cart.0)).await;
    app.wait_js(
        &format!("return !document.getElementById('view-payments').hidden && document.querySelector('#payment-detail .return-panel[data-cart=\"{}\"] #return-form') !== null", cart.0),
        "the sale's Returns form at Payments",
        LONG,
    )
    .await;
    assert_eq!(app.js("return document.getElementById('view-register').hidden").await, serde_json::json!(true), "Payments, not the register");
    let p = app.screenshot("returns-scan-register-1024").await;
    let _ = std::fs::create_dir_all("/work/shots");
    let _ = std::fs::copy(&p, "/work/shots/returns-scan-register-1024x768.png");
    // Nothing was rung up by either scan.
    let lines = app.js("return window.__TAURI__.core.invoke('get_cart').then((c) => c.lines.length)").await;
    assert_eq!(lines, serde_json::json!(0));
    app.close().await;
}
