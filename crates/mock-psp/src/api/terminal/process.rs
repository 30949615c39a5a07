//! The reader's own actions: `process_payment_intent` (with the reader faults that
//! act on the call itself), `cancel_action` and `set_reader_display`. Each answers
//! with the reader, as Stripe does; an action only *starts* here — the result comes
//! when a card is presented (`present.rs`).
use super::params::Cart;
use super::present::settle_overdue;
use super::{intent_invalid_state, reader_busy, reader_offline, reader_or_404, reader_timeout, redriven, save_reader, PiStatus, Reader};
use crate::api::errors::{invalid, missing, ApiError};
use crate::api::{load, Tx};
use crate::reader_faults::ReaderFault;
use serde_json::json;

/// `POST /v1/terminal/readers/:id/process_payment_intent`.
pub(super) fn process(tx: &mut Tx, reader: &str, pi_id: &str, fault: Option<(ReaderFault, u64)>) -> Result<String, ApiError> {
    let mut r = reader_or_404(tx, reader)?;
    if let Some(done) = redriven(tx, &r) {
        return Ok(done);
    }
    if r.is_offline(tx.now_ms) {
        return Err(reader_offline());
    }
    settle_overdue(tx, &mut r)?;
    let pi = load(tx.c, "payment_intents", tx.account, pi_id)?.ok_or_else(|| missing("payment_intent", pi_id, Some("payment_intent")))?;
    let types = pi["payment_method_types"].as_array().cloned().unwrap_or_default();
    if !types.iter().any(|t| t == "card_present") {
        return Err(invalid("payment_intent_invalid_parameter", format!("PaymentIntent {pi_id} cannot be processed on a reader: its payment_method_types ({}) do not include card_present. Create it with payment_method_types[]=card_present.", types.iter().filter_map(|t| t.as_str()).collect::<Vec<_>>().join(", ")), Some("payment_intent")));
    }
    if !PiStatus::of(&pi)?.processable() {
        return Err(intent_invalid_state(pi["status"].as_str().unwrap_or("")));
    }
    if r.processing() {
        return Err(reader_busy());
    }
    let Some((f, ms)) = fault else {
        start(&mut r, pi_id, None, 0);
        return save_reader(tx, &mut r);
    };
    tx.out.reader_fault = Some(f);
    match f {
        ReaderFault::Busy => Err(reader_busy()),
        ReaderFault::Timeout => Err(reader_timeout()),
        ReaderFault::Offline => {
            r.sim.offline_since_ms = tx.now_ms;
            r.sim.offline_until_ms = tx.now_ms.saturating_add(ms as i64);
            save_reader(tx, &mut r)?;
            Err(reader_offline())
        }
        ReaderFault::TimeoutStarted => {
            // The reader got it; only the acknowledgement was lost.
            start(&mut r, pi_id, None, 0);
            save_reader(tx, &mut r)?;
            Err(reader_timeout())
        }
        ReaderFault::ConnectionError | ReaderFault::EventLost | ReaderFault::CustomerCancels | ReaderFault::PresentDelay => {
            // Armed on the action: it acts when the card is presented.
            tx.out.reader_fault = None;
            start(&mut r, pi_id, Some(f), ms);
            save_reader(tx, &mut r)
        }
    }
}

fn start(r: &mut Reader, pi_id: &str, armed: Option<ReaderFault>, delay_ms: u64) {
    r.sim.action_seq += 1;
    r.sim.armed = armed;
    r.sim.delay_ms = delay_ms;
    r.sim.pending = None;
    r.obj["action"] = json!({
        "type": "process_payment_intent", "status": "in_progress", "failure_code": null, "failure_message": null,
        "process_payment_intent": {"payment_intent": pi_id},
    });
}

/// `POST /v1/terminal/readers/:id/cancel_action`: an action not yet authorizing is
/// cleared (`action` null); during authorization the reader is busy. A reader whose
/// action already finished is answered as it is, so the caller sees what happened.
pub(super) fn cancel_action(tx: &mut Tx, reader: &str) -> Result<String, ApiError> {
    let mut r = reader_or_404(tx, reader)?;
    if let Some(done) = redriven(tx, &r) {
        return Ok(done);
    }
    if r.is_offline(tx.now_ms) {
        return Err(reader_offline());
    }
    settle_overdue(tx, &mut r)?;
    if r.sim.pending.is_some() {
        return Err(reader_busy());
    }
    if r.action_status() == Some(super::ActionStatus::InProgress) {
        r.obj["action"] = json!(null);
        r.sim.armed = None;
    }
    save_reader(tx, &mut r)
}

/// `POST /v1/terminal/readers/:id/set_reader_display` (`type=cart`): the customer sees
/// the cart. Refused while a payment is being processed; replaced by the next process.
pub(super) fn set_display(tx: &mut Tx, reader: &str, cart: &Cart) -> Result<String, ApiError> {
    let mut r = reader_or_404(tx, reader)?;
    if let Some(done) = redriven(tx, &r) {
        return Ok(done);
    }
    if r.is_offline(tx.now_ms) {
        return Err(reader_offline());
    }
    settle_overdue(tx, &mut r)?;
    if r.processing() {
        return Err(reader_busy());
    }
    let items: Vec<_> = cart.line_items.iter().map(|l| json!({"amount": l.amount, "description": l.description, "quantity": l.quantity})).collect();
    r.obj["action"] = json!({
        "type": "set_reader_display", "status": "in_progress", "failure_code": null, "failure_message": null,
        "set_reader_display": {"type": "cart", "cart": {"currency": cart.currency, "line_items": items, "tax": cart.tax, "total": cart.total}},
    });
    r.sim.armed = None;
    save_reader(tx, &mut r)
}
