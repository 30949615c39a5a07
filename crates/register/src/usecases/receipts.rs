//! Receipts (record 0058): what a sale's receipt says, whether the next print is a
//! copy, each print recorded, and the paid sales a page lists; and the sale's ryōshūsho
//! (領収書, record 0112): validated, recorded once, built with the store's stamp rule.

use paydesk_domain::{Currency, TenderKind};
use paydesk_receipt::ryoshusho::{build_kept_ryoshusho, build_ryoshusho, Kept, Part, ReturnedRate, Ryoshusho, RyoshushoRequest, StampRule};
use paydesk_receipt::{build_receipt, ReceiptError, SaleData, MAX_TEXT_CHARS};
use paydesk_tax::TaxSettings;
use paydesk_ledger::{
    ryoshusho_generation_number, store_time, CartId, ReceiptPrint, Result, RyoshushoIssue, RyoshushoKept, RyoshushoRecord,
};

use crate::Engine;

/// Receipt use cases; see [`Engine::receipts`].
pub struct ReceiptCases<'e> {
    pub(super) engine: &'e Engine,
}

/// A sale's receipt as the ledger has it, read in one snapshot.
#[derive(Debug, Clone)]
pub struct ReceiptSource {
    pub cart: CartId,
    pub data: SaleData,
    pub tax: TaxSettings,
    /// The next print is a copy (the ledger's rule: an attempt that reached no printer
    /// leaves the next one the original).
    pub next_print_reprint: bool,
    /// Prints recorded so far.
    pub prints: usize,
}

fn source(l: &paydesk_ledger::Ledger, cart: CartId) -> Result<ReceiptSource> {
    let (data, tax) = l.receipts().data(cart)?;
    Ok(ReceiptSource { cart, data, tax, next_print_reprint: l.receipts().next_print_is_reprint(cart)?, prints: l.receipts().prints(cart)?.len() })
}

/// One print of a receipt as it went (the ledger's vocabulary).
pub use paydesk_ledger::PrintRecord;

impl ReceiptCases<'_> {
    /// The receipt's data and tax setup alone.
    pub fn data(&self, cart: CartId) -> Result<(SaleData, TaxSettings)> {
        self.engine.with_reader(|l| l.receipts().data(cart))
    }

    /// The receipt with its print marks.
    pub fn source(&self, cart: CartId) -> Result<ReceiptSource> {
        self.engine.with_reader(|l| source(l, cart))
    }

    /// Records one print after it was attempted; the ledger decides in the same write
    /// whether it was the original.
    pub fn record_print(&self, cart: CartId, print: PrintRecord<'_>) -> Result<ReceiptPrint> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| l.receipts_mut().record_print_text(cart, &print, now))
    }

    /// Paid sales, newest first: at most `limit` (1 to 100) older than `before`, each with
    /// its receipt (one snapshot).
    pub fn paid_sales(&self, before: Option<CartId>, limit: i64) -> Result<Vec<ReceiptSource>> {
        self.engine.with_reader(|l| l.receipts().paid_sales(before, limit)?.into_iter().map(|cart| source(l, cart)).collect())
    }
}

/// A ryōshūsho as issued: the document to print and show, its record, and whether this
/// issue was a reprint of the sale's one (marked 再発行 / REPRINT).
#[derive(Debug, Clone)]
pub struct IssuedRyoshusho {
    pub document: Ryoshusho,
    pub record: RyoshushoRecord,
    pub reprint: bool,
}

