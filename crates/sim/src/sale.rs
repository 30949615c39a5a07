//! One customer at the register: a sale by amount or by cart (sometimes Charge pressed
//! twice), then what the cashier does with the answer (another card, Charge again,
//! capture or void); refunds of earlier sales; the background passes between sales.

use crate::driver::{Sale, Sim};
use crate::records::CartSale;
use crate::world::join2;
use paydesk_ledger::CheckoutOptions;
use paydesk_domain::{CaptureMethod, Currency, Money};
use paydesk_register::{CheckoutOutcome, CheckoutReport, CrashPoint, EngineError};
use rand::Rng;

impl Sim {
    pub(crate) fn options(&mut self, sale: usize, manual: bool) -> CheckoutOptions {
        let x: f64 = self.rng.random();
        let pm = if x < 0.06 {
            "pm_card_chargeDeclined"
        } else if x < 0.08 {
            "pm_card_chargeDeclinedInsufficientFunds"
        } else {
            "pm_card_visa"
        };
        let mut o = CheckoutOptions::card(pm);
        o.capture_method = if manual { CaptureMethod::Manual } else { CaptureMethod::Automatic };
        o.extra_params.push(("description".into(), format!("sale-{sale}")));
        o
    }

    pub(crate) async fn one_sale(&mut self, i: usize) {
        let gap = self.rng.random_range(1_000..90_000);
        self.core.advance(gap);
        self.world_events();
        // No draw at all without split sales: a seed's single-card run stays the same.
        if self.cfg.split_share > 0.0 && self.rng.random_bool(self.cfg.split_share) {
            self.split_sale(i).await;
            self.end_sale_faults();
            return;
        }
        // Likewise for reader sales: no draw at all when they are off.
        if self.cfg.reader_share > 0.0 && self.rng.random_bool(self.cfg.reader_share) {
            self.reader_sale(i).await;
            self.end_sale_faults();
            return;
        }
        let currency = if self.rng.random_bool(0.7) { Currency::Jpy } else { Currency::Usd };
        let manual = self.rng.random_bool(0.15);
        let use_cart = self.rng.random_bool(0.35);
        let opts = self.options(i, manual);
        let e = self.engine();
        let now = self.core.now() + self.core.skew();
        if self.rates.disk_full > 0.0 && self.rng.random_bool(self.rates.disk_full) {
            *self.wire.fill_disk_after_key.lock() = Some(e.clone());
            self.fault("disk_full_after_key_commit");
        }
        if self.rates.cable_pull > 0.0 && self.rng.random_bool(self.rates.cable_pull) {
            self.wire.cable_pull_after_next_create.store(true, std::sync::atomic::Ordering::SeqCst);
        }
        self.maybe_arm(self.rates.register_crash);
        let result: Option<Result<CheckoutReport, EngineError>> = if use_cart {
            let lines: &[(&str, i64)] = if currency == Currency::Jpy {
                &[("JP-TEA", 2), ("JP-BENTO", 1), ("JP-BOOK", 1)]
            } else {
                &[("US-COFFEE", 2), ("US-LUNCH", 1)]
            };
            let n = self.rng.random_range(1..=lines.len());
            let cart = e.ledger_for_tests(|l| -> Result<_, paydesk_ledger::Error> {
                let c = l.carts_mut().create(currency, now)?;
                for (sku, q) in &lines[..n] {
                    l.carts_mut().add(c, sku, *q, now)?;
                }
                l.carts().by_id(c)
            });
            let cart = cart.expect("cart");
            self.sales.push(Sale {
                amount: cart.total,
                told: vec![],
                split: None,
                reader: None,
                cart_sale: Some(CartSale { cart: cart.id, returns_told: Vec::new(), return_unanswered: false }),
            });
            let double = self.rng.random_bool(self.rates.double_submit);
            if double {
                self.rep.double_submits += 1;
                self.fault("double_submit");
                let (e1, e2, o1, o2) = (e.clone(), e.clone(), opts.clone(), opts.clone());
                let r = self
                    .op(join2(async move { e1.charge_cart(cart.id, o1).await }, async move { e2.charge_cart(cart.id, o2).await }))
                    .await;
                match r {
                    Some((a, b)) => {
                        if let (Ok(x), Ok(y)) = (&a, &b) {
                            if x.checkout_key != y.checkout_key {
                                self.fault(crate::DOUBLE_SUBMIT_MADE_TWO_KEYS);
                            }
                        }
                        self.record_checkout(i, &b);
                        Some(a)
                    }
                    None => None,
                }
            } else {
                self.op(async move { e.charge_cart(cart.id, opts).await }).await
            }
        } else {
            let amount = match currency {
                Currency::Jpy => self.rng.random_range(10..1_500) * 10,
                _ => self.rng.random_range(100..20_000),
            };
            let m = Money::new(amount, currency);
            self.sales.push(Sale { amount: m, told: vec![], split: None, reader: None, cart_sale: None });
            self.op(async move { e.checkout_amount(m, opts).await }).await
        };
        self.end_sale_faults();
        let Some(result) = result else { return };
        self.record_checkout(i, &result);
        let Ok(rep) = result else { return };
        match rep.outcome {
            CheckoutOutcome::Declined if self.rng.random_bool(0.8) => {
                // "Try another card": an explicit new intent, a new key.
                self.rep.new_card += 1;
                let mut o = CheckoutOptions::card("pm_card_visa");
                o.capture_method = if manual { CaptureMethod::Manual } else { CaptureMethod::Automatic };
                o.extra_params.push(("description".into(), format!("sale-{i}")));
                let e = self.engine();
                let key = rep.checkout_key.clone();
                self.maybe_arm(self.rates.register_crash);
                if let Some(r) = self.op(async move { e.new_payment_after(&key, o, None).await }).await {
                    self.record_checkout(i, &r);
                }
            }
            CheckoutOutcome::Pending if self.rates.cashier_retry > 0.0 && self.rng.random_bool(self.rates.cashier_retry) => {
                // The cashier presses Charge again (same key), racing the reconciler.
                let e = self.engine();
                let (e1, e2) = (e.clone(), e);
                let key = rep.checkout_key.clone();
                self.fault("cashier_retry_racing_recovery");
                self.maybe_arm(self.rates.register_crash);
                if let Some((r, _)) = self.op(join2(async move { e1.retry_checkout(&key).await }, async move { e2.recover().await })).await {
                    self.record_checkout(i, &r);
                }
            }
            CheckoutOutcome::Authorized => {
                let e = self.engine();
                let key = rep.checkout_key.clone();
                self.maybe_arm(self.rates.register_crash);
                if self.rng.random_bool(0.85) {
                    self.rep.captures += 1;
                    if let Some(r) = self.op(async move { e.capture(&key).await }).await {
                        self.record(i, &r);
                    }
                } else {
                    self.rep.cancels += 1;
                    if let Some(r) = self.op(async move { e.cancel(&key).await }).await {
                        self.record(i, &r);
                    }
                }
            }
            _ => {}
        }
    }

