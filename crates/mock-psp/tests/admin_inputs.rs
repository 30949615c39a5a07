//! Admin inputs are validated and bounded: an out-of-range duration or clock move is a
//! clear 400 and changes nothing, and the server keeps serving afterwards (an overflow
//! once panicked while holding a lock, and every later request panicked on it).
use crate::common;
use common::*;
use std::time::Duration;

const PI: &str = "/v1/payment_intents";

/// The server still answers a GET and executes a POST (a POST reads the clock for
/// its key's retention and lock).
async fn still_serves(p: &Psp, key: &str) {
    let r = p.get(SK_A, "/v1/events").await;
    assert_eq!(r.status, 200, "{:?}", r.json());
    let r = p.create_pi(SK_A, key, "1999", "pm_card_visa", &[]).await;
    assert_eq!(r.status, 200, "{:?}", r.json());
    let again = p.create_pi(SK_A, key, "1999", "pm_card_visa", &[]).await;
    assert!(again.replayed(), "the key is remembered: {:?}", again.json());
}

fn assert_400(r: &Resp, code: &str, param: &str, says: &str) {
    assert_eq!(r.status, 400, "{:?}", r.json());
    assert_eq!(r.err_code(), code, "{:?}", r.json());
    assert_eq!(r.json()["error"]["param"], param, "{:?}", r.json());
    let msg = r.json()["error"]["message"].as_str().unwrap().to_string();
    assert!(msg.contains(says), "{msg:?} should say {says:?}");
}

#[tokio::test]
async fn offline_duration_out_of_range_is_refused_and_nothing_changes() {
    let p = start_default().await;
    let max = i64::MAX.to_string();
    let r = p.admin_post("/__admin/offline", &[("duration_ms", &max)]).await;
    assert_400(&r, "parameter_invalid_integer", "duration_ms", "between 1 and 2592000000");
    assert!(!p.server.psp().is_offline(), "a refused call sets nothing");
    for (params, code, param) in [
        (vec![("duration_ms", "0")], "parameter_invalid_integer", "duration_ms"),
        (vec![("duration_ms", "-5")], "parameter_invalid_integer", "duration_ms"),
        (vec![("duration_ms", "99999999999999999999999")], "parameter_invalid_integer", "duration_ms"),
        (vec![("on", "maybe")], "parameter_invalid_boolean", "on"),
        (vec![("on", "false"), ("duration_ms", "10")], "parameter_invalid_string", "duration_ms"),
        (vec![("on", "true"), ("forever", "1")], "parameter_unknown", "forever"),
        (vec![("on", "true"), ("on", "false")], "parameter_duplicate", "on"),
    ] {
        let r = p.admin_post("/__admin/offline", &params).await;
        assert_eq!((r.status, r.err_code(), r.json()["error"]["param"].as_str().unwrap_or("").to_string()), (400, code.to_string(), param.to_string()), "{params:?}: {:?}", r.json());
    }
    assert!(!p.server.psp().is_offline());
    still_serves(&p, "after-offline").await;
    // The largest accepted duration works and can be turned off again.
    let r = p.admin_post("/__admin/offline", &[("duration_ms", "2592000000")]).await;
    assert_eq!((r.status, r.json()["offline"].as_bool()), (200, Some(true)));
    let r = p.admin_post("/__admin/offline", &[("on", "false")]).await;
    assert_eq!((r.status, r.json()["offline"].as_bool()), (200, Some(false)));
    still_serves(&p, "after-offline-2").await;
}

