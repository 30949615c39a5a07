//! The receipt as rows of at most a paper width of columns, counted as a thermal printer
//! counts them: a full-width character takes two (East Asian width). Both the text and the
//! ESC/POS renderings print these rows, so they cannot disagree.

use paydesk_tax::{Dining, PriceMode, TaxClass};
use serde::{Deserialize, Serialize};
use unicode_width::UnicodeWidthChar;


use crate::document::Receipt;
use paydesk_domain::Locale;
use crate::labels::{format_date, format_money, format_rate, Labels};

/// Roll width: 58 mm paper prints 32 columns of font A, 80 mm prints 48.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Paper {
    Mm58,
    Mm80,
}

impl Paper {
    pub fn columns(self) -> usize {
        match self {
            Paper::Mm58 => 32,
            Paper::Mm80 => 48,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Align {
    Left,
    Center,
    Right,
}

/// One printed row: `left` and, for a label/amount pair, `right` flush to the right edge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    pub left: String,
    pub right: String,
    pub align: Align,
    pub bold: bool,
    /// Double width and height: each character takes twice its columns.
    pub double: bool,
}

/// Columns a character takes. Japanese printers print every double-byte Shift_JIS character
/// full width, including the "ambiguous" ones (※, ×), so Japanese counts those as two.
pub(crate) fn char_width(c: char, language: Locale) -> usize {
    match language {
        Locale::Ja => c.width_cjk().unwrap_or(0),
        Locale::En => c.width().unwrap_or(0),
    }
}

pub(crate) fn str_width(s: &str, language: Locale) -> usize {
    s.chars().map(|c| char_width(c, language)).sum()
}

/// `s` as exactly `columns` columns, centred: cut at a character that would not fit,
/// padded with spaces (a box's inside on a ryōshūsho).
pub(crate) fn pad(s: &str, columns: usize, language: Locale) -> String {
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = char_width(c, language);
        if used + w > columns {
            break;
        }
        out.push(c);
        used += w;
    }
    let rest = columns - used;
    format!("{}{out}{}", " ".repeat(rest / 2), " ".repeat(rest - rest / 2))
}

/// Splits `s` into pieces of at most `columns` columns, never inside a character.
fn wrap(s: &str, columns: usize, language: Locale) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut used = 0;
    for c in s.chars() {
        let w = char_width(c, language);
        if used + w > columns && used > 0 {
            out.push(String::new());
            used = 0;
        }
        out.last_mut().expect("never empty").push(c);
        used += w;
    }
    out
}

impl Row {
    /// The row as exactly `columns` columns of plain text. Plain text has no double size, so
    /// a double row is laid out at normal size (it was wrapped to half the width).
    pub fn fill(&self, columns: usize, language: Locale) -> String {
        let used = str_width(&self.left, language) + str_width(&self.right, language);
        let pad = columns.saturating_sub(used);
        if !self.right.is_empty() {
            return format!("{}{}{}", self.left, " ".repeat(pad), self.right);
        }
        let (before, after) = match self.align {
            Align::Left => (0, pad),
            Align::Center => (pad / 2, pad - pad / 2),
            Align::Right => (pad, 0),
        };
        format!("{}{}{}", " ".repeat(before), self.left, " ".repeat(after))
    }
}

/// Rows being laid out for one paper width (the receipt's and the shift reports').
pub(crate) struct Rows {
    pub rows: Vec<Row>,
    columns: usize,
    language: Locale,
}

impl Rows {
    pub(crate) fn new(paper: Paper, language: Locale) -> Rows {
        Rows { rows: Vec::new(), columns: paper.columns(), language }
    }

    pub(crate) fn text(&mut self, s: &str, align: Align, bold: bool, double: bool) {
        let columns = if double { self.columns / 2 } else { self.columns };
        for piece in wrap(s, columns, self.language) {
            self.rows.push(Row { left: piece, right: String::new(), align, bold, double });
        }
    }

    /// A label and an amount on one row; a label too long for that gets rows of its own
    /// and the amount goes on the last, flush right.
    pub(crate) fn pair(&mut self, label: &str, amount: &str, bold: bool) {
        let room = self.columns.saturating_sub(str_width(amount, self.language) + 1);
        let mut pieces = wrap(label, self.columns, self.language);
        let last = pieces.pop().unwrap_or_default();
        for p in pieces {
            self.rows.push(Row { left: p, right: String::new(), align: Align::Left, bold, double: false });
        }
        if str_width(&last, self.language) <= room {
            self.rows.push(Row { left: last, right: amount.to_string(), align: Align::Left, bold, double: false });
        } else {
            self.rows.push(Row { left: last, right: String::new(), align: Align::Left, bold, double: false });
            self.rows.push(Row { left: String::new(), right: amount.to_string(), align: Align::Left, bold, double: false });
        }
    }

    pub(crate) fn rule(&mut self) {
        self.text(&"-".repeat(self.columns), Align::Left, false, false);
    }
}

