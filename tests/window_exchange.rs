//! Exchanges in the real window (issue #29, record 0123): the cashier rings the new goods
//! up on the register, opens the old sale's Return items and presses "Exchange for the
//! sale on the register". Each test checks the PSP (payments and refunds) and the drawer
//! in the ledger file, not the screen alone: a mug exchanged for two mugs leaves the
//! difference, paid by card, as ONE new payment and no refund, with the drawer unmoved;
//! in Japanese, a mug exchanged for a croissant pays the croissant by the credit alone and
//! gives the rest back as ONE refund of the old card; a customer exchanging twice has every
//! give-back land once on the first sale's card (record 0155). Screenshots at 1280x800 and 1024x768.

use paydesk_domain::TenderKind;
use paydesk_e2e::thirtyfour::prelude::*;
use paydesk_e2e::{App, Launch, Psp, LONG};
use paydesk_ledger::{CartId, Ledger, SaleState};

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

async fn scan_up(app: &App, skus: &[&str], total: &str) {
    app.scan_up(skus, total).await;
}

async fn pay_card(app: &App, amount: &str, tenders: u32) {
    app.pay_card_part(amount, tenders).await;
}

/// A paid sale: `card` by card, the rest in cash.
async fn sale(app: &App, skus: &[&str], total: &str, card: &str) -> CartId {
    CartId(app.paid_split_sale(skus, total, card).await)
}

/// Next customer: the new goods rung up; then Payments (F2) → Receipts → the old sale →
/// "Return items", the form open with the exchange offered.
async fn exchange_form(app: &App, old: CartId, new_skus: &[&str], new_total: &str) -> CartId {
    app.click("#tender-new-sale").await;
    scan_up(app, new_skus, new_total).await;
    key(app, Key::F2).await;
    let show = format!("#sale-show-{}", old.0);
    app.wait_js(&format!("return document.querySelector('{show}') !== null"), "the sale in the Receipts list", LONG).await;
    app.click(&show).await;
    app.click("#payment-detail #return-open").await;
    app.wait_js("return document.querySelector('#payment-detail #exchange-submit') !== null", "the exchange offered", LONG).await;
    let into = app.el("#payment-detail #exchange-submit").await.attr("data-into").await.unwrap().unwrap();
    let new = CartId(into.parse().unwrap());
    // The sale the button names is the one on the register: the goods just rung up.
    let lines: Vec<String> = ledger(app).sales().by_cart(new).unwrap().cart.lines.iter().map(|l| l.sku.clone()).collect();
    let mut want: Vec<String> = new_skus.iter().map(|s| s.to_string()).collect();
    want.dedup();
    assert_eq!(lines, want, "the exchange pays the sale on the register");
    new
}

async fn submit_exchange(app: &App, line: usize, reason: &str) {
    let css = format!("#payment-detail #return-qty-{line}");
    app.js(&format!("document.querySelector('{css}').scrollIntoView({{ block: 'center' }}); return true")).await;
    let f = app.el(&css).await;
    f.clear().await.unwrap();
    f.send_keys("1").await.unwrap();
    app.el("#payment-detail #return-reason").await.send_keys(reason).await.unwrap();
    app.click("#payment-detail #exchange-submit").await;
    let v = app
        .wait_js(
            "if (document.querySelector('#payment-detail #exchange-done')) return 'done'; \
             const b = document.querySelector('#payment-detail #return-msg .bad'); return b ? b.dataset.code : false",
            "the exchange's answer",
            LONG,
        )
        .await;
    assert_eq!(v.as_str(), Some("done"), "{v}");
}

fn ledger(app: &App) -> Ledger {
    Ledger::open(app.data_dir.join("ledger.db")).unwrap()
}

fn expected_drawer(app: &App) -> i64 {
    ledger(app).sales().expected_drawer().unwrap().iter().map(|(_, m)| *m).sum()
}

