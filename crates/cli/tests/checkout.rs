//! End to end over real loopback: the real `paydesk-cli` against the real mock
//! PSP. Cases A/B/C, declines and new keys, the unknown-outcome guard, replayed
//! 500, bad input.

use crate::common;
use common::*;
use mock_psp::Fault;
use serde_json::Value;

const PI_PATH: &str = "/v1/payment_intents";

fn attempts_outcomes(show: &Value) -> Vec<String> {
    show["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["kind"] == "attempt")
        .map(|t| t["outcome"].as_str().unwrap_or("").to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn checkout_paid_authorized_and_ledger_lines() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let db = dir.path().join("register.db");
    let r = run(&db, &psp.url(), &[], &["checkout", "--amount", "1200", "--currency", "jpy"]).await;
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let j = r.json();
    assert_eq!(j["state"], "captured");
    assert_eq!(j["attempts"], 1);
    assert!(j["psp_payment_id"].as_str().unwrap().starts_with("pi_"));
    let key = j["checkout_key"].as_str().unwrap();
    assert_eq!(uuid_version(key), Some('4'));

    let r = run(&db, &psp.url(), &[], &["checkout", "--amount", "999", "--currency", "usd", "--capture", "manual"]).await;
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(r.json()["state"], "authorized");
    let manual = r.json()["checkout_key"].as_str().unwrap().to_string();
    let r = run(&db, &psp.url(), &[], &["capture", "--payment", &manual]).await;
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(r.json()["state"], "captured");

    let rows = ledger(&db, &psp.url()).await;
    assert_eq!(rows.len(), 2);
    for row in &rows {
        for f in ["checkout_key", "state", "amount", "currency", "psp_payment_id"] {
            assert!(row.get(f).is_some(), "ledger line has {f}: {row}");
        }
    }
    assert_eq!(rows[0]["checkout_key"], key);
    assert_eq!(rows[1]["currency"], "usd");
    assert_ledger_equals_psp(&db, &psp).await;
}

fn uuid_version(k: &str) -> Option<char> {
    k.chars().nth(14)
}

/// Case A: the PSP reads the request and never answers. The register times
/// out, retries with the same key and parameters, and charges once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn case_a_request_dropped_is_retried_once_charged() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let db = dir.path().join("register.db");
    psp.psp().script_fault(PI_PATH, Fault::DropRequest, 2, None);
    let r = run(&db, &psp.url(), &["--attempt-timeout", "300ms"], &["checkout", "--amount", "500", "--currency", "jpy"]).await;
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    let j = r.json();
    assert_eq!(j["state"], "captured");
    assert_eq!(j["attempts"], 3, "two dropped, third answered");
    let key = j["checkout_key"].as_str().unwrap().to_string();
    let show = run(&db, &psp.url(), &[], &["show", "--payment", &key]).await.json();
    assert_eq!(attempts_outcomes(&show), ["timeout", "timeout", "ok"]);
    let by_key = psp.intents_by_key().await;
    assert_eq!(by_key.len(), 1);
    assert_eq!(by_key[&key].len(), 1, "one charge");
    assert_eq!(psp.stats().await["charges"], 1);
    assert_ledger_equals_psp(&db, &psp).await;
}

/// Case B: the PSP charges and commits, then the answer is lost. The retry
/// with the same key is answered with the stored response (replayed).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn case_b_response_lost_is_replayed_once_charged() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let db = dir.path().join("register.db");
    psp.psp().script_fault(PI_PATH, Fault::DropResponse, 1, None);
    let r = run(&db, &psp.url(), &["--attempt-timeout", "2s"], &["checkout", "--amount", "700", "--currency", "jpy"]).await;
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    let j = r.json();
    assert_eq!(j["state"], "captured");
    assert_eq!(j["replayed"], true);
    let key = j["checkout_key"].as_str().unwrap().to_string();
    let show = run(&db, &psp.url(), &[], &["show", "--payment", &key]).await.json();
    let tl = show["timeline"].as_array().unwrap();
    assert!(
        tl.iter().any(|t| t["kind"] == "attempt" && t["replayed"] == true && t["outcome"] == "replayed"),
        "the timeline shows the replay: {tl:?}"
    );
    assert_eq!(attempts_outcomes(&show), ["connection_lost", "replayed"]);
    let stats = psp.stats().await;
    assert_eq!(stats["charges"], 1);
    assert_eq!(stats["replays"], 1);
    assert_eq!(psp.intents_by_key().await[&key].len(), 1);
    assert_ledger_equals_psp(&db, &psp).await;
}

