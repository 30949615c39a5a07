//! The ryōshūsho as rows of the paper's width, in the store's language: the receipt's rows,
//! so text, ESC/POS and HTML cannot disagree.

use paydesk_domain::TenderKind;
use paydesk_i18n::{id, message, tr};
use paydesk_tax::TaxClass;

use super::Ryoshusho;
use crate::labels::{format_date, format_money, format_rate, Labels};
use crate::layout::{Align, Paper, Row, Rows};

pub(super) fn layout(r: &Ryoshusho, paper: Paper) -> Vec<Row> {
    let l = r.language;
    let m = |id: &str| message(l, id);
    let money = |a: i64| format_money(a, r.currency);
    let mut o = Rows::new(paper, l);

    o.text(&m(id!("ryoshusho-title")), Align::Center, true, true);
    if r.reprint {
        o.text(&m(id!("ryoshusho-reprint")), Align::Center, true, false);
    }
    o.pair(&format_date(&r.issued_at, l), &tr!(l, "ryoshusho-number", number = r.number.clone()), false);
    if let Some(old) = &r.replaces {
        o.text(&tr!(l, "ryoshusho-replaces", number = old.clone()), Align::Right, false, false);
    }
    o.rule();
    let to = if r.addressee.is_empty() {
        m(id!("ryoshusho-addressee-blank"))
    } else {
        tr!(l, "ryoshusho-addressee", name = r.addressee.clone())
    };
    o.text(&to, Align::Left, true, false);
    o.text(&tr!(l, "ryoshusho-amount", amount = money(r.total)), Align::Center, true, true);
    o.text(&tr!(l, "ryoshusho-description", text = r.description.clone()), Align::Left, false, false);
    o.text(&m(id!("ryoshusho-received")), Align::Left, false, false);
    o.rule();

    o.text(&m(id!("ryoshusho-breakdown")), Align::Left, false, false);
    for p in &r.parts {
        let label = match p.kind {
            TenderKind::Cash => m(id!("ryoshusho-cash")),
            TenderKind::Card => m(id!("ryoshusho-card")),
            TenderKind::Store => m(id!("ryoshusho-store")),
        };
        o.pair(&format!("  {label}"), &money(p.amount), false);
    }
    for rate in &r.rates {
        match rate.class {
            TaxClass::Exempt => o.pair(&format!("  {}", m(id!("ryoshusho-exempt"))), &money(rate.gross), false),
            TaxClass::Standard | TaxClass::Reduced => {
                let pct = format_rate(rate.ppm);
                o.pair(&format!("  {}", tr!(l, "ryoshusho-taxable", rate = pct)), &money(rate.gross), false);
                o.pair(&format!("    {}", m(id!("ryoshusho-tax-included"))), &money(rate.tax), false);
            }
        }
    }
    stamp_box(&mut o, r, paper);

    o.rule();
    o.text(&r.store.name, Align::Left, true, false);
    if !r.store.address.is_empty() {
        o.text(&r.store.address, Align::Left, false, false);
    }
    let words = Labels::of(l);
    if !r.store.phone.is_empty() {
        o.text(&format!("{} {}", words.tel, r.store.phone), Align::Left, false, false);
    }
    if let Some(reg) = &r.store.registration_number {
        o.text(&format!("{} {reg}", words.registration), Align::Left, false, false);
    }
    o.text(&tr!(l, "ryoshusho-receipt-no", number = r.receipt_no.clone()), Align::Left, false, false);
    o.rows
}

/// Where the revenue stamp goes: a box the size of a stamp with the duty under its name,
/// or the store's approved words instead. Nothing when the cash part needs no stamp.
fn stamp_box(o: &mut Rows, r: &Ryoshusho, paper: Paper) {
    let Some(s) = r.stamp else { return };
    let l = r.language;
    o.rule();
    if let Some(text) = &r.stamp_text {
        o.text(text, Align::Left, false, false);
        return;
    }
    // 14 columns wide, five rows high: about the 2 cm of a ¥200 stamp on 80 mm paper.
    let width = 14.min(paper.columns());
    let edge = format!("+{}+", "-".repeat(width - 2));
    let inside = |s: &str| format!("|{s}|");
    o.text(&edge, Align::Left, false, false);
    o.text(&inside(&crate::layout::pad(&message(l, id!("ryoshusho-stamp")), width - 2, l)), Align::Left, false, false);
    for _ in 0..3 {
        o.text(&inside(&" ".repeat(width - 2)), Align::Left, false, false);
    }
    o.text(&edge, Align::Left, false, false);
    o.text(&tr!(l, "ryoshusho-stamp-duty", duty = format_money(s.duty_minor, r.currency)), Align::Left, false, false);
}
