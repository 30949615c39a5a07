//! `GET /admin/stores/{store}/journal?date=YYYY-MM-DD&format=generic|freee|yayoi|moneyforward`:
//! the store's day as a CSV download, behind the owner's session or token.
use super::{journal, read, Format, Journal};
use crate::admin::{parse_store, require_owner};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};

/// At most this many bytes of query string: two short parameters.
const MAX_QUERY: usize = 200;

/// "YYYY-MM-DD", a real calendar day of years 2000–9999 (a register's clock before 2000 is
/// refused at sync, and PostgreSQL's dates stop at 5874897).
pub fn check_date(s: &str) -> Result<(), String> {
    let bad = || format!("date: {s:?} is not a day written YYYY-MM-DD");
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' || !s.chars().enumerate().all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit()) {
        return Err(bad());
    }
    let (y, m, d): (u32, u32, u32) = (s[0..4].parse().map_err(|_| bad())?, s[5..7].parse().map_err(|_| bad())?, s[8..10].parse().map_err(|_| bad())?);
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return Err(format!("date: {s:?} has no month {m}")),
    };
    if !(2000..=9999).contains(&y) {
        return Err(format!("date: {s:?} is outside the years 2000 to 9999"));
    }
    if d == 0 || d > days {
        return Err(format!("date: {s:?} has no day {d} in that month"));
    }
    Ok(())
}

/// The two parameters, each once, nothing else.
pub fn parse_query(q: Option<&str>) -> Result<(String, Format), String> {
    let q = q.unwrap_or("");
    if q.len() > MAX_QUERY {
        return Err(format!("the query is {} bytes; at most {MAX_QUERY}", q.len()));
    }
    let (mut date, mut format) = (None, None);
    for (k, v) in form_urlencoded::parse(q.as_bytes()) {
        let slot = match k.as_ref() {
            "date" => &mut date,
            "format" => &mut format,
            other => return Err(format!("unknown parameter {other:?}: only date and format")),
        };
        if slot.replace(v.into_owned()).is_some() {
            return Err(format!("{k} is given twice"));
        }
    }
    let date = date.ok_or("date: required, the store's day as YYYY-MM-DD")?;
    check_date(&date)?;
    let names = Format::ALL.map(Format::key).join(", ");
    let format = format.ok_or_else(|| format!("format: required, one of {names}"))?;
    let format = Format::parse(&format).ok_or_else(|| format!("format: {format:?} is not one of {names}"))?;
    Ok((date, format))
}

pub async fn get_journal(State(st): State<AppState>, headers: HeaderMap, Path(store): Path<String>, RawQuery(q): RawQuery) -> ApiResult<Response> {
    require_owner(&st, &headers).await?;
    let store = parse_store(&store)?;
    let (date, format) = parse_query(q.as_deref()).map_err(ApiError::BadRequest)?;
    let client = st.pool.get().await?;
    let day = read::read_day(&client, store, &date).await?.ok_or_else(|| ApiError::NotFound(format!("no store {store}")))?;
    let figures = read::figures(&client, store, &day).await?;
    let journals: Vec<Journal> = figures.iter().map(|f| journal(&date, f)).collect();
    if format.yen_only() {
        if let Some(j) = journals.iter().find(|j| j.currency != "jpy") {
            return Err(ApiError::BadRequest(format!("format: {} imports yen only; this day has {} (use format=generic)", format.key(), j.currency)));
        }
    }
    let body = format.write(&journals);
    let name = format!("attachment; filename=\"paydesk-journal-{date}-{}.csv\"", format.key());
    let mut resp = body.into_response();
    let h = resp.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/csv; charset=utf-8"));
    h.insert(header::CONTENT_DISPOSITION, HeaderValue::from_str(&name).map_err(|e| ApiError::Internal(e.to_string()))?);
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(resp)
}