/// Case C: the PSP is slow; the attempt times out while the first request is
/// still executing, so retries get 409 in-progress (Retry-After honoured)
/// until the PSP finishes; one charge.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn case_c_slow_gets_409_then_success_once_charged() {
    let dir = tempfile::tempdir().unwrap();
    // The mock abandons an execution whose client went away and re-drives it
    // after its lock timeout: keep that short so the test is quick.
    let psp = Psp::start_with(dir.path(), std::time::Duration::from_secs(2), std::time::Duration::from_secs(86400), "127.0.0.1:0".parse().unwrap()).await;
    let db = dir.path().join("register.db");
    psp.psp().script_fault(PI_PATH, Fault::Slow, 1, Some(1500));
    let r = run(
        &db,
        &psp.url(),
        &["--attempt-timeout", "500ms", "--interactive", "30s", "--max-attempts", "20"],
        &["checkout", "--amount", "900", "--currency", "jpy"],
    )
    .await;
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    let j = r.json();
    assert_eq!(j["state"], "captured");
    let key = j["checkout_key"].as_str().unwrap().to_string();
    let show = run(&db, &psp.url(), &[], &["show", "--payment", &key]).await.json();
    let outs = attempts_outcomes(&show);
    assert_eq!(outs[0], "timeout", "{outs:?}");
    assert!(outs.iter().any(|o| o == "in_progress_409"), "409s while the first runs: {outs:?}");
    assert!(matches!(outs.last().map(String::as_str), Some("ok" | "replayed")), "{outs:?}");
    assert!(psp.stats().await["conflicts"].as_u64().unwrap() >= 1);
    assert_eq!(psp.intents_by_key().await[&key].len(), 1, "one charge");
    assert_eq!(psp.stats().await["charges"], 1);
    assert_ledger_equals_psp(&db, &psp).await;
}

