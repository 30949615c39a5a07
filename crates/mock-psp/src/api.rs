//! The PSP itself: authentication, routing, the idempotency layer, the business
//! operations (payment intents, refunds, events) and the admin endpoints. Everything
//! here works on [`PspRequest`] → [`Outcome`] without a socket.
use crate::faults::{Decision, Fault};
use crate::form::{self, Params};
use crate::search;
use crate::store::{self, IdemRow, StoreError, WriterState};
use crate::Inner;
use bytes::Bytes;
use rand::Rng;
use rusqlite::{params, Connection, OptionalExtension};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Duration;

/// One HTTP request, already read. Header names are matched case-insensitively.
#[derive(Clone, Debug, Default)]
pub struct PspRequest {
    pub method: String,
    /// Path without the query string, e.g. `/v1/payment_intents`.
    pub path: String,
    /// Raw query string without `?` (may be empty).
    pub query: String,
    pub headers: Vec<(String, String)>,
    pub body: Bytes,
}

impl PspRequest {
    pub fn get(path_and_query: &str, secret_key: &str) -> Self {
        let (path, query) = path_and_query.split_once('?').unwrap_or((path_and_query, ""));
        PspRequest {
            method: "GET".into(),
            path: path.into(),
            query: query.into(),
            headers: vec![("authorization".into(), format!("Bearer {secret_key}"))],
            body: Bytes::new(),
        }
    }
    pub fn post(path: &str, secret_key: &str, idempotency_key: Option<&str>, form_params: &[(&str, &str)]) -> Self {
        let mut headers = vec![
            ("authorization".into(), format!("Bearer {secret_key}")),
            ("content-type".into(), "application/x-www-form-urlencoded".into()),
        ];
        if let Some(k) = idempotency_key {
            headers.push(("idempotency-key".into(), k.into()));
        }
        PspRequest {
            method: "POST".into(),
            path: path.into(),
            query: String::new(),
            headers,
            body: Bytes::from(form::encode(form_params)),
        }
    }
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// One HTTP response.
#[derive(Clone, Debug)]
pub struct PspResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Bytes,
}

impl PspResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
    pub(crate) fn new(status: u16, body: Vec<u8>) -> Self {
        PspResponse {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: Bytes::from(body),
        }
    }
    fn with(mut self, k: &str, v: impl Into<String>) -> Self {
        self.headers.push((k.into(), v.into()));
        self
    }
}

/// What the transport should do with a request. A simulation interprets these itself.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// Send this response.
    Respond(PspResponse),
    /// Case A: the request was read and ignored; never answer (the client times out).
    DropRequest,
    /// Case B: the request was executed and committed; close the connection without
    /// answering. The response that was committed is attached for observers.
    DropResponse(PspResponse),
    /// The PSP is offline: refuse/reset the connection.
    Offline,
}

impl Outcome {
    pub fn response(&self) -> Option<&PspResponse> {
        match self {
            Outcome::Respond(r) => Some(r),
            _ => None,
        }
    }
}

/// Counters exposed by `/__admin/stats` and [`crate::MockPsp::stats`].
#[derive(Default)]
pub struct Stats {
    pub requests: AtomicU64,
    pub replays: AtomicU64,
    pub conflicts: AtomicU64,
    pub mismatches: AtomicU64,
    pub charges: AtomicU64,
    pub declines: AtomicU64,
    pub refunds: AtomicU64,
    pub executions: AtomicU64,
    pub redrives: AtomicU64,
    pub unauthorized: AtomicU64,
    pub rejected: AtomicU64,
    pub purged_keys: AtomicU64,
    pub faults: [AtomicU64; 8],
}

impl Stats {
    pub fn fault(&self, f: Fault) {
        self.faults[Fault::ALL.iter().position(|x| *x == f).unwrap()].fetch_add(1, Relaxed);
    }
    pub fn offline(&self) {
        self.faults[7].fetch_add(1, Relaxed);
    }
    pub fn snapshot(&self) -> Value {
        let mut faults = serde_json::Map::new();
        for (i, f) in Fault::ALL.iter().enumerate() {
            faults.insert(f.name().into(), json!(self.faults[i].load(Relaxed)));
        }
        faults.insert("offline".into(), json!(self.faults[7].load(Relaxed)));
        let total: u64 = self.faults.iter().map(|a| a.load(Relaxed)).sum();
        json!({
            "requests": self.requests.load(Relaxed),
            "replays": self.replays.load(Relaxed),
            "conflicts": self.conflicts.load(Relaxed),
            "mismatches": self.mismatches.load(Relaxed),
            "charges": self.charges.load(Relaxed),
            "declines": self.declines.load(Relaxed),
            "refunds": self.refunds.load(Relaxed),
            "executions": self.executions.load(Relaxed),
            "redrives": self.redrives.load(Relaxed),
            "unauthorized": self.unauthorized.load(Relaxed),
            "rejected": self.rejected.load(Relaxed),
            "purged_keys": self.purged_keys.load(Relaxed),
            "injected_faults": total,
            "faults": faults,
        })
    }
}

// ---------------------------------------------------------------- errors

