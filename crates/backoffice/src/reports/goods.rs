//! What was sold and returned, by item or by category (record 0140).
//!
//! A sale's lines count on the day of its first counted tender (record 0138: a sale paid
//! across midnight is the day it began), only when the sale was not canceled. A return's
//! lines subtract from the item they came from, on the day they were returned. The
//! amounts are the registers' line amounts: in a store whose prices include tax, and with
//! no discount on the whole sale, an item report's net sums to the money a Z report nets
//! (the key test); a sale discount and tax added on top are not spread over the lines.
use super::money::{sat, STORES};
use super::Row;
use crate::error::ApiResult;
use tokio_postgres::types::ToSql;
use uuid::Uuid;

/// What goods rows are keyed by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By {
    /// The SKU; labelled with the name the register printed.
    Item,
    /// The item's category key as published (or, for a register's own item, as the
    /// register sent it); "" when it has none.
    Category,
}

/// Rows keyed by item or category.
pub async fn rows(client: &tokio_postgres::Transaction<'_>, by: By, store: Option<Uuid>, from: &str, to: &str, limit: i64) -> ApiResult<Vec<Row>> {
    let (key, label) = match by {
        By::Item => ("k.sku", "max(k.name)"),
        By::Category => (
            "coalesce((SELECT c.item->>'category' FROM catalog_items c WHERE c.store_id = k.store_id AND c.sku = k.sku),
                      (SELECT r.category FROM register_items r WHERE r.store_id = k.store_id AND r.register_id = k.register_id AND r.sku = k.sku), '')",
            "CASE WHEN min(k.key) = '' THEN '(no category)' ELSE min(k.key) END",
        ),
    };
    let sql = format!(
        "WITH {STORES},
         {counted},
         -- the sales whose first counted tender is in the range: the tender report's own
         -- definition (`money::counted`), one window over the range's sales, where a join per
         -- sale for its first tender was planned as a nested loop a million times over
         sold AS (SELECT store_id, register_id, sale_id, currency FROM taken WHERE first),
         lines AS (SELECT d.store_id, d.register_id, d.sale_id, d.currency, l.sku, l.name, l.quantity::int8 AS q, l.total AS sold, 0::int8 AS back
                   FROM sold d JOIN sale_lines l USING (store_id, register_id, sale_id)
                   UNION ALL
                   SELECT x.store_id, x.register_id, NULL::int8, x.currency, rl.sku, l.name, -rl.quantity::int8, 0, rl.net
                   FROM sale_returns x JOIN st USING (store_id)
                   JOIN sale_return_lines rl USING (store_id, register_id, return_no)
                   JOIN sale_lines l ON l.store_id = rl.store_id AND l.register_id = rl.register_id AND l.sale_id = rl.sale_id AND l.line_no = rl.line_no
                   WHERE x.returned_at_ms >= st.from_ms AND x.returned_at_ms < st.to_ms)
         SELECT k.store_id, k.currency, k.key, {label} AS label, sum(k.q)::int8,
                count(DISTINCT (k.register_id, k.sale_id)) FILTER (WHERE k.sale_id IS NOT NULL), {sold}, {back}, {net}
         FROM (SELECT lines.*, {key} AS key FROM lines) k
         GROUP BY k.store_id, k.currency, k.key ORDER BY k.store_id, k.currency, k.key LIMIT $4",
        key = key.replace("k.", "lines."),
        counted = super::money::counted(),
        sold = sat("sum(k.sold)"),
        back = sat("sum(k.back)"),
        net = sat("sum(k.sold) - sum(k.back)"),
    );
    let params: [&(dyn ToSql + Sync); 4] = [&store, &from, &to, &limit];
    Ok(client.query(&sql, &params).await?.iter().map(super::money::row).collect())
}
