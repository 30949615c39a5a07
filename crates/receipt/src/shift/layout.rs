//! The X / Z report as rows of the paper's width, with the words of `shift.ftl` in the
//! store's language (the receipt's rows, so the three renderings cannot disagree).

use paydesk_i18n::{id, message, tr};

use super::{CountLine, DrawerReport, PaidKind, ReportKind};
use crate::labels::{format_date, format_money, format_rate, Labels};
use crate::layout::{Align, Paper, Row, Rows};

/// The report's title: "X REPORT" / "Z REPORT No. 3".
pub fn title(r: &DrawerReport) -> String {
    let l = r.data.language;
    match r.data.kind {
        ReportKind::X => message(l, id!("shift-report-x-title")),
        ReportKind::Z { number } => tr!(l, "shift-report-z-title", number = number.to_string()),
    }
}

pub fn layout(r: &DrawerReport, paper: Paper) -> Vec<Row> {
    let d = &r.data;
    let l = d.language;
    let m = |id: &str| message(l, id);
    let money = |a: i64| format_money(a, d.currency);
    let mut o = Rows::new(paper, d.language);
    let counts = |o: &mut Rows, lines: &[CountLine]| {
        for c in lines.iter().filter(|c| c.count > 0) {
            o.pair(&format!("  {} x {}", money(c.denomination), c.count), &money(c.denomination * c.count), false);
        }
    };

    o.text(&title(r), Align::Center, true, true);
    o.text(&d.store_name, Align::Center, true, false);
    o.pair(&m(id!("shift-report-register")), &d.register, false);
    o.pair(&m(id!("shift-report-opened")), &format_date(&d.opened_at, d.language), false);
    o.pair(&format!("  {}", m(id!("shift-report-opened-by"))), &d.opened_by, false);
    match &d.close {
        Some(c) => {
            o.pair(&m(id!("shift-report-closed")), &format_date(&c.closed_at, d.language), false);
            o.pair(&format!("  {}", m(id!("shift-report-closed-by"))), &c.closed_by, false);
            if let Some(a) = &c.approved_by {
                o.pair(&format!("  {}", m(id!("shift-report-approved-by"))), a, false);
            }
        }
        None => o.text(&m(id!("shift-report-not-closed")), Align::Left, false, false),
    }
    o.pair(&m(id!("shift-report-printed")), &format_date(&d.printed_at, d.language), false);
    o.rule();

    o.pair(&m(id!("shift-report-float")), &money(r.float_total), false);
    counts(&mut o, &d.float);
    o.pair(&m(id!("shift-report-cash-sales")), &money(r.cash_sales), false);
    if d.cash_cancel_returns > 0 {
        o.pair(&m(id!("shift-report-cash-cancels")), &money(-d.cash_cancel_returns), false);
    }
    o.pair(&m(id!("shift-report-cash-refunds")), &money(-d.cash_refunds), false);
    for (kind, label, total) in [
        (PaidKind::PaidIn, m(id!("shift-report-paid-in")), r.paid_in),
        (PaidKind::PaidOut, m(id!("shift-report-paid-out")), -r.paid_out),
    ] {
        o.pair(&label, &money(total), false);
        for p in d.paid.iter().filter(|p| p.kind == kind) {
            let signed = match p.kind {
                PaidKind::PaidIn => p.amount,
                PaidKind::PaidOut => -p.amount,
            };
            o.pair(&format!("  {} ({})", p.reason, p.by), &money(signed), false);
        }
    }
    o.pair(&m(id!("shift-report-expected")), &money(r.expected), true);

    if let (Some(c), Some(counted), Some(over_short)) = (&d.close, r.counted, r.over_short) {
        o.rule();
        o.pair(&m(id!("shift-report-counted")), &money(counted), true);
        counts(&mut o, &c.counted);
        let label = match over_short {
            0 => m(id!("shift-report-even")),
            1.. => m(id!("shift-report-over")),
            _ => m(id!("shift-report-short")),
        };
        o.pair(&label, &money(over_short), true);
    }

    o.rule();
    o.text(&m(id!("shift-report-tenders")), Align::Left, false, false);
    let words = Labels::of(d.language);
    for t in &d.tenders {
        // A store tender type by its own name (record 0122), not lumped under its kind.
        let what = match &t.name {
            Some(n) => n.as_str(),
            None => words.tender(t.kind),
        };
        o.pair(&format!("  {} x {}", what, t.count), &money(t.amount), false);
    }
    o.pair(&m(id!("shift-report-sales")), &d.sales.to_string(), false);
    if let (Some(k), Some(net)) = (&d.takings, r.net) {
        o.pair(&m(id!("shift-report-card-refunds")), &money(-k.card_refunds), false);
        o.pair(&m(id!("shift-report-cash-refunds")), &money(-k.cash_refunds), false);
        if k.store_refunds > 0 {
            o.pair(&m(id!("shift-report-store-refunds")), &money(-k.store_refunds), false);
        }
        o.pair(&m(id!("shift-report-net")), &money(net), true);
        if k.canceled_sales > 0 {
            o.pair(&tr!(l, "shift-report-canceled", count = k.canceled_sales.to_string()), &money(k.canceled_amount), false);
        }
    }

    if !d.tax_rates.is_empty() || d.exempt_sales > 0 {
        // The sales' tax by rate with its named parts, and the exempt sales apart (record 0135).
        o.rule();
        o.text(&m(id!("shift-report-tax-rates")), Align::Left, false, false);
        for t in &d.tax_rates {
            if t.ppm == 0 {
                o.pair(&format!("  {}", words.exempt), &money(t.gross), false);
                continue;
            }
            o.pair(&format!("  {}", words.taxable_excl(&format_rate(t.ppm))), &money(t.base), false);
            o.pair(&format!("    {}", words.tax), &money(t.tax), false);
            for (name, ppm, tax) in &t.parts {
                o.pair(&format!("      {name} {}", format_rate(*ppm)), &money(*tax), false);
            }
        }
        if d.exempt_sales > 0 {
            o.pair(&tr!(l, "shift-report-exempt-sales", count = d.exempt_sales.to_string()), &money(d.exempt_amount), false);
        }
    }

    if let Some(c) = &d.close {
        o.rule();
        o.text(&m(id!("shift-report-checkpoint")), Align::Left, false, false);
        // Wrapped to the paper: a reader joins the rows to type it back in.
        o.text(&c.checkpoint, Align::Left, false, false);
    }
    o.rows
}
