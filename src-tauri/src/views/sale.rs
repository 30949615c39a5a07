//! The tender panel's view of a sale (record 0035) and the tender part of End of day.
//! Built from the engine's `SaleView`; amounts stay integer minor units, with
//! `*_display` strings (what the cashier reads) and `*_plain` strings (what the cashier
//! would type) formatted here.

use paydesk_ledger::{Payment, SaleState, TenderDay, TenderState};
use paydesk_domain::{Currency, TenderKind};
use paydesk_register::SaleView;
use serde::Serialize;

use super::{card_label, Tone};
use crate::wording::state_label;
use crate::i18n::{id, t as tr};
use crate::money;

/// One tender as the panel lists it.
#[derive(Debug, Clone, Serialize)]
pub struct TenderRow {
    pub seq: i64,
    /// `cash` | `card`
    pub kind: &'static str,
    pub amount: i64,
    pub amount_display: String,
    /// As a cashier types it (pressing a pending card again sends the same amount).
    pub amount_plain: String,
    /// The tender's state (`settled`, `pending`, …) and in the cashier's words.
    pub state: &'static str,
    pub state_label: String,
    pub tone: Tone,
    /// Card: which card, its checkout key, the processor's decline message.
    pub card_label: Option<String>,
    pub checkout_key: Option<String>,
    pub message: Option<String>,
    /// A card-present payment on a reader (issue #27): the panel drives it with the
    /// reader's buttons (check status, cancel on reader), never by charging a token again.
    pub on_reader: bool,
    /// Cash: handed over and given back.
    pub tendered_display: Option<String>,
    pub change: Option<i64>,
    pub change_display: Option<String>,
    /// Store tender (record 0122): its slip number, and what it kept because its type
    /// gives no change (0 otherwise).
    pub reference: Option<String>,
    pub forfeited: i64,
    pub forfeited_display: Option<String>,
}

/// A quick cash amount: the exact amount due, or a round note above it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct QuickCash {
    pub minor: i64,
    pub display: String,
    pub plain: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct SaleScreen {
    pub cart_id: i64,
    pub currency: String,
    pub money: money::MoneyFormat,
    /// `open` | `partially_paid` | `paid` | `unpaid_balance` | `canceling` | `canceled`
    pub state: &'static str,
    pub state_label: String,
    /// Only a sale whose settled tenders add up to its total is "Paid".
    pub complete: bool,
    pub canceled: bool,
    pub item_count: i64,
    pub total: i64,
    pub total_display: String,
    pub settled: i64,
    pub settled_display: String,
    pub due: i64,
    pub due_display: String,
    /// What a new tender may cover, and typed back as the card amount's default.
    pub open: i64,
    pub open_display: String,
    pub open_plain: String,
    /// Cash to hand over for `open` (the store's cash rounding applied).
    pub cash_due: i64,
    pub cash_due_display: String,
    pub quick_cash: Vec<QuickCash>,
    /// A card tender whose outcome is unknown: no other tender without a reason.
    pub unknown_tender: Option<String>,
    pub tenders: Vec<TenderRow>,
    pub cancel_reason: Option<String>,
    /// An exchange's credit paying part of the sale (record 0123), shown beside the tenders.
    pub exchange_credit: Option<CreditRow>,
}

/// An exchange's credit as the tender panel lists it: the return it came from and how much.
#[derive(Debug, Clone, Serialize)]
pub struct CreditRow {
    pub number: String,
    pub amount: i64,
    pub amount_display: String,
}

/// The sale's state in words on its own screen: a sale with a tender outstanding (a card
/// on the reader, an unknown outcome) and nothing settled yet is "payment in progress",
/// never "partly paid" — nothing is paid until a tender settles.
fn sale_screen_label(s: SaleState, settled_minor: i64) -> String {
    match s {
        SaleState::PartiallyPaid if settled_minor == 0 => tr(id!("sale-payment-in-progress")),
        SaleState::Open | SaleState::PartiallyPaid | SaleState::Paid | SaleState::UnpaidBalance | SaleState::Canceling | SaleState::Canceled => {
            sale_state_label(s)
        }
    }
}

