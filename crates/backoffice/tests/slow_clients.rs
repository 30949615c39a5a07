//! Clients that open connections and never finish a request (slowloris: a head trickled
//! in, or a body that never ends) hold a connection each until its deadline, never a
//! request permit or a database connection: the registers' sync, the dashboard and
//! `/healthz` keep answering in their normal time while 400 of them are open, and the
//! server closes them at their deadlines (record 0039).
use crate::support;
use paydesk_backoffice::server::conns::HttpLimits;
use paydesk_backoffice::state::Limits;
use paydesk_sync_proto::{Batch, Fact, PaymentState, RegisterHealth, Row, PROTOCOL_VERSION};
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};
use support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const SLOW_BODIES: usize = 300;
const SLOW_HEADS: usize = 100;
/// What a request on an idle loopback back office takes, with a wide margin for a
/// loaded 2-core machine; a request queued behind the slow clients would wait for their
/// deadlines (30 s here) or be refused.
const NORMAL: Duration = Duration::from_secs(3);

fn sale(key: &str, at_ms: i64) -> Vec<Row> {
    vec![
        Row { at_ms, fact: Fact::PaymentCreated { checkout_key: key.into(), amount: 500, currency: "usd".into() } },
        Row { at_ms, fact: Fact::PaymentState { checkout_key: key.into(), state: PaymentState::Authorizing, psp_id: None } },
        Row { at_ms, fact: Fact::PaymentState { checkout_key: key.into(), state: PaymentState::Captured, psp_id: Some(format!("pi_{key}")) } },
    ]
}

/// A connection whose request head never ends, sent in two pieces.
async fn slow_head(addr: std::net::SocketAddr) -> TcpStream {
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(b"POST /v1/sync/batches HTTP/1.1\r\nHost: x\r\n").await.unwrap();
    s.write_all(b"Content-Type: application/json\r\n").await.unwrap();
    s
}

/// A connection whose head is complete and whose body never is.
async fn slow_body(addr: std::net::SocketAddr) -> TcpStream {
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(b"POST /v1/sync/batches HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer x\r\nIdempotency-Key: k\r\nContent-Length: 100000\r\n\r\n{\"v\":1,")
        .await
        .unwrap();
    s
}

/// Waits (bounded) until `cond` holds; the server's connection count has no event to wait on.
async fn until(what: &str, limit: Duration, mut cond: impl FnMut() -> bool) {
    let end = Instant::now() + limit;
    while !cond() {
        assert!(Instant::now() < end, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn sync_dashboard_and_health_keep_answering_while_400_slow_clients_hold_connections() {
    let http = HttpLimits { header_timeout: Duration::from_secs(30), body_timeout: Duration::from_secs(30), ..HttpLimits::default() };
    let h = Harness::with_limits(Limits { http, ..Limits::default() }).await;
    let (_store, reg) = h.store_with_register("Main St").await;
    let addr = h.running.addr;
    let mut slow = Vec::new();
    for _ in 0..SLOW_BODIES {
        slow.push(slow_body(addr).await);
    }
    for _ in 0..SLOW_HEADS {
        slow.push(slow_head(addr).await);
    }
    let conns = h.running.connections.clone();
    until("every slow connection to be admitted", Duration::from_secs(20), || conns.open() >= SLOW_BODIES + SLOW_HEADS).await;

    let client = reqwest::Client::new();
    let now = paydesk_backoffice::state::now_ms();
    for round in 0..5u64 {
        let t = Instant::now();
        let b = Batch {
            v: PROTOCOL_VERSION,
            register_id: reg.paired.register_id.clone(),
            first_seq: 1 + round * 3,
            rows: sale(&format!("k{round}"), now),
            health: RegisterHealth { app_version: "0.1.0".into(), queued: 0, offline_waiting: 0, audit: None },
        };
        let ack = reg.send(&b, &format!("round-{round}")).await.unwrap_or_else(|e| panic!("round {round}: sync refused: {e}"));
        assert_eq!(ack.acked_through, 3 + round * 3);
        assert!(t.elapsed() < NORMAL, "sync took {:?}", t.elapsed());

        let t = Instant::now();
        let d = h.owner.get("/admin/dashboard").await.unwrap_or_else(|e| panic!("round {round}: dashboard: {e}"));
        assert!(d["registers"].is_array());
        assert!(t.elapsed() < NORMAL, "dashboard took {:?}", t.elapsed());

        let t = Instant::now();
        let r = client.get(format!("{}/healthz", h.url)).send().await.unwrap();
        assert_eq!(r.status(), 200);
        assert!(t.elapsed() < NORMAL, "health took {:?}", t.elapsed());
    }
    // the slow clients were still there the whole time
    assert!(conns.open() >= SLOW_BODIES + SLOW_HEADS, "{} open", conns.open());
    assert_eq!(conns.stats.header_timeouts.load(Relaxed) + conns.stats.body_timeouts.load(Relaxed), 0);
    drop(slow);
}

#[tokio::test]
async fn slow_clients_are_closed_at_their_deadlines() {
    let ms = Duration::from_millis(800);
    let http = HttpLimits { header_timeout: ms, body_timeout: ms, idle_timeout: ms, ..HttpLimits::default() };
    let h = Harness::with_limits(Limits { http, ..Limits::default() }).await;
    let addr = h.running.addr;
    let mut heads = Vec::new();
    let mut bodies = Vec::new();
    for _ in 0..50 {
        heads.push(slow_head(addr).await);
        bodies.push(slow_body(addr).await);
    }
    // each is closed by the server: a head never finished without an answer, a body
    // never finished with a 408
    let read_all = |mut s: TcpStream| async move {
        let mut out = Vec::new();
        tokio::time::timeout(Duration::from_secs(20), s.read_to_end(&mut out)).await.expect("the server closes it").ok();
        String::from_utf8_lossy(&out).into_owned()
    };
    for s in heads {
        assert_eq!(read_all(s).await, "");
    }
    for s in bodies {
        let answer = read_all(s).await;
        assert!(answer.starts_with("HTTP/1.1 408") && answer.contains("request_timeout"), "{answer}");
    }
    let stats = &h.running.connections.stats;
    assert_eq!((stats.header_timeouts.load(Relaxed), stats.body_timeouts.load(Relaxed)), (50, 50));
    let conns = h.running.connections.clone();
    until("the closed connections to leave the count", Duration::from_secs(10), || conns.open() == 0).await;
    // and a kept-alive connection idle past its timeout after an answer is closed too
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n").await.unwrap();
    let answer = read_all(s).await;
    assert!(answer.starts_with("HTTP/1.1 200") && answer.ends_with("ok"), "{answer}");
    assert_eq!(stats.idle_timeouts.load(Relaxed), 1);
}
