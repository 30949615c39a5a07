//! Sales by staff (record 0143): who took the money, with the Z report's definitions (the
//! same `counted` and `given` as by tender, `money.rs`), so the rows of every member sum to
//! the report's totals and to the registers' Z reports.
//!
//! - Money (`sold`, `count`) goes to the member who took each tender.
//! - A sale (`sales`) belongs to the member of its first counted tender (record 0138's rule,
//!   the same as the day): a sale begun by one member and finished by another is the first's,
//!   the second's money is theirs.
//! - What was given back (`returned`) goes to the member the sale belongs to: a return nets
//!   the sales of whoever made the sale, whoever handed the money back (the facts do not say
//!   who gave it back).
//!
//! A member is named by the register's own roster when the id is one of its own
//! (`register_staff`, kept current by `staff_saved`), else by the name the tender carried (a
//! member published from here has an id only the register knows). Members are keyed by name,
//! so one published member working at two registers is one row. A tender without a member
//! (a register run without staff, or one sent before registers named it) is "(no staff)".
use super::money::{counted, given, row, sat, STORES};
use super::Row;
use crate::counting::tender_counts;
use crate::error::ApiResult;
use tokio_postgres::types::ToSql;
use uuid::Uuid;

/// The label of the rows whose tenders name no member.
pub const NO_STAFF: &str = "(no staff)";

/// The member's name for the tender row `a` (its `store_id`, `register_id`, `staff_id` and
/// `staff_name`); "" when it has none. `#<id>` when a hostile or broken register sent an id
/// with no name and it is none of its own.
fn name_of(a: &str) -> String {
    format!(
        "coalesce((SELECT rs.name FROM register_staff rs WHERE rs.store_id = {a}.store_id AND rs.register_id = {a}.register_id
                                                     AND rs.staff_id = {a}.staff_id),
                  {a}.staff_name, '#' || {a}.staff_id::text, '')"
    )
}

/// Rows keyed by the member's name, per store and currency.
pub async fn rows(client: &tokio_postgres::Transaction<'_>, store: Option<Uuid>, from: &str, to: &str, limit: i64) -> ApiResult<Vec<Row>> {
    // The member a sale belongs to: its first counted tender's (any time, as by tender).
    let sale_member = format!(
        "coalesce((SELECT {name} FROM tenders t WHERE t.store_id = g.store_id AND t.register_id = g.register_id AND t.sale_id = g.sale_id
                     AND {counts} ORDER BY t.created_at_ms, t.tender_seq LIMIT 1), '')",
        name = name_of("t"),
        counts = tender_counts(),
    );
    let sql = format!(
        "WITH {STORES}, {counted}, {given}
         SELECT k.store_id, k.currency, k.key, CASE WHEN k.key = '' THEN '{NO_STAFF}' ELSE k.key END AS label,
                sum(k.n)::int8, sum(k.first)::int8, {sold}, {back}, {net}
         FROM (SELECT store_id, currency, {taker} AS key, 1 AS n, first::int AS first, amount AS sold, 0::int8 AS back FROM taken
               UNION ALL
               SELECT g.store_id, g.currency, {sale_member}, 0, 0, 0, g.amount FROM given g) k
         GROUP BY k.store_id, k.currency, k.key ORDER BY k.store_id, k.currency, k.key LIMIT $4",
        counted = counted(),
        given = given(),
        taker = name_of("taken"),
        sold = sat("sum(k.sold)"),
        back = sat("sum(k.back)"),
        net = sat("sum(k.sold) - sum(k.back)"),
    );
    let params: [&(dyn ToSql + Sync); 4] = [&store, &from, &to, &limit];
    Ok(client.query(&sql, &params).await?.iter().map(row).collect())
}
