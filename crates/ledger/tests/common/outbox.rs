//! A replay of the outbox (record 0044): folding every row in seq order must land on
//! exactly the payments and refunds the tables hold, each row must follow the previous
//! seq with no gap, and each row must change something (one row per change, not more).
use paydesk_ledger::*;
use serde_json::Value;
use std::collections::BTreeMap;

/// (method, amount, checkout key, change, superseded)
pub type TenderFacts = (String, i64, Option<String>, Option<i64>, bool);

#[derive(Debug, Default)]
pub struct OutboxShadow {
    pub last_seq: u64,
    /// checkout key -> (amount, currency, state, psp id)
    pub payments: BTreeMap<String, (i64, String, String, Option<String>)>,
    /// refund key -> (checkout key, amount, state, psp refund id)
    pub refunds: BTreeMap<String, (String, i64, String, Option<String>)>,
    /// (sale, tender seq) -> what its facts said
    pub tenders: BTreeMap<(i64, i64), TenderFacts>,
    /// shift -> (float, z number once closed)
    pub shifts: BTreeMap<i64, (i64, Option<i64>)>,
    /// paid in/out entry -> (shift, direction, amount)
    pub drawer_moves: BTreeMap<i64, (i64, String, i64)>,
    /// sale -> what its `sale_completed` said, and whether it was canceled afterwards
    pub sales: BTreeMap<i64, (SaleFacts, bool)>,
    /// the register's own items: sku -> (price, active, name_ja), the last fact's
    pub items: BTreeMap<String, (i64, bool, Option<String>)>,
    /// the register's own staff: id -> (name, role, active)
    pub staff: BTreeMap<i64, (String, String, bool)>,
    /// the register's own tax setup: (price mode, rounding), when it is its own
    pub tax: Option<(String, String)>,
    /// the last audit row sent (record 0146): (seq, hash); each next one links to it
    pub audit: Option<(u64, String)>,
}

/// (total, lines as (sku, quantity, unit price, line total))
pub type SaleFacts = (i64, Vec<(String, i64, i64, i64)>);

