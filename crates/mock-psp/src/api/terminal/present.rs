//! The customer's side: `POST /v1/test_helpers/terminal/readers/:id/present_payment_method`
//! (and the same presentation made later by `auto.rs`). A presented card is authorized
//! against the action's PaymentIntent: approved → the intent succeeds (or waits for
//! capture) with a `card_present` charge and the action succeeds; declined → a failed
//! charge, the intent back in `requires_payment_method` with `last_payment_error`, the
//! action failed — and the same intent can be processed again. The faults armed on the
//! action act here.
use super::cards::{self, Outcome};
use super::{reader_busy, reader_offline, reader_or_404, redriven, save_reader, Pending, PiStatus, Reader};
use crate::api::errors::{internal, invalid, ApiError};
use crate::api::events::emit;
use crate::api::intents::{save_charge, save_pi};
use crate::api::{load, Tx};
use crate::reader_faults::ReaderFault;
use crate::store::StoreError;
use serde_json::{json, Value};

/// The present helper.
pub(super) fn present(tx: &mut Tx, reader: &str, card: &str, tip: Option<i64>) -> Result<String, ApiError> {
    let mut r = reader_or_404(tx, reader)?;
    if let Some(done) = redriven(tx, &r) {
        return Ok(done);
    }
    if r.is_offline(tx.now_ms) {
        return Err(reader_offline());
    }
    settle_overdue(tx, &mut r)?;
    if !r.processing() {
        return Err(invalid("terminal_reader_action_not_in_progress", format!("Reader {reader} has no process_payment_intent action in progress to present a payment method to. Call process_payment_intent first."), None));
    }
    if r.sim.pending.is_some() {
        // A card is already being authorized on this action.
        return Err(reader_busy());
    }
    if r.sim.armed == Some(ReaderFault::PresentDelay) {
        tx.out.reader_fault = Some(ReaderFault::PresentDelay);
        r.sim.armed = None;
        r.sim.pending = Some(Pending { action_seq: r.sim.action_seq, card: card.to_string(), tip, due_ms: tx.now_ms.saturating_add(r.sim.delay_ms as i64) });
        return save_reader(tx, &mut r);
    }
    complete(tx, &mut r, card, tip)
}

/// A presentation made later (auto-present, or a delayed one coming due): acts only
/// if the action it was made for (`action_seq`) is still in progress.
pub(crate) fn later(tx: &mut Tx, reader: &str, action_seq: u64, card: Option<&str>) -> Result<Option<String>, ApiError> {
    let Some(mut r) = super::load_reader(tx.c, tx.account, reader).map_err(internal)? else { return Ok(None) };
    if !r.processing() || r.sim.action_seq != action_seq || r.is_offline(tx.now_ms) {
        return Ok(None);
    }
    match (card, r.sim.pending.clone()) {
        // A delayed presentation comes due.
        (None, Some(p)) if p.action_seq == action_seq => complete(tx, &mut r, &p.card, p.tip).map(Some),
        (None, _) => Ok(None),
        // The auto-present switch: the customer presents, unless one already did.
        (Some(_), Some(_)) => Ok(None),
        (Some(card), None) => present(tx, reader, card, None).map(Some),
    }
}

/// A held card whose time has come is authorized before anything else happens on the
/// reader — also when the task that was to do it died with an earlier PSP process, so a
/// restart never leaves an action stuck (and `cancel_action` busy) for ever.
pub(super) fn settle_overdue(tx: &mut Tx, r: &mut Reader) -> Result<(), ApiError> {
    match r.sim.pending.clone() {
        Some(p) if p.due_ms <= tx.now_ms && r.processing() && p.action_seq == r.sim.action_seq => complete(tx, r, &p.card, p.tip).map(|_| ()),
        Some(_) | None => Ok(()),
    }
}

fn complete(tx: &mut Tx, r: &mut Reader, card: &str, tip: Option<i64>) -> Result<String, ApiError> {
    let armed = r.sim.armed.take();
    r.sim.pending = None;
    let event_lost = armed == Some(ReaderFault::EventLost);
    if event_lost {
        tx.out.reader_fault = armed;
    }
    let pi_id = r.action_intent().ok_or_else(|| internal(StoreError("a process action without its payment intent".into())))?;
    let pi = load(tx.c, "payment_intents", tx.account, &pi_id)?.ok_or_else(|| internal(StoreError(format!("payment intent {pi_id} of a reader action is gone"))))?;
    if !PiStatus::of(&pi)?.processable() {
        // Canceled or paid elsewhere meanwhile: nothing is charged.
        return finish(tx, r, Some(("intent_invalid_state", format!("The PaymentIntent is {} and can no longer be paid.", pi["status"].as_str().unwrap_or("")))), event_lost);
    }
    if armed == Some(ReaderFault::CustomerCancels) {
        tx.out.reader_fault = armed;
        return finish(tx, r, Some(("customer_canceled", "The customer canceled the payment on the reader.".into())), event_lost);
    }
    let (charge, outcome) = charge_for(tx, pi, &pi_id, card, tip)?;
    match outcome {
        Outcome::Decline { code, decline_code } => {
            let msg = decline_tx(tx, charge, code, decline_code)?;
            finish(tx, r, Some((code, msg.to_string())), event_lost)
        }
        Outcome::Approve => {
            approve_tx(tx, charge, tip)?;
            if armed == Some(ReaderFault::ConnectionError) {
                // Authorized, but the reader lost its connection before it could report.
                tx.out.reader_fault = armed;
                return finish(tx, r, Some(("connection_error", "The reader lost its connection while the payment was being authorized. The payment may have succeeded: read the PaymentIntent.".into())), event_lost);
            }
            finish(tx, r, None, event_lost)
        }
    }
}

