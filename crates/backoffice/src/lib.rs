//! PayDesk's back office (record 0037): registers pair once and sync their journal up into
//! PostgreSQL exactly once per (register, seq); they pull their store's settings down;
//! each store's PSP account is reconciled against what its registers recorded; the owner
//! watches it all on a web dashboard.
pub mod admin;
pub mod audit_search;
pub mod auth;
pub mod books_export;
mod calendar;
pub mod client;
mod clock;
mod counting;
mod csv_cell;
pub mod dashboard;
pub mod db;
pub mod demo;
pub mod error;
pub mod http;
pub mod owed;
pub mod pgcluster;
pub mod prune;
pub mod publish;
pub mod recon;
pub mod reports;
pub mod server;
pub mod session;
pub mod state;
pub mod sync;
pub mod throttle;

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
    /// Served over TLS (a TLS proxy in front of `serve`): the session cookie is `Secure`.
    pub behind_tls: bool,
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
        sign_in: throttle::Throttle::new(cfg.limits.sign_in),
        pairing: throttle::Throttle::new(cfg.limits.pairing),
        session: session::SessionPolicy { ttl: cfg.limits.session_ttl, secure: cfg.behind_tls },
    }))
}

/// A back office serving on a local address until dropped.
pub struct Running {
    pub addr: SocketAddr,
    pub state: AppState,
    /// The open connections and the HTTP side's counters.
    pub connections: Arc<server::conns::Registry>,
    stop: tokio::sync::watch::Sender<bool>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl Running {
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops accepting, lets requests in flight finish (briefly), and waits.
    pub async fn shutdown(mut self) {
        let _ = self.stop.send(true);
        if let Some(t) = self.task.take() {
            let _ = t.await;
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
    }
}

pub async fn serve(state: AppState, addr: SocketAddr) -> std::io::Result<Running> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let addr = listener.local_addr()?;
    let (stop, stop_rx) = tokio::sync::watch::channel(false);
    let app = http::router(state.clone());
    let connections = server::conns::Registry::new(state.limits.http);
    let task = tokio::spawn(server::accept_loop(listener, app, state.in_flight.clone(), connections.clone(), stop_rx.clone()));
    tokio::spawn(prune_loop(state.clone(), stop_rx.clone()));
    tokio::spawn(owed::retry::retry_loop(state.clone(), stop_rx));
    Ok(Running { addr, state, connections, stop, task: Some(task) })
}

/// Prunes the idempotency keys every `limits.prune.interval` until the server stops.
async fn prune_loop(st: AppState, mut stop: tokio::sync::watch::Receiver<bool>) {
    let policy = st.limits.prune;
    loop {
        tokio::select! {
            _ = tokio::time::sleep(policy.interval) => {}
            _ = stop.changed() => return,
        }
        let pruned = async {
            let client = st.pool.get().await?;
            prune::prune_batch_keys(&client, state::now_ms(), &policy).await
        };
        match pruned.await {
            Ok(n) => tracing::info!("pruned {n} idempotency keys"),
            Err(e) => tracing::warn!("pruning idempotency keys: {e}"),
        }
    }
}
