//! One reconciliation run of one store: read both sides, match, record what differs.
use super::psp::{PspAccount, PspIntent, PspRefund};
use super::ExceptionKind;
use crate::error::{ApiError, ApiResult};
use crate::state::{now_ms, AppState};
use paydesk_sync_proto::{PaymentState, RefundState};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use uuid::Uuid;

/// A register's payment as the projection holds it.
#[derive(Debug, Clone)]
pub struct RegPayment {
    pub checkout_key: String,
    pub amount: i64,
    pub currency: String,
    pub state: PaymentState,
}

#[derive(Debug, Clone)]
pub struct RegRefund {
    pub refund_key: String,
    pub checkout_key: String,
    pub amount: i64,
    pub state: RefundState,
}

/// One disagreement: its kind, what it is about (a key or a PSP id) and the facts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Found {
    pub kind: ExceptionKind,
    pub subject: String,
    pub detail: Value,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    pub run_id: String,
    pub psp_charges: u64,
    pub psp_refunds: u64,
    pub matched: u64,
    pub exceptions: u64,
    pub new_exceptions: u64,
    pub cleared: u64,
}

/// The matching itself, with no I/O: every PSP charge and refund against the registers'
/// records, and every register record that took money against the PSP.
pub fn compare(payments: &[RegPayment], refunds: &[RegRefund], intents: &[PspIntent], psp_refunds: &[PspRefund]) -> (Vec<Found>, u64) {
    let by_key: HashMap<&str, &RegPayment> = payments.iter().map(|p| (p.checkout_key.as_str(), p)).collect();
    let mut found = Vec::new();
    let mut matched = 0u64;
    let mut charged: HashMap<&str, Vec<&PspIntent>> = HashMap::new();
    for pi in intents.iter().filter(|pi| pi.charged()) {
        let key = pi.metadata.get("checkout_key").map(String::as_str);
        let Some(p) = key.and_then(|k| by_key.get(k)) else {
            found.push(Found {
                kind: ExceptionKind::ChargeWithoutRecord,
                subject: pi.id.clone(),
                detail: json!({"psp_id": pi.id, "checkout_key": key, "amount": pi.amount, "currency": pi.currency, "psp_status": pi.status}),
            });
            continue;
        };
        charged.entry(p.checkout_key.as_str()).or_default().push(pi);
        if pi.amount != p.amount || pi.currency != p.currency {
            found.push(Found {
                kind: ExceptionKind::AmountDiffers,
                subject: p.checkout_key.clone(),
                detail: json!({"psp_id": pi.id, "psp_amount": pi.amount, "psp_currency": pi.currency, "register_amount": p.amount, "register_currency": p.currency}),
            });
        } else if !p.state.money_taken() && !p.state.unsettled() {
            found.push(Found {
                kind: ExceptionKind::StateDiffers,
                subject: p.checkout_key.clone(),
                detail: json!({"psp_id": pi.id, "psp_status": pi.status, "register_state": p.state.as_str(), "amount": p.amount, "currency": p.currency}),
            });
        } else {
            matched += 1;
        }
    }
    for (key, pis) in &charged {
        if pis.len() > 1 {
            let ids: Vec<&str> = pis.iter().map(|p| p.id.as_str()).collect();
            found.push(Found { kind: ExceptionKind::DuplicateCharge, subject: (*key).to_string(), detail: json!({"psp_ids": ids}) });
        }
    }
    for p in payments.iter().filter(|p| p.state.money_taken() && !charged.contains_key(p.checkout_key.as_str())) {
        found.push(Found {
            kind: ExceptionKind::RecordWithoutCharge,
            subject: p.checkout_key.clone(),
            detail: json!({"checkout_key": p.checkout_key, "register_state": p.state.as_str(), "amount": p.amount, "currency": p.currency}),
        });
    }
    let reg_refunds: HashMap<&str, &RegRefund> = refunds.iter().map(|r| (r.refund_key.as_str(), r)).collect();
    let mut psp_refunded: HashSet<&str> = HashSet::new();
    for re in psp_refunds.iter().filter(|r| r.status == "succeeded" || r.status == "pending") {
        let key = re.metadata.get("refund_key").map(String::as_str);
        match key.and_then(|k| reg_refunds.get(k)) {
            None => found.push(Found {
                kind: ExceptionKind::RefundMismatch,
                subject: re.id.clone(),
                detail: json!({"problem": "refunded at the PSP, no register record", "psp_refund_id": re.id, "refund_key": key, "amount": re.amount, "payment_intent": re.payment_intent}),
            }),
            Some(r) if r.amount != re.amount || r.state == RefundState::Failed => found.push(Found {
                kind: ExceptionKind::RefundMismatch,
                subject: r.refund_key.clone(),
                detail: json!({"problem": "amount or outcome differs", "psp_refund_id": re.id, "psp_amount": re.amount, "register_amount": r.amount, "register_state": r.state.as_str()}),
            }),
            Some(r) => {
                psp_refunded.insert(r.refund_key.as_str());
                matched += 1;
            }
        }
    }
    for r in refunds.iter().filter(|r| r.state == RefundState::Succeeded && !psp_refunded.contains(r.refund_key.as_str())) {
        if found.iter().any(|f| f.kind == ExceptionKind::RefundMismatch && f.subject == r.refund_key) {
            continue;
        }
        found.push(Found {
            kind: ExceptionKind::RefundMismatch,
            subject: r.refund_key.clone(),
            detail: json!({"problem": "refunded at a register, no refund at the PSP", "refund_key": r.refund_key, "checkout_key": r.checkout_key, "amount": r.amount}),
        });
    }
    (found, matched)
}

