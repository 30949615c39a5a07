//! Fault injection: rates drawn from a seeded ChaCha generator, presets, a script
//! mode ("the next N requests to this path get fault F") and an offline switch.
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use parking_lot::Mutex;
use crate::reader_faults::{ReaderFault, ReaderFaultConfig, ReaderFaultState};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fault {
    /// Case A: read the request, do nothing, never answer.
    DropRequest,
    /// Case B: execute and commit, then close the connection without answering.
    DropResponse,
    /// Case C: claim, then execute slowly (retries see 409 meanwhile).
    Slow,
    /// 503 before execution (not stored).
    Transient503,
    /// 429 before execution (not stored).
    Transient429,
    /// Execution began, then failed: a stored 500 `api_error`.
    InternalError,
    /// `GET /v1/events` re-delivers already delivered events, out of order.
    DuplicateEvents,
}

impl Fault {
    pub const ALL: [Fault; 7] = [
        Fault::DropRequest,
        Fault::DropResponse,
        Fault::Slow,
        Fault::Transient503,
        Fault::Transient429,
        Fault::InternalError,
        Fault::DuplicateEvents,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Fault::DropRequest => "drop_request",
            Fault::DropResponse => "drop_response",
            Fault::Slow => "slow",
            Fault::Transient503 => "transient_503",
            Fault::Transient429 => "transient_429",
            Fault::InternalError => "internal_error",
            Fault::DuplicateEvents => "duplicate_events",
        }
    }
    pub fn parse(s: &str) -> Option<Fault> {
        Fault::ALL.into_iter().find(|f| f.name() == s)
    }
}

/// Probability (0..=1) of each fault per request, plus the slow delay.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FaultConfig {
    pub drop_request: f64,
    pub drop_response: f64,
    pub slow: f64,
    pub slow_ms: u64,
    pub transient_503: f64,
    pub transient_429: f64,
    pub internal_error: f64,
    pub duplicate_events: f64,
    /// Search lag (not a per-request draw): `GET /v1/payment_intents/search` leaves out
    /// PaymentIntents created less than this many ms ago by the PSP's clock, as
    /// Stripe's eventually consistent Search API does (data normally searchable within
    /// about a minute). `created` has second resolution, so a PaymentIntent stays
    /// hidden between this and this + 999 ms; never less. 0 (default): no lag.
    #[serde(default)]
    pub search_lag_ms: u64,
    /// Card-reader faults (one draw per `process_payment_intent`, see [`crate::reader_faults`]).
    #[serde(default)]
    pub reader: ReaderFaultConfig,
}

impl Default for FaultConfig {
    fn default() -> Self {
        Self::none()
    }
}

impl FaultConfig {
    pub fn none() -> Self {
        FaultConfig {
            drop_request: 0.0,
            drop_response: 0.0,
            slow: 0.0,
            slow_ms: 2000,
            transient_503: 0.0,
            transient_429: 0.0,
            internal_error: 0.0,
            duplicate_events: 0.0,
            search_lag_ms: 0,
            reader: ReaderFaultConfig::none(),
        }
    }
    /// An unreliable but usable network: a few percent of each fault.
    pub fn flaky() -> Self {
        FaultConfig {
            drop_request: 0.03,
            drop_response: 0.05,
            slow: 0.05,
            slow_ms: 1500,
            transient_503: 0.03,
            transient_429: 0.02,
            internal_error: 0.0,
            duplicate_events: 0.2,
            search_lag_ms: 0,
            reader: ReaderFaultConfig::flaky(),
        }
    }
    /// Hostile: about a third of requests hit a fault.
    pub fn chaos() -> Self {
        FaultConfig {
            drop_request: 0.08,
            drop_response: 0.12,
            slow: 0.1,
            slow_ms: 3000,
            transient_503: 0.06,
            transient_429: 0.04,
            internal_error: 0.01,
            duplicate_events: 0.5,
            search_lag_ms: 0,
            reader: ReaderFaultConfig::chaos(),
        }
    }
    pub fn preset(name: &str) -> Option<Self> {
        match name {
            "none" => Some(Self::none()),
            "flaky" => Some(Self::flaky()),
            "chaos" => Some(Self::chaos()),
            _ => None,
        }
    }
    pub fn rate(&self, f: Fault) -> f64 {
        match f {
            Fault::DropRequest => self.drop_request,
            Fault::DropResponse => self.drop_response,
            Fault::Slow => self.slow,
            Fault::Transient503 => self.transient_503,
            Fault::Transient429 => self.transient_429,
            Fault::InternalError => self.internal_error,
            Fault::DuplicateEvents => self.duplicate_events,
        }
    }
    pub fn set_rate(&mut self, f: Fault, p: f64) {
        let p = p.clamp(0.0, 1.0);
        match f {
            Fault::DropRequest => self.drop_request = p,
            Fault::DropResponse => self.drop_response = p,
            Fault::Slow => self.slow = p,
            Fault::Transient503 => self.transient_503 = p,
            Fault::Transient429 => self.transient_429 = p,
            Fault::InternalError => self.internal_error = p,
            Fault::DuplicateEvents => self.duplicate_events = p,
        }
    }
}

/// One scripted fault: the next `remaining` requests whose path matches `path`
/// (exactly, or by prefix when `path` ends with `*`) get `fault`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ScriptEntry {
    pub path: String,
    pub fault: Fault,
    pub remaining: u32,
    /// Delay for a scripted `slow` (falls back to the config's `slow_ms`).
    pub slow_ms: Option<u64>,
}

/// What the fault engine decided for one request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Decision {
    pub drop_request: bool,
    pub drop_response: bool,
    pub slow_ms: Option<u64>,
    pub transient: Option<u16>,
    pub internal_error: bool,
    pub duplicate_events: bool,
}

