//! Shifts, Z reports and the audit view in the real window (record 0069), under Xvfb
//! through WebDriver, on the ja-JP demo store with staff (so money moves only inside an
//! open shift): a sale refused for want of a shift offers to open one; a float counted by
//! denomination; a cash sale; a paid out with its reason; a blind close short by ¥100 whose
//! Z report shows the shortage; a second shift closed ¥50 over as Z 2; the app killed with
//! SIGKILL and started again — Z 1 and 2 still shown and the next close is Z 3; a Z printed
//! to the ESC/POS test printer (number, shortage, checkpoint decoded); and an audit row
//! changed by plain SQL on the ledger file, named by the Audit view. Screenshots of the
//! blind count and the Z report at 1280x800.

use std::path::Path;
use std::time::Duration;

use paydesk_e2e::thirtyfour::prelude::*;
use paydesk_e2e::{App, Launch, StaffStart, LONG};
use paydesk_access::{Pin, Role};
use paydesk_ledger::{DemoLocale, Ledger};
use paydesk_receipt::test_printer::{Printout, TestPrinter};
use serde_json::Value;

const YEN: [i64; 10] = [10_000, 5_000, 2_000, 1_000, 500, 100, 50, 10, 5, 1];
const COFFEE: i64 = 250;

fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64
}

/// A data folder as a store with staff leaves it: the ja-JP demo store, an owner and a
/// manager. Nobody is signed in: a start signs everyone out (record 0068), so the test
/// signs the manager in through the sign-in screen.
fn prepared_store(dir: &Path) {
    let mut l = Ledger::open(dir.join("ledger.db")).unwrap();
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, now_ms()).unwrap();
    let owner = l.roster_mut().add("山田", Role::Owner, &Pin::parse("1111").unwrap(), None, now_ms()).unwrap();
    l.roster_mut().add("佐藤", Role::Manager, &Pin::parse("2222").unwrap(), Some(owner.id), now_ms()).unwrap();
}

/// The manager signed in through the sign-in screen, no shift opened.
async fn start_as_manager(name: &str, launch: Launch) -> App {
    let app = App::start(name, Launch { staff: StaffStart::SignedOut, ..launch }).await;
    app.sign_in_as("佐藤", "2222").await;
    app
}

/// `amount` yen as pieces, largest notes first.
fn pieces_of(mut amount: i64) -> Vec<(i64, i64)> {
    let mut out = Vec::new();
    for d in YEN {
        if amount >= d {
            out.push((d, amount / d));
            amount %= d;
        }
    }
    out
}

async fn key(app: &App, k: Key) {
    app.el("body").await.send_keys(k).await.unwrap();
}

async fn show_shift(app: &App) {
    app.click("#tab-shift").await;
    app.wait_js("return document.getElementById('view-shift').dataset.open !== undefined", "the shift screen", LONG).await;
}

/// Types counts into the count form `form` and waits for its total.
async fn count(app: &App, form: &str, lines: &[(i64, i64)]) -> i64 {
    let mut total = 0;
    for (d, n) in lines {
        let f = app.el(&format!("#{form} input[data-denomination='{d}']")).await;
        f.send_keys(n.to_string()).await.unwrap();
        total += d * n;
    }
    app.wait_js(&format!("return document.getElementById('{form}-total').dataset.minor === '{total}'"), "the count's total", LONG).await;
    total
}

async fn open_shift(app: &App, float: &[(i64, i64)]) -> i64 {
    show_shift(app).await;
    let total = count(app, "float-count", float).await;
    app.click("#shift-open").await;
    app.wait_js("return document.getElementById('view-shift').dataset.open === 'true'", "the shift open", LONG).await;
    total
}

