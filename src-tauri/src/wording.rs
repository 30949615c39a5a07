//! Words the error messages and the views share (record 0070): a payment state and an
//! alarm in the cashier's words, in the screen's language. Low, next to `i18n`, so the
//! errors can say them without importing the views.

use paydesk_tax::{Discount, TaxClass};
use paydesk_domain::PaymentState;
use paydesk_register::AlarmCode;

use crate::i18n::{id, t};
use crate::money;

/// A payment state in the cashier's words, in the screen's language (record 0070).
pub fn state_label(state: PaymentState) -> String {
    t(match state {
        PaymentState::Created => id!("state-created"),
        PaymentState::QueuedOffline => id!("state-queued-offline"),
        PaymentState::Authorizing => id!("state-authorizing"),
        PaymentState::Authorized => id!("state-authorized"),
        PaymentState::Capturing => id!("state-capturing"),
        PaymentState::Captured => id!("state-captured"),
        // Declined, or refused before it ran (wrong key): either way never charged.
        PaymentState::Failed => id!("state-failed"),
        PaymentState::Canceled => id!("state-canceled"),
        PaymentState::Refunding => id!("state-refunding"),
        PaymentState::PartiallyRefunded => id!("state-partially-refunded"),
        PaymentState::Refunded => id!("state-refunded"),
        PaymentState::OnReader => id!("state-on-reader"),
    })
}

/// An alarm in the cashier's words and the screen's language, by its code (the
/// engine's English detail is for the log).
pub fn alarm_words(code: AlarmCode) -> String {
    t(match code {
        AlarmCode::DeclinedAfterForwarding => id!("alarm-declined-after-forwarding"),
        AlarmCode::SaleBalanceReopened => id!("alarm-sale-balance-reopened"),
        AlarmCode::ExistsWithDifferent => id!("alarm-exists-with-different"),
        AlarmCode::AmountMismatch => id!("alarm-amount-mismatch"),
        AlarmCode::NeedsAttention => id!("alarm-needs-attention"),
        AlarmCode::RefundNotMade => id!("alarm-refund-not-made"),
        AlarmCode::OfflinePaymentNotCollected => id!("alarm-offline-payment-not-collected"),
        AlarmCode::PspAuth => id!("alarm-psp-auth"),
        AlarmCode::PspConfig => id!("alarm-psp-config"),
        AlarmCode::IdempotencyError => id!("alarm-idempotency-error"),
        AlarmCode::NotAPsp => id!("alarm-not-a-psp"),
    })
}

/// "8%", "10%", "12.5%" from basis points.
pub fn rate_label(basis_points: u32) -> String {
    let (whole, frac) = (basis_points / 100, basis_points % 100);
    match frac {
        0 => format!("{whole}%"),
        f if f % 10 == 0 => format!("{whole}.{}%", f / 10),
        f => format!("{whole}.{f:02}%"),
    }
}

/// How a discount was given: "10%" or "−¥50".
pub fn discount_label(d: Discount, currency: paydesk_domain::Currency) -> String {
    match d {
        Discount::Percent { basis_points } => rate_label(basis_points),
        Discount::Amount { amount } => money::format(amount, currency),
    }
}

/// A tax class as the screen and the catalog file name it.
pub fn class_name(c: TaxClass) -> &'static str {
    match c {
        TaxClass::Standard => "standard",
        TaxClass::Reduced => "reduced",
        TaxClass::Exempt => "exempt",
    }
}
