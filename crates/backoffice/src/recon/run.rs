//! One reconciliation run of one store: read the PSP side into its compact form, stream
//! the register side through the matcher, record what differs (record 0042).
use super::matching::{Charges, Matcher, Refunds};
pub use super::matching::{Found, RegPayment, RegRefund};
use super::psp::PspAccount;
use crate::error::{ApiError, ApiResult};
use crate::state::{now_ms, AppState};
use paydesk_sync_proto::{PaymentState, RefundState};
use serde::Serialize;
use tokio_postgres::{IsolationLevel, Transaction};
use uuid::Uuid;

/// Register records fetched from PostgreSQL at a time (a portal): the register side of a
/// run holds this many rows at most, whatever the store's size.
const FETCH_ROWS: i32 = 5_000;

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

/// Feeds every row of `sql` (parameter: the store) to `each`, `FETCH_ROWS` at a time.
async fn each_row(tx: &Transaction<'_>, sql: &str, store: Uuid, mut each: impl FnMut(&tokio_postgres::Row) -> ApiResult<()>) -> ApiResult<()> {
    let stmt = tx.prepare(sql).await?;
    let portal = tx.bind(&stmt, &[&store]).await?;
    loop {
        let rows = tx.query_portal(&portal, FETCH_ROWS).await?;
        for r in &rows {
            each(r)?;
        }
        if rows.len() < FETCH_ROWS as usize {
            return Ok(());
        }
    }
}

/// The store's PSP account: its API base and secret key.
pub async fn account(st: &AppState, store: Uuid) -> ApiResult<(String, String)> {
    let acct = st
        .pool
        .get()
        .await?
        .query_opt("SELECT api_base, secret_key FROM psp_accounts WHERE store_id = $1", &[&store])
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("store {store} has no PSP account; set one first")))?;
    Ok((acct.get(0), acct.get(1)))
}

/// Reads the store's registers' records and its PSP account, matches them, and records
/// the exceptions (one row per kind and subject, however often found). Exceptions of
/// earlier runs that this run no longer finds are closed with that reason.
pub async fn reconcile(st: &AppState, store: Uuid) -> ApiResult<Summary> {
    let started = now_ms();
    let (base, key) = account(st, store).await?;
    let psp = PspAccount { http: &st.http, api_base: &base, secret_key: &key, max_objects: st.limits.max_psp_objects };
    let (mut charges, mut psp_refunds) = (Charges::default(), Refunds::default());
    psp.intents(&mut charges).await?;
    let refunds_listed = psp.refunds(&mut psp_refunds).await?;
    let charged = charges.len() as i64;
    let mut matcher = Matcher::new(charges, psp_refunds);
    let mut client = st.pool.get().await?;
    // One snapshot for both tables, so a refund is never seen without its payment's state
    // of the same moment; read-only, it blocks no register's batch.
    let tx = client.build_transaction().isolation_level(IsolationLevel::RepeatableRead).read_only(true).start().await?;
    each_row(&tx, "SELECT checkout_key, amount, currency, state FROM payments WHERE store_id = $1", store, |r| {
        let state: &str = r.get(3);
        let state = PaymentState::parse(state).ok_or_else(|| ApiError::Internal(format!("stored payment state {state:?}")))?;
        matcher.payment(&RegPayment { checkout_key: r.get(0), amount: r.get(1), currency: r.get(2), state });
        Ok(())
    })
    .await?;
    each_row(&tx, "SELECT refund_key, checkout_key, amount, state FROM refunds WHERE store_id = $1", store, |r| {
        let state: &str = r.get(3);
        let state = RefundState::parse(state).ok_or_else(|| ApiError::Internal(format!("stored refund state {state:?}")))?;
        matcher.refund(&RegRefund { refund_key: r.get(0), checkout_key: r.get(1), amount: r.get(2), state });
        Ok(())
    })
    .await?;
    // Refunds the back office asked the PSP for itself (record 0142), in the same snapshot.
    each_row(&tx, "SELECT idempotency_key, amount, state = 'succeeded' FROM owed_refunds WHERE store_id = $1 AND state IN ('executing', 'succeeded', 'failed')", store, |r| {
        matcher.owed_refund(r.get(0), r.get(1), r.get(2));
        Ok(())
    })
    .await?;
    tx.commit().await?;
    let (found, matched) = matcher.finish();
    let run_id = Uuid::new_v4();
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
    tx.execute(
        "INSERT INTO recon_runs (store_id, run_id, started_ms, finished_ms, psp_charges, psp_refunds, matched, exceptions) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        &[&store, &run_id, &started, &now, &charged, &(refunds_listed as i64), &(matched as i64), &(found.len() as i64)],
    )
    .await?;
    tx.commit().await?;
    Ok(Summary { run_id: run_id.to_string(), psp_charges: charged as u64, psp_refunds: refunds_listed, matched, exceptions: found.len() as u64, new_exceptions: new, cleared })
}
