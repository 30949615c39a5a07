//! One reader sale: a cart or an amount charged on the reader, then what the customer
//! does (drawn from the seed) and the cashier's presses that go with it. Register crashes
//! may hit every press: the engine's own crash points, and the reader steps (after the
//! process call, the first read after the card was presented, after a cancel was sent);
//! each is followed by a restart and the register's start-up recovery.

use super::customer::{Tap, AFTER_CANCEL, AFTER_PRESENT, AFTER_PROCESS};
use super::{told_name, Customer};
use crate::records::ReaderSale;
use crate::driver::{Sale, Sim};
use mock_psp::ReaderFault;
use paydesk_domain::{Currency, Money};
use paydesk_register::{EngineError, ReaderOutcome, ReaderReport, TestCard};
use rand::Rng;
use std::time::Duration;

/// Longest the cashier waits on one "Wait" press (the engine bounds it further).
pub(super) const WAIT: Duration = Duration::from_secs(10);

impl Sim {
    pub(crate) fn rtally(&mut self, k: impl Into<String>) {
        *self.rep.readers.entry(k.into()).or_default() += 1;
    }

    pub(super) fn reader_sale_mut(&mut self, i: usize) -> &mut ReaderSale {
        self.sales[i].reader.as_mut().expect("a reader sale")
    }

    pub(super) fn reader_key(&self, i: usize) -> Option<String> {
        self.sales[i].reader.as_ref().and_then(|r| r.key.clone())
    }

    /// Keeps what a press told the cashier (and counts it); an error is counted only.
    pub(super) async fn told_reader(&mut self, i: usize, press: &'static str, r: Option<Result<ReaderReport, EngineError>>) -> Option<ReaderReport> {
        self.rtally(format!("press:{press}"));
        let Some(r) = r else {
            // The register crashed during the press: nothing was shown.
            self.rtally(format!("crashed:{press}"));
            return None;
        };
        match r {
            Ok(rep) => {
                self.rtally(format!("told:{}", told_name(rep.outcome)));
                // Which press said it: a cancel or an abandon told "paid" is a tap that won
                // the race.
                self.rtally(format!("told_after:{press}:{}", told_name(rep.outcome)));
                let rs = self.reader_sale_mut(i);
                rs.key.get_or_insert_with(|| rep.checkout_key.clone());
                rs.told.push((press, rep.outcome));
                self.check_not_charged_when_told(&rep).await;
                Some(rep)
            }
            Err(e) => {
                *self.rep.errors.entry(format!("reader:{press}:{}", e.code())).or_default() += 1;
                None
            }
        }
    }

    /// One customer paying on the reader.
    pub(crate) async fn reader_sale(&mut self, i: usize) {
        let reader = self.reader.clone().expect("the reader is registered before the first sale");
        let customer = Customer::draw(&mut self.rng);
        self.rtally(format!("customer:{}", customer.name()));
        self.rep.reader_sales += 1;
        let currency = if self.rng.random_bool(0.5) { Currency::Jpy } else { Currency::Usd };
        let use_cart = self.rng.random_bool(0.4);
        let e = self.engine();
        let now = self.core.now() + self.core.skew();
        let (amount, cart) = if use_cart {
            let lines: &[(&str, i64)] = if currency == Currency::Jpy { &[("JP-TEA", 1), ("JP-BENTO", 2)] } else { &[("US-COFFEE", 1), ("US-LUNCH", 1)] };
            let n = self.rng.random_range(1..=lines.len());
            let cart = e
                .ledger_for_tests(|l| -> Result<_, paydesk_ledger::Error> {
                    let c = l.carts_mut().create(currency, now)?;
                    for (sku, q) in &lines[..n] {
                        l.carts_mut().add(c, sku, *q, now)?;
                    }
                    l.carts().by_id(c)
                })
                .expect("cart");
            (cart.total, Some(cart.id))
        } else {
            // Random amounts: some end in the PSP's declining test amounts (01, 05, 55...).
            let minor = match currency {
                Currency::Jpy => self.rng.random_range(10..1_500) * 10,
                _ => self.rng.random_range(100..20_000),
            };
            (Money::new(minor, currency), None)
        };
        self.sales.push(Sale { amount, told: vec![], split: None, reader: Some(ReaderSale::new(amount, cart)), cart_sale: None });
        if customer == Customer::CancelsOnReader {
            // Armed on the next process call's action: the customer cancels when asked to pay.
            self.psp.script_reader_fault(ReaderFault::CustomerCancels, 1);
        }
        let newest_before = self.newest_payment_id();
        self.maybe_arm(self.rates.register_crash);
        self.maybe_crash_at_step(AFTER_PROCESS);
        let r = match cart {
            Some(c) => self.op(async move { e.charge_reader_tender(c, None, &reader, None).await.map(|t| t.reader) }).await,
            None => self.op(async move { e.charge_on_reader(amount, &reader).await }).await,
        };
        let first = self.told_reader(i, "charge", r).await;
        if self.reader_key(i).is_none() {
            // Crashed before answering: the key was committed first, find it.
            let key = self.newest_reader_key_after(newest_before);
            self.reader_sale_mut(i).key = key;
        }
        let Some(key) = self.reader_key(i) else {
            self.rtally("no_payment");
            self.psp.clear_script();
            return;
        };
        if matches!(first.map(|r| r.outcome), Some(ReaderOutcome::ReaderBusy | ReaderOutcome::ReaderUnavailable { .. })) {
            // Nothing started: the cashier waits a little and presses again.
            self.core.advance(self.rng.random_range(5_000..30_000));
            self.present_again(i, &key).await;
        }
        self.customer_acts(i, &key, customer).await;
        self.settle_reader_sale(i, &key).await;
        // A scripted "customer cancels" that never met a process call must not hit the
        // next customer.
        self.psp.clear_script();
    }

