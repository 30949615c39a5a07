//! A receipt as a printable page (record 0057): paydesk-receipt's `render_html` shown in
//! a window of its own, for an office printer through the system's print dialog.
//!
//! The page is served by the app's `receipt:` scheme, not written to a file and handed to
//! a browser: no opener capability, no file left in the data folder, and the page's own
//! policy allows exactly its inline style and one script of the same origin (the Print
//! button calling `window.print()`). The window gets no capability: it cannot call a
//! command. Only a window this module opened (label `receipt-<sale>`) is served.

use paydesk_receipt::{build_receipt, render_html};
use paydesk_ledger::CartId;
use tauri::http::{header, Request, Response, StatusCode};
use tauri::{AppHandle, Manager, Runtime, State, UriSchemeContext, WebviewUrl, WebviewWindowBuilder};

use super::receipt::{printable, receipt_build_error, receipt_error};
use crate::input::validate_cart;
use crate::error::{AppError, AppResult};
use crate::i18n::{active, t, tr};
use crate::state::AppState;

pub const SCHEME: &str = "receipt";
const LABEL_PREFIX: &str = "receipt-";
const POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'; script-src 'self'; base-uri 'none'; form-action 'none'";
/// The page's one script: its Print button opens the print dialog.
const PRINT_JS: &str = "document.getElementById('print-page').addEventListener('click', () => window.print());\n";

/// The page of sale `cart`: the receipt's HTML with a Print button (hidden on paper).
/// On screen it is the customer's receipt, unmarked, as `get_receipt` shows it.
fn page(state: &AppState, cart: CartId) -> AppResult<String> {
    let (data, tax) = state.engine().receipts().data(cart).map_err(receipt_error)?;
    let receipt = build_receipt(&printable(data), &tax, false).map_err(receipt_build_error)?;
    let html = render_html(&receipt);
    let button = format!(
        "<style>@media print{{.noprint{{display:none}}}} .noprint{{margin:1em 0;text-align:center}}</style>\n\
         <p class=\"noprint\"><button id=\"print-page\" type=\"button\">{}</button></p>\n\
         <script src=\"{SCHEME}://localhost/print.js\"></script>\n",
        escape(&t(crate::i18n::id!("receipt-page-print")))
    );
    Ok(match html.rfind("</body>") {
        Some(at) => format!("{}{button}{}", &html[..at], &html[at..]),
        None => html + &button,
    })
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn respond(status: StatusCode, kind: &str, body: Vec<u8>) -> Response<Vec<u8>> {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, kind)
        .header("Content-Security-Policy", POLICY)
        .header(header::CACHE_CONTROL, "no-store")
        .body(body)
        .unwrap_or_default()
}

/// The `receipt:` scheme: `/print.js`, or `/<sale>` for the page of that sale.
pub fn serve<R: Runtime>(ctx: UriSchemeContext<'_, R>, req: Request<Vec<u8>>) -> Response<Vec<u8>> {
    if !ctx.webview_label().starts_with(LABEL_PREFIX) {
        return respond(StatusCode::FORBIDDEN, "text/plain", Vec::new());
    }
    let path = req.uri().path().trim_start_matches('/');
    if path == "print.js" {
        return respond(StatusCode::OK, "text/javascript", PRINT_JS.as_bytes().to_vec());
    }
    let Some(state) = ctx.app_handle().try_state::<AppState>() else {
        return respond(StatusCode::SERVICE_UNAVAILABLE, "text/plain", Vec::new());
    };
    let cart = path.parse::<i64>().map_err(|_| AppError::InvalidInput(tr!(active(), "input-sale-number"))).and_then(validate_cart);
    match cart.and_then(|c| page(&state, c)) {
        Ok(html) => respond(StatusCode::OK, "text/html; charset=utf-8", html.into_bytes()),
        Err(e) => respond(StatusCode::NOT_FOUND, "text/plain; charset=utf-8", e.to_string().into_bytes()),
    }
}

/// Opens (or brings forward) the printable page of paid sale `cart` in its own window.
/// Returns the window's label.
#[tauri::command]
pub async fn open_receipt_page<R: Runtime>(app: AppHandle<R>, state: State<'_, AppState>, cart: i64) -> AppResult<String> {
    let cart = validate_cart(cart)?;
    // Refused here, in the cashier's window, when the sale has no receipt.
    page(&state, cart)?;
    let label = format!("{LABEL_PREFIX}{}", cart.0);
    if let Some(w) = app.get_webview_window(&label) {
        w.set_focus().map_err(|e| AppError::Internal(tr!(active(), "receipt-page-failed", error = e.to_string())))?;
        return Ok(label);
    }
    let url = tauri::Url::parse(&format!("{SCHEME}://localhost/{}", cart.0))
        .map_err(|e| AppError::Internal(tr!(active(), "receipt-page-failed", error = e.to_string())))?;
    WebviewWindowBuilder::new(&app, &label, WebviewUrl::CustomProtocol(url))
        .title(tr!(active(), "receipt-page-title", sale = cart.0))
        .inner_size(520.0, 760.0)
        .build()
        .map_err(|e| AppError::Internal(tr!(active(), "receipt-page-failed", error = e.to_string())))?;
    Ok(label)
}
