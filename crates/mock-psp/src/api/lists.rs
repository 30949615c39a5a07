//! The list and search endpoints: Stripe's cursor pagination (`limit`,
//! `starting_after`, `ending_before`, `created[…]`) over PaymentIntents, refunds and
//! events, each page one SQL query reading at most `limit + 1` rows; and
//! `GET /v1/payment_intents/search` (its query language is in `search.rs`).
use super::errors::{internal, invalid, ApiError};
use super::params::{EXPAND, P};
use super::{search, PspResponse};
use crate::form::Params;
use crate::store::StoreError;
use crate::Inner;
use rusqlite::{params, Connection, OptionalExtension};
use serde_json::{json, Value};

impl Inner {
    /// `GET /v1/payment_intents/search`.
    pub(super) async fn search_intents(&self, account: &str, params: &Params) -> Result<PspResponse, ApiError> {
        let p = P::new(params, &["query", "limit", "page", EXPAND], false)?;
        let q = search::parse(p.get("query").ok_or_else(|| invalid("parameter_missing", "Missing required param: query.", Some("query")))?)?;
        let limit = p.limit()?;
        let page = p.get("page").map(search::parse_page).transpose()?;
        // Search lag (eventually consistent search, like Stripe's): PaymentIntents
        // created less than `search_lag_ms` ago are not in the results yet.
        let lag_ms = self.faults.config().search_lag_ms;
        let max_created = (lag_ms > 0).then(|| search::visible_created_max_s(self.clock.now_ms(), lag_ms));
        let acct = account.to_string();
        let page = self.store.read(move |c| search::search(c, &acct, &q, limit, page, max_created)).await.map_err(internal)?;
        Ok(PspResponse::new(200, page.to_bytes()))
    }

    /// `GET /v1/payment_intents`.
    pub(super) async fn list_intents(&self, account: &str, params: &Params) -> Result<PspResponse, ApiError> {
        let p = P::new(params, &["limit", "starting_after", "ending_before", "created", "created[gt]", "created[gte]", "created[lt]", "created[lte]", "customer", EXPAND], false)?;
        let lp = ListParams::from(&p)?;
        let acct = account.to_string();
        let page = self.store.read(move |c| list(c, "payment_intents", &acct, &lp, ListFilter::None, "/v1/payment_intents")).await.map_err(internal)??;
        Ok(PspResponse::new(200, page.to_bytes()))
    }

    /// `GET /v1/refunds`: Stripe's refund list, how a client finds out whether a refund
    /// it could not confirm exists (by its metadata) without resending it.
    pub(super) async fn list_refunds(&self, account: &str, params: &Params) -> Result<PspResponse, ApiError> {
        let p = P::new(params, &["limit", "starting_after", "ending_before", "created", "created[gt]", "created[gte]", "created[lt]", "created[lte]", "payment_intent", "charge", EXPAND], false)?;
        let lp = ListParams::from(&p)?;
        let filter = match (p.id("payment_intent")?, p.id("charge")?) {
            (Some(_), Some(_)) => return Err(invalid("parameter_invalid_string", "You may only specify one of these parameters: charge, payment_intent.", Some("payment_intent"))),
            (Some(id), None) => ListFilter::RefundOf { field: "payment_intent", id },
            (None, Some(id)) => ListFilter::RefundOf { field: "charge", id },
            (None, None) => ListFilter::None,
        };
        let acct = account.to_string();
        let page = self.store.read(move |c| list(c, "refunds", &acct, &lp, filter, "/v1/refunds")).await.map_err(internal)??;
        Ok(PspResponse::new(200, page.to_bytes()))
    }
}

