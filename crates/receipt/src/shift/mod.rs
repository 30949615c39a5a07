//! The X and Z reports of a shift as a printed document (record 0069): one pure function
//! from the shift's figures as the ledger gives them to a [`DrawerReport`] with every
//! total already worked out, laid out in the same rows as the receipt (`layout.rs`) and
//! so rendered as text, ESC/POS and HTML by the receipt's own renderers (`render.rs`).
//!
//! The crate knows nothing of the ledger: the caller fills [`DrawerReportData`] (names
//! instead of staff ids, local times instead of epoch milliseconds). A Z report prints the
//! audit chain's head recorded at its close as `SEQ:HEX`, the checkpoint `paydesk-cli audit
//! verify --checkpoint` takes back from paper.

mod layout;
mod render;

use serde::{Deserialize, Serialize};

use paydesk_domain::{Currency, TenderKind};

use crate::document::{check_date_time, check_text, LocalDateTime, ReceiptError};
use paydesk_domain::Locale;

pub use render::{render_report_escpos, render_report_html, render_report_text};

/// Paid in / out entries one report prints (the ledger's limit per shift).
pub const MAX_PAID_LINES: usize = 1_000;
/// Denominations one count may list (every currency has fewer).
pub const MAX_COUNT_LINES: usize = 32;
/// Tender lines one report may list: cash, card and one per store tender type (the
/// ledger allows 50 types, record 0118), with room to spare.
pub const MAX_TENDER_LINES: usize = 64;
/// Longest paid in / out reason printed (the ledger's limit).
pub const MAX_REASON_CHARS: usize = 200;
/// Largest amount, count total or figure a report prints (10^13 minor units: far above a
/// drawer's 10^11, far below any i64 trouble when summed).
const MAX_FIGURE: i64 = 10_000_000_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ReportKind {
    /// A look at the open shift: nothing is closed.
    X,
    /// The close of a shift, numbered for the life of the register.
    Z { number: i64 },
}

/// One line of a drawer count: `count` pieces of `denomination` (minor units).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CountLine {
    pub denomination: i64,
    pub count: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PaidKind {
    PaidIn,
    PaidOut,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PaidLine {
    pub kind: PaidKind,
    pub amount: i64,
    pub reason: String,
    /// Who put the cash in or took it out.
    pub by: String,
}

/// One tender line: a kind, or for the store's own tenders one line per tender type
/// (record 0122) with the type's name printed instead of the kind's word.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TenderLine {
    pub kind: TenderKind,
    /// The store tender type's name (`kind` is `Store`); `None` prints the kind's word.
    #[serde(default)]
    pub name: Option<String>,
    pub count: i64,
    pub amount: i64,
}

/// The takings beyond the tenders: what was given back and what was canceled. The sales
/// are the tenders' sum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TakingsLines {
    pub card_refunds: i64,
    pub cash_refunds: i64,
    /// Given back through a store tender (a voucher refunded as a voucher, record 0118).
    #[serde(default)]
    pub store_refunds: i64,
    pub canceled_sales: i64,
    pub canceled_amount: i64,
}

/// The counted sales' tax at one rate (record 0135): taxable amount, tax, and the named
/// taxes stacked in it. An exempt-class line (`ppm` 0 in the exempt class) prints as exempt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaxRateLine {
    pub class: paydesk_tax::TaxClass,
    pub ppm: u32,
    pub base: i64,
    pub tax: i64,
    pub gross: i64,
    /// (name, ppm, tax) of each named tax in the rate; empty for an unnamed rate.
    #[serde(default)]
    pub parts: Vec<(String, u32, i64)>,
}

/// Rate lines one report may list (three classes, a few rates each over a law's change).
pub const MAX_TAX_RATE_LINES: usize = 16;

/// What the close recorded: the blind count and the head of the audit chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CloseData {
    pub closed_by: String,
    #[serde(default)]
    pub approved_by: Option<String>,
    pub closed_at: LocalDateTime,
    pub counted: Vec<CountLine>,
    /// `SEQ:HEX`: the audit chain's last row right after the close's own row.
    pub checkpoint: String,
}

