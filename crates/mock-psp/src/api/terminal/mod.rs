//! Card readers, Stripe Terminal's server-driven shape (issue #27): locations and
//! simulated readers per account, `process_payment_intent`, `cancel_action`,
//! `set_reader_display`, and the test helper `present_payment_method` that plays the
//! customer. This file holds the shared vocabulary — the validated actions, a reader
//! as stored (Stripe's object + the simulation state Stripe does not show), statuses,
//! the Terminal error answers and limits; one file per stage beside it:
//! `params.rs` (validation), `objects.rs` (locations, readers, reads), `process.rs`
//! (process, cancel, display), `present.rs` (the customer's card), `cards.rs` (test
//! cards, receipt fields), `auto.rs` (presentations that happen later: the admin
//! auto-present switch and the presentation-delay fault).
use super::errors::{db, internal, invalid, ApiError};
use super::Tx;
use crate::reader_faults::ReaderFault;
use crate::store::StoreError;
use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

pub mod auto;
mod cards;
mod objects;
pub(super) mod params;
mod present;
mod process;

/// Most readers one account may register.
pub const MAX_READERS_PER_ACCOUNT: i64 = 100;
/// Most locations one account may create.
pub const MAX_LOCATIONS_PER_ACCOUNT: i64 = 100;
/// Most line items a cart shown on a reader may have.
pub const MAX_CART_LINE_ITEMS: usize = 100;
/// Longest reader label, in characters.
pub const MAX_LABEL_CHARS: usize = 100;

/// A validated Terminal write, executed on the writer thread under its claim.
#[derive(Clone, Debug)]
pub(super) enum TerminalAction {
    CreateLocation(params::NewLocation),
    CreateReader(params::NewReader),
    /// `fault`: the reader fault drawn for this call (after validation, before the
    /// claim), with its duration parameter (offline period or presentation delay, ms).
    Process { reader: String, payment_intent: String, fault: Option<(ReaderFault, u64)> },
    CancelAction { reader: String },
    SetDisplay { reader: String, cart: params::Cart },
    Present { reader: String, card: String, tip: Option<i64> },
}

impl TerminalAction {
    /// Draws the reader fault of a process call (no other call draws one).
    pub(super) fn decide_faults(&mut self, faults: &crate::faults::FaultEngine) {
        if let TerminalAction::Process { fault, .. } = self {
            let cfg = faults.config().reader;
            *fault = faults.decide_reader().map(|f| {
                let ms = match f {
                    ReaderFault::Offline => cfg.reader_offline_ms,
                    ReaderFault::PresentDelay => cfg.reader_present_delay_ms,
                    ReaderFault::TimeoutStarted | ReaderFault::Timeout | ReaderFault::Busy | ReaderFault::ConnectionError | ReaderFault::EventLost | ReaderFault::CustomerCancels => 0,
                };
                (f, ms)
            });
        }
    }
}

pub(super) fn execute(tx: &mut Tx, a: &TerminalAction) -> Result<String, ApiError> {
    match a {
        TerminalAction::CreateLocation(l) => objects::create_location(tx, l),
        TerminalAction::CreateReader(r) => objects::create_reader(tx, r),
        TerminalAction::Process { reader, payment_intent, fault } => process::process(tx, reader, payment_intent, *fault),
        TerminalAction::CancelAction { reader } => process::cancel_action(tx, reader),
        TerminalAction::SetDisplay { reader, cart } => process::set_display(tx, reader, cart),
        TerminalAction::Present { reader, card, tip } => present::present(tx, reader, card, *tip),
    }
}

/// A card presented while the presentation-delay fault holds it: authorized at `due_ms`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub(super) struct Pending {
    pub action_seq: u64,
    pub card: String,
    pub tip: Option<i64>,
    pub due_ms: i64,
}

/// What the simulation knows about a reader and Stripe does not show.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub(super) struct Sim {
    /// Offline until this time (ms); 0: online.
    pub offline_until_ms: i64,
    pub offline_since_ms: i64,
    /// Numbers the process actions of this reader (a later presentation names its action).
    pub action_seq: u64,
    /// The presentation-time fault armed on the current action.
    pub armed: Option<ReaderFault>,
    pub delay_ms: u64,
    pub pending: Option<Pending>,
    /// The claim of the last call that changed this reader: its re-drive answers with
    /// the reader instead of acting twice.
    pub last_claim: Option<i64>,
}

/// A reader as stored.
pub(super) struct Reader {
    pub obj: Value,
    pub sim: Sim,
}

impl Reader {
    pub fn is_offline(&self, now_ms: i64) -> bool {
        self.sim.offline_until_ms > now_ms
    }
    /// Stripe's object as of `now_ms` (status and `last_seen_at` follow the simulation).
    pub fn public(&self, now_ms: i64) -> Value {
        let mut o = self.obj.clone();
        let off = self.is_offline(now_ms);
        o["status"] = json!(if off { "offline" } else { "online" });
        o["last_seen_at"] = json!(if off { self.sim.offline_since_ms } else { now_ms });
        o
    }
    pub fn action_status(&self) -> Option<ActionStatus> {
        self.obj["action"]["status"].as_str().and_then(ActionStatus::parse)
    }
    /// A `process_payment_intent` action is running: the reader is busy.
    pub fn processing(&self) -> bool {
        self.obj["action"]["type"] == "process_payment_intent" && self.action_status() == Some(ActionStatus::InProgress)
    }
    pub fn action_intent(&self) -> Option<String> {
        self.obj["action"]["process_payment_intent"]["payment_intent"].as_str().map(str::to_string)
    }
}

