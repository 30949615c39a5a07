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

/// "YYYY-MM-DD", a real calendar day of the years 2000-2999 (`crate::calendar`).
pub fn check_date(s: &str) -> Result<(), String> {
    crate::calendar::parse_day(s).map(|_| ()).map_err(|why| format!("date: {s:?} {why}"))
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
    let mut client = st.pool.get().await?;
    let client = crate::counting::reading(&mut client).await?;
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
