//! The dashboard in a real headless Chromium driven over WebDriver (Debian's chromium and
//! chromium-driver): sign in through the form, see sales per store, register and hour,
//! refunds, tenders (cash against card per store) and shifts, register health and reconciliation exceptions, resolve one with a reason,
//! and a screenshot. Also: the strict CSP on every page, and no inline script.
use crate::support;
use paydesk_backoffice::{demo, state::now_ms};
use paydesk_sync_proto::{Batch, Fact, PaymentState, RegisterHealth, Row, Tender, TenderMethod, PROTOCOL_VERSION};
use serde_json::json;
use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use support::*;
use thirtyfour::prelude::*;
use thirtyfour::ChromiumLikeCapabilities;

/// chromedriver in its own process group on a free port; stopped with its browsers.
pub(crate) struct Driver {
    child: Child,
    pub(crate) port: u16,
}

impl Driver {
    pub(crate) fn start() -> Driver {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let mut child = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("chromedriver (Debian's chromium-driver; make deps installs it)");
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        loop {
            line.clear();
            assert!(out.read_line(&mut line).unwrap() > 0, "chromedriver exited before it was ready");
            if line.contains("started successfully") {
                break;
            }
        }
        std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
        Driver { child, port }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        unsafe { libc::kill(-(self.child.id() as i32), libc::SIGTERM) };
        let _ = self.child.wait();
    }
}

/// Where a page's screenshot goes: `target/screenshots/NAME.png` (and docs/screenshots on
/// request). Shared by the page tests.
pub(crate) fn screenshot_path(name: &str) -> Vec<PathBuf> {
    let exe = std::env::current_exe().unwrap();
    let target = exe.parent().and_then(Path::parent).and_then(Path::parent).unwrap().join("screenshots");
    let mut out = vec![target.join(format!("{name}.png"))];
    // `PAYDESK_SCREENSHOTS=docs` refreshes the committed ones, as the app's tests do
    if std::env::var("PAYDESK_SCREENSHOTS").is_ok_and(|v| v == "docs") {
        out.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/screenshots").join(format!("{name}.png")));
    }
    out
}

/// A headless Chromium (Debian's) session over `driver` with a window of `size` ("W,H")
/// and a profile of its own, which lives as long as the returned folder.
pub(crate) async fn chromium(driver: &Driver, size: &str) -> (WebDriver, tempfile::TempDir) {
    let profile = tempfile::tempdir().unwrap();
    let mut caps = DesiredCapabilities::chrome();
    caps.set_binary("/usr/bin/chromium").unwrap();
    for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", &format!("--window-size={size}")] {
        caps.add_arg(a).unwrap();
    }
    caps.add_arg(&format!("--user-data-dir={}", profile.path().display())).unwrap();
    let d = WebDriver::new(format!("http://127.0.0.1:{}", driver.port), caps).await.expect("WebDriver session");
    (d, profile)
}

/// Signs in with the owner's token and waits for the dashboard.
pub(crate) async fn sign_in(d: &WebDriver, url: &str) -> WebDriverResult<()> {
    d.goto(format!("{url}/login")).await?;
    d.find(By::Id("token")).await?.send_keys(ADMIN_TOKEN).await?;
    d.find(By::Id("sign-in")).await?.click().await?;
    wait_for(d, "return document.body.dataset.loaded === 'true'", "the dashboard").await;
    Ok(())
}

