//! Register crashes: arming one at a named crash point, running an operation so that a
//! crash restarts the register over what its ledger committed, and the start-up
//! recovery a restarted register runs (which may crash again).

use crate::config::LedgerMode;
use crate::driver::Sim;
use crate::world::CatchCrash;
use paydesk_ledger::{Ledger, SeededKeys};
use paydesk_register::CrashPoint;
use rand::Rng;

impl Sim {
    /// The register process died: drop the engine and start a new one over what the
    /// ledger committed.
    pub(crate) fn restart(&mut self) {
        *self.wire.armed_crash.lock() = None;
        *self.wire.crash_after_path.lock() = None;
        self.generation += 1;
        self.rep.restarts += 1;
        let old = self.engine.take().expect("engine");
        let ledger = match self.cfg.ledger {
            LedgerMode::Memory => {
                let blank = Ledger::open_in_memory(Box::new(SeededKeys::new(0))).expect("blank ledger");
                let l = old.ledger_for_tests(|l| std::mem::replace(l, blank));
                drop(old);
                assert!(l.connection().is_autocommit(), "a crashed register left a transaction open");
                // A restarted process opens a new connection: a full disk's refusal
                // (`disk_full`) does not outlive it.
                l.connection().pragma_update(None, "query_only", false).expect("query_only off");
                Some(l)
            }
            LedgerMode::Dir(_) => {
                drop(old);
                None
            }
        };
        let l = self.open_ledger(ledger);
        self.engine = Some(self.build_engine(l));
    }

    /// Arms a register crash (probability `p`) at one of the points the next
    /// operation can reach.
    pub(crate) fn maybe_arm_at(&mut self, p: f64, points: &[CrashPoint]) {
        if p > 0.0 && self.rng.random_bool(p.min(1.0)) {
            let point = points[self.rng.random_range(0..points.len())];
            *self.wire.armed_crash.lock() = Some(point);
        }
    }

    pub(crate) fn maybe_arm(&mut self, p: f64) {
        use CrashPoint::*;
        self.maybe_arm_at(p, &[AfterKeyCommit, AfterSend, AfterResponseBeforeCommit, AfterCommit]);
    }

    pub(crate) fn disarm(&self) {
        *self.wire.armed_crash.lock() = None;
        *self.wire.crash_after_path.lock() = None;
    }

    /// Runs one register operation; a simulated crash restarts the register and runs
    /// its start-up recovery (which may crash again, and is then restarted again).
    pub(crate) async fn op<T, F: std::future::Future<Output = T>>(&mut self, fut: F) -> Option<T> {
        let r = CatchCrash(Box::pin(fut)).await;
        self.disarm();
        match r {
            Ok(v) => Some(v),
            Err(_) => {
                self.restart();
                self.startup().await;
                None
            }
        }
    }

    /// What a register does when it starts: recovery, then an event poll. Crashes
    /// during start-up are possible too (at half the usual rate).
    pub(crate) async fn startup(&mut self) {
        for round in 0..8 {
            if round < 3 {
                self.maybe_arm_at(self.rates.register_crash / 2.0, &CrashPoint::ALL);
            }
            let e = self.engine();
            let r = CatchCrash(Box::pin(async move {
                let _ = e.recover().await;
                e.consume_events().await
            }))
            .await;
            self.disarm();
            match r {
                Ok(ev) => {
                    self.count_events(ev);
                    return;
                }
                Err(_) => self.restart(),
            }
        }
    }

}
