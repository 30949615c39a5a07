//! The customer display follows the sale (record 0132): each time the sale on screen may
//! have changed (`Screen::changed`: a command answered with the cart or the sale, the
//! cart on screen was replaced, a payment moved in the background), its view is built
//! again and sent to the customer window if it differs from the last one sent. No
//! timer: the task sleeps until the next change.

use tauri::{AppHandle, Emitter, Manager, Runtime};

use super::window::{Display, LABEL};
use super::{build, CustomerView};
use crate::state::AppState;

/// The event the customer window listens to; its payload is a [`CustomerView`].
pub const EVENT: &str = "customer-view";

/// Runs for the life of the app.
pub async fn run<R: Runtime>(app: AppHandle<R>) {
    let state = app.state::<AppState>();
    let display = app.state::<Display>();
    let mut changes = state.screen.subscribe();
    let mut last: Option<CustomerView> = None;
    loop {
        if changes.changed().await.is_err() {
            return;
        }
        if app.get_webview_window(LABEL).is_none() {
            // no display open: it reads its view itself when it opens
            last = None;
            continue;
        }
        match build(&state, display.language(&state)) {
            Ok(v) if last.as_ref() != Some(&v) => {
                if let Err(e) = app.emit_to(LABEL, EVENT, &v) {
                    eprintln!("paydesk: the customer display was not updated: {e}");
                }
                last = Some(v);
            }
            Ok(_) => {}
            Err(e) => eprintln!("paydesk: the customer display's view: {e}"),
        }
    }
}
