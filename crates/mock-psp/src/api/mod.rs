//! The PSP itself, one file per concern (see the crate's README for the table): this
//! module holds the shared vocabulary — [`PspRequest`] → [`Outcome`], responses,
//! counters, the context an operation executes in ([`Tx`]) — and the request path
//! in front of every operation: body limit, offline, injected faults, authentication
//! and routing. Everything here works without a socket.
use crate::faults::{Decision, Fault};
use crate::reader_faults::ReaderFault;
use crate::form;
use crate::store::WriterState;
use crate::Inner;
use bytes::Bytes;
use rusqlite::Connection;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Duration;

pub mod admin;
mod auth;
mod errors;
mod events;
mod idempotency;
mod intents;
mod lists;
mod params;
pub use params::TestPaymentMethod;
mod refunds;
pub mod search;
pub mod terminal;

pub(crate) use errors::{internal, invalid, not_found_url, truncate, ApiError};
pub use idempotency::MAX_IDEMPOTENCY_KEY_LEN;
pub(crate) use admin::Offline;

/// The Stripe API version this mock speaks: the `Stripe-Version` header of every
/// answer and the `api_version` of every event.
pub const STRIPE_API_VERSION: &str = "2025-03-31.basil";

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
            Outcome::DropRequest | Outcome::DropResponse(_) | Outcome::Offline => None,
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
    /// Reader faults that took effect, in [`ReaderFault::ALL`] order.
    pub reader_faults: [AtomicU64; 8],
}

impl Stats {
    pub fn fault(&self, f: Fault) {
        self.faults[Fault::ALL.iter().position(|x| *x == f).unwrap()].fetch_add(1, Relaxed);
    }
    pub fn reader_fault(&self, f: ReaderFault) {
        self.reader_faults[ReaderFault::ALL.iter().position(|x| *x == f).unwrap()].fetch_add(1, Relaxed);
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
        let mut reader = serde_json::Map::new();
        for (i, f) in ReaderFault::ALL.iter().enumerate() {
            reader.insert(f.name().into(), json!(self.reader_faults[i].load(Relaxed)));
        }
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
            "reader_faults": reader,
        })
    }
}

/// What one execution did, for the idempotency layer (what to store and answer) and
/// the counters.
pub(super) struct Executed {
    pub status: u16,
    pub body: Vec<u8>,
    /// The answer is the result another execution of the same claim stored: nothing
    /// was executed now, and the client is told so (`Idempotent-Replayed`).
    pub replayed: bool,
    pub charged: bool,
    pub declined: bool,
    pub refunded: bool,
    /// The reader fault that took effect in this execution, if any.
    pub reader_fault: Option<ReaderFault>,
}

impl Executed {
    fn new() -> Executed {
        Executed { status: 200, body: vec![], replayed: false, charged: false, declined: false, refunded: false, reader_fault: None }
    }
}

/// The context one write operation executes in, on the writer thread inside the
/// batch's transaction: the connection, the id minter, the claim it runs under
/// (`None` with the idempotency layer off), the account and key, the time, and what
/// it did so far.
pub(super) struct Tx<'a> {
    pub c: &'a Connection,
    pub st: &'a mut WriterState,
    pub claim_id: Option<i64>,
    pub account: &'a str,
    pub key: &'a str,
    /// Seconds since the epoch (Stripe's `created`).
    pub now: i64,
    /// The same time in milliseconds (reader offline periods, delays).
    pub now_ms: i64,
    pub out: Executed,
}

impl Tx<'_> {
    /// The object (of `table`: `payment_intents` or `refunds`, a literal) an earlier
    /// execution of this same claim created, if any: a re-drive finds it instead of
    /// creating a second one (never a second charge), and answers with it as what it
    /// is, a replay.
    fn created_by_this_claim(&mut self, table: &'static str) -> Result<Option<String>, ApiError> {
        use rusqlite::OptionalExtension;
        let Some(claim_id) = self.claim_id else { return Ok(None) };
        let sql = format!("SELECT obj FROM {table} WHERE claim_id=?1");
        let obj: Option<String> = self.c.prepare_cached(&sql).and_then(|mut s| s.query_row(rusqlite::params![claim_id], |r| r.get(0)).optional()).map_err(errors::db)?;
        if obj.is_some() {
            self.out.replayed = true;
        }
        Ok(obj)
    }
}

