//! `paydesk-cli reader …` (decision 0102) through the real binary and the real mock PSP over
//! loopback: a location and a simulated reader registered, a decline then "again" on the
//! same intent paid once, each checked at the PSP; bad input refused.

use crate::common;
use common::*;

async fn reader(db: &std::path::Path, url: &str, args: &[&str]) -> Run {
    let mut a = vec!["reader"];
    a.extend_from_slice(args);
    run(db, url, &[], &a).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn register_a_reader_then_a_decline_and_again_on_the_same_intent_is_paid_once() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let db = dir.path().join("register.db");
    let url = psp.url();
    let loc = reader(&db, &url, &["location", "--name", "Front store", "--line1", "1 Main St", "--city", "Springfield", "--country", "US"]).await;
    assert_eq!(loc.code, Some(0), "{}{}", loc.stdout, loc.stderr);
    let loc = loc.json()["location"].as_str().unwrap().to_string();
    let reg = reader(&db, &url, &["register", "--code", "simulated-wpe", "--label", "Front till", "--location", &loc]).await;
    assert_eq!(reg.code, Some(0), "{}{}", reg.stdout, reg.stderr);
    let tmr = reg.json()["reader"]["id"].as_str().unwrap().to_string();
    let list = reader(&db, &url, &["list"]).await;
    assert_eq!(list.json()["readers"][0]["id"].as_str(), Some(tmr.as_str()));

    let declined = reader(&db, &url, &["charge", "--reader", &tmr, "--amount", "1250", "--currency", "usd", "--customer", "declined"]).await;
    assert_eq!(declined.code, Some(2), "{}{}", declined.stdout, declined.stderr);
    let d = declined.json();
    assert_eq!((d["outcome"]["kind"].as_str(), d["outcome"]["why"].as_str(), d["state"].as_str()), (Some("not_charged"), Some("declined"), Some("on_reader")), "{d}");
    let key = d["checkout_key"].as_str().unwrap().to_string();
    let pi = d["intent_id"].as_str().unwrap().to_string();

    let paid = reader(&db, &url, &["again", "--payment", &key, "--customer", "approved"]).await;
    assert_eq!(paid.code, Some(0), "{}{}", paid.stdout, paid.stderr);
    let p = paid.json();
    assert_eq!((p["outcome"]["kind"].as_str(), p["state"].as_str(), p["attempt_no"].as_i64()), (Some("paid"), Some("captured"), Some(2)), "{p}");
    assert_eq!(p["intent_id"].as_str(), Some(pi.as_str()), "the same intent");
    assert_eq!(p["card"]["last4"].as_str(), Some("4242"));
    let at_psp = psp.intents_by_key().await;
    let mine = &at_psp[&key];
    assert_eq!(mine.len(), 1, "{mine:?}");
    assert_eq!(mine[0]["status"], "succeeded");

    let status = reader(&db, &url, &["status", "--payment", &key]).await;
    assert_eq!((status.code, status.json()["outcome"]["kind"].as_str()), (Some(0), Some("paid")));
    let bad = reader(&db, &url, &["charge", "--reader", "bad id!", "--amount", "100", "--currency", "usd"]).await;
    assert_eq!(bad.code, Some(1), "{}{}", bad.stdout, bad.stderr);
    assert_eq!(bad.json()["error"]["code"], "invalid_input");
}
