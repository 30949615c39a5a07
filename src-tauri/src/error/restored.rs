//! A return or exchange of a sale restored from a replaced register refused (records 0144,
//! 0153): the ledger's typed refusals, each with its code and the cashier's words.

use paydesk_ledger::Error as L;

use super::ErrorCode;
use crate::i18n::{active, tr};

/// Why the restored sale cannot be returned (here, now).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RestoredRefusal {
    /// No predecessor restored from with that id.
    UnknownSource { register: String },
    /// The restore from it has not finished: its returns may be in the part not pulled.
    NotFinished { register: String },
    /// No completed sale with that id in its history.
    UnknownSale { register: String, sale: i64 },
    /// The receipt number is in more than one predecessor's history.
    Ambiguous { receipt_no: String },
    /// The predecessor canceled the sale: nothing of it can come back.
    Canceled { register: String, sale: i64 },
    /// The sale's figures are not what this store's tax settings give.
    NotValued { register: String, sale: i64 },
    /// A card payment of the sale has no settled outcome in the history.
    PaymentUnsettled { register: String, sale: i64 },
    /// Money would go back through a store tender: that is the back office's.
    StoreTender { register: String, sale: i64 },
    /// The predecessor exchanged goods of the sale: what each tender has left is not known
    /// here, so nothing is given back here (record 0153).
    ExchangedThere { register: String, sale: i64 },
    /// More than the sale's tenders have left after every refund.
    RefundExceeds { register: String, sale: i64 },
    /// This register's sale `cart` was paid in part by an exchange of the restored sale:
    /// that part goes back through the predecessor's tenders (record 0156), which have less
    /// room now than the credit holds (a card the predecessor never settled, facts that
    /// disagree). Nothing is made up from elsewhere.
    CreditNotGivenBack { cart: i64, register: String, sale: i64 },
}

impl RestoredRefusal {
    /// The ledger's refusal, typed; `None` for any other ledger error.
    pub fn of_ledger(e: &L) -> Option<RestoredRefusal> {
        use RestoredRefusal as R;
        Some(match e {
            L::UnknownRestoreSource { register } => R::UnknownSource { register: register.clone() },
            L::RestoreNotFinished { register } => R::NotFinished { register: register.clone() },
            L::UnknownRestoredSale { register, sale } => R::UnknownSale { register: register.clone(), sale: *sale },
            L::AmbiguousRestoredReceipt { receipt_no, .. } => R::Ambiguous { receipt_no: receipt_no.clone() },
            L::RestoredSaleCanceled { register, sale } => R::Canceled { register: register.clone(), sale: *sale },
            L::RestoredSaleNotValued { register, sale, .. } => R::NotValued { register: register.clone(), sale: *sale },
            L::RestoredPaymentUnsettled { register, sale, .. } => R::PaymentUnsettled { register: register.clone(), sale: *sale },
            L::RestoredStoreTender { register, sale } => R::StoreTender { register: register.clone(), sale: *sale },
            L::RestoredExchangedThere { register, sale } => R::ExchangedThere { register: register.clone(), sale: *sale },
            L::RestoredRefundExceeds { register, sale, .. } => R::RefundExceeds { register: register.clone(), sale: *sale },
            L::RestoredCreditNotGivenBack { cart_id, register, sale } => {
                R::CreditNotGivenBack { cart: *cart_id, register: register.clone(), sale: *sale }
            }
            _ => return None,
        })
    }

    /// The code, one arm each.
    pub fn code(&self) -> ErrorCode {
        use RestoredRefusal as R;
        match self {
            R::UnknownSource { .. } => ErrorCode::UnknownRestoreSource,
            R::NotFinished { .. } => ErrorCode::RestoreNotFinished,
            R::UnknownSale { .. } => ErrorCode::UnknownRestoredSale,
            R::Ambiguous { .. } => ErrorCode::AmbiguousRestoredReceipt,
            R::Canceled { .. } => ErrorCode::RestoredSaleCanceled,
            R::NotValued { .. } => ErrorCode::RestoredSaleNotValued,
            R::PaymentUnsettled { .. } => ErrorCode::RestoredPaymentUnsettled,
            R::StoreTender { .. } => ErrorCode::RestoredStoreTender,
            R::ExchangedThere { .. } => ErrorCode::RestoredExchangedThere,
            // as the CLI says it: more than the sale's tenders have left
            R::RefundExceeds { .. } => ErrorCode::SaleRefundExceeds,
            // as the CLI says it (record 0153)
            R::CreditNotGivenBack { .. } => ErrorCode::RestoredCreditNotGivenBack,
        }
    }

    /// What the cashier reads.
    pub fn words(&self) -> String {
        use RestoredRefusal as R;
        let l = active();
        match self {
            R::UnknownSource { register } => tr!(l, "restored-error-unknown-source", register = register.clone()),
            R::NotFinished { register } => tr!(l, "restored-error-not-finished", register = register.clone()),
            R::UnknownSale { register, sale } => tr!(l, "restored-error-unknown-sale", register = register.clone(), sale = *sale),
            R::Ambiguous { receipt_no } => tr!(l, "restored-error-ambiguous", number = receipt_no.clone()),
            R::Canceled { register, sale } => tr!(l, "restored-error-canceled", register = register.clone(), sale = *sale),
            R::NotValued { register, sale } => tr!(l, "restored-error-not-valued", register = register.clone(), sale = *sale),
            R::PaymentUnsettled { register, sale } => tr!(l, "restored-error-unsettled", register = register.clone(), sale = *sale),
            R::StoreTender { register, sale } => tr!(l, "restored-error-store-tender", register = register.clone(), sale = *sale),
            R::ExchangedThere { register, sale } => tr!(l, "restored-error-exchanged-there", register = register.clone(), sale = *sale),
            R::RefundExceeds { register, sale } => tr!(l, "restored-error-refund-exceeds", register = register.clone(), sale = *sale),
            R::CreditNotGivenBack { cart, register, sale } => {
                tr!(l, "restored-error-credit-not-given-back", cart = *cart, register = register.clone(), sale = *sale)
            }
        }
    }
}
