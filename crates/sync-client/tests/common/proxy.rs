//! A TCP proxy in front of the back office that can cut a connection the moment the
//! answer arrives: the request was applied, the register never hears so (a lost ack).
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

pub struct Proxy {
    addr: SocketAddr,
    drop_answers: Arc<AtomicBool>,
    task: tokio::task::JoinHandle<()>,
}

impl Proxy {
    pub async fn start(upstream: SocketAddr) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let drop_answers = Arc::new(AtomicBool::new(false));
        let d = drop_answers.clone();
        let task = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                tokio::spawn(relay(client, upstream, d.clone()));
            }
        });
        Proxy { addr, drop_answers, task }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn drop_answers(&self, on: bool) {
        self.drop_answers.store(on, Ordering::SeqCst);
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn relay(client: TcpStream, upstream: SocketAddr, drop_answers: Arc<AtomicBool>) {
    let Ok(up) = TcpStream::connect(upstream).await else { return };
    let (mut cr, mut cw) = client.into_split();
    let (mut ur, mut uw) = up.into_split();
    let up_task = tokio::spawn(async move {
        let _ = tokio::io::copy(&mut cr, &mut uw).await;
    });
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match ur.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if drop_answers.load(Ordering::SeqCst) {
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
