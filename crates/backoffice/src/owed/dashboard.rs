//! What the dashboard shows of refunds owed back (record 0142): per store and currency,
//! what is still owed (proposed, approved, executing) and what was paid back, and the
//! refunds themselves, open ones first.
use crate::error::ApiResult;
use serde_json::{json, Value};

/// Sums per store, currency and state; the page groups them. Saturated like the rest of
/// the dashboard's sums (amounts are bounded at 10^12 each by the table's CHECK).
pub async fn sums(client: &tokio_postgres::Client, limit: i64) -> ApiResult<Vec<Value>> {
    let rows = client
        .query(
            "SELECT store_id, currency,
                    count(*) FILTER (WHERE state IN ('proposed', 'approved', 'executing'))::int8 AS owed_count,
                    LEAST(coalesce(sum(amount) FILTER (WHERE state = 'proposed'), 0), 9223372036854775807)::int8 AS proposed,
                    LEAST(coalesce(sum(amount) FILTER (WHERE state = 'approved'), 0), 9223372036854775807)::int8 AS approved,
                    LEAST(coalesce(sum(amount) FILTER (WHERE state = 'executing'), 0), 9223372036854775807)::int8 AS executing,
                    LEAST(coalesce(sum(amount) FILTER (WHERE state IN ('proposed', 'approved', 'executing')), 0), 9223372036854775807)::int8 AS owed,
                    count(*) FILTER (WHERE state = 'succeeded')::int8 AS paid_back_count,
                    LEAST(coalesce(sum(amount) FILTER (WHERE state = 'succeeded'), 0), 9223372036854775807)::int8 AS paid_back,
                    count(*) FILTER (WHERE state = 'failed')::int8 AS failed_count
             FROM owed_refunds GROUP BY store_id, currency ORDER BY store_id, currency LIMIT $1",
            &[&limit],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|r| {
            json!({
                "store_id": r.get::<_, uuid::Uuid>(0), "currency": r.get::<_, String>(1), "owed_count": r.get::<_, i64>(2),
                "proposed": r.get::<_, i64>(3), "approved": r.get::<_, i64>(4), "executing": r.get::<_, i64>(5), "owed": r.get::<_, i64>(6),
                "paid_back_count": r.get::<_, i64>(7), "paid_back": r.get::<_, i64>(8), "failed_count": r.get::<_, i64>(9),
            })
        })
        .collect())
}

/// The refunds, still owed first, newest first.
pub async fn list(client: &tokio_postgres::Client, limit: i64) -> ApiResult<Vec<Value>> {
    let rows = client
        .query(
            &format!(
                "SELECT store_id, proposed_ms, {} FROM owed_refunds
                 ORDER BY (state IN ('proposed', 'approved', 'executing')) DESC, proposed_ms DESC LIMIT $1",
                super::COLUMNS
            ),
            &[&limit],
        )
        .await?;
    let mut out = Vec::with_capacity(rows.len());
    for r in &rows {
        // the row after the two leading columns is what `Owed::from_row` reads
        let owed = super::Owed::from_row_at(r, 2)?;
        let mut v = owed.to_json();
        v["store_id"] = json!(r.get::<_, uuid::Uuid>(0));
        v["proposed_ms"] = json!(r.get::<_, i64>(1));
        out.push(v);
    }
    Ok(out)
}
