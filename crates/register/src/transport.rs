//! The wire to the PSP, injected. Production: [`HttpTransport`] (reqwest over
//! real HTTP, connect timeout + per-attempt timeout). The deterministic
//! simulation plugs in an in-process transport that calls the mock PSP's
//! service directly under virtual time.

use crate::clock::BoxFuture;
use std::sync::Arc;
use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
}

/// One HTTP request to the PSP. `path` includes any query string.
#[derive(Debug, Clone)]
pub struct HttpRequest {
    pub method: Method,
    pub path: String,
    /// Form body (already in Stripe bracket notation), POST only.
    pub form: Vec<(String, String)>,
    pub idempotency_key: Option<String>,
    /// Per-attempt deadline for the whole exchange.
    pub timeout: Duration,
}

impl HttpRequest {
    pub fn encoded_body(&self) -> String {
        let mut s = form_urlencoded::Serializer::new(String::new());
        for (k, v) in &self.form {
            s.append_pair(k, v);
        }
        s.finish()
    }
}

#[derive(Debug, Clone)]
pub struct HttpResponse {
    pub status: u16,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl HttpResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers.iter().find(|(k, _)| *k == name).map(|(_, v)| v.as_str())
    }
}

/// Why an attempt got no HTTP response. The distinction that matters for money
/// is whether the request may have reached the PSP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransportError {
    /// TCP connection refused / host unreachable: the request never left.
    ConnectRefused(String),
    /// Could not connect within the connect timeout: the request never left.
    ConnectTimeout,
    /// Sent (or possibly sent) but no answer within the per-attempt timeout.
    Timeout,
    /// Connection reset / closed before a full response: possibly executed.
    Reset(String),
    /// Anything else (bad URL, TLS config…): a configuration problem.
    Other(String),
}

impl TransportError {
    /// True when the request certainly never reached the PSP.
    pub fn never_sent(&self) -> bool {
        matches!(self, TransportError::ConnectRefused(_) | TransportError::ConnectTimeout)
    }
}

impl std::fmt::Display for TransportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TransportError::ConnectRefused(m) => write!(f, "connection refused ({m})"),
            TransportError::ConnectTimeout => write!(f, "connect timed out"),
            TransportError::Timeout => write!(f, "no answer within the attempt timeout"),
            TransportError::Reset(m) => write!(f, "connection lost before the answer ({m})"),
            TransportError::Other(m) => write!(f, "transport error: {m}"),
        }
    }
}

pub trait Transport: Send + Sync + 'static {
    fn send(&self, req: HttpRequest) -> BoxFuture<'static, Result<HttpResponse, TransportError>>;
    /// Which PSP endpoint and account this transport talks to, as a stable name that
    /// holds no secret (the ledger keys the events cursor by it). `None`: one PSP only.
    fn endpoint(&self) -> Option<String> {
        None
    }
}

/// FNV-1a 64: a stable, non-reversible fingerprint of the secret key, so two merchant
/// accounts on one URL keep separate cursors without the key ever being stored.
fn fingerprint(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

pub type SharedTransport = Arc<dyn Transport>;

/// Real HTTP with reqwest (rustls). Holds base URL and secret key.
/// Called when a POST body has been fully handed to the connection (the
/// `after_send` crash point of the CLI).
pub type SendHook = Arc<dyn Fn() + Send + Sync>;

#[derive(Clone)]
pub struct HttpTransport {
    client: reqwest::Client,
    base: String,
    secret_key: String,
    after_send: Option<SendHook>,
}

impl std::fmt::Debug for HttpTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the secret key.
        f.debug_struct("HttpTransport").field("base", &self.base).finish_non_exhaustive()
    }
}

impl HttpTransport {
    pub fn new(base_url: &str, secret_key: &str, connect_timeout: Duration) -> Result<Self, TransportError> {
        let base = base_url.trim_end_matches('/').to_string();
        let parsed = reqwest::Url::parse(&base)
            .map_err(|e| TransportError::Other(format!("invalid PSP URL {base:?}: {e}")))?;
        if parsed.scheme() != "http" && parsed.scheme() != "https" {
            return Err(TransportError::Other(format!("PSP URL must be http(s): {base:?}")));
        }
        if secret_key.is_empty() {
            return Err(TransportError::Other("PSP secret key is empty".into()));
        }
        let client = reqwest::Client::builder()
            .connect_timeout(connect_timeout)
            .pool_idle_timeout(Duration::from_secs(30))
            .build()
            .map_err(|e| TransportError::Other(format!("http client: {e}")))?;
        Ok(Self { client, base, secret_key: secret_key.to_string(), after_send: None })
    }