/// A decline fails the checkout (exit 2); "try another card" is an explicit new
/// payment with a new key. A new payment while the previous outcome is unknown
/// is refused, unless overridden with a reason, which lands in the audit log.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn decline_new_key_and_unknown_outcome_guard() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let db = dir.path().join("register.db");
    let url = psp.url();

    let r = run(&db, &url, &[], &["checkout", "--amount", "800", "--currency", "jpy", "--card", "pm_card_chargeDeclined"]).await;
    assert_eq!(r.code, Some(2), "declined: {}{}", r.stdout, r.stderr);
    let declined = r.json();
    assert_eq!(declined["state"], "failed");
    assert!(declined["message"].as_str().unwrap().contains("declined"));
    let k1 = declined["checkout_key"].as_str().unwrap().to_string();
    // Retrying the declined key does not charge and does not make a new key.
    let again = run(&db, &url, &[], &["checkout", "--amount", "800", "--currency", "jpy", "--after", &k1]).await;
    assert_eq!(again.code, Some(0), "{}{}", again.stdout, again.stderr);
    let k2 = again.json()["checkout_key"].as_str().unwrap().to_string();
    assert_ne!(k1, k2, "a new payment gets a new key");
    assert_eq!(again.json()["state"], "captured");
    // A new payment after a paid one is refused.
    let paid = run(&db, &url, &[], &["checkout", "--amount", "800", "--currency", "jpy", "--after", &k2]).await;
    assert_eq!(paid.code, Some(1));
    assert_eq!(paid.json()["error"]["code"], "already_paid");

    // Unknown outcome: every attempt dropped, the interactive phase ends pending.
    psp.psp().script_fault(PI_PATH, Fault::DropRequest, 1000, None);
    let pend = run(
        &db,
        &url,
        &["--attempt-timeout", "150ms", "--max-attempts", "3"],
        &["checkout", "--amount", "1500", "--currency", "jpy"],
    )
    .await;
    assert_eq!(pend.code, Some(3), "pending: {}{}", pend.stdout, pend.stderr);
    let k3 = pend.json()["checkout_key"].as_str().unwrap().to_string();
    assert_eq!(pend.json()["state"], "authorizing");
    psp.psp().clear_script();

    let refused = run(&db, &url, &[], &["checkout", "--amount", "1500", "--currency", "jpy", "--after", &k3, "--card", "pm_card_visa"]).await;
    assert_eq!(refused.code, Some(1));
    assert_eq!(refused.json()["error"]["code"], "previous_outcome_unknown");
    assert!(refused.stderr.contains("outcome is not known"), "{}", refused.stderr);
    let rows_before = ledger(&db, &url).await.len();
    assert_eq!(rows_before, 3, "a refused new payment adds nothing");

    let over = run(
        &db,
        &url,
        &[],
        &["checkout", "--amount", "1500", "--currency", "jpy", "--after", &k3, "--override-reason", "customer shows a declined SMS"],
    )
    .await;
    assert_eq!(over.code, Some(0), "{}{}", over.stdout, over.stderr);
    let k4 = over.json()["checkout_key"].as_str().unwrap().to_string();
    assert_ne!(k4, k3);
    let audit = run(&db, &url, &[], &["audit"]).await.lines();
    assert_eq!(audit.len(), 1);
    assert_eq!(audit[0]["action"], "new_payment_override");
    assert_eq!(audit[0]["reason"], "customer shows a declined SMS");
    assert!(audit[0]["detail"].as_str().unwrap().contains(&k3));

    // The unknown one is still resolved with its own key by recovery.
    let rec = run(&db, &url, &[], &["recover"]).await;
    assert_eq!(rec.code, Some(0), "{}", rec.stderr);
    assert_ledger_equals_psp(&db, &psp).await;
    let by_key = psp.intents_by_key().await;
    assert!(by_key.contains_key(&k3) && by_key.contains_key(&k4));
}

/// A checkout whose one attempt the PSP answers with a stored 500 (executed, outcome
/// unknown), the CLI killed before it could record the answer.
async fn checkout_killed_after_a_stored_500(psp: &Psp, db: &std::path::Path, url: &str) {
    psp.psp().script_fault(PI_PATH, Fault::InternalError, 1, None);
    let r = run_env(db, url, &[], &["checkout", "--amount", "650", "--currency", "jpy"], &[("PAYDESK_CRASH_AT", "after_response_before_commit")]).await;
    assert!(r.killed(), "killed at the crash point: {r:?}", r = (r.code, &r.stderr));
}

