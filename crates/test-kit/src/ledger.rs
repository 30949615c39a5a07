//! A register ledger in a temp dir: a real SQLite file, deleted with the dir.

use paydesk_ledger::Ledger;
use std::path::{Path, PathBuf};

/// The file name of a test's register ledger in its dir.
const LEDGER_FILE: &str = "register.sqlite3";

/// Opens (creating it) the register ledger `dir/register.sqlite3`.
pub fn ledger_in(dir: &Path) -> Ledger {
    Ledger::open(dir.join(LEDGER_FILE)).expect("open the ledger")
}

/// A temp dir holding a register ledger (and whatever else the test keeps there).
pub struct TempLedger {
    pub dir: tempfile::TempDir,
    /// `dir/register.sqlite3`, created on the first open.
    pub path: PathBuf,
}

impl TempLedger {
    pub fn new() -> TempLedger {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join(LEDGER_FILE);
        TempLedger { dir, path }
    }
    pub fn open(&self) -> Ledger {
        ledger_in(self.dir.path())
    }
}

impl Default for TempLedger {
    fn default() -> Self {
        TempLedger::new()
    }
}
