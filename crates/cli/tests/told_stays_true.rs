//! What a checkout tells the cashier stays true (docs/design.md, rule 11): "failed" and
//! "declined" are never charged later, with any key; anything unsure is "pending" with
//! its key and resolved later. Real `paydesk-cli` processes and the real mock PSP over
//! loopback; a few answers come from a tiny HTTP server that is not a PSP.

use crate::common;
use common::*;
use paydesk_ledger::{CheckoutOptions, Ledger};
use paydesk_domain::{Currency, Money};
use paydesk_register::transport::HttpTransport;
use paydesk_register::{CheckoutOutcome, CrashPoint, Engine, EngineConfig, OsRandom, SystemClock};
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A loopback HTTP server that answers every request with `status` and `body`
/// (as `content_type`), whatever was asked: a web server, not a PSP. Serves until
/// the returned handle is dropped.
async fn not_a_psp(status: u16, content_type: &'static str, body: &'static str, extra_headers: String) -> (String, tokio::task::JoinHandle<()>) {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", l.local_addr().unwrap());
    let task = tokio::spawn(async move {
        // Bounded: a checkout makes a handful of requests.
        for _ in 0..64 {
            let Ok((mut s, _)) = l.accept().await else { return };
            let extra_headers = extra_headers.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 16 * 1024];
                let mut got = Vec::new();
                // Read the head and the announced body, then answer and close.
                loop {
                    let Ok(n) = s.read(&mut buf).await else { return };
                    if n == 0 {
                        return;
                    }
                    got.extend_from_slice(&buf[..n]);
                    let text = String::from_utf8_lossy(&got).to_ascii_lowercase();
                    if let Some(end) = text.find("\r\n\r\n") {
                        let len = text
                            .lines()
                            .find_map(|l| l.strip_prefix("content-length:").map(|v| v.trim().parse::<usize>().unwrap_or(0)))
                            .unwrap_or(0);
                        if got.len() >= end + 4 + len {
                            break;
                        }
                    }
                }
                let resp = format!(
                    "HTTP/1.1 {status} X\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\n{extra_headers}connection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = s.write_all(resp.as_bytes()).await;
                let _ = s.shutdown().await;
            });
        }
    });
    (url, task)
}

fn checkout_error_key(r: &Run) -> String {
    let e = &r.json()["error"];
    assert_eq!(e["state"], "failed", "{}", r.stdout);
    e["checkout_key"].as_str().unwrap_or_else(|| panic!("no checkout key in {}", r.stdout)).to_string()
}

/// A wrong secret key (401) on a fresh checkout: nothing executed anywhere, so the
/// payment ends failed, the error names its key, and fixing the key never charges it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_secret_key_fails_and_is_never_charged_later() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let url = psp.url();
    let db = dir.path().join("register.db");
    let r: Run = cli(&db, &url, &[], &["checkout", "--amount", "4321", "--currency", "jpy"])
        .args(["--psp-key", "sk_test_WRONG"])
        .output()
        .await
        .unwrap()
        .into();
    assert_eq!(r.code, Some(1), "{}{}", r.stdout, r.stderr);
    assert_eq!(r.json()["error"]["code"], "psp_auth", "{}", r.stdout);
    assert!(r.stderr.contains("nothing was charged"), "{}", r.stderr);
    assert!(!r.stdout.contains("sk_test_WRONG") && !r.stderr.contains("sk_test_WRONG"), "secrets are not printed");
    let key = checkout_error_key(&r);
    // The right key now: recovery has nothing to do with it, cancel is not needed.
    let rec = run(&db, &url, &[], &["recover"]).await;
    assert_eq!(rec.code, Some(0), "{}", rec.stderr);
    assert_eq!(rec.json()["examined"], 0, "{}", rec.stdout);
    let rows = ledger(&db, &url).await;
    assert_eq!((rows.len(), rows[0]["checkout_key"].as_str(), rows[0]["state"].as_str()), (1, Some(key.as_str()), Some("failed")));
    assert!(psp.intents().await.is_empty(), "a payment the cashier saw fail was charged");
    assert_eq!(psp.stats().await["charges"], 0);
    // Charging the same sale again is an explicit new payment with a new key.
    let again = run(&db, &url, &[], &["checkout", "--amount", "4321", "--currency", "jpy", "--after", &key]).await;
    assert_eq!(again.code, Some(0), "{}{}", again.stdout, again.stderr);
    assert_ne!(again.json()["checkout_key"], key.as_str());
    assert_eq!(psp.intents().await.len(), 1);
}

