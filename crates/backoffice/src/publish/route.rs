//! The publishing page and its API (record 0147), behind the owner's session like
//! /reports: `GET /publish` (+ `/publish.js`), `GET /admin/publish/stores`,
//! `GET /admin/stores/{store}/publishing` (what is published, what the registers
//! applied, their own edits), `POST …/catalog/csv` (an upload read into items) and
//! `POST …/{catalog,tax,staff}/preview`. A preview reads in one read-only snapshot and
//! writes nothing; the publish is the existing `PUT` with `preview_version`.
use super::{csv, preview, registers, Preview, Section};
use crate::admin::staff::{check_form, plan_staff, PutStaff, MAX_STAFF_PER_PUBLISH};
use crate::admin::{catalog::plan_items, json_body, parse_store, require_owner};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Redirect, Response};
use axum::Json;
use paydesk_sync_proto::StoreTax;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio_postgres::IsolationLevel;
use uuid::Uuid;

const PAGE: &str = include_str!("../../static/publish.html");
const PAGE_JS: &str = include_str!("../../static/publish.js");

/// Rows of each table the page is sent (the catalog, the registers' own items and staff):
/// past it the page says how many more there are.
pub const MAX_ROWS_SHOWN: i64 = 1_000;

pub async fn page(State(st): State<AppState>, headers: HeaderMap) -> Response {
    if require_owner(&st, &headers).await.is_err() {
        return Redirect::to("/login").into_response();
    }
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8"), (header::CACHE_CONTROL, "no-store")], PAGE).into_response()
}

pub async fn page_js() -> Response {
    ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8")], PAGE_JS).into_response()
}

/// The owner's stores for the page's choice, with the currencies' exponents.
pub async fn stores(State(st): State<AppState>, headers: HeaderMap) -> ApiResult<Json<Value>> {
    require_owner(&st, &headers).await?;
    let client = st.pool.get().await?;
    let stores: Vec<Value> = client
        .query("SELECT store_id, name FROM stores ORDER BY name, store_id LIMIT $1", &[&MAX_ROWS_SHOWN])
        .await?
        .iter()
        .map(|r| json!({"store_id": r.get::<_, Uuid>(0), "name": r.get::<_, String>(1)}))
        .collect();
    let currencies: Vec<Value> = client
        .query("SELECT code, exponent::int4 FROM currencies ORDER BY code LIMIT $1", &[&MAX_ROWS_SHOWN])
        .await?
        .iter()
        .map(|r| json!({"code": r.get::<_, String>(0), "exponent": r.get::<_, i32>(1)}))
        .collect();
    Ok(Json(json!({"stores": stores, "currencies": currencies})))
}

/// A read-only snapshot: every read of one answer sees the same commits.
async fn snapshot(client: &mut deadpool_postgres::Client) -> ApiResult<deadpool_postgres::Transaction<'_>> {
    Ok(client.build_transaction().isolation_level(IsolationLevel::RepeatableRead).read_only(true).start().await?)
}

