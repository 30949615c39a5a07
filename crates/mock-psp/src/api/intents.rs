//! PaymentIntents: create (with its charge when confirmed, or a decline), capture,
//! cancel and update on the writer thread, and `GET` of an intent or a charge. Each
//! write runs in a [`Tx`] under its claim: a re-drive of the same claim finds the
//! intent it already created instead of charging again (record 0016).
use super::errors::{db, internal, invalid, missing, ApiError};
use super::events::emit;
use super::params::{CreatePi, UpdatePi, MAX_METADATA_KEYS, P, EXPAND};
use super::{json_response, load, PspResponse, Tx};
use crate::form::Params;
use crate::store::StoreError;
use crate::Inner;
use rusqlite::{params, Connection, OptionalExtension};
use serde_json::{json, Value};
use std::collections::BTreeMap;

impl Inner {
    /// `GET /v1/payment_intents/:id`.
    pub(super) async fn get_intent(&self, account: &str, id: &str, params: &Params) -> Result<PspResponse, ApiError> {
        P::new(params, &["client_secret", EXPAND], false)?;
        let pi = self.read_object("payment_intents", account, id).await?.ok_or_else(|| missing("payment_intent", id, Some("intent")))?;
        Ok(json_response(&pi))
    }

    /// `GET /v1/charges/:id`.
    pub(super) async fn get_charge(&self, account: &str, id: &str, params: &Params) -> Result<PspResponse, ApiError> {
        P::new(params, &[EXPAND], false)?;
        let ch = self.read_object("charges", account, id).await?.ok_or_else(|| missing("charge", id, Some("charge")))?;
        Ok(json_response(&ch))
    }
}

/// `POST /v1/payment_intents`: the intent, and with `confirm` its charge (or decline)
/// and events. Returns the intent's JSON text (a decline: the 402 with the intent).
pub(super) fn create(tx: &mut Tx, a: &CreatePi) -> Result<String, ApiError> {
    let CreatePi { amount, currency, payment_method, confirm, manual, metadata, description, payment_method_types } = a;
    let (c, account, claim_id, now) = (tx.c, tx.account, tx.claim_id, tx.now);
    assert!(*amount > 0, "an amount is validated positive before execution");
    if let Some(obj) = tx.created_by_this_claim("payment_intents")? {
        return Ok(obj);
    }
    let id = tx.st.mint("pi");
    let secret = format!("{id}_secret_{}", tx.st.random_alnum(24));
    let mut pi = json!({
        "id": id, "object": "payment_intent", "amount": amount, "amount_capturable": 0,
        "amount_received": 0, "currency": currency, "status": "requires_payment_method",
        "capture_method": if *manual { "manual" } else { "automatic" },
        "confirmation_method": "automatic", "client_secret": secret, "created": now,
        "description": description, "livemode": false, "metadata": metadata,
        "payment_method": payment_method, "payment_method_types": payment_method_types,
        "latest_charge": null, "last_payment_error": null, "canceled_at": null,
        "cancellation_reason": null,
    });
    let mut decline: Option<ApiError> = None;
    let mut events: Vec<&str> = vec![];
    if payment_method.is_some() && !confirm {
        pi["status"] = json!("requires_confirmation");
    }
    if *confirm {
        decline = confirm_tx(tx, a, &id, &mut pi, &mut events)?;
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
        emit(tx, e, &pi_json)?;
    }
    match decline {
        Some(mut d) => {
            d.extra.push(("payment_intent", pi));
            Err(d)
        }
        None => Ok(pi_json),
    }
}

