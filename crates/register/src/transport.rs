//! The wire to the PSP, injected. Production: [`HttpTransport`] (reqwest over
//! real HTTP, connect timeout + per-attempt timeout, answers read up to
//! [`MAX_ANSWER_BYTES`]). The deterministic simulation plugs in an in-process
//! transport that calls the mock PSP's service directly under virtual time.
//! [`validate_psp_url`] is the one rule for a PSP base URL (CLI and app).

use crate::clock::BoxFuture;
use std::sync::Arc;
use std::time::Duration;

/// Largest PSP answer body the register reads into memory. The largest answer it asks
/// for is a list of 100 events, each carrying a full object (a real PaymentIntent with
/// its charges is up to ~10 KiB): about 1 MiB. 4 MiB leaves room for that, while an
/// endpoint that streams without end (a misconfigured proxy, a hostile server) costs
/// the register at most this much memory instead of all of it.
pub const MAX_ANSWER_BYTES: usize = 4 * 1024 * 1024;

/// Longest PSP base URL accepted (real ones are well under 100 characters).
pub const MAX_PSP_URL_LEN: usize = paydesk_sync_proto::base_url::MAX_PSP_URL_LEN;

/// Longest secret key accepted (processors issue keys of about 100 characters).
pub const MAX_PSP_KEY_LEN: usize = 200;

/// The one rule for a PSP base URL, used by [`HttpTransport::new`] and by the app's
/// settings: `https://` to any host; plain `http://` only to this machine (127.0.0.0/8,
/// `::1`, `localhost`: a local test PSP), because anywhere else the secret key would
/// cross the network in clear text. No user name or password (the key is given
/// separately), no query or fragment (every request path is appended to the base).
/// Returns the URL without trailing slashes. Errors never repeat the URL: a mistyped
/// one may hold a password.
pub fn validate_psp_url(url: &str) -> Result<String, String> {
    // One rule shared with the back office (the PSP account an owner sets there):
    // `paydesk_sync_proto::base_url`.
    paydesk_sync_proto::base_url::check_base_url("the PSP URL", url, MAX_PSP_URL_LEN).map_err(|e| e.to_string())
}

/// A secret key: printable ASCII without spaces, at most [`MAX_PSP_KEY_LEN`]. The
/// message never contains the key.
fn validate_psp_key(key: &str) -> Result<(), String> {
    if key.is_empty() {
        return Err("the PSP secret key is empty".into());
    }
    if key.len() > MAX_PSP_KEY_LEN || !key.chars().all(|c| c.is_ascii_graphic()) {
        return Err(format!(
            "the PSP secret key must be letters, digits and symbols without spaces, at most {MAX_PSP_KEY_LEN} characters"
        ));
    }
    Ok(())
}

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

#[derive(Debug, Clone, PartialEq, Eq)]
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
    /// The PSP answered (status and headers here, `body` empty) but the body is larger
    /// than [`MAX_ANSWER_BYTES`]; reading stopped there. The request was executed as
    /// far as the status says: classified like an answer whose body is unreadable.
    TooLarge(Box<HttpResponse>),
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
            TransportError::TooLarge(r) => {
                write!(f, "the answer ({}) is larger than {} bytes; not read", r.status, MAX_ANSWER_BYTES)
            }
            TransportError::Other(m) => write!(f, "{m}"),
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

/// Real HTTP with reqwest (TLS by the system's OpenSSL, record 0109). Holds base URL and secret key.
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
    /// Refuses a URL that breaks [`validate_psp_url`] and a malformed key
    /// ([`TransportError::Other`]) before anything is sent.
    pub fn new(base_url: &str, secret_key: &str, connect_timeout: Duration) -> Result<Self, TransportError> {
        let base = validate_psp_url(base_url).map_err(TransportError::Other)?;
        validate_psp_key(secret_key).map_err(TransportError::Other)?;
        let client = reqwest::Client::builder()
            .connect_timeout(connect_timeout)
            // A PSP's API never redirects. Following one would resend a payment POST
            // (its key and body) to wherever the answer points; a 3xx is instead an
            // answer that executed nothing here (record 0013).
            .redirect(reqwest::redirect::Policy::none())
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
            read_capped(resp, MAX_ANSWER_BYTES).await
        })
    }
}

