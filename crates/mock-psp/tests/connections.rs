//! Careless and hostile clients at the socket level: connections that never finish a
//! request (slowloris), oversized request heads, idle kept-alive connections, and a
//! full house of executing requests. Real sockets on loopback; every wait is on a
//! socket closing or a counter, with a deadline only to fail instead of hanging.
use crate::common;
use common::*;
use mock_psp::{Fault, MockPsp};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const PI: &str = "/v1/payment_intents";

/// Waits until the server closes `s` (EOF or reset), reading and discarding what it
/// sends; returns what it sent. Fails after `within`.
async fn closed_by_server(s: &mut TcpStream, within: Duration) -> Vec<u8> {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let deadline = Instant::now() + within;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, s.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return got,
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
            Err(_) => panic!("the server did not close the connection within {within:?} (it sent {:?})", String::from_utf8_lossy(&got)),
        }
    }
}

/// 300 connections that send half a request head and stop, against a cap of 32: a
/// normal client is still served promptly (the idlest half-open ones make room), every
/// half-open connection is closed (those not evicted when their header timeout ends),
/// and the server counts what it did.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn half_open_connections_do_not_starve_a_normal_client_and_are_closed() {
    let header_timeout = Duration::from_millis(1500);
    let p = start(MockPsp::builder().max_connections(32).header_timeout(header_timeout)).await;
    let addr = p.server.local_addr();
    let mut half_open = Vec::new();
    for _ in 0..300 {
        let mut s = TcpStream::connect(addr).await.unwrap();
        s.write_all(b"POST /v1/payment_intents HTTP/1.1\r\nHost: psp\r\nX-Slow: ").await.unwrap();
        half_open.push(s);
    }
    // A normal client with a short timeout of its own is served.
    let quick = reqwest::Client::builder().timeout(Duration::from_secs(5)).build().unwrap();
    let t0 = Instant::now();
    let r = into(quick.post(format!("{}{PI}", p.url)).bearer_auth(SK_A).header("Idempotency-Key", "normal").form(&[("amount", "500"), ("currency", "usd"), ("payment_method", "pm_card_visa"), ("confirm", "true")]).send().await.expect("the normal client was not served")).await;
    assert_eq!(r.status, 200, "{:?}", r.json());
    assert!(t0.elapsed() < Duration::from_secs(5));
    // Every half-open connection is closed by the server.
    for s in half_open.iter_mut() {
        closed_by_server(s, header_timeout * 10).await;
    }
    let http = p.stats().await["http"].clone();
    let (evicted, timeouts) = (http["evicted"].as_u64().unwrap(), http["header_timeouts"].as_u64().unwrap());
    assert!(evicted >= 300 - 32, "{http}");
    assert_eq!(evicted + timeouts, 300, "each half-open one was evicted or timed out, and nothing else: {http}");
    assert_eq!(http["refused"], 0, "{http}");
    // A connection leaves the count when its task ends, just after its socket closed.
    let t0 = Instant::now();
    while p.server.psp().stats()["http"]["open"].as_u64().unwrap() > 2 {
        assert!(t0.elapsed() < Duration::from_secs(20), "still open besides the normal client's and the stats request's: {}", p.server.psp().stats()["http"]);
        tokio::task::yield_now().await;
    }
}

/// With no cap pressure, a connection that never completes its request head is closed
/// once the header timeout has passed, not before the server decides so itself.
#[tokio::test]
async fn a_silent_connection_is_closed_after_the_header_timeout() {
    let p = start(MockPsp::builder().header_timeout(Duration::from_millis(300))).await;
    let t0 = Instant::now();
    let mut s = TcpStream::connect(p.server.local_addr()).await.unwrap();
    s.write_all(b"GET /v1/events HTTP/1.1\r\n").await.unwrap();
    closed_by_server(&mut s, Duration::from_secs(20)).await;
    assert!(t0.elapsed() >= Duration::from_millis(300), "closed after {:?}, before the timeout", t0.elapsed());
    assert_eq!(p.stats().await["http"]["header_timeouts"], 1);
}