#[tokio::test]
async fn clock_advance_out_of_range_is_refused_and_time_does_not_move() {
    let p = start_default().await;
    let before = p.server.psp().clock().now_ms();
    let max = i64::MAX.to_string();
    let umax = u64::MAX.to_string();
    for (params, code, param) in [
        (vec![("ms", max.as_str())], "parameter_invalid_integer", "ms"),
        (vec![("seconds", umax.as_str())], "parameter_invalid_integer", "seconds"),
        (vec![("seconds", "315360001")], "parameter_invalid_integer", "seconds"),
        (vec![("ms", "0")], "parameter_invalid_integer", "ms"),
        (vec![("ms", "1.5")], "parameter_invalid_integer", "ms"),
        (vec![("ms", "10"), ("seconds", "1")], "parameter_invalid_string", "seconds"),
        (vec![], "parameter_missing", "ms"),
    ] {
        let r = p.admin_post("/__admin/clock/advance", &params).await;
        assert_eq!((r.status, r.err_code(), r.json()["error"]["param"].as_str().unwrap_or("").to_string()), (400, code.to_string(), param.to_string()), "{params:?}: {:?}", r.json());
    }
    let r = p.admin_post("/__admin/clock/advance", &[("ms", &max)]).await;
    assert_400(&r, "parameter_invalid_integer", "ms", "between 1 and 315360000000");
    let now = p.server.psp().clock().now_ms();
    assert!(now - before < 60_000, "the clock did not jump: {before} -> {now}");
    still_serves(&p, "after-advance").await;
    // In range: moves, and POSTs still work.
    let r = p.admin_post("/__admin/clock/advance", &[("seconds", "90000")]).await;
    assert_eq!(r.status, 200, "{:?}", r.json());
    assert!(r.json()["now_ms"].as_i64().unwrap() >= before + 90_000_000);
    still_serves(&p, "after-advance-2").await;
}

#[tokio::test]
async fn fault_and_script_inputs_are_bounded() {
    let p = start_default().await;
    for (path, params, param) in [
        ("/__admin/faults", vec![("slow_ms", "18446744073709551615")], "slow_ms"),
        ("/__admin/faults", vec![("slow_ms", "3600001")], "slow_ms"),
        ("/__admin/faults", vec![("search_lag_ms", "86400001")], "search_lag_ms"),
        ("/__admin/faults", vec![("drop_request", "NaN")], "drop_request"),
        ("/__admin/faults/script", vec![("fault", "slow"), ("count", "0")], "count"),
        ("/__admin/faults/script", vec![("fault", "slow"), ("count", "4294967296")], "count"),
        ("/__admin/faults/script", vec![("fault", "slow"), ("slow_ms", "99999999999")], "slow_ms"),
        ("/__admin/faults/script", vec![("fault", "slow"), ("path", "v1/x")], "path"),
    ] {
        let r = p.admin_post(path, &params).await;
        assert_eq!((r.status, r.json()["error"]["param"].as_str().unwrap_or("").to_string()), (400, param.to_string()), "{path} {params:?}: {:?}", r.json());
    }
    let r = into(p.client.get(format!("{}/__admin/faults", p.url)).send().await.unwrap()).await;
    assert_eq!(r.json()["script"], serde_json::json!([]), "no refused script was stored");
    assert_eq!(r.json()["config"]["slow_ms"], mock_psp::FaultConfig::none().slow_ms);
    still_serves(&p, "after-faults").await;
}

/// The library calls saturate instead of overflowing: a huge offline duration is
/// "offline until the end of time" and a huge clock move is refused.
#[tokio::test]
async fn library_offline_and_clock_saturate() {
    let p = start_default().await;
    let psp = p.server.psp().clone();
    psp.set_offline(true, Some(Duration::MAX));
    assert!(psp.is_offline());
    psp.set_offline(false, None);
    assert!(!psp.advance_clock(Duration::MAX), "moving the clock past year 9999 is refused");
    assert!(!psp.advance_clock(Duration::from_millis(i64::MAX as u64)));
    let clock = mock_psp::ManualClock::new(0);
    use mock_psp::Clock;
    assert!(!clock.advance(Duration::MAX));
    assert_eq!(clock.now_ms(), 0);
    assert!(clock.advance(Duration::from_secs(1)));
    assert_eq!(clock.now_ms(), 1000);
    still_serves(&p, "after-library").await;
    let r = p.post(SK_A, PI, Some("after-library"), &[("amount", "1999"), ("currency", "usd"), ("payment_method", "pm_card_visa"), ("confirm", "true")]).await;
    assert!(r.replayed());
}
