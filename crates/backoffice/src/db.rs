//! The PostgreSQL side: a bounded pool with timeouts on every session, and the embedded
//! migrations run at start (record 0041).
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use std::time::Duration;
use tokio_postgres::NoTls;

mod embedded {
    refinery::embed_migrations!("migrations");
}

/// Limits of the database side (record 0039).
#[derive(Debug, Clone)]
pub struct DbLimits {
    /// Connections in the pool; requests past it wait up to `wait`.
    pub pool_size: usize,
    /// Longest a request waits for a connection before it is answered 503.
    pub wait: Duration,
    /// PostgreSQL cancels any one statement running longer than this.
    pub statement_timeout: Duration,
    /// ... and any wait for a row lock longer than this.
    pub lock_timeout: Duration,
}

impl Default for DbLimits {
    fn default() -> Self {
        DbLimits { pool_size: 16, wait: Duration::from_secs(5), statement_timeout: Duration::from_secs(15), lock_timeout: Duration::from_secs(5) }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("bad database connection string: {0}")]
    Config(String),
    #[error("database: {0}")]
    Pg(#[from] tokio_postgres::Error),
    #[error("database pool: {0}")]
    Pool(#[from] deadpool_postgres::PoolError),
    #[error("the database is at schema version {db}, newer than this back office knows ({code}); run a newer back office")]
    NewerThanCode { db: i64, code: i64 },
    #[error("migrating the database: {0}")]
    Migrate(#[from] refinery::Error),
}

/// The newest schema version compiled into this binary.
pub fn code_schema_version() -> i64 {
    embedded::migrations::runner().get_migrations().iter().map(|m| m.version() as i64).max().unwrap_or(0)
}

/// Connects, migrates (or refuses a newer database) and returns the pool.
pub async fn open(conn: &str, limits: &DbLimits) -> Result<Pool, DbError> {
    let mut cfg: tokio_postgres::Config = conn.parse().map_err(|e: tokio_postgres::Error| DbError::Config(e.to_string()))?;
    // synchronous_commit=on whatever the server's default: an ack tells the register it
    // may delete its rows, so the batch must be in the WAL on disk before the answer (a
    // server set to `off` loses acknowledged batches when PostgreSQL is killed; the chaos
    // test saw it).
    cfg.options(format!(
        "-c synchronous_commit=on -c statement_timeout={} -c lock_timeout={} -c idle_in_transaction_session_timeout={}",
        limits.statement_timeout.as_millis(),
        limits.lock_timeout.as_millis(),
        (limits.statement_timeout * 2).as_millis()
    ));
    cfg.application_name("paydesk-backoffice");
    cfg.connect_timeout(limits.wait);
    migrate(&cfg).await?;
    let mgr = Manager::from_config(cfg, NoTls, ManagerConfig { recycling_method: RecyclingMethod::Fast });
    let pool = Pool::builder(mgr)
        .max_size(limits.pool_size)
        .wait_timeout(Some(limits.wait))
        .create_timeout(Some(limits.wait))
        .runtime(deadpool_postgres::Runtime::Tokio1)
        .build()
        .map_err(|e| DbError::Config(e.to_string()))?;
    Ok(pool)
}

/// Migrates an (empty or older) database up to schema `version` and no further: how an
/// upgrade test builds the database a back office of that version left behind.
pub async fn migrate_to(conn: &str, version: i32) -> Result<(), DbError> {
    let (mut client, c) = tokio_postgres::connect(conn, NoTls).await?;
    let task = tokio::spawn(c);
    let result = embedded::migrations::runner().set_target(refinery::Target::Version(version)).run_async(&mut client).await;
    drop(client);
    let _ = task.await;
    result.map(|_| ()).map_err(DbError::from)
}

/// Runs the embedded migrations under an advisory lock, so two back offices starting at
/// once do not both apply them. A database whose schema is newer than this code is
/// refused before anything runs: this code would misread it.
async fn migrate(cfg: &tokio_postgres::Config) -> Result<(), DbError> {
    let (mut client, conn) = cfg.connect(NoTls).await?;
    let task = tokio::spawn(conn);
    const LOCK: i64 = 0x0070_6179_6465_736b; // "paydesk"
    client.execute("SELECT pg_advisory_lock($1)", &[&LOCK]).await?;
    let result = async {
        let has_history = client.query_one("SELECT to_regclass('refinery_schema_history') IS NOT NULL", &[]).await?.get::<_, bool>(0);
        if has_history {
            let db: Option<i32> = client.query_one("SELECT max(version) FROM refinery_schema_history", &[]).await?.get(0);
            let db = db.unwrap_or(0) as i64;
            let code = code_schema_version();
            if db > code {
                return Err(DbError::NewerThanCode { db, code });
            }
        }
        embedded::migrations::runner().set_abort_divergent(true).set_abort_missing(true).run_async(&mut client).await?;
        Ok(())
    }
    .await;
    let _ = client.execute("SELECT pg_advisory_unlock($1)", &[&LOCK]).await;
    drop(client);
    let _ = task.await;
    result
}
