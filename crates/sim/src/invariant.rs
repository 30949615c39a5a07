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

/// The restored audit's invariants (`audit/restored.rs`): the predecessor's paid sales
/// taken back at its replacement (restored returns and exchanges, records 0144 and 0153),
/// judged over both registers' ledgers and the PSP's store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RestoredCheck {
    /// Both ledgers and the PSP's store could be read.
    RestoredBooksReadable,
    /// Per line of a predecessor's sale: returned at the predecessor plus at the successor
    /// never exceeds what was sold.
    RestoredReturnedNeverExceedsSold,
    /// Per tender of a predecessor's sale: what both registers gave back through it (card
    /// refunds not failed, cash out, store refunds) plus what exchange credits hold of it
    /// never exceeds what it paid.
    RestoredGivenBackPerTenderWithinPaid,
    /// Each successor refund key refunded once at the PSP, matching the successor's ledger;
    /// every PSP refund of the restored phase known to the successor.
    RestoredCardRefundExecutedOnce,
    /// The successor's drawer moved by exactly the cash it paid out for restored returns
    /// (and took in for exchanges' new sales), as told.
    RestoredDrawerMovesByCashPaidOut,
    /// Each predecessor payment refunded at the successor: the PSP's refunded amount is
    /// what the predecessor's and the successor's ledgers say succeeded.
    RestoredLedgerEqualsPsp,
    /// Each restored return or exchange the successor answered is in its ledger as told.
    RestoredToldIsInTheLedger,
}

impl RestoredCheck {
    pub const ALL: [RestoredCheck; 7] = [
        RestoredCheck::RestoredBooksReadable,
        RestoredCheck::RestoredReturnedNeverExceedsSold,
        RestoredCheck::RestoredGivenBackPerTenderWithinPaid,
        RestoredCheck::RestoredCardRefundExecutedOnce,
        RestoredCheck::RestoredDrawerMovesByCashPaidOut,
        RestoredCheck::RestoredLedgerEqualsPsp,
        RestoredCheck::RestoredToldIsInTheLedger,
    ];

    /// The name in the report.
    pub const fn name(self) -> &'static str {
        match self {
            RestoredCheck::RestoredBooksReadable => "restored_books_readable",
            RestoredCheck::RestoredReturnedNeverExceedsSold => "restored_returned_never_exceeds_sold",
            RestoredCheck::RestoredGivenBackPerTenderWithinPaid => "restored_given_back_per_tender_within_paid",
            RestoredCheck::RestoredCardRefundExecutedOnce => "restored_card_refund_executed_once",
            RestoredCheck::RestoredDrawerMovesByCashPaidOut => "restored_drawer_moves_by_cash_paid_out",
            RestoredCheck::RestoredLedgerEqualsPsp => "restored_ledger_equals_psp",
            RestoredCheck::RestoredToldIsInTheLedger => "restored_told_is_in_the_ledger",
        }
    }
}
