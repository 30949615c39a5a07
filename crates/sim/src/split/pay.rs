//! The tenders of one split sale: cash parts (with change, and the store's cash
//! rounding), card parts (declines mid-split, then another card or cash; some taken
//! while the PSP is unreachable and forwarded later), and what the cashier does while a
//! card tender's outcome is unknown (press again, wait for recovery, try another tender
//! and be refused, override with a reason). Crashes may hit any card step.

use super::{note, skus, OVERRIDE_REASON};
use crate::records::{CardTold, CashTold, SplitSale};
use crate::invariant::MidCheck;
use crate::driver::{Sale, Sim};
use paydesk_ledger::{CartId, CheckoutOptions, SaleState};
use paydesk_domain::Currency;
use paydesk_register::{CheckoutOutcome, CrashPoint, EngineError, SaleView};
use rand::Rng;
use std::time::Duration;

/// Most steps (tenders, presses, waits) the cashier spends on one sale.
const MAX_STEPS: usize = 10;

impl Sim {
    pub(crate) fn tally(&mut self, k: &str) {
        *self.rep.tenders.entry(k.to_string()).or_default() += 1;
    }

    pub(super) fn split_mut(&mut self, i: usize) -> &mut SplitSale {
        self.sales[i].split.as_mut().expect("a split sale")
    }

    /// The sale as the writer sees it (None if unreadable: counted, the audit judges).
    pub(crate) fn view(&mut self, cart: CartId) -> Option<SaleView> {
        match self.engine().ledger_for_tests(|l| l.sales().by_cart(cart)) {
            Ok(s) => Some(SaleView::of(&s)),
            Err(e) => {
                *self.rep.errors.entry(format!("sale_view:{}", paydesk_register::EngineError::from(e).code())).or_default() += 1;
                None
            }
        }
    }

    /// One customer paying by several tenders.
    pub(crate) async fn split_sale(&mut self, i: usize) {
        self.tally("split_sales");
        let currency = match self.rng.random_range(0..10) {
            0..=3 => Currency::Jpy,
            4..=6 => Currency::Usd,
            _ => Currency::Eur,
        };
        let (rung, cart) = self.ring_up(currency);
        debug_assert_eq!(rung, i, "a sale's index is its place among the sales");
        let planned = self.rng.random_range(1..=4usize);
        // Some customers walk away after a few tenders: the sale is canceled there.
        let walk_away = if self.rng.random_bool(0.15) { Some(self.rng.random_range(1..=planned)) } else { None };
        self.pay_until(i, cart, planned, walk_away).await;
        self.after_split_sale(i, walk_away.is_some()).await;
    }

    /// The cashier rings up a split sale's cart (random lines of `currency`'s skus) and
    /// keeps it as the next sale; answers its index and cart.
    pub(super) fn ring_up(&mut self, currency: Currency) -> (usize, CartId) {
        let skus = skus(currency);
        let n = self.rng.random_range(1..=skus.len());
        let qty: Vec<i64> = (0..n).map(|_| self.rng.random_range(1..=3)).collect();
        let now = self.core.now() + self.core.skew();
        let cart = self
            .engine()
            .ledger_for_tests(|l| -> Result<_, paydesk_ledger::Error> {
                let c = l.carts_mut().create(currency, now)?;
                for (sku, q) in skus.iter().zip(&qty) {
                    l.carts_mut().add(c, sku, *q, now)?;
                }
                l.carts().by_id(c)
            })
            .expect("cart");
        self.sales.push(Sale { amount: cart.total, told: vec![], split: Some(SplitSale::new(cart.id, currency, cart.total.amount_minor)), reader: None, cart_sale: None });
        (self.sales.len() - 1, cart.id)
    }