pub fn sale_state_label(s: SaleState) -> String {
    tr(match s {
        SaleState::Open => id!("sale-open"),
        SaleState::PartiallyPaid => id!("sale-partially-paid"),
        SaleState::Paid => id!("state-captured"),
        SaleState::UnpaidBalance => id!("sale-unpaid-balance"),
        SaleState::Canceling => id!("sale-canceling"),
        SaleState::Canceled => id!("state-canceled"),
    })
}

/// A reader payment's request names `card_present` and no token (the ledger's
/// `PaymentMethodParams::CardPresent`).
fn is_card_present(p: &Payment) -> bool {
    p.request_params.get("payment_method_types[]") == Some("card_present")
}

/// A tender's state in words (a message id) and its tone.
fn tender_words(s: TenderState) -> (&'static str, Tone) {
    match s {
        TenderState::Settled => (id!("state-captured"), Tone::Ok),
        TenderState::Offline => (id!("tender-offline"), Tone::Warn),
        TenderState::Held => (id!("state-authorized"), Tone::Info),
        TenderState::Pending => (id!("tender-pending"), Tone::Warn),
        TenderState::Void => (id!("state-failed"), Tone::Bad),
        TenderState::Superseded => (id!("tender-superseded"), Tone::Bad),
    }
}

/// Notes a cashier is handed, in major units, by currency (record 0035).
fn notes(currency: Currency) -> &'static [i64] {
    match currency {
        Currency::Jpy => &[1000, 5000, 10000],
        Currency::Krw => &[1000, 5000, 10000, 50000],
        Currency::Gbp => &[5, 10, 20, 50],
        Currency::Usd | Currency::Eur => &[5, 10, 20, 50, 100],
    }
}

/// The exact amount, then up to three round amounts above it a customer hands over:
/// `due` rounded up to each note (USD 8.25 → 10, 20, 50; 137.50 → 140, 150, 200).
pub fn quick_cash(due: i64, currency: Currency) -> Vec<QuickCash> {
    let q = |minor: i64| QuickCash { minor, display: money::format(minor, currency), plain: money::plain(minor, currency) };
    if due <= 0 {
        return Vec::new();
    }
    let scale = currency.minor_per_major();
    let mut above: Vec<i64> = notes(currency)
        .iter()
        .filter_map(|n| n.checked_mul(scale))
        .filter_map(|n| due.checked_add(n - 1).map(|x| x / n * n))
        .filter(|m| *m > due)
        .collect();
    above.sort_unstable();
    above.dedup();
    std::iter::once(due).chain(above.into_iter().take(3)).map(q).collect()
}

