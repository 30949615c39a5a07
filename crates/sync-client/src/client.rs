//! HTTP to the back office: pair, send a batch, pull changes. Every request has a
//! connect and a total timeout, so a back office that hangs costs the loop a bounded
//! wait, never the checkout anything. The token goes in the Authorization header only.
use crate::error::{Refused, SyncError};
use paydesk_sync_proto::{limits, Ack, Batch, Changes, PairRequest, Paired, RestorePage, RestoreSource, PROTOCOL_VERSION};
use serde_json::Value;
use std::time::Duration;

pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// A full batch is under 1 MiB; 30 s is ample on any link that can carry it.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// Longest back office URL accepted.
pub const MAX_URL_LEN: usize = 2000;
/// Most bytes of an answer read (the largest, a page of 500 catalog items, is about half).
const MAX_ANSWER_BYTES: usize = 1024 * 1024;

/// One back office, with this register's token once paired.
#[derive(Clone)]
pub struct BackOffice {
    base: String,
    token: Option<String>,
    http: reqwest::Client,
}

impl std::fmt::Debug for BackOffice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // never the token
        f.debug_struct("BackOffice").field("base", &self.base).field("paired", &self.token.is_some()).finish()
    }
}

/// Checks a back office URL by parsing it, with the rule the PSP URL keeps
/// (`paydesk_sync_proto::base_url`): `https://` to any host, plain `http://` only to
/// this machine (the token would otherwise cross the network in clear text), no user
/// name or password, no query or fragment, bounded.
pub fn check_url(url: &str) -> Result<String, SyncError> {
    paydesk_sync_proto::base_url::check_base_url("the back office URL", url.trim(), MAX_URL_LEN).map_err(|e| SyncError::Input(e.to_string()))
}

impl BackOffice {
    pub fn new(url: &str, token: Option<String>) -> Result<BackOffice, SyncError> {
        let base = check_url(url)?;
        let http = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .timeout(REQUEST_TIMEOUT)
            .build()
            .map_err(|e| SyncError::Unreachable(e.to_string()))?;
        Ok(BackOffice { base, token, http })
    }

    pub fn url(&self) -> &str {
        &self.base
    }

    /// Trades a one-time pairing code for this register's id and token.
    pub async fn pair(&self, code: &str, app_version: &str) -> Result<Paired, SyncError> {
        let req = PairRequest { v: PROTOCOL_VERSION, pairing_code: code.trim().to_string(), app_version: app_version.into() };
        req.validate().map_err(|e| SyncError::Input(e.to_string()))?;
        let paired: Paired = answer(self.http.post(format!("{}/v1/pair", self.base)).json(&req).send().await).await?;
        for (field, v) in [("store_id", &paired.store_id), ("register_id", &paired.register_id), ("token", &paired.token)] {
            if v.is_empty() || v.len() > limits::MAX_KEY_LEN || !v.bytes().all(|b| b.is_ascii_graphic()) {
                return Err(SyncError::BadAnswer(format!("pairing answer: {field} is not 1-{} printable ASCII characters", limits::MAX_KEY_LEN)));
            }
        }
        Ok(paired)
    }

    /// The HTTP client (record 0150's transfers use it with this back office's timeouts).
    pub(crate) fn http(&self) -> &reqwest::Client {
        &self.http
    }

    pub(crate) fn token(&self) -> Result<&str, SyncError> {
        self.token.as_deref().ok_or_else(|| SyncError::Input("this register is not paired with a back office".into()))
    }

    pub async fn send(&self, batch: &Batch, idempotency_key: &str) -> Result<Ack, SyncError> {
        let r = self.http.post(format!("{}/v1/sync/batches", self.base)).bearer_auth(self.token()?).header("Idempotency-Key", idempotency_key).json(batch).send().await;
        answer(r).await
    }

    pub async fn changes(&self, since: u64) -> Result<Changes, SyncError> {
        let kinds = paydesk_sync_proto::ChangeKind::all_list();
        let r = self
            .http
            .get(format!("{}/v1/sync/changes", self.base))
            .query(&[("since", since.to_string()), ("kinds", kinds)])
            .bearer_auth(self.token()?)
            .send()
            .await;
        let c: Changes = answer(r).await?;
        c.validate().map_err(|e| SyncError::BadAnswer(e.to_string()))?;
        Ok(c)
    }
}

impl BackOffice {
    /// The replaced register `from` (id or name) of this register's store (record 0048).
    pub async fn restore_source(&self, from: &str) -> Result<RestoreSource, SyncError> {
        let r = self.http.get(format!("{}/v1/restore/source", self.base)).query(&[("from", from)]).bearer_auth(self.token()?).send().await;
        let s: RestoreSource = answer(r).await?;
        s.validate().map_err(|e| SyncError::BadAnswer(e.to_string()))?;
        Ok(s)
    }

