//! Restored sales under simulation (issue #29, records 0048, 0144 and 0153): after the
//! run the register is replaced. Its queued facts become a successor's restored history
//! (`SyncLog::outbox_as_restored`, the helper the ledger's tests use), and customers of
//! its paid sales (split card + cash, single card, with their returns and exchanges at
//! the predecessor) bring goods back at the successor: random restored returns and
//! restored exchanges, through the successor's engine, against the same mock PSP with its
//! faults back on and register crashes armed inside each one, as the run arms them
//! inside its own returns. Then the storm ends and the successor recovers.
//!
//! Runs after the main audit (the predecessor is judged as it stood when it died), and
//! only when asked (`SimConfig::restored_ops` > 0): other runs draw nothing more. Judged
//! by `audit/restored.rs`.

use crate::driver::Sim;
pub(crate) use crate::successor::{RestoredTold, Successor};
use crate::split::returns::{MAX_LINES_PER_RETURN, RETURN_REASON};
use crate::split::skus;
use crate::world::{CatchCrash, PlantedBug, SimTransport};
use mock_psp::FaultConfig;
use paydesk_domain::Currency;
use paydesk_ledger::{CartId, Ledger, NewProduct, RestoreSourceRow, SaleState, SeededKeys};
use paydesk_register::{CrashPoint, Engine, SeededRandom};
use paydesk_tax::Returned;
use rand::Rng;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The predecessor's register id as the successor knows it.
pub(crate) const SOURCE: &str = "sim-predecessor";
const EXCHANGE_REASON: &str = "customer exchanged it at the new register";

impl Sim {
    /// The successor's engine (after `restored_phase` began).
    pub(crate) fn successor(&self) -> Engine {
        self.successor.as_ref().expect("a successor").engine()
    }

    fn successor_engine(&self, ledger: Ledger, generation: u64) -> Engine {
        Engine::new(
            ledger,
            Arc::new(SimTransport(self.wire.clone())),
            Arc::new(crate::world::RegisterClock(self.core.clone())),
            Arc::new(SeededRandom::new(self.cfg.seed ^ 0x7375_6363 ^ generation)),
            crate::config::engine_config(),
        )
        .with_crash_hook(self.wire.crash_hook())
    }

    /// The register is replaced: the successor restores its history, then customers bring
    /// goods of its sales back there; finally the successor settles.
    pub(crate) async fn restored_phase(&mut self) {
        let mut history = self.predecessor_history();
        if self.cfg.plant.is_some() {
            self.plant_restored_history(&mut history);
        }
        let now = self.core.now();
        let mut b = Ledger::open_in_memory(Box::new(SeededKeys::new(self.cfg.seed ^ 0x5355_4343))).expect("successor ledger");
        b.carts_mut().seed_catalog(&successor_catalog()).expect("successor catalog");
        if self.cfg.split_share > 0.0 && self.cfg.seed.is_multiple_of(2) {
            // The same store: its cash rounding is the predecessor's.
            b.sales_mut().set_cash_rounding(Currency::Eur, 5).expect("cash rounding");
        }
        let last = history.last().map_or(0, |r| r.seq);
        let src = RestoreSourceRow {
            register_id: SOURCE.into(),
            register_name: "Replaced till".into(),
            acked_through: last,
            described_json: "{}".into(),
            restored_through: 0,
            started_at_ms: 0,
            finished_at_ms: None,
        };
        b.sync_log_mut().begin_restore(&src, now).expect("begin restore");
        for page in history.chunks(paydesk_ledger::MAX_RESTORED_PAGE) {
            b.sync_log_mut().append_restored(SOURCE, page, now).expect("restoring a page");
        }
        self.successor = Some(Successor { engine: Some(self.successor_engine(b, 0)), generation: 0, told: Vec::new(), cash_in: BTreeMap::new(), unanswered: 0 });
        // The storm is back for the successor's own work (the run's final pass ended it).
        self.psp.set_faults(self.cfg.profile.psp_faults());
        if self.cfg.bug == Some(PlantedBug::FreshRefundKeyOnRetry) {
            *self.wire.bug.lock() = self.cfg.bug;
        }
        let sales = self.restorable_sales();
        if !sales.is_empty() {
            for _ in 0..self.cfg.restored_ops {
                self.core.advance(self.rng.random_range(1_000..90_000));
                let sale = sales[self.rng.random_range(0..sales.len())];
                self.restored_one(sale).await;
            }
        }
        self.settle_successor().await;
    }