/// Reads an answer chunk by chunk, giving up as soon as the body passes `cap` (or
/// announces more in `Content-Length`): memory stays bounded whatever the server sends.
async fn read_capped(mut resp: reqwest::Response, cap: usize) -> Result<HttpResponse, TransportError> {
    let status = resp.status().as_u16();
    let headers: Vec<(String, String)> = resp
        .headers()
        .iter()
        .map(|(k, v)| (k.as_str().to_ascii_lowercase(), v.to_str().unwrap_or("").to_string()))
        .collect();
    let too_large = |headers: Vec<(String, String)>| {
        Err(TransportError::TooLarge(Box::new(HttpResponse { status, headers, body: Vec::new() })))
    };
    if resp.content_length().is_some_and(|n| n > cap as u64) {
        return too_large(headers);
    }
    let mut body = Vec::new();
    while let Some(chunk) = resp.chunk().await.map_err(|e| classify_reqwest(&e))? {
        if body.len() + chunk.len() > cap {
            // Dropping `resp` closes the connection instead of draining the rest.
            return too_large(headers);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(HttpResponse { status, headers, body })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::psp::{AttemptOutcome, PaymentIntent, PspClient};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[test]
    fn https_anywhere_http_only_to_this_machine() {
        assert_eq!(validate_psp_url("https://api.example.com/").unwrap(), "https://api.example.com");
        assert_eq!(validate_psp_url("https://psp.example.com:8443/v9").unwrap(), "https://psp.example.com:8443/v9");
        for local in [
            "http://127.0.0.1:12111",
            "http://127.45.6.7",
            "http://localhost:9/x",
            "http://LOCALHOST:9",
            "http://[::1]:8080",
            "http://[0:0:0:0:0:0:0:1]",
            "http://127.1:5",
        ] {
            assert!(validate_psp_url(local).is_ok(), "{local}: {:?}", validate_psp_url(local));
        }
        for remote in [
            "http://192.0.2.10",
            "http://psp.example.com",
            "http://127.evil.example",
            "http://localhost.evil.example",
            "http://[::2]",
            "http://[::ffff:192.0.2.1]",
            "http://0.0.0.0:12111",
            "http://10.0.0.1",
        ] {
            let e = validate_psp_url(remote).unwrap_err();
            assert!(e.contains("https://") && e.contains("this machine"), "{remote}: {e}");
        }
    }

    #[test]
    fn a_url_that_is_not_one_is_refused_without_repeating_it() {
        let long = format!("https://{}.example.com", "a".repeat(MAX_PSP_URL_LEN));
        for (bad, says) in [
            ("", "empty"),
            ("api.example.com", "not a valid URL"),
            ("ftp://api.example.com", "https://"),
            ("file:///etc/passwd", "https://"),
            ("https://", "not a valid URL"),
            ("https://exa%mple.com", "not a valid URL"),
            ("https://x.com:99999", "not a valid URL"),
            ("https://api.example.com/ x", "spaces"),
            ("https://api.example.com\n", "control"),
            ("https://user:hunter2@api.example.com", "password"),
            ("https://api.example.com?x=1", "query"),
            ("https://api.example.com#frag", "fragment"),
            (long.as_str(), "longer than"),
        ] {
            let e = validate_psp_url(bad).unwrap_err();
            assert!(e.contains(says), "{bad:?}: {e}");
            assert!(!e.contains("hunter2"), "{e}");
        }
    }

    #[test]
    fn the_transport_applies_the_rule_and_checks_the_key_without_printing_it() {
        let t = Duration::from_secs(1);
        assert!(HttpTransport::new("http://127.0.0.1:12111", "sk_test_a", t).is_ok());
        let e = HttpTransport::new("http://192.0.2.10", "sk_live_x", t).unwrap_err();
        assert!(matches!(e, TransportError::Other(_)) && e.to_string().contains("192.0.2.10"), "{e}");
        let long_key = "k".repeat(MAX_PSP_KEY_LEN + 1);
        for key in ["", "sk live", "sk_live_\u{201d}", long_key.as_str()] {
            let e = HttpTransport::new("https://api.example.com", key, t).unwrap_err().to_string();
            assert!(e.contains("secret key"), "{e}");
            assert!(key.is_empty() || !e.contains(key), "{e}");
        }
    }

    /// Reads one request head (and its Content-Length body) from `s`.
    async fn read_request(s: &mut tokio::net::TcpStream) {
        let mut buf = Vec::new();
        let mut b = [0u8; 4096];
        let head_end = loop {
            let n = s.read(&mut b).await.unwrap();
            assert!(n > 0, "client closed before its request was complete");
            buf.extend_from_slice(&b[..n]);
            if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break i + 4;
            }
        };
        let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
        let len: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .map_or(0, |v| v.trim().parse().unwrap());
        while buf.len() < head_end + len {
            let n = s.read(&mut b).await.unwrap();
            assert!(n > 0);
            buf.extend_from_slice(&b[..n]);
        }
    }

    /// A server that answers one request with `head` and then a chunked body of up to
    /// `total` bytes; returns how many body bytes it could write before the client hung up.
    async fn endless_answer(head: &'static str, total: usize) -> (String, tokio::task::JoinHandle<usize>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let task = tokio::spawn(async move {
            let (mut s, _) = listener.accept().await.unwrap();
            read_request(&mut s).await;
            s.write_all(head.as_bytes()).await.unwrap();
            const CHUNK: usize = 64 * 1024;
            let frame = [format!("{CHUNK:x}\r\n").into_bytes(), vec![b' '; CHUNK], b"\r\n".to_vec()].concat();
            let mut written = 0;
            while written < total {
                if s.write_all(&frame).await.is_err() {
                    return written;
                }
                written += CHUNK;
            }
            let _ = s.write_all(b"0\r\n\r\n").await;
            written
        });
        (url, task)
    }

    #[tokio::test]
    async fn an_endless_answer_to_a_post_is_cut_at_the_cap_and_is_unknown_not_unsent() {
        // 64 MiB offered: a client reading it all would take every byte.
        const OFFERED: usize = 64 * 1024 * 1024;
        let (url, server) =
            endless_answer("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n", OFFERED).await;
        let transport = Arc::new(HttpTransport::new(&url, "sk_test_a", Duration::from_secs(2)).unwrap());
        let client = PspClient::new(transport.clone(), Duration::from_secs(30));
        let req = client.create_intent_request_from_form(vec![("amount".into(), "500".into())], "k1");
        let res = transport.send(req.clone()).await;
        match &res {
            Err(TransportError::TooLarge(r)) => assert_eq!(r.status, 200),
            Err(e) => panic!("expected TooLarge, got {e:?}"),
            Ok(r) => panic!("expected TooLarge, got a {} answer of {} bytes", r.status, r.body.len()),
        }
        let written = server.await.unwrap();
        assert!(written < OFFERED, "the client read the whole body ({written} bytes)");
        // A POST whose answer arrived but cannot be read may have executed.
        match crate::psp::classify::<PaymentIntent>(res) {
            AttemptOutcome::Unknown { status: 200, .. } => {}
            o => panic!("expected Unknown, got {o:?}"),
        }
    }

    #[tokio::test]
    async fn an_announced_oversized_answer_is_refused_before_its_body() {
        // Content-Length says 1 GiB and no byte follows: waiting for it would hang until
        // the attempt timeout; the header alone is enough to give up.
        let (url, server) = endless_answer("HTTP/1.1 200 OK\r\ncontent-length: 1073741824\r\n\r\n", 0).await;
        let transport = HttpTransport::new(&url, "sk_test_a", Duration::from_secs(2)).unwrap();
        let client = PspClient::new(Arc::new(transport.clone()), Duration::from_secs(30));
        let started = std::time::Instant::now();
        let res = transport.send(client.get_intent_request("pi_1")).await;
        assert!(matches!(&res, Err(TransportError::TooLarge(r)) if r.status == 200), "{res:?}");
        assert!(started.elapsed() < Duration::from_secs(10));
        server.await.unwrap();
    }

    #[tokio::test]
    async fn an_answer_under_the_cap_is_read_whole() {
        let (url, server) = endless_answer("HTTP/1.1 404 Not Found\r\ntransfer-encoding: chunked\r\n\r\n", 3 * 64 * 1024).await;
        let transport = HttpTransport::new(&url, "sk_test_a", Duration::from_secs(2)).unwrap();
        let client = PspClient::new(Arc::new(transport.clone()), Duration::from_secs(30));
        let r = transport.send(client.get_intent_request("pi_1")).await.unwrap();
        assert_eq!((r.status, r.body.len()), (404, 3 * 64 * 1024));
        assert_eq!(server.await.unwrap(), 3 * 64 * 1024);
    }
}
