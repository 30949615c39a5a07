//! Stripe's error envelope (`{"error": {"type", "code", "message", "param", …}}`) and
//! the builders every operation uses for it, so that each kind of failure is worded and
//! typed the same way wherever it arises.
use super::PspResponse;
use crate::store::StoreError;
use serde_json::{json, Value};

/// One error answer: status, Stripe's error `type` and `code`, a message for people,
/// the parameter at fault, and extra fields (a decline's `decline_code`, …).
#[derive(Debug)]
pub(crate) struct ApiError {
    pub(crate) status: u16,
    pub(crate) typ: &'static str,
    pub(crate) code: Option<String>,
    pub(crate) message: String,
    pub(crate) param: Option<String>,
    pub(crate) extra: Vec<(&'static str, Value)>,
}

impl ApiError {
    pub(crate) fn body(&self) -> Value {
        let mut e = serde_json::Map::new();
        e.insert("type".into(), json!(self.typ));
        e.insert("code".into(), json!(self.code));
        e.insert("message".into(), json!(self.message));
        e.insert("param".into(), json!(self.param));
        for (k, v) in &self.extra {
            e.insert((*k).into(), v.clone());
        }
        json!({ "error": e })
    }
    pub(crate) fn response(&self) -> PspResponse {
        PspResponse::new(self.status, serde_json::to_vec(&self.body()).unwrap())
    }
    /// The same error with another HTTP status (401, 413: Stripe keeps the type).
    pub(crate) fn with_status(mut self, status: u16) -> ApiError {
        self.status = status;
        self
    }
}

/// A 400 `invalid_request_error` with its `code`.
pub(crate) fn invalid(code: &str, message: impl Into<String>, param: Option<&str>) -> ApiError {
    ApiError {
        status: 400,
        typ: "invalid_request_error",
        code: Some(code.into()),
        message: message.into(),
        param: param.map(Into::into),
        extra: vec![],
    }
}

/// A 404 `resource_missing` for an object of `kind` (`payment_intent`, `refund`, …).
pub(crate) fn missing(kind: &str, id: &str, param: Option<&str>) -> ApiError {
    ApiError {
        status: 404,
        typ: "invalid_request_error",
        code: Some("resource_missing".into()),
        message: format!("No such {kind}: '{id}'"),
        param: param.map(Into::into),
        extra: vec![],
    }
}

pub(crate) fn not_found_url(method: &str, path: &[&str]) -> ApiError {
    ApiError {
        status: 404,
        typ: "invalid_request_error",
        code: None,
        message: format!("Unrecognized request URL ({method}: /{}).", truncate(&path.join("/"), 200)),
        param: None,
        extra: vec![],
    }
}

pub(crate) fn method_not_allowed(method: &str) -> ApiError {
    ApiError { status: 405, typ: "invalid_request_error", code: None, message: format!("Method {} not allowed", truncate(method, 20)), param: None, extra: vec![] }
}

/// A 503 or 429: the request was not executed and may be retried.
pub(crate) fn transient(status: u16) -> ApiError {
    let (typ, code, msg) = if status == 503 {
        ("api_error", "service_unavailable", "The service is temporarily unavailable. Please retry.")
    } else {
        ("invalid_request_error", "rate_limit", "Too many requests hit the API too quickly. Please retry.")
    };
    ApiError { status, typ, code: Some(code.into()), message: msg.into(), param: None, extra: vec![] }
}

/// The injected internal-error fault: execution began and failed.
pub(crate) fn injected_failure() -> ApiError {
    ApiError { status: 500, typ: "api_error", code: Some("internal_error".into()), message: "An unknown error occurred while processing this request (injected).".into(), param: None, extra: vec![] }
}

/// A 409: the key's first request is still executing.
pub(crate) fn key_in_use(key: &str) -> ApiError {
    ApiError { status: 409, typ: "idempotency_error", code: Some("idempotency_key_in_use".into()), message: format!("There is currently another in-progress request using this Idempotent Key (that probably means you submitted twice, and the other request is still going through): {}. Please try again later.", key), param: None, extra: vec![] }
}

/// A 400: the key was first used with another request (`param`: the first difference).
pub(crate) fn key_reused(key: &str, what: &str, param: Option<String>) -> ApiError {
    ApiError {
        status: 400,
        typ: "idempotency_error",
        code: Some("idempotency_key_reused".into()),
        message: format!("Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '{}' if you meant to execute a different request. First difference: {what}.", truncate(key, 255)),
        param,
        extra: vec![],
    }
}

pub(crate) fn internal(e: StoreError) -> ApiError {
    ApiError { status: 500, typ: "api_error", code: Some("internal_error".into()), message: format!("An internal error occurred: {e}"), param: None, extra: vec![] }
}

/// An SQLite error inside an operation: a 500.
pub(crate) fn db(e: rusqlite::Error) -> ApiError {
    internal(StoreError::from(e))
}

/// The first `n` characters of `s` (what an error message quotes of client input).
pub(crate) fn truncate(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}
