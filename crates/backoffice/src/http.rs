//! The router and what wraps every request (record 0039; the bound on requests in flight
//! and the connection deadlines are the server's, `server/`): a body-size limit with a JSON error, JSON-only writes on the APIs, and the
//! security headers (a strict Content-Security-Policy: scripts and styles from this
//! origin only, nothing inline).
use crate::admin::{catalog, exceptions, registers, staff, stores, zone};
use crate::books_export::route as books;
use crate::dashboard::{data, pages};
use crate::publish::route as publish;
use crate::error::ApiError;
use crate::state::AppState;
use crate::sync::{backups, changes, ingest, pair, restore};
use axum::extract::{DefaultBodyLimit, Request};
use axum::http::{header, HeaderValue, Method};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::Router;
use paydesk_sync_proto::limits::MAX_BODY_BYTES;

pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

pub fn router(st: AppState) -> Router {
    Router::new()
        .route("/", get(pages::index))
        .route("/login", get(pages::login_page).post(pages::login))
        .route("/logout", post(pages::logout))
        .route("/app.js", get(pages::app_js))
        .route("/app.css", get(pages::app_css))
        .route("/reports", get(pages::reports))
        .route("/reports.js", get(pages::reports_js))
        .route("/audit", get(pages::audit))
        .route("/audit.js", get(pages::audit_js))
        .route("/money.js", get(pages::money_js))
        .route("/publish", get(publish::page))
        .route("/publish.js", get(publish::page_js))
        .route("/healthz", get(|| async { "ok" }))
        .route("/v1/pair", post(pair::pair))
        .route("/v1/sync/batches", post(ingest::post_batch))
        .route("/v1/sync/changes", get(changes::changes))
        .route("/v1/restore/source", get(restore::source))
        .route("/v1/restore/rows", get(restore::rows))
        .route("/v1/backups", post(backups::start).get(backups::list))
        .route("/v1/backups/{id}/chunks/{n}", put(backups::put_chunk).get(backups::get_chunk))
        .route("/v1/backups/{id}/complete", post(backups::complete))
        .route("/admin/stores/{store}/backups", get(crate::admin::backups::owner_list))
        .route("/admin/dashboard", get(data::dashboard))
        .route("/admin/reports", get(crate::reports::route::report))
        .route("/admin/audit/search", get(crate::audit_search::route::search))
        .route("/admin/audit/sales/{id}", get(crate::audit_search::route::sale))
        .route("/admin/stores", post(stores::create_store))
        .route("/admin/stores/{store}/pairing-codes", post(stores::pairing_code))
        .route("/admin/stores/{store}/settings", put(stores::put_settings))
        .route("/admin/stores/{store}/catalog", get(catalog::get_items).put(catalog::put_items))
        .route("/admin/stores/{store}/tax", put(catalog::put_tax))
        .route("/admin/stores/{store}/staff", get(staff::get_staff).put(staff::put_staff))
        .route("/admin/publish/stores", get(publish::stores))
        .route("/admin/stores/{store}/publishing", get(publish::state))
        .route("/admin/stores/{store}/catalog/csv", post(publish::catalog_csv))
        .route("/admin/stores/{store}/catalog/preview", post(publish::catalog_preview))
        .route("/admin/stores/{store}/tax/preview", post(publish::tax_preview))
        .route("/admin/stores/{store}/staff/preview", post(publish::staff_preview))
        .route("/admin/stores/{store}/psp", put(stores::put_psp))
        .route("/admin/stores/{store}/time-zone", put(zone::put_time_zone))
        .route("/admin/stores/{store}/registers/{register}/replace", post(registers::replace))
        .route("/admin/stores/{store}/registers/{register}/audit", get(registers::audit))
        .route("/admin/stores/{store}/journal", get(books::get_journal))
        .route("/admin/stores/{store}/reconcile", post(exceptions::run))
        .route("/admin/stores/{store}/exceptions/{id}/resolve", post(exceptions::resolve))
        .route("/admin/stores/{store}/exceptions/{id}/propose-refund", post(crate::owed::propose::propose))
        .route("/admin/stores/{store}/owed/{id}/approve", post(crate::owed::approve::approve))
        .route("/admin/stores/{store}/owed/{id}/execute", post(crate::owed::execute::execute))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(middleware::from_fn(guard))
        .layer(middleware::from_fn(security_headers))
        .with_state(st)
}

/// Refuses what no handler should read: a declared body over the limit, and a write to
/// the APIs that is not JSON (which also keeps other sites' forms off the owner's
/// cookie: a cross-site form cannot send JSON).
async fn guard(req: Request, next: Next) -> Response {
    let len = req.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    if let Some(n) = len.filter(|n| *n > MAX_BODY_BYTES as u64) {
        return ApiError::TooLarge(n, MAX_BODY_BYTES).into_response();
    }
    let path = req.uri().path();
    let api = path.starts_with("/admin/") || path.starts_with("/v1/");
    if api && matches!(*req.method(), Method::POST | Method::PUT) {
        let ct = req.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
        if !ct.starts_with("application/json") {
            return ApiError::UnsupportedMediaType(format!("send JSON (content-type: application/json), not {ct:?}")).into_response();
        }
    }
    next.run(req).await
}

async fn security_headers(req: Request, next: Next) -> Response {
    let mut resp = next.run(req).await;
    let h = resp.headers_mut();
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    resp
}