    /// Everything the predecessor queued, as the back office would hand it back.
    fn predecessor_history(&self) -> Vec<paydesk_ledger::RestoredRow> {
        let mut rows = Vec::new();
        loop {
            let after = rows.last().map_or(0, |r: &paydesk_ledger::RestoredRow| r.seq);
            let page = self.engine().ledger_for_tests(|l| l.sync_log().outbox_as_restored(after, paydesk_ledger::MAX_RESTORED_PAGE)).expect("the predecessor's queue");
            if page.is_empty() {
                return rows;
            }
            rows.extend(page);
        }
    }

    /// The predecessor's paid sales rung up as carts (split sales, single-card carts).
    /// Sales the predecessor exchanged from are in unless the run leaves them out
    /// (`SimConfig::restored_exchanged_sales`): their exchange facts name the credit per
    /// tender (record 0157), so the successor gives back only what each tender has left
    /// (before, the credit was in no fact, `restored_given_back_per_tender_within_paid`
    /// named the money given back twice, and the ledger refused them, record 0153).
    fn restorable_sales(&mut self) -> Vec<CartId> {
        let carts: Vec<CartId> = self.sales.iter().filter_map(|s| s.split.as_ref().map(|sp| sp.cart).or(s.cart_sale.as_ref().map(|c| c.cart))).collect();
        let e = self.engine();
        let exchanged: Vec<i64> = e
            .ledger_for_tests(|l| -> rusqlite::Result<Vec<i64>> {
                let mut st = l.connection().prepare("SELECT DISTINCT old_cart_id FROM exchanges")?;
                let v = st.query_map([], |r| r.get(0))?.collect();
                v
            })
            .expect("the predecessor's exchanges");
        let mut out = Vec::new();
        for c in carts {
            if !e.ledger_for_tests(|l| l.sales().by_cart(c)).is_ok_and(|s| s.state == SaleState::Paid) {
                continue;
            }
            if exchanged.contains(&c.0) {
                if !self.cfg.restored_exchanged_sales {
                    self.tally("restored_left_out_exchanged_at_the_predecessor");
                    continue;
                }
                self.tally("restored_sales_exchanged_at_the_predecessor");
            }
            out.push(c);
        }
        out
    }

    async fn restored_one(&mut self, sale: CartId) {
        let e = self.successor();
        let s = match e.restored_sale(SOURCE, sale.0) {
            Ok(s) => s,
            Err(err) => {
                self.restored_refused("restored_sale", &err);
                return;
            }
        };
        let left: Vec<u32> = s.lines.iter().zip(&s.returned).map(|(l, r)| l.quantity.saturating_sub(*r)).collect();
        let Some(items) = self.pick_lines(&left, MAX_LINES_PER_RETURN) else {
            self.tally("restored_nothing_left");
            return;
        };
        self.maybe_arm_at(self.rates.register_crash * 2.0, &[CrashPoint::MidRefund, CrashPoint::AfterSend, CrashPoint::AfterCommit]);
        let asked = items.clone();
        if self.rng.random_bool(0.35) && !skus(s.currency).is_empty() {
            let new = self.successor_cart(s.currency);
            self.tally("restored_exchanges");
            match self.successor_op(async move { e.exchange_restored_lines(SOURCE, sale.0, &items, new, Some(EXCHANGE_REASON)).await }).await {
                Some(Ok(r)) => {
                    self.told_restored(sale.0, r.record.id, asked, r.cash_out, s.currency, !r.card_refunds.is_empty());
                    if r.new_sale.state != SaleState::Paid {
                        self.pay_rest_in_cash(new, r.new_sale.cash_due, s.currency);
                    }
                }
                Some(Err(err)) => self.restored_refused("restored_exchange", &err),
                None => self.tally("crash_in_restored_exchange"),
            }
        } else {
            self.tally("restored_returns");
            match self.successor_op(async move { e.return_restored(SOURCE, sale.0, &items, Some(RETURN_REASON)).await }).await {
                Some(Ok(r)) => self.told_restored(sale.0, r.record.id, asked, r.cash_out, s.currency, !r.card_refunds.is_empty()),
                Some(Err(err)) => self.restored_refused("restored_return", &err),
                None => self.tally("crash_in_restored_return"),
            }
        }
    }

    /// A refusal, counted by the ledger's variant (the engine's code says only `ledger`).
    fn restored_refused(&mut self, what: &str, err: &paydesk_register::EngineError) {
        let code = match err {
            paydesk_register::EngineError::Ledger(e) => format!("{e:?}").split(|c: char| !c.is_alphanumeric()).next().unwrap_or("").to_string(),
            other => other.code().to_string(),
        };
        *self.rep.errors.entry(format!("{what}:{code}")).or_default() += 1;
    }

