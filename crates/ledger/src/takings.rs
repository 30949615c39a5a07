//! What a period took (record 0033, 0066): the one set of definitions End of day and the
//! X / Z reports share, as pure arithmetic over the facts the ledger reads
//! (`ledger/takings.rs`). No I/O here; the tests call it directly.
//!
//! - **Sales** are the tenders that paid for a sale: settled cash, captured cards, and card
//!   tenders accepted offline (queued or being forwarded: the customer left with the
//!   goods). Each tender counts once, whatever else paid the same sale (a split sale is
//!   its cash part plus its card part). A void, held, pending or superseded tender is not
//!   a sale; held and pending ones are shown as pending.
//! - A **canceled sale** (canceling or canceled) is not takings: its tenders are shown
//!   apart, and the refunds and cash that undid it are not counted as refunds.
//! - **Refunds** are money given back for a sale that counts: succeeded card refunds and
//!   cash paid out of the drawer, each in the period it was given back.
//! - **Net** = sales − refunds.
//! - The store's own tenders (record 0118) are sales of kind `store`, and are also listed
//!   per tender type; a voucher refunded as a voucher is a store refund (no drawer money).
//! - **Tax by rate** (record 0135) is the tax of the sales counted (`sale_count`'s sales),
//!   as each sale's locked document holds it, summed per class and rate with its named
//!   parts; the **tax-exempt sales** are counted and summed on their own line.
//! - A sale paid in two periods (cash before midnight, the card after; a pending card
//!   settled in the next shift) is **one sale of the period of its first counted tender**:
//!   each tender's money stays in the period it was taken, but the sale, its tax and its
//!   exempt line are counted once, so days and Z reports add up (record 0138).

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::tender::TenderState;
use paydesk_domain::TenderKind;
use crate::types::CartId;

/// A tender as the figures need it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TenderFact {
    pub cart_id: CartId,
    pub kind: TenderKind,
    pub state: TenderState,
    pub amount_minor: i64,
    pub at_ms: i64,
    /// Its sale is canceled or being canceled.
    pub sale_canceled: bool,
    /// A store tender's type (record 0118).
    pub store_type: Option<paydesk_domain::TenderTypeId>,
}

/// Money given back for a sale that counts: a succeeded card refund, or cash paid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RefundFact {
    pub kind: TenderKind,
    pub amount_minor: i64,
}

/// Tenders of one kind that count as sales.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TenderTotal {
    pub kind: TenderKind,
    pub count: i64,
    pub amount_minor: i64,
}

/// Store tenders of one type that count as sales (record 0118). `name` is the type's
/// name, filled in by the ledger that read the facts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreTypeTotal {
    pub tender_type_id: paydesk_domain::TenderTypeId,
    pub name: String,
    pub count: i64,
    pub amount_minor: i64,
}

/// One tender counted as a sale, when it was taken (End of day's per-hour chart).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Taken {
    pub at_ms: i64,
    pub amount_minor: i64,
}

/// A period's figures, in one currency's minor units.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Takings {
    /// Tenders that count as sales.
    pub sales_minor: i64,
    pub tender_count: i64,
    /// Sales with at least one such tender.
    pub sale_count: i64,
    /// Per kind, ordered by kind name; their sum is `sales_minor` / `tender_count`.
    pub by_kind: Vec<TenderTotal>,
    /// The `store` kind per tender type, ordered by type id (record 0118).
    #[serde(default)]
    pub by_store_type: Vec<StoreTypeTotal>,
    pub card_refunds_minor: i64,
    pub card_refund_count: i64,
    pub cash_refunds_minor: i64,
    pub cash_refund_count: i64,
    /// Given back through a store tender (a voucher refunded as a voucher).
    #[serde(default)]
    pub store_refunds_minor: i64,
    #[serde(default)]
    pub store_refund_count: i64,
    pub refunds_minor: i64,
    /// sales − refunds.
    pub net_minor: i64,
    /// Canceled sales with a tender that was settled, and what those tenders had taken.
    pub canceled_sales: i64,
    pub canceled_minor: i64,
    /// Of the sales: card tenders accepted offline the processor has not confirmed yet.
    pub offline_count: i64,
    pub offline_minor: i64,
    /// Not in the sales: card tenders whose outcome is not known yet, or authorized and
    /// not captured.
    pub pending_count: i64,
    pub pending_minor: i64,
    /// The counted sales' tax per class and rate, in class then rate order (record 0135).
    #[serde(default)]
    pub tax_rates: Vec<RateTotal>,
    /// Of the counted sales: those made tax exempt, and what they came to.
    #[serde(default)]
    pub exempt_sale_count: i64,
    #[serde(default)]
    pub exempt_minor: i64,
}

