//! The HTTP server under the router (record 0039): hyper, one task per connection, within
//! the limits of [`conns`]. A request's body is read here, against its deadline and the
//! size limit, before it is handed to the router; only then does it take one of the
//! `max_in_flight` permits. So clients that never finish a request (slowloris) hold a
//! connection each until their deadline, never a permit or a database connection, and
//! the registers, the dashboard and `/healthz` keep being served.
pub mod conns;

use crate::error::ApiError;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{header, HeaderValue, Request, Response};
use axum::response::IntoResponse;
use axum::Router;
use bytes::Bytes;
use conns::{Admitted, Expiry, Phase, Registry};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use paydesk_sync_proto::limits::MAX_BODY_BYTES;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Semaphore};
use tower::ServiceExt;

/// How long shutting down waits for requests in flight before closing their connections.
const DRAIN: Duration = Duration::from_secs(5);

/// Accepts until `stop` turns true, then lets requests in flight finish (briefly).
/// `in_flight` is the state's `max_in_flight` permits, handed in: the server needs nothing
/// else of the state, and the state names the server's limits, so this module does not
/// import `state` (issue #31).
pub(crate) async fn accept_loop(listener: TcpListener, router: Router, in_flight: Arc<Semaphore>, registry: Arc<Registry>, mut stop: watch::Receiver<bool>) {
    let mut tasks = tokio::task::JoinSet::new();
    loop {
        tokio::select! {
            r = listener.accept() => {
                let Ok((stream, peer)) = r else {
                    // e.g. out of file descriptors: back off instead of spinning
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                };
                let Some(admitted) = registry.admit() else {
                    refuse(stream);
                    continue;
                };
                let _ = stream.set_nodelay(true);
                let (router, in_flight, registry, stop) = (router.clone(), in_flight.clone(), registry.clone(), stop.clone());
                tasks.spawn(connection(stream, peer, router, in_flight, registry, admitted, stop));
            }
            _ = stop.changed() => break,
            Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
        }
    }
    drop(listener);
    let _ = tokio::time::timeout(DRAIN + Duration::from_secs(1), async { while tasks.join_next().await.is_some() {} }).await;
    tasks.abort_all();
    while tasks.join_next().await.is_some() {}
}

/// Every open connection is executing a request: a new one is answered 503 at once
/// rather than kept waiting. Its socket buffer is empty, so the write cannot block.
fn refuse(stream: TcpStream) {
    let body = r#"{"error":{"code":"busy","message":"the back office is busy; retry shortly"}}"#;
    let head = format!("HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\nretry-after: 1\r\nconnection: close\r\n\r\n", body.len());
    let _ = stream.try_write(format!("{head}{body}").as_bytes());
}

async fn connection(stream: TcpStream, peer: SocketAddr, router: Router, in_flight: Arc<Semaphore>, registry: Arc<Registry>, admitted: Admitted, mut stop: watch::Receiver<bool>) {
    let me = admitted.conn.clone();
    let limits = registry.limits;
    let svc = {
        let (me, registry) = (me.clone(), registry.clone());
        hyper::service::service_fn(move |req: Request<Incoming>| {
            let (router, in_flight, registry, me) = (router.clone(), in_flight.clone(), registry.clone(), me.clone());
            async move { Ok::<_, Infallible>(handle(req, peer, router, in_flight, registry, me).await) }
        })
    };
    let conn = hyper::server::conn::http1::Builder::new()
        .keep_alive(true)
        .max_buf_size(conns::READ_BUFFER_BYTES)
        .max_headers(conns::MAX_HEADERS)
        .max_header_size(conns::MAX_HEADER_BYTES)
        .serve_connection(TokioIo::new(stream), svc);
    tokio::pin!(conn);
    // Dropping `conn` closes the socket: every return below closes it.
    loop {
        let deadline = me.deadline(&limits);
        let changed = me.changed.notified();
        tokio::select! {
            _ = conn.as_mut() => return,
            _ = me.evict.notified() => return,
            _ = changed => continue,
            _ = tokio::time::sleep_until(deadline.map_or_else(far_future, |d| d.0)), if deadline.is_some() => {
                // the phase may have changed just now: only a deadline still current closes
                match me.deadline(&limits) {
                    Some((d, why)) if d <= tokio::time::Instant::now() => {
                        let counter = match why {
                            Expiry::Header => &registry.stats.header_timeouts,
                            Expiry::Idle => &registry.stats.idle_timeouts,
                        };
                        counter.fetch_add(1, Relaxed);
                        return;
                    }
                    Some(_) | None => continue,
                }
            }
            _ = stop.changed() => break,
        }
    }
    conn.as_mut().graceful_shutdown();
    let _ = tokio::time::timeout(DRAIN, conn.as_mut()).await;
}

fn far_future() -> tokio::time::Instant {
    tokio::time::Instant::now() + Duration::from_secs(86400 * 365)
}

/// Marks the connection waiting again when its request ends, however it ends (answered,
/// or dropped because the client went away).
struct Served(Arc<conns::Conn>);

impl Drop for Served {
    fn drop(&mut self) {
        self.0.set_phase(Phase::Waiting);
    }
}

/// An early answer after which the connection closes (its request was not read whole).
fn closing(e: ApiError) -> Response<Body> {
    let mut r = e.into_response();
    r.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    r
}

async fn handle(req: Request<Incoming>, peer: SocketAddr, router: Router, in_flight: Arc<Semaphore>, registry: Arc<Registry>, me: Arc<conns::Conn>) -> Response<Body> {
    me.set_phase(Phase::Reading);
    let served = Served(me);
    let timeout = registry.limits.body_timeout;
    let (parts, body) = req.into_parts();
    let declared = parts.headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    if let Some(n) = declared.filter(|n| *n > MAX_BODY_BYTES as u64) {
        return closing(ApiError::TooLarge(n, MAX_BODY_BYTES));
    }
    let bytes = match tokio::time::timeout(timeout, read_body(body)).await {
        Ok(Ok(b)) => b,
        Ok(Err(e)) => return closing(e),
        Err(_) => {
            registry.stats.body_timeouts.fetch_add(1, Relaxed);
            return closing(ApiError::BodyTimeout(timeout.as_millis() as u64));
        }
    };
    served.0.set_phase(Phase::Executing);
    // The permit only now: a request still arriving holds none.
    let Ok(_permit) = in_flight.try_acquire_owned() else {
        return ApiError::Busy.into_response();
    };
    let mut req = Request::from_parts(parts, Body::from(bytes));
    req.extensions_mut().insert(ConnectInfo(peer));
    let resp = match router.oneshot(req).await {
        Ok(r) => r,
        Err(never) => match never {},
    };
    drop(served);
    resp
}

/// The whole body, at most [`MAX_BODY_BYTES`] (413 past it).
async fn read_body(mut body: Incoming) -> Result<Bytes, ApiError> {
    let mut buf: Vec<u8> = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| ApiError::BadRequest(format!("the request body could not be read: {e}")))?;
        if let Ok(data) = frame.into_data() {
            if buf.len() + data.len() > MAX_BODY_BYTES {
                return Err(ApiError::TooLarge((buf.len() + data.len()) as u64, MAX_BODY_BYTES));
            }
            buf.extend_from_slice(&data);
        }
    }
    Ok(Bytes::from(buf))
}