    fn told_restored(&mut self, sale: i64, return_id: i64, lines: Vec<Returned>, cash_out: i64, currency: Currency, card: bool) {
        if self.exchanged_at_the_predecessor(sale) {
            // Given back through what each tender has left after the predecessor's credit.
            self.tally("restored_of_sales_exchanged_at_the_predecessor");
        }
        if cash_out > 0 {
            self.tally("restored_with_cash");
        }
        if card {
            self.tally("restored_with_card_refunds");
        }
        self.successor.as_mut().expect("a successor").told.push(RestoredTold { sale, return_id, lines, cash_out, currency });
    }

    /// Whether the predecessor made an exchange from its sale `sale`.
    fn exchanged_at_the_predecessor(&self, sale: i64) -> bool {
        self.engine()
            .ledger_for_tests(|l| l.connection().query_row("SELECT EXISTS (SELECT 1 FROM exchanges WHERE old_cart_id = ?1)", [sale], |r| r.get(0)))
            .expect("the predecessor's exchanges")
    }

    /// Other goods rung up at the successor (an exchange puts the credit on them).
    fn successor_cart(&mut self, currency: Currency) -> CartId {
        let skus = skus(currency);
        let sku = skus[self.rng.random_range(0..skus.len())];
        let qty = self.rng.random_range(1..=2);
        let now = self.core.now();
        self.successor()
            .ledger_for_tests(|l| -> Result<CartId, paydesk_ledger::Error> {
                let c = l.carts_mut().create(currency, now)?;
                l.carts_mut().add(c, sku, qty, now)?;
                Ok(c)
            })
            .expect("a successor cart")
    }

    fn pay_rest_in_cash(&mut self, cart: CartId, due: i64, currency: Currency) {
        match self.successor().pay_cash(cart, due, None) {
            Ok(c) => {
                let s = self.successor.as_mut().expect("a successor");
                *s.cash_in.entry(currency).or_default() += c.tendered - c.change;
            }
            Err(e) => *self.rep.errors.entry(format!("restored_exchange_cash:{}", e.code())).or_default() += 1,
        }
    }

    /// One successor operation; a simulated crash restarts the successor over what its
    /// ledger committed and runs its start-up recovery (which may crash again).
    async fn successor_op<T, F: std::future::Future<Output = T>>(&mut self, fut: F) -> Option<T> {
        let r = CatchCrash(Box::pin(fut)).await;
        self.disarm();
        match r {
            Ok(v) => Some(v),
            Err(_) => {
                self.successor.as_mut().expect("a successor").unanswered += 1;
                self.restart_successor();
                for round in 0..8 {
                    if round < 3 {
                        self.maybe_arm_at(self.rates.register_crash / 2.0, &CrashPoint::ALL);
                    }
                    let e = self.successor();
                    let r = CatchCrash(Box::pin(async move { e.recover().await })).await;
                    self.disarm();
                    if r.is_ok() {
                        break;
                    }
                    self.restart_successor();
                }
                None
            }
        }
    }

    fn restart_successor(&mut self) {
        self.disarm();
        self.rep.restarts += 1;
        let s = self.successor.as_mut().expect("a successor");
        s.generation += 1;
        let generation = s.generation;
        let old = s.engine.take().expect("successor engine");
        let blank = Ledger::open_in_memory(Box::new(SeededKeys::new(0))).expect("blank ledger");
        let l = old.ledger_for_tests(|l| std::mem::replace(l, blank));
        drop(old);
        assert!(l.connection().is_autocommit(), "a crashed successor left a transaction open");
        let e = self.successor_engine(l, generation);
        self.successor.as_mut().expect("a successor").engine = Some(e);
    }

    /// The storm ends; the successor recovers until none of its refunds is in flight.
    async fn settle_successor(&mut self) {
        self.psp.set_faults(FaultConfig::none());
        self.wire.stored_500.lock().0 = 0.0;
        self.psp.clear_script();
        self.psp.set_offline(false, None);
        self.disarm();
        self.core.advance(60_000);
        for _ in 0..45 {
            let e = self.successor();
            let _ = e.recover().await;
            let busy = e.ledger_for_tests(|l| l.refunds().needing_recovery().map(|v| !v.is_empty())).unwrap_or(true);
            if !busy {
                break;
            }
            self.core.advance(60_000);
        }
    }
}

/// The store's products, as the predecessor had them (the successor is the same store).
fn successor_catalog() -> Vec<NewProduct> {
    let mut v = crate::driver::catalog();
    v.extend(crate::driver::split_catalog());
    v
}