/// A PSP URL that points at something that is not a PSP: a 404 path, a 418, an HTML
/// page. Each proves nothing was executed: failed, with the key, never sent again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_url_or_not_a_psp_fails_with_its_key() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let db = dir.path().join("register.db");
    let (teapot, _t1) = not_a_psp(418, "text/plain", "I'm a teapot", String::new()).await;
    let (page, _t2) = not_a_psp(200, "text/html", "<!doctype html><html><body>Welcome</body></html>", String::new()).await;
    let (missing, _t3) = not_a_psp(404, "text/html", "<html>Not Found</html>", String::new()).await;
    // A redirect to the real PSP: following it would resend the payment there.
    let location = format!("location: {}/v1/payment_intents\r\n", psp.url());
    let (redirect, _t4) = not_a_psp(307, "text/html", "", location).await;
    let wrong_path = format!("{}/not-the-api", psp.url());
    let cases = [
        (wrong_path.as_str(), "psp_not_found"),
        (&teapot, "psp_unexpected"),
        (&page, "not_a_psp"),
        (&missing, "psp_not_found"),
        (&redirect, "psp_unexpected"),
    ];
    let mut keys = vec![];
    for (url, code) in cases {
        let r = run(&db, url, &[], &["checkout", "--amount", "700", "--currency", "jpy"]).await;
        assert_eq!(r.code, Some(1), "{url}: {}{}", r.stdout, r.stderr);
        assert_eq!(r.json()["error"]["code"], code, "{url}: {}", r.stdout);
        keys.push(checkout_error_key(&r));
    }
    // With the right URL, recovery sends none of them.
    let rec = run(&db, &psp.url(), &[], &["recover"]).await;
    assert_eq!(rec.json()["examined"], 0, "{}", rec.stdout);
    let rows = ledger(&db, &psp.url()).await;
    assert_eq!(rows.len(), keys.len());
    assert!(rows.iter().all(|r| r["state"] == "failed"), "{rows:?}");
    assert!(psp.intents().await.is_empty());
}

/// A 401 on a payment that an earlier process may already have sent with the right
/// key proves nothing about that attempt: pending with its key, resolved later.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_key_on_a_payment_that_may_have_gone_through_stays_pending() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let url = psp.url();
    let db = dir.path().join("register.db");
    // Killed right after its request left: the PSP charged, the ledger knows nothing.
    let k = run_env(&db, &url, &[], &["checkout", "--amount", "900", "--currency", "jpy"], &[("PAYDESK_CRASH_AT", "after_send")]).await;
    assert!(k.killed(), "{}{}", k.stdout, k.stderr);
    // Recovery with a wrong key: 401. It must not end the payment "failed".
    let rec: Run = cli(&db, &url, &[], &["recover"]).args(["--psp-key", "sk_test_WRONG"]).output().await.unwrap().into();
    assert_eq!(rec.code, Some(0), "{}", rec.stderr);
    assert_eq!(rec.json()["still_pending"], 1, "{}", rec.stdout);
    let rows = ledger(&db, &url).await;
    assert!(matches!(rows[0]["state"].as_str(), Some("created" | "authorizing")), "{rows:?}");
    // The right key: the same key is replayed, charged once.
    let rec = run(&db, &url, &[], &["recover"]).await;
    assert_eq!(rec.json()["resolved"], 1, "{}", rec.stdout);
    assert_eq!(ledger(&db, &url).await[0]["state"], "captured");
    assert_eq!(psp.intents().await.len(), 1);
    assert_ledger_equals_psp(&db, &psp).await;
}

/// The ledger stops taking writes right after the key commit (a full disk): the PSP
/// charges, the register cannot record it. The cashier is told "pending" with the
/// key, never an error that reads as "not charged"; recovery then records it paid.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ledger_full_after_the_key_commit_is_pending_with_its_key() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let db = dir.path().join("register.db");
    let transport = HttpTransport::new(&psp.url(), KEY, Duration::from_secs(2)).unwrap();
    let engine_cell: Arc<OnceLock<Engine>> = Arc::new(OnceLock::new());
    let cell = engine_cell.clone();
    let engine = Engine::new(Ledger::open(&db).unwrap(), Arc::new(transport), Arc::new(SystemClock::default()), Arc::new(OsRandom), EngineConfig::default())
        .with_crash_hook(Arc::new(move |p: CrashPoint| {
            if p == CrashPoint::AfterKeyCommit {
                // Every later write fails, as on a full disk; reads still work.
                let e = cell.get().expect("engine");
                e.ledger_for_tests(|l| l.connection().pragma_update(None, "query_only", true)).unwrap();
            }
        }));
    assert!(engine_cell.set(engine.clone()).is_ok());
    let r = engine.checkout_amount(Money::new(1200, Currency::Jpy), CheckoutOptions::card("pm_card_visa")).await;
    let r = r.expect("a checkout whose key exists answers with a report, not an error");
    assert_eq!(r.outcome, CheckoutOutcome::Pending, "{r:?}");
    assert_eq!(r.error_code.as_deref(), Some("ledger"), "{r:?}");
    assert!(r.message.as_deref().unwrap_or("").contains("not known yet"), "{r:?}");
    assert_eq!(psp.intents().await.len(), 1, "the PSP charged it");
    // Room again: recovery records what the PSP did, with the same key.
    engine.ledger_for_tests(|l| l.connection().pragma_update(None, "query_only", false)).unwrap();
    let rec = engine.recover().await.unwrap();
    assert_eq!(rec.resolved, 1, "{rec:?}");
    assert_eq!(engine.status_of(&r.checkout_key).unwrap().outcome, CheckoutOutcome::Paid);
    assert_eq!(psp.intents().await.len(), 1);
}
