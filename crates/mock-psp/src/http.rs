//! HTTP/1.1 transport over hyper: turns [`Outcome`]s into socket behaviour
//! (answer, never answer, close after commit, reset while offline), within the
//! connection limits of [`crate::conns`].
use crate::api::{Outcome, PspRequest};
use crate::conns::{self, Admitted, Expiry, Phase};
use crate::{MockPsp, MAX_BODY_BYTES};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::os::fd::AsRawFd;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Notify};

/// A server started by [`MockPsp::serve`].
pub struct RunningServer {
    addr: SocketAddr,
    psp: MockPsp,
    stop: watch::Sender<bool>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl Drop for RunningServer {
    /// Dropping without `shutdown` still stops accepting and closes connections.
    fn drop(&mut self) {
        let _ = self.stop.send(true);
    }
}

impl RunningServer {
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }
    /// `http://127.0.0.1:PORT`
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }
    pub fn psp(&self) -> &MockPsp {
        &self.psp
    }
    /// Stops accepting, closes every connection, and stops the writer after the
    /// work already queued (nothing acknowledged is lost: it was committed).
    pub async fn shutdown(mut self) {
        let _ = self.stop.send(true);
        if let Some(t) = self.task.take() {
            let _ = t.await;
        }
        let psp = self.psp.clone();
        let _ = tokio::task::spawn_blocking(move || psp.close()).await;
    }
}

fn set_linger_zero(fd: i32) {
    let l = libc::linger { l_onoff: 1, l_linger: 0 };
    unsafe {
        libc::setsockopt(fd, libc::SOL_SOCKET, libc::SO_LINGER, &l as *const _ as *const libc::c_void, std::mem::size_of::<libc::linger>() as u32);
    }
}

pub(crate) async fn serve(psp: MockPsp, addr: SocketAddr) -> std::io::Result<RunningServer> {
    let listener = TcpListener::bind(addr).await?;
    let addr = listener.local_addr()?;
    let (stop, stop_rx) = watch::channel(false);
    let p2 = psp.clone();
    let task = tokio::spawn(accept_loop(p2, listener, stop_rx.clone()));
    // Background purge of keys past retention.
    let p3 = psp.clone();
    let mut srx = stop_rx.clone();
    tokio::spawn(async move {
        loop {
            let sleep = p3.inner.clock.sleep(p3.inner.purge_interval);
            tokio::select! {
                _ = sleep => { let _ = p3.purge_expired().await; }
                _ = srx.changed() => return,
            }
        }
    });
    Ok(RunningServer { addr, psp, stop, task: Some(task) })
}

async fn accept_loop(psp: MockPsp, listener: TcpListener, mut stop: watch::Receiver<bool>) {
    let mut conns = tokio::task::JoinSet::new();
    loop {
        tokio::select! {
            r = listener.accept() => {
                let Ok((stream, _)) = r else {
                    // e.g. out of file descriptors: back off instead of spinning.
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                };
                let Some(admitted) = psp.inner.http.admit() else {
                    refuse(stream);
                    continue;
                };
                let _ = stream.set_nodelay(true);
                let psp = psp.clone();
                let stop = stop.clone();
                conns.spawn(async move { connection(psp, stream, admitted, stop).await });
            }
            _ = stop.changed() => break,
            Some(_) = conns.join_next(), if !conns.is_empty() => {}
        }
    }
    drop(listener);
    let _ = tokio::time::timeout(Duration::from_secs(3), async { while conns.join_next().await.is_some() {} }).await;
    conns.abort_all();
    while conns.join_next().await.is_some() {}
}

/// Every open connection is executing a request: answer a new one with a 503 at once
/// (a client retries later) instead of keeping it waiting. The socket's buffer is empty,
/// so the write cannot block.
fn refuse(stream: TcpStream) {
    let body = r#"{"error":{"type":"api_error","code":"server_busy","message":"Every connection is executing a request; retry shortly.","param":null}}"#;
    let head = format!("HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\nretry-after: 1\r\nconnection: close\r\n\r\n", body.len());
    let _ = stream.try_write(format!("{head}{body}").as_bytes());
    drop(stream);
}