pub(super) struct ListParams {
    limit: i64,
    starting_after: Option<String>,
    ending_before: Option<String>,
    created: Vec<(&'static str, i64)>,
}

impl ListParams {
    pub(super) fn from(p: &P) -> Result<ListParams, ApiError> {
        let mut created = vec![];
        for (k, op) in [("created", "="), ("created[gt]", ">"), ("created[gte]", ">="), ("created[lt]", "<"), ("created[lte]", "<=")] {
            if let Some(v) = p.get(k) {
                let n = v.parse::<i64>().map_err(|_| invalid("parameter_invalid_integer", format!("Invalid timestamp in {k}"), Some(k)))?;
                created.push((op, n));
            }
        }
        if p.get("starting_after").is_some() && p.get("ending_before").is_some() {
            return Err(invalid("parameter_invalid_string", "You may only specify one of these parameters: ending_before, starting_after.", Some("starting_after")));
        }
        Ok(ListParams { limit: p.limit()?, starting_after: p.id("starting_after")?, ending_before: p.id("ending_before")?, created })
    }
}

/// What one list endpoint filters on besides the account, the cursor and `created`.
pub(super) enum ListFilter {
    None,
    /// `/v1/events?type=…` / `types[]=…`.
    EventTypes(Vec<String>),
    /// `/v1/refunds?payment_intent=…` / `charge=…` (the refund object's own field).
    RefundOf { field: &'static str, id: String },
    /// `/v1/terminal/readers?device_type=…&location=…&serial_number=…&status=…`: the
    /// reader object's own fields, and online/offline as of `now_ms` (from its state).
    Readers { fields: Vec<(&'static str, String)>, online: Option<bool>, now_ms: i64 },
}

/// One page of a list, each object kept as the JSON text it is stored as: answering a
/// list never parses and re-serialises every object (the stored text is what
/// serde_json wrote, so the bytes are the same as a round trip would give).
pub(super) struct Page {
    data: Vec<String>,
    has_more: bool,
    url: &'static str,
}

impl Page {
    pub(super) fn to_bytes(&self) -> Vec<u8> {
        // Keys in serde_json's (sorted) order, as `json!` + `to_vec` produced before.
        let mut s = String::with_capacity(64 + self.data.iter().map(|d| d.len() + 1).sum::<usize>());
        s.push_str("{\"data\":[");
        for (i, d) in self.data.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            s.push_str(d);
        }
        s.push_str("],\"has_more\":");
        s.push_str(if self.has_more { "true" } else { "false" });
        s.push_str(",\"object\":\"list\",\"url\":");
        s.push_str(&serde_json::to_string(self.url).unwrap());
        s.push('}');
        s.into_bytes()
    }
    /// Replaces each object's text (a reader's computed status).
    pub(super) fn map_data(&mut self, mut f: impl FnMut(&str) -> String) {
        for d in &mut self.data {
            *d = f(d);
        }
    }
    pub(super) fn to_value(&self) -> Value {
        let data: Vec<Value> = self.data.iter().map(|d| serde_json::from_str(d).unwrap_or(Value::Null)).collect();
        json!({"object": "list", "data": data, "has_more": self.has_more, "url": self.url})
    }
}

/// Stripe list semantics: newest first; `starting_after` pages to older objects,
/// `ending_before` to newer ones; `has_more` says whether more exist that way.
pub(super) fn list(c: &Connection, table: &str, account: &str, lp: &ListParams, filter: ListFilter, url: &'static str) -> Result<Result<Page, ApiError>, StoreError> {
    let mut sql = format!("SELECT seq, obj FROM {table} WHERE account=?");
    let mut args: Vec<rusqlite::types::Value> = vec![account.to_string().into()];
    // Refunds keep `created` inside the object only (the table predates the list endpoint,
    // and files written by older builds must keep opening), so it is read from there.
    let created_col = if table == "refunds" { "json_extract(obj, '$.created')" } else { "created" };
    let cursor = lp.starting_after.as_ref().map(|c| (c, "<", "starting_after")).or(lp.ending_before.as_ref().map(|c| (c, ">", "ending_before")));
    if let Some((id, op, pname)) = cursor {
        let seq: Option<i64> = c
            .prepare_cached(&format!("SELECT seq FROM {table} WHERE id=?1 AND account=?2"))?
            .query_row(params![id, account], |r| r.get(0))
            .optional()?;
        let Some(seq) = seq else {
            return Ok(Err(invalid("resource_missing", format!("No such object: '{id}'"), Some(pname))));
        };
        sql.push_str(&format!(" AND seq {op} ?"));
        args.push(seq.into());
    }
    for (op, n) in &lp.created {
        sql.push_str(&format!(" AND {created_col} {op} ?"));
        args.push((*n).into());
    }
    if table == "events" && !bound_events_scan(c, account, lp, &mut sql, &mut args)? {
        return Ok(Ok(Page { data: vec![], has_more: false, url }));
    }
    filter_sql(filter, &mut sql, &mut args);
    let asc = lp.ending_before.is_some();
    sql.push_str(if asc { " ORDER BY seq ASC LIMIT ?" } else { " ORDER BY seq DESC LIMIT ?" });
    args.push((lp.limit + 1).into());
    // The SQL text depends only on which parameters were given: few variants, cached.
    let mut st = c.prepare_cached(&sql)?;
    let rows = st.query_map(rusqlite::params_from_iter(args), |r| r.get::<_, String>(1))?;
    let mut data = Vec::new();
    for r in rows {
        data.push(r?);
    }
    let has_more = data.len() as i64 > lp.limit;
    data.truncate(lp.limit as usize);
    if asc {
        data.reverse();
    }
    Ok(Ok(Page { data, has_more, url }))
}

/// The events scan's lower bound, added to the query; false when no event can match
/// (the page is empty).
fn bound_events_scan(c: &Connection, account: &str, lp: &ListParams, sql: &mut String, args: &mut Vec<rusqlite::types::Value>) -> Result<bool, StoreError> {
    // Pages run newest first along (account, seq); on the last page of a
    // `created[gte]` poll that scan would otherwise walk every older event of the
    // account, however old (the cost grew with the table). Bound it below by the
    // smallest seq whose `created` passes the lower bound (index events_created;
    // exact whatever the order of `created` vs seq).
    for (op, n) in lp.created.iter().filter(|(op, _)| matches!(*op, ">=" | ">" | "=")) {
        let oldest: Option<i64> = c
            .prepare_cached("SELECT min(created) FROM events WHERE account=?1")?
            .query_row(params![account], |r| r.get(0))?;
        if oldest.is_some_and(|o| o >= *n && *op == ">=") {
            continue; // every event passes: no bound needed
        }
        let lo: Option<i64> = c
            .prepare_cached(&format!("SELECT min(seq) FROM events WHERE account=?1 AND created {op} ?2"))?
            .query_row(params![account, n], |r| r.get(0))?;
        match lo {
            Some(lo) => {
                sql.push_str(" AND seq >= ?");
                args.push(lo.into());
            }
            None => return Ok(false),
        }
    }
    Ok(true)
}

/// The endpoint's own filter, added to the query.
fn filter_sql(filter: ListFilter, sql: &mut String, args: &mut Vec<rusqlite::types::Value>) {
    match filter {
        ListFilter::None => {}
        ListFilter::EventTypes(types) => {
            sql.push_str(&format!(" AND type IN ({})", vec!["?"; types.len()].join(",")));
            for t in types {
                args.push(t.into());
            }
        }
        ListFilter::RefundOf { field, id } => {
            // `field` is one of two literals chosen by the route, never request text.
            sql.push_str(&format!(" AND json_extract(obj, '$.{field}') = ?"));
            args.push(id.into());
        }
        ListFilter::Readers { fields, online, now_ms } => {
            for (field, v) in fields {
                // `field` is one of three literals chosen by the route, never request text.
                sql.push_str(&format!(" AND json_extract(obj, '$.{field}') = ?"));
                args.push(v.into());
            }
            if let Some(online) = online {
                sql.push_str(if online { " AND coalesce(json_extract(sim, '$.offline_until_ms'), 0) <= ?" } else { " AND coalesce(json_extract(sim, '$.offline_until_ms'), 0) > ?" });
                args.push(now_ms.into());
            }
        }
    }
}
