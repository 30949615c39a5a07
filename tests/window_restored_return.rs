//! A sale made by a register that was since replaced, returned at its replacement in the real
//! window (issue #29, record 0144): register A (a real app window on a real mock PSP
//! process) sells by card and cash; A's journal, as the back office would hand it over, is
//! B's restored history; at B, Payments → Receipts → the receipt number finds no sale of B's
//! own and opens A's sale's Return items, naming A; one line comes back. Checked beyond the
//! screen: the PSP holds exactly one refund, on A's payment, card first and at most what the
//! card paid; the rest leaves B's drawer as a movement under B's shift; a second return of
//! a line already taken back elsewhere is refused, nothing sent. English at 1280x800, Japanese
//! at 1024x768; screenshots of the form and the result under target/screenshots. And the
//! Exchange beside Return (record 0153 addendum): A's mug for two mugs rung up on B, the rest
//! paid by card on B's register, one charge at the PSP, no refund, B's drawer unmoved.
//! And a number on B's own sale AND A's (record 0159): the cashier picks the one on the
//! paper; nothing is opened for them.

use paydesk_e2e::thirtyfour::prelude::*;
use paydesk_e2e::{App, Launch, PspProcess, LONG};
use paydesk_ledger::{CartId, Ledger, RestoreSourceRow, RestoredRow};
use paydesk_receipt::test_printer::TestPrinter;
use serde_json::Value;

const SRC: &str = "reg-front-till";
const KEY: &str = "sk_test_restored_return";

fn launch(psp: &PspProcess, ja: bool, width: u32, height: u32) -> Launch {
    let mut l = Launch { width, height, ..Launch::default() };
    l.env.push(("PAYDESK_PSP_URL".into(), psp.psp.url.clone()));
    l.env.push(("PAYDESK_PSP_KEY".into(), KEY.into()));
    if ja {
        l.env.push(("PAYDESK_DEMO_STORE".into(), "ja-JP".into()));
    }
    l
}

fn ledger(app: &App) -> Ledger {
    Ledger::open(app.data_dir.join("ledger.db")).unwrap()
}

/// A's sale: paid by `card` typed at the card step and the rest in cash. Returns the sale,
/// its card payment's PSP id, and what A queued for the back office (its facts), read
/// while A still runs.
async fn predecessor_sale(psp: &PspProcess, ja: bool, skus: &[&str], total: &str, card: &str) -> (CartId, String, Vec<RestoredRow>) {
    let a = App::start("restored-return-a", launch(psp, ja, 1280, 800)).await;
    let cart = CartId(a.paid_split_sale(skus, total, card).await);
    let l = ledger(&a);
    let sale = l.sales().by_cart(cart).unwrap();
    let key = sale.tenders.iter().find_map(|t| t.checkout_key.clone()).expect("a card tender");
    let pi = l.payments().by_key(&key).unwrap().unwrap().psp_payment_id.expect("captured at the PSP");
    let rows = l
        .sync_log()
        .outbox_batch(0, 5_000)
        .unwrap()
        .into_iter()
        .map(|r| {
            let kind = serde_json::from_str::<Value>(&r.fact_json).unwrap()["kind"].as_str().unwrap().to_string();
            RestoredRow { seq: r.seq, at_ms: r.at_ms, kind, fact_json: r.fact_json }
        })
        .collect::<Vec<_>>();
    drop(l);
    a.close().await;
    (cart, pi, rows)
}

/// B running, A's history restored whole into B's ledger (what `restore` writes from the
/// back office's answer).
fn restore_into(b: &App, rows: &[RestoredRow]) {
    let mut l = ledger(b);
    let src = RestoreSourceRow {
        register_id: SRC.into(),
        register_name: "Front till".into(),
        acked_through: rows.len() as u64,
        described_json: "{}".into(),
        restored_through: 0,
        started_at_ms: 0,
        finished_at_ms: None,
    };
    l.sync_log_mut().begin_restore(&src, 1).unwrap();
    l.sync_log_mut().append_restored(SRC, rows, 1).unwrap();
}

/// Payments (F2) → Receipts: the receipt number typed and Enter; the restored sale's form.
async fn find_by_receipt(b: &App, number: &str) {
    b.el("body").await.send_keys(Key::F2).await.unwrap();
    let field = b.el("#sales-find").await;
    field.send_keys(number).await.unwrap();
    field.send_keys(Key::Enter).await.unwrap();
    b.wait_js("return document.querySelector('#payment-detail #restored-return #return-form') !== null", "the restored sale's Return items", LONG).await;
}