/// The receipt's rows for a paper width.
pub fn layout(r: &Receipt, paper: Paper) -> Vec<Row> {
    let l = Labels::of(r.language);
    let money = |a: i64| format_money(a, r.currency);
    let mut o = Rows::new(paper, r.language);

    o.text(&l.title, Align::Center, true, true);
    if r.reprint {
        o.text(&l.reprint, Align::Center, true, false);
    }
    o.text(&r.store.name, Align::Center, true, false);
    if !r.store.address.is_empty() {
        o.text(&r.store.address, Align::Center, false, false);
    }
    if !r.store.phone.is_empty() {
        o.text(&format!("{} {}", l.tel, r.store.phone), Align::Center, false, false);
    }
    if let Some(reg) = &r.store.registration_number {
        o.text(&format!("{} {}", l.registration, reg), Align::Center, false, false);
    }
    for h in &r.header {
        o.text(h, Align::Center, false, false);
    }
    o.pair(&format_date(&r.issued_at, r.language), &format!("{}{}", l.receipt_no, r.receipt_no), false);
    // Who rang it and at which register (record 0127): asked about at the counter later.
    if r.cashier.is_some() || r.register_no.is_some() {
        let cashier = r.cashier.as_ref().map(|c| format!("{} {c}", l.cashier)).unwrap_or_default();
        let register = r.register_no.map(|n| format!("{} {n}", l.register)).unwrap_or_default();
        o.pair(&cashier, &register, false);
    }
    match r.dining {
        Dining::EatIn => o.text(&l.eat_in, Align::Left, false, false),
        Dining::TakeOut => {}
    }
    o.rule();
    for line in &r.lines {
        let name = if line.reduced { format!("{}{}", l.reduced_mark, line.name) } else { line.name.clone() };
        let gross = line.unit_price * i64::from(line.quantity);
        if let Some(w) = &line.weight {
            // A weighed line (record 0134): its weight and price per unit, then its amount.
            o.text(&name, Align::Left, false, false);
            o.pair(&format!("  {}", w.text(&money)), &money(gross), false);
        } else if line.quantity == 1 {
            o.pair(&name, &money(gross), false);
        } else {
            o.text(&name, Align::Left, false, false);
            o.pair(&format!("  {} x {}", money(line.unit_price), line.quantity), &money(gross), false);
        }
        if line.discount > 0 {
            o.pair(&format!("  {}", l.line_discount), &money(-line.discount), false);
        }
    }
    o.rule();
    o.pair(&l.subtotal, &money(r.subtotal), false);
    if r.sale_discount > 0 {
        o.pair(&l.sale_discount, &money(-r.sale_discount), false);
    }
    o.pair(&l.total, &money(r.total), true);
    for rate in &r.rates {
        let pct = format_rate(rate.ppm);
        match (rate.class, r.price_mode) {
            (TaxClass::Exempt, _) => o.pair(&l.exempt, &money(rate.gross), false),
            // A class taxed at nothing here (New York's grocery food): no tax line of $0.00.
            (TaxClass::Standard | TaxClass::Reduced, _) if rate.ppm == 0 => o.pair(&l.exempt, &money(rate.gross), false),
            (TaxClass::Standard | TaxClass::Reduced, PriceMode::Inclusive) => {
                o.pair(&l.taxable(&pct), &money(rate.gross), false);
                o.pair(&format!("  {}", l.tax_included), &money(rate.tax), false);
            }
            (TaxClass::Standard | TaxClass::Reduced, PriceMode::Exclusive) => {
                o.pair(&l.taxable_excl(&pct), &money(rate.base), false);
                o.pair(&format!("  {}", l.tax), &money(rate.tax), false);
            }
        }
        // The taxes stacked in the rate, each with its rate and share (they add up to the
        // tax above exactly): a customer sees what the state and the city each take.
        if rate.ppm != 0 {
            for p in &rate.parts {
                o.pair(&format!("    {} {}", p.name, format_rate(p.ppm)), &money(p.tax), false);
            }
        }
    }
    if let Some(reason) = &r.tax_exempt_reason {
        // An exempt sale (record 0135): its tax, nothing, and why, under the totals.
        o.pair(&l.tax, &money(r.tax_total), false);
        o.text(&l.exempt_reason(reason), Align::Left, false, false);
    }
    o.rule();
    for t in &r.tenders {
        let name = t.store.as_ref().map_or(l.tender(t.kind), |s| s.name.as_str());
        o.pair(name, &money(t.amount), false);
        if let Some(s) = &t.store {
            if let Some(r) = &s.reference {
                o.pair(&format!("  {}", l.slip), r, false);
            }
            if s.forfeited > 0 {
                // Never change from the drawer: the store keeps what the voucher was worth more.
                o.pair(&format!("  {}", l.no_change), &money(s.forfeited), false);
            }
        }
        if let Some(card) = &t.card {
            if let Some(number) = card.number_line() {
                o.text(&format!("  {number}"), Align::Left, false, false);
            }
            if let Some(name) = &card.application_name {
                o.text(&format!("  {name}"), Align::Left, false, false);
            }
            let fields = [
                (&l.card_aid, &card.aid),
                (&l.card_arc, &card.authorization_response_code),
                (&l.card_auth_code, &card.authorization_code),
            ];
            for (label, value) in fields {
                if let Some(v) = value {
                    o.pair(&format!("  {label}"), v, false);
                }
            }
        }
    }
    if r.tenders.iter().any(|t| t.gives_change()) {
        o.pair(&l.change, &money(r.change), false);
    }
    if r.lines.iter().any(|x| x.reduced) {
        o.text(&l.reduced_legend, Align::Left, false, false);
    }
    for f in &r.footer {
        o.text(f, Align::Center, false, false);
    }
    o.rows
}
