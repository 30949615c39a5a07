//! Violations planted during the run, for the tests of the checks made during the run
//! (`audit::MidCheck`): those judge the engine's answer at the moment it is given, so no
//! store edit after the final pass reaches them. Each plant is one plain SQL edit of the
//! register's ledger, made once, right before the check's step reads what it changed;
//! the check must then name it. Off unless a test asks (`SimConfig::plant`).

pub use crate::config::MidRunPlant;
use crate::driver::Sim;
use paydesk_ledger::CartId;


impl Sim {
    /// True once, at the first call for the plant this run was asked for.
    fn take_plant(&mut self, p: MidRunPlant) -> bool {
        if self.cfg.plant == Some(p) && !self.planted {
            self.planted = true;
            return true;
        }
        false
    }

    fn plant_sql(&mut self, sql: &str, param: &dyn rusqlite::ToSql) {
        let n = self.engine().ledger_for_tests(|l| l.connection().execute(sql, [param])).expect("planting");
        assert!(n > 0, "the plant changed nothing: {sql}");
    }

    /// Returns the prices to put back after the check (`unplant_restart`).
    pub(crate) fn plant_restart(&mut self, cart: CartId, settled: i64) -> Vec<(i64, i64)> {
        let mut saved = Vec::new();
        if settled > 0 && self.take_plant(MidRunPlant::RestartSettledAboveTotal) {
            saved = self
                .engine()
                .ledger_for_tests(|l| {
                    let mut st = l.connection().prepare("SELECT rowid, unit_price_minor FROM cart_lines WHERE cart_id = ?1")?;
                    let rows = st.query_map([cart.0], |r| Ok((r.get(0)?, r.get(1)?)))?;
                    rows.collect::<Result<Vec<(i64, i64)>, _>>()
                })
                .expect("reading the prices to plant");
            self.plant_sql("UPDATE cart_lines SET unit_price_minor = 0 WHERE cart_id = ?1", &cart.0);
        }
        if settled > 0 && self.take_plant(MidRunPlant::RestartSaleUnreadable) {
            self.plant_sql(
                "UPDATE cart_lines SET unit_price_minor = 9223372036854775807, quantity = 2 WHERE rowid = (
                     SELECT min(rowid) FROM cart_lines WHERE cart_id = ?1)",
                &cart.0,
            );
        }
        saved
    }

    pub(crate) fn unplant_restart(&mut self, saved: Vec<(i64, i64)>) {
        for (rowid, price) in saved {
            self.engine()
                .ledger_for_tests(|l| l.connection().execute("UPDATE cart_lines SET unit_price_minor = ?1 WHERE rowid = ?2", [price, rowid]))
                .expect("putting a planted price back");
        }
    }

    pub(crate) fn plant_press_again(&mut self, key: &str) {
        if self.take_plant(MidRunPlant::PendingTenderRekeyed) {
            self.plant_sql("UPDATE payments SET idempotency_key = idempotency_key || '-planted' WHERE idempotency_key = ?1", &key);
        }
    }

    pub(crate) fn plant_cancel_paid(&mut self, cart: CartId) {
        if self.take_plant(MidRunPlant::PaidSaleReopened) {
            self.plant_sql(
                "UPDATE tenders SET standing = 'superseded', superseded_reason = 'planted' WHERE id = (
                     SELECT min(id) FROM tenders WHERE cart_id = ?1 AND standing = 'active')",
                &cart.0,
            );
        }
    }

    pub(crate) fn plant_cash_while_unknown(&mut self, key: &str) {
        if self.take_plant(MidRunPlant::UnknownTenderResolved) {
            self.plant_sql("UPDATE payments SET state = 'failed' WHERE idempotency_key = ?1", &key);
        }
    }

    /// `returned_before`: how many of the line earlier returns took.
    pub(crate) fn plant_stale_return(&mut self, cart: CartId, returned_before: u32) {
        if returned_before > 0 && self.take_plant(MidRunPlant::ReturnLinesForgotten) {
            self.plant_sql("DELETE FROM return_lines WHERE return_id IN (SELECT id FROM returns WHERE cart_id = ?1)", &cart.0);
        }
    }
}

impl Sim {
    /// The successor's restored history, before it is appended.
    pub(crate) fn plant_restored_history(&mut self, rows: &mut [paydesk_ledger::RestoredRow]) {
        if !self.take_plant(MidRunPlant::PredecessorReturnsIgnored) {
            return;
        }
        let mut n = 0;
        for r in rows.iter_mut().filter(|r| r.kind == "return_recorded") {
            let mut v: serde_json::Value = serde_json::from_str(&r.fact_json).expect("a fact");
            v["lines"] = serde_json::Value::Array(Vec::new());
            r.fact_json = v.to_string();
            n += 1;
        }
        assert!(n > 0, "the plant changed nothing: the predecessor made no return");
    }
}
