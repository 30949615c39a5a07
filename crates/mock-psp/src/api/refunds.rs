//! Refunds: `POST /v1/refunds` on the writer thread (by PaymentIntent or by charge,
//! at most what was captured and not yet refunded), and `GET /v1/refunds/:id`. The
//! refund list is in `lists.rs`.
use super::errors::{db, invalid, missing, ApiError};
use super::events::emit;
use super::intents::save_charge;
use super::params::{Refund, EXPAND, P};
use super::{json_response, load, PspResponse, Tx};
use crate::form::Params;
use crate::Inner;
use rusqlite::params;
use serde_json::json;

impl Inner {
    /// `GET /v1/refunds/:id`.
    pub(super) async fn get_refund(&self, account: &str, id: &str, params: &Params) -> Result<PspResponse, ApiError> {
        P::new(params, &[EXPAND], false)?;
        let re = self.read_object("refunds", account, id).await?.ok_or_else(|| missing("refund", id, Some("refund")))?;
        Ok(json_response(&re))
    }
}

/// `POST /v1/refunds`. Returns the refund's JSON text.
pub(super) fn create(tx: &mut Tx, r: &Refund) -> Result<String, ApiError> {
    let Refund { payment_intent, charge, amount, reason, metadata } = r;
    let (c, account, claim_id, now) = (tx.c, tx.account, tx.claim_id, tx.now);
    if let Some(obj) = tx.created_by_this_claim("refunds")? {
        return Ok(obj);
    }
    let pi = match (payment_intent, charge) {
        (Some(pid), _) => load(c, "payment_intents", account, pid)?.ok_or_else(|| missing("payment_intent", pid, Some("payment_intent")))?,
        (None, Some(chid)) => {
            let ch = load(c, "charges", account, chid)?.ok_or_else(|| missing("charge", chid, Some("charge")))?;
            let pid = ch["payment_intent"].as_str().unwrap_or("").to_string();
            load(c, "payment_intents", account, &pid)?.ok_or_else(|| missing("payment_intent", &pid, Some("charge")))?
        }
        (None, None) => return Err(invalid("parameter_missing", "One of the following params should be provided for this request: payment_intent or charge.", Some("payment_intent"))),
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
    debug_assert!(amt > 0 && refunded + amt <= captured, "a refund moves a positive amount, never more than was captured");
    let re_id = tx.st.mint("re");
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
    emit(tx, "charge.refunded", &ch_json)?;
    tx.out.refunded = true;
    Ok(re_json)
}
