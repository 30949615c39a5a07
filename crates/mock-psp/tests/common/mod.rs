#![allow(dead_code)]
//! Test helpers: a real server on a loopback port (library) and a real HTTP client.
use mock_psp::{MockPspBuilder, RunningServer};
use serde_json::Value;
use std::time::Duration;

pub const SK_A: &str = "sk_test_a";
pub const SK_B: &str = "sk_test_b";

pub struct Psp {
    pub server: RunningServer,
    pub url: String,
    pub client: reqwest::Client,
    pub dir: tempfile::TempDir,
}

#[derive(Debug, Clone)]
pub struct Resp {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: bytes::Bytes,
}

impl Resp {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
    pub fn header(&self, k: &str) -> Option<String> {
        self.headers.get(k).map(|v| v.to_str().unwrap().to_string())
    }
    pub fn replayed(&self) -> bool {
        self.header("idempotent-replayed").as_deref() == Some("true")
    }
    pub fn err_code(&self) -> String {
        self.json()["error"]["code"].as_str().unwrap_or("").to_string()
    }
    pub fn err_type(&self) -> String {
        self.json()["error"]["type"].as_str().unwrap_or("").to_string()
    }
}

pub fn client() -> reqwest::Client {
    reqwest::Client::builder().timeout(Duration::from_secs(30)).build().unwrap()
}

/// Starts the library server on an ephemeral loopback port with a file database
/// in a temp dir (unless the builder already chose one) and accounts A and B.
pub async fn start(b: MockPspBuilder) -> Psp {
    let dir = tempfile::tempdir().unwrap();
    let psp = b.db(dir.path().join("psp.sqlite3")).secret_key(SK_A).secret_key(SK_B).seed(7).admin(true).build().unwrap();
    let server = psp.serve("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let url = server.url();
    Psp { server, url, client: client(), dir }
}

pub async fn start_default() -> Psp {
    start(mock_psp::MockPsp::builder()).await
}

impl Psp {
    pub async fn post(&self, sk: &str, path: &str, key: Option<&str>, params: &[(&str, &str)]) -> Resp {
        let mut r = self.client.post(format!("{}{}", self.url, path)).bearer_auth(sk).form(params);
        if let Some(k) = key {
            r = r.header("Idempotency-Key", k);
        }
        into(r.send().await.expect("request failed")).await
    }
    pub async fn post_raw(&self, sk: Option<&str>, path: &str, key: Option<&str>, body: Vec<u8>) -> Resp {
        let mut r = self.client.post(format!("{}{}", self.url, path)).header("content-type", "application/x-www-form-urlencoded").body(body);
        if let Some(sk) = sk {
            r = r.bearer_auth(sk);
        }
        if let Some(k) = key {
            r = r.header("Idempotency-Key", k);
        }
        into(r.send().await.expect("request failed")).await
    }
    pub async fn get(&self, sk: &str, path: &str) -> Resp {
        into(self.client.get(format!("{}{}", self.url, path)).bearer_auth(sk).send().await.expect("request failed")).await
    }
    pub async fn admin_post(&self, path: &str, params: &[(&str, &str)]) -> Resp {
        into(self.client.post(format!("{}{}", self.url, path)).form(params).send().await.unwrap()).await
    }
    pub async fn stats(&self) -> Value {
        into(self.client.get(format!("{}/__admin/stats", self.url)).send().await.unwrap()).await.json()
    }
    pub async fn create_pi(&self, sk: &str, key: &str, amount: &str, pm: &str, extra: &[(&str, &str)]) -> Resp {
        let mut p = vec![("amount", amount), ("currency", "usd"), ("payment_method", pm), ("confirm", "true")];
        p.extend_from_slice(extra);
        self.post(sk, "/v1/payment_intents", Some(key), &p).await
    }
    /// All payment intents of an account (walks the list).
    pub async fn all_pis(&self, sk: &str) -> Vec<Value> {
        let mut out = vec![];
        let mut after: Option<String> = None;
        loop {
            let q = match &after {
                Some(a) => format!("/v1/payment_intents?limit=100&starting_after={a}"),
                None => "/v1/payment_intents?limit=100".into(),
            };
            let r = self.get(sk, &q).await;
            assert_eq!(r.status, 200, "{:?}", r.json());
            let v = r.json();
            let data = v["data"].as_array().unwrap().clone();
            after = data.last().map(|d| d["id"].as_str().unwrap().to_string());
            out.extend(data);
            if !v["has_more"].as_bool().unwrap() {
                return out;
            }
        }
    }
}

pub async fn into(r: reqwest::Response) -> Resp {
    let status = r.status().as_u16();
    let headers = r.headers().clone();
    let body = r.bytes().await.unwrap();
    Resp { status, headers, body }
}

pub fn uuid_like(i: usize) -> String {
    format!("00000000-0000-4000-8000-{:012}", i)
}
