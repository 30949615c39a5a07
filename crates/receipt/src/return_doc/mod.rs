//! The return document (返品伝票, a qualified return invoice 適格返還請求書): what a return
//! of some lines of a sale gave back (issue #29, record 0114), printed for the customer and
//! kept by the store. It states what the law asks of a return invoice — the store and its
//! registration number, the date of the return and of the original sale and the sale's
//! receipt number, the lines taken back with ※ on the reduced-rate ones, and the amount
//! given back and its tax per rate — and how the money went back (card, cash).
//!
//! Pure: the caller (the engine, from the ledger's return record and the sale's receipt)
//! fills [`ReturnDocument`]; this lays it out in the receipt's rows, so the text and
//! ESC/POS renderings cannot disagree.

use paydesk_domain::{Currency, Locale};
use paydesk_i18n::{id, message, tr};
use paydesk_tax::TaxClass;
use serde::{Deserialize, Serialize};

use crate::document::{LocalDateTime, ReceiptRate, StoreInfo};
use crate::escpos::{rows_escpos, EscPosOptions};
use crate::labels::{format_date, format_money, format_rate, Labels};
use crate::layout::{Align, Paper, Row, Rows};

/// One line taken back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReturnDocLine {
    pub name: String,
    pub quantity: u32,
    /// What the line's net fell by (before the sale discount's share).
    pub amount: i64,
    /// Taxed at the reduced rate: marked ※, as on the sale's receipt.
    pub reduced: bool,
}

/// The document, already computed. Plain data, serde-able.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReturnDocument {
    pub language: Locale,
    pub currency: Currency,
    pub store: StoreInfo,
    /// The return's number (the ledger's `000042-R1`).
    pub number: String,
    pub returned_at: LocalDateTime,
    pub sale_receipt_no: String,
    pub sale_at: LocalDateTime,
    pub lines: Vec<ReturnDocLine>,
    /// What was given back per rate (gross, and the tax in it).
    pub rates: Vec<ReceiptRate>,
    pub total: i64,
    pub card: i64,
    pub cash: i64,
    /// Given back as the store's own tenders (a voucher as a voucher, record 0118).
    #[serde(default)]
    pub store_tenders: i64,
    /// What of the return paid a new sale in an exchange (record 0123), and that sale's
    /// receipt number: the rest of `total` is the card, cash and store parts.
    #[serde(default)]
    pub exchange: Option<(String, i64)>,
    /// A copy after one may have reached paper: marked 【再発行】 / REPRINT under the title,
    /// as a sale's receipt is (record 0117).
    #[serde(default)]
    pub reprint: bool,
    /// The sale was made by another register, restored here after it was replaced
    /// (record 0144): its name, printed under the original receipt number.
    #[serde(default)]
    pub from_register: Option<String>,
}

/// Lines of exactly the paper's columns (the screen).
pub fn render_return_text(d: &ReturnDocument, paper: Paper) -> Vec<String> {
    layout(d, paper).iter().map(|row| row.fill(paper.columns(), d.language)).collect()
}

/// ESC/POS bytes: kanji mode (Shift_JIS) for Japanese, cut; never a drawer kick (the
/// cash left the drawer when the return was recorded).
pub fn render_return_escpos(d: &ReturnDocument, paper: Paper) -> Vec<u8> {
    rows_escpos(&layout(d, paper), d.language, EscPosOptions { paper, cut: true, kick_drawer: false })
}

fn layout(d: &ReturnDocument, paper: Paper) -> Vec<Row> {
    let l = d.language;
    let m = |id: &str| message(l, id);
    let money = |a: i64| format_money(a, d.currency);
    let words = Labels::of(l);
    let mut o = Rows::new(paper, l);
    o.text(&m(id!("return-document-title")), Align::Center, true, true);
    if d.reprint {
        o.text(&words.reprint, Align::Center, true, false);
    }
    o.text(&m(id!("return-document-subtitle")), Align::Center, false, false);
    o.pair(&format_date(&d.returned_at, l), &tr!(l, "return-document-number", number = d.number.clone()), false);
    o.text(&tr!(l, "return-document-sale", date = format_date(&d.sale_at, l)), Align::Left, false, false);
    o.text(&tr!(l, "return-document-sale-no", number = d.sale_receipt_no.clone()), Align::Left, false, false);
    if let Some(name) = &d.from_register {
        o.text(&tr!(l, "return-document-from-register", name = name.clone()), Align::Left, false, false);
    }
    o.rule();
    o.text(&m(id!("return-document-lines")), Align::Left, false, false);
    for line in &d.lines {
        let name = if line.reduced { format!("{}{}", words.reduced_mark, line.name) } else { line.name.clone() };
        o.pair(&tr!(l, "return-document-quantity", name = name, quantity = line.quantity), &money(line.amount), false);
    }
    o.rule();
    // An exchange's return did not give all of its worth back: the total is what came back,
    // and the lines below say where it went (record 0123).
    let total = if d.exchange.is_some() { m(id!("return-document-total-exchange")) } else { m(id!("return-document-total")) };
    o.pair(&total, &money(d.total), true);
    for rate in &d.rates {
        match rate.class {
            TaxClass::Exempt => o.pair(&format!("  {}", m(id!("return-document-exempt"))), &money(rate.gross), false),
            TaxClass::Standard | TaxClass::Reduced => {
                let pct = format_rate(rate.ppm);
                o.pair(&format!("  {}", tr!(l, "return-document-taxable", rate = pct)), &money(rate.gross), false);
                o.pair(&format!("    {}", m(id!("return-document-tax"))), &money(rate.tax), false);
            }
        }
    }
    if d.card > 0 {
        o.pair(&m(id!("return-document-card")), &money(d.card), false);
    }
    if d.cash > 0 {
        o.pair(&m(id!("return-document-cash")), &money(d.cash), false);
    }
    if d.store_tenders > 0 {
        o.pair(&m(id!("return-document-store")), &money(d.store_tenders), false);
    }
    if let Some((number, amount)) = &d.exchange {
        o.pair(&tr!(l, "return-document-exchange", number = number.clone()), &money(*amount), false);
    }
    if d.lines.iter().any(|x| x.reduced) {
        o.text(&words.reduced_legend, Align::Left, false, false);
    }
    o.rule();
    o.text(&d.store.name, Align::Left, true, false);
    if !d.store.address.is_empty() {
        o.text(&d.store.address, Align::Left, false, false);
    }
    if let Some(reg) = &d.store.registration_number {
        o.text(&format!("{} {reg}", words.registration), Align::Left, false, false);
    }
    o.rows
}
