//! `paydesk-cli sync pair URL | run [--once] | status` (record 0045), and a
//! replacement register's `sync restore --from <name or id>` / `sync restored` (design
//! record 0048, `sync_restore.rs`). The pairing code is
//! read from stdin, never argv; the token is kept in `sync.token` (0600) beside the
//! ledger, the pairing and the last settings copy in `sync.json`.
use crate::outcome::{fail, open_ledger};
use clap::Subcommand;
use paydesk_sync::store::{SyncState, TokenFile};
use paydesk_sync::{Backoff, SyncLoop};
use serde_json::json;
use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

const APP_VERSION: &str = env!("CARGO_PKG_VERSION");
/// Longest line read from stdin for the pairing code.
const MAX_CODE_LINE: usize = 100;

#[derive(Subcommand, Debug)]
pub(crate) enum SyncCmd {
    /// Pair this register with a back office; the one-time code is read from stdin.
    Pair {
        /// The back office, e.g. http://127.0.0.1:8800
        url: String,
    },
    /// Send the outbox and pull the store's settings: one round, or until SIGINT/SIGTERM.
    Run {
        #[arg(long)]
        once: bool,
        /// Wait between rounds when the last one went well.
        #[arg(long, default_value = "5s", value_parser = crate::parse::parse_duration)]
        interval: Duration,
    },
    /// Pairing, outbox and last sync as one JSON object.
    Status,
    /// Pull a replaced register's history (read-only) from the back office.
    Restore {
        /// The replaced register of this store: its id, or its name.
        #[arg(long)]
        from: String,
        /// Rows asked for per page (1 to 500).
        #[arg(long, default_value_t = default_page_rows(), value_parser = clap::value_parser!(u16).range(1..=500))]
        page_rows: u16,
    },
    /// The restored history: the predecessors, or one predecessor's rows (`--from`).
    Restored {
        /// A predecessor's id (as `sync restored` lists it).
        #[arg(long)]
        from: Option<String>,
        #[arg(long, default_value_t = 0)]
        after: u64,
        /// Rows printed (1 to 500).
        #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u16).range(1..=500))]
        limit: u16,
    },
}

const fn default_page_rows() -> u16 {
    paydesk_ledger::MAX_RESTORED_PAGE as u16
}

