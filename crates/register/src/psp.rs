//! Stripe-compatible PSP client: request builders (form encoding with bracket
//! metadata), response types, and the outcome classification of design §3.5.

use crate::attempt::AttemptKind;
use crate::transport::{HttpRequest, HttpResponse, Method, SharedTransport, TransportError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Duration;

// ---------------------------------------------------------------- wire types

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct PaymentIntent {
    pub id: String,
    #[serde(default)]
    pub amount: i64,
    #[serde(default)]
    pub amount_received: Option<i64>,
    #[serde(default)]
    pub currency: String,
    #[serde(default)]
    pub status: String,
    #[serde(default)]
    pub capture_method: Option<String>,
    #[serde(default)]
    pub metadata: BTreeMap<String, String>,
    #[serde(default)]
    pub created: Option<i64>,
    #[serde(default)]
    pub last_payment_error: Option<StripeError>,
}

/// PaymentIntent status as the register sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PiStatus {
    /// Money taken (automatic capture, or captured).
    Succeeded,
    /// Authorized, waiting for capture (manual capture).
    RequiresCapture,
    Canceled,
    /// Declined / failed: requires another payment method.
    Failed,
    /// Still processing or something unexpected.
    Other,
}

impl PaymentIntent {
    pub fn pi_status(&self) -> PiStatus {
        match self.status.as_str() {
            "succeeded" => PiStatus::Succeeded,
            "requires_capture" => PiStatus::RequiresCapture,
            "canceled" => PiStatus::Canceled,
            "requires_payment_method" => PiStatus::Failed,
            _ => PiStatus::Other,
        }
    }
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct Refund {
    pub id: String,
    #[serde(default)]
    pub amount: i64,
    #[serde(default)]
    pub currency: String,
    #[serde(default)]
    pub payment_intent: Option<String>,
    #[serde(default)]
    pub status: String,
    #[serde(default)]
    pub metadata: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct Event {
    pub id: String,
    #[serde(rename = "type")]
    pub event_type: String,
    #[serde(default)]
    pub created: i64,
    #[serde(default)]
    pub data: EventData,
    #[serde(default)]
    pub request: Option<EventRequest>,
}

/// `request` of an event: the idempotency key of the API request that caused it.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
pub struct EventRequest {
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub idempotency_key: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
pub struct EventData {
    #[serde(default)]
    pub object: serde_json::Value,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct List<T> {
    #[serde(default = "Vec::new")]
    pub data: Vec<T>,
    #[serde(default)]
    pub has_more: bool,
    #[serde(default)]
    pub next_page: Option<String>,
}

/// Stripe's error envelope body `{"error": {...}}`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
pub struct StripeError {
    #[serde(rename = "type", default)]
    pub error_type: Option<String>,
    #[serde(default)]
    pub code: Option<String>,
    #[serde(default)]
    pub decline_code: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default)]
    pub param: Option<String>,
    #[serde(default)]
    pub payment_intent: Option<Box<PaymentIntent>>,
}

#[derive(Debug, Deserialize)]
struct Envelope {
    error: StripeError,
}

pub fn parse_error(body: &[u8]) -> StripeError {
    serde_json::from_slice::<Envelope>(body).map(|e| e.error).unwrap_or_else(|_| StripeError {
        message: Some(String::from_utf8_lossy(body).chars().take(300).collect()),
        ..Default::default()
    })
}

// ---------------------------------------------------------------- classification

/// Why an attempt may be retried with the same key (design §3.5).
#[derive(Debug, Clone, PartialEq)]
pub enum RetryReason {
    Transport(TransportError),
    /// 409 `idempotency_key_in_use`: the first request is still executing.
    InProgress,
    /// 429
    RateLimited,
    /// 502 / 503 / 504
    Unavailable(u16),
}

impl RetryReason {
    pub fn kind(&self) -> AttemptKind {
        match self {
            RetryReason::Transport(TransportError::ConnectRefused(_)) => AttemptKind::ConnectionRefused,
            RetryReason::Transport(TransportError::ConnectTimeout) => AttemptKind::ConnectTimeout,
            RetryReason::Transport(TransportError::Timeout) => AttemptKind::Timeout,
            RetryReason::Transport(TransportError::Reset(_)) => AttemptKind::ConnectionLost,
            RetryReason::Transport(TransportError::TooLarge(_)) => AttemptKind::AnswerTooLarge,
            RetryReason::Transport(TransportError::Other(_)) => AttemptKind::TransportError,
            RetryReason::InProgress => AttemptKind::InProgress,
            RetryReason::RateLimited => AttemptKind::RateLimited,
            RetryReason::Unavailable(_) => AttemptKind::Unavailable,
        }
    }
    pub fn label(&self) -> &'static str {
        self.kind().label()
    }
    /// What the cashier reads.
    pub fn words(&self) -> String {
        match self {
            RetryReason::Transport(e) if e.never_sent() => {
                "cannot reach the payment processor — nothing was sent; retrying with the same key".into()
            }
            RetryReason::Transport(_) => {
                "no answer — the payment may have gone through; retrying with the same key".into()
            }
            RetryReason::InProgress => "processor still working on this payment".into(),
            RetryReason::RateLimited => "processor busy (rate limited); waiting".into(),
            RetryReason::Unavailable(s) => format!("processor temporarily unavailable ({s}); retrying"),
        }
    }
    /// No server answered at all (refused, connect timeout, reset before any
    /// answer): the PSP looks offline.
    pub fn unreachable(&self) -> bool {
        self.kind().unreachable()
    }
    /// True when this attempt certainly did not reach the PSP.
    pub fn never_sent(&self) -> bool {
        match self {
            RetryReason::Transport(e) => e.never_sent(),
            // 429/503 are answered before execution; the PSP received but did not run it.
            RetryReason::RateLimited | RetryReason::Unavailable(503) => true,
            _ => false,
        }
    }
}

/// Errors that must not be retried.
#[derive(Debug, Clone, PartialEq)]
pub enum Fatal {
    /// 400: our bug; show it.
    BadRequest(StripeError),
    /// 401 / 403: configuration (wrong key).
    Auth(StripeError),
    /// 400 idempotency_error: same key with different parameters. A bug: alarm.
    IdempotencyMismatch(StripeError),
    /// 404
    NotFound(StripeError),
    /// Transport misconfiguration (bad URL…).
    Config(String),
    /// Other unexpected status.
    Unexpected(u16, StripeError),
    /// A 2xx answer that is not JSON at all (an HTML page, plain text): the URL
    /// points at something that is not a PSP.
    NotAPsp(u16, String),
}

impl Fatal {
    pub fn kind(&self) -> AttemptKind {
        match self {
            Fatal::BadRequest(_) => AttemptKind::BadRequest,
            Fatal::Auth(_) => AttemptKind::Auth,
            Fatal::IdempotencyMismatch(_) => AttemptKind::IdempotencyError,
            Fatal::NotFound(_) => AttemptKind::NotFound,
            Fatal::Config(_) => AttemptKind::Config,
            Fatal::Unexpected(..) => AttemptKind::Unexpected,
            Fatal::NotAPsp(..) => AttemptKind::NotAPsp,
        }
    }
    /// The stable code of the error: its attempt label.
    pub fn code(&self) -> &'static str {
        self.kind().label()
    }

