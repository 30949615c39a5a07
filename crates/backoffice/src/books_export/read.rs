//! Reading a store's day: the same facts, counted the same way, as the registers' Z reports
//! (`paydesk_ledger::takings`, record 0138), from the tables the registers' journals fill.
use super::{Figures, TaxClass};
use crate::error::{ApiError, ApiResult};
use crate::counting::{tender_counts, SALE_STANDS};
use tokio_postgres::Transaction;

/// A store's local day as an instant range, and the zone it was read in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Day {
    pub from_ms: i64,
    pub to_ms: i64,
    pub time_zone: String,
}

/// The store's day `date` (checked "YYYY-MM-DD") from its midnight to the next in its
/// zone: 23 or 25 hours on a summer-time change. `None`: no such store.
pub async fn read_day(client: &Transaction<'_>, store: uuid::Uuid, date: &str) -> ApiResult<Option<Day>> {
    let row = client
        .query_opt(
            "SELECT (extract(epoch FROM ($2::text::date::timestamp AT TIME ZONE s.time_zone)) * 1000)::int8,
                    (extract(epoch FROM (($2::text::date + 1)::timestamp AT TIME ZONE s.time_zone)) * 1000)::int8, s.time_zone
             FROM stores s WHERE s.store_id = $1",
            &[&store, &date],
        )
        .await?;
    Ok(row.map(|r| Day { from_ms: r.get(0), to_ms: r.get(1), time_zone: r.get(2) }))
}

fn class(s: &str) -> ApiResult<TaxClass> {
    TaxClass::parse(s).ok_or_else(|| ApiError::Internal(format!("stored tax class {s:?}")))
}

