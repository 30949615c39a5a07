//! Reading a PSP account: every PaymentIntent and refund, a page of 100 at a time with
//! Stripe's cursor, bounded by a maximum count so a run never reads without end.
use crate::error::{ApiError, ApiResult};
use serde::Deserialize;
use std::collections::HashMap;

#[derive(Debug, Clone, Deserialize)]
pub struct PspIntent {
    pub id: String,
    pub amount: i64,
    pub currency: String,
    pub status: String,
    #[serde(default)]
    pub metadata: HashMap<String, String>,
}

impl PspIntent {
    /// Money was taken or is held for this intent.
    pub fn charged(&self) -> bool {
        matches!(self.status.as_str(), "succeeded" | "requires_capture" | "processing")
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct PspRefund {
    pub id: String,
    pub amount: i64,
    pub status: String,
    #[serde(default)]
    pub payment_intent: Option<String>,
    #[serde(default)]
    pub metadata: HashMap<String, String>,
}

#[derive(Deserialize)]
struct Page<T> {
    data: Vec<T>,
    has_more: bool,
}

pub struct PspAccount<'a> {
    pub http: &'a reqwest::Client,
    pub api_base: &'a str,
    pub secret_key: &'a str,
    pub max_objects: usize,
}

impl PspAccount<'_> {
    async fn list<T: serde::de::DeserializeOwned + HasId>(&self, path: &str) -> ApiResult<Vec<T>> {
        let mut out: Vec<T> = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let mut q: Vec<(&str, String)> = vec![("limit", "100".into())];
            if let Some(a) = &after {
                q.push(("starting_after", a.clone()));
            }
            let resp = self
                .http
                .get(format!("{}{path}", self.api_base))
                .query(&q)
                .bearer_auth(self.secret_key)
                .send()
                .await
                .map_err(|e| ApiError::Psp(format!("GET {path}: {}", e.without_url())))?;
            let status = resp.status();
            if !status.is_success() {
                let body: serde_json::Value = resp.json().await.unwrap_or_default();
                let msg = body["error"]["message"].as_str().unwrap_or("no error message").to_string();
                return Err(ApiError::Psp(format!("GET {path}: {status}: {msg}")));
            }
            let page: Page<T> = resp.json().await.map_err(|e| ApiError::Psp(format!("GET {path}: unreadable page: {}", e.without_url())))?;
            after = page.data.last().map(|o| o.id().to_string());
            out.extend(page.data);
            if out.len() > self.max_objects {
                return Err(ApiError::Psp(format!("more than {} objects at {path}; raise the limit for this account", self.max_objects)));
            }
            if !page.has_more || after.is_none() {
                return Ok(out);
            }
        }
    }

    pub async fn intents(&self) -> ApiResult<Vec<PspIntent>> {
        self.list("/v1/payment_intents").await
    }

    pub async fn refunds(&self) -> ApiResult<Vec<PspRefund>> {
        self.list("/v1/refunds").await
    }
}

trait HasId {
    fn id(&self) -> &str;
}

impl HasId for PspIntent {
    fn id(&self) -> &str {
        &self.id
    }
}

impl HasId for PspRefund {
    fn id(&self) -> &str {
        &self.id
    }
}
