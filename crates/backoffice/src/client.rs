//! A register's side of the wire, for the demo feeder and the tests (the register's own
//! sync loop is `paydesk-sync`, which does not link this crate): pair, send a batch, pull changes.
use paydesk_sync_proto::{Ack, Batch, Changes, PairRequest, Paired, PROTOCOL_VERSION};
use serde_json::Value;

/// An answer that was not a success: the status and the `{error:{code,message}}` body.
#[derive(Debug, Clone)]
pub struct Refused {
    pub status: u16,
    pub body: Value,
}

impl Refused {
    pub fn code(&self) -> &str {
        self.body["error"]["code"].as_str().unwrap_or("")
    }
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.status, self.body)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("refused: {0}")]
    Refused(Refused),
    #[error("transport: {0}")]
    Transport(#[from] reqwest::Error),
}

async fn answer<T: serde::de::DeserializeOwned>(r: reqwest::Response) -> Result<T, ClientError> {
    let status = r.status().as_u16();
    if (200..300).contains(&status) {
        return Ok(r.json().await?);
    }
    let body = r.json().await.unwrap_or(Value::Null);
    Err(ClientError::Refused(Refused { status, body }))
}

/// A paired register talking to one back office.
#[derive(Debug, Clone)]
pub struct RegisterClient {
    pub base: String,
    pub paired: Paired,
    http: reqwest::Client,
}

impl RegisterClient {
    pub async fn pair(base: &str, code: &str, app_version: &str) -> Result<RegisterClient, ClientError> {
        let http = reqwest::Client::new();
        let req = PairRequest { v: PROTOCOL_VERSION, pairing_code: code.into(), app_version: app_version.into() };
        let paired: Paired = answer(http.post(format!("{base}/v1/pair")).json(&req).send().await?).await?;
        Ok(RegisterClient { base: base.into(), paired, http })
    }

    pub async fn send(&self, batch: &Batch, idempotency_key: &str) -> Result<Ack, ClientError> {
        let r = self
            .http
            .post(format!("{}/v1/sync/batches", self.base))
            .bearer_auth(&self.paired.token)
            .header("Idempotency-Key", idempotency_key)
            .json(batch)
            .send()
            .await?;
        answer(r).await
    }

    /// A GET of the register API with this register's token (restore's endpoints).
    pub async fn get(&self, path: &str, query: &[(&str, &str)]) -> Result<Value, ClientError> {
        answer(self.http.get(format!("{}{path}", self.base)).query(query).bearer_auth(&self.paired.token).send().await?).await
    }

    pub async fn changes(&self, since: u64) -> Result<Changes, ClientError> {
        let r = self.http.get(format!("{}/v1/sync/changes", self.base)).query(&[("since", since)]).bearer_auth(&self.paired.token).send().await?;
        answer(r).await
    }
}

/// The owner's side, for the demo feeder and the tests.
#[derive(Debug, Clone)]
pub struct OwnerClient {
    pub base: String,
    token: String,
    http: reqwest::Client,
}

impl OwnerClient {
    pub fn new(base: &str, token: &str) -> OwnerClient {
        OwnerClient { base: base.into(), token: token.into(), http: reqwest::Client::new() }
    }

    pub async fn post(&self, path: &str, body: &Value) -> Result<Value, ClientError> {
        answer(self.http.post(format!("{}{path}", self.base)).bearer_auth(&self.token).json(body).send().await?).await
    }

    pub async fn put(&self, path: &str, body: &Value) -> Result<Value, ClientError> {
        answer(self.http.put(format!("{}{path}", self.base)).bearer_auth(&self.token).json(body).send().await?).await
    }

    pub async fn get(&self, path: &str) -> Result<Value, ClientError> {
        answer(self.http.get(format!("{}{path}", self.base)).bearer_auth(&self.token).send().await?).await
    }

    /// A new store; its id.
    pub async fn create_store(&self, name: &str) -> Result<String, ClientError> {
        let v = self.post("/admin/stores", &serde_json::json!({"name": name})).await?;
        Ok(v["store_id"].as_str().unwrap_or_default().to_string())
    }

    /// A one-time pairing code for a register of `store`.
    pub async fn pairing_code(&self, store: &str, register_name: &str) -> Result<String, ClientError> {
        let v = self.post(&format!("/admin/stores/{store}/pairing-codes"), &serde_json::json!({"register_name": register_name})).await?;
        Ok(v["pairing_code"].as_str().unwrap_or_default().to_string())
    }
}
