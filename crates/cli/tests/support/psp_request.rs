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