/// A request head larger than the bound is answered 431 and the connection closed:
/// memory per connection is bounded, however much a client sends without a blank line.
#[tokio::test]
async fn an_oversized_request_head_gets_431_and_is_closed() {
    let p = start_default().await;
    let mut conns = Vec::new();
    for _ in 0..20 {
        let mut s = TcpStream::connect(p.server.local_addr()).await.unwrap();
        s.write_all(b"GET /v1/events HTTP/1.1\r\nHost: psp\r\nX-Big: ").await.unwrap();
        // 64 KiB of one header value, never ended. (The write may fail once the server
        // has answered and closed: that is the point.)
        let _ = s.write_all(&vec![b'a'; 64 * 1024]).await;
        conns.push(s);
    }
    for s in conns.iter_mut() {
        let got = closed_by_server(s, Duration::from_secs(20)).await;
        let text = String::from_utf8_lossy(&got);
        assert!(got.is_empty() || text.starts_with("HTTP/1.1 431"), "{text}");
    }
    // Many headers: also 431.
    let mut s = TcpStream::connect(p.server.local_addr()).await.unwrap();
    let mut req = b"GET /v1/events HTTP/1.1\r\nHost: psp\r\n".to_vec();
    for i in 0..100 {
        req.extend_from_slice(format!("X-H{i}: v\r\n").as_bytes());
    }
    req.extend_from_slice(b"\r\n");
    s.write_all(&req).await.unwrap();
    let got = closed_by_server(&mut s, Duration::from_secs(20)).await;
    assert!(String::from_utf8_lossy(&got).starts_with("HTTP/1.1 431"), "{}", String::from_utf8_lossy(&got));
    // And the server still serves.
    assert_eq!(p.get(SK_A, "/v1/events").await.status, 200);
}

/// A kept-alive connection that sits idle after its answer is closed after the idle
/// timeout (the header timeout is longer here, so it is the idle one that applies).
#[tokio::test]
async fn an_idle_kept_alive_connection_is_closed_after_the_idle_timeout() {
    let p = start(MockPsp::builder().header_timeout(Duration::from_secs(60)).idle_timeout(Duration::from_millis(300))).await;
    let mut s = TcpStream::connect(p.server.local_addr()).await.unwrap();
    let req = format!("GET /v1/events HTTP/1.1\r\nHost: psp\r\nAuthorization: Bearer {SK_A}\r\n\r\n");
    s.write_all(req.as_bytes()).await.unwrap();
    let got = closed_by_server(&mut s, Duration::from_secs(20)).await;
    let text = String::from_utf8_lossy(&got);
    assert!(text.starts_with("HTTP/1.1 200"), "answered first: {text}");
    let http = p.stats().await["http"].clone();
    assert_eq!((http["idle_timeouts"].as_u64(), http["header_timeouts"].as_u64()), (Some(1), Some(0)), "{http}");
}

/// A body that does not arrive within the header timeout of its headers gets a 408,
/// and nothing is executed.
#[tokio::test]
async fn a_body_that_never_arrives_gets_408() {
    let p = start(MockPsp::builder().header_timeout(Duration::from_millis(300))).await;
    let mut s = TcpStream::connect(p.server.local_addr()).await.unwrap();
    let req = format!("POST {PI} HTTP/1.1\r\nHost: psp\r\nAuthorization: Bearer {SK_A}\r\nIdempotency-Key: slow-body\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\namount=1");
    s.write_all(req.as_bytes()).await.unwrap();
    let got = closed_by_server(&mut s, Duration::from_secs(20)).await;
    assert!(String::from_utf8_lossy(&got).starts_with("HTTP/1.1 408"), "{}", String::from_utf8_lossy(&got));
    assert_eq!(p.stats().await["executions"], 0);
    assert_eq!(p.stats().await["http"]["body_timeouts"], 1);
}

/// When every open connection is executing a request, a new one is refused at once
/// with a 503 (nothing to evict: executing requests are never cut off).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_every_connection_executes_a_new_one_gets_503_at_once() {
    let p = start(MockPsp::builder().max_connections(2)).await;
    // Two requests that the PSP never answers keep their connections executing.
    p.server.psp().script_fault(PI, Fault::DropRequest, 2, None);
    let mut hung = Vec::new();
    for i in 0..2 {
        let mut s = TcpStream::connect(p.server.local_addr()).await.unwrap();
        let body = "amount=100&currency=usd";
        let req = format!("POST {PI} HTTP/1.1\r\nHost: psp\r\nAuthorization: Bearer {SK_A}\r\nIdempotency-Key: hung-{i}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{body}", body.len());
        s.write_all(req.as_bytes()).await.unwrap();
        hung.push(s);
    }
    // (Read in-process: an HTTP stats request would need a third connection.)
    let t0 = Instant::now();
    while p.server.psp().stats()["faults"]["drop_request"].as_u64().unwrap() < 2 {
        assert!(t0.elapsed() < Duration::from_secs(20), "the two requests never reached the PSP");
        tokio::task::yield_now().await;
    }
    let mut s = TcpStream::connect(p.server.local_addr()).await.unwrap();
    let got = closed_by_server(&mut s, Duration::from_secs(5)).await;
    let text = String::from_utf8_lossy(&got);
    assert!(text.starts_with("HTTP/1.1 503") && text.contains("server_busy"), "{text}");
    assert!(p.server.psp().stats()["http"]["refused"].as_u64().unwrap() >= 1);
    drop(hung);
}
