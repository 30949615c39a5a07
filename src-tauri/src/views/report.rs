//! The end-of-day report: the day's takings by the ledger's definitions (`Takings`, the
//! same figures the X and Z reports print: every tender once, cash, card, split and
//! offline alike; canceled sales apart), pending and declined payments, and the
//! duplicate charges the idempotency keys prevented.

use paydesk_ledger::{store_time, PaymentDayStats, StoreSettings, Taken, Takings};
use paydesk_domain::Currency;
use serde::Serialize;

use crate::money;

#[derive(Debug, Clone, Serialize)]
pub struct Sale {
    pub at: i64,
    pub amount: i64,
    /// The hour (0-23) of `at` in the store's time zone: the chart's bar it belongs to.
    pub hour: u8,
}

#[derive(Debug, Clone, Serialize)]
pub struct ReportView {
    pub currency: String,
    /// For amounts the UI sums itself (sales per hour, chart axes).
    pub money: money::MoneyFormat,
    pub since: i64,
    /// The hour (0-23) it is now in the store's time zone: the chart runs up to it.
    pub now_hour: u8,
    /// Every tender that paid for a sale (not canceled), each once.
    pub gross: i64,
    pub gross_display: String,
    /// Card refunds + cash refunds.
    pub refunds: i64,
    pub refunds_display: String,
    pub card_refunds: i64,
    pub card_refunds_display: String,
    pub cash_refunds: i64,
    pub cash_refunds_display: String,
    pub net: i64,
    pub net_display: String,
    /// Tenders counted in `gross` (a split sale's cash and card are two).
    pub payment_count: i64,
    /// Sales paid by those tenders.
    pub sale_count: i64,
    /// Canceled sales, and what their tenders had taken before the cancel gave it back.
    pub canceled_count: i64,
    pub canceled: i64,
    pub canceled_display: String,
    /// Card tenders whose outcome is not known yet (or authorized, not captured): not in
    /// `gross`.
    pub pending_count: i64,
    pub pending: i64,
    pub pending_display: String,
    /// Of `gross`: card tenders accepted offline, not confirmed by the processor yet.
    pub offline_count: i64,
    pub offline: i64,
    pub offline_display: String,
    pub declined_count: i64,
    /// Attempts the PSP answered with its stored first response (replays) or
    /// turned away because the first was still running (409): each would have been
    /// a second charge without the idempotency key.
    pub duplicates_prevented: i64,
    /// Each tender in `gross` with its time and the store's hour of it, for the per-hour
    /// chart: the bars add up to `gross`.
    pub sales: Vec<Sale>,
    /// The store's own tenders of `gross`, one row per tender type (record 0122).
    pub by_store_type: Vec<StoreTypeRow>,
    /// The counted sales' tax per rate with its named parts (record 0135).
    pub tax_rates: Vec<RateRow>,
    /// Of the counted sales: those made tax exempt, and what they came to.
    pub exempt_count: i64,
    pub exempt: i64,
    pub exempt_display: String,
}

/// One rate's tax of the day: its rate with the decimals it needs ("8.875"), taxable amount
/// and tax, and the named taxes stacked in it.
#[derive(Debug, Clone, Serialize)]
pub struct RateRow {
    /// `standard` | `reduced` | `exempt`, and the rate in ppm: the row's id on screen.
    pub class: paydesk_tax::TaxClass,
    pub ppm: u32,
    pub rate: String,
    pub base: i64,
    pub base_display: String,
    pub tax: i64,
    pub tax_display: String,
    pub parts: Vec<RatePartRow>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RatePartRow {
    pub name: String,
    pub rate: String,
    pub tax: i64,
    pub tax_display: String,
}

/// One store tender type's takings: name, count, amount.
#[derive(Debug, Clone, Serialize)]
pub struct StoreTypeRow {
    pub id: i64,
    pub name: String,
    pub count: i64,
    pub amount: i64,
    pub amount_display: String,
}

pub struct ReportInput<'a> {
    pub takings: &'a Takings,
    pub taken: &'a [Taken],
    pub stats: PaymentDayStats,
    pub since: i64,
    pub now_ms: i64,
    /// Its time zone places "today" and the chart's hours.
    pub store: &'a StoreSettings,
    pub currency: Currency,
}

pub fn report(inp: ReportInput<'_>) -> ReportView {
    let cur = inp.currency;
    let k = inp.takings;
    let fmt = |m: i64| money::format(m, cur);
    ReportView {
        currency: cur.code().to_string(),
        money: money::MoneyFormat::of(cur),
        since: inp.since,
        now_hour: store_time(inp.now_ms, inp.store).hour,
        gross: k.sales_minor,
        gross_display: fmt(k.sales_minor),
        refunds: k.refunds_minor,
        refunds_display: fmt(k.refunds_minor),
        card_refunds: k.card_refunds_minor,
        card_refunds_display: fmt(k.card_refunds_minor),
        cash_refunds: k.cash_refunds_minor,
        cash_refunds_display: fmt(k.cash_refunds_minor),
        net: k.net_minor,
        net_display: fmt(k.net_minor),
        payment_count: k.tender_count,
        sale_count: k.sale_count,
        canceled_count: k.canceled_sales,
        canceled: k.canceled_minor,
        canceled_display: fmt(k.canceled_minor),
        pending_count: k.pending_count,
        pending: k.pending_minor,
        pending_display: fmt(k.pending_minor),
        offline_count: k.offline_count,
        offline: k.offline_minor,
        offline_display: fmt(k.offline_minor),
        declined_count: inp.stats.declined,
        duplicates_prevented: inp.stats.duplicates_prevented,
        sales: inp.taken.iter().map(|t| Sale { at: t.at_ms, amount: t.amount_minor, hour: store_time(t.at_ms, inp.store).hour }).collect(),
        by_store_type: k
            .by_store_type
            .iter()
            .map(|s| StoreTypeRow { id: s.tender_type_id.0, name: s.name.clone(), count: s.count, amount: s.amount_minor, amount_display: fmt(s.amount_minor) })
            .collect(),
        tax_rates: k
            .tax_rates
            .iter()
            .map(|r| RateRow {
                class: r.class,
                ppm: r.ppm,
                rate: paydesk_tax::percent_text(r.ppm),
                base: r.base_minor,
                base_display: fmt(r.base_minor),
                tax: r.tax_minor,
                tax_display: fmt(r.tax_minor),
                parts: r
                    .parts
                    .iter()
                    .map(|(name, ppm, tax)| RatePartRow { name: name.clone(), rate: paydesk_tax::percent_text(*ppm), tax: *tax, tax_display: fmt(*tax) })
                    .collect(),
            })
            .collect(),
        exempt_count: k.exempt_sale_count,
        exempt: k.exempt_minor,
        exempt_display: fmt(k.exempt_minor),
    }
}