/// Replayed 500: the PSP stored a 500 for the key; after a crash the resend is
/// answered with the replayed 500, which means "unknown" — resolved by search.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replayed_500_is_resolved_by_search() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let db = dir.path().join("register.db");
    let url = psp.url();
    checkout_killed_after_a_stored_500(&psp, &db, &url).await;
    let rows = ledger(&db, &url).await;
    assert_eq!(rows.len(), 1);
    let key = rows[0]["checkout_key"].as_str().unwrap().to_string();
    let replays_before = psp.stats().await["replays"].as_u64().unwrap();
    let rec = run(&db, &url, &[], &["recover"]).await;
    assert_eq!(rec.code, Some(0), "{}", rec.stderr);
    let rep = rec.json();
    assert!(psp.stats().await["replays"].as_u64().unwrap() > replays_before, "the resend was a replayed 500");
    // The attempt that executed was lost in the crash, moments ago: search lags behind
    // writes, so "not found" proves nothing yet. Still pending.
    assert_eq!((rep["resolved_by_search"].as_u64(), rep["still_pending"].as_u64()), (Some(0), Some(1)), "{rep}");
    assert_eq!(ledger(&db, &url).await[0]["state"], "authorizing");
    // Past search_settle_ms (2 min): not found = never charged.
    let rec = run(&db, &url, &["--clock-offset", "3m"], &["recover"]).await;
    assert_eq!(rec.code, Some(0), "{}", rec.stderr);
    let rep = rec.json();
    assert_eq!(rep["resolved_by_search"], 1, "{rep}");
    let show = run(&db, &url, &[], &["show", "--payment", &key]).await.json();
    assert!(attempts_outcomes(&show).contains(&"replayed_500".to_string()), "{show}");
    assert_eq!(show["payment"]["state"], "failed");
    assert!(show["payment"]["last_error"].as_str().unwrap().contains("never charged"));
    assert!(!psp.intents_by_key().await.contains_key(&key));
    assert_ledger_equals_psp(&db, &psp).await;
}

/// `--search-settle` sets how long search may lag: 0s trusts a "not found" at once (a
/// PSP whose search is read-after-write consistent); more than 1h is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_settle_flag_sets_when_not_found_is_conclusive() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let db = dir.path().join("register.db");
    let url = psp.url();
    checkout_killed_after_a_stored_500(&psp, &db, &url).await;
    let before = ledger(&db, &url).await;
    let key = before[0]["checkout_key"].as_str().unwrap().to_string();
    // Refused before anything is touched: the payment is left as it was.
    let bad = run(&db, &url, &["--search-settle", "2h"], &["recover"]).await;
    assert_eq!(bad.code, Some(64), "a usage error: {}", bad.stderr);
    assert!(bad.stderr.contains("--search-settle must be at most 1h"), "{}", bad.stderr);
    assert_eq!(ledger(&db, &url).await, before);
    // With 0s the first recover's "not found" is conclusive (the default waits 2 min).
    let rec = run(&db, &url, &["--search-settle", "0s"], &["recover"]).await;
    assert_eq!(rec.code, Some(0), "{}", rec.stderr);
    assert_eq!(rec.json()["resolved_by_search"], 1, "{}", rec.stdout);
    let show = run(&db, &url, &[], &["show", "--payment", &key]).await.json();
    assert_eq!(show["payment"]["state"], "failed");
    assert!(show["payment"]["last_error"].as_str().unwrap().contains("never charged"));
    assert_ledger_equals_psp(&db, &psp).await;
}

