//! Shared by the in-process tests: a register request as the mock PSP's service sees it.

use mock_psp::PspRequest;
use paydesk_register::transport::{HttpRequest, Method};

/// What the mock PSP would get over HTTP for `req`, authenticated with `key`.
pub fn to_request(req: &HttpRequest, key: &str) -> PspRequest {
    let (path, query) = req.path.split_once('?').map(|(p, q)| (p.to_string(), q.to_string())).unwrap_or((req.path.clone(), String::new()));
    let mut headers = vec![("authorization".to_string(), format!("Bearer {key}"))];
    if let Some(k) = &req.idempotency_key {
        headers.push(("idempotency-key".into(), k.clone()));
    }
    let body = match req.method {
        Method::Post => {
            headers.push(("content-type".into(), "application/x-www-form-urlencoded".into()));
            req.encoded_body()
        }
        Method::Get => String::new(),
    };
    PspRequest {
        method: if req.method == Method::Post { "POST" } else { "GET" }.into(),
        path,
        query,
        headers,
        body: body.into_bytes().into(),
    }
}

/// Every POST's (path, idempotency key), in order.
pub type Posts = std::sync::Arc<std::sync::Mutex<Vec<(String, String)>>>;

/// The register's transport for in-process tests: calls the mock PSP's service directly
/// (no socket) and turns its faults into what a socket would show.
pub struct InProcess {
    pub psp: mock_psp::MockPsp,
    /// The register's clock: a dropped request costs the attempt's timeout on it.
    pub clock: std::sync::Arc<paydesk_register::clock::VirtualClock>,
    pub key: &'static str,
    /// When set, every POST's (path, idempotency key), so tests can count what was sent.
    pub posts: Option<Posts>,
    /// A dropped response is followed by the PSP going offline (the cable pulled right
    /// after the request got through).
    pub pull_cable_after_lost_answer: bool,
}

impl InProcess {
    pub fn new(psp: &mock_psp::MockPsp, clock: &std::sync::Arc<paydesk_register::clock::VirtualClock>, key: &'static str) -> InProcess {
        InProcess { psp: psp.clone(), clock: clock.clone(), key, posts: None, pull_cable_after_lost_answer: false }
    }
}

impl paydesk_register::transport::Transport for InProcess {
    fn send(
        &self,
        req: HttpRequest,
    ) -> paydesk_register::clock::BoxFuture<'static, Result<paydesk_register::transport::HttpResponse, paydesk_register::transport::TransportError>> {
        use mock_psp::Outcome;
        use paydesk_register::transport::{HttpResponse, TransportError};
        if let (Some(posts), Method::Post) = (&self.posts, req.method) {
            posts.lock().unwrap().push((req.path.clone(), req.idempotency_key.clone().unwrap_or_default()));
        }
        let (psp, clock, pull, psp_req) = (self.psp.clone(), self.clock.clone(), self.pull_cable_after_lost_answer, to_request(&req, self.key));
        Box::pin(async move {
            match psp.handle(psp_req).await {
                Outcome::Respond(resp) => Ok(HttpResponse {
                    status: resp.status,
                    headers: resp.headers.iter().map(|(k, v)| (k.to_ascii_lowercase(), v.clone())).collect(),
                    body: resp.body.to_vec(),
                }),
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
