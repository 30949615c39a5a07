//! The store's own tenders in the real window (issue #29, record 0122): the owner adds a
//! voucher type that gives no change in Settings → Tender types; at the counter an ¥800
//! sale is paid with a ¥1,000 voucher through its own button. Checked in the ledger file
//! (one store tender: ¥800 paid, ¥1,000 offered, ¥200 forfeited), in the drawer (its
//! expected cash unchanged), at the PSP (no charge at all) and on the receipt ("no change
//! given ¥200"), in Japanese at 1024x768 and in English at 1280x800. A cashier calling
//! `add_tender_type` directly is refused by the command itself; End of day shows the
//! voucher's own tile. Screenshots under
//! target/screenshots.

use paydesk_domain::TenderKind;
use paydesk_e2e::thirtyfour::prelude::*;
use paydesk_e2e::{App, Launch, LONG};
use paydesk_ledger::{CartId, Ledger};
use serde_json::Value;

/// A yen demo store (its catalog and money), at `width`x`height`.
fn launch(width: u32, height: u32) -> Launch {
    let mut l = Launch { width, height, ..Launch::default() };
    l.env.push(("PAYDESK_DEMO_STORE".into(), "ja-JP".into()));
    l
}

async fn key(app: &App, k: Key) {
    app.el("body").await.send_keys(k).await.unwrap();
}

fn ledger(app: &App) -> Ledger {
    Ledger::open(app.data_dir.join("ledger.db")).unwrap()
}

fn expected_drawer(app: &App) -> i64 {
    ledger(app).sales().expected_drawer().unwrap().iter().map(|(_, m)| *m).sum()
}

/// Settings (F4) → Tender types: adds `name` as a voucher that gives no change; its id.
async fn add_voucher_type(app: &App, name: &str) -> i64 {
    key(app, Key::F4).await;
    app.el("#tender-type-form").await;
    app.js("document.getElementById('tender-type-settings').scrollIntoView({ block: 'start' }); return true").await;
    app.el("#tender-type-name").await.send_keys(name).await.unwrap();
    app.js("document.getElementById('tender-type-kind').value = 'voucher'; return true").await;
    assert_eq!(app.js("return document.getElementById('tender-type-change').checked").await, Value::Bool(false));
    app.click("#tender-type-add").await;
    let id = app
        .wait_js(
            &format!(
                "const li = [...document.querySelectorAll('#tender-type-list li')].find((l) => l.querySelector('strong').textContent === {}); \
                 return li ? +li.dataset.type : false",
                serde_json::to_string(name).unwrap()
            ),
            "the new tender type listed",
            LONG,
        )
        .await;
    id.as_i64().unwrap()
}

/// Muffin ¥280 + egg sandwich ¥390 + sparkling water ¥130 = ¥800; the sale's number.
async fn ring_up_800(app: &App) -> CartId {
    key(app, Key::F1).await;
    for s in ["MUF-001", "SAN-001", "WAT-001"] {
        app.scan(s).await;
    }
    app.wait_js("return document.getElementById('cart-total').textContent === '¥800'", "the total ¥800", LONG).await;
    CartId(app.js("return window.__TAURI__.core.invoke('get_cart').then((c) => c.id)").await.as_i64().unwrap())
}

