//! `POST /admin/stores/{store}/owed/{id}/execute`: pays an approved refund back, once
//! (record 0142). `executing` is committed BEFORE the PSP is asked, so whatever dies after
//! that (this process, PostgreSQL, the network) leaves a row that says "the PSP may have
//! done it"; executing again asks the PSP with the SAME idempotency key, and the PSP answers
//! with the refund it already made instead of making another. Only a definite answer leaves
//! `executing`: a refund (succeeded), a refusal (failed). Anything unsure stays executing.
use super::propose::account;
use super::{load, parse_id, refused, Op, Owed, OwedState};
use crate::admin::{parse_store, require_owner};
use crate::error::ApiResult;
use crate::state::{now_ms, AppState};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::Json;
use serde_json::Value;
use uuid::Uuid;

/// What the PSP said about the refund.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Refunded: the PSP's refund id.
    Paid(String),
    /// The PSP refused it; nothing was refunded.
    Declined(String),
    /// The PSP has the refund and has not finished it (its id, asked again by id).
    Pending(String),
    /// No definite answer (timeout, 5xx, key in use, unreadable): may or may not be done.
    Unsure(String),
}

impl Outcome {
    /// The state it leaves the row in.
    pub const fn state(&self) -> OwedState {
        match self {
            Outcome::Paid(_) => OwedState::Succeeded,
            Outcome::Declined(_) => OwedState::Failed,
            Outcome::Pending(_) | Outcome::Unsure(_) => OwedState::Executing,
        }
    }
}

/// A refund object's status (Stripe's words, read here at the edge).
fn from_status(id: String, status: &str) -> Outcome {
    match status {
        "succeeded" => Outcome::Paid(id),
        "failed" | "canceled" => Outcome::Declined(format!("the PSP's refund {id} is {status}")),
        "pending" | "requires_action" => Outcome::Pending(id),
        other => Outcome::Unsure(format!("the PSP's refund {id} has status {other:?}")),
    }
}

/// An HTTP answer of the PSP: only a 400/402/404 refusal that is not about the key itself
/// says "not done"; an idempotency error, a key in use (409), throttling, auth and 5xx do not.
pub fn classify(status: u16, body: &Value) -> Outcome {
    let short = |s: &str| s.chars().take(300).collect::<String>();
    if (200..300).contains(&status) {
        return match (body["id"].as_str(), body["status"].as_str()) {
            (Some(id), Some(st)) => from_status(id.to_string(), st),
            _ => Outcome::Unsure(format!("an unreadable refund from the PSP ({status})")),
        };
    }
    let err = &body["error"];
    let what = format!("{status} {}: {}", short(err["code"].as_str().or(err["type"].as_str()).unwrap_or("no code")), short(err["message"].as_str().unwrap_or("no message")));
    match status {
        400 | 402 | 404 if err["type"].as_str() != Some("idempotency_error") && err.is_object() => Outcome::Declined(what),
        _ => Outcome::Unsure(what),
    }
}

/// Asks the PSP: by the refund's id once it has one (a pending refund), else the one
/// `POST /v1/refunds` with the stored key and the same parameters every time.
async fn ask(st: &AppState, (base, key): &(String, String), o: &Owed) -> Outcome {
    let req = match &o.psp_refund_id {
        Some(id) => st.http.get(format!("{base}/v1/refunds/{id}")).bearer_auth(key),
        None => {
            let reason = if o.kind == crate::recon::ExceptionKind::DuplicateCharge.as_str() { "duplicate" } else { "requested_by_customer" };
            let form = [
                ("payment_intent", o.psp_charge_id.clone()),
                ("amount", o.amount.to_string()),
                ("reason", reason.to_string()),
                // what reconciliation matches the PSP's refund with (not a register's refund)
                ("metadata[refund_key]", o.idempotency_key.clone()),
                ("metadata[owed_refund]", o.owed_id.to_string()),
            ];
            st.http.post(format!("{base}/v1/refunds")).bearer_auth(key).header("Idempotency-Key", &o.idempotency_key).form(&form)
        }
    };
    match req.send().await {
        Err(e) => Outcome::Unsure(format!("no answer from the PSP: {}", e.without_url())),
        Ok(resp) => {
            let status = resp.status().as_u16();
            if o.psp_refund_id.is_some() && !resp.status().is_success() {
                // the refund exists (the PSP gave its id): failing to read it is no answer
                return Outcome::Unsure(format!("reading the PSP's refund: {status}"));
            }
            match resp.json::<Value>().await {
                Ok(body) => classify(status, &body),
                Err(e) => Outcome::Unsure(format!("{status} with an unreadable body: {}", e.without_url())),
            }
        }
    }
}

/// Moves the row to `executing` (committed) and returns it, or answers without the PSP:
/// paid back already (the row), not approved, failed.
async fn start(st: &AppState, store: Uuid, id: Uuid, op: Op) -> ApiResult<Result<Owed, Owed>> {
    let mut client = st.pool.get().await?;
    let tx = client.transaction().await?;
    let o = load(&tx, store, id, true).await?;
    if o.state == OwedState::Succeeded {
        return Ok(Err(o));
    }
    if !op.allows(o.state) {
        return Err(refused(op, o.state));
    }
    if o.state == OwedState::Approved {
        if let Err(e) = super::approve::still_open(&tx, store, &o).await {
            tx.commit().await?;
            return Err(e);
        }
    }
    let row = tx
        .query_one(
            &format!("UPDATE owed_refunds SET state = 'executing', executing_ms = coalesce(executing_ms, $3), attempts = attempts + 1 WHERE store_id = $1 AND owed_id = $2 RETURNING {}", super::COLUMNS),
            &[&store, &id, &now_ms()],
        )
        .await?;
    let o = Owed::from_row(&row)?;
    tx.commit().await?;
    Ok(Ok(o))
}

