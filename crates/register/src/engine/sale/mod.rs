//! Sales paid by several tenders (record 0028): the engine's side. The ledger decides and
//! records (one transaction per tender, the amount due always derived); the engine adds
//! the network — a card tender is driven like any checkout, a cancel refunds or voids
//! each settled card tender with its own key — and the views the app, the CLI and the
//! simulation read. One file per operation: `cash.rs`, `card.rs`, `cancel.rs`,
//! `refund.rs`.

mod cancel;
mod card;
mod cash;
mod refund;
mod exchange;
mod receipt_find;
mod returns;
mod restored_returns;
mod store;

pub use cancel::CancelReport;
pub use card::CardTenderReport;
pub use cash::CashReport;
pub use refund::SaleRefundReport;
pub use exchange::{ExchangeReport, RestoredExchangeReport};
pub use receipt_find::{checked_receipt_number, ReceiptCandidate, ReceiptCandidates, ReceiptOpen, MAX_RECEIPT_CANDIDATES, MAX_RECEIPT_DIGITS};
pub use returns::ReturnReport;
pub use restored_returns::RestoredReturnReport;
pub use store::StoreTenderReport;

use super::{Engine, EngineError, Result};
use paydesk_ledger::{CancelState, CartId, CartLine, Sale, SaleState, Tender, TenderDay};
use paydesk_domain::Currency;
use serde::Serialize;

/// A sale as the cashier's tender panel shows it (record 0029). Amounts in minor units
/// of `currency`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SaleView {
    pub cart_id: i64,
    pub currency: Currency,
    pub state: SaleState,
    pub total: i64,
    /// Cash tenders plus card tenders whose payment went through (or was accepted
    /// offline).
    pub settled: i64,
    /// `total - settled`: what is still owed.
    pub due: i64,
    /// What a new tender may cover: `due` minus held or pending card tenders.
    pub open: i64,
    /// What cash must hand over to pay `open` (the store's cash rounding applied).
    pub cash_due: i64,
    /// The cash rounding increment of the currency (1 = none).
    pub cash_rounding: i64,
    /// The checkout key of a card tender whose outcome is unknown: no other tender
    /// without an override reason.
    pub unknown_tender: Option<String>,
    pub tenders: Vec<Tender>,
    pub lines: Vec<CartLine>,
    pub cancel_reason: Option<String>,
    /// The credit of an exchange paying part of the sale (record 0123): counted in
    /// `settled`, shown beside the tenders.
    pub exchange_credit: Option<paydesk_ledger::ExchangeCredit>,
}

impl SaleView {
    pub fn of(s: &Sale) -> SaleView {
        SaleView {
            cart_id: s.cart.id.0,
            currency: s.cart.currency,
            state: s.state,
            total: s.totals.total_minor,
            settled: s.totals.settled_minor,
            due: s.totals.due_minor,
            open: s.totals.open_minor(),
            cash_due: s.cash_due_minor,
            cash_rounding: s.cash_rounding_minor,
            unknown_tender: s.unknown_tender().and_then(|t| t.checkout_key.clone()),
            tenders: s.tenders.clone(),
            lines: s.cart.lines.clone(),
            cancel_reason: s.cancel.as_ref().map(|c| c.reason.clone()),
            exchange_credit: s.exchange_credit.clone(),
        }
    }

    /// Canceled, or its cancel is still being confirmed.
    pub fn is_canceled(&self) -> bool {
        match self.state {
            SaleState::Canceling | SaleState::Canceled => true,
            SaleState::Open | SaleState::PartiallyPaid | SaleState::Paid | SaleState::UnpaidBalance => false,
        }
    }
}

impl Engine {
    /// The sale of a cart: tenders, amount due, state (a reader connection).
    pub fn sale_view(&self, cart: CartId) -> Result<SaleView> {
        let s = self.with_reader(|l| l.sales().by_cart(cart))?;
        Ok(SaleView::of(&s))
    }

    /// The sale as the writer sees it right now (after this engine's own writes).
    pub(super) fn sale_now(&self, cart: CartId) -> Result<SaleView> {
        let s = self.with_ledger(|l| l.sales().by_cart(cart))?;
        Ok(SaleView::of(&s))
    }

    /// The tender part of End of day (record 0033): totals per tender kind and currency
    /// for tenders since `since_ms`, the cash the drawer should hold, unpaid balances,
    /// cancels not confirmed yet, superseded tenders charged anyway.
    pub fn tender_day(&self, since_ms: i64) -> Result<TenderDay> {
        Ok(self.with_reader(|l| l.sales().tender_day(since_ms))?)
    }

    /// Sets the store's cash rounding for a currency (1 = none; record 0030).
    pub fn set_cash_rounding(&self, currency: Currency, increment_minor: i64) -> Result<()> {
        Ok(self.with_ledger(|l| l.sales_mut().set_cash_rounding(currency, increment_minor))?)
    }
}

/// A ledger refusal of a tender, typed for the app (the ledger's error has no currency).
pub(super) fn tender_error(e: paydesk_ledger::Error, currency: Currency) -> EngineError {
    match e {
        paydesk_ledger::Error::TenderExceedsDue { cart_id, requested_minor, open_minor } => {
            EngineError::TenderExceedsDue { cart: cart_id, requested: requested_minor, open: open_minor, currency }
        }
        other => other.into(),
    }
}

/// A cancel row's state as a sale state.
pub(super) fn cancel_state(s: CancelState) -> SaleState {
    match s {
        CancelState::Canceling => SaleState::Canceling,
        CancelState::Canceled => SaleState::Canceled,
    }
}