/// The tender panel (F6), the voucher's button, ¥1,000 and a slip number typed; the
/// preview before the press.
async fn pay_voucher(app: &App, type_id: i64, slip: &str, shot: &str) -> String {
    key(app, Key::F6).await;
    app.el("#cash-form").await;
    // The voucher's key, Alt+N by its place among the store's tenders, shown on its button.
    let n = app
        .js(&format!("return [...document.querySelectorAll('#tender-store-buttons button')].findIndex((b) => b.id === 'tender-store-{type_id}') + 1"))
        .await
        .as_i64()
        .unwrap();
    assert!((1..=9).contains(&n), "the voucher's button is one of the first nine: {n}");
    assert!(app.text(&format!("#tender-store-{type_id} kbd")).await.contains(&format!("Alt+{n}")));
    app.el("#cash-form input").await.send_keys(Key::Alt + n.to_string().as_str()).await.unwrap();
    let amount = app.el("#store-form #store-amount").await;
    assert_eq!(amount.value().await.unwrap().as_deref(), Some("800"), "the amount starts at what is due");
    amount.clear().await.unwrap();
    amount.send_keys("1000").await.unwrap();
    app.el("#store-form #store-reference").await.send_keys(slip).await.unwrap();
    let preview = app.text("#store-preview").await;
    app.screenshot(shot).await;
    amount.send_keys(Key::Enter).await.unwrap();
    app.wait_js("return document.getElementById('tender-done')?.dataset.state === 'paid'", "the sale paid", LONG).await;
    app.wait_js("return document.querySelector('#view-register .receipt-panel')?.dataset.loaded === 'true'", "the receipt", LONG).await;
    preview
}