async fn connection(psp: MockPsp, stream: TcpStream, admitted: Admitted, mut stop: watch::Receiver<bool>) {
    let fd = stream.as_raw_fd();
    let me = admitted.conn.clone();
    if psp.inner.is_offline() {
        // Offline: only the admin endpoints get through (so offline can be turned off);
        // every other connection is reset as soon as it speaks.
        let mut buf = [0u8; 16];
        let peek = tokio::time::timeout(Duration::from_secs(2), stream.peek(&mut buf)).await;
        let admin = matches!(peek, Ok(Ok(n)) if buf[..n].starts_with(b"GET /__admin") || buf[..n].starts_with(b"POST /__admin"));
        if !admin {
            psp.inner.stats.offline();
            set_linger_zero(fd);
            drop(stream);
            return;
        }
    }
    let kill = Arc::new(Notify::new());
    let k2 = kill.clone();
    let limits = psp.inner.http.limits;
    let (psp2, me2) = (psp.clone(), me.clone());
    let svc = hyper::service::service_fn(move |req: Request<Incoming>| {
        let psp = psp2.clone();
        let kill = k2.clone();
        let me = me2.clone();
        async move { Ok::<_, Infallible>(handle_http(psp, req, kill, fd, me).await) }
    });
    let conn = hyper::server::conn::http1::Builder::new()
        .keep_alive(true)
        .max_buf_size(conns::READ_BUFFER_BYTES)
        .max_header_size(conns::MAX_HEADER_BYTES)
        .max_headers(conns::MAX_HEADERS)
        .serve_connection(TokioIo::new(stream), svc);
    tokio::pin!(conn);
    // Dropping `conn` closes the socket: every early return below closes it.
    loop {
        let deadline = me.deadline(&limits);
        let changed = me.changed.notified();
        tokio::select! {
            _ = conn.as_mut() => return,
            _ = kill.notified() => return,
            _ = me.evict.notified() => return,
            _ = changed => continue,
            _ = tokio::time::sleep_until(deadline.map(|d| d.0).unwrap_or_else(far_future)), if deadline.is_some() => {
                // The phase may have changed just now: only a deadline still current closes.
                match me.deadline(&limits) {
                    Some((d, why)) if d <= tokio::time::Instant::now() => {
                        let counter = if why == Expiry::Header { &psp.inner.http.stats.header_timeouts } else { &psp.inner.http.stats.idle_timeouts };
                        counter.fetch_add(1, Relaxed);
                        return;
                    }
                    _ => continue,
                }
            }
            _ = stop.changed() => break,
        }
    }
    // Shutting down: let a request in flight finish (briefly), then close.
    conn.as_mut().graceful_shutdown();
    tokio::select! {
        _ = conn.as_mut() => {}
        _ = kill.notified() => {}
        _ = tokio::time::sleep(Duration::from_secs(2)) => {}
    }
}

fn json_response(status: u16, body: &str) -> Response<Full<Bytes>> {
    Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .header("connection", "close")
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap()
}

fn far_future() -> tokio::time::Instant {
    tokio::time::Instant::now() + Duration::from_secs(86400 * 365)
}

/// Marks the connection idle again when its request's handling ends, however it ends
/// (answered, or dropped because the client went away).
struct Served(Arc<conns::Conn>);

impl Drop for Served {
    fn drop(&mut self) {
        self.0.set_phase(Phase::Waiting);
    }
}