fn yen(amount: i64) -> String {
    let digits = amount.to_string();
    let mut out = String::from("¥");
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Closes on a blind count of `counted` yen and returns the Z shown: (number, over/short).
/// `expected`, when given, is an amount no other figure on the screen shares: it must not
/// be shown before the count.
async fn close_shift(app: &App, expected: Option<i64>, counted: i64, screenshot: Option<&str>) -> (i64, i64) {
    app.click("#shift-close").await;
    count(app, "close-count", &pieces_of(counted)).await;
    // Blind: until the count is confirmed, no report and no expected amount on screen.
    let shown = app.text("#view-shift").await;
    if let Some(e) = expected {
        assert!(!shown.contains(&yen(e)), "the expected {} is shown before the count:\n{shown}", yen(e));
    }
    assert_eq!(app.js("return !document.getElementById('report-shown') && !document.getElementById('z-expected')").await, Value::Bool(true));
    if let Some(name) = screenshot {
        app.screenshot(name).await;
    }
    app.click("#shift-close-confirm").await;
    let z = app.wait_js("const r = document.getElementById('report-shown'); return r && r.dataset.kind === 'z' && +r.dataset.z", "the Z report", LONG).await;
    let over_short = app.js("return +document.getElementById('z-over-short').dataset.minor").await;
    (z.as_i64().unwrap(), over_short.as_i64().unwrap())
}

async fn show_z(app: &App, n: i64) -> (i64, String) {
    app.click(&format!("#shift-z-list button[data-z='{n}']")).await;
    app.wait_js(&format!("return document.getElementById('report-shown')?.dataset.z === '{n}'"), &format!("Z {n} shown"), LONG).await;
    let os = app.js("return +document.getElementById('z-over-short').dataset.minor").await.as_i64().unwrap();
    (os, app.text("#report-text").await)
}

fn job(printer: &TestPrinter) -> Printout {
    printer.next_job(Duration::from_secs(30)).expect("a print job").expect("ESC/POS the test printer understands")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shifts_close_short_and_over_z_numbers_survive_a_crash_and_the_audit_view_finds_a_changed_row() {
    let prep = tempfile::tempdir().unwrap();
    prepared_store(prep.path());
    let printer = TestPrinter::start().unwrap();
    let launch = Launch { data_from: Some(prep.path().to_path_buf()), ..Launch::default() };
    let app = start_as_manager("shift", launch.clone()).await;
    // The printer is a setting: the owner approves the manager's change (record 0062).
    let approval = "{ name: '山田', pin: '1111' }";
    app.js(&format!("return window.__TAURI__.core.invoke('save_printer', {{ printer: '{}', confirmPort: true, approval: {approval} }}).then(() => true)", printer.addr())).await;

    // No shift yet: the sale is refused at its first item, and the register offers to
    // open one.
    app.scan("COF-001").await;
    app.wait_js("return document.getElementById('scan-error').dataset.code === 'no_open_shift'", "refused: no shift", LONG).await;
    assert!(app.text("#scan-error").await.contains("シフトが開始されていません"));
    app.click("#scan-error #offer-open-shift").await;
    app.wait_js("return !document.getElementById('view-shift').hidden", "the shift screen from the offer", LONG).await;

    // Shift 1: float ¥16,000 counted by denomination.
    let float = open_shift(&app, &[(10_000, 1), (1_000, 5), (100, 10)]).await;
    assert_eq!(float, 16_000);
    assert!(app.text("#shift-state").await.contains("¥16,000"));

    // The coffee in cash (¥1,000 handed over, ¥750 change).
    app.click(".tab[data-view='register']").await;
    // The refused code is still in the field: Enter adds it now.
    assert_eq!(app.el("#scan").await.value().await.unwrap().as_deref(), Some("COF-001"));
    app.el("#scan").await.send_keys(Key::Enter).await.unwrap();
    app.wait_js("return document.querySelectorAll('#cart-lines li').length === 1", "the coffee in the cart", LONG).await;
    key(&app, Key::F6).await;
    let field = app.el("#cash-form #cash-tendered").await;
    field.clear().await.unwrap();
    field.send_keys("1000").await.unwrap();
    field.send_keys(Key::Enter).await.unwrap();
    app.wait_js("return document.getElementById('tender-done')?.dataset.state === 'paid'", "the sale paid", LONG).await;

    // A paid out with its reason.
    show_shift(&app).await;
    app.el("#paid-amount").await.send_keys("500").await.unwrap();
    app.el("#paid-reason").await.send_keys("牛乳の仕入れ").await.unwrap();
    app.click("#paid-out").await;
    app.wait_js("return document.getElementById('shift-msg').dataset.code === 'paid_out'", "paid out", LONG).await;

    // The X report (audited) shows what the drawer should hold so far.
    let expected = float + COFFEE - 500;
    app.click("#shift-x").await;
    app.wait_js("return document.getElementById('report-shown')?.dataset.kind === 'x'", "the X report", LONG).await;
    let x = app.text("#report-text").await;
    assert!(x.contains("点検レポート(X)") && x.contains("牛乳の仕入れ") && x.contains("¥15,750"), "{x}");

    // Close on a blind count ¥100 short.
    let (z1, short) = close_shift(&app, Some(expected), expected - 100, Some("shift-close-ja")).await;
    assert_eq!((z1, short), (1, -100));
    assert_eq!(app.text("#z-over-short").await, "−¥100");
    assert!(app.text("#report-text").await.contains("不足"));
    app.screenshot("shift-z-ja").await;

    // Printed: the Z number, the shortage and the checkpoint, decoded by the test printer.
    let checkpoint = app.js("return document.getElementById('report-shown').dataset.checkpoint").await.as_str().unwrap().to_string();
    app.click("#shift-print").await;
    app.wait_js("return document.getElementById('shift-msg').dataset.code === 'printed'", "printed", LONG).await;
    let p = job(&printer);
    let texts: Vec<String> = p.texts().iter().map(|t| t.trim().to_string()).collect();
    assert_eq!(texts[0], "精算レポート No.1");
    assert!(texts.iter().any(|t| t.starts_with("不足") && t.ends_with("-¥100")), "{texts:#?}");
    let at = texts.iter().position(|t| t == "監査チェックポイント").expect("the checkpoint label");
    assert_eq!(texts[at + 1..].concat(), checkpoint);
    assert_eq!((p.cuts, p.kicks.len(), p.kanji), (1, 0, true));
    {
        let l = Ledger::open(app.data_dir.join("ledger.db")).unwrap();
        let z = l.shifts().z_report(1).unwrap().unwrap();
        let hex: String = z.audit_head.hash.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(checkpoint, format!("{}:{hex}", z.audit_head.seq));
    }

    // Shift 2: no sales, counted ¥50 over.
    let float2 = open_shift(&app, &[(1_000, 10)]).await;
    assert_eq!(close_shift(&app, None, float2 + 50, None).await, (2, 50));

    // A crash: SIGKILL, then the same data folder started again.
    app.kill_app();
    let again = start_as_manager("shift-restarted", Launch { data_from: Some(app.data_dir.clone()), ..launch }).await;
    app.close().await;
    show_shift(&again).await;
    again.wait_js("return document.getElementById('shift-z-list').dataset.last === '2'", "Z 1 and 2 listed", LONG).await;
    let (os1, text1) = show_z(&again, 1).await;
    assert_eq!(os1, -100);
    assert!(text1.contains("精算レポート No.1") && text1.contains("牛乳の仕入れ"), "{text1}");
    assert_eq!(show_z(&again, 2).await.0, 50);
    let float3 = open_shift(&again, &[(5_000, 2)]).await;
    assert_eq!(close_shift(&again, None, float3, None).await, (3, 0));

    // The audit view: intact, then a row changed by plain SQL on the ledger file is named.
    again.click("#tab-audit").await;
    again.click("#audit-verify").await;
    again.wait_js("return document.getElementById('audit-result').dataset.state === 'intact'", "the chain intact", LONG).await;
    assert!(again.text("#audit-verdict").await.contains("チェーンは正常です"));
    // Only what the view says: no stray "null" (an intact chain has no list of breaks),
    // what "intact" means, and that no back office backs it here.
    let result = again.text("#audit-result").await;
    assert!(!result.contains("null"), "{result}");
    assert!(again.text("#audit-meaning").await.starts_with("「正常」とは"), "{result}");
    assert_eq!(again.js("return document.getElementById('audit-confirmed').dataset.confirmation").await, "no_back_office");
    assert!(again.text("#audit-confirmed").await.contains("バックオフィスが設定されていません"), "{result}");
    let changed: i64 = {
        let c = rusqlite::Connection::open(again.data_dir.join("ledger.db")).unwrap();
        c.busy_timeout(Duration::from_secs(10)).unwrap();
        let id = c.query_row("SELECT id FROM audit_log WHERE action = 'paid_out'", [], |r| r.get(0)).unwrap();
        c.execute("UPDATE audit_log SET reason = 'nothing to see' WHERE id = ?1", [id]).unwrap();
        id
    };
    again.click("#audit-verify").await;
    again.wait_js("return document.getElementById('audit-result').dataset.state === 'broken'", "the chain broken", LONG).await;
    let breaks = again
        .js("return [...document.querySelectorAll('#audit-breaks li')].map((li) => [li.dataset.kind, +li.dataset.seq, li.textContent])")
        .await;
    let breaks = breaks.as_array().unwrap();
    assert_eq!(breaks.len(), 1, "{breaks:?}");
    assert_eq!((breaks[0][0].as_str().unwrap(), breaks[0][1].as_i64().unwrap()), ("changed", changed));
    assert!(breaks[0][2].as_str().unwrap().contains(&format!("行 {changed} は書き込み後に変更されています")), "{breaks:?}");
    again.screenshot("audit-ja").await;
    again.close().await;
}