pub(super) fn load_reader(c: &Connection, account: &str, id: &str) -> Result<Option<Reader>, StoreError> {
    let row: Option<(String, String)> = c
        .prepare_cached("SELECT obj, sim FROM terminal_readers WHERE id=?1 AND account=?2")?
        .query_row(params![id, account], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let Some((obj, sim)) = row else { return Ok(None) };
    let obj = serde_json::from_str(&obj).map_err(|e| StoreError(format!("stored reader {id} is unreadable: {e}")))?;
    let sim = serde_json::from_str(&sim).map_err(|e| StoreError(format!("stored reader state {id} is unreadable: {e}")))?;
    Ok(Some(Reader { obj, sim }))
}

/// The reader of `tx`'s account, or Stripe's 404.
pub(super) fn reader_or_404(tx: &Tx, id: &str) -> Result<Reader, ApiError> {
    load_reader(tx.c, tx.account, id).map_err(internal)?.ok_or_else(|| super::errors::missing("terminal.reader", id, None))
}

/// Stores the reader (as it reads now) and its state; returns the public JSON text.
pub(super) fn save_reader(tx: &mut Tx, r: &mut Reader) -> Result<String, ApiError> {
    r.sim.last_claim = tx.claim_id.or(r.sim.last_claim);
    let public = r.public(tx.now_ms);
    r.obj = public.clone();
    let sim = serde_json::to_string(&r.sim).map_err(|e| internal(StoreError(e.to_string())))?;
    let text = public.to_string();
    tx.c.prepare_cached("UPDATE terminal_readers SET obj=?2, sim=?3 WHERE id=?1 AND account=?4")
        .and_then(|mut s| s.execute(params![public["id"].as_str().unwrap_or(""), text, sim, tx.account]))
        .map_err(db)?;
    Ok(text)
}

/// A re-drive of the claim that last changed this reader: answer with the reader as
/// it is (the first execution's effect), never act twice.
pub(super) fn redriven(tx: &mut Tx, r: &Reader) -> Option<String> {
    if tx.claim_id.is_some() && r.sim.last_claim == tx.claim_id {
        tx.out.replayed = true;
        return Some(r.public(tx.now_ms).to_string());
    }
    None
}

/// `action.status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ActionStatus {
    InProgress,
    Succeeded,
    Failed,
}

impl ActionStatus {
    fn parse(s: &str) -> Option<ActionStatus> {
        match s {
            "in_progress" => Some(ActionStatus::InProgress),
            "succeeded" => Some(ActionStatus::Succeeded),
            "failed" => Some(ActionStatus::Failed),
            _ => None,
        }
    }
}

/// A PaymentIntent's `status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum PiStatus {
    RequiresPaymentMethod,
    RequiresConfirmation,
    RequiresAction,
    Processing,
    RequiresCapture,
    Canceled,
    Succeeded,
}

impl PiStatus {
    pub fn of(pi: &Value) -> Result<PiStatus, ApiError> {
        let s = pi["status"].as_str().unwrap_or("");
        Ok(match s {
            "requires_payment_method" => PiStatus::RequiresPaymentMethod,
            "requires_confirmation" => PiStatus::RequiresConfirmation,
            "requires_action" => PiStatus::RequiresAction,
            "processing" => PiStatus::Processing,
            "requires_capture" => PiStatus::RequiresCapture,
            "canceled" => PiStatus::Canceled,
            "succeeded" => PiStatus::Succeeded,
            other => return Err(internal(StoreError(format!("stored payment intent has an unknown status {other:?}")))),
        })
    }
    /// A reader may take a card for it.
    pub fn processable(self) -> bool {
        match self {
            PiStatus::RequiresPaymentMethod | PiStatus::RequiresConfirmation => true,
            PiStatus::RequiresAction | PiStatus::Processing | PiStatus::RequiresCapture | PiStatus::Canceled | PiStatus::Succeeded => false,
        }
    }
}

// ---------------------------------------------------------------- Terminal errors

pub(super) fn reader_busy() -> ApiError {
    invalid("terminal_reader_busy", "The reader is busy with another action. Wait for it to finish, or cancel it with cancel_action.", None)
}
pub(super) fn reader_offline() -> ApiError {
    invalid("terminal_reader_offline", "The reader has not been seen recently and is considered offline. Nothing was sent to it.", None)
}
pub(super) fn reader_timeout() -> ApiError {
    invalid("terminal_reader_timeout", "The reader did not acknowledge the command in time. It may or may not have received it: read the reader and the PaymentIntent before trying again.", None)
}
pub(super) fn intent_invalid_state(status: &str) -> ApiError {
    invalid("intent_invalid_state", format!("This PaymentIntent cannot be processed on a reader because it has a status of {status}. Only a PaymentIntent with status requires_payment_method or requires_confirmation can be processed."), Some("payment_intent"))
}