/// The day's figures per currency, in currency order.
pub async fn figures(client: &Transaction<'_>, store: uuid::Uuid, day: &Day) -> ApiResult<Vec<Figures>> {
    let (a, b) = (&day.from_ms, &day.to_ms);
    let mut out: Vec<Figures> = Vec::new();
    let at = |out: &mut Vec<Figures>, cur: &str, exp: i16| -> usize {
        match out.iter().position(|f| f.currency == cur) {
            Some(i) => i,
            None => {
                out.push(Figures { currency: cur.to_string(), exponent: exp.max(0) as u32, ..Figures::default() });
                out.len() - 1
            }
        }
    };
    // Money taken: each counted tender in the day it was taken.
    let counts = tender_counts();
    let sql = format!(
        "SELECT t.currency, c.exponent, t.method, coalesce(t.tender_type_name, ''), sum(t.amount)::int8
         FROM tenders t JOIN currencies c ON c.code = t.currency
         WHERE t.store_id = $1 AND t.created_at_ms >= $2 AND t.created_at_ms < $3 AND {counts}
         GROUP BY 1, 2, 3, 4 ORDER BY 1, 3, 4"
    );
    for r in client.query(&sql, &[&store, a, b]).await? {
        let i = at(&mut out, r.get(0), r.get(1));
        out[i].tenders.push((r.get(2), r.get(3), r.get(4)));
    }
    // Sales (their tax by rate) in the day of their first counted tender (record 0138).
    // The sales with a tender in the day, and each one's first counted tender (of any day)
    // read by the sale's own key: the day's few thousand tenders, not every counted tender
    // of the store (the first version checked them all, 736x a plain read of the day).
    let firsts = format!(
        "WITH day_sales AS (
            SELECT DISTINCT register_id, sale_id FROM tenders
            WHERE store_id = $1 AND created_at_ms >= $2 AND created_at_ms < $3),
         firsts AS (
            SELECT d.register_id, d.sale_id, f.first_ms FROM day_sales d
            CROSS JOIN LATERAL (SELECT min(t.created_at_ms) AS first_ms FROM tenders t
                                WHERE t.store_id = $1 AND t.register_id = d.register_id AND t.sale_id = d.sale_id AND {counts}) f),
         -- each sale by its key (a join let the planner hash every sale of the store)
         today AS (SELECT s.* FROM firsts f CROSS JOIN LATERAL (SELECT * FROM sales s WHERE s.store_id = $1 AND s.register_id = f.register_id
                                                                  AND s.sale_id = f.sale_id AND s.canceled_at_ms IS NULL) s
                   WHERE f.first_ms >= $2 AND f.first_ms < $3)"
    );
    let sql = format!(
        "{firsts}
         SELECT s.currency, c.exponent, r.class, r.ppm, sum(r.gross)::int8, sum(r.tax)::int8
         FROM today s CROSS JOIN LATERAL (SELECT * FROM sale_rates r WHERE r.store_id = s.store_id AND r.register_id = s.register_id
                                                                        AND r.sale_id = s.sale_id) r
              JOIN currencies c ON c.code = s.currency
         GROUP BY 1, 2, 3, 4 ORDER BY 1, array_position(ARRAY['standard','reduced','exempt'], r.class), 4 DESC"
    );
    for r in client.query(&sql, &[&store, a, b]).await? {
        let i = at(&mut out, r.get(0), r.get(1));
        let ppm: i32 = r.get(3);
        out[i].rates.push((class(r.get(2))?, ppm.max(0) as u32, r.get(4), r.get(5)));
    }
    let sql = format!(
        "{firsts}
         SELECT s.currency, c.exponent, sum(s.total)::int8 FROM today s JOIN currencies c ON c.code = s.currency
         WHERE NOT EXISTS (SELECT 1 FROM sale_rates r WHERE r.store_id = s.store_id AND r.register_id = s.register_id AND r.sale_id = s.sale_id)
         GROUP BY 1, 2 ORDER BY 1"
    );
    for r in client.query(&sql, &[&store, a, b]).await? {
        let i = at(&mut out, r.get(0), r.get(1));
        out[i].untaxed = r.get(2);
    }
    // Money given back in the day: succeeded card refunds of a sale that counts (its
    // charge not superseded, its sale standing), cash out of a drawer, store refunds.
    let sql = format!("SELECT k.currency, c.exponent, k.method, k.name, sum(k.amount)::int8 FROM (
            SELECT p.currency, 'card' AS method, '' AS name, f.amount FROM refunds f
            JOIN payments p ON p.store_id = f.store_id AND p.checkout_key = f.checkout_key
            WHERE f.store_id = $1 AND f.state = 'succeeded' AND f.created_at_ms >= $2 AND f.created_at_ms < $3
              AND EXISTS (SELECT 1 FROM tenders t WHERE t.store_id = f.store_id AND t.checkout_key = f.checkout_key AND t.superseded_at_ms IS NULL
                            AND {SALE_STANDS})
            UNION ALL
            SELECT x.currency, 'cash', '', x.amount FROM cash_refunds x WHERE x.store_id = $1 AND x.refunded_at_ms >= $2 AND x.refunded_at_ms < $3
            UNION ALL
            SELECT x.currency, 'store', t.tender_type_name, x.amount FROM store_refunds x JOIN tenders t USING (store_id, register_id, sale_id, tender_seq)
            WHERE x.store_id = $1 AND x.refunded_at_ms >= $2 AND x.refunded_at_ms < $3) k
         JOIN currencies c ON c.code = k.currency GROUP BY 1, 2, 3, 4 ORDER BY 1, 3, 4");
    for r in client.query(&sql, &[&store, a, b]).await? {
        let i = at(&mut out, r.get(0), r.get(1));
        out[i].refunds.push((r.get(2), r.get(3), r.get(4)));
    }
    // Items taken back in the day, per rate, of sales that were not canceled.
    let sql = "SELECT x.currency, c.exponent, r.class, r.ppm, sum(r.gross)::int8, sum(r.tax)::int8
         FROM sale_returns x JOIN sale_return_rates r USING (store_id, register_id, return_no) JOIN currencies c ON c.code = x.currency
         WHERE x.store_id = $1 AND x.returned_at_ms >= $2 AND x.returned_at_ms < $3
           AND NOT EXISTS (SELECT 1 FROM sales s WHERE s.store_id = x.store_id AND s.register_id = x.register_id
                                                  AND s.sale_id = x.sale_id AND s.canceled_at_ms IS NOT NULL)
         GROUP BY 1, 2, 3, 4 ORDER BY 1, array_position(ARRAY['standard','reduced','exempt'], r.class), 4 DESC";
    for r in client.query(sql, &[&store, a, b]).await? {
        let i = at(&mut out, r.get(0), r.get(1));
        let ppm: i32 = r.get(3);
        out[i].returns.push((class(r.get(2))?, ppm.max(0) as u32, r.get(4), r.get(5)));
    }
    // Each drawer closed in the day: its Z's over (+) or short (−).
    let sql = "SELECT s.currency, c.exponent, g.name, s.z_number, s.over_short FROM shifts s
         JOIN registers g USING (store_id, register_id) JOIN currencies c ON c.code = s.currency
         WHERE s.store_id = $1 AND s.closed_at_ms >= $2 AND s.closed_at_ms < $3 AND s.over_short IS NOT NULL
         ORDER BY s.currency, g.name, s.z_number";
    for r in client.query(sql, &[&store, a, b]).await? {
        let i = at(&mut out, r.get(0), r.get(1));
        out[i].over_short.push((r.get(2), r.get(3), r.get(4)));
    }
    out.sort_by(|x, y| x.currency.cmp(&y.currency));
    Ok(out)
}
