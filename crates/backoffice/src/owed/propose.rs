//! `POST /admin/stores/{store}/exceptions/{id}/propose-refund`: a person turns an open
//! exception that is money the customer should not have paid into proposed refunds, one per
//! charge to pay back, each with its own idempotency key made here, once (record 0142).
//! Only two kinds qualify: a duplicate charge (every charge of the checkout key but the one
//! the register's sale stands on) and a charge no register recorded (that charge).
use super::person::{prove, Claim};
use super::{parse_id, Owed, COLUMNS};
pub use crate::recon::run::account;
use crate::admin::{json_body, parse_store, require_owner};
use crate::error::{ApiError, ApiResult};
use crate::recon::ExceptionKind;
use crate::state::{now_ms, source, AppState};
use axum::extract::{Path, State};
use axum::http::{Extensions, HeaderMap};
use axum::Json;
use paydesk_access::Role;
use serde::Deserialize;
use serde_json::{json, Value};
use uuid::Uuid;

/// Charges one duplicate-charge exception may name (the matcher lists every charge of the
/// key); more is not a duplicate but a broken register or PSP, for a person to look at.
const MAX_CHARGES: usize = 20;

/// A PaymentIntent as the PSP shows it now: what a refund of it would be.
#[derive(Debug, Deserialize)]
pub struct Intent {
    pub id: String,
    pub amount: i64,
    #[serde(default)]
    pub amount_received: Option<i64>,
    pub currency: String,
    pub status: String,
    #[serde(default)]
    pub created: i64,
}

async fn intent(st: &AppState, (base, key): &(String, String), id: &str) -> ApiResult<Intent> {
    if id.is_empty() || id.len() > 255 || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return Err(ApiError::Internal(format!("an exception names the PSP id {id:?}")));
    }
    let resp = st
        .http
        .get(format!("{base}/v1/payment_intents/{id}"))
        .bearer_auth(key)
        .send()
        .await
        .map_err(|e| ApiError::Psp(format!("GET payment intent {id}: {}", e.without_url())))?;
    let status = resp.status();
    if !status.is_success() {
        return Err(ApiError::Psp(format!("GET payment intent {id}: {status}")));
    }
    resp.json().await.map_err(|e| ApiError::Psp(format!("GET payment intent {id}: unreadable: {}", e.without_url())))
}

/// Which of a duplicate's charges the sale stands on: the one the register recorded, else
/// the first the PSP took (the later ones are the repeats).
fn kept<'a>(intents: &'a [Intent], recorded: Option<&str>) -> Option<&'a Intent> {
    intents.iter().find(|i| Some(i.id.as_str()) == recorded).or_else(|| intents.iter().min_by(|a, b| (a.created, &a.id).cmp(&(b.created, &b.id))))
}

pub async fn propose(
    State(st): State<AppState>,
    headers: HeaderMap,
    ext: Extensions,
    Path((store, id)): Path<(String, String)>,
    body: axum::body::Bytes,
) -> ApiResult<Json<Value>> {
    require_owner(&st, &headers).await?;
    let store = parse_store(&store)?;
    let id = parse_id(&id, "exception")?;
    let claim: Claim = json_body(&body)?;
    let by = prove(&st, source(&ext), store, &claim, Role::Cashier).await?;
    let ex = st
        .pool
        .get()
        .await?
        .query_opt("SELECT kind, subject, detail, resolved_ms IS NOT NULL FROM recon_exceptions WHERE store_id = $1 AND exception_id = $2", &[&store, &id])
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no exception {id} in store {store}")))?;
    let (kind, subject, detail, resolved): (String, String, Value, bool) = (ex.get(0), ex.get(1), ex.get(2), ex.get(3));
    if resolved {
        return Err(ApiError::Refused { code: "exception_resolved", message: format!("exception {id} is already resolved; nothing is owed for it") });
    }
    let ids: Vec<String> = if kind == ExceptionKind::DuplicateCharge.as_str() {
        detail["psp_ids"].as_array().map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect()).unwrap_or_default()
    } else if kind == ExceptionKind::ChargeWithoutRecord.as_str() {
        vec![subject.clone()]
    } else {
        return Err(ApiError::Refused {
            code: "not_refundable_kind",
            message: format!("a {kind} exception is not a charge the customer paid without a sale; only duplicate_charge and charge_without_record are paid back"),
        });
    };
    if ids.is_empty() || ids.len() > MAX_CHARGES {
        return Err(ApiError::Refused { code: "not_refundable_kind", message: format!("exception {id} names {} charges; a person must look at it", ids.len()) });
    }
    let acct = account(&st, store).await?;
    let mut intents = Vec::with_capacity(ids.len());
    for i in &ids {
        intents.push(intent(&st, &acct, i).await?);
    }
    let to_pay_back: Vec<&Intent> = if kind == ExceptionKind::DuplicateCharge.as_str() {
        let recorded: Option<String> = st.pool.get().await?.query_opt("SELECT psp_id FROM payments WHERE store_id = $1 AND checkout_key = $2", &[&store, &subject]).await?.and_then(|r| r.get(0));
        let keep = kept(&intents, recorded.as_deref()).map(|i| i.id.clone());
        intents.iter().filter(|i| Some(&i.id) != keep.as_ref()).collect()
    } else {
        intents.iter().collect()
    };
    if let Some(i) = to_pay_back.iter().find(|i| i.status != "succeeded") {
        return Err(ApiError::Refused { code: "not_captured", message: format!("charge {} is {} at the PSP, not captured: there is nothing to refund yet", i.id, i.status) });
    }
    let mut client = st.pool.get().await?;
    let tx = client.transaction().await?;
    let mut made = Vec::new();
    for i in to_pay_back {
        let owed_id = Uuid::new_v4();
        // Made once, here, and never changed: every attempt to pay this charge back, by any
        // back office process, before or after a crash, asks the PSP with this key.
        let key = format!("paydesk-owed-{owed_id}");
        let amount = i.amount_received.filter(|a| *a > 0).unwrap_or(i.amount);
        let row = tx
            .query_opt(
                &format!(
                    "INSERT INTO owed_refunds (store_id, owed_id, exception_id, kind, psp_charge_id, amount, currency, idempotency_key, state, proposed_by, proposed_ms)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'proposed', $9, $10)
                     ON CONFLICT (store_id, psp_charge_id) DO NOTHING RETURNING {COLUMNS}"
                ),
                &[&store, &owed_id, &id, &kind, &i.id, &amount, &i.currency.to_ascii_lowercase(), &key, &by, &now_ms()],
            )
            .await?;
        if let Some(r) = row {
            made.push(Owed::from_row(&r)?.to_json());
        }
    }
    tx.commit().await?;
    if made.is_empty() {
        return Err(ApiError::Refused { code: "already_proposed", message: format!("every charge of exception {id} already has a refund proposed") });
    }
    Ok(Json(json!({"exception_id": id, "proposed": made})))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i(id: &str, created: i64) -> Intent {
        Intent { id: id.into(), amount: 300, amount_received: Some(300), currency: "usd".into(), status: "succeeded".into(), created }
    }

    #[test]
    fn the_recorded_charge_is_kept_else_the_first_taken() {
        let all = [i("pi_b", 5), i("pi_a", 7), i("pi_c", 5)];
        assert_eq!(kept(&all, Some("pi_a")).unwrap().id, "pi_a");
        assert_eq!(kept(&all, None).unwrap().id, "pi_b");
        assert_eq!(kept(&all, Some("pi_elsewhere")).unwrap().id, "pi_b");
    }
}
