//! The register's transport for in-process tests: it calls the mock PSP's service
//! directly (no socket, virtual time) and turns the PSP's faults into what a socket
//! would show the register.

use mock_psp::{MockPsp, Outcome};
use paydesk_register::clock::{BoxFuture, VirtualClock};
use paydesk_register::transport::{HttpRequest, HttpResponse, Method, Transport, TransportError};
use paydesk_sim::world::{http_response, psp_request};
use parking_lot::Mutex;
use std::sync::Arc;
use std::time::Duration;

/// Every POST's (path, idempotency key), in order.
pub type Posts = Arc<Mutex<Vec<(String, String)>>>;

pub struct InProcess {
    pub psp: MockPsp,
    /// The register's clock: a dropped request costs the attempt's timeout on it.
    pub clock: Arc<VirtualClock>,
    pub key: &'static str,
    /// When set, every POST's (path, idempotency key), so tests can count what was sent.
    pub posts: Option<Posts>,
    /// A dropped response is followed by the PSP going offline (the cable pulled right
    /// after the request got through).
    pub pull_cable_after_lost_answer: bool,
}

impl InProcess {
    pub fn new(psp: &MockPsp, clock: &Arc<VirtualClock>, key: &'static str) -> InProcess {
        InProcess { psp: psp.clone(), clock: clock.clone(), key, posts: None, pull_cable_after_lost_answer: false }
    }
}

impl Transport for InProcess {
    fn send(&self, req: HttpRequest) -> BoxFuture<'static, Result<HttpResponse, TransportError>> {
        if let (Some(posts), Method::Post) = (&self.posts, req.method) {
            posts.lock().push((req.path.clone(), req.idempotency_key.clone().unwrap_or_default()));
        }
        let psp_req = psp_request(&req, self.key, req.idempotency_key.as_deref());
        let (psp, clock, pull) = (self.psp.clone(), self.clock.clone(), self.pull_cable_after_lost_answer);
        Box::pin(async move {
            match psp.handle(psp_req).await {
                Outcome::Respond(resp) => Ok(http_response(&resp)),
                Outcome::DropRequest => {
                    paydesk_register::Clock::sleep(&*clock, req.timeout).await;
                    Err(TransportError::Timeout)
                }
                Outcome::DropResponse(_) => {
                    if pull {
                        psp.set_offline(true, None);
                    }
                    Err(TransportError::Reset("connection closed without an answer".into()))
                }
                Outcome::Offline => Err(TransportError::ConnectRefused("offline".into())),
            }
        })
    }
}

/// One request straight to the PSP's service as the merchant (`key`): its status,
/// whether it was replayed, and its JSON body. Panics if the PSP gives no answer.
pub async fn call(psp: &MockPsp, key: &str, method: Method, path: &str, idempotency_key: Option<&str>) -> (u16, bool, Vec<u8>) {
    let req = HttpRequest {
        method,
        path: path.into(),
        form: vec![],
        idempotency_key: idempotency_key.map(str::to_string),
        timeout: Duration::from_secs(5),
    };
    match psp.handle(psp_request(&req, key, req.idempotency_key.as_deref())).await {
        Outcome::Respond(r) => (r.status, r.header("idempotent-replayed") == Some("true"), r.body.to_vec()),
        _ => panic!("no answer for {path}"),
    }
}

/// A GET to the PSP's service as the merchant: its JSON body, the status asserted 200.
pub async fn get_json(psp: &MockPsp, key: &str, path: &str) -> serde_json::Value {
    let (status, _, body) = call(psp, key, Method::Get, path, None).await;
    assert_eq!(status, 200, "{path}: {}", String::from_utf8_lossy(&body));
    serde_json::from_slice(&body).expect("the PSP answers JSON")
}

/// Moves the register's virtual clock and the PSP's manual clock together.
pub fn advance_both(clock: &VirtualClock, psp: &MockPsp, d: Duration) {
    clock.advance(d);
    assert!(psp.advance_clock(d), "the PSP's clock is not a manual clock");
}