    /// Install a hook run once a POST body has been handed to the connection.
    pub fn with_after_send_hook(mut self, hook: SendHook) -> Self {
        self.after_send = Some(hook);
        self
    }
}

/// A one-chunk request body with an exact length (so `Content-Length` is sent)
/// that runs a hook as its bytes are handed to the connection.
struct HookedBody {
    data: Option<bytes::Bytes>,
    len: u64,
    hook: Option<SendHook>,
}

impl http_body::Body for HookedBody {
    type Data = bytes::Bytes;
    type Error = std::convert::Infallible;
    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        if let Some(d) = self.data.take() {
            // The last bytes are handed to the connection now (with a known length
            // the connection may never ask again).
            if let Some(h) = self.hook.take() {
                h();
            }
            return std::task::Poll::Ready(Some(Ok(http_body::Frame::data(d))));
        }
        std::task::Poll::Ready(None)
    }
    fn is_end_stream(&self) -> bool {
        self.data.is_none() && self.hook.is_none()
    }
    fn size_hint(&self) -> http_body::SizeHint {
        http_body::SizeHint::with_exact(self.len)
    }
}

fn classify_reqwest(e: &reqwest::Error) -> TransportError {
    use std::error::Error as _;
    // Walk the source chain for io errors.
    let mut src: Option<&(dyn std::error::Error + 'static)> = e.source();
    let mut io_kind = None;
    let mut text = e.to_string();
    while let Some(s) = src {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            io_kind = Some(io.kind());
        }
        text = format!("{text}: {s}");
        src = s.source();
    }
    if e.is_connect() {
        if e.is_timeout() {
            return TransportError::ConnectTimeout;
        }
        return match io_kind {
            Some(std::io::ErrorKind::TimedOut) => TransportError::ConnectTimeout,
            _ => TransportError::ConnectRefused(text),
        };
    }
    if e.is_timeout() {
        return TransportError::Timeout;
    }
    if e.is_builder() {
        return TransportError::Other(text);
    }
    TransportError::Reset(text)
}

impl Transport for HttpTransport {
    fn endpoint(&self) -> Option<String> {
        Some(format!("{}#{:016x}", self.base, fingerprint(&self.secret_key)))
    }

    fn send(&self, req: HttpRequest) -> BoxFuture<'static, Result<HttpResponse, TransportError>> {
        let this = self.clone();
        Box::pin(async move {
            let url = format!("{}{}", this.base, req.path);
            let mut rb = match req.method {
                Method::Get => this.client.get(&url),
                Method::Post => {
                    let body = req.encoded_body();
                    let rb = this.client.post(&url).header("content-type", "application/x-www-form-urlencoded");
                    match &this.after_send {
                        None => rb.body(body),
                        Some(h) => {
                            let len = body.len() as u64;
                            rb.header("content-length", len.to_string()).body(reqwest::Body::wrap(HookedBody {
                                data: Some(bytes::Bytes::from(body)),
                                len,
                                hook: Some(h.clone()),
                            }))
                        }
                    }
                }
            };
            rb = rb.bearer_auth(&this.secret_key).timeout(req.timeout);
            if let Some(k) = &req.idempotency_key {
                rb = rb.header("Idempotency-Key", k);
            }
            let resp = rb.send().await.map_err(|e| classify_reqwest(&e))?;
            let status = resp.status().as_u16();
            let headers = resp
                .headers()
                .iter()
                .map(|(k, v)| (k.as_str().to_ascii_lowercase(), v.to_str().unwrap_or("").to_string()))
                .collect();
            let body = resp.bytes().await.map_err(|e| classify_reqwest(&e))?.to_vec();
            Ok(HttpResponse { status, headers, body })
        })
    }
}
