//! `GET /admin/dashboard`: everything the dashboard shows, in one JSON document.
use crate::admin::require_owner;
use crate::error::ApiResult;
use crate::recon::ExceptionKind;
use crate::state::AppState;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::Json;
use serde_json::{json, Map, Value};

/// States in which a payment counts as a sale (captured; refunds are shown apart).
const SALE_STATES: &str = "('captured', 'refunding', 'partially_refunded', 'refunded')";
/// Rows in each list, newest first.
const LIST_LIMIT: i64 = 200;

/// A sum of BIGINTs (PostgreSQL sums them as numeric) brought back to BIGINT without an
/// overflow error: saturated at the BIGINT range. No single amount exceeds 10^12, so
/// only a hostile or broken register's data can reach the bound, and then the page
/// still loads (record 0043).
fn sat(sum: &str) -> String {
    format!("LEAST(GREATEST({sum}, -9223372036854775808), 9223372036854775807)::int8")
}

/// Times the hourly chart can draw (`to_timestamp` fails past year 294,276): rows of
/// any time are still counted elsewhere, only this chart leaves them out.
const CHART_TIMES: &str = "p.created_at_ms BETWEEN 0 AND 253402300799999";

/// An offset of `seconds` east of UTC as "+09:00" / "-04:00" / "+05:30".
fn utc_offset(seconds: &str) -> String {
    format!(
        "(CASE WHEN {seconds} < 0 THEN '-' ELSE '+' END) || to_char(abs({seconds}) / 3600, 'FM00') || ':' || to_char(abs({seconds}) % 3600 / 60, 'FM00')"
    )
}

fn describe(kind: &str) -> &'static str {
    [
        ExceptionKind::ChargeWithoutRecord,
        ExceptionKind::RecordWithoutCharge,
        ExceptionKind::AmountDiffers,
        ExceptionKind::StateDiffers,
        ExceptionKind::DuplicateCharge,
        ExceptionKind::RefundMismatch,
    ]
    .into_iter()
    .find(|k| k.as_str() == kind)
    .map_or("unknown", ExceptionKind::describe)
}

async fn rows(client: &tokio_postgres::Client, sql: &str) -> ApiResult<Vec<Value>> {
    let out = client.query(sql, &[&LIST_LIMIT]).await?;
    Ok(out
        .iter()
        .map(|r| {
            let mut m = Map::new();
            for (i, c) in r.columns().iter().enumerate() {
                let v = match c.type_().name() {
                    "int8" => json!(r.get::<_, Option<i64>>(i)),
                    "int4" => json!(r.get::<_, Option<i32>>(i)),
                    "uuid" => json!(r.get::<_, Option<uuid::Uuid>>(i).map(|u| u.to_string())),
                    "jsonb" => r.get::<_, Option<Value>>(i).unwrap_or(Value::Null),
                    "bool" => json!(r.get::<_, Option<bool>>(i)),
                    _ => json!(r.get::<_, Option<String>>(i)),
                };
                m.insert(c.name().to_string(), v);
            }
            Value::Object(m)
        })
        .collect())
}