    /// Rows `after + 1 ..` of a replaced register's history, at most `limit`, checked to
    /// follow `after` one by one.
    pub async fn restore_page(&self, register_id: &str, after: u64, limit: usize) -> Result<RestorePage, SyncError> {
        let (a, l) = (after.to_string(), limit.to_string());
        let r = self
            .http
            .get(format!("{}/v1/restore/rows", self.base))
            .query(&[("from", register_id), ("after", a.as_str()), ("limit", l.as_str())])
            .bearer_auth(self.token()?)
            .send()
            .await;
        let p: RestorePage = answer(r).await?;
        p.validate(register_id, after, limit).map_err(|e| SyncError::BadAnswer(e.to_string()))?;
        Ok(p)
    }
}

pub(crate) async fn answer<T: serde::de::DeserializeOwned>(r: reqwest::Result<reqwest::Response>) -> Result<T, SyncError> {
    let r = r.map_err(|e| SyncError::Unreachable(without_url(&e)))?;
    let status = r.status().as_u16();
    let body = bounded_body(r, MAX_ANSWER_BYTES).await?;
    if (200..300).contains(&status) {
        return serde_json::from_slice(&body).map_err(|e| SyncError::BadAnswer(e.to_string()));
    }
    let v: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let s = |k: &str| v["error"][k].as_str().unwrap_or("").chars().take(500).collect::<String>();
    Err(SyncError::Refused(Refused { status, code: s("code"), message: s("message"), max_bytes: v["error"]["max_bytes"].as_u64() }))
}

/// The answer's body, read chunk by chunk and refused as soon as it passes `max` bytes:
/// a declared length over it is refused before reading, and a streamed (chunked) answer
/// without one is never held in memory past it.
pub(crate) async fn bounded_body(mut r: reqwest::Response, max: usize) -> Result<Vec<u8>, SyncError> {
    if r.content_length().is_some_and(|n| n > max as u64) {
        return Err(SyncError::AnswerTooLarge { max });
    }
    let mut body = Vec::with_capacity(r.content_length().map_or(0, |n| n as usize));
    while let Some(chunk) = r.chunk().await.map_err(|e| SyncError::Unreachable(without_url(&e)))? {
        if body.len() + chunk.len() > max {
            return Err(SyncError::AnswerTooLarge { max });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// reqwest's error text without the URL's query (nothing secret is in it today; the
/// habit keeps it so).
pub(crate) fn without_url(e: &reqwest::Error) -> String {
    let kind = if e.is_timeout() {
        "timed out"
    } else if e.is_connect() {
        "could not connect"
    } else {
        "request failed"
    };
    match e.url() {
        Some(u) => format!("{kind} ({}://{}{})", u.scheme(), u.host_str().unwrap_or(""), u.port().map(|p| format!(":{p}")).unwrap_or_default()),
        None => kind.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::{bounded_body, check_url};
    use crate::error::SyncError;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A server that answers one request with a chunked body that never ends, and says
    /// how many bytes the client took before it hung up.
    async fn endless_chunked() -> (String, tokio::task::JoinHandle<usize>) {
        let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", l.local_addr().unwrap());
        let h = tokio::spawn(async move {
            let (mut s, _) = l.accept().await.unwrap();
            let mut req = [0u8; 4096];
            let _ = s.read(&mut req).await.unwrap();
            s.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n").await.unwrap();
            let chunk = [b'['; 64 * 1024];
            let mut sent = 0;
            loop {
                let head = format!("{:x}\r\n", chunk.len());
                if s.write_all(head.as_bytes()).await.is_err() || s.write_all(&chunk).await.is_err() || s.write_all(b"\r\n").await.is_err() {
                    return sent;
                }
                sent += chunk.len();
                // a client that keeps reading would get gigabytes; stop the test long before
                if sent > 512 * 1024 * 1024 {
                    return sent;
                }
            }
        });
        (url, h)
    }

    #[tokio::test]
    async fn a_streamed_answer_is_cut_off_at_the_bound_with_a_typed_error() {
        let (url, server) = endless_chunked().await;
        let r = reqwest::get(&url).await.unwrap();
        let max = 1024 * 1024;
        let e = bounded_body(r, max).await.unwrap_err();
        assert!(matches!(e, SyncError::AnswerTooLarge { max: m } if m == max), "{e:?}");
        assert_eq!(e.code(), "answer_too_large");
        let sent = server.await.unwrap();
        assert!(sent < 64 * 1024 * 1024, "the client stopped reading early; the server got {sent} bytes out");
    }

    #[test]
    fn urls_are_checked() {
        assert_eq!(check_url(" http://127.0.0.1:8800/ ").unwrap(), "http://127.0.0.1:8800");
        assert!(check_url("https://bo.example.com").is_ok());
        assert_eq!(check_url("https://bo.example.com/office/").unwrap(), "https://bo.example.com/office");
        assert!(check_url("http://localhost:8800").is_ok() && check_url("http://[::1]:8800").is_ok());
        for bad in ["", "ftp://x", "127.0.0.1:8800", "http://", "http://u:p@host", "http://a b"] {
            assert!(check_url(bad).is_err(), "{bad}");
        }
        // the token never goes over plain http to another machine, however the host is spelled
        for remote in ["http://bo.example.com", "http://localhost.evil.example", "http://127.0.0.1@evil.example", "http://192.0.2.7:8800"] {
            assert!(check_url(remote).is_err(), "{remote}");
        }
        assert!(check_url(&format!("http://{}", "a".repeat(2001))).is_err());
    }
}