/// Bad input gives a clear error and loses nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_inputs_clear_errors_nothing_lost() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let db = dir.path().join("register.db");
    let url = psp.url();
    let ok = run(&db, &url, &[], &["checkout", "--amount", "300", "--currency", "jpy"]).await;
    assert_eq!(ok.code, Some(0));
    let key = ok.json()["checkout_key"].as_str().unwrap().to_string();

    for (amount, needle) in [
        ("0", "greater than zero"),
        ("-5", "greater than zero"),
        ("99999999999999999999", "overflows"),
        ("12.5", "whole number"),
        ("abc", "whole number"),
    ] {
        let r = run(&db, &url, &[], &["checkout", "--amount", amount, "--currency", "jpy"]).await;
        assert_eq!(r.code, Some(1), "{amount}");
        assert_eq!(r.json()["error"]["code"], "invalid_input");
        assert!(r.stderr.contains(needle), "{amount}: {}", r.stderr);
    }
    let r = run(&db, &url, &[], &["checkout", "--amount", "100", "--currency", "xyz"]).await;
    assert_eq!(r.code, Some(1));
    assert!(r.stderr.contains("unknown currency"), "{}", r.stderr);
    let r = run(&db, &url, &[], &["refund", "--payment", "no-such-key"]).await;
    assert_eq!(r.code, Some(1));
    assert_eq!(r.json()["error"]["code"], "unknown_payment");
    let r = run(&db, &url, &[], &["refund", "--payment", &key, "--amount", "301"]).await;
    assert_eq!(r.code, Some(1));
    assert_eq!(r.json()["error"]["code"], "refund_exceeds_captured");
    let r = run(&db, &url, &[], &["refund", "--payment", &key, "--amount", "0"]).await;
    assert_eq!(r.code, Some(1));
    let r = run(&db, &url, &[], &["checkout", "--amount"]).await;
    assert_eq!(r.code, Some(64), "usage error");
    // Misconfigured PSP: wrong secret key -> 401 before anything executed: failed, never
    // charged later (told_stays_true.rs has the whole story).
    let r = cli(&db, &url, &[], &["checkout", "--amount", "400", "--currency", "jpy"])
        .args(["--psp-key", "sk_test_wrong"])
        .output()
        .await
        .unwrap();
    let r: Run = r.into();
    assert_eq!(r.code, Some(1), "{}{}", r.stdout, r.stderr);
    assert_eq!(r.json()["error"]["code"], "psp_auth");
    assert_eq!(r.json()["error"]["state"], "failed");
    assert!(!r.stderr.contains("sk_test_wrong"), "secrets are not printed");
    // Bad URL.
    let r = run(&db, "ftp://nowhere", &[], &["checkout", "--amount", "400", "--currency", "jpy"]).await;
    assert_eq!(r.code, Some(1));
    assert_eq!(r.json()["error"]["code"], "psp_config");
    // Unreachable PSP with offline acceptance off: a clear error, nothing charged.
    let dead = "http://127.0.0.1:9"; // discard port: refused
    let r = run(&db, dead, &["--no-offline"], &["checkout", "--amount", "400", "--currency", "jpy"]).await;
    assert_eq!(r.code, Some(1), "{}{}", r.stdout, r.stderr);
    assert_eq!(r.json()["error"]["code"], "offline_refused");
    assert!(r.stderr.contains("Nothing was charged"), "{}", r.stderr);

    let rows = ledger(&db, &url).await;
    // The good checkout, the 401 one (failed: nothing executed), the unreachable one
    // (canceled: nothing was sent).
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert_eq!(rows[0]["state"], "captured");
    assert_eq!(rows[1]["state"], "failed");
    assert!(rows[1]["last_error"].as_str().unwrap().contains("secret key"));
    assert_eq!(rows[2]["state"], "canceled");
    // With the key fixed, recovery sends neither again.
    let rec = run(&db, &url, &[], &["recover"]).await;
    assert_eq!(rec.code, Some(0), "{}", rec.stderr);
    assert_ledger_equals_psp(&db, &psp).await;
    assert_eq!(psp.intents().await.len(), 1);
}

/// 503 and 429 (answered before execution, Retry-After honoured) are retried
/// with the same key; one charge.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transient_503_and_429_are_retried() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let db = dir.path().join("register.db");
    psp.psp().script_fault(PI_PATH, Fault::Transient503, 1, None);
    psp.psp().script_fault(PI_PATH, Fault::Transient429, 1, None);
    let r = run(&db, &psp.url(), &[], &["checkout", "--amount", "450", "--currency", "jpy"]).await;
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    let key = r.json()["checkout_key"].as_str().unwrap().to_string();
    let show = run(&db, &psp.url(), &[], &["show", "--payment", &key]).await.json();
    assert_eq!(attempts_outcomes(&show), ["unavailable_5xx", "rate_limited_429", "ok"]);
    assert_eq!(psp.stats().await["charges"], 1);
    assert_ledger_equals_psp(&db, &psp).await;
}