    async fn customer_acts(&mut self, i: usize, key: &str, customer: Customer) {
        match customer {
            Customer::Approves => self.tap_and_wait(i, key, TestCard::Approved).await,
            Customer::Declines => self.tap_and_wait(i, key, TestCard::Declined).await,
            Customer::InsufficientFunds => self.tap_and_wait(i, key, TestCard::InsufficientFunds).await,
            // The armed fault turns the tap into the customer's cancel.
            Customer::CancelsOnReader => self.tap_and_wait(i, key, TestCard::Approved).await,
            Customer::NoTapCashierCancels => {
                self.cancel_on_reader(i, key).await;
                if self.rng.random_bool(0.5) {
                    self.present_again(i, key).await;
                    self.tap_and_wait(i, key, TestCard::Approved).await;
                }
            }
            Customer::TapRacesCancel => {
                if self.rng.random_bool(0.5) {
                    // The tap first: the cancel's read must report it paid.
                    self.tap(TestCard::Approved).await;
                    if self.rng.random_bool(0.5) {
                        self.cancel_on_reader(i, key).await;
                    } else {
                        self.abandon(i, key).await;
                    }
                } else {
                    // The cancel first: the tap finds no action (or a late one).
                    self.cancel_on_reader(i, key).await;
                    self.tap(TestCard::Approved).await;
                }
            }
            Customer::PresentAgainAfterDecline => {
                let card = if self.rng.random_bool(0.5) { TestCard::Declined } else { TestCard::InsufficientFunds };
                self.tap_and_wait(i, key, card).await;
                self.present_again(i, key).await;
                self.tap_and_wait(i, key, TestCard::Approved).await;
            }
            Customer::CashierAbandons => {
                self.abandon(i, key).await;
            }
        }
    }

    /// The customer taps; the cashier waits for the result (the register may crash at
    /// its first read of the reader after the tap).
    async fn tap_and_wait(&mut self, i: usize, key: &str, card: TestCard) {
        let tap = self.tap(card).await;
        if tap == Tap::Taken {
            self.maybe_crash_at_step(AFTER_PRESENT);
        }
        self.wait(i, key).await;
    }

    pub(super) async fn wait(&mut self, i: usize, key: &str) -> Option<ReaderReport> {
        let e = self.engine();
        let k = key.to_string();
        self.maybe_arm(self.rates.register_crash);
        let r = self.op(async move { e.wait_on_reader(&k, WAIT).await }).await;
        self.told_reader(i, "wait", r).await
    }

    pub(super) async fn present_again(&mut self, i: usize, key: &str) -> Option<ReaderReport> {
        let e = self.engine();
        let k = key.to_string();
        self.maybe_arm(self.rates.register_crash);
        self.maybe_crash_at_step(AFTER_PROCESS);
        let r = self.op(async move { e.present_again(&k).await }).await;
        self.told_reader(i, "present_again", r).await
    }

    pub(super) async fn cancel_on_reader(&mut self, i: usize, key: &str) -> Option<ReaderReport> {
        let e = self.engine();
        let k = key.to_string();
        self.maybe_arm(self.rates.register_crash);
        self.maybe_crash_at_step(AFTER_CANCEL);
        let r = self.op(async move { e.cancel_reader_action(&k).await }).await;
        self.told_reader(i, "cancel_on_reader", r).await
    }

    pub(super) async fn abandon(&mut self, i: usize, key: &str) -> Option<ReaderReport> {
        let e = self.engine();
        let k = key.to_string();
        self.maybe_arm(self.rates.register_crash);
        self.maybe_crash_at_step(AFTER_CANCEL);
        let r = self.op(async move { e.abandon_reader_payment(&k).await }).await;
        self.told_reader(i, "abandon", r).await
    }

    pub(super) async fn check_status(&mut self, i: usize, key: &str) -> Option<ReaderReport> {
        let e = self.engine();
        let k = key.to_string();
        self.maybe_arm(self.rates.register_crash);
        let r = self.op(async move { e.check_reader_status(&k).await }).await;
        self.told_reader(i, "check_status", r).await
    }

    fn newest_payment_id(&self) -> i64 {
        self.engine().ledger_for_tests(|l| l.payments().list(1, 0)).ok().and_then(|v| v.first().map(|p| p.id.0)).unwrap_or(0)
    }

    /// The reader payment committed after `before` (a crashed charge's key).
    fn newest_reader_key_after(&self, before: i64) -> Option<String> {
        let e = self.engine();
        let recent = e.ledger_for_tests(|l| l.payments().list(4, 0)).ok()?;
        recent
            .into_iter()
            .filter(|p| p.id.0 > before)
            .find(|p| e.ledger_for_tests(|l| l.card_readers().payment(p.id)).ok().flatten().is_some())
            .map(|p| p.idempotency_key)
    }
}
