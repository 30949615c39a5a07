//! Hostile and malformed input: always a clear 4xx, never a panic, nothing stored.
use crate::common;
use common::*;

const PI: &str = "/v1/payment_intents";

async fn assert_nothing_stored(p: &Psp) {
    assert!(p.all_pis(SK_A).await.is_empty());
    let s = p.stats().await;
    assert_eq!(s["executions"], 0, "{s}");
    // And the server still works.
    let r = p.get(SK_A, "/v1/events").await;
    assert_eq!(r.status, 200);
    assert!(r.json()["data"].as_array().unwrap().is_empty());
}

#[tokio::test]
async fn bad_amounts_and_currencies() {
    let p = start_default().await;
    let cases: Vec<(Vec<(&str, &str)>, &str)> = vec![
        (vec![("amount", "0"), ("currency", "usd")], "amount_too_small"),
        (vec![("amount", "-5"), ("currency", "usd")], "amount_too_small"),
        (vec![("amount", "99999999999999999999999"), ("currency", "usd")], "parameter_invalid_integer"),
        (vec![("amount", "9223372036854775808"), ("currency", "usd")], "parameter_invalid_integer"),
        (vec![("amount", "100000000"), ("currency", "usd")], "amount_too_large"),
        (vec![("amount", "12.5"), ("currency", "usd")], "parameter_invalid_integer"),
        (vec![("amount", "1e3"), ("currency", "usd")], "parameter_invalid_integer"),
        (vec![("amount", ""), ("currency", "usd")], "parameter_invalid_integer"),
        (vec![("amount", "100"), ("currency", "xyz")], "parameter_invalid_string"),
        (vec![("amount", "100"), ("currency", "")], "parameter_invalid_string"),
        (vec![("amount", "100")], "parameter_missing"),
        (vec![("currency", "usd")], "parameter_missing"),
        (vec![("amount", "100"), ("currency", "usd"), ("payment_method", "pm_card_bogus")], "resource_missing"),
        (vec![("amount", "100"), ("currency", "usd"), ("confirm", "yes")], "parameter_invalid_boolean"),
        (vec![("amount", "100"), ("currency", "usd"), ("confirm", "true")], "payment_intent_unexpected_state"),
        (vec![("amount", "100"), ("currency", "usd"), ("capture_method", "later")], "parameter_invalid_string"),
        (vec![("amount", "100"), ("currency", "usd"), ("surprise", "1")], "parameter_unknown"),
        (vec![("amount", "100"), ("amount", "200"), ("currency", "usd")], "parameter_duplicate"),
        (vec![("amount", "100"), ("currency", "usd"), ("metadata[]", "x")], "parameter_invalid_string"),
    ];
    for (i, (params, code)) in cases.iter().enumerate() {
        let r = p.post(SK_A, PI, Some(&format!("bad{i}")), params).await;
        assert_eq!(r.status, 400, "case {i} {params:?}: {:?}", r.json());
        assert_eq!(r.err_code(), *code, "case {i} {params:?}: {:?}", r.json());
        assert!(r.json()["error"]["message"].as_str().unwrap().len() > 5);
    }
    // Refund and capture validation.
    let r = p.post(SK_A, "/v1/refunds", Some("rf"), &[("amount", "10")]).await;
    assert_eq!(r.err_code(), "parameter_missing");
    let r = p.post(SK_A, "/v1/refunds", Some("rf2"), &[("payment_intent", "pi_x"), ("amount", "-1")]).await;
    assert_eq!(r.status, 400);
    let r = p.post(SK_A, &format!("{PI}/pi_x/capture"), Some("cp"), &[("amount_to_capture", "0")]).await;
    assert_eq!(r.status, 400);
    let r = p.post(SK_A, &format!("{PI}/pi%20x/capture"), Some("cp2"), &[]).await;
    assert_eq!(r.status, 404);
    assert_nothing_stored(&p).await;
}