/// Records a definite (or pending) answer; an unsure one only as the last error.
async fn record(st: &AppState, store: Uuid, o: &Owed, out: &Outcome) -> ApiResult<Owed> {
    let mut client = st.pool.get().await?;
    let tx = client.transaction().await?;
    let now = now_ms();
    let cur = load(&tx, store, o.owed_id, true).await?;
    if !Op::Record.allows(cur.state) {
        // another execute recorded it first (with the same key, so the same refund)
        return Ok(cur);
    }
    match out {
        Outcome::Paid(re) => {
            tx.execute("UPDATE owed_refunds SET state = 'succeeded', psp_refund_id = $3, finished_ms = $4, last_error = NULL WHERE store_id = $1 AND owed_id = $2", &[&store, &o.owed_id, re, &now])
                .await?;
            // The exception is closed when every charge it owes is paid back.
            let why = format!("paid back to the customer by the PSP's refund {re} of {} {} (proposed by {}, approved by {})", o.amount, o.currency, o.proposed_by, o.approved_by.as_deref().unwrap_or("?"));
            tx.execute(
                "UPDATE recon_exceptions SET resolved_ms = $3, resolved_by = $4, resolution = $5
                 WHERE store_id = $1 AND exception_id = $2 AND resolved_ms IS NULL
                   AND NOT EXISTS (SELECT 1 FROM owed_refunds w WHERE w.store_id = $1 AND w.exception_id = $2 AND w.state <> 'succeeded')",
                &[&store, &o.exception_id, &now, &o.approved_by.as_deref().unwrap_or("owed refund"), &why],
            )
            .await?;
        }
        Outcome::Declined(e) => {
            tx.execute("UPDATE owed_refunds SET state = 'failed', last_error = $3, finished_ms = $4 WHERE store_id = $1 AND owed_id = $2", &[&store, &o.owed_id, e, &now]).await?;
        }
        Outcome::Pending(re) => {
            tx.execute("UPDATE owed_refunds SET psp_refund_id = $3, last_error = 'pending at the PSP' WHERE store_id = $1 AND owed_id = $2", &[&store, &o.owed_id, re]).await?;
        }
        Outcome::Unsure(e) => {
            tx.execute("UPDATE owed_refunds SET last_error = $3 WHERE store_id = $1 AND owed_id = $2", &[&store, &o.owed_id, e]).await?;
        }
    }
    let after = load(&tx, store, o.owed_id, false).await?;
    tx.commit().await?;
    Ok(after)
}

/// Starts (`Op::Execute`) or resumes (`Op::Resume`) refund `id`: `executing` committed,
/// the PSP asked with the stored key, its answer recorded. The row as it is after.
pub(crate) async fn drive(st: &AppState, store: Uuid, id: Uuid, op: Op) -> ApiResult<Owed> {
    let o = match start(st, store, id, op).await? {
        Ok(o) => o,
        Err(done) => return Ok(done),
    };
    let acct = account(st, store).await?;
    let out = ask(st, &acct, &o).await;
    if let Outcome::Unsure(e) = &out {
        tracing::warn!("owed refund {id}: unsure answer, stays executing: {e}");
    }
    record(st, store, &o, &out).await
}

pub async fn execute(State(st): State<AppState>, headers: HeaderMap, Path((store, id)): Path<(String, String)>) -> ApiResult<(StatusCode, Json<Value>)> {
    require_owner(&st, &headers).await?;
    let store = parse_store(&store)?;
    let id = parse_id(&id, "owed refund")?;
    let after = drive(&st, store, id, Op::Execute).await?;
    // 202: still executing; execute again (with the same key) to learn the outcome.
    let status = if after.state == OwedState::Executing { StatusCode::ACCEPTED } else { StatusCode::OK };
    Ok((status, Json(after.to_json())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_a_plain_refusal_is_failed_and_every_unsure_answer_stays_executing() {
        let refused = |t: &str| json!({"error": {"type": t, "code": "charge_already_refunded", "message": "no"}});
        assert!(matches!(classify(400, &refused("invalid_request_error")), Outcome::Declined(_)));
        assert!(matches!(classify(402, &refused("card_error")), Outcome::Declined(_)));
        for (status, body) in [(400, refused("idempotency_error")), (409, refused("idempotency_error")), (429, refused("rate_limit")), (500, refused("api_error")), (503, json!(null)), (401, refused("invalid_request_error")), (400, json!("<html>"))] {
            assert!(matches!(classify(status, &body), Outcome::Unsure(_)), "{status} {body}");
        }
        assert_eq!(classify(200, &json!({"id": "re_1", "status": "succeeded"})), Outcome::Paid("re_1".into()));
        assert_eq!(classify(200, &json!({"id": "re_1", "status": "pending"})), Outcome::Pending("re_1".into()));
        assert!(matches!(classify(200, &json!({"id": "re_1", "status": "failed"})), Outcome::Declined(_)));
        assert!(matches!(classify(200, &json!({"id": "re_1", "status": "new_word"})), Outcome::Unsure(_)));
        assert!(matches!(classify(200, &json!({"id": "re_1"})), Outcome::Unsure(_)));
        for o in [Outcome::Paid("r".into()), Outcome::Declined("x".into()), Outcome::Pending("r".into()), Outcome::Unsure("x".into())] {
            assert_eq!(o.state().owed(), !matches!(o, Outcome::Paid(_) | Outcome::Declined(_)));
        }
    }
}