/// Types `q` for line `line` and a reason, presses Return: `done` or the refusal's code.
async fn submit(b: &App, line: usize, q: u32) -> String {
    let css = format!("#payment-detail #return-qty-{line}");
    b.js(&format!("document.querySelector('{css}').scrollIntoView({{ block: 'center' }}); return true")).await;
    let f = b.el(&css).await;
    f.clear().await.unwrap();
    f.send_keys(q.to_string()).await.unwrap();
    b.el("#payment-detail #return-reason").await.send_keys("cracked").await.unwrap();
    b.click("#payment-detail #return-submit").await;
    let v = b
        .wait_js(
            "if (document.querySelector('#payment-detail #return-done')) return 'done'; \
             const x = document.querySelector('#payment-detail #return-msg .bad'); return x ? x.dataset.code : false",
            "the return's answer",
            LONG,
        )
        .await;
    v.as_str().unwrap().to_string()
}

/// The PSP's refunds of payment `pi` as (amount, status).
async fn refunds(psp: &PspProcess, pi: &str) -> Vec<(i64, String)> {
    let list = psp.psp.get(&format!("/v1/refunds?payment_intent={pi}")).await;
    list["data"].as_array().cloned().unwrap_or_default().iter().map(|r| (r["amount"].as_i64().unwrap(), r["status"].as_str().unwrap().to_string())).collect()
}