impl Decision {
    pub fn faults(&self) -> Vec<Fault> {
        let mut v = Vec::new();
        if self.drop_request {
            v.push(Fault::DropRequest)
        }
        if self.drop_response {
            v.push(Fault::DropResponse)
        }
        if self.slow_ms.is_some() {
            v.push(Fault::Slow)
        }
        match self.transient {
            Some(503) => v.push(Fault::Transient503),
            Some(_) => v.push(Fault::Transient429),
            None => {}
        }
        if self.internal_error {
            v.push(Fault::InternalError)
        }
        if self.duplicate_events {
            v.push(Fault::DuplicateEvents)
        }
        v
    }
}

pub struct FaultEngine {
    config: Mutex<FaultConfig>,
    rng: Mutex<ChaCha8Rng>,
    script: Mutex<Vec<ScriptEntry>>,
    reader: Mutex<ReaderFaultState>,
}

impl FaultEngine {
    pub fn new(config: FaultConfig, seed: u64) -> Self {
        FaultEngine {
            config: Mutex::new(config),
            rng: Mutex::new(ChaCha8Rng::seed_from_u64(seed ^ 0x6661_756c_7473)),
            script: Mutex::new(Vec::new()),
            reader: Mutex::new(ReaderFaultState::new(seed)),
        }
    }
    pub fn config(&self) -> FaultConfig {
        self.config.lock().clone()
    }
    pub fn set_config(&self, c: FaultConfig) {
        *self.config.lock() = c;
    }
    pub fn script(&self, entry: ScriptEntry) {
        if entry.remaining > 0 {
            self.script.lock().push(entry);
        }
    }
    pub fn scripted(&self) -> Vec<ScriptEntry> {
        self.script.lock().clone()
    }
    pub fn clear_script(&self) {
        self.script.lock().clear();
        self.reader.lock().clear_script();
    }
    /// Script mode for readers: the next `count` process calls get `fault`.
    pub fn script_reader(&self, fault: ReaderFault, count: u32) {
        self.reader.lock().script(fault, count);
    }
    pub fn scripted_reader(&self) -> Vec<(ReaderFault, u32)> {
        self.reader.lock().scripted()
    }
    /// The reader fault for one `process_payment_intent` (scripted, else drawn).
    pub fn decide_reader(&self) -> Option<ReaderFault> {
        let cfg = self.config().reader;
        self.reader.lock().decide(&cfg)
    }

    /// Decides the faults for one request. A scripted fault for the path wins over
    /// the random rates; random draws always consume the same number of values, so a
    /// run with one seed and one request order is reproducible.
    pub fn decide(&self, method: &str, path: &str) -> Decision {
        let mut d = Decision::default();
        let cfg = self.config();
        {
            let mut script = self.script.lock();
            if let Some(pos) = script.iter().position(|e| {
                e.path == path || (e.path.ends_with('*') && path.starts_with(&e.path[..e.path.len() - 1]))
            }) {
                let e = &mut script[pos];
                match e.fault {
                    Fault::DropRequest => d.drop_request = true,
                    Fault::DropResponse => d.drop_response = true,
                    Fault::Slow => d.slow_ms = Some(e.slow_ms.unwrap_or(cfg.slow_ms)),
                    Fault::Transient503 => d.transient = Some(503),
                    Fault::Transient429 => d.transient = Some(429),
                    Fault::InternalError => d.internal_error = true,
                    Fault::DuplicateEvents => d.duplicate_events = true,
                }
                e.remaining -= 1;
                if e.remaining == 0 {
                    script.remove(pos);
                }
                return d;
            }
        }
        let mut rng = self.rng.lock();
        let draws: [f64; 7] = std::array::from_fn(|_| rng.random::<f64>());
        let is_post = method == "POST";
        let is_events = path == "/v1/events";
        if draws[0] < cfg.drop_request {
            d.drop_request = true;
            return d;
        }
        if draws[1] < cfg.transient_503 {
            d.transient = Some(503);
            return d;
        }
        if draws[2] < cfg.transient_429 {
            d.transient = Some(429);
            return d;
        }
        if draws[3] < cfg.slow {
            d.slow_ms = Some(cfg.slow_ms);
        }
        if is_post && draws[4] < cfg.internal_error {
            d.internal_error = true;
        }
        if draws[5] < cfg.drop_response {
            d.drop_response = true;
        }
        if is_events && draws[6] < cfg.duplicate_events {
            d.duplicate_events = true;
        }
        d
    }

    /// A seeded draw for callers that need extra randomness (event redelivery).
    pub fn with_rng<T>(&self, f: impl FnOnce(&mut ChaCha8Rng) -> T) -> T {
        f(&mut self.rng.lock())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn same_seed_same_decisions() {
        let a = FaultEngine::new(FaultConfig::chaos(), 7);
        let b = FaultEngine::new(FaultConfig::chaos(), 7);
        for _ in 0..200 {
            assert_eq!(a.decide("POST", "/v1/payment_intents"), b.decide("POST", "/v1/payment_intents"));
        }
    }
    #[test]
    fn script_applies_n_times() {
        let e = FaultEngine::new(FaultConfig::none(), 1);
        e.script(ScriptEntry { path: "/v1/refunds".into(), fault: Fault::DropResponse, remaining: 2, slow_ms: None });
        assert!(!e.decide("POST", "/v1/payment_intents").drop_response);
        assert!(e.decide("POST", "/v1/refunds").drop_response);
        assert!(e.decide("POST", "/v1/refunds").drop_response);
        assert!(!e.decide("POST", "/v1/refunds").drop_response);
    }
}