    pub(crate) async fn maybe_refund(&mut self) {
        if self.paid_keys.is_empty() || !self.rng.random_bool(0.1) {
            return;
        }
        let key = self.paid_keys[self.rng.random_range(0..self.paid_keys.len())].clone();
        let e = self.engine();
        let p = match e.ledger_for_tests(|l| l.payments().by_key(&key)) {
            Ok(Some(p)) => p,
            _ => return,
        };
        let left = p.amount.amount_minor - p.refunded_minor;
        if left <= 0 || !p.state.is_refundable() {
            return;
        }
        let amount = if self.rng.random_bool(0.5) { None } else { Some((left / 2).max(1)) };
        self.rep.refunds += 1;
        self.maybe_arm_at(self.rates.register_crash * 2.0, &[CrashPoint::MidRefund, CrashPoint::AfterSend]);
        if let Some(Err(err)) = self.op(async move { e.refund(&key, amount, Some("requested_by_customer")).await }).await {
            *self.rep.errors.entry(format!("refund:{}", err.code())).or_default() += 1;
        }
    }

    pub(crate) async fn maintenance(&mut self) {
        {
            use CrashPoint::*;
            let all = [MidEventApply, MidEventApply, AfterSend, AfterResponseBeforeCommit, AfterCommit, MidRefund];
            self.maybe_arm_at(self.rates.register_crash * 3.0, &all);
        }
        let e = self.engine();
        let r = self.op(async move {
            let _ = e.recover().await;
            e.consume_events().await
        })
        .await;
        if let Some(ev) = r {
            self.count_events(ev);
        }
        if !self.offline_splits.is_empty() {
            self.collect_balances().await;
        }
    }

}