fn expected_drawer(b: &App) -> i64 {
    ledger(b).sales().expected_drawer().unwrap().iter().map(|(_, m)| *m).sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replaced_registers_sale_is_found_by_its_receipt_and_one_line_comes_back_card_first() {
    let psp = PspProcess::start(KEY);
    // Coffee $2.50 + croissant $3.25 + mug $14.95 and New York's tax: $22.25; $10.00 by card.
    let (cart, pi, rows) = predecessor_sale(&psp, false, &["COF-001", "CRO-001", "MUG-001"], "$22.25", "10.00").await;

    let b = App::start("restored-return-b", launch(&psp, false, 1280, 800)).await;
    let printer = TestPrinter::start().unwrap();
    let addr = printer.addr().to_string();
    b.js(&format!("return window.__TAURI__.core.invoke('save_printer', {{ printer: '{addr}', confirmPort: true }}).then(() => true)")).await;
    restore_into(&b, &rows);
    let before = expected_drawer(&b);
    let number = format!("{:06}", cart.0);
    find_by_receipt(&b, &number).await;
    let title = b.text("#payment-detail #restored-return-title").await;
    assert!(title.contains(&number) && title.contains("Front till"), "the form names A's receipt and A: {title}");
    let rows_shown = b.js("return [...document.querySelectorAll('#restored-return tbody tr')].map((r) => r.textContent).join('|')").await;
    assert_eq!(rows_shown, Value::from("Coffee, regular10|Croissant10|PayDesk mug10"), "name, sold, returned, the quantity cell");
    b.screenshot("restored-return-form-1280x800").await;

    // The mug ($16.28 with its tax): $10.00 back to A's card (all it paid), $6.28 from B's drawer.
    assert_eq!(submit(&b, 2, 1).await, "done");
    let done = b.el("#payment-detail #return-done").await;
    assert_eq!(
        (done.attr("data-total").await.unwrap().as_deref(), done.attr("data-cash").await.unwrap().as_deref()),
        (Some("1628"), Some("628"))
    );
    assert_eq!(done.attr("data-number").await.unwrap(), Some(format!("{number}-R1")));
    let doc = b.text("#payment-detail #return-doc").await;
    for want in ["PayDesk mug x1", number.as_str()] {
        assert!(doc.contains(want), "{want:?} not on the document:\n{doc}");
    }
    // Each figure on its own line: the $10.00 the PSP gave back to A's card, the $6.28 out
    // of B's drawer, adding up to the $16.28 refunded.
    assert_eq!(money_lines(&doc), (Some("$16.28".into()), Some("$10.00".into()), Some("$6.28".into())), "{doc}");
    b.screenshot("restored-return-done-1280x800").await;
    // Print, then print again: the ESC/POS printer gets the document naming A, the second
    // marked REPRINT, and the screen then shows what the next press gives.
    assert_eq!(b.text("#payment-detail #return-print").await, "Print return document");
    for (n, reprint) in [(1, false), (2, true)] {
        b.print_return_document(n).await;
        let job = printer.next_job(std::time::Duration::from_secs(30)).expect("a print job").expect("ESC/POS the test printer understands");
        let text = job.texts().join("\n");
        assert!(text.contains("Front till") && text.contains("PayDesk mug x1") && text.contains(&number), "{text}");
        assert_eq!(money_lines(&text), (Some("$16.28".into()), Some("$10.00".into()), Some("$6.28".into())), "print {n}: {text}");
        assert_eq!(text.contains("REPRINT"), reprint, "print {n}: {text}");
        assert_eq!((job.cuts, job.kicks.len()), (1, 0), "cut, and the drawer never opens");
    }
    assert_eq!(b.text("#payment-detail #return-print").await, "Reprint return document");
    assert_eq!(refunds(&psp, &pi).await, vec![(1000, "succeeded".to_string())], "one refund, on A's payment");
    assert_eq!(expected_drawer(&b), before - 628, "the cash left B's drawer");

    // The form again: the mug's field is closed (all of it came back). Meanwhile the croissant
    // comes back elsewhere (another window, a replayed call): this form still offers it, and
    // its Return is refused with nothing sent and nothing paid out.
    find_by_receipt(&b, &number).await;
    let closed = b.js("return document.querySelector('#payment-detail #return-qty-2').disabled").await;
    assert_eq!(closed, Value::Bool(true), "the mug's quantity field is closed");
    assert_eq!(b.text("#payment-detail #return-returned-2").await, "1");
    let other = b
        .js(&format!(
            "return window.__TAURI__.core.invoke('return_restored_lines', {{ source: '{SRC}', sale: {}, lines: [{{ line: 1, quantity: 1 }}], reason: 'elsewhere' }})\
             .then((r) => [r.number, r.cash_out], (e) => JSON.stringify(e))",
            cart.0
        ))
        .await;
    // The croissant ($3.25, exempt to go): all cash, A's card has nothing left.
    assert_eq!(other, serde_json::json!([format!("{number}-R2"), 325]));
    assert_eq!(submit(&b, 1, 1).await, "invalid_input", "the stale form's croissant");
    assert_eq!(refunds(&psp, &pi).await.len(), 1, "no second refund at the PSP");
    assert_eq!(expected_drawer(&b), before - 628 - 325, "nothing more left the drawer");
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_japanese_at_1024x768_the_restored_sale_comes_back_card_first() {
    let psp = PspProcess::start(KEY);
    let (cart, pi, rows) = predecessor_sale(&psp, true, &["COF-001", "MUG-001"], "¥1,900", "1000").await;
    let b = App::start("restored-return-b-ja", launch(&psp, true, 1024, 768)).await;
    restore_into(&b, &rows);
    let before = expected_drawer(&b);
    let number = format!("{:06}", cart.0);
    find_by_receipt(&b, &number).await;
    b.screenshot("restored-return-form-ja-1024x768").await;
    // The mug back: the card first (at most the ¥1,000 it paid), the rest from B's drawer.
    assert_eq!(submit(&b, 1, 1).await, "done");
    let done = b.el("#payment-detail #return-done").await;
    let total: i64 = done.attr("data-total").await.unwrap().unwrap().parse().unwrap();
    let cash: i64 = done.attr("data-cash").await.unwrap().unwrap().parse().unwrap();
    let at_psp = refunds(&psp, &pi).await;
    assert_eq!(at_psp.len(), 1, "{at_psp:?}");
    assert_eq!(at_psp[0], (total.min(1000), "succeeded".to_string()));
    assert_eq!(cash, total - total.min(1000));
    assert_eq!(expected_drawer(&b), before - cash);
    let doc = b.text("#payment-detail #return-doc").await;
    assert!(doc.contains(&number), "{doc}");
    b.screenshot("restored-return-done-ja-1024x768").await;
    b.close().await;
}

/// Exchange in the restored sale's form (record 0153 addendum): B rings two mugs up, finds
/// A's sale by its receipt and exchanges A's mug for them. The credit ($16.28) stays on A's
/// tenders (no refund at the PSP); the rest ($16.27) is paid by card on B's register: one new
/// charge at the PSP, B's drawer unmoved.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replaced_registers_mug_is_exchanged_for_two_on_this_register_in_english() {
    let psp = PspProcess::start(KEY);
    let (cart, pi, rows) = predecessor_sale(&psp, false, &["COF-001", "CRO-001", "MUG-001"], "$22.25", "10.00").await;
    let b = App::start("restored-exchange-b", launch(&psp, false, 1280, 800)).await;
    restore_into(&b, &rows);
    let before = expected_drawer(&b);
    // Two mugs: 2990 + 265.36 → $32.55.
    b.scan_up(&["MUG-001", "MUG-001"], "$32.55").await;
    let number = format!("{:06}", cart.0);
    find_by_receipt(&b, &number).await;
    b.wait_js("return document.querySelector('#payment-detail #restored-return #exchange-submit') !== null", "the exchange offered", LONG).await;
    let button = b.text("#payment-detail #exchange-submit").await;
    assert_eq!(button, "Exchange for the sale on the register ($32.55)");
    let help = b.text("#payment-detail #restored-exchange-help").await;
    assert!(help.starts_with("The items chosen here pay for the sale on the register ($32.55)") && help.contains("Front till"), "{help}");
    // Return and Exchange side by side, apart: a press lands on the one meant.
    let gap = b
        .js("const r = document.querySelector('#payment-detail #return-submit').getBoundingClientRect(); \
             const x = document.querySelector('#payment-detail #exchange-submit').getBoundingClientRect(); \
             return Math.round(x.top >= r.bottom ? x.top - r.bottom : x.left - r.right)")
        .await;
    assert!(gap.as_i64().unwrap() >= 8, "the buttons {gap} px apart");
    b.screenshot("restored-exchange-form-1280x800").await;

    fill_exchange(&b, 2, "wants a pair").await;
    press_exchange(&b).await;
    let done = b.el("#payment-detail #exchange-done").await;
    assert_eq!((done.attr("data-credit").await.unwrap(), done.attr("data-due").await.unwrap()), (Some("1628".into()), Some("1627".into())));
    assert_eq!(done.attr("data-number").await.unwrap(), Some(format!("{number}-R1")));
    let message = done.text().await.unwrap();
    assert!(message.contains("$16.28 pays the sale on the register") && message.contains("$16.27 is left to pay"), "{message}");
    let doc = b.text("#payment-detail #return-doc").await;
    assert!(doc.contains("Front till") && doc.contains("PayDesk mug x1") && doc.contains(&number), "{doc}");
    assert!(doc.lines().any(|l| l.contains("Applied to sale") && l.trim_end().ends_with("$16.28")), "the credit on the document: {doc}");
    b.screenshot("restored-exchange-done-1280x800").await;
    assert!(refunds(&psp, &pi).await.is_empty(), "the credit stays on A's payment");
    assert_eq!(expected_drawer(&b), before);

    // The rest on the register, by card: one charge at the PSP.
    b.click("#payment-detail #exchange-to-register").await;
    b.wait_js("return document.getElementById('tender-credit') !== null && !document.getElementById('tender').hidden", "the tender panel with the credit", LONG).await;
    assert_eq!(b.text("#tender-due").await, "$16.27");
    b.pay_card_part("16.27", 1).await;
    b.wait_js("return document.getElementById('tender-done')?.dataset.state === 'paid'", "the new sale paid", LONG).await;
    let stats = psp.psp.stats().await;
    assert_eq!((stats["charges"].as_u64(), stats["refunds"].as_u64()), (Some(2), Some(0)), "A's sale and B's rest, no refund: {stats}");
    assert_eq!(expected_drawer(&b), before, "B's drawer unmoved");
    b.close().await;
}

/// The same in Japanese at 1024x768, the other way round: A's mug (¥1,650) comes back for a
/// croissant (¥220) rung up on B. The credit pays the croissant whole; of the ¥1,430 left,
/// A's card gives back what it has left after holding the credit (¥1,000 − ¥220 = ¥780, one
/// refund at the PSP on A's payment) and B's drawer the rest (¥650). Nothing is charged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_japanese_at_1024x768_a_mug_comes_back_for_a_croissant_card_first_then_the_drawer() {
    let psp = PspProcess::start(KEY);
    let (cart, pi, rows) = predecessor_sale(&psp, true, &["COF-001", "MUG-001"], "¥1,900", "1000").await;
    let b = App::start("restored-exchange-b-ja", launch(&psp, true, 1024, 768)).await;
    restore_into(&b, &rows);
    let before = expected_drawer(&b);
    b.scan_up(&["CRO-001"], "¥220").await;
    let number = format!("{:06}", cart.0);
    find_by_receipt(&b, &number).await;
    b.wait_js("return document.querySelector('#payment-detail #restored-return #exchange-submit') !== null", "the exchange offered", LONG).await;
    assert_eq!(b.text("#payment-detail #exchange-submit").await, t_ja_exchange("¥220"));
    let help = b.text("#payment-detail #restored-exchange-help").await;
    assert!(help.starts_with("ここで選んだ商品の金額をレジの会計（¥220）の支払いに充て") && help.contains("Front till"), "{help}");

    fill_exchange(&b, 1, "サイズ違い").await;
    b.screenshot("restored-exchange-form-ja-1024x768").await;
    press_exchange(&b).await;
    let done = b.el("#payment-detail #exchange-done").await;
    let attr = |v: Option<String>| v.unwrap_or_default();
    assert_eq!((attr(done.attr("data-credit").await.unwrap()), attr(done.attr("data-due").await.unwrap())), ("220".into(), "0".into()));
    assert_eq!((attr(done.attr("data-total").await.unwrap()), attr(done.attr("data-cash").await.unwrap())), ("1650".into(), "650".into()));
    let message = done.text().await.unwrap();
    assert!(message.contains("¥220") && message.contains("¥650") && message.contains("ドロワー"), "{message}");
    assert!(b.js("return document.getElementById('exchange-to-register') === null").await == serde_json::json!(true), "nothing left to pay");
    let doc = b.text("#payment-detail #return-doc").await;
    assert!(doc.contains("Front till") && doc.contains(&number), "{doc}");
    // The document adds up to what the customer got: the goods' worth as the return's (not
    // a refund's) total, the credit to the new sale, the card and the cash.
    let has = |label: &str, amount: &str| doc.lines().any(|l| l.contains(label) && l.trim_end().ends_with(amount));
    assert!(has("返品金額", "¥1,650") && !doc.contains("返金額 "), "{doc}");
    assert!(has("に充当", "¥220") && has("クレジットカードへ返金", "¥780") && has("現金で返金", "¥650"), "{doc}");
    b.screenshot("restored-exchange-done-ja-1024x768").await;
    assert_eq!(refunds(&psp, &pi).await, [(780, "succeeded".to_string())], "A's card: what it had left after the credit, once");
    assert_eq!(expected_drawer(&b), before - 650, "the rest out of B's drawer");
    let stats = psp.psp.stats().await;
    assert_eq!(stats["charges"].as_u64(), Some(1), "only A's sale was ever charged: {stats}");
    b.close().await;
}

