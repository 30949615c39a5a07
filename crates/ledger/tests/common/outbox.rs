//! A replay of the outbox (design §9.11): folding every row in seq order must land on
//! exactly the payments and refunds the tables hold, each row must follow the previous
//! seq with no gap, and each row must change something (one row per change, not more).
use paydesk_ledger::*;
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Debug, Default)]
pub struct OutboxShadow {
    pub last_seq: u64,
    /// checkout key -> (amount, currency, state, psp id)
    pub payments: BTreeMap<String, (i64, String, String, Option<String>)>,
    /// refund key -> (checkout key, amount, state, psp refund id)
    pub refunds: BTreeMap<String, (String, i64, String, Option<String>)>,
}

impl OutboxShadow {
    /// Folds the rows written since the last call; panics on a gap or a row that
    /// changes nothing.
    pub fn catch_up(&mut self, l: &Ledger, what: &str) {
        loop {
            let rows = l.outbox_batch(self.last_seq, MAX_OUTBOX_BATCH).unwrap();
            if rows.is_empty() {
                break;
            }
            for r in rows {
                assert_eq!(r.seq, self.last_seq + 1, "{what}: outbox gap");
                self.last_seq = r.seq;
                self.fold(&serde_json::from_str(&r.fact_json).unwrap(), what);
            }
        }
        assert_eq!(l.outbox_stats().unwrap().high_water, self.last_seq, "{what}");
    }

    fn fold(&mut self, f: &Value, what: &str) {
        let s = |k: &str| f[k].as_str().map(str::to_string);
        match f["kind"].as_str().unwrap() {
            "payment_created" => {
                let key = s("checkout_key").unwrap();
                let had = self.payments.insert(key.clone(), (f["amount"].as_i64().unwrap(), s("currency").unwrap(), "created".into(), None));
                assert!(had.is_none(), "{what}: payment {key} created twice");
            }
            "payment_state" => {
                let key = s("checkout_key").unwrap();
                let p = self.payments.get_mut(&key).unwrap_or_else(|| panic!("{what}: state of unknown payment {key}"));
                let next = (s("state").unwrap(), s("psp_id"));
                assert_ne!((p.2.clone(), p.3.clone()), next, "{what}: a row that changes nothing for {key}");
                (p.2, p.3) = next;
            }
            "refund_created" => {
                let key = s("refund_key").unwrap();
                let pay = s("checkout_key").unwrap();
                assert!(self.payments.contains_key(&pay), "{what}: refund of unknown payment {pay}");
                let had = self.refunds.insert(key.clone(), (pay, f["amount"].as_i64().unwrap(), "pending".into(), None));
                assert!(had.is_none(), "{what}: refund {key} created twice");
            }
            "refund_state" => {
                let key = s("refund_key").unwrap();
                let r = self.refunds.get_mut(&key).unwrap_or_else(|| panic!("{what}: state of unknown refund {key}"));
                let next = (s("state").unwrap(), s("psp_refund_id"));
                assert_ne!((r.2.clone(), r.3.clone()), next, "{what}: a row that changes nothing for {key}");
                (r.2, r.3) = next;
            }
            other => panic!("{what}: unknown kind {other}"),
        }
    }

    /// The replay equals the tables, row for row.
    pub fn assert_matches(&self, l: &Ledger, what: &str) {
        let c = l.connection();
        let mut st = c.prepare("SELECT idempotency_key, amount_minor, currency, state, psp_payment_id FROM payments").unwrap();
        let payments: BTreeMap<String, (i64, String, String, Option<String>)> =
            st.query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))).unwrap().map(Result::unwrap).collect();
        assert_eq!(payments, self.payments, "{what}: payments");
        let mut st = c
            .prepare("SELECT r.idempotency_key, p.idempotency_key, r.amount_minor, r.state, r.psp_refund_id FROM refunds r JOIN payments p ON p.id = r.payment_id")
            .unwrap();
        let refunds: BTreeMap<String, (String, i64, String, Option<String>)> =
            st.query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))).unwrap().map(Result::unwrap).collect();
        assert_eq!(refunds, self.refunds, "{what}: refunds");
    }
}