async fn handle_http(psp: MockPsp, req: Request<Incoming>, kill: Arc<Notify>, fd: i32, me: Arc<conns::Conn>) -> Response<Full<Bytes>> {
    me.set_phase(Phase::Reading);
    let served = Served(me);
    let body_timeout = psp.inner.http.limits.header_timeout;
    let read = tokio::time::timeout(body_timeout, read_body(&psp, req)).await;
    let (parts, buf) = match read {
        Ok(Ok(r)) => r,
        Ok(Err(resp)) => return resp,
        Err(_) => {
            psp.inner.http.stats.body_timeouts.fetch_add(1, Relaxed);
            return json_response(408, &format!(r#"{{"error":{{"type":"invalid_request_error","code":"request_timeout","message":"The request body did not arrive within {} ms of its headers.","param":null}}}}"#, body_timeout.as_millis()));
        }
    };
    served.0.set_phase(Phase::Executing);
    // Header values are handed over as text; bytes that are not UTF-8 become U+FFFD, so
    // the API can say what is wrong with them instead of treating the header as absent.
    let headers = parts.headers.iter().map(|(k, v)| (k.as_str().to_string(), String::from_utf8_lossy(v.as_bytes()).into_owned())).collect();
    let preq = PspRequest {
        method: parts.method.as_str().to_string(),
        path: parts.uri.path().to_string(),
        query: parts.uri.query().unwrap_or("").to_string(),
        headers,
        body: Bytes::from(buf),
    };
    // Until this returns, the connection counts as executing (never evicted); an
    // unanswered request (DropRequest) keeps counting so until it gives up.
    match psp.handle_detached(preq).await {
        Outcome::Respond(r) => {
            drop(served);
            let mut b = Response::builder().status(r.status);
            for (k, v) in &r.headers {
                // A header the API built from request text is never allowed to make the
                // answer unbuildable; such a header is left out.
                if let (Ok(k), Ok(v)) = (hyper::header::HeaderName::from_bytes(k.as_bytes()), hyper::header::HeaderValue::from_str(v)) {
                    b = b.header(k, v);
                }
            }
            b.body(Full::new(r.body)).unwrap_or_else(|_| json_response(500, r#"{"error":{"type":"api_error","code":"internal_error","message":"The answer could not be encoded.","param":null}}"#))
        }
        Outcome::DropResponse(_) => {
            kill.notify_one();
            std::future::pending().await
        }
        Outcome::Offline => {
            set_linger_zero(fd);
            kill.notify_one();
            std::future::pending().await
        }
        Outcome::DropRequest => {
            // Never answer; the connection closes when the client gives up, on
            // shutdown, or after ten minutes.
            tokio::time::sleep(Duration::from_secs(600)).await;
            kill.notify_one();
            std::future::pending().await
        }
    }
}

/// Reads the body with a bound; past it, drains (up to 16 MiB) so the client can read
/// the 413, and stores nothing.
async fn read_body(psp: &MockPsp, req: Request<Incoming>) -> Result<(hyper::http::request::Parts, Vec<u8>), Response<Full<Bytes>>> {
    let (parts, mut body) = req.into_parts();
    let mut buf: Vec<u8> = Vec::new();
    let mut total = 0usize;
    let mut too_large = parts
        .headers
        .get("content-length")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok())
        .is_some_and(|n| n > MAX_BODY_BYTES);
    while let Some(frame) = body.frame().await {
        let Ok(frame) = frame else {
            return Err(json_response(400, r#"{"error":{"type":"invalid_request_error","code":"body_unreadable","message":"The request body could not be read.","param":null}}"#));
        };
        if let Ok(data) = frame.into_data() {
            total += data.len();
            if total > MAX_BODY_BYTES {
                too_large = true;
            }
            if !too_large {
                buf.extend_from_slice(&data);
            }
            if total > 16 * 1024 * 1024 {
                break;
            }
        }
    }
    if too_large {
        psp.inner.stats.rejected.fetch_add(1, Relaxed);
        return Err(json_response(413, &format!(r#"{{"error":{{"type":"invalid_request_error","code":"request_too_large","message":"Request bodies are limited to {MAX_BODY_BYTES} bytes.","param":null}}}}"#)));
    }
    Ok((parts, buf))
}