/// Payments (F2) → Receipts: `number` typed and Enter; waits for the picker of the sales it
/// is on (record 0159) and returns each choice's (kind, text).
async fn pick_list(b: &App, number: &str) -> Vec<(String, String)> {
    b.key(Key::F2).await;
    let field = b.el("#sales-find").await;
    field.send_keys(number).await.unwrap();
    field.send_keys(Key::Enter).await.unwrap();
    b.wait_js("return document.querySelector('#payment-detail #receipt-pick') !== null", "the picker", LONG).await;
    let v = b.js("return [...document.querySelectorAll('#receipt-pick .receipt-pick-choice')].map((x) => [x.dataset.kind, x.innerText.replace(/\\s+/g, ' ').trim()])").await;
    serde_json::from_value(v).unwrap()
}

/// Each choice fits its button and the detail pane (no text cut or pushed out).
async fn choices_fit(b: &App) {
    let overflow = b
        .js("const pane = document.getElementById('payment-detail').getBoundingClientRect(); \
             return [...document.querySelectorAll('#receipt-pick .receipt-pick-choice')].filter((x) => { \
               const r = x.getBoundingClientRect(); return x.scrollWidth > x.clientWidth + 1 || r.right > pane.right + 1 || r.height < 44; }).map((x) => x.id)")
        .await;
    assert_eq!(overflow, serde_json::json!([]), "choices cut, outside the pane or too small to press");
}

