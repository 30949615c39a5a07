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
    /// The number of the ryōshūsho this one replaces, when it was issued for what the
    /// customer kept after a return (record 0145); printed so the two are found together.
    #[serde(default)]
    pub replaces: Option<String>,
}

/// What the customer kept of a sale after its returns (record 0145), as the ledger worked
/// it out: what was given back per tax rate, and how the part kept was paid.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kept {
    /// What the returns took back, per rate (`class`, `ppm`) as the sale bore it.
    pub returned: Vec<ReturnedRate>,
    /// How what was kept was paid: what each kind still holds after every give-back.
    pub parts: Vec<Part>,
    /// The number of the ryōshūsho the new one replaces (handed back at a return).
    pub replaces: String,
}

/// What returns took back at one rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReturnedRate {
    pub class: paydesk_tax::TaxClass,
    pub ppm: u32,
    pub base: i64,
    pub tax: i64,
    pub gross: i64,
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
        replaces: None,
    })
}

/// Builds the ryōshūsho for what the customer kept of a sale after returns (record 0145):
/// the sale's total less what came back, its tax per rate less the returned tax, paid by
/// `kept.parts` (what each tender still holds), the stamp judged on the kept cash part by
/// the same rule as any ryōshūsho. Refuses, besides what [`build_ryoshusho`] refuses: a
/// return the sale's rates do not hold, nothing kept, or parts that do not pay exactly
/// what was kept ([`ReceiptError::KeptUnstated`]): never a document for more than the
/// customer paid and kept.
pub fn build_kept_ryoshusho(
    sale: &Receipt,
    request: &RyoshushoRequest,
    kept: &Kept,
    reprint: bool,
    stamp: Option<&StampRule>,
) -> Result<Ryoshusho, ReceiptError> {
    let whole = build_ryoshusho(sale, request, reprint, stamp)?;
    check_text("replaces", &kept.replaces, false)?;
    let mut rates = whole.rates.clone();
    for r in &kept.returned {
        let Some(at) = rates.iter_mut().find(|x| x.class == r.class && x.ppm == r.ppm) else {
            return Err(ReceiptError::KeptUnstated { parts: 0, kept: 0 });
        };
        at.base -= r.base;
        at.tax -= r.tax;
        at.gross -= r.gross;
        // A rate's named parts cannot be split by what came back: the kept document states
        // the rate's tax alone.
        at.parts.clear();
        if at.base < 0 || at.tax < 0 || at.gross < 0 {
            return Err(ReceiptError::KeptUnstated { parts: 0, kept: at.gross });
        }
    }
    rates.retain(|r| r.gross > 0);
    let total = whole.total - kept.returned.iter().map(|r| r.gross).sum::<i64>();
    let tax_total = whole.tax_total - kept.returned.iter().map(|r| r.tax).sum::<i64>();
    let paid: i64 = kept.parts.iter().map(|p| p.amount).sum();
    if total <= 0 || paid != total || kept.parts.iter().any(|p| p.amount <= 0) {
        return Err(ReceiptError::KeptUnstated { parts: paid, kept: total });
    }
    let cash = kept.parts.iter().filter(|p| p.counts_for_stamp).map(|p| p.amount).sum::<i64>();
    let base = cash_before_tax(cash, tax_total, total);
    Ok(Ryoshusho {
        total,
        parts: kept.parts.clone(),
        rates,
        tax_total,
        stamp: stamp.and_then(|r| r.needed(base)),
        replaces: Some(kept.replaces.clone()),
        ..whole
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
