//! Stripe Terminal's server-driven reader API as the register uses it (decision 0102):
//! locations, readers, `process_payment_intent`, `cancel_action`, `set_reader_display`,
//! the test helper `present_payment_method`, and the Charge's card-present details.
//! Shapes follow Stripe's API reference; every POST carries an `Idempotency-Key`.

use super::requests::{q, PspClient};
use crate::transport::HttpRequest;
use serde::{Deserialize, Serialize};

/// `terminal.location` (only what the register reads).
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct Location {
    pub id: String,
    #[serde(default)]
    pub display_name: Option<String>,
}

/// `terminal.reader`.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct Reader {
    pub id: String,
    #[serde(default)]
    pub label: Option<String>,
    /// `online` | `offline` (null for some device types).
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub device_type: Option<String>,
    /// The location's id (or the expanded object).
    #[serde(default)]
    pub location: Option<serde_json::Value>,
    #[serde(default)]
    pub action: Option<ReaderAction>,
}

impl Reader {
    pub fn location_id(&self) -> Option<String> {
        match &self.location {
            Some(serde_json::Value::String(s)) => Some(s.clone()),
            Some(serde_json::Value::Object(o)) => o.get("id").and_then(|v| v.as_str()).map(str::to_string),
            _ => None,
        }
    }
    /// Its connection as the PSP reports it, read into [`ReaderStatus`] here, at the
    /// edge, so nothing past the PSP client decides from the wire's word.
    pub fn status(&self) -> Option<ReaderStatus> {
        self.status.as_deref().map(|s| match s {
            "online" => ReaderStatus::Online,
            "offline" => ReaderStatus::Offline,
            _ => ReaderStatus::Other,
        })
    }
    /// The reader's action when it is about `intent_id` (a `process_payment_intent`
    /// of that intent); any other action, or none, is "cleared" for that intent.
    pub fn action_for(&self, intent_id: &str) -> Option<&ReaderAction> {
        self.action.as_ref().filter(|a| a.kind() == ReaderActionKind::ProcessPaymentIntent && a.intent_id().as_deref() == Some(intent_id))
    }
}

/// A reader's connection to the PSP (`terminal.reader.status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReaderStatus {
    Online,
    Offline,
    /// A word this register does not know: shown as unknown, never as online.
    Other,
}

/// What a reader's action does (`terminal.reader.action.type`); the register starts
/// only `process_payment_intent`, the others come from the dashboard or another app.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReaderActionKind {
    ProcessPaymentIntent,
    /// `process_setup_intent`, `refund_payment`, `set_reader_display`, or a word this
    /// register does not know: never read as a payment.
    Other,
}

/// Status of a reader's action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReaderActionStatus {
    InProgress,
    Succeeded,
    Failed,
    /// A status this register does not know: never read as a result.
    Other,
}

/// `terminal.reader.action`.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct ReaderAction {
    #[serde(rename = "type", default)]
    pub action_type: String,
    #[serde(default)]
    pub status: String,
    #[serde(default)]
    pub failure_code: Option<String>,
    #[serde(default)]
    pub failure_message: Option<String>,
    #[serde(default)]
    pub process_payment_intent: Option<ProcessAction>,
}

impl ReaderAction {
    /// The action's type, read here at the PSP client's edge.
    pub fn kind(&self) -> ReaderActionKind {
        match self.action_type.as_str() {
            "process_payment_intent" => ReaderActionKind::ProcessPaymentIntent,
            _ => ReaderActionKind::Other,
        }
    }

    /// A payment the reader is collecting now (the customer has not tapped yet).
    pub fn collecting(&self) -> bool {
        self.kind() == ReaderActionKind::ProcessPaymentIntent && self.status() == ReaderActionStatus::InProgress
    }

