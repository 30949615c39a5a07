//! Card-reader faults (issue #27): what can go wrong between the PSP and a
//! server-driven reader. Drawn once per `process_payment_intent` from their own
//! seeded generator (so adding them changed no existing seed's request faults), or
//! scripted ("the next N process calls get F"). Four act on the process call itself;
//! the other four are armed on the action and act when the customer presents a card.
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReaderFault {
    /// `terminal_reader_timeout`, yet the reader got the command: the action runs (a
    /// false negative, as Stripe documents).
    TimeoutStarted,
    /// `terminal_reader_timeout`; nothing started.
    Timeout,
    /// The reader drops off for `reader_offline_ms`: `terminal_reader_offline` now and
    /// for every reader call until it is back; its `status` reads `offline`.
    Offline,
    /// `terminal_reader_busy`; nothing started.
    Busy,
    /// The connection drops during authorization: the charge succeeds, yet the action
    /// fails with `connection_error`.
    ConnectionError,
    /// The action finishes but its `terminal.reader.action_*` event is never written.
    EventLost,
    /// The customer cancels on the reader: the action fails `customer_canceled`, nothing
    /// is charged.
    CustomerCancels,
    /// The presented card is authorized `reader_present_delay_ms` later (the action stays
    /// `in_progress` meanwhile; `cancel_action` is then busy).
    PresentDelay,
}

impl ReaderFault {
    pub const ALL: [ReaderFault; 8] = [
        ReaderFault::TimeoutStarted,
        ReaderFault::Timeout,
        ReaderFault::Offline,
        ReaderFault::Busy,
        ReaderFault::ConnectionError,
        ReaderFault::EventLost,
        ReaderFault::CustomerCancels,
        ReaderFault::PresentDelay,
    ];
    pub fn name(self) -> &'static str {
        match self {
            ReaderFault::TimeoutStarted => "reader_timeout_started",
            ReaderFault::Timeout => "reader_timeout",
            ReaderFault::Offline => "reader_offline",
            ReaderFault::Busy => "reader_busy",
            ReaderFault::ConnectionError => "reader_connection_error",
            ReaderFault::EventLost => "reader_event_lost",
            ReaderFault::CustomerCancels => "reader_customer_cancels",
            ReaderFault::PresentDelay => "reader_present_delay",
        }
    }
    pub fn parse(s: &str) -> Option<ReaderFault> {
        ReaderFault::ALL.into_iter().find(|f| f.name() == s)
    }
    /// Acts when the card is presented (armed on the action), not on the process call.
    pub fn at_presentation(self) -> bool {
        match self {
            ReaderFault::TimeoutStarted | ReaderFault::Timeout | ReaderFault::Offline | ReaderFault::Busy => false,
            ReaderFault::ConnectionError | ReaderFault::EventLost | ReaderFault::CustomerCancels | ReaderFault::PresentDelay => true,
        }
    }
}

/// Probability (0..=1) of each reader fault per `process_payment_intent`, plus the
/// offline period and the presentation delay.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ReaderFaultConfig {
    pub reader_timeout_started: f64,
    pub reader_timeout: f64,
    pub reader_offline: f64,
    pub reader_offline_ms: u64,
    pub reader_busy: f64,
    pub reader_connection_error: f64,
    pub reader_event_lost: f64,
    pub reader_customer_cancels: f64,
    pub reader_present_delay: f64,
    pub reader_present_delay_ms: u64,
}

impl Default for ReaderFaultConfig {
    fn default() -> Self {
        Self::none()
    }
}