/// The ledger, the drawer and the PSP after the voucher: one store tender of ¥800, ¥1,000
/// offered, ¥200 forfeited, no change; no drawer movement; no charge at the PSP.
async fn check_books(app: &App, cart: CartId, type_id: i64, slip: &str, drawer_before: i64) {
    let l = ledger(app);
    let sale = l.sales().by_cart(cart).unwrap();
    assert_eq!(sale.tenders.len(), 1);
    let t = &sale.tenders[0];
    let s = t.store.as_ref().expect("a store tender");
    assert_eq!(t.kind, TenderKind::Store);
    assert_eq!((t.amount.amount_minor, s.offered_minor, s.forfeited_minor, t.change_minor.unwrap_or(0)), (800, 1000, 200, 0));
    assert_eq!((s.tender_type_id.0, s.reference.as_deref()), (type_id, Some(slip)));
    assert_eq!(t.checkout_key, None, "nothing for the processor");
    assert!(l.sales().cash_movements(Some(cart)).unwrap().is_empty(), "no drawer movement for a voucher that gives no change");
    assert_eq!(expected_drawer(app), drawer_before, "the drawer expects what it did before");
    let stats = app.psp().await.stats().await;
    assert_eq!(stats["charges"].as_u64(), Some(0), "the PSP charged nothing: {stats}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_voucher_with_no_change_in_japanese_at_1024x768() {
    let app = App::start("store-tender-ja", launch(1024, 768)).await;
    let type_id = add_voucher_type(&app, "全国百貨店共通商品券").await;
    assert!(app.text("#tender-types-msg").await.contains("全国百貨店共通商品券 を追加しました"));
    app.screenshot("store-tender-settings-ja-1024x768").await;
    let cart = ring_up_800(&app).await;
    let drawer_before = expected_drawer(&app);

    let preview = pay_voucher(&app, type_id, "V-0001", "store-tender-form-ja-1024x768").await;
    app.screenshot("store-tender-paid-ja-1024x768").await;
    assert_eq!(preview, "お釣りなし: ¥200", "said before the press");
    let done = app.el("#tender-done #store-no-change").await;
    assert_eq!(done.attr("data-minor").await.unwrap().as_deref(), Some("200"));
    assert_eq!(done.text().await.unwrap().split_whitespace().collect::<String>(), "お釣りなし¥200");
    let said = app.text("#tender-done").await;
    assert!(said.contains("全国百貨店共通商品券 を受け取りました。お支払い完了です。お釣りなし ¥200。"), "{said}");
    // The payments list sits below the paid box at this height (scrolled): read as text.
    let row = app.js("return document.querySelector(\"#tender-list li[data-kind='store']\").textContent").await;
    let row = row.as_str().unwrap();
    assert!(row.contains("全国百貨店共通商品券") && row.contains("¥800") && row.contains("お釣りなし ¥200"), "{row}");
    let receipt = app.text("#sale-receipt").await;
    let no_change = receipt.lines().find(|l| l.contains("お釣りなし")).unwrap_or_else(|| panic!("no 'no change given' line:\n{receipt}"));
    assert!(no_change.trim_end().ends_with("¥200"), "{no_change:?}");
    assert!(receipt.contains("全国百貨店共通商品券") && receipt.contains("V-0001"), "{receipt}");
    app.js("document.getElementById('sale-receipt').scrollIntoView({ block: 'end' }); return true").await;
    app.screenshot("store-tender-receipt-ja-1024x768").await;

    check_books(&app, cart, type_id, "V-0001", drawer_before).await;
    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_voucher_with_no_change_in_english_at_1280x800_and_a_cashier_cannot_add_a_type() {
    let app = App::start("store-tender-en", launch(1280, 800)).await;
    app.choose_language("en").await;
    let type_id = add_voucher_type(&app, "Gift voucher").await;
    let cart = ring_up_800(&app).await;
    let drawer_before = expected_drawer(&app);

    let preview = pay_voucher(&app, type_id, "GV-77", "store-tender-form-en-1280x800").await;
    assert_eq!(preview, "No change given: ¥200");
    let said = app.text("#tender-done").await;
    assert!(said.contains("Gift voucher taken. The sale is paid. No change given ¥200."), "{said}");
    assert_eq!(app.el("#tender-done #store-no-change").await.attr("data-minor").await.unwrap().as_deref(), Some("200"));
    let receipt = app.text("#sale-receipt").await;
    assert!(receipt.contains("Gift voucher") && receipt.contains("GV-77"), "{receipt}");
    let no_change = receipt
        .lines()
        .find(|l| l.contains("No change given") || l.contains("お釣りなし"))
        .unwrap_or_else(|| panic!("no 'no change given' line:\n{receipt}"));
    assert!(no_change.trim_end().ends_with("¥200"), "{no_change:?}");
    app.screenshot("store-tender-paid-en-1280x800").await;
    check_books(&app, cart, type_id, "GV-77", drawer_before).await;

    // End of day (F3): the voucher has its own tile, by name, with its count and amount.
    app.click("#tender-new-sale").await;
    key(&app, Key::F3).await;
    let tile = format!("#r-store-type-{type_id}");
    app.wait_js(&format!("return document.querySelector('{tile}') !== null"), "the voucher's tile", LONG).await;
    let el = app.el(&tile).await;
    assert_eq!((el.attr("data-value").await.unwrap().as_deref(), el.attr("data-count").await.unwrap().as_deref()), (Some("800"), Some("1")));
    assert_eq!(app.text(&format!("{tile} .label")).await, "Gift voucher (1)");
    assert_eq!(app.text(&format!("{tile} .value")).await, "¥800");
    app.screenshot("store-tender-end-of-day-en-1280x800").await;
    key(&app, Key::F1).await;

    // 鈴木 (Suzuki), the demo store's cashier, calls the settings' commands directly: the command refuses, and
    // nothing is added or switched off.
    app.click("#lock").await;
    app.wait_js("return document.body.dataset.screen === 'signin'", "the sign-in screen", LONG).await;
    app.sign_in_as("鈴木", "3333").await;
    let call = |cmd: &str, args: &str| {
        format!("return window.__TAURI__.core.invoke('{cmd}', {args}).then(() => 'done', (e) => e.code)")
    };
    let add = app.js(&call("add_tender_type", "{ form: { name: 'Casey voucher', kind: 'voucher', gives_change: true, counts_for_stamp: false } }")).await;
    assert_eq!(add, Value::from("approval_required"));
    let off = app.js(&call("set_tender_type_active", &format!("{{ id: {type_id}, active: false }}"))).await;
    assert_eq!(off, Value::from("approval_required"));
    let types = ledger(&app).tender_types().list().unwrap();
    assert_eq!(types.iter().map(|t| (t.name.as_str(), t.active)).collect::<Vec<_>>(), vec![("Gift voucher", true)]);
    // Taking one is any cashier's: the type is still offered to them.
    let offered = app.js("return window.__TAURI__.core.invoke('list_tender_types').then((l) => l.map((t) => t.name).join(','))").await;
    assert_eq!(offered, Value::from("Gift voucher"));
    app.close().await;
}