    /// Tenders until the sale is paid, `planned` tenders were given (the last covers
    /// what is open), the customer walks away, or the steps run out.
    pub(super) async fn pay_until(&mut self, i: usize, cart: CartId, planned: usize, walk_away: Option<usize>) {
        let mut tenders = 0usize;
        for _ in 0..MAX_STEPS {
            if walk_away.is_some_and(|w| tenders >= w) {
                break;
            }
            let Some(v) = self.view(cart) else { break };
            if !v.state.takes_tenders() {
                break;
            }
            if let Some(key) = v.unknown_tender.clone() {
                self.while_unknown(i, &v, &key).await;
                continue;
            }
            if v.open <= 0 {
                break;
            }
            tenders += 1;
            let last = tenders >= planned;
            let x: f64 = self.rng.random();
            if x < 0.35 {
                self.cash_tender(i, &v, last, None).await;
            } else if x < 0.5 && !self.store_types.is_empty() {
                self.store_tender(i, &v, last);
            } else {
                let amount = if last { None } else { Some(self.part(v.open)) };
                self.card_tender(i, cart, amount, None).await;
            }
        }
    }

    /// A part of `open` for a tender that does not finish the sale.
    fn part(&mut self, open: i64) -> i64 {
        if open <= 1 {
            return open;
        }
        self.rng.random_range(1..open)
    }

    /// The cashier waits on a card tender whose outcome is unknown.
    async fn while_unknown(&mut self, i: usize, v: &SaleView, key: &str) {
        let cart = CartId(v.cart_id);
        let x: f64 = self.rng.random();
        if x < 0.35 {
            // Charge pressed again: the same tender, the same key.
            self.tally("pressed_again_while_unknown");
            let amount = v.tenders.iter().find(|t| t.checkout_key.as_deref() == Some(key)).map(|t| t.amount.amount_minor);
            let before = key.to_string();
            self.plant_press_again(key);
            if let Some(k) = self.card_tender(i, cart, amount, None).await {
                let what = format!("sale {cart}: pending {before}, pressing again made {k}");
                self.mid_check(MidCheck::PressingAgainReusesTheKey.name(), k == before, &what);
            }
        } else if x < 0.55 {
            // The cashier waits; the background pass resolves what it can.
            self.tally("waited_for_recovery");
            self.core.advance(self.rng.random_range(5_000..90_000));
            let e = self.engine();
            self.maybe_arm(self.rates.register_crash);
            if self.op(async move { e.recover().await }).await.is_none() {
                self.check_after_restart(cart);
            }
        } else if x < 0.65 {
            // Cash meanwhile, without a reason: rule 3 per tender refuses it.
            self.tally("cash_tried_while_unknown");
            let tendered = v.due.max(1);
            self.plant_cash_while_unknown(key);
            let r = self.engine().pay_cash(cart, tendered, None);
            self.expect_unknown_refusal(cart, key, r.map(|c| c.sale.state));
        } else if x < 0.75 {
            self.tally("cancel_tried_while_unknown");
            let e = self.engine();
            let r = self.op(async move { e.cancel_sale(cart, super::CANCEL_REASON).await }).await;
            if let Some(r) = r {
                self.expect_unknown_refusal(cart, key, r.map(|c| c.state));
            }
        } else {
            // An override with a reason: the pending tender is superseded.
            self.tally("override_unknown_tender");
            if self.rng.random_bool(0.5) {
                self.cash_tender(i, v, true, Some(OVERRIDE_REASON)).await;
            } else {
                self.card_tender(i, cart, None, Some(OVERRIDE_REASON)).await;
            }
        }
    }

    /// Judged at every try: the check fails when the tender or the cancel was taken (any
    /// refusal keeps the rule; a refusal for another reason is counted as an error).
    fn expect_unknown_refusal(&mut self, cart: CartId, key: &str, r: Result<SaleState, EngineError>) {
        let check = MidCheck::UnknownTenderBlocksNewTender.name();
        match r {
            Err(EngineError::TenderUnknownOutstanding { .. }) => {
                self.tally("refused_while_unknown");
                self.mid_check(check, true, "");
            }
            Err(e) => {
                *self.rep.errors.entry(format!("while_unknown:{}", e.code())).or_default() += 1;
                self.mid_check(check, true, "");
            }
            Ok(state) => {
                let what = format!("sale {cart}: tender {key} pending, yet a new tender or cancel was taken (sale now {})", state.as_str());
                self.mid_check(check, false, &what);
            }
        }
    }