/// What the store has published, what each register has applied, and the registers' own
/// edits (record 0052: their items, staff and tax setup as they sent them up; read-only,
/// never merged into what the owner publishes). `limits.staff_per_publish` is the number
/// of members one staff publish takes: the page's list of changes stops there.
pub async fn state(State(st): State<AppState>, headers: HeaderMap, Path(store): Path<String>) -> ApiResult<Json<Value>> {
    require_owner(&st, &headers).await?;
    let store = parse_store(&store)?;
    let mut client = st.pool.get().await?;
    let tx = snapshot(&mut client).await?;
    let row = tx
        .query_opt("SELECT name, published_version, (SELECT settings->>'currency' FROM store_settings WHERE store_id = $1) FROM stores WHERE store_id = $1", &[&store])
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no store {store}")))?;
    let (name, version, currency): (String, i64, Option<String>) = (row.get(0), row.get(1), row.get(2));
    let count: i64 = tx.query_one("SELECT count(*) FROM catalog_items WHERE store_id = $1", &[&store]).await?.get(0);
    let items: Vec<Value> = tx
        .query("SELECT version, item FROM catalog_items WHERE store_id = $1 ORDER BY sku LIMIT $2", &[&store, &MAX_ROWS_SHOWN])
        .await?
        .iter()
        .map(|r| json!({"version": r.get::<_, i64>(0), "item": r.get::<_, Value>(1)}))
        .collect();
    let tax = tx.query_opt("SELECT version, tax FROM store_tax WHERE store_id = $1", &[&store]).await?.map(|r| json!({"version": r.get::<_, i64>(0), "tax": r.get::<_, Value>(1)}));
    // Never a PIN or its hash.
    let staff: Vec<Value> = tx
        .query("SELECT name, role, active, version FROM store_staff WHERE store_id = $1 ORDER BY name", &[&store])
        .await?
        .iter()
        .map(|r| json!({"name": r.get::<_, String>(0), "role": r.get::<_, String>(1), "active": r.get::<_, bool>(2), "version": r.get::<_, i64>(3)}))
        .collect();
    let mut regs = Vec::new();
    for s in [Section::Catalog, Section::Tax, Section::Staff] {
        regs.push(json!({"section": s.as_str(), "based_on": s.version(&tx, store).await?, "registers": registers(&tx, store, s).await?}));
    }
    let own_items: Vec<Value> = tx
        .query(
            "SELECT g.name, i.sku, i.name_en, i.price, i.currency, i.tax_class, i.active, i.updated_at_ms FROM register_items i
             JOIN registers g USING (store_id, register_id) WHERE i.store_id = $1 ORDER BY i.sku, g.name LIMIT $2",
            &[&store, &MAX_ROWS_SHOWN],
        )
        .await?
        .iter()
        .map(|r| {
            json!({"register": r.get::<_, String>(0), "sku": r.get::<_, String>(1), "name_en": r.get::<_, String>(2), "price": r.get::<_, i64>(3),
                   "currency": r.get::<_, String>(4), "tax_class": r.get::<_, String>(5), "active": r.get::<_, bool>(6), "updated_at_ms": r.get::<_, i64>(7)})
        })
        .collect();
    let own_staff: Vec<Value> = tx
        .query(
            "SELECT g.name, s.name, s.role, s.active, s.updated_at_ms FROM register_staff s
             JOIN registers g USING (store_id, register_id) WHERE s.store_id = $1 ORDER BY s.name, g.name LIMIT $2",
            &[&store, &MAX_ROWS_SHOWN],
        )
        .await?
        .iter()
        .map(|r| json!({"register": r.get::<_, String>(0), "name": r.get::<_, String>(1), "role": r.get::<_, String>(2), "active": r.get::<_, bool>(3), "updated_at_ms": r.get::<_, i64>(4)}))
        .collect();
    let own_tax: Vec<Value> = tx
        .query(
            "SELECT g.name, t.price_mode, t.rounding, t.registration_number, t.rates, t.updated_at_ms FROM register_tax t
             JOIN registers g USING (store_id, register_id) WHERE t.store_id = $1 ORDER BY g.name LIMIT $2",
            &[&store, &MAX_ROWS_SHOWN],
        )
        .await?
        .iter()
        .map(|r| {
            json!({"register": r.get::<_, String>(0), "price_mode": r.get::<_, String>(1), "rounding": r.get::<_, String>(2),
                   "registration_number": r.get::<_, Option<String>>(3), "rates": r.get::<_, Value>(4), "updated_at_ms": r.get::<_, i64>(5)})
        })
        .collect();
    tx.commit().await?;
    Ok(Json(json!({
        "store_id": store, "name": name, "version": version, "currency": currency,
        "catalog": {"count": count, "items": items}, "tax": tax, "staff": staff, "registers": regs,
        "own": {"items": own_items, "staff": own_staff, "tax": own_tax},
        "limits": {"staff_per_publish": MAX_STAFF_PER_PUBLISH},
    })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CsvUpload {
    csv: String,
}

/// An uploaded catalog CSV read into the items a preview and a publish take. Writes nothing.
pub async fn catalog_csv(State(st): State<AppState>, headers: HeaderMap, Path(store): Path<String>, body: axum::body::Bytes) -> ApiResult<Json<Value>> {
    require_owner(&st, &headers).await?;
    let store = parse_store(&store)?;
    let req: CsvUpload = json_body(&body)?;
    let client = st.pool.get().await?;
    let currency: Option<String> = client
        .query_opt("SELECT (SELECT settings->>'currency' FROM store_settings WHERE store_id = $1) FROM stores WHERE store_id = $1", &[&store])
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no store {store}")))?
        .get(0);
    let items = csv::parse(&req.csv, currency.as_deref())?;
    Ok(Json(json!({"items": items})))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PreviewItems {
    items: Vec<Value>,
}

fn answer(section: Section, based_on: u64, d: preview::Diff, versions: usize, registers: Vec<super::RegisterView>) -> Json<Preview> {
    Json(Preview {
        section: section.as_str(),
        based_on,
        added: d.added,
        changed: d.changed,
        removed: d.removed,
        unchanged: d.unchanged,
        versions,
        registers,
    })
}

/// What `PUT …/catalog` with these items would write, and at which registers.
pub async fn catalog_preview(State(st): State<AppState>, headers: HeaderMap, Path(store): Path<String>, body: axum::body::Bytes) -> ApiResult<Json<Preview>> {
    require_owner(&st, &headers).await?;
    let store = parse_store(&store)?;
    let req: PreviewItems = json_body(&body)?;
    let mut client = st.pool.get().await?;
    let tx = snapshot(&mut client).await?;
    let based_on = Section::Catalog.version(&tx, store).await?;
    let plan = plan_items(&tx, store, req.items).await?;
    let versions = plan.changed().len();
    let diff = preview::items(&plan.stored, &plan.items);
    let regs = registers(&tx, store, Section::Catalog).await?;
    tx.commit().await?;
    Ok(answer(Section::Catalog, based_on, diff, versions, regs))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PreviewTax {
    tax: StoreTax,
}

/// What `PUT …/tax` with this document would write.
pub async fn tax_preview(State(st): State<AppState>, headers: HeaderMap, Path(store): Path<String>, body: axum::body::Bytes) -> ApiResult<Json<Preview>> {
    require_owner(&st, &headers).await?;
    let store = parse_store(&store)?;
    let req: PreviewTax = json_body(&body)?;
    req.tax.validate()?;
    let mut client = st.pool.get().await?;
    let tx = snapshot(&mut client).await?;
    let based_on = Section::Tax.version(&tx, store).await?;
    let old: Option<StoreTax> = match tx.query_opt("SELECT tax FROM store_tax WHERE store_id = $1", &[&store]).await? {
        Some(r) => Some(serde_json::from_value(r.get(0)).map_err(|e| ApiError::Internal(format!("stored tax: {e}")))?),
        None => None,
    };
    let diff = preview::tax(old.as_ref(), &req.tax);
    // The tax setup is one document: a publish takes one version, even when it equals
    // the stored one (as `PUT …/tax` does).
    let regs = registers(&tx, store, Section::Tax).await?;
    tx.commit().await?;
    Ok(answer(Section::Tax, based_on, diff, 1, regs))
}

/// What `PUT …/staff` with these members would write. The PINs are checked for their
/// format and neither hashed nor echoed: the answer says "set".
pub async fn staff_preview(State(st): State<AppState>, headers: HeaderMap, Path(store): Path<String>, body: axum::body::Bytes) -> ApiResult<Json<Preview>> {
    require_owner(&st, &headers).await?;
    let store = parse_store(&store)?;
    let req: PutStaff = json_body(&body)?;
    if req.preview_version.is_some() {
        return Err(ApiError::BadRequest("a preview takes no preview_version: send it with the publish".into()));
    }
    check_form(&req.staff)?;
    let mut client = st.pool.get().await?;
    let tx = snapshot(&mut client).await?;
    let based_on = Section::Staff.version(&tx, store).await?;
    let plan = plan_staff(&tx, store, &req.staff).await?;
    let diff = preview::staff(&plan, &req.staff);
    let regs = registers(&tx, store, Section::Staff).await?;
    tx.commit().await?;
    Ok(answer(Section::Staff, based_on, diff, plan.changed.len(), regs))
}
