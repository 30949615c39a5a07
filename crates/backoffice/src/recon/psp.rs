//! Reading a PSP account: every PaymentIntent and refund, a page of 100 at a time with
//! Stripe's cursor, bounded by a maximum count so a run never reads without end. Each page
//! is reduced to what matching keeps (`matching::Charges`, `Refunds`) and dropped before
//! the next is read, so a run never holds more than one page of the PSP's JSON.
use super::matching::{ChargedStatus, Charges, Refunds};
use crate::error::{ApiError, ApiResult};
use serde::Deserialize;

/// A PaymentIntent as listed, with only the fields matching reads; serde skips the rest
/// (charges, payment method, the other metadata) without building them.
#[derive(Debug, Deserialize)]
pub struct IntentObj {
    pub id: String,
    pub amount: i64,
    pub currency: String,
    pub status: String,
    #[serde(default)]
    pub metadata: Keys,
}

#[derive(Debug, Deserialize)]
pub struct RefundObj {
    pub id: String,
    pub amount: i64,
    pub status: String,
    #[serde(default)]
    pub payment_intent: Option<String>,
    #[serde(default)]
    pub metadata: Keys,
}

/// The two metadata entries PayDesk writes; any other entry is not read.
#[derive(Debug, Default, Deserialize)]
pub struct Keys {
    pub checkout_key: Option<String>,
    pub refund_key: Option<String>,
}

impl IntentObj {
    /// Keeps the intent if money was taken or is held for it.
    pub fn keep(self, charges: &mut Charges) -> ApiResult<()> {
        match ChargedStatus::parse(&self.status) {
            Some(status) => charges.add(&self.id, self.metadata.checkout_key.as_deref(), self.amount, &self.currency, status),
            None => Ok(()),
        }
    }
}

impl RefundObj {
    /// Keeps the refund if it succeeded or may still succeed.
    pub fn keep(self, refunds: &mut Refunds) {
        if refund_counts(&self.status) {
            refunds.add(&self.id, self.metadata.refund_key.as_deref(), self.payment_intent.as_deref(), self.amount);
        }
    }
}

/// Whether a refund with this PSP status (read at the edge, here) is money the store has
/// given back or may yet: `succeeded` and `pending` are; `failed`, `canceled`,
/// `requires_action` and any word this code does not know are not.
fn refund_counts(status: &str) -> bool {
    matches!(status, "succeeded" | "pending")
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
    /// Every object at `path`, page by page into `each`; returns how many were listed.
    async fn list<T: serde::de::DeserializeOwned + HasId>(&self, path: &str, mut each: impl FnMut(T) -> ApiResult<()>) -> ApiResult<u64> {
        let mut read = 0usize;
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
            read += page.data.len();
            if read > self.max_objects {
                return Err(ApiError::Psp(format!("more than {} objects at {path}; raise the limit for this account", self.max_objects)));
            }
            for o in page.data {
                each(o)?;
            }
            if !page.has_more || after.is_none() {
                return Ok(read as u64);
            }
        }
    }

    /// Every PaymentIntent; the charged ones go into `charges`.
    pub async fn intents(&self, charges: &mut Charges) -> ApiResult<u64> {
        self.list("/v1/payment_intents", |o: IntentObj| o.keep(charges)).await
    }

    /// Every refund; the succeeded and pending ones go into `refunds`. Returns how many
    /// were listed (all statuses: what a run reports as the PSP's refunds).
    pub async fn refunds(&self, refunds: &mut Refunds) -> ApiResult<u64> {
        self.list("/v1/refunds", |o: RefundObj| {
            o.keep(refunds);
            Ok(())
        })
        .await
    }
}

trait HasId {
    fn id(&self) -> &str;
}

impl HasId for IntentObj {
    fn id(&self) -> &str {
        &self.id
    }
}

impl HasId for RefundObj {
    fn id(&self) -> &str {
        &self.id
    }
}