#[derive(Debug)]
pub(crate) struct ApiError {
    status: u16,
    typ: &'static str,
    code: Option<String>,
    message: String,
    param: Option<String>,
    extra: Vec<(&'static str, Value)>,
}

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

fn missing(kind: &str, id: &str, param: Option<&str>) -> ApiError {
    ApiError {
        status: 404,
        typ: "invalid_request_error",
        code: Some("resource_missing".into()),
        message: format!("No such {kind}: '{id}'"),
        param: param.map(Into::into),
        extra: vec![],
    }
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
}

// ---------------------------------------------------------------- validation

const CURRENCIES: &[&str] = &[
    "usd", "eur", "jpy", "gbp", "aud", "cad", "chf", "cny", "hkd", "sgd", "sek", "nok", "dkk", "pln", "czk", "huf",
    "nzd", "mxn", "brl", "inr", "krw", "twd", "thb", "myr", "php", "idr", "zar", "ils", "aed", "sar", "try", "ron",
    "bgn", "isk", "clp", "vnd", "ugx", "kwd", "bhd", "jod", "omr", "tnd",
];
const MAX_AMOUNT: i64 = 99_999_999;
const TEST_METHODS: &[&str] = &["pm_card_visa", "pm_card_chargeDeclined", "pm_card_chargeDeclinedInsufficientFunds"];

fn parse_amount(name: &str, v: &str) -> Result<i64, ApiError> {
    let ok = !v.is_empty() && v.len() <= 20 && v.bytes().enumerate().all(|(i, b)| b.is_ascii_digit() || (i == 0 && b == b'-'));
    let n: i64 = if ok { v.parse().ok() } else { None }.ok_or_else(|| {
        invalid("parameter_invalid_integer", format!("Invalid integer: {}", truncate(v, 40)), Some(name))
    })?;
    if n < 1 {
        return Err(invalid("amount_too_small", format!("Amount must be at least 1 (got {n})."), Some(name)));
    }
    if n > MAX_AMOUNT {
        return Err(invalid("amount_too_large", format!("Amount must be no more than {MAX_AMOUNT}."), Some(name)));
    }
    Ok(n)
}

pub(crate) fn truncate(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

fn valid_id(s: &str) -> bool {
    !s.is_empty() && s.len() <= 255 && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Parameter access with unknown-parameter and duplicate checks.
struct P {
    map: BTreeMap<String, Vec<String>>,
    metadata: BTreeMap<String, String>,
}

impl P {
    fn new(params: &Params, allowed: &[&str], allow_metadata: bool) -> Result<P, ApiError> {
        let mut map: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut metadata = BTreeMap::new();
        for (k, v) in params {
            if allow_metadata && k == "metadata" && v.is_empty() {
                continue;
            }
            if allow_metadata && k.starts_with("metadata[") && k.ends_with(']') {
                let mk = &k[9..k.len() - 1];
                if mk.is_empty() || mk.len() > 40 || mk.contains('[') {
                    return Err(invalid("parameter_invalid_string", format!("Invalid metadata key: '{}'", truncate(mk, 60)), Some(k)));
                }
                if v.chars().count() > 500 {
                    return Err(invalid("parameter_invalid_string", "Metadata values can have up to 500 characters", Some(k)));
                }
                if metadata.insert(mk.to_string(), v.clone()).is_some() {
                    return Err(invalid("parameter_duplicate", format!("Received duplicate parameter: {k}"), Some(k)));
                }
                if metadata.len() > 50 {
                    return Err(invalid("parameter_invalid_string", "At most 50 metadata keys", Some("metadata")));
                }
                continue;
            }
            let base = k.split('[').next().unwrap_or(k);
            if !allowed.contains(&k.as_str()) && !allowed.contains(&format!("{base}[]").as_str()) {
                return Err(invalid("parameter_unknown", format!("Received unknown parameter: {}", truncate(k, 80)), Some(truncate(k, 80).as_str())));
            }
            let e = map.entry(k.clone()).or_default();
            e.push(v.clone());
            if e.len() > 1 && !k.ends_with("[]") {
                return Err(invalid("parameter_duplicate", format!("Received duplicate parameter: {k}"), Some(k)));
            }
        }
        Ok(P { map, metadata })
    }
    fn get(&self, k: &str) -> Option<&str> {
        self.map.get(k).and_then(|v| v.first()).map(|s| s.as_str())
    }
    fn bool(&self, k: &str) -> Result<Option<bool>, ApiError> {
        match self.get(k) {
            None => Ok(None),
            Some("true") => Ok(Some(true)),
            Some("false") => Ok(Some(false)),
            Some(v) => Err(invalid("parameter_invalid_boolean", format!("Invalid boolean: {}", truncate(v, 40)), Some(k))),
        }
    }
    fn limit(&self) -> Result<i64, ApiError> {
        match self.get("limit") {
            None => Ok(10),
            Some(v) => match v.parse::<i64>() {
                Ok(n) if (1..=100).contains(&n) => Ok(n),
                _ => Err(invalid("parameter_invalid_integer", "limit must be an integer between 1 and 100", Some("limit"))),
            },
        }
    }
    fn id(&self, k: &str) -> Result<Option<String>, ApiError> {
        match self.get(k) {
            None => Ok(None),
            Some(v) if valid_id(v) => Ok(Some(v.to_string())),
            Some(_) => Err(invalid("parameter_invalid_string", format!("Invalid id in {k}"), Some(k))),
        }
    }
}

/// A validated write operation, executed on the writer thread after the claim.
#[derive(Clone, Debug)]
enum Action {
    CreatePi {
        amount: i64,
        currency: String,
        payment_method: Option<String>,
        confirm: bool,
        manual: bool,
        metadata: BTreeMap<String, String>,
        description: Option<String>,
    },
    Capture {
        id: String,
        amount: Option<i64>,
    },
    Cancel {
        id: String,
        reason: Option<String>,
    },
    /// `POST /v1/payment_intents/:id`: metadata merged key by key (an empty value
    /// deletes its key; `metadata=` empties it first), description set (empty: unset).
    UpdatePi {
        id: String,
        clear_metadata: bool,
        metadata: BTreeMap<String, String>,
        description: Option<Option<String>>,
    },
    Refund {
        payment_intent: Option<String>,
        charge: Option<String>,
        amount: Option<i64>,
        reason: Option<String>,
        metadata: BTreeMap<String, String>,
    },
}

const EXPAND: &str = "expand[]";

fn validate_post(path: &[&str], params: &Params) -> Result<Action, ApiError> {
    match path {
        ["v1", "payment_intents"] => {
            let p = P::new(
                params,
                &["amount", "currency", "payment_method", "confirm", "capture_method", "description", "payment_method_types[]", "receipt_email", "statement_descriptor", "confirmation_method", "automatic_payment_methods[enabled]", "automatic_payment_methods[allow_redirects]", "off_session", "setup_future_usage", "customer", EXPAND],
                true,
            )?;
            let amount = parse_amount("amount", p.get("amount").ok_or_else(|| invalid("parameter_missing", "Missing required param: amount.", Some("amount")))?)?;
            let currency = p.get("currency").ok_or_else(|| invalid("parameter_missing", "Missing required param: currency.", Some("currency")))?;
            let cur = currency.to_ascii_lowercase();
            if !CURRENCIES.contains(&cur.as_str()) {
                return Err(invalid("parameter_invalid_string", format!("Invalid currency: {}. Stripe currently supports these currencies: {}", truncate(currency, 20), CURRENCIES.join(", ")), Some("currency")));
            }
            let pm = p.get("payment_method").map(str::to_string);
            if let Some(pm) = &pm {
                if !TEST_METHODS.contains(&pm.as_str()) {
                    return Err(invalid("resource_missing", format!("No such PaymentMethod: '{}'", truncate(pm, 60)), Some("payment_method")));
                }
            }
            let confirm = p.bool("confirm")?.unwrap_or(false);
            if confirm && pm.is_none() {
                return Err(invalid("payment_intent_unexpected_state", "You cannot confirm this PaymentIntent because it's missing a payment method.", Some("payment_method")));
            }
            let manual = match p.get("capture_method") {
                None | Some("automatic") | Some("automatic_async") => false,
                Some("manual") => true,
                Some(v) => return Err(invalid("parameter_invalid_string", format!("Invalid capture_method: must be one of automatic, automatic_async, or manual (got {})", truncate(v, 40)), Some("capture_method"))),
            };
            if let Some(d) = p.get("description") {
                if d.chars().count() > 1000 {
                    return Err(invalid("parameter_invalid_string", "description is too long", Some("description")));
                }
            }
            Ok(Action::CreatePi { amount, currency: cur, payment_method: pm, confirm, manual, description: p.get("description").map(str::to_string), metadata: p.metadata })
        }
        ["v1", "payment_intents", id, "capture"] if valid_id(id) => {
            let p = P::new(params, &["amount_to_capture", EXPAND], false)?;
            let amount = p.get("amount_to_capture").map(|v| parse_amount("amount_to_capture", v)).transpose()?;
            Ok(Action::Capture { id: id.to_string(), amount })
        }
        ["v1", "payment_intents", id] if valid_id(id) => {
            let p = P::new(params, &["description", EXPAND], true)?;
            let clear_metadata = params.iter().any(|(k, v)| k == "metadata" && v.is_empty());
            if let Some(d) = p.get("description") {
                if d.chars().count() > 1000 {
                    return Err(invalid("parameter_invalid_string", "description is too long (at most 1000 characters)", Some("description")));
                }
            }
            let description = p.get("description").map(|d| (!d.is_empty()).then(|| d.to_string()));
            Ok(Action::UpdatePi { id: id.to_string(), clear_metadata, metadata: p.metadata, description })
        }
        ["v1", "payment_intents", id, "cancel"] if valid_id(id) => {
            let p = P::new(params, &["cancellation_reason", EXPAND], false)?;
            let reason = p.get("cancellation_reason").map(str::to_string);
            if let Some(r) = &reason {
                if !["duplicate", "fraudulent", "requested_by_customer", "abandoned"].contains(&r.as_str()) {
                    return Err(invalid("parameter_invalid_string", "Invalid cancellation_reason", Some("cancellation_reason")));
                }
            }
            Ok(Action::Cancel { id: id.to_string(), reason })
        }
        ["v1", "refunds"] => {
            let p = P::new(params, &["payment_intent", "charge", "amount", "reason", EXPAND], true)?;
            let payment_intent = p.id("payment_intent")?;
            let charge = p.id("charge")?;
            if payment_intent.is_none() && charge.is_none() {
                return Err(invalid("parameter_missing", "One of the following params should be provided for this request: payment_intent or charge.", Some("payment_intent")));
            }
            let amount = p.get("amount").map(|v| parse_amount("amount", v)).transpose()?;
            let reason = p.get("reason").map(str::to_string);
            if let Some(r) = &reason {
                if !["duplicate", "fraudulent", "requested_by_customer"].contains(&r.as_str()) {
                    return Err(invalid("parameter_invalid_string", "Invalid reason", Some("reason")));
                }
            }
            Ok(Action::Refund { payment_intent, charge, amount, reason, metadata: p.metadata })
        }
        _ => Err(not_found_url("POST", path)),
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

/// Longest accepted idempotency key, in characters (Stripe's limit).
pub const MAX_IDEMPOTENCY_KEY_LEN: usize = 255;

/// The request's idempotency key: exactly one `Idempotency-Key` header, 1 to 255
/// printable ASCII characters (what an HTTP header carries unambiguously; a transport
/// hands other bytes over as U+FFFD, see `http.rs`). Each way to get it wrong has its
/// own message, so a client learns what to fix.
fn idempotency_key(req: &PspRequest) -> Result<&str, ApiError> {
    let mut keys = req.headers.iter().filter(|(k, _)| k.eq_ignore_ascii_case("idempotency-key")).map(|(_, v)| v.as_str());
    let Some(k) = keys.next() else {
        return Err(invalid("idempotency_key_missing", "An Idempotency-Key header is required for POST requests.", None));
    };
    let more = keys.count();
    if more > 0 {
        return Err(invalid("idempotency_key_duplicate", format!("The request has {} Idempotency-Key headers; send exactly one (the server does not pick one for you).", more + 1), None));
    }
    if k.trim().is_empty() {
        return Err(invalid("idempotency_key_invalid", "The Idempotency-Key header must not be empty.", None));
    }
    if let Some((i, c)) = k.chars().enumerate().find(|(_, c)| !(' '..='~').contains(c)) {
        let what = match c {
            '\u{fffd}' => "a byte that is not valid UTF-8".to_string(),
            c if c.is_control() => format!("the control character U+{:04X}", c as u32),
            c => format!("the non-ASCII character U+{:04X} '{c}'", c as u32),
        };
        return Err(invalid("idempotency_key_not_ascii", format!("The Idempotency-Key header must be printable ASCII (space to '~'); character {} is {what}. A UUID makes a good key.", i + 1), None));
    }
    if k.len() > MAX_IDEMPOTENCY_KEY_LEN {
        return Err(invalid("idempotency_key_invalid", format!("The Idempotency-Key header must be at most {MAX_IDEMPOTENCY_KEY_LEN} characters (got {}).", k.len()), None));
    }
    Ok(k)
}

// ---------------------------------------------------------------- auth

fn b64decode(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut buf = 0u32;
    let mut bits = 0;
    for c in s.trim().bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            _ => return None,
        } as u32;
        buf = (buf << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buf >> bits) as u8);
            buf &= (1 << bits) - 1;
        }
    }
    Some(out)
}

enum Auth {
    Missing,
    Unknown(String),
    Account(String),
}

fn authenticate(inner: &Inner, req: &PspRequest) -> Auth {
    let Some(h) = req.header("authorization") else { return Auth::Missing };
    let key = if let Some(k) = h.strip_prefix("Bearer ").or_else(|| h.strip_prefix("bearer ")) {
        k.trim().to_string()
    } else if let Some(b) = h.strip_prefix("Basic ").or_else(|| h.strip_prefix("basic ")) {
        match b64decode(b).and_then(|v| String::from_utf8(v).ok()) {
            Some(s) => s.split(':').next().unwrap_or("").to_string(),
            None => return Auth::Unknown(String::new()),
        }
    } else {
        return Auth::Unknown(String::new());
    };
    if key.is_empty() {
        return Auth::Missing;
    }
    match inner.accounts.get(&key) {
        Some(acct) => Auth::Account(acct.clone()),
        None => Auth::Unknown(key),
    }
}

fn redact(key: &str) -> String {
    let n = key.chars().count();
    if n <= 16 {
        format!("{}{}", key.chars().take(n / 2).collect::<String>(), "*".repeat(n - n / 2))
    } else {
        format!("{}{}{}", key.chars().take(8).collect::<String>(), "*".repeat((n - 12).min(20)), key.chars().skip(n - 4).collect::<String>())
    }
}

// ---------------------------------------------------------------- request handling

impl Inner {
    fn request_id(&self) -> String {
        format!("req_{:014}", self.req_seq.fetch_add(1, Relaxed) + 1)
    }

