//! The PSP's answers as the register reads them (Stripe's JSON shapes), and its error
//! envelope.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct PaymentIntent {
    pub id: String,
    #[serde(default)]
    pub amount: i64,
    #[serde(default)]
    pub amount_received: Option<i64>,
    #[serde(default)]
    pub currency: String,
    #[serde(default)]
    pub status: String,
    #[serde(default)]
    pub capture_method: Option<String>,
    #[serde(default)]
    pub metadata: BTreeMap<String, String>,
    #[serde(default)]
    pub created: Option<i64>,
    #[serde(default)]
    pub last_payment_error: Option<StripeError>,
    /// The newest charge: its id, or the Charge itself when asked with
    /// `expand[]=latest_charge` (card-present details for the receipt, decision 0102).
    #[serde(default)]
    pub latest_charge: Option<serde_json::Value>,
}

/// PaymentIntent status as the register sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PiStatus {
    /// Money taken (automatic capture, or captured).
    Succeeded,
    /// Authorized, waiting for capture (manual capture).
    RequiresCapture,
    Canceled,
    /// Declined / failed: requires another payment method.
    Failed,
    /// Still processing or something unexpected.
    Other,
}

impl PaymentIntent {
    pub fn pi_status(&self) -> PiStatus {
        match self.status.as_str() {
            "succeeded" => PiStatus::Succeeded,
            "requires_capture" => PiStatus::RequiresCapture,
            "canceled" => PiStatus::Canceled,
            "requires_payment_method" => PiStatus::Failed,
            _ => PiStatus::Other,
        }
    }
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct Refund {
    pub id: String,
    #[serde(default)]
    pub amount: i64,
    #[serde(default)]
    pub currency: String,
    #[serde(default)]
    pub payment_intent: Option<String>,
    #[serde(default)]
    pub status: String,
    #[serde(default)]
    pub metadata: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct Event {
    pub id: String,
    #[serde(rename = "type")]
    pub event_type: String,
    #[serde(default)]
    pub created: i64,
    #[serde(default)]
    pub data: EventData,
    #[serde(default)]
    pub request: Option<EventRequest>,
}

/// `request` of an event: the idempotency key of the API request that caused it.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
pub struct EventRequest {
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub idempotency_key: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
pub struct EventData {
    #[serde(default)]
    pub object: serde_json::Value,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct List<T> {
    #[serde(default = "Vec::new")]
    pub data: Vec<T>,
    #[serde(default)]
    pub has_more: bool,
    #[serde(default)]
    pub next_page: Option<String>,
}

/// Stripe's error envelope body `{"error": {...}}`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
pub struct StripeError {
    #[serde(rename = "type", default)]
    pub error_type: Option<String>,
    #[serde(default)]
    pub code: Option<String>,
    #[serde(default)]
    pub decline_code: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default)]
    pub param: Option<String>,
    #[serde(default)]
    pub payment_intent: Option<Box<PaymentIntent>>,
}

#[derive(Debug, Deserialize)]
struct Envelope {
    error: StripeError,
}

pub fn parse_error(body: &[u8]) -> StripeError {
    serde_json::from_slice::<Envelope>(body).map(|e| e.error).unwrap_or_else(|_| StripeError {
        message: Some(String::from_utf8_lossy(body).chars().take(300).collect()),
        ..Default::default()
    })
}