/// Issue #29's wrong-customer refund (record 0159): B makes its own paid sale 1 BEFORE A's
/// history is restored, so A's receipt 000001 and B's own 000001 both exist. Typing the number
/// no longer opens B's sale: the picker lists both (this register's first), each with where,
/// when and the total; the keyboard picks A's, which opens A's Return items naming A; the
/// number again and "This register" opens B's own sale's Return items. English at 1280x800.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_number_on_this_registers_sale_and_a_replaced_ones_lets_the_cashier_pick_in_english() {
    let psp = PspProcess::start(KEY);
    let (cart, _, rows) = predecessor_sale(&psp, false, &["COF-001", "CRO-001", "MUG-001"], "$22.25", "10.00").await;
    let b = App::start("receipt-pick-b", launch(&psp, false, 1280, 800)).await;
    let own = b.paid_split_sale(&["MUG-001"], "$16.28", "").await;
    assert_eq!(own, cart.0, "B's own sale has A's sale's number");
    restore_into(&b, &rows);
    let number = format!("{:06}", cart.0);
    let choices = pick_list(&b, &number).await;
    assert_eq!(choices.len(), 2, "{choices:?}");
    assert_eq!(choices[0].0, "own");
    assert!(choices[0].1.starts_with("This register") && choices[0].1.ends_with("$16.28"), "{choices:?}");
    assert_eq!(choices[1].0, "restored");
    assert!(choices[1].1.starts_with("Register Front till (replaced)") && choices[1].1.ends_with("$22.25"), "{choices:?}");
    let when = regex_free_time(&choices[1].1);
    assert!(when, "a date and time on A's choice: {choices:?}");
    let title = b.text("#receipt-pick-title").await;
    assert_eq!(title, format!("Receipt number {number} is on 2 receipts. Pick the one the customer has:"));
    assert_eq!(b.js("return document.activeElement.id").await, Value::from("receipt-pick-0"), "the first choice has the focus");
    choices_fit(&b).await;
    b.screenshot("receipt-pick-1280x800").await;

    // The keyboard: Down to A's sale, Enter.
    b.el("#receipt-pick-0").await.send_keys(Key::Down).await.unwrap();
    b.wait_js("return document.activeElement.id === 'receipt-pick-1'", "the focus on A's sale", LONG).await;
    b.el("#receipt-pick-1").await.send_keys(Key::Enter).await.unwrap();
    b.wait_js("return document.querySelector('#payment-detail #restored-return #return-form') !== null", "A's sale's Return items", LONG).await;
    let form = b.text("#payment-detail #restored-return-title").await;
    assert!(form.contains(&number) && form.contains("Front till"), "A's sale, naming A: {form}");
    b.screenshot("receipt-pick-a-opened-1280x800").await;

    // The number again; "This register": B's own sale's Return items, not A's.
    let again = pick_list(&b, &number).await;
    assert_eq!(again, choices);
    b.click("#receipt-pick-0").await;
    b.wait_js(&format!("return document.querySelector('#payment-detail .return-panel[data-cart=\"{own}\"] #return-form') !== null"), "B's own sale's Return items", LONG)
        .await;
    assert_eq!(b.js("return document.querySelector('#payment-detail #restored-return') === null").await, Value::Bool(true));
    let lines = b.js("return [...document.querySelectorAll('#payment-detail #return-form tbody tr')].length").await;
    assert_eq!(lines, Value::from(1), "B's sale: the one mug");
    b.close().await;
}

