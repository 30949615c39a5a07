//! The `/__admin` endpoints (faults, offline, the test clock, stats, purge). Every input
//! is checked before anything changes: an unknown or repeated parameter, a value that
//! does not parse, or one outside its range is a 400 that names the parameter and the
//! range. Durations are bounded so that no timestamp sum can overflow (see
//! [`crate::clock::MAX_CLOCK_MS`]).
use super::{internal, invalid, not_found_url, truncate, ApiError, PspRequest, PspResponse};
use crate::faults::{Fault, FaultConfig, ScriptEntry};
use crate::api::terminal::auto::{AutoPresent, MAX_AUTO_PRESENT_MS};
use crate::reader_faults::ReaderFault;
use crate::form;
use crate::store::StoreError;
use crate::Inner;
use serde_json::{json, Value};
use std::sync::atomic::Ordering::Relaxed;
use std::collections::BTreeMap;
use std::time::Duration;

/// Longest offline period one call may set: 30 days.
pub const MAX_OFFLINE_MS: u64 = 30 * 24 * 3600 * 1000;
/// Largest single clock advance: 3650 days (about ten years).
pub const MAX_ADVANCE_MS: u64 = 3650 * 24 * 3600 * 1000;
/// Largest slow-fault delay: one hour.
pub const MAX_SLOW_MS: u64 = 3600 * 1000;
/// Largest search lag: one day.
pub const MAX_SEARCH_LAG_MS: u64 = 24 * 3600 * 1000;
/// Most requests one scripted fault may apply to.
pub const MAX_SCRIPT_COUNT: u64 = 1_000_000;
/// Longest scripted path.
const MAX_SCRIPT_PATH: usize = 256;

/// The parameters of one admin request, checked against the endpoint's list.
struct Args(BTreeMap<String, String>);

impl Args {
    fn new(params: form::Params, allowed: &[&str]) -> Result<Args, ApiError> {
        let mut map = BTreeMap::new();
        for (k, v) in params {
            if !allowed.contains(&k.as_str()) {
                let shown = truncate(&k, 80);
                let expected = if allowed.is_empty() { "none".to_string() } else { allowed.join(", ") };
                return Err(invalid("parameter_unknown", format!("Received unknown parameter: {shown} (this endpoint takes: {expected})"), Some(&shown)));
            }
            if map.contains_key(&k) {
                return Err(invalid("parameter_duplicate", format!("Received duplicate parameter: {k}"), Some(&k)));
            }
            map.insert(k, v);
        }
        Ok(Args(map))
    }
    fn get(&self, k: &str) -> Option<&str> {
        self.0.get(k).map(String::as_str)
    }
    /// An integer in `lo..=hi`, if given.
    fn int(&self, k: &str, lo: u64, hi: u64) -> Result<Option<u64>, ApiError> {
        let Some(v) = self.get(k) else { return Ok(None) };
        let n = if !v.is_empty() && v.len() <= 20 && v.bytes().all(|b| b.is_ascii_digit()) { v.parse::<u64>().ok() } else { None };
        match n {
            Some(n) if (lo..=hi).contains(&n) => Ok(Some(n)),
            _ => Err(invalid("parameter_invalid_integer", format!("{k} must be an integer between {lo} and {hi} (got {})", truncate(v, 40)), Some(k))),
        }
    }
    fn bool(&self, k: &str) -> Result<Option<bool>, ApiError> {
        match self.get(k) {
            None => Ok(None),
            Some("true" | "1") => Ok(Some(true)),
            Some("false" | "0") => Ok(Some(false)),
            Some(v) => Err(invalid("parameter_invalid_boolean", format!("{k} must be true or false (got {})", truncate(v, 40)), Some(k))),
        }
    }
    fn prob(&self, k: &str) -> Result<Option<f64>, ApiError> {
        let Some(v) = self.get(k) else { return Ok(None) };
        match v.parse::<f64>() {
            Ok(p) if (0.0..=1.0).contains(&p) => Ok(Some(p)),
            _ => Err(invalid("parameter_invalid_string", format!("{k} must be a probability between 0 and 1 (got {})", truncate(v, 40)), Some(k))),
        }
    }
}

const FAULT_PARAMS: &[&str] = &[
    "preset", "drop_request", "drop_response", "slow", "slow_ms", "transient_503", "transient_429", "internal_error", "duplicate_events", "search_lag_ms",
    "reader_timeout_started", "reader_timeout", "reader_offline", "reader_offline_ms", "reader_busy", "reader_connection_error", "reader_event_lost",
    "reader_customer_cancels", "reader_present_delay", "reader_present_delay_ms",
];
/// Longest reader offline period or presentation delay a fault may set: one hour.
pub const MAX_READER_FAULT_MS: u64 = 3600 * 1000;

