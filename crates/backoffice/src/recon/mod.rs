//! Reconciliation (record 0042): the store's PSP account read in full (paged, bounded)
//! and matched against what its registers reported, by `metadata[checkout_key]` and
//! `metadata[refund_key]`. What does not match becomes an exception that a person
//! resolves with a reason. Memory is bounded by the PSP side in compact form; the
//! register side streams through (`matching`).
pub mod matching;
pub mod psp;
pub mod run;
#[cfg(test)]
mod tests;

use serde::Serialize;

/// What kind of disagreement an exception records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ExceptionKind {
    /// The PSP charged (or holds) money that no register recorded.
    ChargeWithoutRecord,
    /// A register recorded money taken, and the PSP has no charge for its key.
    RecordWithoutCharge,
    /// Both sides have the payment with a different amount or currency.
    AmountDiffers,
    /// The PSP charged a payment the register ended as failed or canceled.
    StateDiffers,
    /// The PSP holds two or more charges for one checkout key.
    DuplicateCharge,
    /// A refund on one side only, or with a different amount.
    RefundMismatch,
}

impl ExceptionKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            ExceptionKind::ChargeWithoutRecord => "charge_without_record",
            ExceptionKind::RecordWithoutCharge => "record_without_charge",
            ExceptionKind::AmountDiffers => "amount_differs",
            ExceptionKind::StateDiffers => "state_differs",
            ExceptionKind::DuplicateCharge => "duplicate_charge",
            ExceptionKind::RefundMismatch => "refund_mismatch",
        }
    }

    /// What the dashboard says about it.
    pub const fn describe(self) -> &'static str {
        match self {
            ExceptionKind::ChargeWithoutRecord => "charged at the PSP, no register record",
            ExceptionKind::RecordWithoutCharge => "paid at a register, no charge at the PSP",
            ExceptionKind::AmountDiffers => "amount or currency differs",
            ExceptionKind::StateDiffers => "charged at the PSP, register says not paid",
            ExceptionKind::DuplicateCharge => "charged more than once for one checkout",
            ExceptionKind::RefundMismatch => "refund differs between register and PSP",
        }
    }
}
