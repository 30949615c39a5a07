//! `GET /admin/reports?by=&from=&to=[&store=][&format=csv]` behind the owner's session, as
//! the dashboard's data (record 0140).
use super::range::{parse, Format};
use super::{all_stores, goods, money, Grouping, Row, MAX_ROWS};
use crate::admin::require_owner;
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

pub async fn report(State(st): State<AppState>, headers: HeaderMap, RawQuery(query): RawQuery) -> ApiResult<Response> {
    require_owner(&st, &headers).await?;
    let req = parse(query.as_deref().unwrap_or(""))?;
    let mut client = st.pool.get().await?;
    let client = crate::counting::reading(&mut client).await?;
    if let Some(store) = req.store {
        // One back office is one owner's: a store it does not hold is not the owner's.
        if client.query_opt("SELECT 1 FROM stores WHERE store_id = $1", &[&store]).await?.is_none() {
            return Err(ApiError::BadRequest(format!("store: {store} is not one of the owner's stores")));
        }
    }
    let (from, to) = (req.range.from.iso(), req.range.to.iso());
    let limit = MAX_ROWS as i64 + 1;
    let mut rows: Vec<Row> = match req.by {
        Grouping::Item => goods::rows(&client, goods::By::Item, req.store, &from, &to, limit).await?,
        Grouping::Category => goods::rows(&client, goods::By::Category, req.store, &from, &to, limit).await?,
        Grouping::Tender => money::rows(&client, money::By::Tender, req.store, &from, &to, limit).await?,
        Grouping::Hour => money::rows(&client, money::By::Hour, req.store, &from, &to, limit).await?,
        Grouping::Staff => super::staff::rows(&client, req.store, &from, &to, limit).await?,
    };
    let mut totals = money::totals(&client, req.store, &from, &to, limit).await?;
    if req.store.is_none() {
        rows = all_stores(rows);
        totals = all_stores(totals);
    }
    let truncated = rows.len() > MAX_ROWS;
    rows.truncate(MAX_ROWS);
    match req.format {
        Format::Json => Ok(Json(json!({
            "by": req.by.as_str(), "from": from, "to": to, "store": req.store,
            "rows": rows, "totals": totals, "truncated": truncated,
        }))
        .into_response()),
        Format::Csv => {
            if truncated {
                return Err(ApiError::BadRequest(format!("more than {MAX_ROWS} rows: ask for fewer days or one store")));
            }
            let name = format!("attachment; filename=\"paydesk-{}-{from}-{to}.csv\"", req.by.as_str());
            let mut resp = super::csv::write(&rows, req.by.as_str()).into_response();
            let h = resp.headers_mut();
            h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/csv; charset=utf-8"));
            h.insert(header::CONTENT_DISPOSITION, HeaderValue::from_str(&name).map_err(|e| ApiError::Internal(e.to_string()))?);
            Ok(resp)
        }
    }
}