impl Inner {
    pub(crate) async fn admin(&self, req: &PspRequest) -> PspResponse {
        if !self.admin {
            return not_found_url(&req.method, &req.path.trim_matches('/').split('/').collect::<Vec<_>>()).response();
        }
        match self.admin_inner(req).await {
            Ok(v) => PspResponse::new(200, serde_json::to_vec(&v).unwrap_or_default()),
            Err(e) => e.response(),
        }
    }

    async fn admin_inner(&self, req: &PspRequest) -> Result<Value, ApiError> {
        let src = if req.method == "GET" { req.query.as_bytes() } else { &req.body[..] };
        let params = form::parse(src).map_err(|e| invalid("parameter_invalid_string", e.0, None))?;
        let args = |allowed: &[&str]| Args::new(params.clone(), allowed);
        match (req.method.as_str(), req.path.as_str()) {
            ("GET", "/__admin/stats") => {
                args(&[])?;
                Ok(self.stats_json())
            }
            ("GET", "/__admin/faults") => {
                args(&[])?;
                Ok(json!({"config": self.faults.config(), "script": self.faults.scripted(), "reader_script": self.reader_script_json()}))
            }
            ("POST", "/__admin/faults") => self.post_faults(&args(FAULT_PARAMS)?),
            ("POST", "/__admin/faults/script") => self.post_fault_script(&args(&["fault", "path", "count", "slow_ms"])?),
            ("POST", "/__admin/faults/script/clear") => {
                args(&[])?;
                self.faults.clear_script();
                Ok(json!({"script": []}))
            }
            ("POST", "/__admin/offline") => {
                let a = args(&["on", "duration_ms"])?;
                let on = a.bool("on")?.unwrap_or(true);
                let dur = a.int("duration_ms", 1, MAX_OFFLINE_MS)?;
                if dur.is_some() && !on {
                    return Err(invalid("parameter_invalid_string", "duration_ms goes with on=true (how long to stay offline)", Some("duration_ms")));
                }
                self.set_offline(on, dur.map(Duration::from_millis));
                Ok(json!({"offline": self.is_offline()}))
            }
            ("GET", "/__admin/clock") => {
                args(&[])?;
                Ok(json!({"now_ms": self.clock.now_ms()}))
            }
            ("POST", "/__admin/clock/advance") => self.post_clock_advance(&args(&["ms", "seconds"])?),
            ("GET", "/__admin/terminal/auto_present") => {
                args(&[])?;
                Ok(json!({"auto_present": *self.auto_present.lock()}))
            }
            ("POST", "/__admin/terminal/auto_present") => self.post_auto_present(&args(&["on", "card_number", "after_ms", "reader"])?),
            ("POST", "/__admin/purge") => {
                args(&[])?;
                let (n, worst) = self.purge_expired().await.map_err(internal)?;
                Ok(json!({"purged": n, "worst_chunk_ms": worst.as_secs_f64() * 1000.0}))
            }
            _ => Err(not_found_url(&req.method, &req.path.trim_matches('/').split('/').collect::<Vec<_>>())),
        }
    }

    /// `POST /__admin/faults`: a preset, then each rate, delay and reader fault given.
    fn post_faults(&self, a: &Args) -> Result<Value, ApiError> {
        let mut cfg = match a.get("preset") {
            Some(p) => FaultConfig::preset(p).ok_or_else(|| invalid("parameter_invalid_string", "preset must be none, flaky or chaos", Some("preset")))?,
            None => self.faults.config(),
        };
        for f in Fault::ALL {
            if let Some(p) = a.prob(f.name())? {
                cfg.set_rate(f, p);
            }
        }
        if let Some(ms) = a.int("slow_ms", 0, MAX_SLOW_MS)? {
            cfg.slow_ms = ms;
        }
        if let Some(ms) = a.int("search_lag_ms", 0, MAX_SEARCH_LAG_MS)? {
            cfg.search_lag_ms = ms;
        }
        for f in ReaderFault::ALL {
            if let Some(p) = a.prob(f.name())? {
                cfg.reader.set_rate(f, p);
            }
        }
        if let Some(ms) = a.int("reader_offline_ms", 1, MAX_READER_FAULT_MS)? {
            cfg.reader.reader_offline_ms = ms;
        }
        if let Some(ms) = a.int("reader_present_delay_ms", 0, MAX_READER_FAULT_MS)? {
            cfg.reader.reader_present_delay_ms = ms;
        }
        self.faults.set_config(cfg.clone());
        Ok(json!({"config": cfg}))
    }

