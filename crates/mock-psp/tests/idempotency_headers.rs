//! The `Idempotency-Key` header itself: exactly one, printable ASCII, at most 255
//! characters. Each way of getting it wrong is a 400 that says which, and nothing is
//! executed or stored. Over real loopback HTTP (raw bytes where reqwest would not send
//! them) and in-process.
use crate::common;
use common::*;
use mock_psp::{MockPsp, PspRequest};

const PI: &str = "/v1/payment_intents";
const FORM: &str = "amount=100&currency=usd&payment_method=pm_card_visa&confirm=true";

async fn post_with_keys(p: &Psp, keys: &[&[u8]]) -> Resp {
    let mut r = p.client.post(format!("{}{PI}", p.url)).bearer_auth(SK_A).header("content-type", "application/x-www-form-urlencoded").body(FORM);
    for k in keys {
        r = r.header("Idempotency-Key", reqwest::header::HeaderValue::from_bytes(k).unwrap());
    }
    into(r.send().await.unwrap()).await
}

fn message(r: &Resp) -> String {
    r.json()["error"]["message"].as_str().unwrap_or("").to_string()
}

#[tokio::test]
async fn two_keys_are_refused_not_one_picked() {
    let p = start_default().await;
    for keys in [&[&b"k-1"[..], b"k-2"][..], &[b"same", b"same"], &[b"a", b"b", b"c"]] {
        let r = post_with_keys(&p, keys).await;
        assert_eq!((r.status, r.err_code()), (400, "idempotency_key_duplicate".to_string()), "{keys:?}: {:?}", r.json());
        assert!(message(&r).contains(&format!("{} Idempotency-Key headers", keys.len())), "{}", message(&r));
        assert!(r.header("idempotency-key").is_none(), "no key is echoed when none was taken");
    }
    let s = p.stats().await;
    assert_eq!((s["executions"].as_u64(), s["charges"].as_u64()), (Some(0), Some(0)), "{s}");
    // Either key alone is then a new request (nothing was claimed under it).
    let r = post_with_keys(&p, &[b"k-1"]).await;
    assert_eq!(r.status, 200);
    assert!(!r.replayed());
    assert_eq!(r.header("idempotency-key").as_deref(), Some("k-1"));
}

#[tokio::test]
async fn a_non_ascii_or_unreadable_key_says_what_is_wrong() {
    let p = start_default().await;
    let r = post_with_keys(&p, &["clé-1".as_bytes()]).await;
    assert_eq!((r.status, r.err_code()), (400, "idempotency_key_not_ascii".to_string()), "{:?}", r.json());
    assert!(message(&r).contains("U+00E9") && message(&r).contains("character 3"), "{}", message(&r));
    let r = post_with_keys(&p, &[&[b'k', 0xff, 0xfe]]).await;
    assert_eq!((r.status, r.err_code()), (400, "idempotency_key_not_ascii".to_string()), "{:?}", r.json());
    assert!(message(&r).contains("not valid UTF-8"), "{}", message(&r));
    let r = post_with_keys(&p, &[]).await;
    assert_eq!(r.err_code(), "idempotency_key_missing");
    let r = post_with_keys(&p, &[&[b'x'; 256]]).await;
    assert_eq!(r.err_code(), "idempotency_key_invalid");
    assert!(message(&r).contains("255"), "{}", message(&r));
    assert_eq!(p.stats().await["executions"], 0);
    // A key with spaces and punctuation is fine (printable ASCII).
    let r = post_with_keys(&p, &[b"order 17 / try #2"]).await;
    assert_eq!(r.status, 200, "{:?}", r.json());
}

#[tokio::test]
async fn in_process_control_characters_and_duplicates() {
    let psp = MockPsp::builder().secret_key(SK_A).build().unwrap();
    let form = [("amount", "100"), ("currency", "usd")];
    let mut req = PspRequest::post(PI, SK_A, Some("a\u{1}b"), &form);
    let r = psp.handle(req.clone()).await.response().unwrap().clone();
    assert_eq!((r.status, r.json()["error"]["code"].as_str()), (400, Some("idempotency_key_not_ascii")));
    assert!(r.json()["error"]["message"].as_str().unwrap().contains("control character U+0001"));
    req.headers.retain(|(k, _)| k != "idempotency-key");
    req.headers.push(("Idempotency-Key".into(), "x".into()));
    req.headers.push(("idempotency-key".into(), "x".into()));
    let r = psp.handle(req).await.response().unwrap().clone();
    assert_eq!(r.json()["error"]["code"], "idempotency_key_duplicate", "header names match case-insensitively");
    assert_eq!(psp.stats()["executions"], 0);
}
