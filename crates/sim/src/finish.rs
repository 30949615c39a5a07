//! The final pass: the storm ends and the register is left to resolve everything it
//! can, so the audit judges a settled world.

use crate::driver::Sim;
use crate::{EPOCH_MS, H};
use mock_psp::FaultConfig;
use std::time::Duration;

impl Sim {
    /// The storm ends: faults off, PSP back, every slow execution finished, locks
    /// expired; the register restarts and recovers until nothing is in flight, then
    /// restarts once more and polls events from its stored cursor, as any restarted
    /// register does. No whole-run re-read: an event the polls during the run missed
    /// stays missed, and the audit's `every_psp_event_applied` reports it.
    pub(crate) async fn finish(&mut self) {
        self.psp.set_faults(FaultConfig::none());
        self.wire.stored_500.lock().0 = 0.0;
        self.psp.clear_script();
        self.psp.set_offline(false, None);
        self.wire.psp_crash_next_post.store(false, std::sync::atomic::Ordering::SeqCst);
        // The owner has fixed the secret key, the disk has room, the cable is in.
        self.wire.wrong_key_sales.store(0, std::sync::atomic::Ordering::SeqCst);
        self.end_sale_faults();
        self.disarm();
        self.core.advance(60_000);
        // The cashier closes every reader payment first (recovery leaves one that waits
        // for a person alone, by design).
        self.finish_readers().await;
        // Up to 45 virtual minutes: a register clock skewed up to 30 min behind must still
        // reach the moment a search becomes conclusive (search_settle_ms after an attempt
        // stamped by the unskewed clock).
        for _ in 0..45 {
            let e = self.engine();
            let _ = e.recover().await;
            let ev = e.consume_events().await;
            self.count_events(ev);
            let busy = e
                .ledger_for_tests(|l| -> Result<bool, paydesk_ledger::Error> {
                    Ok(!l.payments().needing_recovery()?.is_empty()
                        || !l.payments().offline_queue()?.is_empty()
                        || !l.refunds().needing_recovery()?.is_empty())
                })
                .unwrap_or(true);
            if !busy {
                break;
            }
            self.core.advance(60_000);
        }
        // The cashier's last presses on split sales, then what they started is settled.
        self.finish_splits().await;
        let rounds = if self.cfg.split_share > 0.0 { 5 } else { 0 };
        for _ in 0..rounds {
            let e = self.engine();
            let _ = e.recover().await;
            let ev = e.consume_events().await;
            self.count_events(ev);
            self.core.advance(60_000);
        }
        // Only used if no event was ever applied (no stored cursor): then cover the run.
        self.events_lookback = Duration::from_millis((self.core.now() - EPOCH_MS + 48 * H) as u64);
        self.restart();
        self.rep.restarts -= 1; // not a crash
        let e = self.engine();
        let _ = e.recover().await;
        let ev = e.consume_events().await;
        self.count_events(ev);
    }
}