/// Reads the store's registers' records and its PSP account, matches them, and records
/// the exceptions (one row per kind and subject, however often found). Exceptions of
/// earlier runs that this run no longer finds are closed with that reason.
pub async fn reconcile(st: &AppState, store: Uuid) -> ApiResult<Summary> {
    let started = now_ms();
    let client = st.pool.get().await?;
    let acct = client
        .query_opt("SELECT api_base, secret_key FROM psp_accounts WHERE store_id = $1", &[&store])
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("store {store} has no PSP account; set one first")))?;
    let (base, key): (String, String) = (acct.get(0), acct.get(1));
    let psp = PspAccount { http: &st.http, api_base: &base, secret_key: &key, max_objects: st.limits.max_psp_objects };
    let intents = psp.intents().await?;
    let psp_refunds = psp.refunds().await?;
    let payments = client
        .query("SELECT checkout_key, amount, currency, state FROM payments WHERE store_id = $1", &[&store])
        .await?
        .iter()
        .map(|r| {
            let state: String = r.get(3);
            let state = PaymentState::parse(&state).ok_or_else(|| ApiError::Internal(format!("stored payment state {state:?}")))?;
            Ok(RegPayment { checkout_key: r.get(0), amount: r.get(1), currency: r.get(2), state })
        })
        .collect::<ApiResult<Vec<_>>>()?;
    let refunds = client
        .query("SELECT refund_key, checkout_key, amount, state FROM refunds WHERE store_id = $1", &[&store])
        .await?
        .iter()
        .map(|r| {
            let state: String = r.get(3);
            let state = RefundState::parse(&state).ok_or_else(|| ApiError::Internal(format!("stored refund state {state:?}")))?;
            Ok(RegRefund { refund_key: r.get(0), checkout_key: r.get(1), amount: r.get(2), state })
        })
        .collect::<ApiResult<Vec<_>>>()?;
    drop(client);
    let (found, matched) = compare(&payments, &refunds, &intents, &psp_refunds);
    let run_id = Uuid::new_v4();
    let mut client = st.pool.get().await?;
    let tx = client.transaction().await?;
    // one run of a store writes at a time, so one run never closes what another found
    tx.execute("SELECT pg_advisory_xact_lock(hashtext($1::text))", &[&store.to_string()]).await?;
    let now = now_ms();
    let mut new = 0u64;
    for f in &found {
        let inserted = tx
            .query_one(
                "INSERT INTO recon_exceptions (store_id, exception_id, kind, subject, detail, first_seen_ms, last_seen_ms, last_run_id)
                 VALUES ($1, $2, $3, $4, $5, $6, $6, $7)
                 ON CONFLICT (store_id, kind, subject)
                 DO UPDATE SET detail = excluded.detail, last_seen_ms = excluded.last_seen_ms, last_run_id = excluded.last_run_id
                 RETURNING (xmax = 0)",
                &[&store, &Uuid::new_v4(), &f.kind.as_str(), &f.subject, &f.detail, &now, &run_id],
            )
            .await?;
        new += u64::from(inserted.get::<_, bool>(0));
    }
    let reason = format!("no longer found by reconciliation run {run_id}");
    let cleared = tx
        .execute(
            "UPDATE recon_exceptions SET resolved_ms = $2, resolved_by = 'reconciliation', resolution = $3
             WHERE store_id = $1 AND resolved_ms IS NULL AND last_run_id <> $4",
            &[&store, &now, &reason, &run_id],
        )
        .await?;
    let charges = intents.iter().filter(|p| p.charged()).count() as i64;
    tx.execute(
        "INSERT INTO recon_runs (store_id, run_id, started_ms, finished_ms, psp_charges, psp_refunds, matched, exceptions) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        &[&store, &run_id, &started, &now, &charges, &(psp_refunds.len() as i64), &(matched as i64), &(found.len() as i64)],
    )
    .await?;
    tx.commit().await?;
    Ok(Summary { run_id: run_id.to_string(), psp_charges: charges as u64, psp_refunds: psp_refunds.len() as u64, matched, exceptions: found.len() as u64, new_exceptions: new, cleared })
}
