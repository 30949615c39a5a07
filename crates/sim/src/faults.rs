//! The simulation's own faults, drawn once per sale: offline periods, clock jumps near
//! the dedup window, clock skew, periods with a wrong secret key, PSP crashes; and
//! their end once the sale is over.

use crate::driver::Sim;
use crate::H;
use rand::Rng;
use std::time::Duration;

impl Sim {
    pub(crate) fn world_events(&mut self) {
        let r = self.rates;
        if r.offline > 0.0 && self.rng.random_bool(r.offline) && !self.psp.is_offline() {
            let secs = self.rng.random_range(10..1200);
            self.psp.set_offline(true, Some(Duration::from_secs(secs)));
            self.fault("offline_period");
        }
        if r.clock_jump > 0.0 && self.rng.random_bool(r.clock_jump) && !(self.cfg.avoid_known_bugs && self.refund_open()) {
            // Right up to the dedup guard (retention 24 h - margin 1 h), either side.
            let jump = 23 * H + self.rng.random_range(-20 * 60_000..20 * 60_000);
            self.core.advance(jump);
            self.fault("clock_jump_near_window");
        }
        if r.skew > 0.0 && self.rng.random_bool(r.skew) {
            // Register clock off by up to ±30 min (inside the 1 h safety margin).
            self.core.set_skew(self.rng.random_range(-30 * 60_000..30 * 60_000));
            self.fault("clock_skew");
        }
        let wrong = self.wire.wrong_key_sales.load(std::sync::atomic::Ordering::SeqCst);
        if wrong > 0 {
            self.wire.wrong_key_sales.store(wrong - 1, std::sync::atomic::Ordering::SeqCst);
        } else if r.wrong_key > 0.0 && self.rng.random_bool(r.wrong_key) {
            let sales = self.rng.random_range(1..6);
            self.wire.wrong_key_sales.store(sales, std::sync::atomic::Ordering::SeqCst);
            self.fault("wrong_secret_key_period");
        }
        if r.psp_crash > 0.0 && self.rng.random_bool(r.psp_crash) {
            self.wire.psp_crash_next_post.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }

    /// The sale's own faults end: the disk has room again, nothing stays armed.
    pub(crate) fn end_sale_faults(&mut self) {
        self.wire.fill_disk_after_key.lock().take();
        self.wire.cable_pull_after_next_create.store(false, std::sync::atomic::Ordering::SeqCst);
        // Only when the disk-full fault turned it on: setting the pragma, even to the value it
        // has, expires every prepared statement of the connection, and SQLite then prepares
        // them all again (about 30% of sim_bench's time when it ran after every sale).
        self.engine()
            .ledger_for_tests(|l| {
                let c = l.connection();
                // Read through the statement cache: `pragma_query_value` parsed it afresh
                // after every sale (0.8% of a calm run's CPU).
                let on: bool = c.prepare_cached("PRAGMA query_only")?.query_row([], |r| r.get(0))?;
                if on {
                    c.pragma_update(None, "query_only", false)?;
                }
                Ok::<_, rusqlite::Error>(())
            })
            .expect("query_only off");
    }

    pub(crate) fn refund_open(&self) -> bool {
        self.engine().ledger_for_tests(|l| l.refunds().needing_recovery().map(|v| !v.is_empty()).unwrap_or(true))
    }

}