impl SaleScreen {
    /// `payment`: the ledger's payment of a card tender's checkout key.
    pub fn build(v: &SaleView, payment: impl Fn(&str) -> Option<Payment>) -> SaleScreen {
        let cur = v.currency;
        let fmt = |m: i64| money::format(m, cur);
        let tenders = v
            .tenders
            .iter()
            .map(|t| {
                let (label, tone) = tender_words(t.state);
                let pay = t.checkout_key.as_deref().and_then(&payment);
                let message = match t.state {
                    // the processor's own words, labelled as theirs
                    TenderState::Void => pay.as_ref().and_then(|p| p.last_error.clone()).map(|d| paydesk_i18n::tr!(crate::i18n::active(), "outcome-processor-said", detail = d)),
                    TenderState::Superseded => t.superseded_reason.clone(),
                    TenderState::Settled | TenderState::Offline | TenderState::Held | TenderState::Pending => None,
                };
                let kind = match t.kind {
                    TenderKind::Cash => "cash",
                    TenderKind::Card => "card",
                    TenderKind::Store => "store",
                };
                TenderRow {
                    seq: t.seq,
                    kind,
                    amount: t.amount.amount_minor,
                    amount_display: fmt(t.amount.amount_minor),
                    amount_plain: money::plain(t.amount.amount_minor, cur),
                    state: t.state.as_str(),
                    state_label: match (t.kind, t.payment_state) {
                        // a canceled sale's cash went back over the counter, and so did
                        // a store tender as itself: the voucher, the gift card (record 0148)
                        (TenderKind::Cash | TenderKind::Store, _) if v.is_canceled() && t.state == TenderState::Settled => {
                            tr(id!("tender-handed-back"))
                        }
                        // a reader payment still open (waiting, or declined and ready for
                        // another card): the reader panel says which; "unknown" here would
                        // contradict a proven decline shown beside it
                        (TenderKind::Card, Some(paydesk_domain::PaymentState::OnReader)) => tr(id!("reader-tender-state")),
                        // a refund of a settled card still paid this sale; say both
                        (TenderKind::Card, Some(ps)) if t.state == TenderState::Settled && ps != paydesk_domain::PaymentState::Captured => {
                            format!("{} · {}", tr(label), state_label(ps))
                        }
                        _ => tr(label),
                    },
                    tone,
                    // a store tender (record 0118) is labelled with its type's name
                    card_label: t.store.as_ref().map(|s| s.type_name.clone()).or_else(|| pay.as_ref().map(|p| {
                        if is_card_present(p) {
                            tr(id!("reader-tender-label"))
                        } else {
                            card_label(p.request_params.get("payment_method"))
                        }
                    })),
                    on_reader: pay.as_ref().is_some_and(is_card_present),
                    checkout_key: t.checkout_key.clone(),
                    message,
                    tendered_display: t.cash_tendered_minor.map(fmt),
                    change: t.change_minor,
                    change_display: t.change_minor.map(fmt),
                    reference: t.store.as_ref().and_then(|s| s.reference.clone()),
                    forfeited: t.store.as_ref().map_or(0, |s| s.forfeited_minor),
                    forfeited_display: t.store.as_ref().filter(|s| s.forfeited_minor > 0).map(|s| fmt(s.forfeited_minor)),
                }
            })
            .collect();
        let complete = v.state == SaleState::Paid;
        SaleScreen {
            cart_id: v.cart_id,
            currency: cur.code().to_ascii_uppercase(),
            money: money::MoneyFormat::of(cur),
            state: v.state.as_str(),
            state_label: sale_screen_label(v.state, v.settled),
            complete,
            canceled: v.is_canceled(),
            item_count: v.lines.iter().map(|l| l.quantity).sum(),
            total: v.total,
            total_display: fmt(v.total),
            settled: v.settled,
            settled_display: fmt(v.settled),
            due: v.due,
            due_display: fmt(v.due),
            open: v.open,
            open_display: fmt(v.open),
            open_plain: money::plain(v.open, cur),
            cash_due: v.cash_due,
            cash_due_display: fmt(v.cash_due),
            quick_cash: if complete || v.is_canceled() { Vec::new() } else { quick_cash(v.cash_due, cur) },
            unknown_tender: v.unknown_tender.clone(),
            tenders,
            cancel_reason: v.cancel_reason.clone(),
            exchange_credit: v.exchange_credit.as_ref().map(|c| CreditRow {
                number: c.return_number.clone(),
                amount: c.amount_minor,
                amount_display: fmt(c.amount_minor),
            }),
        }
    }
}

/// An amount in one currency, shown.
#[derive(Debug, Clone, Serialize)]
pub struct Amount {
    pub currency: String,
    pub minor: i64,
    pub display: String,
}