pub async fn dashboard(State(st): State<AppState>, headers: HeaderMap) -> ApiResult<Json<Value>> {
    require_owner(&st, &headers).await?;
    let client = st.pool.get().await?;
    let currencies = rows(&client, "SELECT code, exponent::int4 AS exponent FROM currencies LIMIT $1").await?;
    let stores = rows(
        &client,
        "SELECT s.store_id, s.name, s.time_zone,
                    (SELECT ss.settings->>'currency' FROM store_settings ss WHERE ss.store_id = s.store_id) AS currency,
                    (SELECT count(*) FROM registers r WHERE r.store_id = s.store_id) AS registers,
                    (SELECT count(*) FROM recon_exceptions e WHERE e.store_id = s.store_id AND e.resolved_ms IS NULL) AS open_exceptions,
                    (SELECT max(finished_ms) FROM recon_runs x WHERE x.store_id = s.store_id) AS last_reconciled_ms
             FROM stores s ORDER BY s.name LIMIT $1",
    )
    .await?;
    let sales_by_store = rows(
        &client,
        &format!(
            "SELECT p.store_id, p.currency, count(*) AS sales, {} AS amount,
                    {} AS refunded
             FROM payments p WHERE p.state IN {SALE_STATES} GROUP BY p.store_id, p.currency ORDER BY p.store_id LIMIT $1",
            sat("sum(p.amount)"),
            sat("coalesce((SELECT sum(f.amount) FROM refunds f WHERE f.store_id = p.store_id AND f.state = 'succeeded'), 0)"),
        ),
    )
    .await?;
    let sales_by_register = rows(
        &client,
        &format!(
            "SELECT p.store_id, p.register_id, r.name AS register, p.currency, count(*) AS sales, {} AS amount
             FROM payments p JOIN registers r USING (store_id, register_id)
             WHERE p.state IN {SALE_STATES} GROUP BY p.store_id, p.register_id, r.name, p.currency ORDER BY r.name LIMIT $1",
            sat("sum(p.amount)"),
        ),
    )
    .await?;
    // Hours of each store's own clock (record 0137). A row is the instant the local hour
    // began, so the hour a summer-time change repeats (01:00 EDT, then 01:00 EST) is two
    // rows, each labelled with its local hour and its UTC offset: both true, never summed.
    let sales_by_hour = rows(
        &client,
        &format!(
            "SELECT k.store_id, k.time_zone, to_char(k.h AT TIME ZONE k.time_zone, 'YYYY-MM-DD HH24:00') AS hour,
                    {offset} AS utc_offset, (extract(epoch FROM k.h) * 1000)::int8 AS hour_start_ms,
                    k.currency, count(*) AS sales, {amount} AS amount
             FROM (SELECT p.store_id, s.time_zone, p.currency, p.amount,
                          date_trunc('hour', to_timestamp(p.created_at_ms / 1000.0), s.time_zone) AS h
                   FROM payments p JOIN stores s USING (store_id) WHERE p.state IN {SALE_STATES} AND {CHART_TIMES}) k
             GROUP BY k.store_id, k.time_zone, k.h, k.currency ORDER BY k.h DESC, k.store_id LIMIT $1",
            amount = sat("sum(k.amount)"),
            offset = utc_offset("extract(epoch FROM (k.h AT TIME ZONE k.time_zone) - (k.h AT TIME ZONE 'UTC'))::int4"),
        ),
    )
    .await?;
    // Cash against card per store: tenders that count (a superseded one never did).
    let tenders_by_store = rows(
        &client,
        &format!(
            "SELECT store_id, method, currency, count(*) AS tenders, {} AS amount, {} AS change_given
             FROM tenders WHERE superseded_at_ms IS NULL GROUP BY store_id, method, currency ORDER BY store_id, method, currency LIMIT $1",
            sat("sum(amount)"),
            sat("coalesce(sum(change_given), 0)"),
        ),
    )
    .await?;
    // What the registers' sales came to, net of what came back (record 0119): items
    // returned (with their tax) and cash handed back out of the drawer. Canceled sales
    // never counted.
    let sales_net = rows(
        &client,
        &format!(
            "SELECT s.store_id, s.currency, count(*) AS sales, {sold} AS sold,
                    (SELECT count(*) FROM sale_returns x WHERE x.store_id = s.store_id AND x.currency = s.currency) AS returns,
                    {returned} AS returned, {sold_less} AS net,
                    {cash} AS cash_refunded
             FROM sales s WHERE s.canceled_at_ms IS NULL GROUP BY s.store_id, s.currency ORDER BY s.store_id, s.currency LIMIT $1",
            sold = sat("sum(s.total)"),
            returned = sat("coalesce((SELECT sum(x.total) FROM sale_returns x WHERE x.store_id = s.store_id AND x.currency = s.currency), 0)"),
            sold_less = sat("sum(s.total) - coalesce((SELECT sum(x.total) FROM sale_returns x WHERE x.store_id = s.store_id AND x.currency = s.currency), 0)"),
            cash = sat("coalesce((SELECT sum(c.amount) FROM cash_refunds c WHERE c.store_id = s.store_id AND c.currency = s.currency), 0)"),
        ),
    )
    .await?;
    // Takings per store tender type (record 0121): grouped by the type's name and kind as
    // the registers sent them (a type id is each register's own), net of what was given
    // back through it. A tender of a canceled sale never counted, as at the register.
    let store_tenders = rows(
        &client,
        &format!(
            "SELECT k.store_id, k.currency, k.name, k.kind, sum(k.n)::int8 AS tenders, {amount} AS amount, {forfeited} AS forfeited,
                    sum(k.rn)::int8 AS refunds, {refunded} AS refunded
             FROM (SELECT t.store_id, t.currency, t.tender_type_name AS name, t.tender_type_kind AS kind, 1 AS n, t.amount AS a,
                          t.forfeited AS f, 0 AS rn, 0::int8 AS ra
                   FROM tenders t WHERE t.method = 'store' AND t.superseded_at_ms IS NULL
                     AND NOT EXISTS (SELECT 1 FROM sales s WHERE s.store_id = t.store_id AND s.register_id = t.register_id
                                                              AND s.sale_id = t.sale_id AND s.canceled_at_ms IS NOT NULL)
                   UNION ALL
                   SELECT x.store_id, x.currency, t.tender_type_name, t.tender_type_kind, 0, 0, 0, 1, x.amount
                   FROM store_refunds x JOIN tenders t USING (store_id, register_id, sale_id, tender_seq)) k
             GROUP BY k.store_id, k.currency, k.name, k.kind ORDER BY k.store_id, k.currency, k.name LIMIT $1",
            amount = sat("sum(k.a)"),
            forfeited = sat("sum(k.f)"),
            refunded = sat("sum(k.ra)"),
        ),
    )
    .await?;
    // Tax per rate, sold and returned (what a return gives back per rate is the register's
    // own figure, from the sale's locked tax): the net is what the store owes tax on.
    let tax_net = rows(
        &client,
        &format!(
            "SELECT k.store_id, k.currency, k.class, k.ppm, {sg} AS sold_gross, {st} AS sold_tax,
                    {rg} AS returned_gross, {rt} AS returned_tax, {ng} AS net_gross, {nt} AS net_tax
             FROM (SELECT s.store_id, s.currency, r.class, r.ppm, r.gross AS sg, r.tax AS st, 0::int8 AS rg, 0::int8 AS rt
                   FROM sales s JOIN sale_rates r USING (store_id, register_id, sale_id) WHERE s.canceled_at_ms IS NULL
                   UNION ALL
                   SELECT x.store_id, x.currency, r.class, r.ppm, 0, 0, r.gross, r.tax
                   FROM sale_returns x JOIN sale_return_rates r USING (store_id, register_id, return_no)) k
             GROUP BY k.store_id, k.currency, k.class, k.ppm
             ORDER BY k.store_id, k.currency, array_position(ARRAY['standard','reduced','exempt'], k.class), k.ppm LIMIT $1",
            sg = sat("sum(k.sg)"),
            st = sat("sum(k.st)"),
            rg = sat("sum(k.rg)"),
            rt = sat("sum(k.rt)"),
            ng = sat("sum(k.sg) - sum(k.rg)"),
            nt = sat("sum(k.st) - sum(k.rt)"),
        ),
    )
    .await?;
    // Drawer sessions, newest first: open ones have no Z number yet.
    let shifts = rows(
        &client,
        "SELECT s.store_id, r.name AS register, s.shift_id, s.currency, s.float_amount, s.opened_at_ms, s.z_number,
                s.counted, s.expected, s.over_short, s.closed_at_ms
         FROM shifts s JOIN registers r USING (store_id, register_id) ORDER BY s.opened_at_ms DESC LIMIT $1",
    )
    .await?;
    let refunds = rows(
        &client,
        "SELECT f.store_id, f.refund_key, f.checkout_key, r.name AS register, f.amount, coalesce(p.currency, '') AS currency, f.state, f.created_at_ms
         FROM refunds f JOIN registers r USING (store_id, register_id) LEFT JOIN payments p ON p.store_id = f.store_id AND p.register_id = f.register_id AND p.checkout_key = f.checkout_key
         ORDER BY f.created_at_ms DESC LIMIT $1",
    )
    .await?;
    let mut exceptions = rows(
        &client,
        "SELECT store_id, exception_id, kind, subject, detail, first_seen_ms, last_seen_ms, resolved_ms, resolved_by, resolution
         FROM recon_exceptions ORDER BY (resolved_ms IS NULL) DESC, first_seen_ms DESC LIMIT $1",
    )
    .await?;
    for e in &mut exceptions {
        let d = describe(e["kind"].as_str().unwrap_or(""));
        e["description"] = json!(d);
    }
    let registers = rows(
        &client,
        "SELECT r.store_id, r.register_id, r.name, r.app_version, r.last_sync_ms, r.acked_through, r.queued, r.offline_waiting, r.replaced_ms,
                (SELECT count(*) FROM held_batches h WHERE h.store_id = r.store_id AND h.register_id = r.register_id) AS held_batches
         FROM registers r ORDER BY r.name LIMIT $1",
    )
    .await?;
    // Exchanges (record 0145): which sale's return paid which new sale, newest first. A
    // replacement's exchange of its predecessor's sale names the predecessor (`old_register`,
    // record 0153); null when the old sale is the register's own.
    let exchanges = rows(
        &client,
        "SELECT x.store_id, r.name AS register, x.old_sale_id, x.return_no, x.new_sale_id, x.credit, x.currency, x.exchanged_at_ms,
                EXISTS (SELECT 1 FROM sales s WHERE s.store_id = x.store_id AND s.register_id = x.register_id AND s.sale_id = x.new_sale_id)
                    AS new_sale_completed,
                CASE WHEN x.old_register_id <> x.register_id THEN o.name END AS old_register
         FROM sale_exchanges x JOIN registers r USING (store_id, register_id)
              JOIN registers o ON o.store_id = x.store_id AND o.register_id = x.old_register_id
         ORDER BY x.exchanged_at_ms DESC LIMIT $1",
    )
    .await?;
    // Each register's audit chain as it reported it (record 0053).
    let audit = crate::sync::audit_head::all(&client, LIST_LIMIT).await?;
    // What is owed back to customers and what was paid back (record 0142).
    let owed_back = crate::owed::dashboard::sums(&client, LIST_LIMIT).await?;
    let owed_refunds = crate::owed::dashboard::list(&client, LIST_LIMIT).await?;
    Ok(Json(json!({
        "currencies": currencies, "stores": stores, "sales_by_store": sales_by_store,
        "sales_by_register": sales_by_register, "sales_by_hour": sales_by_hour, "tenders_by_store": tenders_by_store, "shifts": shifts,
        "sales_net": sales_net, "tax_net": tax_net, "store_tenders": store_tenders,
        "refunds": refunds, "exceptions": exceptions, "registers": registers, "audit": audit,
        "owed_back": owed_back, "owed_refunds": owed_refunds, "exchanges": exchanges,
    })))
}