/// One rate's part of the counted sales: the taxable amount, the tax and its named parts
/// (NY State 4 %, New York City 4.5 %, MCTD 0.375 % of 8.875 %).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RateTotal {
    pub class: paydesk_tax::TaxClass,
    pub ppm: u32,
    pub base_minor: i64,
    pub tax_minor: i64,
    pub gross_minor: i64,
    /// (name, ppm, tax) of each named tax in the rate; empty for an unnamed rate (Japan).
    pub parts: Vec<(String, u32, i64)>,
}

/// A counted sale's tax as its locked document holds it (`None`: a sale with no tax
/// computed, all exempt-class lines and no discount), and whether it was made exempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SoldTax {
    pub tax: Option<paydesk_tax::SaleTax>,
    pub total_minor: i64,
    pub exempt: bool,
}

impl Takings {
    /// Adds the tax lines of the counted sales (one entry per sale).
    /// The figures without the sales `earlier` (sales of this period's tenders that were
    /// first counted in an earlier period, [`first_counted`]): their tenders' money stays
    /// here, the sale itself is counted where it began. Call before [`Takings::with_tax`]
    /// with the remaining sales only.
    pub fn without_earlier_sales(mut self, earlier: &[CartId]) -> Takings {
        self.sale_count -= earlier.len() as i64;
        debug_assert!(self.sale_count >= 0, "an earlier sale is one of this period's sales");
        self
    }

    pub fn with_tax(mut self, sold: &[SoldTax]) -> Result<Takings> {
        for s in sold {
            if s.exempt {
                self.exempt_sale_count += 1;
                add(&mut self.exempt_minor, s.total_minor)?;
            }
            for r in s.tax.iter().flat_map(|t| &t.rates) {
                let at = match self.tax_rates.iter().position(|x| x.class == r.class && x.ppm == r.ppm) {
                    Some(i) => i,
                    None => {
                        self.tax_rates.push(RateTotal { class: r.class, ppm: r.ppm, base_minor: 0, tax_minor: 0, gross_minor: 0, parts: Vec::new() });
                        self.tax_rates.len() - 1
                    }
                };
                let line = &mut self.tax_rates[at];
                add(&mut line.base_minor, r.base)?;
                add(&mut line.tax_minor, r.tax)?;
                add(&mut line.gross_minor, r.gross)?;
                for p in r.parts.iter().filter(|p| !p.name.is_empty()) {
                    match line.parts.iter_mut().find(|x| x.0 == p.name && x.1 == p.ppm) {
                        Some(x) => add(&mut x.2, p.tax)?,
                        None => line.parts.push((p.name.clone(), p.ppm, p.tax)),
                    }
                }
            }
        }
        // Highest rate first within a class, classes in their order.
        self.tax_rates.sort_by(|a, b| a.class.cmp(&b.class).then(b.ppm.cmp(&a.ppm)));
        Ok(self)
    }
}

fn add(a: &mut i64, b: i64) -> Result<()> {
    *a = a.checked_add(b).ok_or(Error::Overflow)?;
    Ok(())
}

/// Where a tender goes in the figures.
enum Counts {
    Sale { offline: bool },
    Canceled,
    Pending,
    Nothing,
}

fn counts(t: &TenderFact) -> Counts {
    match t.state {
        TenderState::Settled | TenderState::Offline if t.sale_canceled => Counts::Canceled,
        TenderState::Settled => Counts::Sale { offline: false },
        TenderState::Offline => Counts::Sale { offline: true },
        TenderState::Held | TenderState::Pending => Counts::Pending,
        TenderState::Void | TenderState::Superseded => Counts::Nothing,
    }
}

impl Takings {
    /// The figures of `tenders` (taken in the period) and `refunds` (given back in it).
    pub fn of(tenders: &[TenderFact], refunds: &[RefundFact]) -> Result<Takings> {
        let mut t = Takings::default();
        let mut sold: Vec<CartId> = Vec::new();
        let mut canceled: Vec<CartId> = Vec::new();
        for f in tenders {
            match counts(f) {
                Counts::Sale { offline } => {
                    add(&mut t.sales_minor, f.amount_minor)?;
                    t.tender_count += 1;
                    sold.push(f.cart_id);
                    match t.by_kind.iter_mut().find(|k| k.kind == f.kind) {
                        Some(k) => {
                            k.count += 1;
                            add(&mut k.amount_minor, f.amount_minor)?;
                        }
                        None => t.by_kind.push(TenderTotal { kind: f.kind, count: 1, amount_minor: f.amount_minor }),
                    }
                    if let Some(ty) = f.store_type {
                        match t.by_store_type.iter_mut().find(|s| s.tender_type_id == ty) {
                            Some(s) => {
                                s.count += 1;
                                add(&mut s.amount_minor, f.amount_minor)?;
                            }
                            None => t.by_store_type.push(StoreTypeTotal {
                                tender_type_id: ty,
                                name: String::new(),
                                count: 1,
                                amount_minor: f.amount_minor,
                            }),
                        }
                    }
                    if offline {
                        t.offline_count += 1;
                        add(&mut t.offline_minor, f.amount_minor)?;
                    }
                }
                Counts::Canceled => {
                    canceled.push(f.cart_id);
                    add(&mut t.canceled_minor, f.amount_minor)?;
                }
                Counts::Pending => {
                    t.pending_count += 1;
                    add(&mut t.pending_minor, f.amount_minor)?;
                }
                Counts::Nothing => {}
            }
        }
        for (list, n) in [(&mut sold, &mut t.sale_count), (&mut canceled, &mut t.canceled_sales)] {
            list.sort_unstable();
            list.dedup();
            *n = list.len() as i64;
        }
        t.by_kind.sort_by_key(|k| k.kind.as_str());
        t.by_store_type.sort_by_key(|s| s.tender_type_id);
        for r in refunds {
            let (sum, count) = match r.kind {
                TenderKind::Card => (&mut t.card_refunds_minor, &mut t.card_refund_count),
                TenderKind::Cash => (&mut t.cash_refunds_minor, &mut t.cash_refund_count),
                TenderKind::Store => (&mut t.store_refunds_minor, &mut t.store_refund_count),
            };
            add(sum, r.amount_minor)?;
            *count += 1;
            add(&mut t.refunds_minor, r.amount_minor)?;
        }
        t.net_minor = t.sales_minor.checked_sub(t.refunds_minor).ok_or(Error::Overflow)?;
        Ok(t)
    }
}