    pub fn status(&self) -> ReaderActionStatus {
        match self.status.as_str() {
            "in_progress" => ReaderActionStatus::InProgress,
            "succeeded" => ReaderActionStatus::Succeeded,
            "failed" => ReaderActionStatus::Failed,
            _ => ReaderActionStatus::Other,
        }
    }
    pub fn intent_id(&self) -> Option<String> {
        match self.process_payment_intent.as_ref().map(|p| &p.payment_intent) {
            Some(serde_json::Value::String(s)) => Some(s.clone()),
            Some(serde_json::Value::Object(o)) => o.get("id").and_then(|v| v.as_str()).map(str::to_string),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct ProcessAction {
    /// The intent's id (or the expanded object).
    #[serde(default)]
    pub payment_intent: serde_json::Value,
}

/// `charge` (only what the receipt needs).
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct Charge {
    pub id: String,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub payment_method_details: Option<PaymentMethodDetails>,
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct PaymentMethodDetails {
    #[serde(default)]
    pub card_present: Option<CardPresent>,
}

/// `payment_method_details.card_present`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
pub struct CardPresent {
    #[serde(default)]
    pub brand: Option<String>,
    #[serde(default)]
    pub last4: Option<String>,
    #[serde(default)]
    pub read_method: Option<String>,
    #[serde(default)]
    pub receipt: Option<CardPresentReceipt>,
}

/// `payment_method_details.card_present.receipt`: the EMV fields a card receipt prints.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
pub struct CardPresentReceipt {
    #[serde(default)]
    pub application_preferred_name: Option<String>,
    #[serde(default)]
    pub dedicated_file_name: Option<String>,
    #[serde(default)]
    pub authorization_response_code: Option<String>,
    #[serde(default)]
    pub authorization_code: Option<String>,
    #[serde(default)]
    pub account_type: Option<String>,
    #[serde(default)]
    pub cardholder_verification_method: Option<String>,
}

impl PspClient {
    /// `POST /v1/terminal/locations`.
    pub fn create_location_request(&self, display_name: &str, address: &[(&str, &str)], key: &str) -> HttpRequest {
        let mut form = vec![("display_name".to_string(), display_name.to_string())];
        for (k, v) in address {
            form.push((format!("address[{k}]"), v.to_string()));
        }
        self.post("/v1/terminal/locations", form, key)
    }
    /// `POST /v1/terminal/readers` (`simulated-wpe` registers a simulated reader).
    pub fn register_reader_request(&self, registration_code: &str, label: &str, location: &str, key: &str) -> HttpRequest {
        let form = vec![
            ("registration_code".to_string(), registration_code.to_string()),
            ("label".to_string(), label.to_string()),
            ("location".to_string(), location.to_string()),
        ];
        self.post("/v1/terminal/readers", form, key)
    }
    /// `GET /v1/terminal/readers/:id`.
    pub fn get_reader_request(&self, reader: &str) -> HttpRequest {
        self.get(format!("/v1/terminal/readers/{}", q(reader)))
    }
    /// `POST /v1/terminal/readers/:id/process_payment_intent`: the 200 only says the
    /// reader received the action.
    pub fn process_payment_intent_request(&self, reader: &str, intent: &str, key: &str) -> HttpRequest {
        let form = vec![("payment_intent".to_string(), intent.to_string())];
        self.post(&format!("/v1/terminal/readers/{}/process_payment_intent", q(reader)), form, key)
    }
    /// `POST /v1/terminal/readers/:id/cancel_action`.
    pub fn cancel_action_request(&self, reader: &str, key: &str) -> HttpRequest {
        self.post(&format!("/v1/terminal/readers/{}/cancel_action", q(reader)), vec![], key)
    }
    /// `POST /v1/terminal/readers/:id/set_reader_display` with `type=cart`.
    pub fn set_reader_display_request(&self, reader: &str, cart: &ReaderCart, key: &str) -> HttpRequest {
        let mut form = vec![
            ("type".to_string(), "cart".to_string()),
            ("cart[currency]".to_string(), cart.currency.clone()),
            ("cart[tax]".to_string(), cart.tax.to_string()),
            ("cart[total]".to_string(), cart.total.to_string()),
        ];
        for (i, l) in cart.lines.iter().enumerate() {
            form.push((format!("cart[line_items][{i}][description]"), l.description.clone()));
            form.push((format!("cart[line_items][{i}][amount]"), l.amount.to_string()));
            form.push((format!("cart[line_items][{i}][quantity]"), l.quantity.to_string()));
        }
        self.post(&format!("/v1/terminal/readers/{}/set_reader_display", q(reader)), form, key)
    }
    /// Test helper: `POST /v1/test_helpers/terminal/readers/:id/present_payment_method`
    /// (plays the customer on a simulated reader).
    pub fn present_payment_method_request(&self, reader: &str, card_number: &str, key: &str) -> HttpRequest {
        let form = vec![
            ("type".to_string(), "card_present".to_string()),
            ("card_present[number]".to_string(), card_number.to_string()),
        ];
        self.post(&format!("/v1/test_helpers/terminal/readers/{}/present_payment_method", q(reader)), form, key)
    }
    /// `GET /v1/payment_intents/:id?expand[]=latest_charge`: the intent with its charge.
    pub fn get_intent_with_charge_request(&self, intent: &str) -> HttpRequest {
        self.get(format!("/v1/payment_intents/{}?{}=latest_charge", q(intent), q("expand[]")))
    }
    /// `GET /v1/charges/:id`.
    pub fn get_charge_request(&self, charge: &str) -> HttpRequest {
        self.get(format!("/v1/charges/{}", q(charge)))
    }
}

/// What `set_reader_display` shows: the sale's lines, tax and total (minor units).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReaderCart {
    pub currency: String,
    pub tax: i64,
    pub total: i64,
    pub lines: Vec<ReaderCartLine>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReaderCartLine {
    pub description: String,
    pub amount: i64,
    pub quantity: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reader_with_a_failed_action_reads_as_stripe_writes_it() {
        let json = r#"{"id":"tmr_1","object":"terminal.reader","label":"Front","status":"online",
            "device_type":"simulated_wisepos_e","location":"tml_1",
            "action":{"type":"process_payment_intent","status":"failed","failure_code":"card_declined",
                      "failure_message":"The card was declined.","process_payment_intent":{"payment_intent":"pi_1"}}}"#;
        let r: Reader = serde_json::from_str(json).unwrap();
        let a = r.action_for("pi_1").unwrap();
        assert_eq!(a.status(), ReaderActionStatus::Failed);
        assert_eq!(a.failure_code.as_deref(), Some("card_declined"));
        assert!(r.action_for("pi_2").is_none(), "another intent's action is not this one's");
        assert_eq!(r.location_id().as_deref(), Some("tml_1"));
        let idle: Reader = serde_json::from_str(r#"{"id":"tmr_1","action":null}"#).unwrap();
        assert!(idle.action_for("pi_1").is_none());
    }

    #[test]
    fn card_present_details_and_the_receipt_fields() {
        let json = r#"{"id":"ch_1","status":"succeeded","payment_method_details":{"type":"card_present",
            "card_present":{"brand":"visa","last4":"4242","read_method":"contactless_emv",
            "receipt":{"application_preferred_name":"Visa Credit","dedicated_file_name":"A0000000031010",
            "authorization_response_code":"3030","account_type":"credit","cardholder_verification_method":"none"}}}}"#;
        let c: Charge = serde_json::from_str(json).unwrap();
        let cp = c.payment_method_details.unwrap().card_present.unwrap();
        assert_eq!((cp.brand.as_deref(), cp.last4.as_deref()), (Some("visa"), Some("4242")));
        assert_eq!(cp.receipt.unwrap().dedicated_file_name.as_deref(), Some("A0000000031010"));
    }
}
