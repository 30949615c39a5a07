//! The names of the checks, as enums: a test plants a violation and matches the name the
//! audit reports, and a new check is a new variant (`ALL` and `name` are exhaustive, so
//! the compiler points at every list that must learn it, including the tests' plants).

/// The main audit's invariants (`audit/mod.rs`): single-card sales, the PSP's records
/// against the ledger's, the event consumer. Split sales (`audit/tenders.rs`) and reader
/// payments (`audit/reader.rs`) keep their own names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Invariant {
    PspOneIntentPerCheckoutKey,
    PspAtMostOneChargePerCheckoutKey,
    PspAtMostOneChargePerSale,
    PaidMeansOneCapturedIntentSameAmount,
    PaidIsCapturedInLedger,
    ToldNotChargedIsNeverCharged,
    ToldNotChargedEndsFailedInLedger,
    EverySaleInLedger,
    EveryPspIntentInLedger,
    LedgerResolvedAfterRecovery,
    LedgerEqualsPsp,
    PspAtMostOneRefundPerRefundKey,
    EveryPspRefundInLedger,
    RefundLedgerEqualsPsp,
    EveryPspEventApplied,
    OneJournalRowPerEvent,
    NoJournalRowWithoutEvent,
    JournalMoneyEqualsPsp,
}

impl Invariant {
    pub const ALL: [Invariant; 18] = [
        Invariant::PspOneIntentPerCheckoutKey,
        Invariant::PspAtMostOneChargePerCheckoutKey,
        Invariant::PspAtMostOneChargePerSale,
        Invariant::PaidMeansOneCapturedIntentSameAmount,
        Invariant::PaidIsCapturedInLedger,
        Invariant::ToldNotChargedIsNeverCharged,
        Invariant::ToldNotChargedEndsFailedInLedger,
        Invariant::EverySaleInLedger,
        Invariant::EveryPspIntentInLedger,
        Invariant::LedgerResolvedAfterRecovery,
        Invariant::LedgerEqualsPsp,
        Invariant::PspAtMostOneRefundPerRefundKey,
        Invariant::EveryPspRefundInLedger,
        Invariant::RefundLedgerEqualsPsp,
        Invariant::EveryPspEventApplied,
        Invariant::OneJournalRowPerEvent,
        Invariant::NoJournalRowWithoutEvent,
        Invariant::JournalMoneyEqualsPsp,
    ];

    /// The name in the report (`invariants_checked`, `violations_by_invariant`).
    pub const fn name(self) -> &'static str {
        match self {
            Invariant::PspOneIntentPerCheckoutKey => "psp_one_intent_per_checkout_key",
            Invariant::PspAtMostOneChargePerCheckoutKey => "psp_at_most_one_charge_per_checkout_key",
            Invariant::PspAtMostOneChargePerSale => "psp_at_most_one_charge_per_sale",
            Invariant::PaidMeansOneCapturedIntentSameAmount => "paid_means_one_captured_intent_same_amount",
            Invariant::PaidIsCapturedInLedger => "paid_is_captured_in_ledger",
            Invariant::ToldNotChargedIsNeverCharged => "told_not_charged_is_never_charged",
            Invariant::ToldNotChargedEndsFailedInLedger => "told_not_charged_ends_failed_in_ledger",
            Invariant::EverySaleInLedger => "every_sale_in_ledger",
            Invariant::EveryPspIntentInLedger => "every_psp_intent_in_ledger",
            Invariant::LedgerResolvedAfterRecovery => "ledger_resolved_after_recovery",
            Invariant::LedgerEqualsPsp => "ledger_equals_psp",
            Invariant::PspAtMostOneRefundPerRefundKey => "psp_at_most_one_refund_per_refund_key",
            Invariant::EveryPspRefundInLedger => "every_psp_refund_in_ledger",
            Invariant::RefundLedgerEqualsPsp => "refund_ledger_equals_psp",
            Invariant::EveryPspEventApplied => "every_psp_event_applied",
            Invariant::OneJournalRowPerEvent => "one_journal_row_per_event",
            Invariant::NoJournalRowWithoutEvent => "no_journal_row_without_event",
            Invariant::JournalMoneyEqualsPsp => "journal_money_equals_psp",
        }
    }
}

/// Checks the simulation makes during the run, on split sales (the engine's answers at
/// the moment they are given; no store edit after the run reaches them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MidCheck {
    /// "Charge" pressed again on a card tender whose outcome is unknown answers with
    /// the pending tender's key (a fresh key could charge the customer twice).
    PressingAgainReusesTheKey,
    /// Cancel on a paid sale is refused (refund it instead).
    PaidSaleIsNotCanceled,
    /// Cash or Cancel while a card tender's outcome is unknown is refused.
    UnknownTenderBlocksNewTender,
    /// Right after a crash and restart: settled ≤ total.
    RestartSettledLeTotal,
    /// Right after a crash and restart: due = total - settled.
    RestartDueIsTotalMinusSettled,
    /// A return of more of a line than is left is refused, with nothing written.
    ReturnBeyondSoldIsRefused,
}

impl MidCheck {
    pub const ALL: [MidCheck; 6] = [
        MidCheck::PressingAgainReusesTheKey,
        MidCheck::PaidSaleIsNotCanceled,
        MidCheck::UnknownTenderBlocksNewTender,
        MidCheck::RestartSettledLeTotal,
        MidCheck::RestartDueIsTotalMinusSettled,
        MidCheck::ReturnBeyondSoldIsRefused,
    ];

    /// The name in the report.
    pub const fn name(self) -> &'static str {
        match self {
            MidCheck::PressingAgainReusesTheKey => "pressing_again_reuses_the_key",
            MidCheck::PaidSaleIsNotCanceled => "paid_sale_is_not_canceled",
            MidCheck::UnknownTenderBlocksNewTender => "unknown_tender_blocks_new_tender",
            MidCheck::RestartSettledLeTotal => "restart_settled_le_total",
            MidCheck::RestartDueIsTotalMinusSettled => "restart_due_is_total_minus_settled",
            MidCheck::ReturnBeyondSoldIsRefused => "return_beyond_sold_is_refused",
        }
    }
}
