//! `GET /admin/audit/search?from=&to=[&min=][&max=][&receipt=][&store=]` and
//! `GET /admin/audit/sales/{REGISTER.SALE}` behind the owner's session (record 0146).
use super::proof::{check_print, HeldRow, Outcome, Verdict, Walk, MAX_PROOF_ROWS};
use super::{parse_search, Refusal, SaleId, MAX_SEARCH_ROWS};
use crate::admin::require_owner;
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use axum::extract::{Path, RawQuery, State};
use axum::Json;
use paydesk_access::audit::{AuditRecord, Hash};
use serde_json::{json, Value};
use uuid::Uuid;

/// Prints of one sale listed with their text; past it they are counted.
pub const MAX_PRINTS_LISTED: i64 = 50;
/// Rows read per round trip of a proof's walk.
const PAGE_ROWS: i64 = 5_000;

/// The store's local time of `ms` as `YYYY-MM-DD HH:MM:SS`, in SQL (`$tz` a column).
fn local(ms: &str, tz: &str) -> String {
    format!("to_char(to_timestamp({ms} / 1000.0) AT TIME ZONE {tz}, 'YYYY-MM-DD HH24:MI:SS')")
}

pub async fn search(State(st): State<AppState>, headers: axum::http::HeaderMap, RawQuery(query): RawQuery) -> ApiResult<Json<Value>> {
    require_owner(&st, &headers).await?;
    let q = parse_search(query.as_deref().unwrap_or(""))?;
    let mut client = st.pool.get().await?;
    let client = crate::counting::reading(&mut client).await?;
    if let Some(store) = q.store {
        if client.query_opt("SELECT 1 FROM stores WHERE store_id = $1", &[&store]).await?.is_none() {
            return Err(Refusal::NotAStore(store.to_string()).into());
        }
    }
    let (from, to) = (q.range.from.iso(), q.range.to.iso());
    let limit = MAX_SEARCH_ROWS as i64 + 1;
    // Each store's days from its own midnight (record 0140's rule), as the reports cut them.
    let sql = format!(
        "WITH st AS (
           SELECT s.store_id, s.name, s.time_zone,
                  (extract(epoch FROM ($1::text::date)::timestamp AT TIME ZONE s.time_zone) * 1000)::int8 AS from_ms,
                  (extract(epoch FROM ($2::text::date + 1)::timestamp AT TIME ZONE s.time_zone) * 1000)::int8 AS to_ms
           FROM stores s WHERE $3::uuid IS NULL OR s.store_id = $3)
         SELECT x.store_id, st.name, x.register_id, r.name, x.sale_id, x.receipt_no, x.currency, x.total, x.completed_at_ms,
                {}, x.canceled_at_ms IS NOT NULL,
                (SELECT count(*) FROM receipt_prints p WHERE p.store_id = x.store_id AND p.register_id = x.register_id AND p.sale_id = x.sale_id)
         FROM st JOIN sales x ON x.store_id = st.store_id AND x.completed_at_ms >= st.from_ms AND x.completed_at_ms < st.to_ms
         JOIN registers r ON r.store_id = x.store_id AND r.register_id = x.register_id
         WHERE ($4::int8 IS NULL OR x.total >= $4) AND ($5::int8 IS NULL OR x.total <= $5) AND ($6::text IS NULL OR x.receipt_no = $6)
           AND ($8::text IS NULL OR x.currency = $8)
         ORDER BY x.completed_at_ms, x.register_id, x.sale_id LIMIT $7",
        local("x.completed_at_ms", "st.time_zone")
    );
    let currency = q.currency.map(|c| c.code());
    let rows = client.query(&sql, &[&from, &to, &q.store, &q.min, &q.max, &q.receipt, &limit, &currency]).await?;
    let truncated = rows.len() > MAX_SEARCH_ROWS;
    let sales: Vec<Value> = rows
        .iter()
        .take(MAX_SEARCH_ROWS)
        .map(|r| {
            let id = SaleId { register_id: r.get(2), sale_id: r.get(4) };
            json!({
                "id": id.spelled(),
                "store_id": r.get::<_, Uuid>(0).to_string(), "store": r.get::<_, String>(1),
                "register_id": id.register_id.to_string(), "register": r.get::<_, String>(3),
                "sale_id": id.sale_id, "receipt_no": r.get::<_, String>(5),
                "currency": r.get::<_, String>(6), "total": r.get::<_, i64>(7),
                "completed_at_ms": r.get::<_, i64>(8), "completed_local": r.get::<_, String>(9),
                "canceled": r.get::<_, bool>(10), "prints": r.get::<_, i64>(11),
            })
        })
        .collect();
    Ok(Json(json!({
        "from": from, "to": to, "min": q.min, "max": q.max, "receipt": q.receipt, "store": q.store,
        "sales": sales, "truncated": truncated,
    })))
}

fn hash32(v: Vec<u8>) -> ApiResult<Hash> {
    // the columns' CHECKs hold 32 bytes
    v.try_into().map_err(|_| ApiError::Internal("an audit hash is not 32 bytes".into()))
}