/// The same in Japanese at 1024x768: the picker's words and both choices fit; A's is picked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_japanese_at_1024x768_the_cashier_picks_the_replaced_registers_sale() {
    let psp = PspProcess::start(KEY);
    let (cart, _, rows) = predecessor_sale(&psp, true, &["COF-001", "MUG-001"], "¥1,900", "1000").await;
    let b = App::start("receipt-pick-b-ja", launch(&psp, true, 1024, 768)).await;
    let own = b.paid_split_sale(&["CRO-001"], "¥220", "").await;
    assert_eq!(own, cart.0);
    restore_into(&b, &rows);
    let number = format!("{:06}", cart.0);
    let choices = pick_list(&b, &number).await;
    assert_eq!(choices.iter().map(|c| c.0.as_str()).collect::<Vec<_>>(), ["own", "restored"]);
    assert!(choices[0].1.starts_with("このレジ") && choices[0].1.ends_with("¥220"), "{choices:?}");
    assert!(choices[1].1.starts_with("旧レジ Front till") && choices[1].1.ends_with("¥1,900"), "{choices:?}");
    assert!(b.text("#receipt-pick-title").await.contains(&number));
    choices_fit(&b).await;
    b.screenshot("receipt-pick-ja-1024x768").await;
    b.click("#receipt-pick-1").await;
    b.wait_js("return document.querySelector('#payment-detail #restored-return #return-form') !== null", "A's sale's Return items", LONG).await;
    let form = b.text("#payment-detail #restored-return-title").await;
    assert!(form.contains(&number) && form.contains("Front till"), "{form}");
    b.screenshot("receipt-pick-a-opened-ja-1024x768").await;
    b.close().await;
}