pub(crate) fn data_dir(db: &str) -> PathBuf {
    let p = Path::new(db);
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

pub(crate) async fn run(db: &str, cmd: &SyncCmd) -> i32 {
    let dir = data_dir(db);
    let state_path = SyncState::path_in(&dir);
    match cmd {
        SyncCmd::Pair { url } => pair(db, &dir, &state_path, url).await,
        SyncCmd::Run { once, interval } => run_loop(db, &dir, &state_path, *once, *interval).await,
        SyncCmd::Status => status(db, &state_path),
        SyncCmd::Restore { from, page_rows } => crate::sync_restore::restore(db, &dir, &state_path, from, *page_rows as usize).await,
        SyncCmd::Restored { from, after, limit } => crate::sync_restore::restored(db, from.as_deref(), *after, *limit as usize),
    }
}

async fn pair(db: &str, dir: &Path, state_path: &Path, url: &str) -> i32 {
    let mut state = SyncState::load(state_path).unwrap_or_else(|e| fail(e.code(), &e.to_string()));
    if let Some(p) = &state.pairing {
        fail("already_paired", &format!("this register is already paired as {:?} of store {} at {}; a register pairs once", p.register_name, p.store_id, p.url));
    }
    let ledger = open_ledger(db);
    let acked = ledger.sync_log().outbox_stats().unwrap_or_else(|e| fail("ledger", &e.to_string())).acked_through;
    if acked > 0 {
        fail("already_synced", &format!("this ledger already delivered rows up to seq {acked} to a back office; a new pairing would not continue them"));
    }
    drop(ledger);
    let mut line = String::new();
    let read = std::io::stdin().lock().take(MAX_CODE_LINE as u64 + 1).read_line(&mut line);
    if read.is_err() || line.len() > MAX_CODE_LINE || line.trim().is_empty() {
        fail("invalid_input", &format!("give the pairing code on stdin (one line, at most {MAX_CODE_LINE} characters)"));
    }
    let (pairing, token) = paydesk_sync::run::pair(url, line.trim(), APP_VERSION).await.unwrap_or_else(|e| fail(e.code(), &e.to_string()));
    TokenFile::in_dir(dir).save(&token).unwrap_or_else(|e| fail(e.code(), &e.to_string()));
    state.pairing = Some(pairing.clone());
    state.save(state_path).unwrap_or_else(|e| fail(e.code(), &e.to_string()));
    out!("{}", json!({"paired": true, "url": pairing.url, "store_id": pairing.store_id, "register_id": pairing.register_id, "register_name": pairing.register_name}));
    0
}

fn make_loop(db: &str, dir: &Path, state_path: &Path) -> SyncLoop {
    let token = match TokenFile::in_dir(dir).load() {
        Ok(Some(t)) => t,
        Ok(None) => fail("not_paired", "this register is not paired: run `paydesk-cli sync pair URL` with the code on stdin"),
        Err(e) => fail(e.code(), &e.to_string()),
    };
    let l = SyncLoop::new(open_ledger(db), state_path, token, APP_VERSION).unwrap_or_else(|e| fail(e.code(), &e.to_string()));
    if std::env::var("PAYDESK_CRASH_AT").as_deref() == Ok("sync_after_send") {
        return l.with_probe(Box::new(|point| {
            if point == "sync_after_send" {
                // SAFETY: kill(2) on our own pid; no memory is touched.
                unsafe { libc::kill(libc::getpid(), libc::SIGKILL) };
            }
        }));
    }
    l
}

async fn run_loop(db: &str, dir: &Path, state_path: &Path, once: bool, interval: Duration) -> i32 {
    let mut sync = make_loop(db, dir, state_path);
    if once {
        return match sync.round().await {
            Ok(r) => {
                out!("{}", json!({"round": r, "status": *sync.status().lock()}));
                0
            }
            Err(e) => fail(e.code(), &e.to_string()),
        };
    }
    let status = sync.status();
    let mut rounds = sync.subscribe_rounds();
    let (stop_tx, stop) = tokio::sync::watch::channel(false);
    let task = tokio::spawn(sync.run(interval, Backoff::default(), stop, Arc::new(tokio::sync::Notify::new())));
    let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
        Ok(s) => s,
        Err(e) => fail("signal", &e.to_string()),
    };
    loop {
        tokio::select! {
            r = rounds.changed() => {
                if r.is_err() { break; }
                out!("{}", json!({"status": *status.lock()}));
            }
            _ = tokio::signal::ctrl_c() => break,
            _ = term.recv() => break,
        }
    }
    let _ = stop_tx.send(true);
    let _ = task.await;
    0
}

fn status(db: &str, state_path: &Path) -> i32 {
    let state = SyncState::load(state_path).unwrap_or_else(|e| fail(e.code(), &e.to_string()));
    let ledger = open_ledger(db);
    let s = ledger.sync_log().outbox_stats().unwrap_or_else(|e| fail("ledger", &e.to_string()));
    let offline = ledger.payments().offline_queue_stats().map(|q| q.count).unwrap_or_else(|e| fail("ledger", &e.to_string()));
    out!(
        "{}",
        json!({
            "paired": state.pairing.is_some(),
            "pairing": state.pairing,
            "queued": s.queued,
            "oldest_queued_at_ms": s.oldest_at_ms,
            "high_water": s.high_water,
            "acked_through": s.acked_through,
            "offline_waiting": offline,
            "last_sync_ms": state.last_sync_ms,
            "settings_version": state.settings_version,
            "settings": state.settings,
            "batch_in_flight": state.in_flight.map(|f| json!({"first_seq": f.first_seq, "last_seq": f.last_seq})),
        })
    );
    0
}
