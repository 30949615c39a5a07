//! The card reader's customer, played at the PSP (issue #27): what the window tests of
//! the reader need beside the PSP client in lib.rs.

use serde_json::Value;

use crate::Psp;

impl Psp {
    /// The customer taps Stripe's approving test Visa on `reader`, through the PSP's test
    /// helper over HTTP (the app plays no part: it may even be down).
    pub async fn present_card(&self, reader: &str) -> Value {
        let r = self
            .http
            .post(format!("{}/v1/test_helpers/terminal/readers/{reader}/present_payment_method", self.url))
            .bearer_auth(&self.key)
            // Every POST needs a key at this PSP; one per tap (a retry would replay it).
            .header("Idempotency-Key", format!("present-{reader}-{}", std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos()))
            .form(&[("type", "card_present")])
            .send()
            .await
            .unwrap_or_else(|e| panic!("present a card on {reader}: {e}"));
        let status = r.status();
        let v: Value = r.json().await.expect("json");
        assert!(status.is_success(), "present a card on {reader}: {status} {v}");
        v
    }
}
