//! A register for the sync tests: a real ledger file in a temp dir, paired with the real
//! back office the way the CLI pairs (`sync.json` + the 0600 token file). Each test file
//! adds its own helpers in an `impl Register` of its own.
#![allow(dead_code)] // not every test file uses every helper

use crate::support::Harness;
use paydesk_ledger::Ledger;
use paydesk_sync::store::{SyncState, TokenFile};
use paydesk_sync::SyncLoop;

pub struct Register {
    pub dir: tempfile::TempDir,
    pub ledger: Ledger,
}

impl Register {
    /// A fresh ledger, not paired.
    pub fn new() -> Register {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::open(dir.path().join("ledger.db")).unwrap();
        Register { dir, ledger }
    }

    /// A fresh ledger paired as "Till 1" of `store`.
    pub async fn paired(h: &Harness, store: &str) -> Register {
        let r = Register::new();
        r.pair(h, store).await;
        r
    }

    /// Pairs with a one-time code of `store`, as "Till 1".
    pub async fn pair(&self, h: &Harness, store: &str) {
        let code = h.owner.pairing_code(store, "Till 1").await.unwrap();
        let (pairing, token) = paydesk_sync::run::pair(&h.url, &code, "0.1.0-test").await.unwrap();
        TokenFile::in_dir(self.dir.path()).save(&token).unwrap();
        SyncState { pairing: Some(pairing), ..Default::default() }.save(&SyncState::path_in(self.dir.path())).unwrap();
    }

    /// The sync loop on a connection of its own, as the app runs it.
    pub fn sync_loop(&self) -> SyncLoop {
        let token = TokenFile::in_dir(self.dir.path()).load().unwrap().expect("paired");
        SyncLoop::new(Ledger::open(self.dir.path().join("ledger.db")).unwrap(), &SyncState::path_in(self.dir.path()), token, "0.1.0-test").unwrap()
    }
}