/// A presented card's charge on its intent, not saved yet: the amount with the tip, and
/// the test card's outcome.
struct Charge {
    pi: Value,
    ch: Value,
    ch_id: String,
    pm_id: String,
    amount: i64,
}

/// The charge the card makes; the test card and Stripe's Terminal test amounts decide
/// approve or decline (`cards::outcome_for`).
fn charge_for(tx: &mut Tx, mut pi: Value, pi_id: &str, card: &str, tip: Option<i64>) -> Result<(Charge, Outcome), ApiError> {
    let tc = cards::lookup(card).ok_or_else(|| internal(StoreError(format!("unknown test card {card} reached authorization"))))?;
    let base = pi["amount"].as_i64().unwrap_or(0);
    let currency = pi["currency"].as_str().unwrap_or("usd").to_string();
    let amount = base.saturating_add(tip.unwrap_or(0));
    let outcome = cards::outcome_for(&tc, base, &currency);
    let approved = outcome == Outcome::Approve;
    let (ch_id, pm_id) = (tx.st.mint("ch"), tx.st.mint("pm"));
    let ch = json!({
        "id": ch_id, "object": "charge", "amount": amount, "amount_captured": 0, "amount_refunded": 0,
        "captured": false, "refunded": false, "currency": currency, "payment_intent": pi_id,
        "payment_method": pm_id, "payment_method_details": cards::details(tx.st, &tc, amount, approved),
        "created": tx.now, "livemode": false, "metadata": pi["metadata"].clone(), "status": "succeeded", "paid": true,
        "failure_code": null, "failure_message": null,
        "outcome": {"type": "authorized", "network_status": "approved_by_network"},
    });
    pi["latest_charge"] = json!(ch_id);
    Ok((Charge { pi, ch, ch_id, pm_id, amount }, outcome))
}

/// Declined: the charge failed, the intent back to needing a payment method; saved,
/// with its event. The decline's message.
fn decline_tx(tx: &mut Tx, c: Charge, code: &str, decline_code: &str) -> Result<&'static str, ApiError> {
    let Charge { mut pi, mut ch, ch_id, pm_id, .. } = c;
    let msg = cards::decline_message(decline_code);
    ch["status"] = json!("failed");
    ch["paid"] = json!(false);
    ch["failure_code"] = json!(code);
    ch["failure_message"] = json!(msg);
    ch["outcome"] = json!({"type": "issuer_declined", "network_status": "declined_by_network", "reason": decline_code});
    pi["status"] = json!("requires_payment_method");
    pi["payment_method"] = Value::Null;
    pi["last_payment_error"] = json!({
        "type": "card_error", "code": code, "decline_code": decline_code, "message": msg, "charge": ch_id,
        "payment_method": {"id": pm_id, "object": "payment_method", "type": "card_present"},
    });
    save_charge(tx.c, tx.account, &ch)?;
    let pi_json = save_pi(tx.c, &pi)?;
    emit(tx, "payment_intent.payment_failed", &pi_json)?;
    tx.out.declined = true;
    Ok(msg)
}

/// Approved: the intent paid (captured at once unless its capture is manual), the tip
/// added to its amount; saved, with its event.
fn approve_tx(tx: &mut Tx, c: Charge, tip: Option<i64>) -> Result<(), ApiError> {
    let Charge { mut pi, mut ch, pm_id, amount, .. } = c;
    if let Some(t) = tip {
        pi["amount"] = json!(amount);
        pi["amount_details"] = json!({"tip": {"amount": t}});
    }
    pi["payment_method"] = json!(pm_id);
    pi["last_payment_error"] = Value::Null;
    let event = if pi["capture_method"] == "manual" {
        pi["status"] = json!("requires_capture");
        pi["amount_capturable"] = json!(amount);
        "payment_intent.amount_capturable_updated"
    } else {
        pi["status"] = json!("succeeded");
        pi["amount_received"] = json!(amount);
        ch["captured"] = json!(true);
        ch["amount_captured"] = json!(amount);
        "payment_intent.succeeded"
    };
    save_charge(tx.c, tx.account, &ch)?;
    let pi_json = save_pi(tx.c, &pi)?;
    emit(tx, event, &pi_json)?;
    tx.out.charged = true;
    Ok(())
}

/// Ends the action (`failure`: its code and message) and writes its event unless the
/// event-lost fault swallows it. Returns the reader's JSON text.
fn finish(tx: &mut Tx, r: &mut Reader, failure: Option<(&str, String)>, event_lost: bool) -> Result<String, ApiError> {
    let (status, code, msg, typ) = match &failure {
        Some((code, msg)) => ("failed", json!(code), json!(msg), "terminal.reader.action_failed"),
        None => ("succeeded", Value::Null, Value::Null, "terminal.reader.action_succeeded"),
    };
    r.obj["action"]["status"] = json!(status);
    r.obj["action"]["failure_code"] = code;
    r.obj["action"]["failure_message"] = msg;
    let text = save_reader(tx, r)?;
    if !event_lost {
        emit(tx, typ, &text)?;
    }
    Ok(text)
}
