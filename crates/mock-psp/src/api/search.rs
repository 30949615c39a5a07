//! `GET /v1/payment_intents/search`: a subset of Stripe's search query language, run as
//! one SQL query per page. Every clause is a condition in SQL (metadata through the
//! `pi_metadata` index, fields through `json_extract` on the stored object), newest
//! first, `LIMIT limit + 1`: a request reads at most one page and one row more,
//! whatever the account holds.
use crate::api::{invalid, truncate, ApiError};
use crate::store::StoreError;
use rusqlite::{params_from_iter, types::Value as Sql, Connection};

/// Longest accepted query, in characters.
pub const MAX_QUERY_CHARS: usize = 1000;
/// Most clauses (joined by AND) in one query.
pub const MAX_CLAUSES: usize = 10;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Clause {
    Metadata(String, String),
    Status(String),
    Currency(String),
    Amount(i64),
}

/// Clauses joined by AND, each `metadata['key']:'value'` or
/// `status|currency|amount:'value'` (quotes single or double; bare values of letters,
/// digits, `_` and `-` too).
pub(crate) fn parse(q: &str) -> Result<Vec<Clause>, ApiError> {
    if q.chars().count() > MAX_QUERY_CHARS {
        return Err(invalid("parameter_invalid_string", format!("Search queries are limited to {MAX_QUERY_CHARS} characters."), Some("query")));
    }
    let bad = || invalid("parameter_invalid_string", format!("Invalid search query: {}", truncate(q, 200)), Some("query"));
    let unq = |s: &str| -> Option<String> {
        let s = s.trim();
        if s.len() >= 2 && ((s.starts_with('\'') && s.ends_with('\'')) || (s.starts_with('"') && s.ends_with('"'))) {
            Some(s[1..s.len() - 1].to_string())
        } else if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            Some(s.to_string())
        } else {
            None
        }
    };
    let mut out = vec![];
    for part in split_and(q) {
        let part = part.trim();
        if let Some(rest) = part.strip_prefix("metadata[") {
            let close = rest.find("]:").ok_or_else(bad)?;
            let k = unq(&rest[..close]).ok_or_else(bad)?;
            let v = unq(&rest[close + 2..]).ok_or_else(bad)?;
            out.push(Clause::Metadata(k, v));
        } else if let Some((f, v)) = part.split_once(':') {
            let v = unq(v).ok_or_else(bad)?;
            out.push(match f.trim() {
                "status" => Clause::Status(v),
                "currency" => Clause::Currency(v),
                "amount" => Clause::Amount(v.parse().map_err(|_| invalid("parameter_invalid_string", format!("amount in a search query must be an integer (got {})", truncate(&v, 40)), Some("query")))?),
                f => return Err(invalid("parameter_invalid_string", format!("Field '{}' is an unsupported search field.", truncate(f, 40)), Some("query"))),
            });
        } else {
            return Err(bad());
        }
        if out.len() > MAX_CLAUSES {
            return Err(invalid("parameter_invalid_string", format!("A search query has at most {MAX_CLAUSES} clauses."), Some("query")));
        }
    }
    if out.is_empty() {
        return Err(bad());
    }
    Ok(out)
}

/// The `page` cursor of a previous answer's `next_page`.
pub(crate) fn parse_page(v: &str) -> Result<i64, ApiError> {
    v.strip_prefix("pg_").and_then(|s| s.parse::<i64>().ok()).filter(|n| *n > 0).ok_or_else(|| invalid("parameter_invalid_string", "Invalid page: pass the next_page value of the previous answer", Some("page")))
}

fn split_and(q: &str) -> Vec<&str> {
    // Split on " AND " outside quotes.
    let mut parts = vec![];
    let b = q.as_bytes();
    let mut quote: Option<u8> = None;
    let mut start = 0;
    let mut i = 0;
    while i < b.len() {
        match quote {
            Some(qc) if b[i] == qc => quote = None,
            Some(_) => {}
            None if b[i] == b'\'' || b[i] == b'"' => quote = Some(b[i]),
            None if b[i..].len() >= 5 && b[i..i + 5].eq_ignore_ascii_case(b" AND ") => {
                parts.push(&q[start..i]);
                start = i + 5;
                i += 5;
                continue;
            }
            None => {}
        }
        i += 1;
    }
    parts.push(&q[start..]);
    parts
}

/// The newest `created` (Unix seconds) a search may show at `now_ms` with a search lag of
/// `lag_ms`. `created` has second resolution: a PaymentIntent is taken to be created at
/// the last millisecond of its second, so it is hidden for at least `lag_ms`, never less.
pub(crate) fn visible_created_max_s(now_ms: i64, lag_ms: u64) -> i64 {
    let lag = i64::try_from(lag_ms).unwrap_or(i64::MAX);
    now_ms.saturating_sub(lag).saturating_sub(999).div_euclid(1000)
}

