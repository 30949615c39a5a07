//! The dashboard's pages and assets, and the sign-in form.
use crate::admin::{presented, COOKIE};
use crate::state::AppState;
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};

const INDEX: &str = include_str!("../../static/index.html");
const LOGIN: &str = include_str!("../../static/login.html");
const APP_JS: &str = include_str!("../../static/app.js");
const APP_CSS: &str = include_str!("../../static/app.css");

fn signed_in(st: &AppState, headers: &HeaderMap) -> bool {
    presented(headers).is_some_and(|t| t.len() <= 200 && st.admin.matches(&t))
}

pub async fn index(State(st): State<AppState>, headers: HeaderMap) -> Response {
    if !signed_in(&st, &headers) {
        return Redirect::to("/login").into_response();
    }
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8"), (header::CACHE_CONTROL, "no-store")], INDEX).into_response()
}

pub async fn login_page() -> Response {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], LOGIN.replace("{{message}}", "")).into_response()
}

/// The sign-in form posts the owner's token; a match sets the session cookie.
pub async fn login(State(st): State<AppState>, body: axum::body::Bytes) -> Response {
    let token = form_urlencoded_token(&body);
    match token {
        Some(t) if t.len() <= 200 && st.admin.matches(&t) => {
            let cookie = format!("{COOKIE}={t}; HttpOnly; SameSite=Strict; Path=/");
            (StatusCode::SEE_OTHER, [(header::SET_COOKIE, cookie), (header::LOCATION, "/".to_string())]).into_response()
        }
        Some(_) | None => {
            let page = LOGIN.replace("{{message}}", "That token is not the owner's token.");
            (StatusCode::UNAUTHORIZED, [(header::CONTENT_TYPE, "text/html; charset=utf-8")], page).into_response()
        }
    }
}

fn form_urlencoded_token(body: &[u8]) -> Option<String> {
    form_urlencoded::parse(body).find(|(k, _)| k == "token").map(|(_, v)| v.into_owned())
}

pub async fn app_js() -> Response {
    ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8")], APP_JS).into_response()
}

pub async fn app_css() -> Response {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], APP_CSS).into_response()
}
