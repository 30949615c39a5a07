//! What the simulated cashier was told in a split sale (record 0028) and in a reader sale
//! (issue #27), kept on the driver's `Sale` for the audit. The records live here, below
//! `driver`, `split` and `reader`: the driver's state holds them while `split` and `reader`
//! act on that state, so neither of those needs to be imported by `driver` (issue #31: no
//! import circles).

use paydesk_domain::{Currency, Money};
use paydesk_ledger::CartId;
use paydesk_register::{CheckoutOutcome, ReaderOutcome};

/// A card tender as the cashier was told.
#[derive(Debug, Clone)]
pub(crate) struct CardTold {
    pub key: String,
    pub outcome: CheckoutOutcome,
    /// The tender's amount (minor units of the sale's currency).
    pub amount: i64,
}

/// A cash tender as the cashier was told: take `tendered`, give back `change`.
#[derive(Debug, Clone)]
pub(crate) struct CashTold {
    pub tender_id: i64,
    pub tendered: i64,
    pub change: i64,
}

/// A store tender (record 0118) as the cashier was told: `offered` handed over, `amount`
/// paid of the sale, `change` given from the drawer, `forfeited` kept by the store.
#[derive(Debug, Clone)]
pub(crate) struct StoreTold {
    pub tender_id: i64,
    pub offered: i64,
    pub amount: i64,
    pub change: i64,
    pub forfeited: i64,
    /// The type gives change (when not, nothing may come out of the drawer).
    pub gives_change: bool,
}

/// One split sale, as the cashier saw it.
#[derive(Debug, Clone)]
pub(crate) struct SplitSale {
    pub cart: CartId,
    pub currency: Currency,
    pub total: i64,
    pub cards: Vec<CardTold>,
    pub cash: Vec<CashTold>,
    pub stores: Vec<StoreTold>,
    /// Some answer showed the sale paid in full.
    pub told_paid: bool,
    /// Keys of card tenders accepted offline (a later decline may reopen the sale).
    pub offline_keys: Vec<String>,
    /// Cash the cancel told the cashier to hand back.
    pub cash_returned_told: i64,
    /// Change the cancel told the cashier to take back (a gift card's, record 0148).
    pub change_collected_told: i64,
    /// A cancel call that crashed before answering (what it recorded was never shown).
    pub cancel_unanswered: bool,
    /// Cash refunds the cashier was told to pay out (answers that came back).
    pub cash_out_told: i64,
    /// A refund call that crashed before answering (its cash part was never shown).
    pub refund_unanswered: bool,
    /// Refunds of the paid sale were asked for (card refunds are expected).
    pub refund_asked: bool,
    /// Returns the register answered as done: the lines and quantities taken back.
    pub returns_told: Vec<Vec<paydesk_tax::Returned>>,
    /// This sale is the new sale of an exchange (record 0123).
    pub exchange: Option<ExchangeTold>,
}

/// A single-card sale rung up as a cart (issue #29): the returns of it the register
/// answered as done, and whether a return call crashed before answering.
#[derive(Debug, Clone)]
pub(crate) struct CartSale {
    pub cart: CartId,
    pub returns_told: Vec<Vec<paydesk_tax::Returned>>,
    pub return_unanswered: bool,
}

/// The new sale of an exchange, as the cashier saw it (issue #29, record 0124).
#[derive(Debug, Clone)]
pub(crate) struct ExchangeTold {
    /// The old sale (its index among the driver's sales) whose goods came back.
    pub old: usize,
    /// The credit the register's answer put on this sale; None when the call crashed
    /// before answering (the exchange may have committed all the same).
    pub credit: Option<i64>,
}

impl SplitSale {
    pub(crate) fn new(cart: CartId, currency: Currency, total: i64) -> SplitSale {
        SplitSale {
            cart,
            currency,
            total,
            cards: Vec::new(),
            cash: Vec::new(),
            stores: Vec::new(),
            told_paid: false,
            offline_keys: Vec::new(),
            cash_returned_told: 0,
            change_collected_told: 0,
            cancel_unanswered: false,
            cash_out_told: 0,
            refund_unanswered: false,
            refund_asked: false,
            returns_told: Vec::new(),
            exchange: None,
        }
    }
}

/// A reader sale as the cashier saw it.
#[derive(Debug, Clone)]
pub(crate) struct ReaderSale {
    /// The reader payment's checkout key (learned from the first answer, or from the
    /// ledger when the register crashed before answering).
    pub key: Option<String>,
    pub amount: Money,
    pub cart: Option<CartId>,
    /// Every answer the cashier saw: the press and what it said.
    pub told: Vec<(&'static str, ReaderOutcome)>,
}

impl ReaderSale {
    pub(crate) fn new(amount: Money, cart: Option<CartId>) -> ReaderSale {
        ReaderSale { key: None, amount, cart, told: Vec::new() }
    }
}
