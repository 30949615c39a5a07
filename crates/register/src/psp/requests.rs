//! The requests the register sends (PaymentIntent create, capture, cancel, refund, GET,
//! search by metadata, lists) with Stripe's form encoding, and the client that sends one
//! attempt through the injected transport and classifies its answer.

use super::classify::classify;
use super::outcome::AttemptOutcome;
use crate::transport::{HttpRequest, Method, SharedTransport};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Parameters of a PaymentIntent create, as sent (and stored before sending).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateIntent {
    pub amount: i64,
    /// Lower-case ISO 4217.
    pub currency: String,
    pub payment_method: String,
    /// "automatic" | "manual"
    pub capture_method: String,
    pub checkout_key: String,
}

impl CreateIntent {
    /// The exact form pairs, Stripe bracket notation, stable order.
    pub fn form(&self) -> Vec<(String, String)> {
        vec![
            ("amount".into(), self.amount.to_string()),
            ("currency".into(), self.currency.clone()),
            ("payment_method".into(), self.payment_method.clone()),
            ("confirm".into(), "true".into()),
            ("capture_method".into(), self.capture_method.clone()),
            ("metadata[checkout_key]".into(), self.checkout_key.clone()),
        ]
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateRefund {
    pub payment_intent: String,
    pub amount: i64,
    pub refund_key: String,
    pub checkout_key: String,
}

impl CreateRefund {
    pub fn form(&self) -> Vec<(String, String)> {
        vec![
            ("payment_intent".into(), self.payment_intent.clone()),
            ("amount".into(), self.amount.to_string()),
            ("metadata[refund_key]".into(), self.refund_key.clone()),
            ("metadata[checkout_key]".into(), self.checkout_key.clone()),
        ]
    }
}

/// Percent-encode one query value.
pub(super) fn q(v: &str) -> String {
    form_urlencoded::byte_serialize(v.as_bytes()).collect()
}

/// Builds requests and sends one attempt through the injected transport.
#[derive(Clone)]
pub struct PspClient {
    transport: SharedTransport,
    pub attempt_timeout: Duration,
}

impl PspClient {
    pub fn new(transport: SharedTransport, attempt_timeout: Duration) -> Self {
        Self { transport, attempt_timeout }
    }

    pub fn create_intent_request(&self, p: &CreateIntent, key: &str) -> HttpRequest {
        self.post("/v1/payment_intents", p.form(), key)
    }
    pub fn create_intent_request_from_form(&self, form: Vec<(String, String)>, key: &str) -> HttpRequest {
        self.post("/v1/payment_intents", form, key)
    }
    pub fn capture_request(&self, pi: &str, key: &str) -> HttpRequest {
        self.post(&format!("/v1/payment_intents/{}/capture", q(pi)), vec![], key)
    }
    pub fn cancel_request(&self, pi: &str, key: &str) -> HttpRequest {
        self.post(&format!("/v1/payment_intents/{}/cancel", q(pi)), vec![], key)
    }
    pub fn refund_request(&self, r: &CreateRefund) -> HttpRequest {
        self.post("/v1/refunds", r.form(), &r.refund_key)
    }
    pub fn get_intent_request(&self, pi: &str) -> HttpRequest {
        self.get(format!("/v1/payment_intents/{}", q(pi)))
    }
    pub fn search_by_metadata_request(&self, field: &str, value: &str) -> HttpRequest {
        let query = format!("metadata['{field}']:'{value}'");
        self.get(format!("/v1/payment_intents/search?query={}", q(&query)))
    }
    pub fn list_refunds_request(&self, pi: &str) -> HttpRequest {
        self.list_refunds_page_request(pi, None)
    }
    /// `GET /v1/refunds?payment_intent=…` (Stripe list: newest first, `starting_after`
    /// pages to older ones).
    pub fn list_refunds_page_request(&self, pi: &str, starting_after: Option<&str>) -> HttpRequest {
        let mut path = format!("/v1/refunds?payment_intent={}&limit=100", q(pi));
        if let Some(s) = starting_after {
            path.push_str(&format!("&starting_after={}", q(s)));
        }
        self.get(path)
    }
    /// `GET /v1/events` with Stripe list parameters.
    pub fn list_events_request(&self, created_gte: Option<i64>, starting_after: Option<&str>, limit: u32) -> HttpRequest {
        let mut qs = vec![format!("limit={limit}")];
        if let Some(t) = created_gte {
            qs.push(format!("{}={t}", q("created[gte]")));
        }
        if let Some(s) = starting_after {
            qs.push(format!("starting_after={}", q(s)));
        }
        self.get(format!("/v1/events?{}", qs.join("&")))
    }

    pub(super) fn post(&self, path: &str, form: Vec<(String, String)>, key: &str) -> HttpRequest {
        HttpRequest {
            method: Method::Post,
            path: path.to_string(),
            form,
            idempotency_key: Some(key.to_string()),
            timeout: self.attempt_timeout,
        }
    }
    pub(super) fn get(&self, path: String) -> HttpRequest {
        HttpRequest { method: Method::Get, path, form: vec![], idempotency_key: None, timeout: self.attempt_timeout }
    }

    /// Send one attempt and classify it.
    pub async fn attempt<T: serde::de::DeserializeOwned>(&self, req: HttpRequest) -> AttemptOutcome<T> {
        classify(self.transport.send(req).await)
    }
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::{HttpResponse, TransportError};

    #[test]
    fn form_uses_bracket_metadata_and_is_stable() {
        let p = CreateIntent {
            amount: 1200,
            currency: "jpy".into(),
            payment_method: "pm_card_visa".into(),
            capture_method: "automatic".into(),
            checkout_key: "abc".into(),
        };
        let client = PspClient::new(std::sync::Arc::new(NoTransport), Duration::from_secs(1));
        let req = client.create_intent_request(&p, "abc");
        assert_eq!(req.idempotency_key.as_deref(), Some("abc"));
        assert_eq!(
            req.encoded_body(),
            "amount=1200&currency=jpy&payment_method=pm_card_visa&confirm=true&capture_method=automatic&metadata%5Bcheckout_key%5D=abc"
        );
        assert_eq!(req.form, p.form());
        let s = client.search_by_metadata_request("checkout_key", "abc");
        assert_eq!(s.path, "/v1/payment_intents/search?query=metadata%5B%27checkout_key%27%5D%3A%27abc%27");
        assert!(s.idempotency_key.is_none());
        let e = client.list_events_request(Some(10), Some("evt_1"), 100);
        assert_eq!(e.path, "/v1/events?limit=100&created%5Bgte%5D=10&starting_after=evt_1");
    }

    struct NoTransport;
    impl crate::transport::Transport for NoTransport {
        fn send(&self, _: HttpRequest) -> crate::clock::BoxFuture<'static, Result<HttpResponse, TransportError>> {
            Box::pin(async { Err(TransportError::ConnectRefused("test".into())) })
        }
    }
}
