//! `backup now|list|verify|restore` (record 0116): copies of the ledger taken while the
//! register runs, checked, the newest N kept; a restore only into a fresh place. No PSP
//! and no engine: a copy only reads the ledger, and a restore writes a new one.
//! `backup key-new|send|remote|fetch` (record 0150): a copy sealed with the register's
//! backup key, sent to the paired back office and fetched back. The key is read from a
//! file of mode 0600 named by `--key`, never from the command line itself.

use std::path::{Path, PathBuf};

use clap::Subcommand;
use paydesk_ledger::copies as running;
use paydesk_ledger::Error;
use serde_json::json;

use crate::outcome::fail;
use paydesk_sync::backup::{transfer, BackupError, BackupKey};
use paydesk_sync::store::{SyncState, TokenFile};
use paydesk_sync::BackOffice;

#[derive(Subcommand, Debug)]
pub(crate) enum BackupCmd {
    /// Copy the ledger now (the register may keep running), check the copy, keep the newest N.
    Now {
        #[arg(long, default_value_t = running::DEFAULT_KEEP)]
        keep: usize,
    },
    /// The copies of this ledger, oldest first (those taken while running, and those kept
    /// before a schema upgrade).
    List,
    /// Check one copy: it opens, SQLite's check passes, its audit chain is intact.
    Verify {
        #[arg(long)]
        copy: PathBuf,
    },
    /// Restore a copy as the ledger `--db` names, which must not exist yet.
    Restore {
        #[arg(long)]
        copy: PathBuf,
    },
    /// Make a new backup key in a new file (mode 0600). Keep a second copy of it away from
    /// the register (the owner's safe): a replacement register needs it to open the copies.
    KeyNew {
        #[arg(long)]
        key: PathBuf,
    },
    /// Seal the newest good copy (or `--copy`) with the key and send it to the paired back office.
    Send {
        /// The backup key file (mode 0600).
        #[arg(long)]
        key: PathBuf,
        #[arg(long)]
        copy: Option<PathBuf>,
    },
    /// The copies the back office holds of this register (or of a replaced one, `--register`).
    Remote {
        #[arg(long)]
        register: Option<String>,
    },
    /// Fetch a copy from the back office, open it with the key and check it; then
    /// `backup restore --copy FILE` restores it.
    Fetch {
        #[arg(long)]
        key: PathBuf,
        /// The register whose copy (its id; default this register).
        #[arg(long)]
        register: Option<String>,
        /// Which copy (its id; default the newest).
        #[arg(long)]
        backup: Option<String>,
        /// Where the opened copy goes (must not exist).
        #[arg(long)]
        out: PathBuf,
    },
}

pub(crate) async fn run(db: &str, cmd: &BackupCmd) -> i32 {
    let ledger = Path::new(db);
    match cmd {
        BackupCmd::Now { keep } => {
            let check = running::take_now(ledger, *keep).unwrap_or_else(|e| failed(&e));
            out!("{}", json!({ "copy": check, "kept": running::list(ledger) }));
        }
        BackupCmd::List => {
            out!("{}", json!({ "running": running::list(ledger), "before_upgrade": paydesk_ledger::backup::list(ledger) }));
        }
        BackupCmd::Verify { copy } => {
            let check = running::verify(copy).unwrap_or_else(|e| failed(&e));
            out!("{}", json!({ "copy": check }));
        }
        BackupCmd::Restore { copy } => {
            let check = running::restore(copy, ledger).unwrap_or_else(|e| failed(&e));
            out!("{}", json!({ "restored": check }));
        }
        BackupCmd::KeyNew { key } => {
            let k = BackupKey::generate();
            k.save_new(key).unwrap_or_else(|e| sent_failed(&e));
            out!("{}", json!({ "key_file": key, "key_id": k.id_hex() }));
        }
        BackupCmd::Send { key, copy } => {
            let k = BackupKey::load(key).unwrap_or_else(|e| sent_failed(&e));
            let copy = match copy {
                Some(c) => c.clone(),
                None => running::list(ledger).pop().unwrap_or_else(|| fail("no_copy", "this ledger has no copy yet: take one with `backup now`")),
            };
            // checked good again before it is sealed (it may have sat on disk): the app's path too
            let bo = back_office(db);
            let sent = transfer::send_copy(&bo, &k, &copy).await.unwrap_or_else(|e| sent_failed(&e));
            out!("{}", json!({ "sent": sent }));
        }
        BackupCmd::Remote { register } => {
            let bo = back_office(db);
            let l = transfer::list(&bo, register.as_deref()).await.unwrap_or_else(|e| sent_failed(&e));
            out!("{}", json!({ "backups": l.backups }));
        }
        BackupCmd::Fetch { key, register, backup, out } => {
            let k = BackupKey::load(key).unwrap_or_else(|e| sent_failed(&e));
            let bo = back_office(db);
            let got = transfer::fetch(&bo, &k, register.as_deref(), backup.as_deref(), out).await.unwrap_or_else(|e| sent_failed(&e));
            out!("{}", json!({ "fetched": got }));
        }
    }
    0
}

/// The paired back office with this register's token.
fn back_office(db: &str) -> BackOffice {
    let dir = crate::sync::data_dir(db);
    let state = SyncState::load(&SyncState::path_in(&dir)).unwrap_or_else(|e| fail(e.code(), &e.to_string()));
    let Some(p) = state.pairing else { fail("not_paired", "this register is not paired: run `paydesk-cli sync pair URL` with the code on stdin") };
    let token = match TokenFile::in_dir(&dir).load() {
        Ok(Some(t)) => t,
        Ok(None) => fail("not_paired", "this register has no token: pair it first"),
        Err(e) => fail(e.code(), &e.to_string()),
    };
    BackOffice::new(&p.url, Some(token)).unwrap_or_else(|e| fail(e.code(), &e.to_string()))
}

fn sent_failed(e: &BackupError) -> ! {
    match e {
        BackupError::Copy(inner) => failed(inner),
        other => fail(other.code(), &other.to_string()),
    }
}

fn failed(e: &Error) -> ! {
    let code = match e {
        Error::CopyNotWritten { .. } => "copy_not_written",
        Error::CopyNotGood { .. } => "copy_not_good",
        Error::CopyTooSlow { .. } => "copy_too_slow",
        Error::RestoreTargetExists { .. } => "restore_target_exists",
        Error::InvalidInput(_) => "invalid_input",
        _ => "ledger",
    };
    fail(code, &e.to_string())
}