impl ReaderFaultConfig {
    pub fn none() -> Self {
        ReaderFaultConfig {
            reader_timeout_started: 0.0,
            reader_timeout: 0.0,
            reader_offline: 0.0,
            reader_offline_ms: 30_000,
            reader_busy: 0.0,
            reader_connection_error: 0.0,
            reader_event_lost: 0.0,
            reader_customer_cancels: 0.0,
            reader_present_delay: 0.0,
            reader_present_delay_ms: 1_500,
        }
    }
    pub fn flaky() -> Self {
        ReaderFaultConfig {
            reader_timeout_started: 0.02,
            reader_timeout: 0.02,
            reader_offline: 0.01,
            reader_offline_ms: 10_000,
            reader_busy: 0.02,
            reader_connection_error: 0.01,
            reader_event_lost: 0.05,
            reader_customer_cancels: 0.02,
            reader_present_delay: 0.1,
            reader_present_delay_ms: 1_500,
        }
    }
    pub fn chaos() -> Self {
        ReaderFaultConfig {
            reader_timeout_started: 0.06,
            reader_timeout: 0.05,
            reader_offline: 0.03,
            reader_offline_ms: 20_000,
            reader_busy: 0.05,
            reader_connection_error: 0.04,
            reader_event_lost: 0.15,
            reader_customer_cancels: 0.05,
            reader_present_delay: 0.25,
            reader_present_delay_ms: 3_000,
        }
    }
    pub fn rate(&self, f: ReaderFault) -> f64 {
        match f {
            ReaderFault::TimeoutStarted => self.reader_timeout_started,
            ReaderFault::Timeout => self.reader_timeout,
            ReaderFault::Offline => self.reader_offline,
            ReaderFault::Busy => self.reader_busy,
            ReaderFault::ConnectionError => self.reader_connection_error,
            ReaderFault::EventLost => self.reader_event_lost,
            ReaderFault::CustomerCancels => self.reader_customer_cancels,
            ReaderFault::PresentDelay => self.reader_present_delay,
        }
    }
    pub fn set_rate(&mut self, f: ReaderFault, p: f64) {
        let p = p.clamp(0.0, 1.0);
        match f {
            ReaderFault::TimeoutStarted => self.reader_timeout_started = p,
            ReaderFault::Timeout => self.reader_timeout = p,
            ReaderFault::Offline => self.reader_offline = p,
            ReaderFault::Busy => self.reader_busy = p,
            ReaderFault::ConnectionError => self.reader_connection_error = p,
            ReaderFault::EventLost => self.reader_event_lost = p,
            ReaderFault::CustomerCancels => self.reader_customer_cancels = p,
            ReaderFault::PresentDelay => self.reader_present_delay = p,
        }
    }
}

/// The reader faults' own generator and script.
pub(crate) struct ReaderFaultState {
    rng: ChaCha8Rng,
    /// Scripted faults, applied in order to the next process calls.
    script: Vec<(ReaderFault, u32)>,
}

impl ReaderFaultState {
    pub(crate) fn new(seed: u64) -> Self {
        ReaderFaultState { rng: ChaCha8Rng::seed_from_u64(seed ^ 0x7265_6164_6572), script: Vec::new() }
    }
    pub(crate) fn script(&mut self, f: ReaderFault, count: u32) {
        if count > 0 {
            self.script.push((f, count));
        }
    }
    pub(crate) fn scripted(&self) -> Vec<(ReaderFault, u32)> {
        self.script.clone()
    }
    pub(crate) fn clear_script(&mut self) {
        self.script.clear();
    }
    /// The fault for one process call: the first scripted one, else a draw. A draw
    /// always consumes one value per fault kind (reproducible per seed and call order);
    /// the first kind whose draw falls under its rate wins.
    pub(crate) fn decide(&mut self, cfg: &ReaderFaultConfig) -> Option<ReaderFault> {
        if let Some(first) = self.script.first_mut() {
            let f = first.0;
            first.1 -= 1;
            if first.1 == 0 {
                self.script.remove(0);
            }
            return Some(f);
        }
        let draws: [f64; 8] = std::array::from_fn(|_| self.rng.random::<f64>());
        ReaderFault::ALL.into_iter().zip(draws).find(|(f, d)| *d < cfg.rate(*f)).map(|(f, _)| f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn same_seed_same_reader_faults_and_script_first() {
        let (mut a, mut b) = (ReaderFaultState::new(3), ReaderFaultState::new(3));
        let cfg = ReaderFaultConfig::chaos();
        let da: Vec<_> = (0..300).map(|_| a.decide(&cfg)).collect();
        let db: Vec<_> = (0..300).map(|_| b.decide(&cfg)).collect();
        assert_eq!(da, db);
        assert!(da.iter().any(Option::is_some) && da.iter().any(Option::is_none));
        a.script(ReaderFault::Busy, 2);
        assert_eq!(a.decide(&ReaderFaultConfig::none()), Some(ReaderFault::Busy));
        assert_eq!(a.decide(&ReaderFaultConfig::none()), Some(ReaderFault::Busy));
        assert_eq!(a.decide(&ReaderFaultConfig::none()), None);
    }
}
