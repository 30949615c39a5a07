//! The ledger's shift refusals (record 0069) in the screen's words, kept with the
//! errors: any command may meet one (a tender refused by the ledger too), and the error
//! conversion puts it in words without reaching up into the Shift tab's commands.

use paydesk_ledger::ledger::shift::{
    MAX_DRAWER_MINOR, MAX_PAID_IN_OUT_MINOR, MAX_PAID_IN_OUT_PER_SHIFT, MAX_PIECES_PER_DENOMINATION, REASON_MAX_CHARS,
    REASON_MIN_CHARS,
};
use paydesk_ledger::ShiftRefusal;
use paydesk_domain::Currency;

use super::AppError;
use crate::i18n::{active, id, t, tr};
use crate::money;

/// The ledger's refusal of a drawer count, a paid in / out or a shift's first open in
/// the screen's language (record 0069), one message per rule and decided by the
/// variant, never by the ledger's English: a count's as `invalid_count` and a paid in /
/// out's as `invalid_paid_in_out` (the codes the Shift tab knows), the store's missing
/// setup as `invalid_input`. Amounts are shown in the shift's currency.
pub fn refusal(r: &ShiftRefusal) -> AppError {
    use ShiftRefusal as R;
    let l = active();
    let shown = |minor: i64, c: Currency| money::format(minor, c);
    match *r {
        R::UnknownDenomination { currency, denomination_minor } => AppError::InvalidCount(tr!(
            l,
            "shift-refusal-unknown-denomination",
            denomination = shown(denomination_minor, currency),
            currency = currency.code().to_uppercase()
        )),
        R::CountedTwice { currency, denomination_minor } => {
            AppError::InvalidCount(tr!(l, "shift-refusal-counted-twice", denomination = shown(denomination_minor, currency)))
        }
        R::PiecesOutOfRange { currency, denomination_minor, count } => AppError::InvalidCount(tr!(
            l,
            "shift-refusal-pieces",
            denomination = shown(denomination_minor, currency),
            count = count.to_string(),
            max = MAX_PIECES_PER_DENOMINATION.to_string()
        )),
        R::CountAboveLimit { currency, total_minor } => AppError::InvalidCount(tr!(
            l,
            "shift-refusal-count-total",
            total = shown(total_minor, currency),
            max = shown(MAX_DRAWER_MINOR, currency)
        )),
        R::NoStoreCurrency => AppError::InvalidInput(t(id!("shift-refusal-no-currency"))),
        R::PaidAmountOutOfRange { currency, .. } => AppError::InvalidPaidInOut(tr!(
            l,
            "shift-refusal-paid-amount",
            min = shown(1, currency),
            max = shown(MAX_PAID_IN_OUT_MINOR, currency)
        )),
        R::ReasonInvalid => AppError::InvalidPaidInOut(tr!(
            l,
            "shift-refusal-reason",
            min = REASON_MIN_CHARS.to_string(),
            max = REASON_MAX_CHARS.to_string()
        )),
        R::TooManyPaidInOut => {
            AppError::InvalidPaidInOut(tr!(l, "shift-refusal-too-many", max = MAX_PAID_IN_OUT_PER_SHIFT.to_string()))
        }
        // Not what the drawer should hold: that figure is the blind close's (record 0069), and
        // the X report, which shows it, is audited; a refused paid out is not.
        R::PaidOutAboveDrawer { currency, amount_minor, .. } => {
            AppError::InvalidPaidInOut(tr!(l, "shift-refusal-above-drawer", amount = shown(amount_minor, currency)))
        }
    }
}