/// A "YYYY-MM-DD HH:MM" somewhere in `s`.
fn regex_free_time(s: &str) -> bool {
    let b = s.as_bytes();
    let shape = b"dddd-dd-dd dd:dd";
    b.windows(shape.len()).any(|w| w.iter().zip(shape).all(|(c, p)| if *p == b'd' { c.is_ascii_digit() } else { c == p }))
}

/// A return document's money lines in English, each the amount its line ends with: what was
/// refunded in all, what went back to the card and what in cash (`None` where the document has
/// no such line). Each label must be on at most one line.
fn money_lines(doc: &str) -> (Option<String>, Option<String>, Option<String>) {
    let find = |label: &str| {
        let found: Vec<String> = doc
            .lines()
            .filter(|l| l.trim_start().starts_with(label))
            .map(|l| l.rsplit(' ').next().unwrap_or_default().to_string())
            .collect();
        assert!(found.len() <= 1, "{label:?} on {} lines: {doc}", found.len());
        found.into_iter().next()
    };
    (find("Refunded"), find("Back to the card"), find("Back in cash"))
}

/// Record 0156's give-back on B's own sale's return document (`return_docs.rs`, record 0158):
/// A's sale ($22.25: $10.00 by card, $12.25 cash) is restored at B; B rings one mug up
/// ($14.95 + $1.33 tax = $16.28) and A's mug (valued $16.28 in A's sale) pays it whole: a
/// credit of $10.00 out of A's card and $6.28 out of A's cash, nothing moves. Then B's mug
/// comes back through B's own Return items: B's sale has no tender of its own, so the credit
/// goes back where it came from: ONE refund of $10.00 on A's payment at the PSP and $6.28
/// out of B's drawer. The document, on screen and on paper, says exactly that: Refunded
/// $16.28, Back to the card $10.00, Back in cash $6.28. The rest of A's sale then comes back
/// all in cash ($5.97: A's card has nothing left), never a second time through the card.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restored_credit_given_back_from_this_registers_sale_shows_as_cards_and_drawers_money_on_its_document() {
    let psp = PspProcess::start(KEY);
    let (cart, pi, rows) = predecessor_sale(&psp, false, &["COF-001", "CRO-001", "MUG-001"], "$22.25", "10.00").await;
    let b = App::start("restored-credit-back-b", launch(&psp, false, 1280, 800)).await;
    let printer = TestPrinter::start().unwrap();
    let addr = printer.addr().to_string();
    b.js(&format!("return window.__TAURI__.core.invoke('save_printer', {{ printer: '{addr}', confirmPort: true }}).then(() => true)")).await;
    restore_into(&b, &rows);
    let before = expected_drawer(&b);
    b.scan_up(&["MUG-001"], "$16.28").await;
    let number = format!("{:06}", cart.0);
    find_by_receipt(&b, &number).await;
    b.wait_js("return document.querySelector('#payment-detail #restored-return #exchange-submit') !== null", "the exchange offered", LONG).await;
    let into: i64 = b.el("#payment-detail #exchange-submit").await.attr("data-into").await.unwrap().unwrap().parse().unwrap();
    fill_exchange(&b, 2, "another colour").await;
    press_exchange(&b).await;
    let done = b.el("#payment-detail #exchange-done").await;
    assert_eq!((done.attr("data-credit").await.unwrap(), done.attr("data-due").await.unwrap()), (Some("1628".into()), Some("0".into())));
    assert!(refunds(&psp, &pi).await.is_empty(), "the credit stays on A's payment");
    assert_eq!(expected_drawer(&b), before, "nothing moved");

    // B's sale in Payments → Receipts → Return items, the mug back.
    b.key(Key::F1).await;
    b.key(Key::F2).await;
    let show = format!("#sale-show-{into}");
    b.wait_js(&format!("return document.querySelector('{show}') !== null"), "B's sale in the Receipts list", LONG).await;
    b.click(&show).await;
    b.wait_js(&format!("return document.querySelector('#payment-detail .return-panel[data-cart=\"{into}\"]') !== null"), "B's sale shown", LONG).await;
    b.click("#payment-detail #return-open").await;
    b.wait_js("return document.querySelector('#payment-detail #return-form') !== null", "B's Return items", LONG).await;
    assert_eq!(submit(&b, 0, 1).await, "done");
    let done = b.el("#payment-detail #return-done").await;
    assert_eq!((done.attr("data-total").await.unwrap().as_deref(), done.attr("data-cash").await.unwrap().as_deref()), (Some("1628"), Some("628")));
    assert_eq!(refunds(&psp, &pi).await, [(1000, "succeeded".to_string())], "one refund, on A's payment, all its card paid");
    assert_eq!(expected_drawer(&b), before - 628, "the credit's cash out of B's drawer");
    let doc = b.text("#payment-detail #return-doc").await;
    assert!(doc.contains("PayDesk mug x1"), "{doc}");
    assert_eq!(money_lines(&doc), (Some("$16.28".into()), Some("$10.00".into()), Some("$6.28".into())), "{doc}");
    b.screenshot("restored-credit-back-done-1280x800").await;
    b.print_return_document(1).await;
    let job = printer.next_job(std::time::Duration::from_secs(30)).expect("a print job").expect("ESC/POS the test printer understands");
    let text = job.texts().join("\n");
    assert_eq!(money_lines(&text), (Some("$16.28".into()), Some("$10.00".into()), Some("$6.28".into())), "{text}");
    assert_eq!((job.cuts, job.kicks.len()), (1, 0), "cut, and the drawer never opens");

    // The rest of A's sale (coffee $2.50 + $0.22 tax, croissant $3.25 exempt): A's card has
    // nothing left, A's cash $12.25 less the $6.28 given back: $5.97, all of it.
    let rest = b
        .js(&format!(
            "return window.__TAURI__.core.invoke('return_restored_lines', {{ source: '{SRC}', sale: {}, lines: [{{ line: 0, quantity: 1 }}, {{ line: 1, quantity: 1 }}], reason: 'rest' }})\
             .then((r) => [r.number, r.cash_out], (e) => JSON.stringify(e))",
            cart.0
        ))
        .await;
    assert_eq!(rest, serde_json::json!([format!("{number}-R2"), 597]));
    assert_eq!(refunds(&psp, &pi).await.len(), 1, "no second refund of A's card");
    assert_eq!(expected_drawer(&b), before - 1225, "A's cash, once");
    b.close().await;
}