impl OutboxShadow {
    /// Folds the rows written since the last call; panics on a gap or a row that
    /// changes nothing.
    pub fn catch_up(&mut self, l: &Ledger, what: &str) {
        loop {
            let rows = l.sync_log().outbox_batch(self.last_seq, MAX_OUTBOX_BATCH).unwrap();
            if rows.is_empty() {
                break;
            }
            for r in rows {
                assert_eq!(r.seq, self.last_seq + 1, "{what}: outbox gap");
                self.last_seq = r.seq;
                self.fold(&serde_json::from_str(&r.fact_json).unwrap(), what);
            }
        }
        assert_eq!(l.sync_log().outbox_stats().unwrap().high_water, self.last_seq, "{what}");
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
            "tender_added" => {
                let id = (f["sale"].as_i64().unwrap(), f["tender_seq"].as_i64().unwrap());
                let t = (s("method").unwrap(), f["amount"].as_i64().unwrap(), s("checkout_key"), f["change"].as_i64(), false);
                assert!(self.tenders.insert(id, t).is_none(), "{what}: tender {id:?} added twice");
            }
            "tender_superseded" => {
                let id = (f["sale"].as_i64().unwrap(), f["tender_seq"].as_i64().unwrap());
                let t = self.tenders.get_mut(&id).unwrap_or_else(|| panic!("{what}: unknown tender {id:?} superseded"));
                assert!(!t.4, "{what}: tender {id:?} superseded twice");
                t.4 = true;
            }
            "shift_opened" => {
                let had = self.shifts.insert(f["shift"].as_i64().unwrap(), (f["float"].as_i64().unwrap(), None));
                assert!(had.is_none(), "{what}: shift opened twice");
            }
            "paid_in_out" => {
                let shift = f["shift"].as_i64().unwrap();
                assert!(self.shifts.contains_key(&shift), "{what}: drawer move in unknown shift {shift}");
                self.drawer_moves.insert(f["entry"].as_i64().unwrap(), (shift, s("direction").unwrap(), f["amount"].as_i64().unwrap()));
            }
            "shift_closed" => {
                let shift = f["shift"].as_i64().unwrap();
                let sh = self.shifts.get_mut(&shift).unwrap_or_else(|| panic!("{what}: unknown shift {shift} closed"));
                assert!(sh.1.is_none(), "{what}: shift {shift} closed twice");
                sh.1 = f["z_number"].as_i64();
            }
            "sale_completed" => {
                let sale = f["sale"].as_i64().unwrap();
                assert!(self.tenders.keys().any(|(s, _)| *s == sale), "{what}: sale {sale} completed before any tender");
                let lines = f["lines"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|l| (l["sku"].as_str().unwrap().to_string(), l["quantity"].as_i64().unwrap(), l["unit_price"].as_i64().unwrap(), l["total"].as_i64().unwrap()))
                    .collect();
                let had = self.sales.insert(sale, ((f["total"].as_i64().unwrap(), lines), false));
                assert!(had.is_none(), "{what}: sale {sale} completed twice");
            }
            "sale_canceled" => {
                let sale = f["sale"].as_i64().unwrap();
                let s = self.sales.get_mut(&sale).unwrap_or_else(|| panic!("{what}: unknown sale {sale} canceled"));
                assert!(!s.1, "{what}: sale {sale} canceled twice");
                s.1 = true;
            }
            "item_saved" => {
                self.items.insert(s("sku").unwrap(), (f["price"].as_i64().unwrap(), f["active"].as_bool().unwrap(), s("name_ja")));
            }
            "staff_saved" => {
                assert!(f.get("pin_hash").is_none() && !f.to_string().contains("argon2"), "{what}: a secret in {f}");
                self.staff.insert(f["staff"].as_i64().unwrap(), (s("name").unwrap(), s("role").unwrap(), f["active"].as_bool().unwrap()));
            }
            "tax_setup_changed" => self.tax = Some((s("price_mode").unwrap(), s("rounding").unwrap())),
            // the chain goes up row by row, each linked to the one before (record 0146)
            "audit_row" => {
                assert!(!f.to_string().contains("argon2"), "{what}: a secret in {f}");
                let seq = f["seq"].as_u64().unwrap();
                if let Some((last, hash)) = &self.audit {
                    assert_eq!((seq, s("prev_hash")), (last + 1, Some(hash.clone())), "{what}: audit row {seq} does not follow {last}");
                }
                self.audit = Some((seq, s("hash").unwrap()));
            }
            "receipt_printed" => {
                let seq = f["audit_seq"].as_u64().unwrap();
                assert!(self.audit.as_ref().is_some_and(|(last, _)| *last >= seq), "{what}: a print before its audit row {seq}");
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
        let mut st = c
            .prepare("SELECT t.cart_id, t.seq, t.kind, t.amount_minor, p.idempotency_key, t.change_minor, t.standing = 'superseded' FROM tenders t LEFT JOIN payments p ON p.id = t.payment_id")
            .unwrap();
        let tenders: BTreeMap<(i64, i64), TenderFacts> =
            st.query_map([], |r| Ok(((r.get(0)?, r.get(1)?), (r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?)))).unwrap().map(Result::unwrap).collect();
        assert_eq!(tenders, self.tenders, "{what}: tenders");
        let mut st = c.prepare("SELECT s.id, s.float_minor, z.z_number FROM shifts s LEFT JOIN z_reports z ON z.shift_id = s.id").unwrap();
        let shifts: BTreeMap<i64, (i64, Option<i64>)> = st.query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?)))).unwrap().map(Result::unwrap).collect();
        assert_eq!(shifts, self.shifts, "{what}: shifts");
        let mut st = c.prepare("SELECT id, shift_id, kind, amount_minor FROM paid_in_out").unwrap();
        let moves: BTreeMap<i64, (i64, String, i64)> = st.query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?, r.get(3)?)))).unwrap().map(Result::unwrap).collect();
        assert_eq!(moves, self.drawer_moves, "{what}: paid in and out");
        // every sale that was ever paid, once, with its lines as the cart holds them
        let mut st = c.prepare("SELECT cart_id FROM sales_sent ORDER BY cart_id").unwrap();
        let sent: Vec<i64> = st.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect();
        let mut sales = BTreeMap::new();
        for id in sent {
            let sale = l.sales().by_cart(CartId(id)).unwrap();
            let lines = sale.cart.lines.iter().map(|x| (x.sku.clone(), x.quantity, x.unit_price.amount_minor, x.line_total.amount_minor)).collect::<Vec<_>>();
            // a line's total is its net: the locked tax's, when a line discount took something off
            let lines = match &sale.cart.tax {
                Some(t) => lines.into_iter().zip(&t.lines).map(|(l, r)| (l.0, l.1, l.2, r.net)).collect(),
                None => lines,
            };
            sales.insert(id, ((sale.totals.total_minor, lines), sale.state == SaleState::Canceled));
        }
        assert_eq!(sales, self.sales, "{what}: sales");
        let paid: i64 = c.query_row("SELECT count(*) FROM carts WHERE state = 'paid' AND id NOT IN (SELECT cart_id FROM sales_sent)", [], |r| r.get(0)).unwrap();
        assert_eq!(paid, 0, "{what}: a paid sale that was never sent");
        // the register's own items, staff and tax setup, as its last facts said (record 0052)
        let mut st = c.prepare("SELECT sku FROM products WHERE published_version IS NULL").unwrap();
        let local: Vec<String> = st.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect();
        let items: BTreeMap<String, (i64, bool, Option<String>)> = local
            .into_iter()
            .map(|sku| {
                let i = l.catalog().item(&sku).unwrap().unwrap();
                (sku, (i.price_minor, i.active, i.name_ja))
            })
            .collect();
        let sent: BTreeMap<String, (i64, bool, Option<String>)> =
            self.items.iter().filter(|(k, _)| items.contains_key(*k)).map(|(k, v)| (k.clone(), v.clone())).collect();
        assert_eq!(sent, items, "{what}: local items");
        let mut st = c.prepare("SELECT id, name, role, active = 1 FROM staff WHERE published_version IS NULL").unwrap();
        let staff: BTreeMap<i64, (String, String, bool)> =
            st.query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?, r.get(3)?)))).unwrap().map(Result::unwrap).collect();
        let sent: BTreeMap<i64, (String, String, bool)> = self.staff.iter().filter(|(k, _)| staff.contains_key(*k)).map(|(k, v)| (*k, v.clone())).collect();
        assert_eq!(sent, staff, "{what}: local staff");
        let tax: Option<(String, String)> = c
            .query_row("SELECT price_mode, rounding FROM store_settings WHERE tax_published_version IS NULL", [], |r| Ok((r.get(0)?, r.get(1)?)))
            .ok();
        match (&self.tax, tax) {
            (Some(sent), Some(held)) => assert_eq!(sent, &held, "{what}: the local tax setup"),
            // never sent: still the setup a new file starts with
            (None, Some(held)) => assert_eq!(held, ("inclusive".to_string(), "down".to_string()), "{what}: a tax setup never sent"),
            (_, None) => {}
        }
    }
}
