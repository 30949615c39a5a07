//! Money by tender and by hour, and each store's totals: what the registers' Z reports
//! count (record 0138, `paydesk_ledger::takings`), read from the facts they sent.
//!
//! - A tender counts when it is not superseded, its sale was completed and not canceled
//!   (a register sends no cancel for a sale it never completed: a part-paid sale canceled
//!   and its cash handed back is a tender with no sale here, the same as one still open;
//!   a shift cannot close with a part-paid sale open, so no Z counts such a tender), and (a card)
//!   its payment took the money (captured, or refunded since) or was accepted offline and
//!   is waiting to be forwarded. It counts in the hour it was taken.
//! - A sale is counted once, with its first counted tender (record 0138): a sale paid
//!   across midnight is one sale of the day it began; its later tender's money is the
//!   next day's.
//! - Given back: succeeded card refunds of a counted tender, cash handed out of a drawer,
//!   and store tenders given back as themselves, each when it was given back.
use super::Row;
use crate::counting::{tender_counts, SALE_STANDS};
use crate::error::ApiResult;
use tokio_postgres::types::ToSql;
use uuid::Uuid;

/// Each store asked for, with its range as UTC milliseconds `[from_ms, to_ms)`: from its
/// own midnight of the first day to its own midnight after the last. `$1` the store (NULL:
/// all), `$2`/`$3` the days as text.
pub(super) const STORES: &str = "st AS (
    SELECT s.store_id, s.time_zone,
           (extract(epoch FROM ($2::text::date)::timestamp AT TIME ZONE s.time_zone) * 1000)::int8 AS from_ms,
           (extract(epoch FROM ($3::text::date + 1)::timestamp AT TIME ZONE s.time_zone) * 1000)::int8 AS to_ms
    FROM stores s WHERE $1::uuid IS NULL OR s.store_id = $1)";

/// A tender that took money for a sale (see the module doc), with the sales that had one
/// in the range: all their counted tenders, so the first one is known.
pub(super) fn counted() -> String {
    format!(
        "counted AS (
    SELECT t.store_id, t.register_id, t.sale_id, t.tender_seq, t.method, coalesce(t.tender_type_name, '') AS type_name,
           t.amount, t.currency, t.created_at_ms AS at_ms, d.time_zone, d.from_ms, d.to_ms, t.staff_id, t.staff_name
    -- the range's sales first (by time), then their tenders by the sale's key: checking
    -- every tender of the store and keeping those of the range's sales made one day cost
    -- as much as the year (25 s at 1,000,000 sales, report_bench)
    FROM (SELECT DISTINCT w.store_id, w.register_id, w.sale_id, st.time_zone, st.from_ms, st.to_ms
          FROM tenders w JOIN st USING (store_id) WHERE w.created_at_ms >= st.from_ms AND w.created_at_ms < st.to_ms) d
    JOIN tenders t ON t.store_id = d.store_id AND t.register_id = d.register_id AND t.sale_id = d.sale_id
    WHERE {counts}),
  taken AS (
    SELECT * FROM (SELECT c.*, row_number() OVER (PARTITION BY c.store_id, c.register_id, c.sale_id ORDER BY c.at_ms, c.tender_seq) = 1 AS first
                   FROM counted c) f
    WHERE f.at_ms >= f.from_ms AND f.at_ms < f.to_ms)",
        counts = tender_counts()
    )
}

/// Money given back in the range, by the tender kind it went back through, with the sale it
/// came from (sales by staff count it against the sale's member, record 0143).
pub(super) fn given() -> String {
    format!(
        "given AS (
    SELECT f.store_id, 'card'::text AS method, ''::text AS type_name, t.currency, f.amount, f.created_at_ms AS at_ms, st.time_zone,
           t.register_id, t.sale_id
    FROM refunds f JOIN st USING (store_id) JOIN tenders t ON t.store_id = f.store_id AND t.checkout_key = f.checkout_key
    WHERE f.state = 'succeeded' AND t.superseded_at_ms IS NULL AND f.created_at_ms >= st.from_ms AND f.created_at_ms < st.to_ms
      AND {SALE_STANDS}
    UNION ALL
    SELECT c.store_id, 'cash', '', c.currency, c.amount, c.refunded_at_ms, st.time_zone, c.register_id, c.sale_id
    FROM cash_refunds c JOIN st USING (store_id) WHERE c.refunded_at_ms >= st.from_ms AND c.refunded_at_ms < st.to_ms
    UNION ALL
    SELECT x.store_id, 'store', t.tender_type_name, x.currency, x.amount, x.refunded_at_ms, st.time_zone, x.register_id, x.sale_id
    FROM store_refunds x JOIN st USING (store_id) JOIN tenders t USING (store_id, register_id, sale_id, tender_seq)
    WHERE x.refunded_at_ms >= st.from_ms AND x.refunded_at_ms < st.to_ms)"
    )
}