/// The sales with a tender counted as a sale, each once, in id order.
pub fn sold_carts(tenders: &[TenderFact]) -> Vec<CartId> {
    let mut v: Vec<CartId> = tenders.iter().filter(|f| matches!(counts(f), Counts::Sale { .. })).map(|f| f.cart_id).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// When `cart`'s first tender counted as a sale was taken, of `tenders` (`None`: none of
/// them counts). A sale whose first counted tender over all time is earlier than its
/// first in a period is a sale of an earlier period.
pub fn first_counted(tenders: &[TenderFact], cart: CartId) -> Option<i64> {
    tenders.iter().filter(|f| f.cart_id == cart && matches!(counts(f), Counts::Sale { .. })).map(|f| f.at_ms).min()
}

/// The tenders counted as sales, when each was taken, in the order given.
pub fn taken(tenders: &[TenderFact]) -> Vec<Taken> {
    tenders
        .iter()
        .filter(|f| matches!(counts(f), Counts::Sale { .. }))
        .map(|f| Taken { at_ms: f.at_ms, amount_minor: f.amount_minor })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(cart: i64, kind: TenderKind, state: TenderState, amount: i64, canceled: bool) -> TenderFact {
        TenderFact { cart_id: CartId(cart), kind, state, amount_minor: amount, at_ms: cart, sale_canceled: canceled, store_type: None }
    }

    #[test]
    fn every_tender_counts_once_and_canceled_sales_apart() {
        use TenderKind::{Card, Cash};
        use TenderState::*;
        let tenders = [
            t(1, Cash, Settled, 350, false),
            // the $8.50 sale: $6.50 cash + $2.00 card
            t(2, Cash, Settled, 650, false),
            t(2, Card, Settled, 200, false),
            t(3, Card, Offline, 1000, false),
            t(4, Card, Void, 900, false),
            t(5, Card, Pending, 700, false),
            t(6, Card, Superseded, 500, false),
            t(7, Cash, Settled, 300, true),
            t(7, Card, Settled, 200, true),
        ];
        let refunds = [RefundFact { kind: Card, amount_minor: 150 }, RefundFact { kind: Cash, amount_minor: 100 }];
        let k = Takings::of(&tenders, &refunds).unwrap();
        assert_eq!((k.sales_minor, k.tender_count, k.sale_count), (350 + 650 + 200 + 1000, 4, 3));
        assert_eq!(
            k.by_kind,
            vec![TenderTotal { kind: Card, count: 2, amount_minor: 1200 }, TenderTotal { kind: Cash, count: 2, amount_minor: 1000 }]
        );
        assert_eq!((k.card_refunds_minor, k.cash_refunds_minor, k.refunds_minor, k.net_minor), (150, 100, 250, 2200 - 250));
        assert_eq!((k.canceled_sales, k.canceled_minor), (1, 500));
        assert_eq!((k.offline_count, k.offline_minor, k.pending_count, k.pending_minor), (1, 1000, 1, 700));
        let chart = taken(&tenders);
        assert_eq!(chart.iter().map(|x| x.amount_minor).sum::<i64>(), k.sales_minor);
        assert_eq!(chart.len() as i64, k.tender_count);
    }

    #[test]
    fn sums_that_overflow_are_an_error() {
        let big = [t(1, TenderKind::Cash, TenderState::Settled, i64::MAX, false), t(2, TenderKind::Cash, TenderState::Settled, 1, false)];
        assert!(matches!(Takings::of(&big, &[]), Err(Error::Overflow)));
    }
}