/// Every test card the mock PSP lists is accepted: the succeeding ones charge, the
/// declines decline (the app's card list offers each, and once offered one it refused).
#[tokio::test]
async fn every_listed_test_card_is_accepted() {
    let p = start_default().await;
    for (i, m) in mock_psp::api::TestPaymentMethod::ALL.into_iter().enumerate() {
        let pm = m.token();
        let r = p.create_pi(SK_A, &format!("card{i}"), "500", pm, &[]).await;
        let declines = m.decline_code().is_some();
        assert_eq!(r.status, if declines { 402 } else { 200 }, "{pm}: {:?}", r.json());
        if !declines {
            assert_eq!(r.json()["status"], "succeeded", "{pm}: {:?}", r.json());
        }
    }
}

#[tokio::test]
async fn malformed_bodies_invalid_utf8_and_huge_bodies() {
    let p = start_default().await;
    let bodies: Vec<Vec<u8>> = vec![
        b"amount=100&currency=usd&%zz=1".to_vec(),
        b"amount=1%".to_vec(),
        b"=100".to_vec(),
        vec![b'a', b'm', b'o', b'u', b'n', b't', b'=', 0xff, 0xfe],
        b"amount=100&currency=%ff%fe".to_vec(),
        b"{\"amount\":100,\"currency\":\"usd\"}".to_vec(),
        b"amount=100&currency=usd&metadata[k]=a%00b".to_vec(),
    ];
    for (i, b) in bodies.into_iter().enumerate() {
        let r = p.post_raw(Some(SK_A), PI, Some(&format!("m{i}")), b).await;
        assert_eq!(r.status, 400, "body {i}: {:?}", String::from_utf8_lossy(&r.body));
        assert_eq!(r.err_type(), "invalid_request_error");
    }
    // 1 MB body: 413, clear message.
    let mut big = b"amount=100&currency=usd&description=".to_vec();
    big.extend(std::iter::repeat_n(b'a', 1024 * 1024));
    let r = p.post_raw(Some(SK_A), PI, Some("big"), big).await;
    assert_eq!(r.status, 413);
    assert_eq!(r.err_code(), "request_too_large");
    // Missing auth / bad auth on POST: 401, nothing stored.
    let r = p.post_raw(None, PI, Some("na"), b"amount=100&currency=usd".to_vec()).await;
    assert_eq!(r.status, 401);
    let r = p.post_raw(Some("sk_live_x"), PI, Some("na"), b"amount=100&currency=usd".to_vec()).await;
    assert_eq!(r.status, 401);
    // Overlong key.
    let r = p.post_raw(Some(SK_A), PI, Some(&"x".repeat(256)), b"amount=100&currency=usd".to_vec()).await;
    assert_eq!(r.status, 400);
    // Invalid UTF-8 in the query string of a GET.
    let r = p.get(SK_A, "/v1/events?limit=%ff").await;
    assert_eq!(r.status, 400);
    // Unknown method.
    let r = into(p.client.put(format!("{}{PI}", p.url)).bearer_auth(SK_A).send().await.unwrap()).await;
    assert!(r.status >= 400 && r.status < 500);
    assert_nothing_stored(&p).await;
}

#[tokio::test]
async fn in_process_handle_rejects_without_socket() {
    let psp = mock_psp::MockPsp::builder().secret_key(SK_A).build().unwrap();
    let req = mock_psp::PspRequest::post(PI, SK_A, Some("k"), &[("amount", "-1"), ("currency", "usd")]);
    let out = psp.handle(req).await;
    let r = out.response().unwrap();
    assert_eq!(r.status, 400);
    let req = mock_psp::PspRequest::post(PI, SK_A, Some("k"), &[("amount", "100"), ("currency", "usd"), ("payment_method", "pm_card_visa"), ("confirm", "true")]);
    let r = psp.handle(req.clone()).await;
    assert_eq!(r.response().unwrap().status, 200);
    let r2 = psp.handle(req).await;
    assert_eq!(r2.response().unwrap().header("idempotent-replayed"), Some("true"));
    assert_eq!(r.response().unwrap().body, r2.response().unwrap().body);
    let mut big = mock_psp::PspRequest::post(PI, SK_A, Some("big"), &[("amount", "1"), ("currency", "usd")]);
    big.body = bytes::Bytes::from(vec![b'a'; 1024 * 1024]);
    assert_eq!(psp.handle(big).await.response().unwrap().status, 413);
}