/// The charge of a confirmed create, saved: approved (captured at once unless the
/// capture is manual) or declined by the test card, the intent following it. The
/// decline, if any, is the create's answer.
fn confirm_tx(tx: &mut Tx, a: &CreatePi, id: &str, pi: &mut Value, events: &mut Vec<&str>) -> Result<Option<ApiError>, ApiError> {
    let CreatePi { amount, currency, payment_method, manual, metadata, .. } = a;
    let (c, account, now) = (tx.c, tx.account, tx.now);
    let pm = payment_method.as_deref().unwrap_or("");
    let ch_id = tx.st.mint("ch");
    let decline_code = super::params::TestPaymentMethod::parse(pm).and_then(|m| m.decline_code());
    let mut ch = json!({
        "id": ch_id, "object": "charge", "amount": amount, "amount_captured": 0,
        "amount_refunded": 0, "captured": false, "refunded": false, "currency": currency,
        "payment_intent": id, "payment_method": pm, "created": now, "livemode": false,
        "metadata": metadata, "status": "succeeded", "paid": true, "failure_code": null,
        "failure_message": null, "outcome": {"type": "authorized", "network_status": "approved_by_network"},
    });
    pi["latest_charge"] = json!(ch_id);
    let mut decline = None;
    match decline_code {
        Some(dc) => {
            decline = Some(decline_charge(&mut ch, pi, dc, &ch_id));
            events.push("payment_intent.payment_failed");
            tx.out.declined = true;
        }
        None => {
            tx.out.charged = true;
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
    Ok(decline)
}

/// A declined charge (the test card's `decline_code`): the charge failed, the intent
/// back to needing a payment method, and the 402 the create answers.
fn decline_charge(ch: &mut Value, pi: &mut Value, dc: &str, ch_id: &str) -> ApiError {
    let msg = if dc == "insufficient_funds" { "Your card has insufficient funds." } else { "Your card was declined." };
    ch["status"] = json!("failed");
    ch["paid"] = json!(false);
    ch["failure_code"] = json!("card_declined");
    ch["failure_message"] = json!(msg);
    ch["outcome"] = json!({"type": "issuer_declined", "network_status": "declined_by_network", "reason": dc});
    let err = json!({"type": "card_error", "code": "card_declined", "decline_code": dc, "message": msg, "charge": ch_id});
    pi["last_payment_error"] = err;
    pi["status"] = json!("requires_payment_method");
    ApiError {
        status: 402,
        typ: "card_error",
        code: Some("card_declined".into()),
        message: msg.into(),
        param: None,
        extra: vec![("decline_code", json!(dc)), ("charge", json!(ch_id))],
    }
}

/// `POST /v1/payment_intents/:id/capture`: all or part of what was authorised.
pub(super) fn capture(tx: &mut Tx, id: &str, amount: Option<i64>) -> Result<String, ApiError> {
    let (c, account) = (tx.c, tx.account);
    let mut pi = load(c, "payment_intents", account, id)?.ok_or_else(|| missing("payment_intent", id, Some("intent")))?;
    if pi["status"] != "requires_capture" {
        return Err(invalid("payment_intent_unexpected_state", format!("This PaymentIntent could not be captured because it has a status of {}. Only a PaymentIntent with one of the following statuses may be captured: requires_capture.", pi["status"].as_str().unwrap_or("")), None));
    }
    let capturable = pi["amount_capturable"].as_i64().unwrap_or(0);
    let amt = amount.unwrap_or(capturable);
    if amt > capturable {
        return Err(invalid("amount_too_large", format!("The amount_to_capture ({amt}) is greater than the amount capturable ({capturable})."), Some("amount_to_capture")));
    }
    debug_assert!(amt > 0 && amt <= capturable, "a capture moves a positive amount, at most what was authorised");
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
    emit(tx, "payment_intent.succeeded", &pi_json)?;
    Ok(pi_json)
}

/// `POST /v1/payment_intents/:id/cancel`: only before it succeeded.
pub(super) fn cancel(tx: &mut Tx, id: &str, reason: Option<&str>) -> Result<String, ApiError> {
    let (c, account, now) = (tx.c, tx.account, tx.now);
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
    emit(tx, "payment_intent.canceled", &pi_json)?;
    Ok(pi_json)
}

/// Stripe's update semantics for metadata and description. No event: Stripe sends
/// none for such an update (there is no `payment_intent.updated`).
pub(super) fn update(tx: &mut Tx, u: &UpdatePi) -> Result<String, ApiError> {
    let (c, account) = (tx.c, tx.account);
    let UpdatePi { id, clear_metadata, metadata: changes, description } = u;
    let found: Option<(i64, String)> = c
        .prepare_cached("SELECT seq, obj FROM payment_intents WHERE id=?1 AND account=?2")
        .and_then(|mut s| s.query_row(params![id, account], |r| Ok((r.get(0)?, r.get(1)?))).optional())
        .map_err(db)?;
    let Some((seq, obj)) = found else { return Err(missing("payment_intent", id, Some("intent"))) };
    let mut pi: Value = serde_json::from_str(&obj).map_err(|e| internal(StoreError(format!("stored payment intent {id} is unreadable: {e}"))))?;
    let mut metadata: BTreeMap<String, String> = if *clear_metadata { BTreeMap::new() } else { serde_json::from_value(pi["metadata"].clone()).unwrap_or_default() };
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

/// Stores the updated intent; returns its JSON text (for its event and the response).
pub(super) fn save_pi(c: &Connection, pi: &Value) -> Result<String, ApiError> {
    let text = pi.to_string();
    c.prepare_cached("UPDATE payment_intents SET obj=?2 WHERE id=?1")
        .and_then(|mut s| s.execute(params![pi["id"].as_str().unwrap(), text]))
        .map_err(db)?;
    Ok(text)
}

/// Stores the charge; returns its JSON text.
pub(super) fn save_charge(c: &Connection, account: &str, ch: &Value) -> Result<String, ApiError> {
    let text = ch.to_string();
    c.prepare_cached("INSERT OR REPLACE INTO charges (id, account, obj) VALUES (?1, ?2, ?3)")
        .and_then(|mut s| s.execute(params![ch["id"].as_str().unwrap(), account, text]))
        .map_err(db)?;
    Ok(text)
}