/// A 200 with `v` as its JSON body.
fn json_response(v: &Value) -> PspResponse {
    PspResponse::new(200, serde_json::to_vec(v).unwrap())
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
            let e = invalid("request_too_large", format!("Request bodies are limited to {} bytes.", crate::MAX_BODY_BYTES), None).with_status(413);
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
            let e = errors::transient(code);
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
        let mut resp = resp.with("Request-Id", self.request_id()).with("Stripe-Version", STRIPE_API_VERSION);
        // Echoed only when it is the request's one valid key (anything else was refused).
        if req.method == "POST" {
            if let Ok(k) = idempotency::idempotency_key(req) {
                resp = resp.with("Idempotency-Key", k);
            }
        }
        resp
    }

    async fn dispatch(self: &Arc<Self>, req: &PspRequest, decision: &Decision, detach: bool) -> PspResponse {
        let account = match auth::account_or_401(self, req) {
            Ok(a) => a,
            Err(resp) => return resp,
        };
        let segs: Vec<&str> = req.path.trim_matches('/').split('/').collect();
        let result = match req.method.as_str() {
            "GET" => {
                let r = self.get(&account, &segs, req, decision).await;
                if let ["v1", "terminal", "readers", id] = segs.as_slice() {
                    if params::valid_id(id) {
                        self.terminal_overdue(&account, id).await;
                    }
                }
                r
            }
            "POST" => {
                let r = self.post(&account, &segs, req, decision, detach).await;
                // What a reader does by itself next (auto-present, a delayed card).
                if let ["v1", "terminal", "readers", id, _] | ["v1", "test_helpers", "terminal", "readers", id, _] = segs.as_slice() {
                    if params::valid_id(id) {
                        self.terminal_after(&account, id).await;
                    }
                }
                r
            }
            "DELETE" => Err(not_found_url("DELETE", &segs)),
            m => Err(errors::method_not_allowed(m)),
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

    /// Routes a GET to its operation (after the slow fault, which delays every GET).
    async fn get(&self, account: &str, segs: &[&str], req: &PspRequest, decision: &Decision) -> Result<PspResponse, ApiError> {
        let params = form::parse(req.query.as_bytes()).map_err(|e| invalid("parameter_invalid_string", e.0, None))?;
        if let Some(ms) = decision.slow_ms {
            self.stats.fault(Fault::Slow);
            self.clock.sleep(Duration::from_millis(ms)).await;
        }
        match segs {
            ["v1", "payment_intents", "search"] => self.search_intents(account, &params).await,
            ["v1", "payment_intents"] => self.list_intents(account, &params).await,
            ["v1", "payment_intents", id] if params::valid_id(id) => self.get_intent(account, id, &params).await,
            ["v1", "refunds"] => self.list_refunds(account, &params).await,
            ["v1", "refunds", id] if params::valid_id(id) => self.get_refund(account, id, &params).await,
            ["v1", "charges", id] if params::valid_id(id) => self.get_charge(account, id, &params).await,
            ["v1", "events", id] if params::valid_id(id) => self.get_event(account, id, &params).await,
            ["v1", "events"] => self.list_events(account, &params, decision.duplicate_events).await,
            ["v1", "terminal", "locations"] => self.list_locations(account, &params).await,
            ["v1", "terminal", "locations", id] if params::valid_id(id) => self.get_location(account, id, &params).await,
            ["v1", "terminal", "readers"] => self.list_readers(account, &params).await,
            ["v1", "terminal", "readers", id] if params::valid_id(id) => self.get_reader(account, id, &params).await,
            _ => Err(not_found_url("GET", segs)),
        }
    }

    /// One stored object of `account` by id, read on a read connection.
    async fn read_object(&self, table: &'static str, account: &str, id: &str) -> Result<Option<Value>, ApiError> {
        let (acct, id) = (account.to_string(), id.to_string());
        self.store.read(move |c| get_obj(c, table, &acct, &id)).await.map_err(internal)
    }
}

/// One stored object's JSON, if `account` owns one with this id. `table` is a literal
/// chosen by the caller, never request text.
fn get_obj(c: &Connection, table: &str, account: &str, id: &str) -> Result<Option<Value>, crate::store::StoreError> {
    use rusqlite::OptionalExtension;
    let sql = format!("SELECT obj FROM {table} WHERE id=?1 AND account=?2");
    let s: Option<String> = c.prepare_cached(&sql)?.query_row(rusqlite::params![id, account], |r| r.get(0)).optional()?;
    Ok(s.map(|s| serde_json::from_str(&s).unwrap_or(Value::Null)))
}

/// [`get_obj`] inside an operation (an error is a 500).
fn load(c: &Connection, table: &str, account: &str, id: &str) -> Result<Option<Value>, ApiError> {
    get_obj(c, table, account, id).map_err(internal)
}