pub(crate) async fn wait_for(d: &WebDriver, js: &str, what: &str) {
    let end = Instant::now() + Duration::from_secs(30);
    loop {
        let v = d.execute(js, vec![]).await.map(|r| r.json().clone()).unwrap_or_default();
        if v == json!(true) {
            return;
        }
        assert!(Instant::now() < end, "timed out waiting for {what}");
        // the page updates on its own; WebDriver has no event for "this JS became true"
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

pub(crate) async fn texts(d: &WebDriver, css: &str) -> Vec<String> {
    let mut out = vec![];
    for e in d.find_all(By::Css(css)).await.unwrap() {
        out.push(e.text().await.unwrap());
    }
    out
}

/// A second store whose PSP disagrees with its register twice.
async fn store_with_exceptions(h: &Harness, psp: &PspProcess) -> String {
    let (store, reg) = h.store_with_register("Harbour St").await;
    h.owner.put(&format!("/admin/stores/{store}/psp"), &json!({"api_base": psp.url, "secret_key": PSP_KEY})).await.unwrap();
    let now = now_ms();
    let mut rows = vec![];
    for (k, amount) in [("h-1", 2500), ("h-2", 1800)] {
        rows.push(Row { at_ms: now - 3_600_000, fact: Fact::PaymentCreated { checkout_key: k.into(), amount, currency: "usd".into() } });
        rows.push(Row { at_ms: now - 3_599_000, fact: Fact::PaymentState { checkout_key: k.into(), state: PaymentState::Captured, psp_id: None } });
    }
    // a drawer opened on 100.00, a cash sale of 15.00 paid with 20.00, and h-1 as a card tender
    let at = now - 3_500_000;
    rows.push(Row { at_ms: at, fact: Fact::ShiftOpened { shift: 1, currency: "usd".into(), float: 10_000 } });
    let tender = |sale, method, amount, checkout_key: Option<&str>, cash: Option<(i64, i64)>| Tender {
        sale, tender_seq: 1, method, amount, currency: "usd".into(), checkout_key: checkout_key.map(Into::into),
        cash_tendered: cash.map(|c| c.0), change: cash.map(|c| c.1), rounding: cash.map(|_| 0), shift: Some(1),
        staff: None, staff_name: None,
    };
    rows.push(Row { at_ms: at, fact: Fact::TenderAdded(tender(1, TenderMethod::Cash, 1500, None, Some((2000, 500)))) });
    rows.push(Row { at_ms: at, fact: Fact::TenderAdded(tender(2, TenderMethod::Card, 2500, Some("h-1"), None)) });
    let b = Batch { v: PROTOCOL_VERSION, register_id: reg.paired.register_id.clone(), first_seq: 1, rows, health: RegisterHealth { app_version: "0.1.0".into(), queued: 0, offline_waiting: 1, audit: None } };
    reg.send(&b, "harbour-1").await.unwrap();
    psp.charge("c1", 2500, "usd", &[("checkout_key", "h-1")]).await;
    psp.charge("c2", 1900, "usd", &[("checkout_key", "h-2")]).await;
    psp.charge("c3", 4200, "usd", &[("checkout_key", "h-unknown")]).await;
    let run = h.owner.post(&format!("/admin/stores/{store}/reconcile"), &json!({})).await.unwrap();
    assert_eq!(run["exceptions"], 2, "{run}");
    store
}

#[tokio::test]
async fn the_dashboard_shows_the_chain_and_resolves_an_exception_in_chromium() {
    let psp = tokio::task::spawn_blocking(PspProcess::start).await.unwrap();
    let h = Harness::start().await;
    demo::feed(&h.owner, now_ms()).await.unwrap();
    store_with_exceptions(&h, &psp).await;

    // every page carries the strict policy, and the HTML has no inline script or style
    let r = reqwest::get(format!("{}/login", h.url)).await.unwrap();
    let csp = r.headers()["content-security-policy"].to_str().unwrap().to_string();
    assert!(csp.contains("script-src 'self'") && csp.contains("default-src 'none'") && !csp.contains("unsafe-inline"), "{csp}");
    let index = include_str!("../static/index.html");
    assert!(!index.contains("<style") && !index.contains(" style=") && index.matches("<script").count() == index.matches("<script src=").count());

    let driver = tokio::task::spawn_blocking(Driver::start).await.unwrap();
    let profile = tempfile::tempdir().unwrap();
    let mut caps = DesiredCapabilities::chrome();
    caps.set_binary("/usr/bin/chromium").unwrap();
    for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1500,1900", "--hide-scrollbars"] {
        caps.add_arg(a).unwrap();
    }
    caps.add_arg(&format!("--user-data-dir={}", profile.path().display())).unwrap();
    let d = WebDriver::new(format!("http://127.0.0.1:{}", driver.port), caps).await.expect("WebDriver session");
    let result = async {
        // not signed in: the dashboard sends us to the form; a wrong token is refused
        d.goto(format!("{}/", h.url)).await?;
        assert!(d.current_url().await?.as_str().ends_with("/login"));
        d.find(By::Id("token")).await?.send_keys("not-the-token").await?;
        d.find(By::Id("sign-in")).await?.click().await?;
        // the form posts and the answer is a new page: wait for that page, not for the click
        // (under load chromedriver can return from the click while the old page is unloading)
        wait_for(&d, "const m = document.querySelector('.message'); return !!m && m.textContent.length > 0", "the refusal page").await;
        assert_eq!(d.find(By::Css(".message")).await?.text().await?, "That token is not the owner's token.");
        d.find(By::Id("token")).await?.send_keys(ADMIN_TOKEN).await?;
        d.find(By::Id("sign-in")).await?.click().await?;
        wait_for(&d, "return document.body.dataset.loaded === 'true'", "the dashboard to load").await;

        let stores = texts(&d, "#stores tbody tr").await;
        assert_eq!(stores.len(), 2, "{stores:?}");
        assert!(stores.iter().any(|s| s.starts_with("Demo Store — Main St") && s.contains("America/New_York") && s.contains("USD")), "{stores:?}");
        assert!(stores.iter().any(|s| s.starts_with("Harbour St") && s.contains("UTC")), "{stores:?}");
        let regs = texts(&d, "#registers tbody tr").await;
        assert_eq!(regs.len(), 3, "{regs:?}");
        assert!(regs.iter().all(|r| r.contains("0.1.0") && r.contains("s ago")), "{regs:?}");
        assert_eq!(texts(&d, "#sales-by-register tbody tr").await.len(), 3);
        let hours = texts(&d, "#sales-by-hour tbody tr").await;
        assert!(hours.len() >= 8, "{hours:?}");
        // each store's own hours, with the offset that makes a repeated hour two rows (record 0137)
        assert!(hours.iter().any(|h| h.contains("(UTC-0") && h.contains("America/New_York")), "{hours:?}");
        assert!(!texts(&d, "#refunds tbody tr").await.is_empty());
        let words = |v: Vec<String>| v.iter().map(|s| s.split_whitespace().collect::<Vec<_>>().join(" ")).collect::<Vec<_>>();
        assert_eq!(words(texts(&d, "#tenders tbody tr").await), ["Harbour St card 1 25.00 USD —", "Harbour St cash 1 15.00 USD 5.00 USD"]);
        let shifts = words(texts(&d, "#shifts tbody tr").await);
        assert_eq!(shifts.len(), 1, "{shifts:?}");
        assert!(shifts[0].starts_with("Harbour St Harbour St register 1 100.00 USD") && shifts[0].ends_with("open — — —"), "{shifts:?}");
        assert!(d.find_all(By::Css("#hour-chart .bar")).await?.len() >= 8);
        let ex = texts(&d, "#exceptions tbody tr").await;
        assert_eq!(ex.len(), 2, "{ex:?}");
        assert!(ex.iter().any(|e| e.contains("amount or currency differs")), "{ex:?}");
        assert!(ex.iter().any(|e| e.contains("charged at the PSP, no register record")), "{ex:?}");
        for p in screenshot_path("backoffice-dashboard") {
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            d.screenshot(&p).await?;
        }

        // resolve the amount difference with a reason, through the page
        // the page refreshes itself every 10 s until someone starts writing: a row found
        // just before a refresh is stale, so find it again; once "by" holds text it stays
        let xpath = "//table[@id='exceptions']//tr[contains(., 'amount or currency differs')]";
        for attempt in 1..=3 {
            let typed = async { d.find(By::XPath(xpath)).await?.find(By::Css("input[name=by]")).await?.send_keys("Ana").await }.await;
            match typed {
                Err(e) if attempt < 3 && matches!(e.as_inner(), thirtyfour::error::WebDriverErrorInner::StaleElementReference(_)) => continue,
                other => {
                    other?;
                    break;
                }
            }
        }
        let row = d.find(By::XPath(xpath)).await?;
        row.find(By::Css("input[name=reason]")).await?.send_keys("customer paid 1 USD more by mistake; refunded at the PSP").await?;
        row.find(By::Css("button")).await?.click().await?;
        wait_for(&d, "return [...document.querySelectorAll('#exceptions .resolved')].length === 1", "the resolution to show").await;
        Ok::<_, WebDriverError>(())
    }
    .await;
    d.quit().await.ok();
    result.expect("WebDriver");
    let db = h.db().await;
    let r = db.query_one("SELECT resolved_by, resolution FROM recon_exceptions WHERE kind = 'amount_differs'", &[]).await.unwrap();
    assert_eq!((r.get::<_, String>(0), r.get::<_, String>(1)), ("Ana".into(), "customer paid 1 USD more by mistake; refunded at the PSP".into()));
}