/// One page of search results, each object kept as its stored JSON text.
pub struct SearchPage {
    pub data: Vec<String>,
    pub has_more: bool,
    pub next_page: Option<String>,
    /// Rows the query returned (at most the limit plus one).
    pub rows_read: usize,
}

impl SearchPage {
    /// Stripe's `search_result` object.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut s = String::with_capacity(128 + self.data.iter().map(|d| d.len() + 1).sum::<usize>());
        s.push_str("{\"object\":\"search_result\",\"data\":[");
        s.push_str(&self.data.join(","));
        s.push_str("],\"has_more\":");
        s.push_str(if self.has_more { "true" } else { "false" });
        s.push_str(",\"next_page\":");
        s.push_str(&serde_json::to_string(&self.next_page).unwrap_or_else(|_| "null".into()));
        s.push_str(",\"url\":\"/v1/payment_intents/search\"}");
        s.into_bytes()
    }
}

/// The SQL of one search and its parameters. With a metadata clause the scan is driven
/// by `pi_metadata`'s primary key (account, k, v, pi_seq): the matching rows of that
/// one key and value, newest first, and nothing else of the account.
fn query(account: &str, q: &[Clause], limit: i64, page: Option<i64>, max_created: Option<i64>) -> (String, Vec<Sql>) {
    let mut args: Vec<Sql> = vec![account.to_string().into()];
    let driver = q.iter().position(|c| matches!(c, Clause::Metadata(..)));
    let (mut sql, seq) = match driver.map(|i| &q[i]) {
        Some(Clause::Metadata(k, v)) => {
            args.push(k.clone().into());
            args.push(v.clone().into());
            ("SELECT p.seq, p.obj FROM pi_metadata m JOIN payment_intents p ON p.seq = m.pi_seq WHERE m.account = ?1 AND m.k = ?2 AND m.v = ?3 AND p.account = ?1".to_string(), "m.pi_seq")
        }
        _ => ("SELECT p.seq, p.obj FROM payment_intents p WHERE p.account = ?1".to_string(), "p.seq"),
    };
    for (i, c) in q.iter().enumerate() {
        match c {
            Clause::Metadata(..) if Some(i) == driver => {}
            Clause::Metadata(k, v) => {
                sql.push_str(" AND EXISTS (SELECT 1 FROM pi_metadata x WHERE x.account = ?1 AND x.k = ? AND x.v = ? AND x.pi_seq = p.seq)");
                args.push(k.clone().into());
                args.push(v.clone().into());
            }
            Clause::Status(v) => {
                sql.push_str(" AND json_extract(p.obj, '$.status') = ?");
                args.push(v.clone().into());
            }
            Clause::Currency(v) => {
                sql.push_str(" AND json_extract(p.obj, '$.currency') = ?");
                args.push(v.clone().into());
            }
            Clause::Amount(n) => {
                sql.push_str(" AND json_extract(p.obj, '$.amount') = ?");
                args.push((*n).into());
            }
        }
    }
    if let Some(p) = page {
        sql.push_str(&format!(" AND {seq} < ?"));
        args.push(p.into());
    }
    if let Some(m) = max_created {
        sql.push_str(" AND p.created <= ?");
        args.push(m.into());
    }
    sql.push_str(&format!(" ORDER BY {seq} DESC LIMIT ?"));
    args.push(limit.saturating_add(1).into());
    (sql, args)
}