/// The shift's figures as the ledger holds them, with names and local times filled in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrawerReportData {
    pub language: Locale,
    pub currency: Currency,
    pub kind: ReportKind,
    pub store_name: String,
    pub register: String,
    pub opened_by: String,
    pub opened_at: LocalDateTime,
    pub printed_at: LocalDateTime,
    pub float: Vec<CountLine>,
    /// Cash handed over by customers, before change.
    pub cash_received: i64,
    pub change_given: i64,
    pub cash_cancel_returns: i64,
    pub cash_refunds: i64,
    pub paid: Vec<PaidLine>,
    pub tenders: Vec<TenderLine>,
    pub sales: i64,
    /// Refunds, net and canceled sales by End of day's definitions; `None` on a Z
    /// report written before the ledger kept them (then nothing is printed for them).
    #[serde(default)]
    pub takings: Option<TakingsLines>,
    /// Present exactly for a Z report.
    #[serde(default)]
    pub close: Option<CloseData>,
    /// The sales' tax per rate with names and decimals (record 0135); empty prints nothing.
    #[serde(default)]
    pub tax_rates: Vec<TaxRateLine>,
    /// Sales made tax exempt, and what they came to: a line of their own when any.
    #[serde(default)]
    pub exempt_sales: i64,
    #[serde(default)]
    pub exempt_amount: i64,
}

/// The report with every total worked out. Plain data, serde-able: the screen draws its
/// figures, the renderers print its rows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrawerReport {
    pub data: DrawerReportData,
    pub float_total: i64,
    /// Cash sales net of change: what sales left in the drawer.
    pub cash_sales: i64,
    pub paid_in: i64,
    pub paid_out: i64,
    /// float + cash sales − cash returned at cancels − cash refunds + paid in − paid out.
    pub expected: i64,
    /// The tenders' sum − card refunds − cash refunds (when the takings are known).
    pub net: Option<i64>,
    /// The blind count's total (Z only).
    pub counted: Option<i64>,
    /// counted − expected: positive over, negative short (Z only).
    pub over_short: Option<i64>,
}

fn bad(field: &str, reason: impl Into<String>) -> ReceiptError {
    ReceiptError::BadText { field: field.to_string(), reason: reason.into() }
}

fn check_figure(field: &str, v: i64) -> Result<i64, ReceiptError> {
    if (0..=MAX_FIGURE).contains(&v) {
        Ok(v)
    } else {
        Err(bad(field, format!("{v} is not 0 to {MAX_FIGURE} minor units")))
    }
}

/// A count's total: every line a positive denomination and 0 or more pieces, each named
/// once, the total within bounds.
fn count_total(field: &str, lines: &[CountLine]) -> Result<i64, ReceiptError> {
    if lines.len() > MAX_COUNT_LINES {
        return Err(bad(field, format!("more than {MAX_COUNT_LINES} denominations")));
    }
    let mut total: i64 = 0;
    for (i, l) in lines.iter().enumerate() {
        let at = format!("{field}[{i}]");
        if l.denomination <= 0 || l.denomination > MAX_FIGURE || !(0..=MAX_FIGURE).contains(&l.count) {
            return Err(bad(&at, format!("{} pieces of {} is not a count", l.count, l.denomination)));
        }
        if lines[..i].iter().any(|o| o.denomination == l.denomination) {
            return Err(bad(&at, format!("{} is counted twice", l.denomination)));
        }
        let line = l.denomination.checked_mul(l.count).filter(|v| *v <= MAX_FIGURE);
        total = line.and_then(|v| total.checked_add(v)).filter(|v| *v <= MAX_FIGURE).ok_or_else(|| bad(&at, "the count is too large"))?;
    }
    Ok(total)
}

/// `SEQ:HEX` with a SHA-256 in lower-case hex, as `paydesk-cli audit verify --checkpoint`
/// takes it.
fn check_checkpoint(s: &str) -> Result<(), ReceiptError> {
    let ok = s.split_once(':').is_some_and(|(seq, hex)| {
        !seq.is_empty()
            && seq.len() <= 19
            && seq.bytes().all(|b| b.is_ascii_digit())
            && hex.len() == 64
            && hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    });
    if ok {
        Ok(())
    } else {
        Err(bad("close.checkpoint", "not SEQ:HEX (a row number and 64 lower-case hex digits)"))
    }
}