/// The hour of the store's own clock a time fell in, "00".."23". Times the database cannot
/// turn into a timestamp (a hostile register's) are hour "--", still counted.
fn hour(ms: &str) -> String {
    format!("(CASE WHEN {ms} BETWEEN 0 AND 253402300799999 THEN to_char(to_timestamp({ms} / 1000.0) AT TIME ZONE time_zone, 'HH24') ELSE '--' END)")
}

/// A sum brought back to BIGINT, saturated (as the dashboard's, record 0043).
pub(super) fn sat(sum: &str) -> String {
    format!("LEAST(GREATEST({sum}, -9223372036854775808), 9223372036854775807)::int8")
}

/// What money rows are keyed by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By {
    /// The tender's kind; a store tender by its type's name ("store:Gift voucher").
    Tender,
    /// The hour of the store's clock it was taken or given back.
    Hour,
}

/// Rows keyed by tender kind or by hour.
pub async fn rows(client: &tokio_postgres::Transaction<'_>, by: By, store: Option<Uuid>, from: &str, to: &str, limit: i64) -> ApiResult<Vec<Row>> {
    let (key_t, key_g, label) = match by {
        By::Tender => (
            "method || CASE WHEN method = 'store' THEN ':' || type_name ELSE '' END".to_string(),
            "method || CASE WHEN method = 'store' THEN ':' || type_name ELSE '' END".to_string(),
            "CASE WHEN min(k.method) = 'store' THEN min(k.type_name) ELSE min(k.method) END",
        ),
        By::Hour => (hour("at_ms"), hour("at_ms"), "min(k.key) || ':00'"),
    };
    let sql = format!(
        "WITH {STORES}, {counted}, {given}
         SELECT k.store_id, k.currency, k.key, {label} AS label, sum(k.n)::int8, sum(k.first)::int8, {sold}, {back}, {net}
         FROM (SELECT store_id, currency, {key_t} AS key, method, type_name, 1 AS n, first::int AS first, amount AS sold, 0::int8 AS back FROM taken
               UNION ALL
               SELECT store_id, currency, {key_g}, method, type_name, 0, 0, 0, amount FROM given) k
         GROUP BY k.store_id, k.currency, k.key ORDER BY k.store_id, k.currency, k.key LIMIT $4",
        counted = counted(),
        given = given(),
        sold = sat("sum(k.sold)"),
        back = sat("sum(k.back)"),
        net = sat("sum(k.sold) - sum(k.back)"),
    );
    let params: [&(dyn ToSql + Sync); 4] = [&store, &from, &to, &limit];
    Ok(client.query(&sql, &params).await?.iter().map(row).collect())
}

/// Each store's totals per currency: tenders, sales, sold, given back, net; the figures a Z
/// report of the same period shows (`sales_minor`, `sale_count`, `refunds_minor`, `net_minor`).
pub async fn totals(client: &tokio_postgres::Transaction<'_>, store: Option<Uuid>, from: &str, to: &str, limit: i64) -> ApiResult<Vec<Row>> {
    let sql = format!(
        "WITH {STORES}, {counted}, {given}
         SELECT k.store_id, k.currency, 'total', 'Total', sum(k.n)::int8, sum(k.first)::int8, {sold}, {back}, {net}
         FROM (SELECT store_id, currency, 1 AS n, first::int AS first, amount AS sold, 0::int8 AS back FROM taken
               UNION ALL
               SELECT store_id, currency, 0, 0, 0, amount FROM given) k
         GROUP BY k.store_id, k.currency ORDER BY k.store_id, k.currency LIMIT $4",
        counted = counted(),
        given = given(),
        sold = sat("sum(k.sold)"),
        back = sat("sum(k.back)"),
        net = sat("sum(k.sold) - sum(k.back)"),
    );
    let params: [&(dyn ToSql + Sync); 4] = [&store, &from, &to, &limit];
    Ok(client.query(&sql, &params).await?.iter().map(row).collect())
}

/// A result row in the order every report query selects.
pub(super) fn row(r: &tokio_postgres::Row) -> Row {
    Row {
        store_id: Some(r.get(0)),
        currency: r.get(1),
        key: r.get(2),
        label: r.get(3),
        count: r.get(4),
        sales: r.get(5),
        sold: r.get(6),
        returned: r.get(7),
        net: r.get(8),
    }
}