/// The exchange button's words in Japanese for `total`, from the app's own catalogue.
fn t_ja_exchange(total: &str) -> String {
    let ftl = include_str!("../crates/i18n/locales/ja/returns.ftl");
    let line = ftl.lines().find(|l| l.starts_with("exchange-submit =")).expect("exchange-submit in ja/returns.ftl");
    line["exchange-submit =".len()..].trim().replace("{ $total }", total)
}

/// One of line `line` to take back, with `reason`, on the restored sale's form.
async fn fill_exchange(b: &App, line: usize, reason: &str) {
    let css = format!("#payment-detail #return-qty-{line}");
    b.js(&format!("document.querySelector('{css}').scrollIntoView({{ block: 'center' }}); return true")).await;
    b.el(&css).await.send_keys("1").await.unwrap();
    b.el("#payment-detail #return-reason").await.send_keys(reason).await.unwrap();
}

/// Presses Exchange and waits until the exchange is done (a refusal's code fails the test).
async fn press_exchange(b: &App) {
    b.click("#payment-detail #exchange-submit").await;
    let v = b
        .wait_js(
            "if (document.querySelector('#payment-detail #exchange-done')) return 'done'; \
             const x = document.querySelector('#payment-detail #return-msg .bad'); return x ? x.dataset.code : false",
            "the exchange's answer",
            LONG,
        )
        .await;
    assert_eq!(v.as_str(), Some("done"), "{v}");
}