    /// True when this answer proves that this attempt executed nothing at any PSP
    /// (design §5: Stripe stores a result only once execution began; validation 400s,
    /// 401/403 and unknown paths are answered before). Only then may a checkout whose
    /// every attempt proves the same end `failed` ("never charged"). An idempotency
    /// error proves the opposite: the key was used before, and that use may have run.
    pub fn proves_not_executed(&self) -> bool {
        match self {
            Fatal::BadRequest(_) | Fatal::Auth(_) | Fatal::NotFound(_) | Fatal::Config(_) | Fatal::NotAPsp(..) => true,
            Fatal::IdempotencyMismatch(_) => false,
            // 1xx, 3xx (redirects are not followed) and 4xx: refused before execution.
            // Anything else (a status past 599) says nothing.
            Fatal::Unexpected(s, _) => *s < 500,
        }
    }
    pub fn message(&self) -> String {
        let m = |e: &StripeError| e.message.clone().unwrap_or_default();
        match self {
            Fatal::BadRequest(e) => format!("the PSP rejected the request: {}", m(e)),
            Fatal::Auth(e) => format!("the PSP refused the secret key (check settings): {}", m(e)),
            Fatal::IdempotencyMismatch(e) => {
                format!("idempotency mismatch — same key sent with different parameters (bug): {}", m(e))
            }
            Fatal::NotFound(e) => format!("not found at the PSP: {}", m(e)),
            Fatal::Config(s) => format!("PSP connection misconfigured: {s}"),
            Fatal::Unexpected(s, e) => format!("unexpected PSP answer {s}: {}", m(e)),
            Fatal::NotAPsp(s, start) => {
                format!("the PSP URL answered {s} with something that is not the PSP's API (it begins {start:?}); check the URL")
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Decline {
    pub code: String,
    pub message: String,
    pub payment_intent: Option<PaymentIntent>,
}

/// The classified result of one attempt.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)]
pub enum AttemptOutcome<T> {
    /// 2xx.
    Ok { value: T, replayed: bool },
    /// 402 card decline: terminal for this key.
    Declined { decline: Decline, replayed: bool },
    /// Retry with the same key.
    Retry { reason: RetryReason, retry_after: Option<Duration> },
    /// 500 (stored and replayed by the PSP): the charge may or may not exist;
    /// resolve by search, never by resending.
    Unknown { status: u16, replayed: bool, message: String },
    /// Do not retry.
    Fatal(Fatal),
}

impl<T> AttemptOutcome<T> {
    pub fn kind(&self) -> AttemptKind {
        match self {
            AttemptOutcome::Ok { replayed: true, .. } => AttemptKind::Replayed,
            AttemptOutcome::Ok { .. } => AttemptKind::Ok,
            AttemptOutcome::Declined { .. } => AttemptKind::Declined,
            AttemptOutcome::Retry { reason, .. } => reason.kind(),
            AttemptOutcome::Unknown { replayed: true, .. } => AttemptKind::ReplayedServerError,
            AttemptOutcome::Unknown { .. } => AttemptKind::ServerError,
            AttemptOutcome::Fatal(f) => f.kind(),
        }
    }
    pub fn label(&self) -> &'static str {
        self.kind().label()
    }
    pub fn words(&self) -> String {
        match self {
            AttemptOutcome::Ok { replayed: true, .. } => "already done — the processor replayed its first answer".into(),
            AttemptOutcome::Ok { .. } => "done".into(),
            AttemptOutcome::Declined { decline, .. } => format!("declined: {}", decline.message),
            AttemptOutcome::Retry { reason, .. } => reason.words(),
            AttemptOutcome::Unknown { .. } => "processor error — outcome unknown; checking by search".into(),
            AttemptOutcome::Fatal(f) => f.message(),
        }
    }
    /// This attempt certainly executed nothing at the PSP: it never reached one, or
    /// was refused before execution.
    pub fn executed_nothing(&self) -> bool {
        match self {
            AttemptOutcome::Retry { reason, .. } => reason.never_sent(),
            AttemptOutcome::Fatal(f) => f.proves_not_executed(),
            AttemptOutcome::Ok { .. } | AttemptOutcome::Declined { .. } | AttemptOutcome::Unknown { .. } => false,
        }
    }
    pub fn replayed(&self) -> bool {
        matches!(
            self,
            AttemptOutcome::Ok { replayed: true, .. }
                | AttemptOutcome::Declined { replayed: true, .. }
                | AttemptOutcome::Unknown { replayed: true, .. }
        )
    }
}

/// Parse `Retry-After` (delta-seconds; an HTTP date is ignored).
pub fn parse_retry_after(v: Option<&str>) -> Option<Duration> {
    let v = v?.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    if let Ok(secs) = v.parse::<f64>() {
        if secs.is_finite() && secs >= 0.0 {
            return Some(Duration::from_millis((secs * 1000.0) as u64));
        }
    }
    None
}

/// A body that is, or says it is, JSON: an API's answer, however unreadable.
fn looks_like_json(resp: &HttpResponse) -> bool {
    let labelled = resp.header("content-type").is_some_and(|v| v.to_ascii_lowercase().contains("json"));
    labelled || serde_json::from_slice::<serde_json::Value>(&resp.body).is_ok()
}

/// design §3.5, one table: how one attempt's result is to be handled.
///
/// An answer too large to read ([`TransportError::TooLarge`]) is an answer whose body
/// is unreadable: its status still decides (a 2xx or 500 may have executed: unknown,
/// resolved by search, never taken as "not sent"; a 409/429/503 is retried with the
/// same key; a 402 is a decline without details).
pub fn classify<T: serde::de::DeserializeOwned>(res: Result<HttpResponse, TransportError>) -> AttemptOutcome<T> {
    let (resp, too_large) = match res {
        Ok(r) => (r, false),
        Err(TransportError::TooLarge(r)) => (*r, true),
        Err(TransportError::Other(m)) => return AttemptOutcome::Fatal(Fatal::Config(m)),
        Err(e) => return AttemptOutcome::Retry { reason: RetryReason::Transport(e), retry_after: None },
    };
    let unread = || format!("the answer is larger than {} bytes and was not read", crate::transport::MAX_ANSWER_BYTES);
    let replayed = resp.header("idempotent-replayed").is_some_and(|v| v.eq_ignore_ascii_case("true"));
    let retry_after = parse_retry_after(resp.header("retry-after"));
    match resp.status {
        200..=299 if too_large => AttemptOutcome::Unknown { status: resp.status, replayed, message: unread() },
        200..=299 => match serde_json::from_slice::<T>(&resp.body) {
            Ok(value) => AttemptOutcome::Ok { value, replayed },
            // Not JSON at all and not labelled JSON: a web page, not a PSP's answer.
            Err(_) if !looks_like_json(&resp) => {
                let start: String = String::from_utf8_lossy(&resp.body).trim_start().chars().take(60).collect();
                AttemptOutcome::Fatal(Fatal::NotAPsp(resp.status, start))
            }
            // Executed, but we cannot read the answer: treat as unknown.
            Err(e) => AttemptOutcome::Unknown {
                status: resp.status,
                replayed,
                message: format!("unreadable success body: {e}"),
            },
        },
        402 => {
            let err = parse_error(&resp.body);
            let pi = err.payment_intent.clone().map(|b| *b);
            AttemptOutcome::Declined {
                decline: Decline {
                    code: err.decline_code.clone().or(err.code.clone()).unwrap_or_else(|| "card_declined".into()),
                    message: err.message.clone().unwrap_or_else(|| "The card was declined.".into()),
                    payment_intent: pi,
                },
                replayed,
            }
        }
        400 => {
            let err = parse_error(&resp.body);
            if err.error_type.as_deref() == Some("idempotency_error") {
                AttemptOutcome::Fatal(Fatal::IdempotencyMismatch(err))
            } else {
                AttemptOutcome::Fatal(Fatal::BadRequest(err))
            }
        }
        401 | 403 => AttemptOutcome::Fatal(Fatal::Auth(parse_error(&resp.body))),
        404 => AttemptOutcome::Fatal(Fatal::NotFound(parse_error(&resp.body))),
        409 => {
            let err = parse_error(&resp.body);
            if err.error_type.as_deref() == Some("idempotency_error") && err.code.as_deref() != Some("idempotency_key_in_use") {
                AttemptOutcome::Fatal(Fatal::IdempotencyMismatch(err))
            } else {
                AttemptOutcome::Retry { reason: RetryReason::InProgress, retry_after }
            }
        }
        429 => AttemptOutcome::Retry { reason: RetryReason::RateLimited, retry_after },
        502..=504 => AttemptOutcome::Retry { reason: RetryReason::Unavailable(resp.status), retry_after },
        s @ 500..=599 => AttemptOutcome::Unknown {
            status: s,
            replayed,
            message: if too_large { unread() } else { parse_error(&resp.body).message.unwrap_or_default() },
        },
        s => AttemptOutcome::Fatal(Fatal::Unexpected(s, parse_error(&resp.body))),
    }
}

// ---------------------------------------------------------------- requests

/// Parameters of a PaymentIntent create, as sent (and stored before sending).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateIntent {
    pub amount: i64,
    /// Lower-case ISO 4217.
    pub currency: String,
    pub payment_method: String,
    /// "automatic" | "manual"
    pub capture_method: String,
    pub checkout_key: String,
}

impl CreateIntent {
    /// The exact form pairs, Stripe bracket notation, stable order.
    pub fn form(&self) -> Vec<(String, String)> {
        vec![
            ("amount".into(), self.amount.to_string()),
            ("currency".into(), self.currency.clone()),
            ("payment_method".into(), self.payment_method.clone()),
            ("confirm".into(), "true".into()),
            ("capture_method".into(), self.capture_method.clone()),
            ("metadata[checkout_key]".into(), self.checkout_key.clone()),
        ]
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateRefund {
    pub payment_intent: String,
    pub amount: i64,
    pub refund_key: String,
    pub checkout_key: String,
}

impl CreateRefund {
    pub fn form(&self) -> Vec<(String, String)> {
        vec![
            ("payment_intent".into(), self.payment_intent.clone()),
            ("amount".into(), self.amount.to_string()),
            ("metadata[refund_key]".into(), self.refund_key.clone()),
            ("metadata[checkout_key]".into(), self.checkout_key.clone()),
        ]
    }
}

/// Percent-encode one query value.
fn q(v: &str) -> String {
    form_urlencoded::byte_serialize(v.as_bytes()).collect()
}

/// Builds requests and sends one attempt through the injected transport.
#[derive(Clone)]
pub struct PspClient {
    transport: SharedTransport,
    pub attempt_timeout: Duration,
}

impl PspClient {
    pub fn new(transport: SharedTransport, attempt_timeout: Duration) -> Self {
        Self { transport, attempt_timeout }
    }

    pub fn create_intent_request(&self, p: &CreateIntent, key: &str) -> HttpRequest {
        self.post("/v1/payment_intents", p.form(), key)
    }
    pub fn create_intent_request_from_form(&self, form: Vec<(String, String)>, key: &str) -> HttpRequest {
        self.post("/v1/payment_intents", form, key)
    }
    pub fn capture_request(&self, pi: &str, key: &str) -> HttpRequest {
        self.post(&format!("/v1/payment_intents/{}/capture", q(pi)), vec![], key)
    }
    pub fn cancel_request(&self, pi: &str, key: &str) -> HttpRequest {
        self.post(&format!("/v1/payment_intents/{}/cancel", q(pi)), vec![], key)
    }
    pub fn refund_request(&self, r: &CreateRefund) -> HttpRequest {
        self.post("/v1/refunds", r.form(), &r.refund_key)
    }
    pub fn get_intent_request(&self, pi: &str) -> HttpRequest {
        self.get(format!("/v1/payment_intents/{}", q(pi)))
    }
    pub fn search_by_metadata_request(&self, field: &str, value: &str) -> HttpRequest {
        let query = format!("metadata['{field}']:'{value}'");
        self.get(format!("/v1/payment_intents/search?query={}", q(&query)))
    }
    pub fn list_refunds_request(&self, pi: &str) -> HttpRequest {
        self.list_refunds_page_request(pi, None)
    }
    /// `GET /v1/refunds?payment_intent=…` (Stripe list: newest first, `starting_after`
    /// pages to older ones).
    pub fn list_refunds_page_request(&self, pi: &str, starting_after: Option<&str>) -> HttpRequest {
        let mut path = format!("/v1/refunds?payment_intent={}&limit=100", q(pi));
        if let Some(s) = starting_after {
            path.push_str(&format!("&starting_after={}", q(s)));
        }
        self.get(path)
    }
    /// `GET /v1/events` with Stripe list parameters.
    pub fn list_events_request(&self, created_gte: Option<i64>, starting_after: Option<&str>, limit: u32) -> HttpRequest {
        let mut qs = vec![format!("limit={limit}")];
        if let Some(t) = created_gte {
            qs.push(format!("{}={t}", q("created[gte]")));
        }
        if let Some(s) = starting_after {
            qs.push(format!("starting_after={}", q(s)));
        }
        self.get(format!("/v1/events?{}", qs.join("&")))
    }

    fn post(&self, path: &str, form: Vec<(String, String)>, key: &str) -> HttpRequest {
        HttpRequest {
            method: Method::Post,
            path: path.to_string(),
            form,
            idempotency_key: Some(key.to_string()),
            timeout: self.attempt_timeout,
        }
    }
    fn get(&self, path: String) -> HttpRequest {
        HttpRequest { method: Method::Get, path, form: vec![], idempotency_key: None, timeout: self.attempt_timeout }
    }

    /// Send one attempt and classify it.
    pub async fn attempt<T: serde::de::DeserializeOwned>(&self, req: HttpRequest) -> AttemptOutcome<T> {
        classify(self.transport.send(req).await)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resp(status: u16, headers: &[(&str, &str)], body: &str) -> Result<HttpResponse, TransportError> {
        Ok(HttpResponse {
            status,
            headers: headers.iter().map(|(k, v)| (k.to_ascii_lowercase(), v.to_string())).collect(),
            body: body.as_bytes().to_vec(),
        })
    }
    const PI: &str = r#"{"id":"pi_1","object":"payment_intent","amount":500,"currency":"jpy","status":"succeeded","metadata":{"checkout_key":"k"}}"#;

    #[test]
    fn success_and_replay() {
        match classify::<PaymentIntent>(resp(200, &[], PI)) {
            AttemptOutcome::Ok { value, replayed } => {
                assert_eq!(value.id, "pi_1");
                assert_eq!(value.pi_status(), PiStatus::Succeeded);
                assert_eq!(value.metadata["checkout_key"], "k");
                assert!(!replayed);
            }
            o => panic!("{o:?}"),
        }
        let o = classify::<PaymentIntent>(resp(200, &[("Idempotent-Replayed", "true")], PI));
        assert!(o.replayed());
        assert_eq!(o.label(), "replayed");
    }

    #[test]
    fn retryable_transport_errors() {
        for e in [
            TransportError::ConnectRefused("x".into()),
            TransportError::ConnectTimeout,
            TransportError::Timeout,
            TransportError::Reset("x".into()),
        ] {
            assert!(matches!(classify::<PaymentIntent>(Err(e)), AttemptOutcome::Retry { .. }));
        }
        assert!(matches!(
            classify::<PaymentIntent>(Err(TransportError::Other("bad url".into()))),
            AttemptOutcome::Fatal(Fatal::Config(_))
        ));
    }

    #[test]
    fn retryable_statuses_honour_retry_after() {
        let body = r#"{"error":{"type":"idempotency_error","code":"idempotency_key_in_use","message":"busy"}}"#;
        match classify::<PaymentIntent>(resp(409, &[("Retry-After", "2")], body)) {
            AttemptOutcome::Retry { reason: RetryReason::InProgress, retry_after } => {
                assert_eq!(retry_after, Some(Duration::from_secs(2)))
            }
            o => panic!("{o:?}"),
        }
        assert!(matches!(
            classify::<PaymentIntent>(resp(429, &[], "{}")),
            AttemptOutcome::Retry { reason: RetryReason::RateLimited, retry_after: None }
        ));
        for s in [502, 503, 504] {
            assert!(matches!(
                classify::<PaymentIntent>(resp(s, &[], "")),
                AttemptOutcome::Retry { reason: RetryReason::Unavailable(x), .. } if x == s
            ));
        }
    }

    #[test]
    fn non_retryable() {
        let decline = r#"{"error":{"type":"card_error","code":"card_declined","decline_code":"insufficient_funds","message":"Your card has insufficient funds."}}"#;
        match classify::<PaymentIntent>(resp(402, &[], decline)) {
            AttemptOutcome::Declined { decline, replayed: false } => {
                assert_eq!(decline.code, "insufficient_funds");
                assert!(decline.message.contains("insufficient"));
            }
            o => panic!("{o:?}"),
        }
        let bad = r#"{"error":{"type":"invalid_request_error","message":"Missing amount","param":"amount"}}"#;
        match classify::<PaymentIntent>(resp(400, &[], bad)) {
            AttemptOutcome::Fatal(Fatal::BadRequest(e)) => assert_eq!(e.param.as_deref(), Some("amount")),
            o => panic!("{o:?}"),
        }
        let idem = r#"{"error":{"type":"idempotency_error","message":"Keys for idempotent requests can only be used with the same parameters (amount)"}}"#;
        assert!(matches!(
            classify::<PaymentIntent>(resp(400, &[], idem)),
            AttemptOutcome::Fatal(Fatal::IdempotencyMismatch(_))
        ));
        assert!(matches!(classify::<PaymentIntent>(resp(401, &[], "{}")), AttemptOutcome::Fatal(Fatal::Auth(_))));
        assert!(matches!(classify::<PaymentIntent>(resp(404, &[], "{}")), AttemptOutcome::Fatal(Fatal::NotFound(_))));
    }

    #[test]
    fn replayed_500_is_unknown() {
        let o = classify::<PaymentIntent>(resp(500, &[("Idempotent-Replayed", "true")], r#"{"error":{"type":"api_error","message":"boom"}}"#));
        match o {
            AttemptOutcome::Unknown { status: 500, replayed: true, ref message } => assert_eq!(message, "boom"),
            ref o => panic!("{o:?}"),
        }
        assert_eq!(o.label(), "replayed_500");
        // A 2xx JSON answer we cannot read: executed but unreadable -> unknown, never
        // "not charged" (labelled JSON, or JSON of another shape).
        let json = [("content-type", "application/json")];
        assert!(matches!(classify::<PaymentIntent>(resp(200, &json, "{\"id\":")), AttemptOutcome::Unknown { .. }));
        assert!(matches!(classify::<PaymentIntent>(resp(200, &[], "{\"object\":\"list\"}")), AttemptOutcome::Unknown { .. }));
        // A 2xx that is not JSON at all, unlabelled: a web page, not a PSP; nothing ran.
        let page = classify::<PaymentIntent>(resp(200, &[("content-type", "text/html")], "<html>hi</html>"));
        assert!(matches!(page, AttemptOutcome::Fatal(Fatal::NotAPsp(200, _))), "{page:?}");
        assert!(page.executed_nothing());
    }

    #[test]
    fn an_answer_too_large_to_read_is_classified_by_its_status_never_as_not_sent() {
        let big = |status: u16| {
            Err::<HttpResponse, _>(TransportError::TooLarge(Box::new(HttpResponse {
                status,
                headers: vec![("idempotent-replayed".into(), "true".into())],
                body: vec![],
            })))
        };
        for s in [200u16, 201, 500] {
            match classify::<PaymentIntent>(big(s)) {
                AttemptOutcome::Unknown { status, replayed: true, message } => {
                    assert_eq!(status, s);
                    assert!(message.contains("larger than"), "{message}");
                }
                o => panic!("{s}: {o:?}"),
            }
        }
        assert!(matches!(classify::<PaymentIntent>(big(409)), AttemptOutcome::Retry { reason: RetryReason::InProgress, .. }));
        assert!(matches!(classify::<PaymentIntent>(big(503)), AttemptOutcome::Retry { reason: RetryReason::Unavailable(503), .. }));
        assert!(matches!(classify::<PaymentIntent>(big(402)), AttemptOutcome::Declined { .. }));
        let reason = RetryReason::Transport(TransportError::TooLarge(Box::new(HttpResponse { status: 200, headers: vec![], body: vec![] })));
        assert!(!reason.never_sent() && !reason.unreachable());
    }

    #[test]
    fn retry_after_parsing() {
        assert_eq!(parse_retry_after(Some("3")), Some(Duration::from_secs(3)));
        assert_eq!(parse_retry_after(Some("0.5")), Some(Duration::from_millis(500)));
        assert_eq!(parse_retry_after(Some("Wed, 21 Oct 2015 07:28:00 GMT")), None);
        assert_eq!(parse_retry_after(None), None);
    }

    #[test]
    fn form_uses_bracket_metadata_and_is_stable() {
        let p = CreateIntent {
            amount: 1200,
            currency: "jpy".into(),
            payment_method: "pm_card_visa".into(),
            capture_method: "automatic".into(),
            checkout_key: "abc".into(),
        };
        let client = PspClient::new(std::sync::Arc::new(NoTransport), Duration::from_secs(1));
        let req = client.create_intent_request(&p, "abc");
        assert_eq!(req.idempotency_key.as_deref(), Some("abc"));
        assert_eq!(
            req.encoded_body(),
            "amount=1200&currency=jpy&payment_method=pm_card_visa&confirm=true&capture_method=automatic&metadata%5Bcheckout_key%5D=abc"
        );
        assert_eq!(req.form, p.form());
        let s = client.search_by_metadata_request("checkout_key", "abc");
        assert_eq!(s.path, "/v1/payment_intents/search?query=metadata%5B%27checkout_key%27%5D%3A%27abc%27");
        assert!(s.idempotency_key.is_none());
        let e = client.list_events_request(Some(10), Some("evt_1"), 100);
        assert_eq!(e.path, "/v1/events?limit=100&created%5Bgte%5D=10&starting_after=evt_1");
    }

    struct NoTransport;
    impl crate::transport::Transport for NoTransport {
        fn send(&self, _: HttpRequest) -> crate::clock::BoxFuture<'static, Result<HttpResponse, TransportError>> {
            Box::pin(async { Err(TransportError::ConnectRefused("test".into())) })
        }
    }
}
