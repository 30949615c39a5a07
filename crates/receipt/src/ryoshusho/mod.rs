//! The ryōshūsho (領収書): the formal receipt a customer asks for at the counter, apart from
//! the sale's receipt (issue #29, record 0112). One pure function from the sale's built
//! [`Receipt`] and what the cashier typed (addressee 宛名, description 但し書き) to a
//! [`Ryoshusho`] with everything worked out — the amount, the cash and card parts, the tax
//! per rate, and whether the cash part needs a revenue stamp ([`StampRule`], data) —
//! laid out in the receipt's rows (`layout.rs`) and so rendered by its own renderers.
//!
//! The card part never counts for the stamp: it is printed as a credit card payment, which
//! is what exempts it. The crate records nothing: the ledger keeps which documents were
//! issued, and says whether this one is a reprint.

mod layout;
mod stamp;

use paydesk_domain::{Currency, Locale, TenderKind};
use serde::{Deserialize, Serialize};

use crate::document::{check_text, LocalDateTime, Receipt, ReceiptError, ReceiptRate, StoreInfo};
use crate::escpos::{rows_escpos, EscPosOptions};
use crate::html::rows_html;
use crate::layout::Paper;

pub use stamp::{cash_before_tax, StampNeeded, StampRule};

/// What the cashier types for one ryōshūsho.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RyoshushoRequest {
    /// To whom (宛名): a company or a person; empty leaves a blank line for the pen.
    pub addressee: String,
    /// What for (但し書き): e.g. "お品代として".
    pub description: String,
    /// The document's own number (the sale's receipt number and a copy count), shown as
    /// the ledger keeps it.
    pub number: String,
    /// When it is issued, in the store's time zone.
    pub issued_at: LocalDateTime,
}

/// How one part of the amount was paid, as the ryōshūsho prints it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Part {
    pub kind: TenderKind,
    /// What this kind paid towards the sale (cash: tendered minus change).
    pub amount: i64,
    /// Judged as cash by the stamp rule: cash, and the store's tenders that say so (record 0118).
    #[serde(default)]
    pub counts_for_stamp: bool,
}

/// The document, already computed. Plain data, serde-able.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ryoshusho {
    pub language: Locale,
    pub currency: Currency,
    pub reprint: bool,
    pub store: StoreInfo,
    pub number: String,
    pub issued_at: LocalDateTime,
    pub addressee: String,
    pub description: String,
    /// The sale's receipt number, printed so the two documents are found together.
    pub receipt_no: String,
    /// The sale's total: what this document acknowledges.
    pub total: i64,
    pub parts: Vec<Part>,
    /// The tax per rate, as the sale's receipt states it.
    pub rates: Vec<ReceiptRate>,
    pub tax_total: i64,
    /// The stamp the cash part needs, when the store's rule asks for one.
    pub stamp: Option<StampNeeded>,
    /// Printed instead of a stamp box when the tax office approved it.
    pub stamp_text: Option<String>,
}

/// Builds the ryōshūsho of a sale's receipt. `stamp`: the store's rule (Japan's for a yen
/// store, `None` where no stamp duty applies). Refuses an addressee or description that
/// is too long or holds a control character; never prints a receipt for an unpaid sale.
pub fn build_ryoshusho(
    sale: &Receipt,
    request: &RyoshushoRequest,
    reprint: bool,
    stamp: Option<&StampRule>,
) -> Result<Ryoshusho, ReceiptError> {
    check_text("addressee", &request.addressee, true)?;
    check_text("description", &request.description, false)?;
    check_text("number", &request.number, false)?;
    crate::document::check_date_time(&request.issued_at)?;
    if sale.paid < sale.total {
        return Err(ReceiptError::Underpaid { paid: sale.paid, total: sale.total });
    }
    let parts = parts_of(sale);
    debug_assert_eq!(parts.iter().map(|p| p.amount).sum::<i64>(), sale.total, "the parts pay the total");
    let cash = parts.iter().filter(|p| p.counts_for_stamp).map(|p| p.amount).sum::<i64>();
    let base = cash_before_tax(cash, sale.tax_total, sale.total);
    Ok(Ryoshusho {
        language: sale.language,
        currency: sale.currency,
        reprint,
        store: sale.store.clone(),
        number: request.number.clone(),
        issued_at: request.issued_at,
        addressee: request.addressee.trim().to_string(),
        description: request.description.trim().to_string(),
        receipt_no: sale.receipt_no.clone(),
        total: sale.total,
        parts,
        rates: sale.rates.clone(),
        tax_total: sale.tax_total,
        stamp: stamp.and_then(|r| r.needed(base)),
        stamp_text: stamp.and_then(|r| r.approved_text.clone()),
    })
}

/// Cash, card, then the store's tenders (those that count for the stamp rule apart from
/// those that do not): cash is what stayed in the drawer (tendered minus change), a card
/// what it was charged. Change is taken from the cash first, then from store tenders that
/// give change (the receipt allows change from nothing else).
fn parts_of(sale: &Receipt) -> Vec<Part> {
    let mut parts: Vec<Part> = Vec::new();
    let mut change = sale.change;
    for kind in TenderKind::ALL {
        let stamp_groups: &[bool] = match kind {
            TenderKind::Cash => &[true],
            TenderKind::Card => &[false],
            TenderKind::Store => &[true, false],
        };
        for &stamp in stamp_groups {
            let counts = |t: &&crate::Tender| match kind {
                TenderKind::Cash | TenderKind::Card => true,
                TenderKind::Store => t.store.as_ref().is_some_and(|s| s.counts_for_stamp) == stamp,
            };
            let ts = sale.tenders.iter().filter(|t| t.kind == kind).filter(counts);
            let paid: i64 = ts.clone().map(|t| t.amount).sum();
            let changeable: i64 = ts.filter(|t| t.gives_change()).map(|t| t.amount).sum();
            let back = change.min(changeable);
            change -= back;
            let amount = paid - back;
            if amount > 0 {
                parts.push(Part { kind, amount, counts_for_stamp: stamp });
            }
        }
    }
    parts
}

/// Lines of exactly the paper's columns (the screen).
pub fn render_ryoshusho_text(r: &Ryoshusho, paper: Paper) -> Vec<String> {
    layout::layout(r, paper).iter().map(|row| row.fill(paper.columns(), r.language)).collect()
}

/// ESC/POS bytes: kanji mode for Japanese, cut; never a drawer kick (no money moves).
pub fn render_ryoshusho_escpos(r: &Ryoshusho, paper: Paper) -> Vec<u8> {
    rows_escpos(&layout::layout(r, paper), r.language, EscPosOptions { paper, cut: true, kick_drawer: false })
}

/// A self-contained printable page with the 80 mm rows.
pub fn render_ryoshusho_html(r: &Ryoshusho) -> String {
    rows_html(&layout::layout(r, Paper::Mm80), r.language, &format!("{} {}", r.store.name, r.number))
}