    /// `detach`: once a POST's claim is committed, run its execution on its own tokio
    /// task, so it finishes (and stores its result) even if the caller's future is
    /// dropped — e.g. hyper cancelling the handler when the client disconnects. The
    /// in-process path ([`crate::MockPsp::handle`]) runs inline (deterministic).
    pub(crate) async fn handle(self: &Arc<Self>, req: PspRequest, detach: bool) -> Outcome {
        if req.path.starts_with("/__admin") {
            return Outcome::Respond(self.admin(&req).await);
        }
        self.stats.requests.fetch_add(1, Relaxed);
        if req.body.len() > crate::MAX_BODY_BYTES {
            self.stats.rejected.fetch_add(1, Relaxed);
            let mut e = invalid("request_too_large", format!("Request bodies are limited to {} bytes.", crate::MAX_BODY_BYTES), None);
            e.status = 413;
            return Outcome::Respond(e.response());
        }
        if self.is_offline() {
            self.stats.offline();
            return Outcome::Offline;
        }
        let decision = self.faults.decide(&req.method, &req.path);
        for f in decision.faults() {
            if f != Fault::Slow && f != Fault::InternalError && f != Fault::DuplicateEvents && f != Fault::DropResponse {
                self.stats.fault(f);
            }
        }
        if decision.drop_request {
            return Outcome::DropRequest;
        }
        if let Some(code) = decision.transient {
            let (typ, msg) = if code == 503 {
                ("api_error", "The service is temporarily unavailable. Please retry.")
            } else {
                ("invalid_request_error", "Too many requests hit the API too quickly. Please retry.")
            };
            let e = ApiError { status: code, typ, code: Some(if code == 503 { "service_unavailable".into() } else { "rate_limit".into() }), message: msg.into(), param: None, extra: vec![] };
            return Outcome::Respond(self.finish(e.response(), &req).with("Retry-After", "1").with("Stripe-Should-Retry", "true"));
        }
        let resp = self.dispatch(&req, &decision, detach).await;
        let resp = self.finish(resp, &req);
        if decision.drop_response {
            self.stats.fault(Fault::DropResponse);
            return Outcome::DropResponse(resp);
        }
        Outcome::Respond(resp)
    }

    fn finish(&self, resp: PspResponse, req: &PspRequest) -> PspResponse {
        let mut resp = resp.with("Request-Id", self.request_id()).with("Stripe-Version", "2025-03-31.basil");
        // Echoed only when it is the request's one valid key (anything else was refused).
        if req.method == "POST" {
            if let Ok(k) = idempotency_key(req) {
                resp = resp.with("Idempotency-Key", k);
            }
        }
        resp
    }

    async fn dispatch(self: &Arc<Self>, req: &PspRequest, decision: &Decision, detach: bool) -> PspResponse {
        let account = match authenticate(self, req) {
            Auth::Account(a) => a,
            Auth::Missing => {
                self.stats.unauthorized.fetch_add(1, Relaxed);
                let mut e = invalid("api_key_missing", "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').", None);
                e.status = 401;
                return e.response().with("WWW-Authenticate", "Bearer realm=\"Stripe\"");
            }
            Auth::Unknown(k) => {
                self.stats.unauthorized.fetch_add(1, Relaxed);
                let mut e = invalid("api_key_invalid", format!("Invalid API Key provided: {}", redact(&k)), None);
                e.status = 401;
                return e.response().with("WWW-Authenticate", "Bearer realm=\"Stripe\"");
            }
        };
        let segs: Vec<&str> = req.path.trim_matches('/').split('/').collect();
        let result = match req.method.as_str() {
            "GET" => self.get(&account, &segs, req, decision).await,
            "POST" => self.post(&account, &segs, req, decision, detach).await,
            "DELETE" => Err(not_found_url("DELETE", &segs)),
            m => Err(ApiError { status: 405, typ: "invalid_request_error", code: None, message: format!("Method {} not allowed", truncate(m, 20)), param: None, extra: vec![] }),
        };
        match result {
            Ok(r) => r,
            Err(e) => {
                if e.status == 400 || e.status == 404 || e.status == 413 {
                    self.stats.rejected.fetch_add(1, Relaxed);
                }
                e.response()
            }
        }
    }

    // ------------------------------------------------------------ POST + idempotency

    async fn post(self: &Arc<Self>, account: &str, segs: &[&str], req: &PspRequest, decision: &Decision, detach: bool) -> Result<PspResponse, ApiError> {
        let known = matches!(segs, ["v1", "payment_intents"] | ["v1", "refunds"] | ["v1", "payment_intents", _] | ["v1", "payment_intents", _, "capture" | "cancel"]);
        if !known {
            return Err(not_found_url("POST", segs));
        }
        // The key is checked first: a POST without one is a client bug whatever its body.
        let key = idempotency_key(req)?.to_string();
        let params = form::parse(&req.body).map_err(|e| invalid("parameter_invalid_string", e.0, None))?;
        let action = validate_post(segs, &params)?;
        let (fp, canon) = form::fingerprint(&req.method, &req.path, &params);
        let now = self.clock.now_ms();
        if !self.idempotency_layer {
            // Bench only (the layer's cost): execute at once, nothing claimed or stored.
            let (acct, key2, fail) = (account.to_string(), key.clone(), decision.internal_error);
            let ex = self.store.write(move |c, st| execute(c, st, None, &acct, &key2, now, &action, fail)).await.map_err(internal)?;
            self.count(&ex);
            return Ok(should_retry(PspResponse::new(ex.status, ex.body)));
        }
        // Fast path: a finished key is answered from a read connection (no fsync). A key
        // not found is no answer (the claim below decides), so it does not wait for
        // other requests' commits to reach the disk.
        let (acct, k2) = (account.to_string(), key.clone());
        let existing = self.store.read_point(move |c| store::get_idem(c, &acct, &k2), |row| row.is_some()).await.map_err(internal)?;
        if let Some(row) = existing {
            if row.created_ms.saturating_add(self.retention_ms) > now {
                if row.fingerprint != fp {
                    return Err(self.mismatch(&row, &req.method, &req.path, &canon, &key));
                }
                if let (Some(status), Some(body)) = (row.status, row.body) {
                    return Ok(self.replay(status, body));
                }
            }
        }
        // Claim: INSERT under UNIQUE(account, key), committed before execution.
        let (acct, key2, method, path, fp2, canon2) = (account.to_string(), key.clone(), req.method.clone(), req.path.clone(), fp.clone(), canon.clone());
        let (retention, lock_timeout) = (self.retention_ms, self.lock_timeout_ms);
        let claim_step = move |c: &Connection, _: &mut WriterState| claim(c, &acct, &key2, &method, &path, &fp2, &canon2, now, retention, lock_timeout);
        let fresh = |c: &Claim| matches!(c, Claim::Claimed { .. });
        // Usually the writer runs the execution itself in the transaction right after
        // the claim's: no round trip through this task in between. Not when the
        // execution must wait first (the slow fault) or a crash test stops the process
        // between the two steps.
        let chained = decision.slow_ms.is_none() && self.crash_point.as_deref() != Some("after_claim");
        // `done`: the chained execution's recorded outcome (see finish_claim).
        let (claim, done) = if chained {
            let (acct, key2, action2, clock, fail) = (account.to_string(), key.clone(), action.clone(), self.clock.clone(), decision.internal_error);
            let execute_step = move |c: &Claim, conn: &Connection, st: &mut WriterState| {
                let Claim::Claimed { id, .. } = c else { return Err(StoreError("only a fresh claim is executed".into())) };
                execute(conn, st, Some(*id), &acct, &key2, clock.now_ms(), &action2, fail)
            };
            // The claim, its execution and the recording of the outcome (counters, a
            // stored 500 if the execution failed) are one piece of work: detached, it
            // completes even if the client disconnects meanwhile and hyper drops this
            // future; otherwise a failed execution would leave the key locked until
            // the lock timeout, and a charge would go uncounted.
            let (this, acct, key2, action2) = (Arc::clone(self), account.to_string(), key.clone(), action.clone());
            let work = async move {
                let (claim, executed) = this.store.write_then(claim_step, fresh, execute_step).await?;
                let done = match &claim {
                    Claim::Claimed { id, .. } => Some(Arc::clone(&this).finish_claim(*id, acct, key2, action2, None, fail, executed).await),
                    _ => None,
                };
                Ok::<_, StoreError>((claim, done))
            };
            let r = if detach { tokio::spawn(work).await.unwrap_or_else(|e| Err(StoreError(format!("execution task failed: {e}")))) } else { work.await };
            r.map_err(internal)?
        } else {
            // A fresh claim goes on to execution as soon as it is committed (every other
            // request sees it), without waiting for its fsync: nothing leaves the process
            // until the completion's fsync, which covers the claim too. Every other
            // outcome (replay, mismatch, in use) is an answer to the client, so it waits.
            (self.store.write_answered_at_commit(claim_step, fresh).await.map_err(internal)?, None)
        };
        let claim_id = match claim {
            Claim::Claimed { id, redrive } => {
                if redrive {
                    self.stats.redrives.fetch_add(1, Relaxed);
                }
                id
            }
            Claim::Replay(status, body) => return Ok(self.replay(status, body)),
            Claim::Mismatch(row) => return Err(self.mismatch(&row, &req.method, &req.path, &canon, &key)),
            Claim::InUse(wait_ms) => {
                self.stats.conflicts.fetch_add(1, Relaxed);
                let secs = ((wait_ms + 999) / 1000).clamp(1, 1);
                let e = ApiError { status: 409, typ: "idempotency_error", code: Some("idempotency_key_in_use".into()), message: format!("There is currently another in-progress request using this Idempotent Key (that probably means you submitted twice, and the other request is still going through): {}. Please try again later.", key), param: None, extra: vec![] };
                return Ok(e.response().with("Retry-After", secs.to_string()).with("Stripe-Should-Retry", "true"));
            }
        };
        let (status, body, replayed) = match done {
            Some(done) => done,
            None => {
                self.crash_point("after_claim");
                // From here on the claim is committed: the execution must run to
                // completion whatever happens to the client (Stripe keeps executing),
                // or the key would stay locked until the lock timeout.
                let run = Arc::clone(self).finish_claim(claim_id, account.to_string(), key.clone(), action, decision.slow_ms, decision.internal_error, None);
                if detach {
                    match tokio::spawn(run).await {
                        Ok(done) => done,
                        Err(e) => (500, serde_json::to_vec(&internal(StoreError(format!("execution task failed: {e}"))).body()).unwrap(), false),
                    }
                } else {
                    run.await
                }
            }
        };
        self.crash_point("after_execute");
        if replayed {
            // Another execution of this claim (a re-drive, or the first one outliving
            // its lock) finished first: this is its stored answer, not a new one.
            return Ok(should_retry(PspResponse::new(status, body).with("Idempotent-Replayed", "true")));
        }
        Ok(should_retry(PspResponse::new(status, body)))
    }