/// Builds the X or Z report: checks every printed text and figure against its limit and
/// works out the float, the expected drawer and, for a Z, the counted total and over/short.
pub fn build_drawer_report(d: &DrawerReportData) -> Result<DrawerReport, ReceiptError> {
    check_text("store_name", &d.store_name, false)?;
    check_text("register", &d.register, false)?;
    check_text("opened_by", &d.opened_by, false)?;
    check_date_time(&d.opened_at)?;
    check_date_time(&d.printed_at)?;
    let float_total = count_total("float", &d.float)?;
    for (field, v) in [
        ("cash_received", d.cash_received),
        ("change_given", d.change_given),
        ("cash_cancel_returns", d.cash_cancel_returns),
        ("cash_refunds", d.cash_refunds),
        ("sales", d.sales),
    ] {
        check_figure(field, v)?;
    }
    if d.change_given > d.cash_received {
        return Err(bad("change_given", "more change given than cash received"));
    }
    if d.paid.len() > MAX_PAID_LINES {
        return Err(bad("paid", format!("more than {MAX_PAID_LINES} entries")));
    }
    let (mut paid_in, mut paid_out) = (0i64, 0i64);
    for (i, p) in d.paid.iter().enumerate() {
        check_figure(&format!("paid[{i}].amount"), p.amount)?;
        check_text(&format!("paid[{i}].by"), &p.by, false)?;
        if p.reason.trim().is_empty() || p.reason.chars().count() > MAX_REASON_CHARS || p.reason.chars().any(char::is_control) {
            return Err(bad(&format!("paid[{i}].reason"), format!("1 to {MAX_REASON_CHARS} characters, no control characters")));
        }
        match p.kind {
            PaidKind::PaidIn => paid_in += p.amount,
            PaidKind::PaidOut => paid_out += p.amount,
        }
    }
    if d.tax_rates.len() > MAX_TAX_RATE_LINES {
        return Err(bad("tax_rates", format!("more than {MAX_TAX_RATE_LINES} lines")));
    }
    for (i, t) in d.tax_rates.iter().enumerate() {
        for (f, v) in [("base", t.base), ("tax", t.tax), ("gross", t.gross)] {
            check_figure(&format!("tax_rates[{i}].{f}"), v)?;
        }
        for (j, p) in t.parts.iter().enumerate() {
            check_text(&format!("tax_rates[{i}].parts[{j}].name"), &p.0, false)?;
            check_figure(&format!("tax_rates[{i}].parts[{j}].tax"), p.2)?;
        }
    }
    check_figure("exempt_sales", d.exempt_sales)?;
    check_figure("exempt_amount", d.exempt_amount)?;
    if d.tenders.len() > MAX_TENDER_LINES {
        return Err(bad("tenders", format!("more than {MAX_TENDER_LINES} lines")));
    }
    for (i, t) in d.tenders.iter().enumerate() {
        check_figure(&format!("tenders[{i}].count"), t.count)?;
        check_figure(&format!("tenders[{i}].amount"), t.amount)?;
        if let Some(n) = &t.name {
            check_text(&format!("tenders[{i}].name"), n, false)?;
        }
    }
    let mut tendered: i64 = 0;
    for t in &d.tenders {
        // At most 64 lines of at most 10^13: no overflow.
        tendered += t.amount;
    }
    let net = match &d.takings {
        None => None,
        Some(k) => {
            for (field, v) in [
                ("takings.card_refunds", k.card_refunds),
                ("takings.cash_refunds", k.cash_refunds),
                ("takings.store_refunds", k.store_refunds),
                ("takings.canceled_sales", k.canceled_sales),
                ("takings.canceled_amount", k.canceled_amount),
            ] {
                check_figure(field, v)?;
            }
            Some(tendered - k.card_refunds - k.cash_refunds - k.store_refunds)
        }
    };
    let cash_sales = d.cash_received - d.change_given;
    // Each term is at most 10^13 and there are seven: no overflow.
    let expected = float_total + cash_sales - d.cash_cancel_returns - d.cash_refunds + paid_in - paid_out;
    let (counted, over_short) = match (&d.kind, &d.close) {
        (ReportKind::X, None) => (None, None),
        (ReportKind::Z { number }, Some(c)) => {
            if *number < 1 {
                return Err(bad("kind.number", format!("Z number {number}: numbers start at 1")));
            }
            check_text("close.closed_by", &c.closed_by, false)?;
            if let Some(a) = &c.approved_by {
                check_text("close.approved_by", a, false)?;
            }
            check_date_time(&c.closed_at)?;
            check_checkpoint(&c.checkpoint)?;
            let counted = count_total("close.counted", &c.counted)?;
            (Some(counted), Some(counted - expected))
        }
        (ReportKind::X, Some(_)) => return Err(bad("close", "an X report has no close")),
        (ReportKind::Z { .. }, None) => return Err(bad("close", "a Z report needs its close (count and checkpoint)")),
    };
    Ok(DrawerReport { data: d.clone(), float_total, cash_sales, paid_in, paid_out, expected, net, counted, over_short })
}