impl Amount {
    fn of(minor: i64, currency: Currency) -> Amount {
        Amount { currency: currency.code().to_ascii_uppercase(), minor, display: money::format(minor, currency) }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct KindTotal {
    pub kind: &'static str,
    pub count: i64,
    pub settled: Amount,
}

#[derive(Debug, Clone, Serialize)]
pub struct UnpaidRow {
    pub cart_id: i64,
    pub total: Amount,
    pub due: Amount,
    pub state_label: String,
}

/// End of day, tender part: totals per kind, the drawer, sales still owing.
#[derive(Debug, Clone, Serialize)]
pub struct TenderDayView {
    pub by_kind: Vec<KindTotal>,
    /// What the drawer should hold; `None` while a shift is open: that figure is the
    /// blind close's (record 0069), shown only by the audited X report until the close.
    pub expected_drawer: Option<Vec<Amount>>,
    pub unpaid_balances: Vec<UnpaidRow>,
    /// Unpaid balances beyond the listed ones (the tile counts them too).
    pub unpaid_balances_not_listed: i64,
    pub canceling: Vec<i64>,
    pub superseded_charged: Vec<String>,
    pub superseded_charged_not_listed: i64,
}

impl TenderDayView {
    /// The ledger leaves the expected drawer out while a shift is open (blind close).
    pub fn of(d: &TenderDay) -> TenderDayView {
        TenderDayView {
            by_kind: d
                .by_kind
                .iter()
                .map(|k| KindTotal {
                    kind: k.kind.as_str(),
                    count: k.count,
                    settled: Amount::of(k.settled_minor, k.currency),
                })
                .collect(),
            expected_drawer: d.expected_drawer.as_ref().map(|v| v.iter().map(|(c, m)| Amount::of(*m, *c)).collect()),
            unpaid_balances: d
                .unpaid_balances
                .iter()
                .map(|u| UnpaidRow {
                    cart_id: u.cart_id.0,
                    total: Amount::of(u.total_minor, u.currency),
                    due: Amount::of(u.due_minor, u.currency),
                    state_label: sale_state_label(u.state),
                })
                .collect(),
            unpaid_balances_not_listed: d.unpaid_balances_not_listed,
            canceling: d.canceling.iter().map(|c| c.0).collect(),
            superseded_charged: d.superseded_charged.clone(),
            superseded_charged_not_listed: d.superseded_charged_not_listed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn minors(v: &[QuickCash]) -> Vec<i64> {
        v.iter().map(|q| q.minor).collect()
    }

    #[test]
    fn quick_cash_is_the_exact_amount_then_round_notes_above_it() {
        assert_eq!(minors(&quick_cash(825, Currency::Usd)), vec![825, 1000, 2000, 5000]);
        assert_eq!(minors(&quick_cash(13750, Currency::Usd)), vec![13750, 14000, 15000, 20000]);
        assert_eq!(minors(&quick_cash(2000, Currency::Usd)), vec![2000, 5000, 10000]);
        assert_eq!(minors(&quick_cash(1200, Currency::Jpy)), vec![1200, 2000, 5000, 10000]);
        assert_eq!(quick_cash(1200, Currency::Jpy)[1].display, "¥2,000");
        assert_eq!(quick_cash(825, Currency::Usd)[1].plain, "10.00");
        assert!(quick_cash(0, Currency::Usd).is_empty());
        // no overflow near the largest amounts
        assert_eq!(quick_cash(i64::MAX - 1, Currency::Usd)[0].minor, i64::MAX - 1);
    }

    #[test]
    fn every_tender_state_has_words_and_a_tone() {
        for s in [TenderState::Settled, TenderState::Offline, TenderState::Held, TenderState::Pending, TenderState::Void, TenderState::Superseded] {
            let (label, tone) = tender_words(s);
            assert!(!label.is_empty());
            assert!(Tone::ALL.contains(&tone));
        }
        assert_eq!(sale_state_label(SaleState::Paid), "Paid");
        assert_ne!(sale_state_label(SaleState::PartiallyPaid), "Paid");
        // a tender outstanding and nothing settled: not "partly paid"
        assert_eq!(sale_screen_label(SaleState::PartiallyPaid, 0), "Payment in progress");
        assert_eq!(sale_screen_label(SaleState::PartiallyPaid, 1), sale_state_label(SaleState::PartiallyPaid));
        assert_eq!(sale_screen_label(SaleState::Open, 0), sale_state_label(SaleState::Open));
    }
}