    /// Executes a committed claim unless the writer already did (`executed`), and
    /// records the outcome: counters, and a stored 500 when execution failed. The
    /// flag: the answer is another execution's stored result (see `execute`).
    #[allow(clippy::too_many_arguments)]
    async fn finish_claim(self: Arc<Self>, claim_id: i64, acct: String, key2: String, action: Action, slow_ms: Option<u64>, fail: bool, executed: Option<Result<Executed, StoreError>>) -> (u16, Vec<u8>, bool) {
        let exec_now = self.clock.now_ms();
        let res = match executed {
            Some(r) => r,
            None => {
                if let Some(ms) = slow_ms {
                    self.stats.fault(Fault::Slow);
                    self.clock.sleep(Duration::from_millis(ms)).await;
                }
                let exec_now = self.clock.now_ms();
                self.store.write(move |c, st| execute(c, st, Some(claim_id), &acct, &key2, exec_now, &action, fail)).await
            }
        };
        if fail {
            self.stats.fault(Fault::InternalError);
        }
        match res {
            Ok(ex) => {
                self.count(&ex);
                (ex.status, ex.body, ex.replayed)
            }
            Err(e) => {
                // Execution began and failed: store a 500 so a retry replays "unknown".
                let body = serde_json::to_vec(&internal(e).body()).unwrap();
                let b2 = body.clone();
                let _ = self
                    .store
                    .write(move |c, _| {
                        c.execute("UPDATE idem SET status=500, body=?2, finished_ms=?3 WHERE id=?1 AND status IS NULL", params![claim_id, b2, exec_now])?;
                        Ok(())
                    })
                    .await;
                (500, body, false)
            }
        }
    }

    /// Counts an execution in the stats.
    fn count(&self, ex: &Executed) {
        if ex.replayed {
            self.stats.replays.fetch_add(1, Relaxed);
            return;
        }
        self.stats.executions.fetch_add(1, Relaxed);
        if ex.charged {
            self.stats.charges.fetch_add(1, Relaxed);
        }
        if ex.declined {
            self.stats.declines.fetch_add(1, Relaxed);
        }
        if ex.refunded {
            self.stats.refunds.fetch_add(1, Relaxed);
        }
    }

    fn replay(&self, status: u16, body: Vec<u8>) -> PspResponse {
        self.stats.replays.fetch_add(1, Relaxed);
        should_retry(PspResponse::new(status, body).with("Idempotent-Replayed", "true"))
    }

    fn mismatch(&self, row: &IdemRow, method: &str, path: &str, canon: &str, key: &str) -> ApiError {
        self.stats.mismatches.fetch_add(1, Relaxed);
        let (what, param) = if row.method != method || row.path != path {
            (format!("the request path (first used with {} {}, now {} {})", row.method, row.path, method, path), None)
        } else {
            let p = form::first_difference(&row.params, canon).unwrap_or_default();
            (format!("parameter '{p}'"), Some(p))
        };
        ApiError {
            status: 400,
            typ: "idempotency_error",
            code: Some("idempotency_key_reused".into()),
            message: format!("Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '{}' if you meant to execute a different request. First difference: {what}.", truncate(key, 255)),
            param,
            extra: vec![],
        }
    }

    fn crash_point(&self, name: &str) {
        if self.crash_point.as_deref() == Some(name) {
            eprintln!("mock-psp: crash point {name} reached, aborting");
            std::process::abort();
        }
    }

    // ------------------------------------------------------------ GET

    async fn get(&self, account: &str, segs: &[&str], req: &PspRequest, decision: &Decision) -> Result<PspResponse, ApiError> {
        let params = form::parse(req.query.as_bytes()).map_err(|e| invalid("parameter_invalid_string", e.0, None))?;
        if let Some(ms) = decision.slow_ms {
            self.stats.fault(Fault::Slow);
            self.clock.sleep(Duration::from_millis(ms)).await;
        }
        let acct = account.to_string();
        let body: Value = match segs {
            ["v1", "payment_intents", "search"] => {
                let p = P::new(&params, &["query", "limit", "page", EXPAND], false)?;
                let q = search::parse(p.get("query").ok_or_else(|| invalid("parameter_missing", "Missing required param: query.", Some("query")))?)?;
                let limit = p.limit()?;
                let page = p.get("page").map(search::parse_page).transpose()?;
                // Search lag (eventually consistent search, like Stripe's): PaymentIntents
                // created less than `search_lag_ms` ago are not in the results yet.
                let lag_ms = self.faults.config().search_lag_ms;
                let max_created = (lag_ms > 0).then(|| search::visible_created_max_s(self.clock.now_ms(), lag_ms));
                let page = self.store.read(move |c| search::search(c, &acct, &q, limit, page, max_created)).await.map_err(internal)?;
                return Ok(PspResponse::new(200, page.to_bytes()));
            }
            ["v1", "payment_intents"] => {
                let p = P::new(&params, &["limit", "starting_after", "ending_before", "created", "created[gt]", "created[gte]", "created[lt]", "created[lte]", "customer", EXPAND], false)?;
                let lp = ListParams::from(&p)?;
                let page = self.store.read(move |c| list(c, "payment_intents", &acct, &lp, ListFilter::None, "/v1/payment_intents")).await.map_err(internal)??;
                return Ok(PspResponse::new(200, page.to_bytes()));
            }
            ["v1", "payment_intents", id] if valid_id(id) => {
                P::new(&params, &["client_secret", EXPAND], false)?;
                let id = id.to_string();
                self.store.read(move |c| get_obj(c, "payment_intents", &acct, &id)).await.map_err(internal)?.ok_or_else(|| missing("payment_intent", segs[2], Some("intent")))?
            }
            ["v1", "refunds"] => {
                // Stripe's refund list: how a client finds out whether a refund it could
                // not confirm exists (by its metadata) without resending it.
                let p = P::new(&params, &["limit", "starting_after", "ending_before", "created", "created[gt]", "created[gte]", "created[lt]", "created[lte]", "payment_intent", "charge", EXPAND], false)?;
                let lp = ListParams::from(&p)?;
                let filter = match (p.id("payment_intent")?, p.id("charge")?) {
                    (Some(_), Some(_)) => return Err(invalid("parameter_invalid_string", "You may only specify one of these parameters: charge, payment_intent.", Some("payment_intent"))),
                    (Some(id), None) => ListFilter::RefundOf { field: "payment_intent", id },
                    (None, Some(id)) => ListFilter::RefundOf { field: "charge", id },
                    (None, None) => ListFilter::None,
                };
                let page = self.store.read(move |c| list(c, "refunds", &acct, &lp, filter, "/v1/refunds")).await.map_err(internal)??;
                return Ok(PspResponse::new(200, page.to_bytes()));
            }
            ["v1", "refunds", id] if valid_id(id) => {
                P::new(&params, &[EXPAND], false)?;
                let id = id.to_string();
                self.store.read(move |c| get_obj(c, "refunds", &acct, &id)).await.map_err(internal)?.ok_or_else(|| missing("refund", segs[2], Some("refund")))?
            }
            ["v1", "charges", id] if valid_id(id) => {
                P::new(&params, &[EXPAND], false)?;
                let id = id.to_string();
                self.store.read(move |c| get_obj(c, "charges", &acct, &id)).await.map_err(internal)?.ok_or_else(|| missing("charge", segs[2], Some("charge")))?
            }
            ["v1", "events", id] if valid_id(id) => {
                P::new(&params, &[EXPAND], false)?;
                let id = id.to_string();
                self.store.read(move |c| get_obj(c, "events", &acct, &id)).await.map_err(internal)?.ok_or_else(|| missing("event", segs[2], Some("id")))?
            }
            ["v1", "events"] => {
                let p = P::new(&params, &["limit", "starting_after", "ending_before", "created", "created[gt]", "created[gte]", "created[lt]", "created[lte]", "type", "types[]", "delivery_success", EXPAND], false)?;
                let lp = ListParams::from(&p)?;
                let mut types: Vec<String> = p.map.get("types[]").cloned().unwrap_or_default();
                if let Some(t) = p.get("type") {
                    types.push(t.to_string());
                }
                let filter = if types.is_empty() { ListFilter::None } else { ListFilter::EventTypes(types) };
                let page = self.store.read(move |c| list(c, "events", &acct, &lp, filter, "/v1/events")).await.map_err(internal)??;
                if !decision.duplicate_events {
                    return Ok(PspResponse::new(200, page.to_bytes()));
                }
                let mut page = page.to_value();
                let acct = account.to_string();
                let older = self.store.read(move |c| recent_events(c, &acct, 50)).await.map_err(internal)?;
                if self.redeliver(&mut page, older) {
                    self.stats.fault(Fault::DuplicateEvents);
                }
                page
            }
            _ => return Err(not_found_url("GET", segs)),
        };
        Ok(PspResponse::new(200, serde_json::to_vec(&body).unwrap()))
    }