/// The same key with different parameters is a bug: the PSP answers 400
/// idempotency_error, the register raises an alarm and does not retry or
/// invent a new key; nothing is charged twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idempotency_mismatch_raises_an_alarm() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let db = dir.path().join("register.db");
    let url = psp.url();
    psp.psp().script_fault(PI_PATH, Fault::DropResponse, 1, None);
    let r = run_env(&db, &url, &[], &["checkout", "--amount", "1000", "--currency", "jpy"], &[("PAYDESK_CRASH_AT", "after_response_before_commit")]).await;
    assert!(r.killed());
    // Simulate a bug: the stored parameters changed after the first send.
    {
        let l = paydesk_ledger::Ledger::open(&db).unwrap();
        l.connection()
            .execute("UPDATE payments SET request_params = replace(request_params, '\"1000\"', '\"1001\"')", [])
            .unwrap();
    }
    let rec = run(&db, &url, &["--progress"], &["recover"]).await;
    assert_eq!(rec.code, Some(0));
    let rep = rec.json();
    assert_eq!(rep["still_pending"], 1, "{rep}");
    assert!(rep["errors"][0].as_str().unwrap().contains("idempotency mismatch"), "{rep}");
    assert!(rec.stderr.contains("\"type\":\"alarm\""), "an alarm notification: {}", rec.stderr);
    assert_eq!(psp.stats().await["mismatches"], 1);
    assert_eq!(psp.stats().await["charges"], 1);
    let rows = ledger(&db, &url).await;
    assert_eq!(rows[0]["state"], "authorizing", "left for a human; never resolved by guessing");
    assert!(rows[0]["last_error"].as_str().unwrap().contains("idempotency mismatch"));
}

/// Manual capture: the capture's answer is lost; the retry with the capture's
/// own key is replayed; captured once. Cancel voids another authorization.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn capture_with_lost_answer_and_cancel() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let db = dir.path().join("register.db");
    let url = psp.url();
    let a = run(&db, &url, &[], &["checkout", "--amount", "2500", "--currency", "usd", "--capture", "manual"]).await;
    assert_eq!(a.code, Some(0), "{}", a.stderr);
    assert_eq!(a.json()["state"], "authorized");
    let ka = a.json()["checkout_key"].as_str().unwrap().to_string();
    let pi = a.json()["psp_payment_id"].as_str().unwrap().to_string();
    psp.psp().script_fault(&format!("/v1/payment_intents/{pi}/capture"), Fault::DropResponse, 1, None);
    let c = run(&db, &url, &[], &["capture", "--payment", &ka]).await;
    assert_eq!(c.code, Some(0), "{}{}", c.stdout, c.stderr);
    assert_eq!(c.json()["state"], "captured");
    let show = run(&db, &url, &[], &["show", "--payment", &ka]).await.json();
    let outs = attempts_outcomes(&show);
    assert!(outs.ends_with(&["connection_lost".to_string(), "replayed".to_string()]), "{outs:?}");
    let pi_now = psp.get(&format!("/v1/payment_intents/{pi}")).await;
    assert_eq!(pi_now["status"], "succeeded");
    assert_eq!(pi_now["amount_received"], 2500);

    let b = run(&db, &url, &[], &["checkout", "--amount", "1000", "--currency", "usd", "--capture", "manual"]).await;
    let kb = b.json()["checkout_key"].as_str().unwrap().to_string();
    let x = run(&db, &url, &[], &["cancel", "--payment", &kb]).await;
    assert_eq!(x.code, Some(0), "{}{}", x.stdout, x.stderr);
    assert_eq!(x.json()["state"], "canceled");
    let again = run(&db, &url, &[], &["capture", "--payment", &kb]).await;
    assert_eq!(again.json()["error"]["code"], "wrong_state");
    assert_ledger_equals_psp(&db, &psp).await;
}

