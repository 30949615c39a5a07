//! `backup now|list|verify|restore` (record 0116): copies of the ledger taken while the
//! register runs, checked, the newest N kept; a restore only into a fresh place. No PSP
//! and no engine: a copy only reads the ledger, and a restore writes a new one.

use std::path::{Path, PathBuf};

use clap::Subcommand;
use paydesk_ledger::copies as running;
use paydesk_ledger::Error;
use serde_json::json;

use crate::outcome::fail;

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
}

pub(crate) fn run(db: &str, cmd: &BackupCmd) -> i32 {
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
    }
    0
}

fn failed(e: &Error) -> ! {
    let code = match e {
        Error::CopyNotWritten { .. } => "copy_not_written",
        Error::CopyNotGood { .. } => "copy_not_good",
        Error::RestoreTargetExists { .. } => "restore_target_exists",
        Error::InvalidInput(_) => "invalid_input",
        _ => "ledger",
    };
    fail(code, &e.to_string())
}