    /// Duplicate + out-of-order redelivery: older events are inserted again and the
    /// page's interior is shuffled. The first and last items stay in place so that
    /// `starting_after`/`ending_before` cursors taken from them never skip an event.
    fn redeliver(&self, page: &mut Value, older: Vec<Value>) -> bool {
        let Some(data) = page.get_mut("data").and_then(|d| d.as_array_mut()) else { return false };
        if data.len() < 2 || older.is_empty() {
            return false;
        }
        let first_seq = data.iter().map(|e| e["created"].as_i64().unwrap_or(0)).max().unwrap_or(0);
        self.faults.with_rng(|rng| {
            let last = data.pop().unwrap();
            let first = data.remove(0);
            // Shuffle the interior (Fisher-Yates).
            for i in (1..data.len()).rev() {
                let j = rng.random_range(0..=i);
                data.swap(i, j);
            }
            let n = rng.random_range(1..=3usize);
            for _ in 0..n {
                let ev = &older[rng.random_range(0..older.len())];
                if ev["created"].as_i64().unwrap_or(0) <= first_seq {
                    let pos = rng.random_range(0..=data.len());
                    data.insert(pos, ev.clone());
                }
            }
            data.insert(0, first);
            data.push(last);
        });
        true
    }

    pub(crate) fn is_offline(&self) -> bool {
        let mut g = self.offline.lock();
        match *g {
            Offline::Online => false,
            Offline::Indefinite => true,
            Offline::Until(t) => {
                if self.clock.now_ms() >= t {
                    *g = Offline::Online;
                    false
                } else {
                    true
                }
            }
        }
    }

    pub(crate) fn set_offline(&self, on: bool, duration: Option<Duration>) {
        let mut g = self.offline.lock();
        *g = match (on, duration) {
            (false, _) => Offline::Online,
            (true, None) => Offline::Indefinite,
            (true, Some(d)) => Offline::Until(self.clock.now_ms().saturating_add(crate::clock::duration_ms(d))),
        };
    }

    pub(crate) fn stats_json(&self) -> Value {
        let mut v = self.stats.snapshot();
        let s = &self.store.stats;
        v["storage"] = json!({
            "transactions": s.transactions.load(Relaxed),
            "jobs": s.jobs.load(Relaxed),
            "max_batch": s.max_batch.load(Relaxed),
            "wal_restart_checkpoints": s.wal_restart_checkpoints.load(Relaxed),
            "wal_restart_checkpoint_max_us": s.wal_restart_checkpoint_max_us.load(Relaxed),
            // "log syncer": group commit, made durable by one fsync per group of
            // batches off the writer's path; "commit": each COMMIT fsyncs (FULL).
            "durable_by": if self.store.durability().is_some() { "log syncer" } else { "commit" },
            "log_syncs": self.store.durability().map(|d| d.syncs.load(Relaxed)).unwrap_or(0),
            "log_sync_us": self.store.durability().map(|d| d.sync_us.load(Relaxed)).unwrap_or(0),
        });
        v["http"] = self.http.stats.snapshot(self.http.open());
        v
    }

