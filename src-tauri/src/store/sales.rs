//! Every paid sale's receipt within reach (record 0058): the Payments screen lists
//! paid sales newest first, a page at a time, whatever paid them (cash only, card,
//! split), so any past receipt can be shown and reprinted, not only a card payment's.
//! Each row is read from the same receipt document the screen and the printer use.

use paydesk_domain::TenderKind as RKind;
use paydesk_receipt::build_receipt;
use paydesk_ledger::CartId;
use paydesk_register::ReceiptOpen;
use serde::Serialize;
use tauri::State;

use super::receipt::{printable, receipt_build_error, receipt_error};
use crate::error::{AppError, AppResult};
use crate::i18n::{active, id, t, tr};
use crate::money;
use crate::state::AppState;

/// Sales in one page of the list.
pub const PAGE: i64 = 20;

#[derive(Debug, Serialize)]
pub struct SaleRow {
    pub cart_id: i64,
    pub receipt_no: String,
    /// The store's local time of payment, "2026-12-01 09:01".
    pub issued_at: String,
    pub total: i64,
    pub total_display: String,
    /// "Cash ¥2,000 · Card ¥500", in the screen's language.
    pub tenders: String,
    /// Prints so far: the next one is a reprint when this is above zero.
    pub prints: usize,
}

#[derive(Debug, Serialize)]
pub struct SalesPage {
    pub sales: Vec<SaleRow>,
    /// Pass as `before` for the next (older) page; `None` on the last page.
    pub next_before: Option<i64>,
}

/// One page of paid sales, newest first; `before` (a sale number) for older ones.
#[tauri::command]
pub fn list_sales(state: State<'_, AppState>, before: Option<i64>) -> AppResult<SalesPage> {
    let before = match before {
        None => None,
        Some(b) if b > 0 => Some(CartId(b)),
        Some(_) => return Err(AppError::InvalidInput(tr!(active(), "input-sale-number"))),
    };
    let engine = state.engine();
    let sources = engine.receipts().paid_sales(before, PAGE).map_err(receipt_error)?;
    let ids: Vec<CartId> = sources.iter().map(|s| s.cart).collect();
    let rows: Vec<_> = sources.into_iter().map(|s| (s.cart, build_receipt(&printable(s.data), &s.tax, false), s.prints)).collect();
    let mut sales = Vec::with_capacity(rows.len());
    for (cart, built, prints) in rows {
        let r = built.map_err(receipt_build_error)?;
        let code = r.currency;
        let tenders = r
            .tenders
            .iter()
            .map(|tn| {
                let kind = match tn.kind {
                    RKind::Cash => t(id!("tender-cash")),
                    RKind::Card => t(id!("tender-card")),
                    // the store's own tender type by its name (record 0118)
                    RKind::Store => tn.store.as_ref().map_or_else(|| t(id!("tender-store")), |s| s.name.clone()),
                };
                format!("{kind} {}", money::format(tn.amount, code))
            })
            .collect::<Vec<_>>()
            .join(" · ");
        let at = r.issued_at;
        sales.push(SaleRow {
            cart_id: cart.0,
            receipt_no: r.receipt_no.clone(),
            issued_at: format!("{:04}-{:02}-{:02} {:02}:{:02}", at.year, at.month, at.day, at.hour, at.minute),
            total: r.total,
            total_display: money::format(r.total, code),
            tenders,
            prints,
        });
    }
    let full = i64::try_from(ids.len()).unwrap_or(i64::MAX) == PAGE;
    Ok(SalesPage { sales, next_before: ids.last().filter(|_| full).map(|c| c.0) })
}

/// The paid sale whose receipt number was typed or scanned at Payments → Receipts (the
/// barcode under every printed receipt, record 0123): its number, for the screen to open
/// with its Return items. Refused: anything but 1 to 20 digits, a number no paid sale has.
#[tauri::command]
pub fn find_receipt(state: State<'_, AppState>, number: String) -> AppResult<i64> {
    let l = active();
    let n = crate::sale::returns::checked_receipt_no(&number)?;
    // Receipt numbers are the sale's number, zero-padded (`000042`).
    let cart = n.trim_start_matches('0').parse::<i64>().ok().filter(|c| *c > 0).map(CartId);
    let paid = cart.and_then(|c| state.engine().receipts().source(c).ok().map(|_| c));
    paid.map(|c| c.0).ok_or_else(|| AppError::InvalidInput(tr!(l, "receipt-find-none", number = n.to_string())))
}

/// One sale a receipt number may be, as the picker shows it (record 0159).
#[derive(Debug, Serialize)]
pub struct ReceiptCandidateRow {
    /// `own` (this register's paid sale: open it by `cart`) or `restored` (a predecessor's:
    /// open it by `source` and `sale`).
    pub kind: &'static str,
    pub cart: Option<i64>,
    pub source: Option<String>,
    pub sale: i64,
    /// The predecessor's name as restored (its id when it has none); `None` for this register.
    pub register_name: Option<String>,
    pub receipt_no: String,
    /// The store's local time of payment, "2026-12-01 09:01".
    pub issued_at: String,
    pub total: i64,
    pub total_display: String,
}

/// Every sale a receipt number may be (at most `MAX_RECEIPT_CANDIDATES`); `found` is how
/// many there are.
#[derive(Debug, Serialize)]
pub struct ReceiptCandidatesView {
    pub candidates: Vec<ReceiptCandidateRow>,
    pub found: usize,
}

/// Payments → Receipts' number (typed, or a receipt's barcode scanned): EVERY sale with
/// that number — this register's own paid sale and each restored predecessor's (record
/// 0159): a replacement register's ids start at 1 as its predecessor's did, so one number
/// can be on several customers' receipts, and the cashier picks the one on the paper.
/// Refused: anything but 1 to 20 digits, a number no sale has (`invalid_input`).
#[tauri::command]
pub fn find_receipt_candidates(state: State<'_, AppState>, number: String) -> AppResult<ReceiptCandidatesView> {
    let l = active();
    let n = crate::sale::returns::checked_receipt_no(&number)?;
    let found = state.engine().receipt_candidates(n)?;
    if found.candidates.is_empty() {
        return Err(AppError::InvalidInput(tr!(l, "receipt-find-none", number = n.to_string())));
    }
    let candidates = found
        .candidates
        .into_iter()
        .map(|c| {
            let (kind, cart, source, sale) = match c.open {
                ReceiptOpen::Own { cart } => ("own", Some(cart), None, cart),
                ReceiptOpen::Restored { source, sale } => ("restored", None, Some(source), sale),
            };
            let at = c.at;
            ReceiptCandidateRow {
                kind,
                cart,
                source,
                sale,
                register_name: c.register_name,
                receipt_no: c.receipt_no,
                issued_at: format!("{:04}-{:02}-{:02} {:02}:{:02}", at.year, at.month, at.day, at.hour, at.minute),
                total: c.total_minor,
                total_display: money::format(c.total_minor, c.currency),
            }
        })
        .collect();
    Ok(ReceiptCandidatesView { candidates, found: found.found })
}
