//! The store's catalog and tax setup as the owner publishes them for the registers
//! (record 0049). Each changed item and each tax document takes the next number of the
//! store's one sequence (`stores.published_version`), taken under the store row's lock,
//! so publishes of one store commit in version order and a register paging through the
//! changes by version never steps over one still uncommitted.
use super::{json_body, parse_store, require_owner};
use crate::error::{ApiError, ApiResult};
use super::section::Section;
use crate::state::{now_ms, AppState};
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::Json;
use paydesk_sync_proto::catalog::MAX_ITEMS_PER_PUBLISH;
use paydesk_sync_proto::{Item, StoreSettings, StoreTax};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use tokio_postgres::Transaction;
use uuid::Uuid;

/// Items one store may publish (the register's own catalog limit).
pub const MAX_STORE_ITEMS: i64 = 50_000;

/// Takes `n` numbers of the store's sequence and returns the first. Locks the store row
/// until the transaction ends: the next publish of this store waits for this one, so
/// versions become visible in order. NotFound when there is no such store.
pub(crate) async fn take_versions(tx: &Transaction<'_>, store: Uuid, n: i64) -> ApiResult<i64> {
    debug_assert!(n >= 1);
    let row = tx
        .query_opt("UPDATE stores SET published_version = published_version + $2 WHERE store_id = $1 RETURNING published_version", &[&store, &n])
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no store {store}")))?;
    Ok(row.get::<_, i64>(0) - n + 1)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PutItems {
    /// Read as documents first: a field of the item's shape left out is kept from the
    /// stored item (below), not read as its default.
    items: Vec<Value>,
    /// The catalog's version its preview was computed against (record 0147); when sent, a
    /// publish in between refuses this one (`stale_preview`).
    #[serde(default)]
    preview_version: Option<u64>,
}

/// The fields of an item's shape (record 0137). An edit that leaves one out (a tool
/// older than the field, a name fix) keeps the stored item's: a weighed item renamed
/// stays weighed. To change one, the edit says it (`"category": null` clears it).
const SHAPE_FIELDS: [&str; 3] = ["price_kind", "unit", "category"];

/// The request's item, its left-out shape taken from `stored`.
fn read_item(mut doc: Value, stored: &HashMap<String, Item>) -> ApiResult<Item> {
    let sku = doc.get("sku").and_then(Value::as_str).map(String::from);
    if let (Some(obj), Some(before)) = (doc.as_object_mut(), sku.and_then(|s| stored.get(&s))) {
        let before = serde_json::to_value(before).map_err(|e| ApiError::Internal(e.to_string()))?;
        for f in SHAPE_FIELDS {
            if let (false, Some(v)) = (obj.contains_key(f), before.get(f)) {
                obj.insert(f.to_string(), v.clone());
            }
        }
    }
    let mut item: Item = serde_json::from_value(doc).map_err(|e| ApiError::BadRequest(format!("malformed body: {e}")))?;
    // One barcode rule (record 0115): a UPC-A and its EAN-13 are stored, compared and
    // checked for duplicates as the same 13 digits.
    item.normalize_barcode();
    Ok(item)
}

/// Every rule a publish must keep, before anything is written: each item well formed,
/// one entry per SKU, the store's currency, and no barcode on two SKUs once the publish
/// is applied (the store's other items included).
fn check_request(items: &[Item], currency: Option<&str>, stored_barcodes: &HashMap<String, String>) -> ApiResult<()> {
    if items.is_empty() || items.len() > MAX_ITEMS_PER_PUBLISH {
        return Err(ApiError::BadRequest(format!("send 1 to {MAX_ITEMS_PER_PUBLISH} items at a time, not {}", items.len())));
    }
    let mut skus = HashSet::new();
    for item in items {
        item.validate()?;
        if !skus.insert(item.sku.as_str()) {
            return Err(ApiError::BadRequest(format!("item {:?} is listed twice", item.sku)));
        }
        if let Some(c) = currency.filter(|c| *c != item.currency) {
            return Err(ApiError::BadRequest(format!("item {:?} is priced in {}; the store sells in {c}", item.sku, item.currency)));
        }
    }
    // The barcodes as they will be: stored ones of SKUs not in this publish, then these.
    let mut holder: HashMap<&str, &str> =
        stored_barcodes.iter().filter(|(sku, _)| !skus.contains(sku.as_str())).map(|(sku, b)| (b.as_str(), sku.as_str())).collect();
    for item in items {
        if let Some(b) = &item.barcode {
            if let Some(other) = holder.insert(b.as_str(), item.sku.as_str()) {
                return Err(ApiError::BadRequest(format!("barcode {b} would belong to both {other:?} and {:?}", item.sku)));
            }
        }
    }
    Ok(())
}

/// What a catalog publish would write, read in the caller's transaction: the preview
/// (record 0147) and the publish compute it with this one function, so the owner is shown
/// exactly what is then written.
pub(crate) struct ItemsPlan {
    /// The store's items as they are, by SKU.
    pub stored: HashMap<String, Item>,
    /// The request's items as they will be stored (shape filled in, barcodes normalized).
    pub items: Vec<Item>,
}

impl ItemsPlan {
    /// The items that differ from their stored copy (new ones included): each takes a
    /// version; the others cost the registers nothing.
    pub fn changed(&self) -> Vec<&Item> {
        self.items.iter().filter(|i| self.stored.get(&i.sku) != Some(*i)).collect()
    }
}

/// Reads the store's catalog and checks `docs` against it (every rule of a publish).
pub(crate) async fn plan_items(tx: &Transaction<'_>, store: Uuid, docs: Vec<Value>) -> ApiResult<ItemsPlan> {
    if docs.is_empty() || docs.len() > MAX_ITEMS_PER_PUBLISH {
        return Err(ApiError::BadRequest(format!("send 1 to {MAX_ITEMS_PER_PUBLISH} items at a time, not {}", docs.len())));
    }
    let currency: Option<String> = tx
        .query_opt("SELECT settings->>'currency' FROM store_settings WHERE store_id = $1", &[&store])
        .await?
        .and_then(|r| r.get(0));
    let mut stored: HashMap<String, Item> = HashMap::new();
    for r in tx.query("SELECT sku, item FROM catalog_items WHERE store_id = $1", &[&store]).await? {
        let mut item: Item = serde_json::from_value(r.get(1)).map_err(|e| ApiError::Internal(format!("stored item: {e}")))?;
        // An EAN-8 stored before record 0115 compares in its 13-digit form.
        item.normalize_barcode();
        stored.insert(r.get(0), item);
    }
    let items = docs.into_iter().map(|d| read_item(d, &stored)).collect::<ApiResult<Vec<Item>>>()?;
    let barcodes: HashMap<String, String> = stored.iter().filter_map(|(s, i)| i.barcode.clone().map(|b| (s.clone(), b))).collect();
    check_request(&items, currency.as_deref(), &barcodes)?;
    let new_skus = items.iter().filter(|i| !stored.contains_key(&i.sku)).count() as i64;
    if stored.len() as i64 + new_skus > MAX_STORE_ITEMS {
        return Err(ApiError::Conflict(format!("the store would have {} items; at most {MAX_STORE_ITEMS}", stored.len() as i64 + new_skus)));
    }
    Ok(ItemsPlan { stored, items })
}

/// Publishes items (inserted or replaced by SKU), all or none. Unchanged items keep
/// their version and cost the registers nothing.
pub async fn put_items(State(st): State<AppState>, headers: HeaderMap, Path(store): Path<String>, body: axum::body::Bytes) -> ApiResult<Json<Value>> {
    require_owner(&st, &headers).await?;
    let store = parse_store(&store)?;
    let raw: PutItems = json_body(&body)?;
    if raw.items.is_empty() || raw.items.len() > MAX_ITEMS_PER_PUBLISH {
        return Err(ApiError::BadRequest(format!("send 1 to {MAX_ITEMS_PER_PUBLISH} items at a time, not {}", raw.items.len())));
    }
    let mut client = st.pool.get().await?;
    let tx = client.transaction().await?;
    // The store row first (its lock orders this publish), then what the checks read.
    tx.query_opt("SELECT 1 FROM stores WHERE store_id = $1 FOR UPDATE", &[&store])
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no store {store}")))?;
    if let Some(previewed) = raw.preview_version {
        Section::Catalog.check_preview(&tx, store, previewed).await?;
    }
    let plan = plan_items(&tx, store, raw.items).await?;
    let changed = plan.changed();
    let items = &plan.items;
    if changed.is_empty() {
        let v: i64 = tx.query_one("SELECT published_version FROM stores WHERE store_id = $1", &[&store]).await?.get(0);
        return Ok(Json(json!({"version": v, "changed": 0, "unchanged": items.len()})));
    }
    let first = take_versions(&tx, store, changed.len() as i64).await?;
    let now = now_ms();
    for (i, item) in changed.iter().enumerate() {
        let doc = serde_json::to_value(item).map_err(|e| ApiError::Internal(e.to_string()))?;
        tx.execute(
            "INSERT INTO catalog_items (store_id, sku, version, item, updated_ms) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (store_id, sku) DO UPDATE SET version = excluded.version, item = excluded.item, updated_ms = excluded.updated_ms",
            &[&store, &item.sku, &(first + i as i64), &doc, &now],
        )
        .await?;
    }
    tx.commit().await?;
    let last = first + changed.len() as i64 - 1;
    Ok(Json(json!({"version": last, "changed": changed.len(), "unchanged": items.len() - changed.len()})))
}

/// The store's published catalog, by SKU, each item with its version.
pub async fn get_items(State(st): State<AppState>, headers: HeaderMap, Path(store): Path<String>) -> ApiResult<Json<Value>> {
    require_owner(&st, &headers).await?;
    let store = parse_store(&store)?;
    let client = st.pool.get().await?;
    let v: i64 = client
        .query_opt("SELECT published_version FROM stores WHERE store_id = $1", &[&store])
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no store {store}")))?
        .get(0);
    let rows = client.query("SELECT version, item FROM catalog_items WHERE store_id = $1 ORDER BY sku", &[&store]).await?;
    let items: Vec<Value> = rows.iter().map(|r| json!({"version": r.get::<_, i64>(0), "item": r.get::<_, Value>(1)})).collect();
    Ok(Json(json!({"version": v, "items": items})))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PutTax {
    /// The version of the tax document the owner edited (0: none published yet).
    expected_version: u64,
    tax: StoreTax,
    /// The tax setup's version its preview was computed against (record 0147): a
    /// publish in between refuses this one as `stale_preview` (before `expected_version`).
    #[serde(default)]
    preview_version: Option<u64>,
}

/// Publishes the store's tax setup as a whole; a stale edit is refused (409).
pub async fn put_tax(State(st): State<AppState>, headers: HeaderMap, Path(store): Path<String>, body: axum::body::Bytes) -> ApiResult<Json<Value>> {
    require_owner(&st, &headers).await?;
    let store = parse_store(&store)?;
    let req: PutTax = json_body(&body)?;
    req.tax.validate()?;
    let mut client = st.pool.get().await?;
    let tx = client.transaction().await?;
    let first = take_versions(&tx, store, 1).await?;
    if let Some(previewed) = req.preview_version {
        Section::Tax.check_preview(&tx, store, previewed).await?;
    }
    let current: i64 = tx.query_opt("SELECT version FROM store_tax WHERE store_id = $1", &[&store]).await?.map_or(0, |r| r.get(0));
    if current as u64 != req.expected_version {
        // Dropping the transaction rolls the sequence number back too.
        return Err(ApiError::Conflict(format!("the tax setup is at version {current}, not {}; reload and edit again", req.expected_version)));
    }
    let doc = serde_json::to_value(&req.tax).map_err(|e| ApiError::Internal(e.to_string()))?;
    tx.execute(
        "INSERT INTO store_tax (store_id, version, tax, updated_ms) VALUES ($1, $2, $3, $4)
         ON CONFLICT (store_id) DO UPDATE SET version = excluded.version, tax = excluded.tax, updated_ms = excluded.updated_ms",
        &[&store, &first, &doc, &now_ms()],
    )
    .await?;
    tx.commit().await?;
    Ok(Json(json!({"version": first})))
}

/// The settings' currency may not change under a published catalog priced in another.
pub(crate) async fn check_currency_change(tx: &Transaction<'_>, store: Uuid, settings: &StoreSettings) -> ApiResult<()> {
    let other = tx
        .query_opt("SELECT sku, item->>'currency' FROM catalog_items WHERE store_id = $1 AND item->>'currency' <> $2 LIMIT 1", &[&store, &settings.currency])
        .await?;
    match other {
        Some(r) => Err(ApiError::Conflict(format!(
            "item {:?} is priced in {}; publish the catalog in {} before the settings",
            r.get::<_, String>(0),
            r.get::<_, String>(1),
            settings.currency
        ))),
        None => Ok(()),
    }
}
