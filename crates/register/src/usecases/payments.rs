//! Payment look-ups outside a checkout: a payment by its key, the open checkout of a
//! cart, attempts per payment, the day's takings, what the PSP may know that the
//! register does not, and payments restored from another register.

use paydesk_ledger::{CartId, Payment, PaymentDayStats, PaymentId, Period, RestoreSourceRow, RestoredPayment, Result, Taken, Takings};
use paydesk_domain::Currency;

use crate::Engine;

/// Payment use cases; see [`Engine::payments`].
pub struct PaymentCases<'e> {
    pub(super) engine: &'e Engine,
}

/// The takings and payment counts since a moment, read together.
#[derive(Debug, Clone)]
pub struct StoreDay {
    pub takings: Takings,
    pub taken: Vec<Taken>,
    pub stats: PaymentDayStats,
}

impl PaymentCases<'_> {
    /// The payment with this checkout key, if any.
    pub fn by_key(&self, key: &str) -> Result<Option<Payment>> {
        self.engine.with_reader(|l| l.payments().by_key(key))
    }

    /// The payment with this checkout key as the writer sees it now: waits for a write
    /// in progress and sees it (an answer built right after the engine's own write).
    pub fn by_key_now(&self, key: &str) -> Result<Option<Payment>> {
        self.engine.with_ledger(|l| l.payments().by_key(key))
    }

    /// The cart's checkout that is not settled yet, if any (on the writer: a new sale is
    /// decided on it).
    pub fn open_for_cart(&self, cart: CartId) -> Result<Option<Payment>> {
        self.engine.with_ledger(|l| l.payments().open_checkout_for_cart(cart))
    }

    /// The payment made to replace `previous` (a new payment after it), if any.
    pub fn successor_of(&self, previous: PaymentId) -> Result<Option<Payment>> {
        self.engine.with_reader(|l| l.payments().successor_of(previous))
    }

    /// Attempts at the PSP for each payment (the payment's own, not its refunds'), in
    /// the order given.
    pub fn attempt_counts(&self, payments: &[Payment]) -> Result<Vec<u32>> {
        self.engine.with_reader(|l| {
            payments
                .iter()
                .map(|p| Ok(l.payments().timeline(p.id)?.iter().filter(|t| t.kind == paydesk_ledger::TimelineKind::Attempt && t.refund_id.is_none()).count() as u32))
                .collect()
        })
    }

    /// The ledger's takings in `currency` since `since_ms` (the X and Z reports'
    /// definitions) and its payment counts.
    pub fn day(&self, currency: Currency, since_ms: i64) -> Result<StoreDay> {
        self.engine.with_reader(|l| {
            let (takings, taken) = l.sales().takings(currency, Period::Since(since_ms))?;
            Ok(StoreDay { takings, taken, stats: l.payments().day_stats(currency, since_ms)? })
        })
    }

    /// Payments and refunds the current PSP may have received without the register
    /// knowing the outcome: unknown outcomes, and offline payments with an attempt that
    /// possibly reached it. On the writer: a change of PSP is decided on it.
    pub fn unsettled_at_psp(&self) -> Result<usize> {
        self.engine.with_ledger(|l| {
            let mut n = l.payments().needing_recovery()?.len() + l.refunds().needing_recovery()?.len();
            for p in l.payments().offline_queue()? {
                let maybe_sent = l.payments().timeline(p.id)?.iter().any(crate::may_have_reached_psp);
                n += usize::from(maybe_sent);
            }
            Ok(n)
        })
    }

    /// The registers whose payments were restored into this one.
    pub fn restore_sources(&self) -> Result<Vec<RestoreSourceRow>> {
        self.engine.with_reader(|l| l.sync_log().restore_sources())
    }

    /// Up to `max` payments restored from `source`, older than `before_seq` when given.
    pub fn restored(&self, source: &str, before_seq: Option<u64>, max: usize) -> Result<Vec<RestoredPayment>> {
        self.engine.with_reader(|l| l.sync_log().restored_payments(source, before_seq, max))
    }
}