/// One page of the account's PaymentIntents matching every clause, newest first,
/// older than the `page` cursor, created at or before `max_created` (search lag).
pub(crate) fn search(c: &Connection, account: &str, q: &[Clause], limit: i64, page: Option<i64>, max_created: Option<i64>) -> Result<SearchPage, StoreError> {
    let (sql, args) = query(account, q, limit, page, max_created);
    // The SQL text depends only on the clause kinds and the optional parts: few variants.
    let mut st = c.prepare_cached(&sql)?;
    let mut rows = st.query(params_from_iter(args))?;
    let mut found: Vec<(i64, String)> = Vec::new();
    while let Some(r) = rows.next()? {
        found.push((r.get(0)?, r.get(1)?));
    }
    let rows_read = found.len();
    let has_more = rows_read as i64 > limit;
    found.truncate(limit.max(0) as usize);
    let next_page = if has_more { found.last().map(|(s, _)| format!("pg_{s}")) } else { None };
    Ok(SearchPage { data: found.into_iter().map(|(_, o)| o).collect(), has_more, next_page, rows_read })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_limits() {
        assert_eq!(parse("metadata['k']:'v' AND status:'succeeded' AND amount:100").unwrap(), vec![Clause::Metadata("k".into(), "v".into()), Clause::Status("succeeded".into()), Clause::Amount(100)]);
        assert!(parse("amount:'ten'").is_err());
        assert!(parse(&"status:'a' AND ".repeat(11)).is_err());
        assert!(parse(&format!("metadata['k']:'{}'", "x".repeat(1000))).is_err());
        assert!(parse("garbage").is_err());
        assert!(parse_page("pg_0").is_err() && parse_page("12").is_err() && parse_page("pg_12").unwrap() == 12);
    }

    /// A search reads one page and one row more from SQLite, however many intents
    /// match: 150 intents share a metadata pair, and each page of 10 (or 100) reads 11
    /// (101) rows, until the last page, which reads what is left. Pages are disjoint,
    /// newest first, and together are every match; extra clauses filter in SQL.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_search_reads_at_most_limit_plus_one_rows_and_pages_through_every_match() {
        let dir = tempfile::tempdir().unwrap();
        let psp = crate::MockPsp::builder().db(dir.path().join("p.sqlite3")).secret_key("sk_test_a").secret_key("sk_test_b").build().unwrap();
        let mut created = Vec::new();
        for i in 0..160 {
            let (sk, tag, pm) = if i % 16 == 15 { ("sk_test_b", "shared", "pm_card_visa") } else { ("sk_test_a", if i < 150 { "shared" } else { "other" }, if i % 3 == 0 { "pm_card_chargeDeclined" } else { "pm_card_visa" }) };
            let amount = (100 + i).to_string();
            let form = [("amount", amount.as_str()), ("currency", "usd"), ("payment_method", pm), ("confirm", "true"), ("metadata[tag]", tag)];
            let out = psp.handle(crate::PspRequest::post("/v1/payment_intents", sk, Some(&format!("k{i}")), &form)).await;
            let r = out.response().unwrap();
            let pi = if r.status == 200 { r.json() } else { r.json()["error"]["payment_intent"].clone() };
            if sk == "sk_test_a" && tag == "shared" {
                created.push((pi["id"].as_str().unwrap().to_string(), pi["status"].as_str().unwrap().to_string()));
            }
        }
        created.reverse(); // newest first
        let acct = crate::account_id("sk_test_a");
        let store = psp.store();
        let run = |q: Vec<Clause>, limit: i64, page: Option<i64>| {
            let acct = acct.clone();
            store.read_blocking(move |c| search(c, &acct, &q, limit, page, None)).unwrap()
        };
        for limit in [10, 100] {
            let (mut seen, mut page, mut pages) = (Vec::new(), None, 0);
            loop {
                let r = run(vec![Clause::Metadata("tag".into(), "shared".into())], limit, page);
                let left = created.len() - seen.len();
                assert_eq!(r.rows_read, left.min(limit as usize + 1), "limit {limit}, page {pages}");
                assert_eq!(r.data.len(), left.min(limit as usize));
                seen.extend(r.data.iter().map(|d| serde_json::from_str::<serde_json::Value>(d).unwrap()["id"].as_str().unwrap().to_string()));
                pages += 1;
                match r.next_page {
                    Some(n) => page = Some(parse_page(&n).unwrap()),
                    None => break,
                }
                assert!(r.has_more);
            }
            let want: Vec<String> = created.iter().map(|(id, _)| id.clone()).collect();
            assert_eq!(seen, want, "limit {limit}: every match once, newest first, account A only");
        }
        // A field clause filters in SQL too: still at most limit + 1 rows.
        let succeeded: Vec<&String> = created.iter().filter(|(_, s)| s == "succeeded").map(|(id, _)| id).collect();
        let r = run(vec![Clause::Metadata("tag".into(), "shared".into()), Clause::Status("succeeded".into())], 5, None);
        assert_eq!(r.rows_read, 6);
        let ids: Vec<String> = r.data.iter().map(|d| serde_json::from_str::<serde_json::Value>(d).unwrap()["id"].as_str().unwrap().to_string()).collect();
        assert_eq!(ids.iter().collect::<Vec<_>>(), succeeded[..5].to_vec());
        // Without a metadata clause as well.
        let r = run(vec![Clause::Currency("usd".into())], 7, None);
        assert_eq!((r.rows_read, r.data.len(), r.has_more), (8, 7, true));
        psp.close();
    }

    /// The planner drives a metadata search from `pi_metadata`'s primary key, in seq
    /// order: no scan of the account's PaymentIntents and no sort of all matches.
    #[test]
    fn a_metadata_search_uses_the_index_and_sorts_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::store::Store::open(crate::store::DbLocation::File(dir.path().join("s.sqlite3")), 1, 1).unwrap();
        let plan = store
            .read_blocking(|c| {
                let (sql, args) = query("acct_a", &[Clause::Metadata("k".into(), "v".into()), Clause::Status("succeeded".into())], 10, Some(50), Some(1));
                let mut st = c.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))?;
                let rows = st.query_map(params_from_iter(args), |r| r.get::<_, String>(3))?.collect::<Result<Vec<_>, _>>()?;
                Ok(rows.join("\n"))
            })
            .unwrap();
        assert!(!plan.contains("TEMP B-TREE"), "{plan}");
        assert!(plan.contains("SEARCH m USING PRIMARY KEY"), "{plan}");
        assert!(!plan.contains("SCAN p"), "{plan}");
        store.close();
    }
}
