//! The end-of-day report: sales, refunds, pending and declined payments, and the
//! duplicate charges the idempotency keys prevented.

use paydesk_ledger::{Payment, PaymentState, TimelineEntry};
use serde::Serialize;

use crate::money;

#[derive(Debug, Clone, Serialize)]
pub struct Sale {
    pub at: i64,
    pub amount: i64,
}

#[derive(Debug, Clone, Serialize)]
pub struct ReportView {
    pub currency: String,
    /// For amounts the UI sums itself (sales per hour, chart axes).
    pub money: money::MoneyFormat,
    pub since: i64,
    pub gross: i64,
    pub gross_display: String,
    pub refunds: i64,
    pub refunds_display: String,
    pub net: i64,
    pub net_display: String,
    pub payment_count: u32,
    pub pending_count: u32,
    pub pending: i64,
    pub pending_display: String,
    pub declined_count: u32,
    /// Attempts the PSP answered with its stored first response (replays) or
    /// turned away because the first was still running (409): each would have been
    /// a second charge without the idempotency key.
    pub duplicates_prevented: u32,
    /// Captured sales, for the per-hour chart (binned by the UI in local time).
    pub sales: Vec<Sale>,
}

pub struct ReportInput<'a> {
    pub payments: &'a [Payment],
    /// (payment index, timeline) for each payment
    pub timelines: &'a [Vec<TimelineEntry>],
    pub since: i64,
    pub currency: &'a str,
}

pub fn report(inp: ReportInput<'_>) -> ReportView {
    let cur = inp.currency;
    let (mut gross, mut refunds, mut pending, mut count, mut pending_count, mut declined, mut dupes) =
        (0i64, 0i64, 0i64, 0u32, 0u32, 0u32, 0u32);
    let mut sales = Vec::new();
    for (p, tl) in inp.payments.iter().zip(inp.timelines) {
        if p.created_at_ms < inp.since || !p.amount.currency.code().eq_ignore_ascii_case(cur) {
            continue;
        }
        dupes += tl
            .iter()
            .filter(|t| t.kind == "attempt" && (t.replayed || t.outcome.as_deref() == Some("in_progress_409")))
            .count() as u32;
        match p.state {
            PaymentState::Captured | PaymentState::Refunding | PaymentState::PartiallyRefunded | PaymentState::Refunded => {
                gross += p.amount.amount_minor;
                refunds += p.refunded_minor;
                count += 1;
                sales.push(Sale { at: p.created_at_ms, amount: p.amount.amount_minor });
            }
            PaymentState::QueuedOffline | PaymentState::Created | PaymentState::Authorizing | PaymentState::Authorized | PaymentState::Capturing => {
                pending += p.amount.amount_minor;
                pending_count += 1;
            }
            PaymentState::Failed => declined += 1,
            PaymentState::Canceled => {}
        }
    }
    ReportView {
        currency: cur.to_string(),
        money: money::MoneyFormat::of(cur),
        since: inp.since,
        gross,
        gross_display: money::format(gross, cur),
        refunds,
        refunds_display: money::format(refunds, cur),
        net: gross - refunds,
        net_display: money::format(gross - refunds, cur),
        payment_count: count,
        pending_count,
        pending,
        pending_display: money::format(pending, cur),
        declined_count: declined,
        duplicates_prevented: dupes,
        sales,
    }
}
