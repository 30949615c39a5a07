//! PayDesk's back office (design §9): registers pair once and sync their journal up into
//! PostgreSQL exactly once per (register, seq); they pull their store's settings down;
//! each store's PSP account is reconciled against what its registers recorded; the owner
//! watches it all on a web dashboard.
pub mod admin;
pub mod auth;
pub mod client;
pub mod dashboard;
pub mod db;
pub mod demo;
pub mod error;
pub mod http;
pub mod pgcluster;
pub mod recon;
pub mod state;
pub mod sync;

use state::{AppState, Inner, Limits};
use std::net::SocketAddr;
use std::sync::Arc;

/// How to run a back office (no Debug: it holds the owner's token).
#[derive(Clone)]
pub struct Config {
    /// libpq-style connection string or URL.
    pub database: String,
    /// The owner's token (admin API and dashboard).
    pub admin_token: String,
    pub limits: Limits,
}

/// Connects (migrating the database) and builds the shared state.
pub async fn build(cfg: &Config) -> Result<AppState, db::DbError> {
    let pool = db::open(&cfg.database, &cfg.limits.db).await?;
    let http = reqwest::Client::builder().timeout(std::time::Duration::from_secs(30)).build().map_err(|e| db::DbError::Config(e.to_string()))?;
    Ok(Arc::new(Inner {
        pool,
        admin: auth::AdminToken::new(&cfg.admin_token),
        limits: cfg.limits.clone(),
        http,
        in_flight: Arc::new(tokio::sync::Semaphore::new(cfg.limits.max_in_flight)),
    }))
}

/// A back office serving on a local address until dropped.
pub struct Running {
    pub addr: SocketAddr,
    pub state: AppState,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<()>,
}

impl Running {
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops accepting, lets requests in flight finish, and waits.
    pub async fn shutdown(mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        let _ = (&mut self.task).await;
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
    }
}

pub async fn serve(state: AppState, addr: SocketAddr) -> std::io::Result<Running> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let addr = listener.local_addr()?;
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let app = http::router(state.clone());
    let task = tokio::spawn(async move {
        let r = axum::serve(listener, app).with_graceful_shutdown(async move {
            let _ = rx.await;
        });
        if let Err(e) = r.await {
            tracing::error!("server: {e}");
        }
    });
    Ok(Running { addr, state, stop: Some(tx), task })
}
