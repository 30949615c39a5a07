//! What the screen announced (`#announce`, the polite live region), as a list. The region
//! holds only the newest message: a background update (the PSP's refund event, a status
//! refresh) may replace "Refunded $2.50." before a poll reads it, on a loaded machine. So
//! a test that waits for a message starts recording first and then waits for the message
//! to be among those recorded, not to be the one on screen at the moment of a poll.

use serde_json::json;

use crate::{App, LONG};

impl App {
    /// Starts recording every text `#announce` shows from now on (a MutationObserver in
    /// the page; no product code involved).
    pub async fn record_announcements(&self) {
        self.js(
            "window.__announced = []; const a = document.getElementById('announce'); \
             if (a.textContent) window.__announced.push(a.textContent); \
             new MutationObserver(() => window.__announced.push(a.textContent)).observe(a, { childList: true, characterData: true, subtree: true }); \
             return true",
        )
        .await;
    }

    /// Waits until `text` has been announced since `record_announcements`.
    pub async fn wait_announced(&self, text: &str) {
        let script = format!("return (window.__announced || []).includes({})", json!(text));
        self.wait_js(&script, &format!("{text:?} announced"), LONG).await;
    }
}
