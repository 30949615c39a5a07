//! The dashboard's pages and assets, and the sign-in form.
use crate::admin::require_owner;
use crate::session;
use crate::state::{source, AppState};
use axum::extract::State;
use axum::http::{header, Extensions, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};

const INDEX: &str = include_str!("../../static/index.html");
const LOGIN: &str = include_str!("../../static/login.html");
const APP_JS: &str = include_str!("../../static/app.js");
const MONEY_JS: &str = include_str!("../../static/money.js");
const APP_CSS: &str = include_str!("../../static/app.css");
const REPORTS: &str = include_str!("../../static/reports.html");
const REPORTS_JS: &str = include_str!("../../static/reports.js");
const AUDIT: &str = include_str!("../../static/audit.html");
const AUDIT_JS: &str = include_str!("../../static/audit.js");

/// A live dashboard session (or the owner's token as a Bearer header). A database that
/// is away sends the owner to the sign-in page, which says nothing false.
async fn signed_in(st: &AppState, headers: &HeaderMap) -> bool {
    require_owner(st, headers).await.is_ok()
}

pub async fn index(State(st): State<AppState>, headers: HeaderMap) -> Response {
    if !signed_in(&st, &headers).await {
        return Redirect::to("/login").into_response();
    }
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8"), (header::CACHE_CONTROL, "no-store")], INDEX).into_response()
}

/// The reports page (record 0140): its script asks `/admin/reports`.
pub async fn reports(State(st): State<AppState>, headers: HeaderMap) -> Response {
    if !signed_in(&st, &headers).await {
        return Redirect::to("/login").into_response();
    }
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8"), (header::CACHE_CONTROL, "no-store")], REPORTS).into_response()
}

/// The auditor's search (record 0146): its script asks `/admin/audit/…`.
pub async fn audit(State(st): State<AppState>, headers: HeaderMap) -> Response {
    if !signed_in(&st, &headers).await {
        return Redirect::to("/login").into_response();
    }
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8"), (header::CACHE_CONTROL, "no-store")], AUDIT).into_response()
}

pub async fn audit_js() -> Response {
    ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8")], AUDIT_JS).into_response()
}

pub async fn reports_js() -> Response {
    ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8")], REPORTS_JS).into_response()
}

pub async fn login_page() -> Response {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], LOGIN.replace("{{message}}", "")).into_response()
}

fn login_refused(status: StatusCode, message: &str) -> Response {
    (status, [(header::CONTENT_TYPE, "text/html; charset=utf-8")], LOGIN.replace("{{message}}", message)).into_response()
}

/// The sign-in form posts the owner's token; a match starts a session whose random id
/// goes in the cookie (never the token). Attempts are throttled per address and in all.
pub async fn login(State(st): State<AppState>, ext: Extensions, body: axum::body::Bytes) -> Response {
    if let Err(wait) = st.sign_in.attempt(source(&ext)) {
        let mut r = login_refused(StatusCode::TOO_MANY_REQUESTS, "Too many sign-in attempts. Wait a minute and try again.");
        r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(wait.as_secs()));
        return r;
    }
    match form_urlencoded_token(&body) {
        Some(t) if t.len() <= 200 && st.admin.matches(&t) => {
            let started = async {
                let client = st.pool.get().await?;
                session::start(&client, &st.session).await
            };
            match started.await {
                Ok(id) => (StatusCode::SEE_OTHER, [(header::SET_COOKIE, session::cookie(&id, &st.session)), (header::LOCATION, "/".to_string())]).into_response(),
                Err(e) => e.into_response(),
            }
        }
        Some(_) | None => login_refused(StatusCode::UNAUTHORIZED, "That token is not the owner's token."),
    }
}

/// Signing out ends the session at the back office and removes the cookie.
pub async fn logout(State(st): State<AppState>, headers: HeaderMap) -> Response {
    if let Some(id) = session::presented(&headers) {
        let ended = async {
            let client = st.pool.get().await?;
            session::end(&client, &id).await
        };
        if let Err(e) = ended.await {
            return e.into_response();
        }
    }
    (StatusCode::SEE_OTHER, [(header::SET_COOKIE, session::cleared(&st.session)), (header::LOCATION, "/login".to_string())]).into_response()
}

fn form_urlencoded_token(body: &[u8]) -> Option<String> {
    form_urlencoded::parse(body).find(|(k, _)| k == "token").map(|(_, v)| v.into_owned())
}

/// Amounts as the owner reads them, shared by the dashboard and the reports page.
pub async fn money_js() -> Response {
    ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8")], MONEY_JS).into_response()
}

pub async fn app_js() -> Response {
    ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8")], APP_JS).into_response()
}

pub async fn app_css() -> Response {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], APP_CSS).into_response()
}
