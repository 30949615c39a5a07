//! Readers and where they are (decision 0102): a location and a reader registered at the
//! PSP (a registration code; `simulated-wpe` registers a simulated reader), kept in the
//! ledger; and, in test mode, the simulated customer (`present_payment_method`).

use crate::engine::{Engine, EngineError, Result};
use crate::notify::Subject;
use crate::psp::{AttemptOutcome, Location, Reader, ReaderStatus};
use crate::retry::{run_phase, PhaseResult};
use paydesk_ledger::ReaderRecord;
use serde::Serialize;

/// A reader as registered at the PSP and kept in the ledger.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReaderRegistration {
    pub reader: ReaderRecord,
    /// Its connection as the PSP said (none for some device types).
    pub status: Option<ReaderStatus>,
}

/// Stripe's test cards for a simulated reader (the customer the test helper plays).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TestCard {
    Approved,
    Declined,
    InsufficientFunds,
}

impl TestCard {
    pub const fn number(self) -> &'static str {
        match self {
            TestCard::Approved => "4242424242424242",
            TestCard::Declined => "4000000000000002",
            TestCard::InsufficientFunds => "4000000000009995",
        }
    }
}

fn text_ok(s: &str, max: usize) -> bool {
    let t = s.trim();
    !t.is_empty() && t.chars().count() <= max && !t.chars().any(char::is_control)
}

impl Engine {
    async fn post_once<T: serde::de::DeserializeOwned + Send + 'static>(
        &self,
        make: impl Fn() -> crate::transport::HttpRequest + Send + Sync + 'static,
        what: &str,
    ) -> Result<T> {
        let i = &self.inner;
        let subject = Subject::Checkout(what.to_string());
        let (res, recs) = run_phase::<T>(i.phase(&i.cfg.interactive, &subject, 1), make).await;
        self.note_connectivity(&recs);
        match res {
            PhaseResult::Final(AttemptOutcome::Ok { value, .. }) => Ok(value),
            PhaseResult::Final(AttemptOutcome::Fatal(f)) => Err(EngineError::PspRejected(f.message())),
            PhaseResult::Final(AttemptOutcome::Declined { decline, .. }) => Err(EngineError::PspRejected(decline.message)),
            PhaseResult::Final(AttemptOutcome::Unknown { message, .. }) => Err(EngineError::PspRejected(message)),
            PhaseResult::Final(AttemptOutcome::Retry { .. }) | PhaseResult::Exhausted { .. } => {
                Err(EngineError::PspRejected(format!("{what}: the PSP cannot be reached; try again")))
            }
        }
    }

    /// Creates a location at the PSP (`display_name` and a postal address), for readers.
    pub async fn create_reader_location(&self, display_name: &str, address: &[(&str, &str)]) -> Result<String> {
        if !text_ok(display_name, 100) || address.len() > 8 || address.iter().any(|(k, v)| !text_ok(k, 20) || !text_ok(v, 200)) {
            return Err(EngineError::InvalidInput("a location needs a name (1-100 characters) and a short address".into()));
        }
        let key = self.with_ledger(|l| l.new_key());
        let c = self.inner.psp.clone();
        let name = display_name.trim().to_string();
        let addr: Vec<(String, String)> = address.iter().map(|(k, v)| (k.to_string(), v.trim().to_string())).collect();
        let loc: Location = self
            .post_once(
                move || {
                    let a: Vec<(&str, &str)> = addr.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
                    c.create_location_request(&name, &a, &key)
                },
                "location",
            )
            .await?;
        Ok(loc.id)
    }

    /// Registers a reader at the PSP by its registration code and keeps it in the ledger.
    pub async fn register_reader(&self, registration_code: &str, label: &str, location: &str) -> Result<ReaderRegistration> {
        if !text_ok(registration_code, 100) || !text_ok(label, 100) || !text_ok(location, 255) {
            return Err(EngineError::InvalidInput("a reader needs a registration code, a label (1-100 characters) and a location".into()));
        }
        let key = self.with_ledger(|l| l.new_key());
        let c = self.inner.psp.clone();
        let (code, lab, loc) = (registration_code.trim().to_string(), label.trim().to_string(), location.trim().to_string());
        let r: Reader = self.post_once(move || c.register_reader_request(&code, &lab, &loc, &key), "reader").await?;
        let record = ReaderRecord {
            id: r.id.clone(),
            label: r.label.clone().unwrap_or_else(|| label.trim().to_string()),
            location: r.location_id(),
            device_type: r.device_type.clone(),
            registered_at_ms: self.now(),
        };
        self.with_ledger(|l| l.card_readers_mut().register(&record))?;
        Ok(ReaderRegistration { reader: record, status: r.status() })
    }

    /// The readers this register knows.
    pub fn readers(&self) -> Result<Vec<ReaderRecord>> {
        Ok(self.with_reader(|l| l.card_readers().list())?)
    }

    /// The reader as the PSP sees it now (status, action).
    pub async fn reader_at_psp(&self, reader_id: &str) -> Result<Reader> {
        let c = self.inner.psp.clone();
        let id = reader_id.to_string();
        match self.background_get::<Reader>(move || c.get_reader_request(&id), &Subject::Checkout("reader".into())).await {
            PhaseResult::Final(AttemptOutcome::Ok { value, .. }) => Ok(value),
            _ => Err(EngineError::PspRejected("the reader cannot be read now".into())),
        }
    }

    /// TEST MODE ONLY (a simulated reader): plays the customer presenting `card`.
    /// The PSP refuses it for a real reader. A fresh key per call: each call is a new tap.
    pub async fn simulate_customer(&self, reader_id: &str, card: TestCard) -> Result<Reader> {
        let key = self.with_ledger(|l| l.new_key());
        let c = self.inner.psp.clone();
        let id = reader_id.to_string();
        self.post_once(move || c.present_payment_method_request(&id, card.number(), &key), "present").await
    }
}