/// Each card tender of `cart` at the PSP: (amount, status, its refunds' amounts).
async fn psp_cards(app: &App, psp: &Psp, cart: CartId) -> Vec<(i64, String, Vec<i64>)> {
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
            let id = pi["id"].as_str().unwrap();
            let list = psp.get(&format!("/v1/refunds?payment_intent={id}")).await;
            let refunds = list["data"].as_array().cloned().unwrap_or_default().iter().map(|r| r["amount"].as_i64().unwrap()).collect();
            out.push((pi["amount"].as_i64().unwrap(), pi["status"].as_str().unwrap().to_string(), refunds));
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mug_exchanged_for_two_leaves_the_difference_as_one_card_payment_and_no_refund() {
    let app = App::start("exchange-dearer", launch(false, 1280, 800)).await;
    let psp = app.psp().await;
    // Coffee $2.50 + croissant $3.25 + mug $14.95 = $20.70 and New York City's 8.875 % on the
    // coffee and mug (record 0131; the croissant to go is grocery food): 1745 × 8.875 % =
    // 154.87 → $1.55, $22.25: $10.00 by card, $12.25 cash.
    let old = sale(&app, &["COF-001", "CRO-001", "MUG-001"], "$22.25", "10.00").await;
    let drawer = expected_drawer(&app);
    // Two mugs: 2990 + 265.36 → $32.55.
    let new = exchange_form(&app, old, &["MUG-001", "MUG-001"], "$32.55").await;
    assert!(app.text("#payment-detail #exchange-submit").await.contains("$32.55"));
    app.screenshot("exchange-form-1280x800").await;

    submit_exchange(&app, 2, "wants a pair").await;
    let done = app.el("#payment-detail #exchange-done").await;
    assert_eq!((done.attr("data-credit").await.unwrap(), done.attr("data-due").await.unwrap()), (Some("1628".into()), Some("1627".into())));
    let message = done.text().await.unwrap();
    // The mug's worth back with its tax: the sale's taxable 1745 had $1.55 tax, the coffee
    // alone would have $0.22: $14.95 + $1.33 = $16.28. Left: 3255 − 1628 = $16.27.
    assert!(message.contains("$16.28 pays the sale on the register") && message.contains("$16.27 is left to pay"), "{message}");
    app.screenshot("exchange-done-1280x800").await;
    assert_eq!(expected_drawer(&app), drawer, "nothing left the drawer");
    assert_eq!(psp_cards(&app, &psp, old).await, vec![(1000, "succeeded".into(), vec![])], "the old card is not refunded");

    // On the register: the credit listed, $16.27 due, paid by card.
    app.click("#payment-detail #exchange-to-register").await;
    app.wait_js("return document.getElementById('tender-credit') !== null && !document.getElementById('tender').hidden", "the tender panel with the credit", LONG)
        .await;
    assert_eq!(app.text("#tender-due").await, "$16.27");
    app.screenshot("exchange-tender-1280x800").await;
    let credit = app.js("return document.getElementById('tender-credit').textContent").await.as_str().unwrap().to_string();
    assert!(credit.contains(&format!("{:06}-R1", old.0)) && credit.contains("$16.28"), "{credit}");
    // A sale holding a credit is not canceled (the old goods are back on the shelf).
    assert_eq!(app.js("return document.getElementById('tender-cancel').disabled").await, serde_json::Value::Bool(true));
    pay_card(&app, "16.27", 1).await;
    app.wait_js("return document.getElementById('tender-done')?.dataset.state === 'paid'", "the new sale paid", LONG).await;
    app.wait_js("return document.querySelector('#view-register .receipt-panel')?.dataset.loaded === 'true'", "the receipt", LONG).await;
    let receipt = app.js("return document.querySelector('#view-register #sale-receipt').textContent").await.as_str().unwrap().to_string();
    for want in [format!("Exchange {:06}-R1", old.0), "$16.28".into(), "$32.55".into()] {
        assert!(receipt.contains(&want), "{want:?} not on the new sale's receipt:\n{receipt}");
    }

    // The PSP: one new payment of $16.27, no refund anywhere; the drawer unmoved.
    assert_eq!(psp_cards(&app, &psp, new).await, vec![(1627, "succeeded".into(), vec![])]);
    assert_eq!(psp_cards(&app, &psp, old).await, vec![(1000, "succeeded".into(), vec![])]);
    let stats = psp.stats().await;
    assert_eq!((stats["charges"].as_u64(), stats["refunds"].as_u64()), (Some(2), Some(0)), "{stats}");
    assert_eq!(expected_drawer(&app), drawer);
    let l = ledger(&app);
    let s = l.sales().by_cart(new).unwrap();
    assert_eq!((s.state, s.totals.settled_minor, s.exchange_credit.map(|c| c.amount_minor)), (SaleState::Paid, 3255, Some(1628)));
    assert_eq!(l.returns().returned(old).unwrap(), vec![0, 0, 1]);
    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_japanese_a_mug_for_a_croissant_is_paid_by_the_credit_and_the_rest_is_one_refund_of_the_card() {
    let app = App::start("exchange-ja", launch(true, 1024, 768)).await;
    let psp = app.psp().await;
    // Coffee ¥250 + mug ¥1,650 = ¥1,900: ¥1,650 by card, ¥250 cash.
    let old = sale(&app, &["COF-001", "MUG-001"], "¥1,900", "1650").await;
    let drawer = expected_drawer(&app);
    let new = exchange_form(&app, old, &["CRO-001"], "¥220").await;
    submit_exchange(&app, 1, "サイズ交換").await;
    let done = app.el("#payment-detail #exchange-done").await;
    assert_eq!((done.attr("data-credit").await.unwrap(), done.attr("data-due").await.unwrap()), (Some("220".into()), Some("0".into())));
    let message = done.text().await.unwrap();
    assert!(message.contains("¥220をレジの会計に充てました") && message.contains("カードに返金"), "{message}");
    let none = app.js("return document.querySelector('#payment-detail #exchange-to-register') === null").await;
    assert_eq!(none, serde_json::Value::Bool(true), "nothing left to pay");
    app.screenshot("exchange-ja-1024x768").await;
    // The return document says where all ¥1,650 went: ¥1,430 to the card, ¥220 to the new sale.
    let doc = app.text("#payment-detail #return-doc").await;
    for want in ["返品金額", "¥1,650", "クレジットカードへ返金", "¥1,430", &format!("お買上げ {:06} に充当", new.0), "¥220"] {
        assert!(doc.contains(want), "{want:?} not on the return document:\n{doc}");
    }
    assert!(!doc.contains("現金で返金"), "{doc}");

    // One refund of the old card: ¥1,650 less the ¥220 that pays the croissant.
    assert_eq!(psp_cards(&app, &psp, old).await, vec![(1650, "succeeded".into(), vec![1430])]);
    assert_eq!(expected_drawer(&app), drawer, "nothing from the drawer");
    let s = ledger(&app).sales().by_cart(new).unwrap();
    assert_eq!((s.state, s.tenders.len()), (SaleState::Paid, 0), "paid by the credit alone");
    // Its receipt names the credit as what paid it.
    let receipt = app.js(&format!("return window.__TAURI__.core.invoke('get_receipt', {{ cart: {} }})", new.0)).await;
    let text = receipt["text"].as_array().map(|l| l.iter().filter_map(|x| x.as_str()).collect::<Vec<_>>().join("\n")).unwrap_or_default();
    assert!(text.contains(&format!("交換 {:06}-R1", old.0)) && text.contains("¥220"), "{receipt}");

    // The old card's payment in the Payments list: ¥1,430 back and ¥220 paying the croissant,
    // so nothing is refundable by hand, and its detail says where the ¥220 is (record 0160).
    let card_key = ledger(&app).sales().by_cart(old).unwrap().tenders.iter().find(|t| t.kind == TenderKind::Card).unwrap().checkout_key.clone().unwrap();
    let row = format!("#payments-rows tr[data-id={}]", serde_json::to_string(&card_key).unwrap());
    app.wait_js(&format!("return !!document.querySelector('{row}')"), "the old card's payment listed", LONG).await;
    let open = format!("{row} button");
    app.js(&format!("document.querySelector('{open}').scrollIntoView({{ block: 'center' }}); return true")).await;
    app.click(&open).await;
    app.wait_js("return !!document.getElementById('refund-held')", "why part of the payment stays", LONG).await;
    let held = app.text("#refund-held").await;
    assert!(held.contains("¥220") && held.contains("交換"), "{held}");
    let none = app.js("return document.getElementById('refund-full') === null && document.getElementById('refund-amount') === null").await;
    assert_eq!(none, serde_json::Value::Bool(true), "nothing refundable by hand");
    app.screenshot("refund-held-ja-1024x768").await;
    app.close().await;
}

/// The register after a sale paid by an exchange credit alone (nothing to tender): back on
/// the Register tab it shows that sale paid, with "New sale", never as a cart with Charge
/// (it did: "Charge $6.50" for a sale the credit had paid). The cashier goes on to the next
/// customer.
async fn next_customer_after_a_credit_paid_sale(app: &App, total: &str) {
    key(app, Key::F1).await;
    // The panel itself shown (an earlier sale's done panel stays in the page, hidden).
    app.wait_js(
        "const p = document.getElementById('tender'); return !p.hidden && document.getElementById('tender-done')?.dataset.state === 'paid'",
        "the credit-paid sale shown paid",
        LONG,
    )
    .await;
    app.screenshot("exchange-twice-paid-by-credit-1024x768").await;
    // What the cashier can press: the point where Charge sits is the paid panel now.
    let charge = app
        .js("const c = document.getElementById('charge'); const r = c.getBoundingClientRect(); \
             const e = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2); return !!e && (e === c || c.contains(e))")
        .await;
    assert_eq!(charge, serde_json::Value::Bool(false), "no Charge to press for a paid sale");
    assert!(app.text("#tender").await.contains(total), "the paid sale's total on the panel");
    app.click("#tender-new-sale").await;
}

/// `psp_cards` with each payment's refunds in order of amount (the PSP lists them newest first).
fn refunds_sorted(mut cards: Vec<(i64, String, Vec<i64>)>) -> Vec<(i64, String, Vec<i64>)> {
    cards.iter_mut().for_each(|c| c.2.sort_unstable());
    cards
}

/// A customer exchanging twice (record 0155): a mug ($16.28: $10.00 by card, $6.28 cash) is
/// exchanged for two croissants ($6.50, paid by the credit alone; $3.50 back to the card,
/// $6.28 from the drawer); then one of the croissants for a coffee ($2.72): the croissants'
/// sale has no tender of its own, so its credit carries $2.72 on to the coffee and the rest,
/// $0.53, goes back to the MUG's card; then the other croissant is returned: $3.25 more to
/// that card. At the PSP: one charge, its refunds 350 + 53 + 325, so the card keeps exactly
/// the $2.72 that pays the coffee; the drawer paid out $6.28 once; nothing charged twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_customer_exchanges_twice_and_every_give_back_lands_on_the_first_card_once() {
    let app = App::start("exchange-twice", launch(false, 1024, 768)).await;
    let psp = app.psp().await;
    let mug = sale(&app, &["MUG-001"], "$16.28", "10.00").await;
    let drawer = expected_drawer(&app);

    let croissants = exchange_form(&app, mug, &["CRO-001", "CRO-001"], "$6.50").await;
    submit_exchange(&app, 0, "rather eat").await;
    let done = app.el("#payment-detail #exchange-done").await;
    assert_eq!((done.attr("data-credit").await.unwrap(), done.attr("data-due").await.unwrap()), (Some("650".into()), Some("0".into())));
    assert_eq!(refunds_sorted(psp_cards(&app, &psp, mug).await), vec![(1000, "succeeded".into(), vec![350])]);
    assert_eq!(expected_drawer(&app), drawer - 628, "the rest of the mug's worth from the drawer");

    // The second exchange: one croissant for a coffee (2.50 + 8.875 % → $2.72).
    next_customer_after_a_credit_paid_sale(&app, "$6.50").await;
    scan_up(&app, &["COF-001"], "$2.72").await;
    key(&app, Key::F2).await;
    let show = format!("#sale-show-{}", croissants.0);
    app.wait_js(&format!("return document.querySelector('{show}') !== null"), "the croissants' sale in the Receipts list", LONG).await;
    app.click(&show).await;
    app.click("#payment-detail #return-open").await;
    app.wait_js("return document.querySelector('#payment-detail #exchange-submit') !== null", "the second exchange offered", LONG).await;
    assert!(app.text("#payment-detail #exchange-submit").await.contains("$2.72"));
    let coffee = CartId(app.el("#payment-detail #exchange-submit").await.attr("data-into").await.unwrap().unwrap().parse().unwrap());
    app.screenshot("exchange-twice-form-1024x768").await;
    submit_exchange(&app, 0, "a coffee instead").await;
    let done = app.el("#payment-detail #exchange-done").await;
    assert_eq!((done.attr("data-credit").await.unwrap(), done.attr("data-due").await.unwrap()), (Some("272".into()), Some("0".into())));
    app.screenshot("exchange-twice-done-1024x768").await;
    assert_eq!(refunds_sorted(psp_cards(&app, &psp, mug).await), vec![(1000, "succeeded".into(), vec![53, 350])], "the difference back to the mug's card");
    assert_eq!(expected_drawer(&app), drawer - 628, "the drawer paid out once");
    let s = ledger(&app).sales().by_cart(coffee).unwrap();
    assert_eq!((s.state, s.tenders.len(), s.exchange_credit.map(|c| c.amount_minor)), (SaleState::Paid, 0, Some(272)), "the coffee paid by the carried credit alone");

    // The other croissant comes back as a plain return: $3.25, to the mug's card again.
    app.click(&show).await;
    app.click("#payment-detail #return-open").await;
    app.wait_js("return document.querySelector('#payment-detail #return-form') !== null", "the Returns form", LONG).await;
    let css = "#payment-detail #return-qty-0";
    app.js(&format!("document.querySelector('{css}').scrollIntoView({{ block: 'center' }}); return true")).await;
    let f = app.el(css).await;
    f.clear().await.unwrap();
    f.send_keys("1").await.unwrap();
    app.el("#payment-detail #return-reason").await.send_keys("full").await.unwrap();
    app.click("#payment-detail #return-submit").await;
    let v = app
        .wait_js(
            "if (document.querySelector('#payment-detail #return-done')) return 'done'; \
             const b = document.querySelector('#payment-detail #return-msg .bad'); return b ? b.dataset.code : false",
            "the return's answer",
            LONG,
        )
        .await;
    assert_eq!(v.as_str(), Some("done"), "{v}");

    // The PSP: the mug's one charge and three refunds, 1000 - 728 = 272 left on it, which is
    // exactly what pays the coffee; no other charge, nothing refunded twice.
    assert_eq!(refunds_sorted(psp_cards(&app, &psp, mug).await), vec![(1000, "succeeded".into(), vec![53, 325, 350])]);
    let stats = psp.stats().await;
    assert_eq!((stats["charges"].as_u64(), stats["refunds"].as_u64()), (Some(1), Some(3)), "{stats}");
    assert_eq!(expected_drawer(&app), drawer - 628);
    let l = ledger(&app);
    assert_eq!(l.returns().returned(croissants).unwrap(), vec![2]);
    assert_eq!(l.returns().returned(mug).unwrap(), vec![1]);
    app.close().await;
}