fn held(r: &tokio_postgres::Row) -> ApiResult<HeldRow> {
    Ok(HeldRow {
        record: AuditRecord {
            seq: r.get::<_, i64>(0) as u64,
            at_ms: r.get(1),
            actor_id: r.get(2),
            approver_id: r.get(3),
            action: r.get(4),
            subject: r.get(5),
            reason: r.get(6),
            before: r.get(7),
            after: r.get(8),
        },
        prev_hash: hash32(r.get(9))?,
        hash: hash32(r.get(10))?,
    })
}

const ROW_COLS: &str = "seq, at_ms, actor_id, approver_id, action, subject, reason, before_doc, after_doc, prev_hash, hash";

pub async fn sale(State(st): State<AppState>, headers: axum::http::HeaderMap, Path(id): Path<String>) -> ApiResult<Json<Value>> {
    require_owner(&st, &headers).await?;
    let id = SaleId::parse(&id)?;
    let mut client = st.pool.get().await?;
    let client = crate::counting::reading(&mut client).await?;
    let sale = client
        .query_opt(
            &format!(
                "SELECT x.store_id, st.name, r.name, x.receipt_no, x.currency, x.total, x.completed_at_ms, {}, x.canceled_at_ms IS NOT NULL, st.time_zone
                 FROM sales x JOIN stores st ON st.store_id = x.store_id
                 JOIN registers r ON r.store_id = x.store_id AND r.register_id = x.register_id
                 WHERE x.register_id = $1 AND x.sale_id = $2",
                local("x.completed_at_ms", "st.time_zone")
            ),
            &[&id.register_id, &id.sale_id],
        )
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no sale {}", id.spelled())))?;
    let store: Uuid = sale.get(0);
    let tz: String = sale.get(9);
    let prints = client
        .query(
            &format!(
                "SELECT print_no, reprint, outcome, paper, printed_at_ms, {}, staff_id, staff_name, text, text_sha256, audit_seq
                 FROM receipt_prints WHERE store_id = $1 AND register_id = $2 AND sale_id = $3 ORDER BY print_no LIMIT $4",
                local("printed_at_ms", "$5::text")
            ),
            &[&store, &id.register_id, &id.sale_id, &MAX_PRINTS_LISTED, &tz],
        )
        .await?;
    let span = client
        .query_one(
            "SELECT count(*), min(audit_seq), max(audit_seq) FROM receipt_prints WHERE store_id = $1 AND register_id = $2 AND sale_id = $3",
            &[&store, &id.register_id, &id.sale_id],
        )
        .await?;
    let (print_count, first, last): (i64, Option<i64>, Option<i64>) = (span.get(0), span.get(1), span.get(2));
    let listed: Vec<(i64, Option<String>, i64)> = prints.iter().map(|p| (p.get::<_, i32>(0) as i64, p.get(8), p.get(10))).collect();
    let proof = prove(&client, store, id, first.zip(last), &listed).await?;
    let mut issued = Value::Null;
    let prints: Vec<Value> = prints
        .iter()
        .map(|p| {
            let print_no = p.get::<_, i32>(0) as i64;
            let text_ok = proof.texts.iter().find(|(n, _)| *n == print_no).and_then(|(_, ok)| *ok);
            let v = json!({
                "print_no": print_no, "reprint": p.get::<_, bool>(1), "outcome": p.get::<_, String>(2), "paper": p.get::<_, bool>(3),
                "printed_at_ms": p.get::<_, i64>(4), "printed_local": p.get::<_, String>(5),
                "staff_id": p.get::<_, Option<i64>>(6), "staff_name": p.get::<_, Option<String>>(7),
                "text": p.get::<_, Option<String>>(8), "text_sha256": p.get::<_, String>(9), "audit_seq": p.get::<_, i64>(10),
                "text_matches_chain": text_ok,
            });
            // As issued: the unmarked copy that may have reached paper (record 0058: at most one).
            if issued.is_null() && !p.get::<_, bool>(1) && p.get::<_, bool>(3) {
                issued = v.clone();
            }
            v
        })
        .collect();
    let chain = client
        .query_opt("SELECT broken_kind, broken_seq, broken_detail FROM audit_heads WHERE store_id = $1 AND register_id = $2", &[&store, &id.register_id])
        .await?;
    let chain = match chain {
        None => json!({"status": "not_reported"}),
        Some(c) => match c.get::<_, Option<String>>(0) {
            None => json!({"status": "intact"}),
            Some(kind) => json!({"status": "broken", "kind": kind, "seq": c.get::<_, Option<i64>>(1), "detail": c.get::<_, Option<String>>(2)}),
        },
    };
    Ok(Json(json!({
        "id": id.spelled(),
        "sale": {
            "store_id": store.to_string(), "store": sale.get::<_, String>(1),
            "register_id": id.register_id.to_string(), "register": sale.get::<_, String>(2),
            "sale_id": id.sale_id, "receipt_no": sale.get::<_, String>(3), "currency": sale.get::<_, String>(4),
            "total": sale.get::<_, i64>(5), "completed_at_ms": sale.get::<_, i64>(6), "completed_local": sale.get::<_, String>(7),
            "canceled": sale.get::<_, bool>(8),
        },
        "issued": issued,
        "prints": prints,
        "prints_not_listed": (print_count - MAX_PRINTS_LISTED).max(0),
        "chain": chain,
        "proof": proof.json,
    })))
}

