//! The meeting point of the register's transport and the mock PSP's service: a register
//! request as the PSP would receive it over HTTP, and the PSP's answer as the register's
//! transport would hand it back. The simulation's wire uses these; so do the register's
//! in-process tests (through `paydesk-test-kit`), so both speak to the PSP the same way.

use mock_psp::{PspRequest, PspResponse};
use paydesk_register::transport::{HttpRequest, HttpResponse, Method};

/// What the mock PSP gets over HTTP for `req`, authenticated with `secret`, carrying
/// `idempotency_key` (normally the request's own).
pub fn psp_request(req: &HttpRequest, secret: &str, idempotency_key: Option<&str>) -> PspRequest {
    let (path, query) = req.path.split_once('?').unwrap_or((req.path.as_str(), ""));
    let mut headers = vec![("authorization".to_string(), format!("Bearer {secret}"))];
    let method = match req.method {
        Method::Get => "GET",
        Method::Post => {
            headers.push(("content-type".into(), "application/x-www-form-urlencoded".into()));
            "POST"
        }
    };
    if let Some(k) = idempotency_key {
        headers.push(("idempotency-key".into(), k.to_string()));
    }
    let body = match req.method {
        Method::Post => bytes::Bytes::from(req.encoded_body()),
        Method::Get => bytes::Bytes::new(),
    };
    PspRequest { method: method.into(), path: path.into(), query: query.into(), headers, body }
}

/// The PSP's answer as the register's transport returns it (header names lower-cased).
pub fn http_response(r: &PspResponse) -> HttpResponse {
    HttpResponse {
        status: r.status,
        headers: r.headers.iter().map(|(k, v)| (k.to_ascii_lowercase(), v.clone())).collect(),
        body: r.body.to_vec(),
    }
}