    /// Deletes keys past retention in small chunks, each its own writer transaction,
    /// so a request queued behind the purge waits for at most one chunk.
    ///
    /// The chunk size is bounded by time, not only by count: it starts small
    /// ([`PURGE_FIRST_CHUNK`]; the first chunks measure what a chunk costs on this disk
    /// under this load), never exceeds `purge_chunk` keys, is halved whenever a chunk
    /// (delete + commit) took longer than [`PURGE_CHUNK_BUDGET`], and grows back by
    /// half while chunks stay well under it — a slow disk or a busy machine gets
    /// smaller chunks, never longer stalls. Between chunks the purge yields: it waits
    /// (up to [`PURGE_IDLE_WAIT`]) for the writer queue to empty and then leaves the
    /// writer idle for three times as long as the last chunk took (duty cycle at most
    /// 25%: a purge is housekeeping; at 50% its writes kept the disk busy enough that
    /// the writer's WAL-restart checkpoints took up to 72 ms, at 25% 26 ms).
    pub(crate) async fn purge_expired(&self) -> Result<(usize, Duration), StoreError> {
        let cutoff = self.clock.now_ms().saturating_sub(self.retention_ms);
        let max_chunk = self.purge_chunk.max(1);
        let mut chunk = PURGE_FIRST_CHUNK.min(max_chunk);
        let mut total = 0;
        let mut worst = Duration::ZERO;
        loop {
            let idle_wait = std::time::Instant::now();
            while self.store.queued() > 0 && idle_wait.elapsed() < PURGE_IDLE_WAIT {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            let t = std::time::Instant::now();
            let this = chunk;
            let n = self.store.write_solo_unsynced(move |c, _| store::purge_chunk(c, cutoff, this)).await?;
            let took = t.elapsed();
            worst = worst.max(took);
            total += n;
            self.stats.purged_keys.fetch_add(n as u64, Relaxed);
            if n < this {
                break;
            }
            if took > PURGE_CHUNK_BUDGET {
                chunk = (chunk / 2).max(PURGE_MIN_CHUNK.min(max_chunk));
            } else if took < PURGE_CHUNK_BUDGET / 4 {
                chunk = (chunk + chunk / 2 + 1).min(max_chunk);
            }
            tokio::time::sleep((took * 3).min(Duration::from_millis(60))).await;
        }
        // The chunks were answered at their commit, before any fsync: a purge's result
        // (the admin endpoint's count) is reported only once it is on disk, as every
        // other write's is.
        if let Some(d) = self.store.durability() {
            d.settled().await?;
        }
        Ok((total, worst))
    }
}

/// Longest a purge chunk should hold the writer (delete + commit): well under the
/// 50 ms a request may stall behind a purge, leaving room for the request's own commit
/// and for the occasional slow fsync when the disk is busy (chunks measured 10x their
/// usual time then, so the usual time is kept small).
const PURGE_CHUNK_BUDGET: Duration = Duration::from_millis(3);
/// Size of the first purge chunk; later ones grow while they stay under a quarter of
/// the budget. Starting at the largest size made the first chunk the slowest.
const PURGE_FIRST_CHUNK: usize = 16;
/// Smallest chunk the time bound shrinks to (a purge must still make progress).
const PURGE_MIN_CHUNK: usize = 8;
/// How long a purge chunk waits for queued requests to be served first.
const PURGE_IDLE_WAIT: Duration = Duration::from_millis(50);

#[derive(Clone, Copy, Debug)]
pub(crate) enum Offline {
    Online,
    Indefinite,
    Until(i64),
}

/// A stored result is final for its key: tell SDKs not to retry it (a stored 500
/// means "outcome unknown: reconcile", not "try again").
fn should_retry(r: PspResponse) -> PspResponse {
    if r.status >= 400 {
        r.with("Stripe-Should-Retry", "false")
    } else {
        r
    }
}

pub(crate) fn internal(e: StoreError) -> ApiError {
    ApiError { status: 500, typ: "api_error", code: Some("internal_error".into()), message: format!("An internal error occurred: {e}"), param: None, extra: vec![] }
}

// ---------------------------------------------------------------- claim + execute (writer thread)

enum Claim {
    Claimed { id: i64, redrive: bool },
    Replay(u16, Vec<u8>),
    Mismatch(IdemRow),
    InUse(i64),
}

#[allow(clippy::too_many_arguments)]
fn claim(c: &Connection, account: &str, key: &str, method: &str, path: &str, fp: &str, canon: &str, now: i64, retention: i64, lock_timeout: i64) -> Result<Claim, StoreError> {
    if let Some(row) = store::get_idem(c, account, key)? {
        if row.created_ms.saturating_add(retention) > now {
            if row.fingerprint != fp {
                return Ok(Claim::Mismatch(row));
            }
            if let (Some(s), Some(b)) = (row.status, row.body) {
                return Ok(Claim::Replay(s, b));
            }
            if row.lock_until_ms > now {
                return Ok(Claim::InUse(row.lock_until_ms - now));
            }
            // The executing request died (or is far too slow): take the lock over and
            // re-drive. Execution is keyed by this claim's id, so no second charge.
            c.prepare_cached("UPDATE idem SET lock_until_ms=?2 WHERE id=?1")?.execute(params![row.id, now.saturating_add(lock_timeout)])?;
            return Ok(Claim::Claimed { id: row.id, redrive: true });
        }
        // Past retention: forgotten; the same key is a new request.
        c.prepare_cached("DELETE FROM idem WHERE id=?1")?.execute(params![row.id])?;
    }
    c.prepare_cached(
        "INSERT INTO idem (account, key, method, path, fingerprint, params, created_ms, lock_until_ms) VALUES (?1,?2,?3,?4,?5,?6,?7,?8)",
    )?
    .execute(params![account, key, method, path, fp, canon, now, now.saturating_add(lock_timeout)])?;
    Ok(Claim::Claimed { id: c.last_insert_rowid(), redrive: false })
}

struct Executed {
    status: u16,
    body: Vec<u8>,
    /// The answer is the result another execution of the same claim stored: nothing
    /// was executed now, and the client is told so (`Idempotent-Replayed`).
    replayed: bool,
    charged: bool,
    declined: bool,
    refunded: bool,
}

#[allow(clippy::too_many_arguments)]
/// Executes a request under its claim (`claim_id`), or with no claim at all when the
/// idempotency layer is off (the bench's comparison): then nothing is read from or
/// written to the idempotency table.
fn execute(c: &Connection, st: &mut WriterState, claim_id: Option<i64>, account: &str, key: &str, now_ms: i64, action: &Action, fail: bool) -> Result<Executed, StoreError> {
    if let Some(claim_id) = claim_id {
        let row: Option<(Option<i64>, Option<Vec<u8>>)> = c
            .prepare_cached("SELECT status, body FROM idem WHERE id=?1")?
            .query_row(params![claim_id], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        match row {
            None => return Err(StoreError("the idempotency claim disappeared before execution".into())),
            Some((Some(s), Some(b))) => {
                // Another (re-driven) execution finished first: answer with its result.
                return Ok(Executed { status: s as u16, body: b, replayed: true, charged: false, declined: false, refunded: false });
            }
            _ => {}
        }
    }
    let mut ex = Executed { status: 200, body: vec![], replayed: false, charged: false, declined: false, refunded: false };
    let now = now_ms / 1000;
    // Success bodies come back as the JSON text already written to their table, so the
    // object is serialised once per request.
    let result: Result<String, ApiError> = if fail {
        Err(ApiError { status: 500, typ: "api_error", code: Some("internal_error".into()), message: "An unknown error occurred while processing this request (injected).".into(), param: None, extra: vec![] })
    } else {
        match action {
            Action::CreatePi { .. } => create_pi(c, st, claim_id, account, key, now, action, &mut ex),
            Action::Capture { id, amount } => capture(c, st, account, key, now, id, *amount, &mut ex),
            Action::Cancel { id, reason } => cancel(c, st, account, key, now, id, reason.as_deref()),
            Action::UpdatePi { id, clear_metadata, metadata, description } => update_pi(c, account, id, *clear_metadata, metadata, description.as_ref()),
            Action::Refund { .. } => refund(c, st, claim_id, account, key, now, action, &mut ex),
        }
    };
    let (status, body) = match result {
        Ok(text) => (200, text.into_bytes()),
        Err(e) => (e.status, serde_json::to_vec(&e.body()).unwrap()),
    };
    ex.status = status;
    ex.body = body;
    if let Some(claim_id) = claim_id {
        c.prepare_cached("UPDATE idem SET status=?2, body=?3, finished_ms=?4 WHERE id=?1")?
            .execute(params![claim_id, status as i64, ex.body, now_ms])?;
    }
    Ok(ex)
}

fn db(e: rusqlite::Error) -> ApiError {
    internal(StoreError::from(e))
}

fn load(c: &Connection, table: &str, account: &str, id: &str) -> Result<Option<Value>, ApiError> {
    get_obj(c, table, account, id).map_err(internal)
}

/// Stores the updated intent; returns its JSON text (for its event and the response).
fn save_pi(c: &Connection, pi: &Value) -> Result<String, ApiError> {
    let text = pi.to_string();
    c.prepare_cached("UPDATE payment_intents SET obj=?2 WHERE id=?1")
        .and_then(|mut s| s.execute(params![pi["id"].as_str().unwrap(), text]))
        .map_err(db)?;
    Ok(text)
}

/// Stores the charge; returns its JSON text.
fn save_charge(c: &Connection, account: &str, ch: &Value) -> Result<String, ApiError> {
    let text = ch.to_string();
    c.prepare_cached("INSERT OR REPLACE INTO charges (id, account, obj) VALUES (?1, ?2, ?3)")
        .and_then(|mut s| s.execute(params![ch["id"].as_str().unwrap(), account, text]))
        .map_err(db)?;
    Ok(text)
}

/// The text of an event whose `data.object` is `obj_json` (an object's JSON text),
/// without parsing or re-serialising the object. Fields in Stripe's order (`id` first).
/// Not compared to a `serde_json::Value` serialisation byte for byte: that order depends
/// on whether a crate in the build enables serde_json's `preserve_order` (the
/// workspace build does, a standalone mock-psp build does not).
fn event_json(id: &str, now: i64, typ: &str, key: &str, obj_json: &str) -> String {
    let q = |s: &str| serde_json::to_string(s).unwrap();
    let mut ev = String::with_capacity(obj_json.len() + 256);
    ev.push_str("{\"id\":");
    ev.push_str(&q(id));
    ev.push_str(",\"object\":\"event\",\"api_version\":\"2025-03-31.basil\",\"created\":");
    ev.push_str(&now.to_string());
    ev.push_str(",\"data\":{\"object\":");
    ev.push_str(obj_json);
    ev.push_str("},\"livemode\":false,\"pending_webhooks\":0,\"request\":{\"id\":null,\"idempotency_key\":");
    ev.push_str(&q(key));
    ev.push_str("},\"type\":");
    ev.push_str(&q(typ));
    ev.push('}');
    ev
}

fn emit(c: &Connection, st: &mut WriterState, account: &str, key: &str, now: i64, typ: &str, obj_json: &str) -> Result<(), ApiError> {
    let id = st.mint("evt");
    let ev = event_json(&id, now, typ, key, obj_json);
    c.prepare_cached("INSERT INTO events (id, account, created, type, obj) VALUES (?1,?2,?3,?4,?5)")
        .and_then(|mut s| s.execute(params![id, account, now, typ, ev]))
        .map_err(db)?;
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn create_pi(c: &Connection, st: &mut WriterState, claim_id: Option<i64>, account: &str, key: &str, now: i64, action: &Action, ex: &mut Executed) -> Result<String, ApiError> {
    let Action::CreatePi { amount, currency, payment_method, confirm, manual, metadata, description } = action else { unreachable!() };
    // A re-drive of this claim finds the intent it already created: never a second one.
    let existing: Option<String> = match claim_id {
        Some(claim_id) => c.prepare_cached("SELECT obj FROM payment_intents WHERE claim_id=?1").and_then(|mut s| s.query_row(params![claim_id], |r| r.get(0)).optional()).map_err(db)?,
        None => None,
    };
    if let Some(obj) = existing {
        // The first execution's object: answered as what it is, a replay.
        ex.replayed = true;
        return Ok(obj);
    }
    let id = st.mint("pi");
    let secret = format!("{id}_secret_{}", st.random_alnum(24));
    let mut pi = json!({
        "id": id, "object": "payment_intent", "amount": amount, "amount_capturable": 0,
        "amount_received": 0, "currency": currency, "status": "requires_payment_method",
        "capture_method": if *manual { "manual" } else { "automatic" },
        "confirmation_method": "automatic", "client_secret": secret, "created": now,
        "description": description, "livemode": false, "metadata": metadata,
        "payment_method": payment_method, "payment_method_types": ["card"],
        "latest_charge": null, "last_payment_error": null, "canceled_at": null,
        "cancellation_reason": null,
    });
    let mut decline: Option<ApiError> = None;
    let mut events: Vec<&str> = vec![];
    if payment_method.is_some() && !confirm {
        pi["status"] = json!("requires_confirmation");
    }
    if *confirm {
        let pm = payment_method.as_deref().unwrap_or("");
        let ch_id = st.mint("ch");
        let decline_code = match pm {
            "pm_card_chargeDeclined" => Some("generic_decline"),
            "pm_card_chargeDeclinedInsufficientFunds" => Some("insufficient_funds"),
            _ => None,
        };
        let mut ch = json!({
            "id": ch_id, "object": "charge", "amount": amount, "amount_captured": 0,
            "amount_refunded": 0, "captured": false, "refunded": false, "currency": currency,
            "payment_intent": id, "payment_method": pm, "created": now, "livemode": false,
            "metadata": metadata, "status": "succeeded", "paid": true, "failure_code": null,
            "failure_message": null, "outcome": {"type": "authorized", "network_status": "approved_by_network"},
        });
        pi["latest_charge"] = json!(ch_id);
        match decline_code {
            Some(dc) => {
                let msg = if dc == "insufficient_funds" { "Your card has insufficient funds." } else { "Your card was declined." };
                ch["status"] = json!("failed");
                ch["paid"] = json!(false);
                ch["failure_code"] = json!("card_declined");
                ch["failure_message"] = json!(msg);
                ch["outcome"] = json!({"type": "issuer_declined", "network_status": "declined_by_network", "reason": dc});
                let err = json!({"type": "card_error", "code": "card_declined", "decline_code": dc, "message": msg, "charge": ch_id});
                pi["last_payment_error"] = err;
                pi["status"] = json!("requires_payment_method");
                events.push("payment_intent.payment_failed");
                ex.declined = true;
                decline = Some(ApiError {
                    status: 402,
                    typ: "card_error",
                    code: Some("card_declined".into()),
                    message: msg.into(),
                    param: None,
                    extra: vec![("decline_code", json!(dc)), ("charge", json!(ch_id))],
                });
            }
            None => {
                ex.charged = true;
                if *manual {
                    pi["status"] = json!("requires_capture");
                    pi["amount_capturable"] = json!(amount);
                    events.push("payment_intent.amount_capturable_updated");
                } else {
                    pi["status"] = json!("succeeded");
                    pi["amount_received"] = json!(amount);
                    ch["captured"] = json!(true);
                    ch["amount_captured"] = json!(amount);
                    events.push("payment_intent.succeeded");
                }
            }
        }
        save_charge(c, account, &ch)?;
    }
    let pi_json = pi.to_string();
    c.prepare_cached("INSERT INTO payment_intents (id, account, claim_id, created, obj) VALUES (?1,?2,?3,?4,?5)")
        .and_then(|mut s| s.execute(params![id, account, claim_id, now, pi_json]))
        .map_err(db)?;
    let seq = c.last_insert_rowid();
    for (k, v) in metadata {
        c.prepare_cached("INSERT INTO pi_metadata (account, k, v, pi_seq) VALUES (?1,?2,?3,?4)")
            .and_then(|mut s| s.execute(params![account, k, v, seq]))
            .map_err(db)?;
    }
    for e in events {
        emit(c, st, account, key, now, e, &pi_json)?;
    }
    match decline {
        Some(mut d) => {
            d.extra.push(("payment_intent", pi));
            Err(d)
        }
        None => Ok(pi_json),
    }
}

#[allow(clippy::too_many_arguments)]
fn capture(c: &Connection, st: &mut WriterState, account: &str, key: &str, now: i64, id: &str, amount: Option<i64>, _ex: &mut Executed) -> Result<String, ApiError> {
    let mut pi = load(c, "payment_intents", account, id)?.ok_or_else(|| missing("payment_intent", id, Some("intent")))?;
    if pi["status"] != "requires_capture" {
        return Err(invalid("payment_intent_unexpected_state", format!("This PaymentIntent could not be captured because it has a status of {}. Only a PaymentIntent with one of the following statuses may be captured: requires_capture.", pi["status"].as_str().unwrap_or("")), None));
    }
    let capturable = pi["amount_capturable"].as_i64().unwrap_or(0);
    let amt = amount.unwrap_or(capturable);
    if amt > capturable {
        return Err(invalid("amount_too_large", format!("The amount_to_capture ({amt}) is greater than the amount capturable ({capturable})."), Some("amount_to_capture")));
    }
    pi["status"] = json!("succeeded");
    pi["amount_received"] = json!(amt);
    pi["amount_capturable"] = json!(0);
    if let Some(ch_id) = pi["latest_charge"].as_str() {
        if let Some(mut ch) = load(c, "charges", account, ch_id)? {
            ch["captured"] = json!(true);
            ch["amount_captured"] = json!(amt);
            save_charge(c, account, &ch)?;
        }
    }
    let pi_json = save_pi(c, &pi)?;
    emit(c, st, account, key, now, "payment_intent.succeeded", &pi_json)?;
    Ok(pi_json)
}

fn cancel(c: &Connection, st: &mut WriterState, account: &str, key: &str, now: i64, id: &str, reason: Option<&str>) -> Result<String, ApiError> {
    let mut pi = load(c, "payment_intents", account, id)?.ok_or_else(|| missing("payment_intent", id, Some("intent")))?;
    let s = pi["status"].as_str().unwrap_or("").to_string();
    if !["requires_payment_method", "requires_capture", "requires_confirmation", "requires_action", "processing"].contains(&s.as_str()) {
        return Err(invalid("payment_intent_unexpected_state", format!("You cannot cancel this PaymentIntent because it has a status of {s}. Only a PaymentIntent with one of the following statuses may be canceled: requires_payment_method, requires_capture, requires_confirmation, requires_action, processing."), None));
    }
    pi["status"] = json!("canceled");
    pi["canceled_at"] = json!(now);
    pi["cancellation_reason"] = json!(reason);
    pi["amount_capturable"] = json!(0);
    let pi_json = save_pi(c, &pi)?;
    emit(c, st, account, key, now, "payment_intent.canceled", &pi_json)?;
    Ok(pi_json)
}

/// Most metadata keys an object may hold (Stripe's limit).
const MAX_METADATA_KEYS: usize = 50;

/// Stripe's update semantics for metadata and description. No event: Stripe sends
/// none for such an update (there is no `payment_intent.updated`).
fn update_pi(c: &Connection, account: &str, id: &str, clear_metadata: bool, changes: &BTreeMap<String, String>, description: Option<&Option<String>>) -> Result<String, ApiError> {
    let found: Option<(i64, String)> = c
        .prepare_cached("SELECT seq, obj FROM payment_intents WHERE id=?1 AND account=?2")
        .and_then(|mut s| s.query_row(params![id, account], |r| Ok((r.get(0)?, r.get(1)?))).optional())
        .map_err(db)?;
    let Some((seq, obj)) = found else { return Err(missing("payment_intent", id, Some("intent"))) };
    let mut pi: Value = serde_json::from_str(&obj).map_err(|e| internal(StoreError(format!("stored payment intent {id} is unreadable: {e}"))))?;
    let mut metadata: BTreeMap<String, String> = if clear_metadata { BTreeMap::new() } else { serde_json::from_value(pi["metadata"].clone()).unwrap_or_default() };
    for (k, v) in changes {
        if v.is_empty() {
            metadata.remove(k);
        } else {
            metadata.insert(k.clone(), v.clone());
        }
    }
    if metadata.len() > MAX_METADATA_KEYS {
        return Err(invalid("parameter_invalid_string", format!("At most {MAX_METADATA_KEYS} metadata keys (this update would leave {}).", metadata.len()), Some("metadata")));
    }
    if let Some(d) = description {
        pi["description"] = json!(d);
    }
    pi["metadata"] = json!(metadata);
    // The search index follows the object: its rows are replaced with the new set.
    c.prepare_cached("DELETE FROM pi_metadata WHERE account=?1 AND pi_seq=?2").and_then(|mut s| s.execute(params![account, seq])).map_err(db)?;
    for (k, v) in &metadata {
        c.prepare_cached("INSERT INTO pi_metadata (account, k, v, pi_seq) VALUES (?1,?2,?3,?4)").and_then(|mut s| s.execute(params![account, k, v, seq])).map_err(db)?;
    }
    save_pi(c, &pi)
}

#[allow(clippy::too_many_arguments)]
fn refund(c: &Connection, st: &mut WriterState, claim_id: Option<i64>, account: &str, key: &str, now: i64, action: &Action, ex: &mut Executed) -> Result<String, ApiError> {
    let Action::Refund { payment_intent, charge, amount, reason, metadata } = action else { unreachable!() };
    let existing: Option<String> = match claim_id {
        Some(claim_id) => c.prepare_cached("SELECT obj FROM refunds WHERE claim_id=?1").and_then(|mut s| s.query_row(params![claim_id], |r| r.get(0)).optional()).map_err(db)?,
        None => None,
    };
    if let Some(obj) = existing {
        // The first execution's object: answered as what it is, a replay.
        ex.replayed = true;
        return Ok(obj);
    }
    let pi = match (payment_intent, charge) {
        (Some(pid), _) => load(c, "payment_intents", account, pid)?.ok_or_else(|| missing("payment_intent", pid, Some("payment_intent")))?,
        (None, Some(chid)) => {
            let ch = load(c, "charges", account, chid)?.ok_or_else(|| missing("charge", chid, Some("charge")))?;
            let pid = ch["payment_intent"].as_str().unwrap_or("").to_string();
            load(c, "payment_intents", account, &pid)?.ok_or_else(|| missing("payment_intent", &pid, Some("charge")))?
        }
        (None, None) => unreachable!(),
    };
    let pid = pi["id"].as_str().unwrap_or("").to_string();
    if pi["status"] != "succeeded" {
        return Err(invalid("charge_not_refundable", format!("This PaymentIntent ({pid}) does not have a successful charge to refund (status {}).", pi["status"].as_str().unwrap_or("")), Some("payment_intent")));
    }
    let ch_id = pi["latest_charge"].as_str().unwrap_or("").to_string();
    let mut ch = load(c, "charges", account, &ch_id)?.ok_or_else(|| missing("charge", &ch_id, Some("charge")))?;
    if let Some(chid) = charge {
        if *chid != ch_id {
            return Err(invalid("parameter_invalid_string", "charge does not belong to payment_intent", Some("charge")));
        }
    }
    let captured = ch["amount_captured"].as_i64().unwrap_or(0);
    let refunded = ch["amount_refunded"].as_i64().unwrap_or(0);
    let remaining = captured - refunded;
    if remaining <= 0 {
        return Err(invalid("charge_already_refunded", format!("Charge {ch_id} has already been refunded."), None));
    }
    let amt = amount.unwrap_or(remaining);
    if amt > remaining {
        return Err(invalid("amount_too_large", format!("Refund amount ({amt}) is greater than unrefunded amount on charge ({remaining})"), Some("amount")));
    }
    let re_id = st.mint("re");
    let re = json!({
        "id": re_id, "object": "refund", "amount": amt, "charge": ch_id, "currency": pi["currency"],
        "payment_intent": pid, "status": "succeeded", "created": now, "metadata": metadata, "reason": reason,
    });
    let re_json = re.to_string();
    c.prepare_cached("INSERT INTO refunds (id, account, claim_id, obj) VALUES (?1,?2,?3,?4)")
        .and_then(|mut s| s.execute(params![re_id, account, claim_id, re_json]))
        .map_err(db)?;
    ch["amount_refunded"] = json!(refunded + amt);
    ch["refunded"] = json!(refunded + amt == captured);
    let ch_json = save_charge(c, account, &ch)?;
    emit(c, st, account, key, now, "charge.refunded", &ch_json)?;
    ex.refunded = true;
    Ok(re_json)
}

// ---------------------------------------------------------------- reads

fn get_obj(c: &Connection, table: &str, account: &str, id: &str) -> Result<Option<Value>, StoreError> {
    let sql = format!("SELECT obj FROM {table} WHERE id=?1 AND account=?2");
    let s: Option<String> = c.prepare_cached(&sql)?.query_row(params![id, account], |r| r.get(0)).optional()?;
    Ok(s.map(|s| serde_json::from_str(&s).unwrap_or(Value::Null)))
}

fn recent_events(c: &Connection, account: &str, n: i64) -> Result<Vec<Value>, StoreError> {
    let mut st = c.prepare_cached("SELECT obj FROM events WHERE account=?1 ORDER BY seq DESC LIMIT ?2")?;
    let rows = st.query_map(params![account, n], |r| r.get::<_, String>(0))?;
    let mut v = Vec::new();
    for r in rows {
        v.push(serde_json::from_str(&r?).unwrap_or(Value::Null));
    }
    Ok(v)
}

struct ListParams {
    limit: i64,
    starting_after: Option<String>,
    ending_before: Option<String>,
    created: Vec<(&'static str, i64)>,
}

impl ListParams {
    fn from(p: &P) -> Result<ListParams, ApiError> {
        let mut created = vec![];
        for (k, op) in [("created", "="), ("created[gt]", ">"), ("created[gte]", ">="), ("created[lt]", "<"), ("created[lte]", "<=")] {
            if let Some(v) = p.get(k) {
                let n = v.parse::<i64>().map_err(|_| invalid("parameter_invalid_integer", format!("Invalid timestamp in {k}"), Some(k)))?;
                created.push((op, n));
            }
        }
        if p.get("starting_after").is_some() && p.get("ending_before").is_some() {
            return Err(invalid("parameter_invalid_string", "You may only specify one of these parameters: ending_before, starting_after.", Some("starting_after")));
        }
        Ok(ListParams { limit: p.limit()?, starting_after: p.id("starting_after")?, ending_before: p.id("ending_before")?, created })
    }
}

/// Stripe list semantics: newest first; `starting_after` pages to older objects,
/// `ending_before` to newer ones; `has_more` says whether more exist that way.
/// What one list endpoint filters on besides the account, the cursor and `created`.
enum ListFilter {
    None,
    /// `/v1/events?type=…` / `types[]=…`.
    EventTypes(Vec<String>),
    /// `/v1/refunds?payment_intent=…` / `charge=…` (the refund object's own field).
    RefundOf { field: &'static str, id: String },
}

/// One page of a list, each object kept as the JSON text it is stored as: answering a
/// list never parses and re-serialises every object (the stored text is what
/// serde_json wrote, so the bytes are the same as a round trip would give).
struct Page {
    data: Vec<String>,
    has_more: bool,
    url: &'static str,
}

impl Page {
    fn to_bytes(&self) -> Vec<u8> {
        // Keys in serde_json's (sorted) order, as `json!` + `to_vec` produced before.
        let mut s = String::with_capacity(64 + self.data.iter().map(|d| d.len() + 1).sum::<usize>());
        s.push_str("{\"data\":[");
        for (i, d) in self.data.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            s.push_str(d);
        }
        s.push_str("],\"has_more\":");
        s.push_str(if self.has_more { "true" } else { "false" });
        s.push_str(",\"object\":\"list\",\"url\":");
        s.push_str(&serde_json::to_string(self.url).unwrap());
        s.push('}');
        s.into_bytes()
    }
    fn to_value(&self) -> Value {
        let data: Vec<Value> = self.data.iter().map(|d| serde_json::from_str(d).unwrap_or(Value::Null)).collect();
        json!({"object": "list", "data": data, "has_more": self.has_more, "url": self.url})
    }
}

fn list(c: &Connection, table: &str, account: &str, lp: &ListParams, filter: ListFilter, url: &'static str) -> Result<Result<Page, ApiError>, StoreError> {
    let mut sql = format!("SELECT seq, obj FROM {table} WHERE account=?");
    let mut args: Vec<rusqlite::types::Value> = vec![account.to_string().into()];
    // Refunds keep `created` inside the object only (the table predates the list endpoint,
    // and files written by older builds must keep opening), so it is read from there.
    let created_col = if table == "refunds" { "json_extract(obj, '$.created')" } else { "created" };
    let cursor = lp.starting_after.as_ref().map(|c| (c, "<", "starting_after")).or(lp.ending_before.as_ref().map(|c| (c, ">", "ending_before")));
    if let Some((id, op, pname)) = cursor {
        let seq: Option<i64> = c
            .prepare_cached(&format!("SELECT seq FROM {table} WHERE id=?1 AND account=?2"))?
            .query_row(params![id, account], |r| r.get(0))
            .optional()?;
        let Some(seq) = seq else {
            return Ok(Err(invalid("resource_missing", format!("No such object: '{id}'"), Some(pname))));
        };
        sql.push_str(&format!(" AND seq {op} ?"));
        args.push(seq.into());
    }
    for (op, n) in &lp.created {
        sql.push_str(&format!(" AND {created_col} {op} ?"));
        args.push((*n).into());
    }
    if table == "events" {
        // Pages run newest first along (account, seq); on the last page of a
        // `created[gte]` poll that scan would otherwise walk every older event of the
        // account, however old (the cost grew with the table). Bound it below by the
        // smallest seq whose `created` passes the lower bound (index events_created;
        // exact whatever the order of `created` vs seq).
        for (op, n) in lp.created.iter().filter(|(op, _)| matches!(*op, ">=" | ">" | "=")) {
            let oldest: Option<i64> = c
                .prepare_cached("SELECT min(created) FROM events WHERE account=?1")?
                .query_row(params![account], |r| r.get(0))?;
            if oldest.is_some_and(|o| o >= *n && *op == ">=") {
                continue; // every event passes: no bound needed
            }
            let lo: Option<i64> = c
                .prepare_cached(&format!("SELECT min(seq) FROM events WHERE account=?1 AND created {op} ?2"))?
                .query_row(params![account, n], |r| r.get(0))?;
            match lo {
                Some(lo) => {
                    sql.push_str(" AND seq >= ?");
                    args.push(lo.into());
                }
                None => return Ok(Ok(Page { data: vec![], has_more: false, url })),
            }
        }
    }
    match filter {
        ListFilter::None => {}
        ListFilter::EventTypes(types) => {
            sql.push_str(&format!(" AND type IN ({})", vec!["?"; types.len()].join(",")));
            for t in types {
                args.push(t.into());
            }
        }
        ListFilter::RefundOf { field, id } => {
            // `field` is one of two literals chosen by the route, never request text.
            sql.push_str(&format!(" AND json_extract(obj, '$.{field}') = ?"));
            args.push(id.into());
        }
    }
    let asc = lp.ending_before.is_some();
    sql.push_str(if asc { " ORDER BY seq ASC LIMIT ?" } else { " ORDER BY seq DESC LIMIT ?" });
    args.push((lp.limit + 1).into());
    // The SQL text depends only on which parameters were given: few variants, cached.
    let mut st = c.prepare_cached(&sql)?;
    let rows = st.query_map(rusqlite::params_from_iter(args), |r| r.get::<_, String>(1))?;
    let mut data = Vec::new();
    for r in rows {
        data.push(r?);
    }
    let has_more = data.len() as i64 > lp.limit;
    data.truncate(lp.limit as usize);
    if asc {
        data.reverse();
    }
    Ok(Ok(Page { data, has_more, url }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `event_json` splices the object's text into the envelope: the same JSON as
    /// building the event as a `Value` (whatever serde_json's key-order feature in this
    /// build), the object's bytes verbatim, `id` first as Stripe sends it.
    #[test]
    fn event_json_is_the_same_json_as_the_value_and_keeps_the_object_bytes() {
        let obj = json!({"id": "pi_1", "amount": 1999, "metadata": {"k": "v \"q\" \\ é \u{1}"}, "z": null});
        let obj_text = obj.to_string();
        for (id, key, typ) in [("evt_1", "key-1", "payment_intent.succeeded"), ("evt_\"2", "k\\\n\u{7f}ü", "charge.refunded")] {
            let want = json!({
                "id": id, "object": "event", "api_version": "2025-03-31.basil", "created": 1_700_000_000,
                "data": {"object": obj}, "livemode": false, "pending_webhooks": 0,
                "request": {"id": null, "idempotency_key": key}, "type": typ,
            });
            let got = event_json(id, 1_700_000_000, typ, key, &obj_text);
            assert_eq!(serde_json::from_str::<Value>(&got).unwrap(), want, "{got}");
            assert!(got.contains(&format!("\"data\":{{\"object\":{obj_text}}}")), "{got}");
            assert!(got.starts_with(&format!("{{\"id\":{}", serde_json::to_string(id).unwrap())), "{got}");
        }
    }

    /// hyper drops a request's future when its client disconnects. A POST dropped
    /// while its claim and chained execution wait for the log syncer's fsync still
    /// completes as one piece of work: the charge is recorded and counted once, and the
    /// retry replays it. (Without the detached task the charge went uncounted, and a
    /// failed execution would have left the key locked until the lock timeout.)
    // The syncer's lock is held across awaits on purpose: it keeps the fsync back.
    #[allow(clippy::await_holding_lock)]
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_post_dropped_while_its_execution_waits_for_the_fsync_is_still_recorded() {
        let dir = tempfile::tempdir().unwrap();
        let psp = crate::MockPsp::builder().db(dir.path().join("p.sqlite3")).secret_key("sk_test_a").build().unwrap();
        let form = [("amount", "1999"), ("currency", "usd"), ("payment_method", "pm_card_visa"), ("confirm", "true")];
        let req = || PspRequest::post("/v1/payment_intents", "sk_test_a", Some("k-dropped"), &form);
        let store = psp.store();
        let hold = store.durability().expect("group commit on a file").hold.lock();
        let client = {
            let psp = psp.clone();
            let req = req();
            tokio::spawn(async move { psp.handle_detached(req).await })
        };
        // The execution has committed (seen without waiting for the fsync) ...
        let finished = || store.read_blocking(|c| Ok(c.query_row("SELECT count(*) FROM idem WHERE key='k-dropped' AND status=200", [], |r| r.get::<_, i64>(0))?)).unwrap();
        let t0 = std::time::Instant::now();
        while finished() == 0 {
            assert!(t0.elapsed() < Duration::from_secs(30), "the execution never committed");
            tokio::task::yield_now().await;
        }
        // ... and the client goes away before it could be answered.
        client.abort();
        assert!(client.await.unwrap_err().is_cancelled());
        drop(hold);
        let t0 = std::time::Instant::now();
        while psp.stats()["charges"] != 1 {
            assert!(t0.elapsed() < Duration::from_secs(30), "the dropped request's charge was never counted: {}", psp.stats());
            tokio::task::yield_now().await;
        }
        let again = psp.handle(req()).await;
        let r = again.response().expect("answered");
        assert_eq!((r.status, r.header("idempotent-replayed")), (200, Some("true")), "the retry replays the first result");
        assert_eq!((psp.stats()["charges"].as_u64(), psp.stats()["replays"].as_u64()), (Some(1), Some(1)));
    }
}