/// Why no ryōshūsho was issued: the ledger refused (unpaid sale, another addressee than
/// the recorded one, an unknown sale) or the document did (a text it cannot print).
#[derive(Debug, thiserror::Error)]
pub enum RyoshushoError {
    #[error(transparent)]
    Ledger(#[from] paydesk_ledger::Error),
    #[error(transparent)]
    Document(#[from] ReceiptError),
}

/// What the cashier asks for: to whom and for what; `issued_by` as the ledger's actor.
#[derive(Debug, Clone, Copy)]
pub struct RyoshushoAsk<'a> {
    pub addressee: &'a str,
    pub description: &'a str,
    pub issued_by: Option<i64>,
}

/// The stamp rule of a store, by its currency: the Stamp Duty Act binds receipts issued
/// in Japan, and the currency is what the register knows of the country a store trades
/// in (the language does not: an English-speaking store in Tokyo still owes the duty,
/// record 0112). A yen store has Japan's rule, any other store none.
pub fn stamp_rule(currency: Currency) -> Option<StampRule> {
    match currency {
        Currency::Jpy => Some(StampRule::japan()),
        Currency::Usd | Currency::Eur | Currency::Gbp | Currency::Krw => None,
    }
}

/// The sale's data as the ryōshūsho needs it: the item names are not on it, so a long
/// catalog name is cut rather than making the document unbuildable.
fn nameless(mut data: SaleData) -> SaleData {
    for l in &mut data.lines {
        if l.name.chars().count() > MAX_TEXT_CHARS {
            l.name = l.name.chars().take(MAX_TEXT_CHARS).collect();
        }
    }
    data
}

/// The ryōshūsho's request: the words, its number, and when (in the store's time).
fn request(l: &paydesk_ledger::Ledger, addressee: &str, description: &str, number: String, at_ms: i64) -> Result<RyoshushoRequest> {
    let store = l.catalog().store_settings()?;
    Ok(RyoshushoRequest { addressee: addressee.to_string(), description: description.to_string(), number, issued_at: store_time(at_ms, &store) })
}

/// The ledger's figures of what was kept, as the document takes them (record 0145).
fn kept_of(k: &RyoshushoKept, replaces: String) -> Kept {
    Kept {
        returned: k.returned.iter().map(|r| ReturnedRate { class: r.class, ppm: r.ppm, base: r.base, tax: r.tax, gross: r.gross }).collect(),
        parts: k.parts.iter().map(|p| Part { kind: p.kind, amount: p.amount_minor, counts_for_stamp: p.counts_for_stamp }).collect(),
        replaces,
    }
}

/// The sale's receipt as the ryōshūsho is built from, refusing an unpaid sale as such.
fn paid_receipt(l: &paydesk_ledger::Ledger, cart: CartId) -> std::result::Result<paydesk_receipt::Receipt, RyoshushoError> {
    // The ledger decides this again in the issue's transaction; asked first so that an
    // unpaid sale is refused as such, not as a sale without a receipt.
    let state = l.sales().by_cart(cart)?.state;
    if state != paydesk_ledger::SaleState::Paid {
        return Err(paydesk_ledger::Error::RyoshushoUnpaid { cart_id: cart.0, state: state.as_str() }.into());
    }
    let (data, tax) = l.receipts().data(cart)?;
    Ok(build_receipt(&nameless(data), &tax, false)?)
}

/// The document of a recorded ryōshūsho, as a reprint states it: its words, its date, and
/// for a later generation what was kept (unchanged since: a return needs it back first).
fn reprint_of(l: &paydesk_ledger::Ledger, receipt: &paydesk_receipt::Receipt, r: &RyoshushoRecord) -> std::result::Result<Ryoshusho, RyoshushoError> {
    let rule = stamp_rule(receipt.currency);
    let req = request(l, &r.addressee, &r.description, r.number.clone(), r.issued_at_ms)?;
    match &r.replaces {
        None => Ok(build_ryoshusho(receipt, &req, true, rule.as_ref())?),
        Some(old) => {
            let kept = l.receipts().ryoshusho_kept(r.cart_id)?;
            let doc = build_kept_ryoshusho(receipt, &req, &kept_of(&kept, old.clone()), true, rule.as_ref())?;
            // The record states what was issued; a document that says otherwise is not printed.
            if doc.total != r.total_minor {
                return Err(ReceiptError::KeptUnstated { parts: doc.total, kept: r.total_minor }.into());
            }
            Ok(doc)
        }
    }
}

fn issue_in(l: &mut paydesk_ledger::Ledger, cart: CartId, ask: RyoshushoAsk<'_>, now: i64) -> std::result::Result<IssuedRyoshusho, RyoshushoError> {
    let receipt = paid_receipt(l, cart)?;
    let rule = stamp_rule(receipt.currency);
    // Built before anything is recorded: a text the document refuses records nothing.
    let first = build_ryoshusho(&receipt, &request(l, ask.addressee, ask.description, paydesk_ledger::ryoshusho_number(cart), now)?, false, rule.as_ref())?;
    let cash_minor = first.parts.iter().filter(|p| p.kind == TenderKind::Cash).map(|p| p.amount).sum();
    let issue = RyoshushoIssue {
        addressee: &first.addressee,
        description: &first.description,
        total_minor: first.total,
        cash_minor,
        stamp_duty_minor: first.stamp.map(|s| s.duty_minor),
        issued_by: ask.issued_by,
    };
    let issued = l.receipts_mut().issue_ryoshusho(cart, &issue, now)?;
    // A reprint states what was first issued: its words and its date.
    let document = if issued.reprint { reprint_of(l, &receipt, &issued.record)? } else { first };
    Ok(IssuedRyoshusho { document, record: issued.record, reprint: issued.reprint })
}

/// A new ryōshūsho for what was kept after a return (record 0145): the document built from
/// the ledger's figures first (a text it refuses records nothing), then recorded; the
/// ledger checks the amounts against its own in the same transaction.
fn reissue_in(l: &mut paydesk_ledger::Ledger, cart: CartId, ask: RyoshushoAsk<'_>, now: i64) -> std::result::Result<IssuedRyoshusho, RyoshushoError> {
    let receipt = paid_receipt(l, cart)?;
    let rule = stamp_rule(receipt.currency);
    // Asked first so that a valid one is refused as such (reprint it), not for its amounts.
    let current = l.receipts().ryoshusho_replaceable(cart)?;
    let kept = l.receipts().ryoshusho_kept(cart)?;
    let (replaces, number) = (current.number.clone(), ryoshusho_generation_number(cart, current.generation + 1));
    let doc = build_kept_ryoshusho(&receipt, &request(l, ask.addressee, ask.description, number, now)?, &kept_of(&kept, replaces), false, rule.as_ref())?;
    let issue = RyoshushoIssue {
        addressee: &doc.addressee,
        description: &doc.description,
        total_minor: doc.total,
        cash_minor: kept.cash_minor,
        stamp_duty_minor: doc.stamp.map(|s| s.duty_minor),
        issued_by: ask.issued_by,
    };
    let issued = l.receipts_mut().reissue_ryoshusho(cart, &issue, now)?;
    Ok(IssuedRyoshusho { document: doc, record: issued.record, reprint: false })
}

impl ReceiptCases<'_> {
    /// Issues the sale's ryōshūsho (record 0112): one per sale, the first issue recorded
    /// with its words and amounts, every later one a reprint of it; another addressee or
    /// description than the recorded one is refused. The stamp rule is the store's
    /// ([`stamp_rule`]). After a new one was issued for what was kept (record 0145), a
    /// reprint is of that one.
    pub fn issue_ryoshusho(&self, cart: CartId, ask: RyoshushoAsk<'_>) -> std::result::Result<IssuedRyoshusho, RyoshushoError> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| issue_in(l, cart, ask, now))
    }

    /// Issues a new ryōshūsho for what the customer kept after a return, in place of the
    /// one they handed back (record 0145): the sale's total less what came back, the stamp
    /// judged on the kept cash part by the store's rule.
    pub fn reissue_ryoshusho(&self, cart: CartId, ask: RyoshushoAsk<'_>) -> std::result::Result<IssuedRyoshusho, RyoshushoError> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| reissue_in(l, cart, ask, now))
    }

    /// What the customer kept of the sale after its returns, as the ledger works it out
    /// (the screen offers "Issue new 領収書 for ¥X" with it).
    pub fn ryoshusho_kept(&self, cart: CartId) -> Result<RyoshushoKept> {
        self.engine.with_reader(|l| l.receipts().ryoshusho_kept(cart))
    }

    /// The sale's recorded ryōshūsho, if any (the screen offers a reprint of it).
    pub fn ryoshusho(&self, cart: CartId) -> Result<Option<RyoshushoRecord>> {
        self.engine.with_reader(|l| l.receipts().ryoshusho(cart))
    }
}