    /// `POST /__admin/faults/script`: a fault for the next `count` requests to a path (or,
    /// for a reader fault, the next process_payment_intent calls).
    fn post_fault_script(&self, a: &Args) -> Result<Value, ApiError> {
        // A reader fault applies to the next process_payment_intent calls (any reader).
        if let Some(rf) = a.get("fault").and_then(ReaderFault::parse) {
            if a.get("path").is_some() || a.get("slow_ms").is_some() {
                return Err(invalid("parameter_invalid_string", "a reader fault takes only count: it applies to the next process_payment_intent calls", Some("path")));
            }
            let count = a.int("count", 1, MAX_SCRIPT_COUNT)?.unwrap_or(1) as u32;
            self.faults.script_reader(rf, count);
            return Ok(json!({"script": self.faults.scripted(), "reader_script": self.reader_script_json()}));
        }
        let fault = a.get("fault").and_then(Fault::parse).ok_or_else(|| {
            let readers: Vec<&str> = ReaderFault::ALL.iter().map(|f| f.name()).collect();
            invalid("parameter_invalid_string", format!("fault must be one of drop_request, drop_response, slow, transient_503, transient_429, internal_error, duplicate_events, or a reader fault: {}", readers.join(", ")), Some("fault"))
        })?;
        let path = a.get("path").unwrap_or("*");
        if path.len() > MAX_SCRIPT_PATH || !(path.starts_with('/') || path == "*") {
            return Err(invalid("parameter_invalid_string", format!("path must be * or start with / and have at most {MAX_SCRIPT_PATH} characters"), Some("path")));
        }
        let count = a.int("count", 1, MAX_SCRIPT_COUNT)?.unwrap_or(1) as u32;
        let slow_ms = a.int("slow_ms", 0, MAX_SLOW_MS)?;
        self.faults.script(ScriptEntry { path: path.to_string(), fault, remaining: count, slow_ms });
        Ok(json!({"script": self.faults.scripted()}))
    }

    /// `POST /__admin/clock/advance` by `ms` or `seconds`.
    fn post_clock_advance(&self, a: &Args) -> Result<Value, ApiError> {
        let ms = match (a.int("ms", 1, MAX_ADVANCE_MS)?, a.int("seconds", 1, MAX_ADVANCE_MS / 1000)?) {
            (Some(_), Some(_)) => return Err(invalid("parameter_invalid_string", "give ms or seconds, not both", Some("seconds"))),
            (Some(ms), None) => ms,
            (None, Some(s)) => s * 1000,
            (None, None) => return Err(invalid("parameter_missing", "ms or seconds is required", Some("ms"))),
        };
        if !self.clock.advance(Duration::from_millis(ms)) {
            return Err(invalid("clock_fixed", format!("this clock cannot be moved by {ms} ms (a fixed clock, or past year 9999)"), None));
        }
        Ok(json!({"now_ms": self.clock.now_ms()}))
    }

    /// `POST /__admin/terminal/auto_present`: the simulated customer who presents a card
    /// on every reader action (on), or nobody (off).
    fn post_auto_present(&self, a: &Args) -> Result<Value, ApiError> {
        let on = a.bool("on")?.unwrap_or(true);
        let after_ms = a.int("after_ms", 0, MAX_AUTO_PRESENT_MS)?;
        let reader = a.get("reader").map(str::to_string);
        if !on {
            if a.get("card_number").is_some() || after_ms.is_some() || reader.is_some() {
                return Err(invalid("parameter_invalid_string", "on=false takes no other parameter (it turns the switch off)", Some("on")));
            }
            *self.auto_present.lock() = None;
            return Ok(json!({"auto_present": null}));
        }
        if let Some(r) = &reader {
            if !super::params::valid_id(r) {
                return Err(invalid("parameter_invalid_string", "reader must be a reader id (tmr_…)", Some("reader")));
            }
        }
        let card = a.get("card_number").unwrap_or("4242424242424242");
        let auto = AutoPresent::new(card, after_ms.unwrap_or(1000), reader).map_err(|e| invalid("parameter_invalid_string", e, Some("card_number")))?;
        *self.auto_present.lock() = Some(auto.clone());
        Ok(json!({"auto_present": auto}))
    }

    fn reader_script_json(&self) -> Value {
        json!(self.faults.scripted_reader().iter().map(|(f, n)| json!({"fault": f.name(), "remaining": n})).collect::<Vec<_>>())
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

    /// Deletes keys past retention (see [`crate::store::Store::purge_expired`]).
    pub(crate) async fn purge_expired(&self) -> Result<(usize, Duration), StoreError> {
        let cutoff = self.clock.now_ms().saturating_sub(self.retention_ms);
        self.store.purge_expired(cutoff, self.purge_chunk, &self.stats.purged_keys).await
    }
}


#[derive(Clone, Copy, Debug)]
pub(crate) enum Offline {
    Online,
    Indefinite,
    Until(i64),
}
