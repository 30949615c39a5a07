//! `paydesk-backoffice serve`: the service on an existing PostgreSQL.
//! `paydesk-backoffice dev`: a private PostgreSQL cluster in a temp dir, the service and
//! a demo store with two registers (what `make backoffice` runs).
use clap::{Parser, Subcommand};
use paydesk_backoffice::pgcluster::{Cluster, ClusterOptions};
use paydesk_backoffice::state::{now_ms, BackupLimits, Limits};
use paydesk_backoffice::{build, client::OwnerClient, demo, serve, Config};
use std::io::Write;
use std::net::SocketAddr;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;

#[derive(Parser)]
#[command(name = "paydesk-backoffice", about = "PayDesk back office: sync, reconciliation, dashboard")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Serve on an existing PostgreSQL database.
    Serve {
        #[arg(long, default_value = "127.0.0.1:8800")]
        addr: SocketAddr,
        /// Connection string ("host=/run/postgresql dbname=paydesk" or a postgres:// URL).
        #[arg(long, env = "PAYDESK_BACKOFFICE_DATABASE")]
        database: String,
        /// File holding the owner's token (one line; readable by its owner only).
        #[arg(long, env = "PAYDESK_BACKOFFICE_ADMIN_TOKEN_FILE")]
        admin_token_file: PathBuf,
        /// Connections to PostgreSQL.
        #[arg(long, default_value_t = 16)]
        pool_size: usize,
        /// Clients reach this back office over TLS (a TLS proxy in front of it, README):
        /// the owner's session cookie is marked Secure. Said here, never guessed from a
        /// proxy header a client could send.
        #[arg(long, env = "PAYDESK_BACKOFFICE_BEHIND_TLS")]
        behind_tls: bool,
        /// Seconds between two looks for refunds owed back left executing (asked the PSP
        /// again with their stored key); also the first wait after an unsure answer.
        #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=86_400))]
        owed_retry_secs: u64,
        /// Largest register copy kept, in MiB (record 0150; 1 to 65536).
        #[arg(long, default_value_t = 4096, value_parser = clap::value_parser!(u64).range(1..=65536))]
        backup_max_mib: u64,
        /// Whole copies kept per register, newest first (1 to 100).
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(i64).range(1..=100))]
        backup_keep: i64,
    },
    /// A private PostgreSQL cluster, the service and a demo store with two registers.
    Dev {
        #[arg(long, default_value = "127.0.0.1:8800")]
        addr: SocketAddr,
        /// Where to write the owner's token (created readable by you only).
        #[arg(long, default_value = "target/backoffice-admin-token")]
        admin_token_out: PathBuf,
    },
}

fn read_token(path: &PathBuf) -> Result<String, String> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if meta.permissions().mode() & 0o077 != 0 {
        return Err(format!("{} is readable by others; chmod 600 it", path.display()));
    }
    let t = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let t = t.trim().to_string();
    if t.len() < 16 || t.len() > 200 {
        return Err(format!("the token in {} must be 16 to 200 characters", path.display()));
    }
    Ok(t)
}

async fn run(cli: Cli) -> Result<(), String> {
    match cli.cmd {
        Cmd::Serve { addr, database, admin_token_file, pool_size, behind_tls, owed_retry_secs, backup_max_mib, backup_keep } => {
            let admin_token = read_token(&admin_token_file)?;
            let mut limits = Limits::default();
            limits.db.pool_size = pool_size.clamp(1, 256);
            limits.owed_retry.interval = std::time::Duration::from_secs(owed_retry_secs);
            limits.backups = BackupLimits { max_bytes: backup_max_mib * 1024 * 1024, keep: backup_keep };
            let st = build(&Config { database, admin_token, limits, behind_tls }).await.map_err(|e| e.to_string())?;
            let running = serve(st, addr).await.map_err(|e| format!("listen on {addr}: {e}"))?;
            println!("listening on {}", running.url());
            wait_for_signal().await;
            running.shutdown().await;
            Ok(())
        }
        Cmd::Dev { addr, admin_token_out } => {
            let cluster = tokio::task::spawn_blocking(|| Cluster::start(ClusterOptions::default())).await.map_err(|e| e.to_string())?.map_err(|e| e.to_string())?;
            cluster.create_db("paydesk").await.map_err(|e| e.to_string())?;
            eprintln!("PostgreSQL: {} (socket dir), log {}", cluster.socket_dir().display(), cluster.log_path().display());
            let admin_token = uuid::Uuid::new_v4().simple().to_string();
            if let Some(dir) = admin_token_out.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            }
            let _ = std::fs::remove_file(&admin_token_out);
            let mut f = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&admin_token_out).map_err(|e| format!("{}: {e}", admin_token_out.display()))?;
            writeln!(f, "{admin_token}").map_err(|e| e.to_string())?;
            let st = build(&Config { database: cluster.conn_string("paydesk"), admin_token: admin_token.clone(), limits: Limits::default(), behind_tls: false }).await.map_err(|e| e.to_string())?;
            let running = serve(st, addr).await.map_err(|e| format!("listen on {addr}: {e}"))?;
            let owner = OwnerClient::new(&running.url(), &admin_token);
            demo::feed(&owner, now_ms()).await.map_err(|e| format!("demo feeder: {e}"))?;
            println!("dashboard: {}/  (sign in with the owner's token in {})", running.url(), admin_token_out.display());
            println!("Ctrl-C stops the back office and its PostgreSQL.");
            wait_for_signal().await;
            running.shutdown().await;
            drop(cluster);
            Ok(())
        }
    }
}

async fn wait_for_signal() {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).expect("SIGTERM handler");
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
}

#[tokio::main]
async fn main() {
    tracing_subscriber::fmt().with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into())).with_writer(std::io::stderr).init();
    if let Err(e) = run(Cli::parse()).await {
        eprintln!("paydesk-backoffice: {e}");
        std::process::exit(1);
    }
}