struct Proved {
    json: Value,
    /// Per listed print: whether its text is the one its row recorded (`None`: not compared).
    texts: Vec<(i64, Option<bool>)>,
}

/// Walks from the sale's first print row to the nearest confirmed head at or past its last.
async fn prove(c: &tokio_postgres::Transaction<'_>, store: Uuid, id: SaleId, span: Option<(i64, i64)>, prints: &[(i64, Option<String>, i64)]) -> ApiResult<Proved> {
    let reg = id.register_id;
    let no = |verdict: Verdict, message: String| Proved { json: json!({"verdict": verdict.as_str(), "message": message, "steps": [], "breaks": []}), texts: vec![] };
    let Some((first, last)) = span else {
        return Ok(no(Verdict::NoReceipt, "no print of this sale's receipt was recorded (printed before its register sent them, or never)".into()));
    };
    let anchor = c
        .query_opt(
            "SELECT seq, hash, confirmed_ms FROM audit_anchors WHERE store_id = $1 AND register_id = $2 AND seq >= $3 ORDER BY seq LIMIT 1",
            &[&store, &reg, &last],
        )
        .await?;
    let Some(anchor) = anchor else {
        return Ok(no(Verdict::Incomplete, format!("the back office has not confirmed a head at or past row {last} yet")));
    };
    let (head_seq, head_hash, confirmed_ms): (i64, Hash, i64) = (anchor.get(0), hash32(anchor.get(1))?, anchor.get(2));
    if head_seq - first + 1 > MAX_PROOF_ROWS {
        return Ok(no(Verdict::Incomplete, format!("the nearest confirmed head (row {head_seq}) is more than {MAX_PROOF_ROWS} rows past row {first}")));
    }
    let mut walk = Walk::new(first as u64, (head_seq as u64, head_hash));
    let mut print_rows: Vec<HeldRow> = Vec::new();
    let mut next = first;
    while next <= head_seq {
        let page = c
            .query(
                &format!("SELECT {ROW_COLS} FROM audit_rows WHERE store_id = $1 AND register_id = $2 AND seq >= $3 AND seq <= $4 ORDER BY seq LIMIT $5"),
                &[&store, &reg, &next, &head_seq, &PAGE_ROWS],
            )
            .await?;
        for r in &page {
            let row = held(r)?;
            if prints.iter().any(|(_, _, s)| *s as u64 == row.record.seq) {
                print_rows.push(row.clone());
            }
            walk.row(&row);
        }
        match page.last() {
            Some(r) if (page.len() as i64) == PAGE_ROWS => next = r.get::<_, i64>(0) + 1,
            Some(_) | None => break,
        }
    }
    let past = c
        .query_one("SELECT EXISTS (SELECT 1 FROM audit_rows WHERE store_id = $1 AND register_id = $2 AND seq > $3)", &[&store, &reg, &head_seq])
        .await?
        .get::<_, bool>(0);
    let Outcome { mut verdict, steps, steps_not_listed, mut breaks } = walk.finish(past);
    let mut texts = Vec::new();
    for (print_no, text, seq) in prints {
        let ok = match print_rows.iter().find(|r| r.record.seq == *seq as u64) {
            // not held: the walk names it missing (or it is still on its way)
            None => None,
            Some(row) => match check_print(id.sale_id, *print_no, text.as_deref(), row) {
                Ok(ok) => ok,
                Err(b) => {
                    breaks.push(b);
                    verdict = Verdict::Broken;
                    Some(false)
                }
            },
        };
        texts.push((*print_no, ok));
    }
    let message = match verdict {
        Verdict::Verified => format!(
            "rows {first} to {head_seq} recompute, link by link, to the head the back office confirmed (row {head_seq}); each print's text is the one its row recorded"
        ),
        Verdict::Broken => breaks.first().map(|b| b.describe()).unwrap_or_default(),
        Verdict::Incomplete => format!("rows up to the confirmed head (row {head_seq}) have not all arrived yet"),
        Verdict::NoReceipt => String::new(),
    };
    let described: Vec<Value> = breaks.iter().map(|b| {
        let mut v = serde_json::to_value(b).unwrap_or(Value::Null);
        v["message"] = json!(b.describe());
        v
    }).collect();
    Ok(Proved {
        json: json!({
            "verdict": verdict.as_str(), "message": message,
            "from_seq": first, "sale_rows": prints.iter().map(|p| p.2).collect::<Vec<_>>(),
            "head": {"seq": head_seq, "hash": hex::encode(head_hash), "confirmed_ms": confirmed_ms},
            "steps": steps, "steps_not_listed": steps_not_listed, "breaks": described,
        }),
        texts,
    })
}