/// A refund's answer is lost: the retry with the refund's own key is replayed;
/// refunded once. Full refund of the rest afterwards; nothing more refundable.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refund_with_lost_answer_is_replayed_once() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let db = dir.path().join("register.db");
    let url = psp.url();
    let r = run(&db, &url, &[], &["checkout", "--amount", "3000", "--currency", "jpy"]).await;
    let key = r.json()["checkout_key"].as_str().unwrap().to_string();
    psp.psp().script_fault("/v1/refunds", Fault::DropResponse, 1, None);
    let rf = run(&db, &url, &[], &["refund", "--payment", &key, "--amount", "1000"]).await;
    assert_eq!(rf.code, Some(0), "{}{}", rf.stdout, rf.stderr);
    let j = rf.json();
    assert_eq!(j["state"], "succeeded");
    assert_eq!(j["attempts"], 2);
    assert_ne!(j["refund_key"], key.as_str(), "the refund has its own key");
    assert_eq!(psp.stats().await["refunds"], 1);
    let rest = run(&db, &url, &[], &["refund", "--payment", &key]).await;
    assert_eq!(rest.json()["amount"], 2000);
    let none = run(&db, &url, &[], &["refund", "--payment", &key, "--amount", "1"]).await;
    assert_eq!(none.code, Some(1));
    assert_eq!(psp.stats().await["refunds"], 2);
    let rows = ledger(&db, &url).await;
    assert_eq!(rows[0]["state"], "refunded");
    assert_eq!(rows[0]["refunded"], 3000);
    assert_ledger_equals_psp(&db, &psp).await;
}

/// `checkout --after K` run twice (the operator re-runs it, or the first run crashed
/// after its payment was made): the second run reports the first run's payment, never a
/// second charge; once that one is declined, `--after K` is refused, naming it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn checkout_after_the_same_key_twice_makes_one_payment() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let db = dir.path().join("register.db");
    let url = psp.url();
    let declined = |r: &Run| r.json()["checkout_key"].as_str().unwrap().to_string();
    let r = run(&db, &url, &[], &["checkout", "--amount", "800", "--currency", "jpy", "--card", "pm_card_chargeDeclined"]).await;
    assert_eq!(r.code, Some(2), "{}{}", r.stdout, r.stderr);
    let k = declined(&r);
    let first = run(&db, &url, &[], &["checkout", "--amount", "800", "--currency", "jpy", "--after", &k]).await;
    assert_eq!(first.code, Some(0), "{}{}", first.stdout, first.stderr);
    let s = first.json()["checkout_key"].as_str().unwrap().to_string();
    let second = run(&db, &url, &[], &["checkout", "--amount", "800", "--currency", "jpy", "--after", &k]).await;
    assert_eq!(second.code, Some(0), "{}{}", second.stdout, second.stderr);
    assert_eq!(second.json()["checkout_key"], s.as_str(), "the same payment, reported");
    assert_eq!(second.json()["state"], "captured");
    assert_eq!(ledger(&db, &url).await.len(), 2);
    assert_eq!(psp.stats().await["charges"], 1);

    // A declined successor: --after K is refused and names it.
    let r = run(&db, &url, &[], &["checkout", "--amount", "500", "--currency", "jpy", "--card", "pm_card_chargeDeclined"]).await;
    let k2 = declined(&r);
    let s2 = run(&db, &url, &[], &["checkout", "--amount", "500", "--currency", "jpy", "--after", &k2, "--card", "pm_card_chargeDeclined"]).await;
    assert_eq!(s2.code, Some(2));
    let s2 = declined(&s2);
    let refused = run(&db, &url, &[], &["checkout", "--amount", "500", "--currency", "jpy", "--after", &k2]).await;
    assert_eq!(refused.code, Some(1), "{}{}", refused.stdout, refused.stderr);
    assert_eq!(refused.json()["error"]["code"], "later_payment_exists");
    assert!(refused.json()["error"]["message"].as_str().unwrap().contains(&format!("use --after {s2}")), "{}", refused.stdout);
    assert_eq!(ledger(&db, &url).await.len(), 4, "nothing new");
    assert_ledger_equals_psp(&db, &psp).await;
}