    /// A cash tender: part of what is open, or all of it (with change or exact).
    pub(crate) async fn cash_tender(&mut self, i: usize, v: &SaleView, covering: bool, reason: Option<&str>) {
        let cart = CartId(v.cart_id);
        let exact = v.open.min(v.cash_due);
        let tendered = if covering || exact <= 1 {
            if v.cash_due <= 0 {
                return;
            }
            if self.rng.random_bool(0.4) {
                v.cash_due
            } else {
                let n = note(self.split_mut(i).currency);
                (v.cash_due / n + 1) * n
            }
        } else {
            self.rng.random_range(1..exact)
        };
        self.tally("cash_tenders");
        match self.engine().pay_cash(cart, tendered, reason) {
            Ok(c) => {
                if c.rounding != 0 {
                    self.tally("cash_rounded");
                }
                if c.change > 0 {
                    self.tally("cash_with_change");
                }
                let s = self.split_mut(i);
                s.cash.push(CashTold { tender_id: c.tender.id.0, tendered: c.tendered, change: c.change });
                s.told_paid |= c.sale.state == SaleState::Paid;
            }
            Err(e) => *self.rep.errors.entry(format!("cash:{}", e.code())).or_default() += 1,
        }
    }

    /// A card tender for `amount` (all that is open when None). Returns the key the
    /// answer named.
    pub(crate) async fn card_tender(&mut self, i: usize, cart: CartId, amount: Option<i64>, reason: Option<&str>) -> Option<String> {
        let x: f64 = self.rng.random();
        let mut pm = if x < 0.1 {
            "pm_card_chargeDeclined"
        } else if x < 0.14 {
            "pm_card_chargeDeclinedInsufficientFunds"
        } else {
            "pm_card_visa"
        };
        let offline = self.rates.split_offline > 0.0 && !self.psp.is_offline() && self.rng.random_bool(self.rates.split_offline);
        if offline {
            // The PSP is unreachable for a while: the tender may be accepted offline and
            // forwarded later, where a third of these cards decline.
            self.tally("offline_periods_at_a_tender");
            let secs = self.rng.random_range(30..600);
            self.psp.set_offline(true, Some(Duration::from_secs(secs)));
            if self.rng.random_bool(0.33) {
                pm = "pm_card_chargeDeclined";
            }
        }
        let mut o = CheckoutOptions::card(pm);
        o.extra_params.push(("description".into(), format!("split-{i}")));
        self.tally("card_tenders");
        self.maybe_arm_at(self.rates.register_crash, &CrashPoint::ALL);
        let e = self.engine();
        let reason = reason.map(str::to_string);
        let r = self.op(async move { e.charge_card_tender(cart, amount, o, reason.as_deref()).await }).await;
        let r = match r {
            None => {
                self.tally("crash_in_card_tender");
                self.check_after_restart(cart);
                return None;
            }
            Some(r) => r,
        };
        match r {
            Ok(rep) => {
                let key = rep.checkout.checkout_key.clone();
                let amt = rep.sale.tenders.iter().find(|t| t.checkout_key.as_deref() == Some(key.as_str())).map(|t| t.amount.amount_minor);
                self.tally(&format!("card:{}", rep.checkout.outcome.as_str()));
                let s = self.split_mut(i);
                s.cards.push(CardTold { key: key.clone(), outcome: rep.checkout.outcome, amount: amt.unwrap_or(-1) });
                s.told_paid |= rep.sale.state == SaleState::Paid;
                if rep.checkout.outcome == CheckoutOutcome::QueuedOffline {
                    s.offline_keys.push(key.clone());
                    self.offline_splits.push(i);
                }
                Some(key)
            }
            Err(e) => {
                *self.rep.errors.entry(format!("card:{}", e.code())).or_default() += 1;
                if !e.refused_the_request() && !matches!(e, EngineError::Unresolved { .. }) {
                    // An error that is neither a refusal nor "unknown" told the cashier
                    // the card was not charged.
                    let key = e.checkout_key().map(str::to_string).or_else(|| self.newest_card_key(cart));
                    if let Some(key) = key {
                        self.split_mut(i).cards.push(CardTold { key: key.clone(), outcome: CheckoutOutcome::Failed, amount: -1 });
                        return Some(key);
                    }
                }
                None
            }
        }
    }

    fn newest_card_key(&mut self, cart: CartId) -> Option<String> {
        self.view(cart)?.tenders.iter().rev().find_map(|t| t.checkout_key.clone())
    }
}
