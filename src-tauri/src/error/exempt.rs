//! A tax-exempt sale's refusals (record 0135): the ledger's typed refusals, each with its
//! code and words.

use paydesk_ledger::ExemptRefusal;

use super::ErrorCode;
use crate::i18n::{id, t};

/// The code of a refusal, one arm each.
pub fn code(r: ExemptRefusal) -> ErrorCode {
    match r {
        ExemptRefusal::NotAllowed => ErrorCode::ExemptNotAllowed,
        ExemptRefusal::Tendered => ErrorCode::ExemptTendered,
        ExemptRefusal::Paid => ErrorCode::ExemptPaid,
        ExemptRefusal::Reason => ErrorCode::ExemptReason,
    }
}

/// What the cashier reads.
pub fn words(r: ExemptRefusal) -> String {
    match r {
        ExemptRefusal::NotAllowed => t(id!("exempt-error-not-allowed")),
        ExemptRefusal::Tendered => t(id!("exempt-error-tendered")),
        ExemptRefusal::Paid => t(id!("exempt-error-paid")),
        ExemptRefusal::Reason => t(id!("exempt-error-reason")),
    }
}
