#![allow(dead_code)]
//! A TCP proxy in front of the back office. It can cut a connection the moment the
//! answer arrives (the request was applied, the register never hears so: a lost ack),
//! play a register being offline (every connection refused or cut), follow the back
//! office to a new address after a restart, and count the requests it carried, so a
//! test can strike while a batch is at the back office.
use parking_lot::Mutex;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

#[derive(Clone)]
struct Switches {
    upstream: Arc<Mutex<SocketAddr>>,
    drop_answers: Arc<AtomicBool>,
    offline: Arc<AtomicBool>,
    /// Chunks of requests passed on to the back office (a batch is one or two).
    carried: Arc<tokio::sync::watch::Sender<u64>>,
}

pub struct Proxy {
    addr: SocketAddr,
    sw: Switches,
    task: tokio::task::JoinHandle<()>,
}

impl Proxy {
    pub async fn start(upstream: SocketAddr) -> Proxy {
        Self::counted(upstream, Arc::new(tokio::sync::watch::Sender::new(0))).await
    }

    /// A proxy adding to a request counter shared with other proxies.
    pub async fn counted(upstream: SocketAddr, carried: Arc<tokio::sync::watch::Sender<u64>>) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let sw = Switches { upstream: Arc::new(Mutex::new(upstream)), drop_answers: Arc::default(), offline: Arc::default(), carried };
        let s = sw.clone();
        let task = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                if s.offline.load(Ordering::SeqCst) {
                    continue; // dropped: the register's connection is refused
                }
                tokio::spawn(relay(client, s.clone()));
            }
        });
        Proxy { addr, sw, task }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn drop_answers(&self, on: bool) {
        self.sw.drop_answers.store(on, Ordering::SeqCst);
    }

    /// Offline: new connections are dropped and open ones cut at their next byte.
    pub fn set_offline(&self, on: bool) {
        self.sw.offline.store(on, Ordering::SeqCst);
    }

    pub fn is_offline(&self) -> bool {
        self.sw.offline.load(Ordering::SeqCst)
    }

    /// Where new connections go (the back office restarted on another port).
    pub fn set_upstream(&self, upstream: SocketAddr) {
        *self.sw.upstream.lock() = upstream;
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn relay(client: TcpStream, sw: Switches) {
    let upstream = *sw.upstream.lock();
    let Ok(up) = TcpStream::connect(upstream).await else { return };
    let (mut cr, mut cw) = client.into_split();
    let (mut ur, mut uw) = up.into_split();
    let s = sw.clone();
    let up_task = tokio::spawn(async move {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match cr.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if s.offline.load(Ordering::SeqCst) || uw.write_all(&buf[..n]).await.is_err() {
                        break;
                    }
                    s.carried.send_modify(|c| *c += 1);
                }
            }
        }
    });
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match ur.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if sw.drop_answers.load(Ordering::SeqCst) || sw.offline.load(Ordering::SeqCst) {
                    break; // the answer exists: cut the register off without it
                }
                if cw.write_all(&buf[..n]).await.is_err() {
                    break;
                }
            }
        }
    }
    up_task.abort();
}
