//! Receipts from the ledger (record 0058): a pure function turns a paid sale and the
//! store's settings into paydesk-receipt's `SaleData` (with the tax settings the sale
//! was locked with), and `receipt_prints` records every print. A sale's receipt is
//! unmarked until a copy may have come out of a printer (record 0058): a retry after a
//! failure that reached no printer is still the original (and opens a cash sale's
//! drawer), a retry after one that may have printed is a reprint. Printing happens after
//! the sale is committed and its outcome is only recorded, never fed back into the sale.

use std::ops::Deref;
use crate::ledger::Receipts;
use paydesk_receipt::{CardReceipt, LineInput, SaleData, StoreInfo, Tender as RTender};
use paydesk_tax::{RegistrationNumber, TaxSettings};
use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

use super::catalog::settings::{settings_tx, tax_settings_tx};
use super::catalog::StoreSettings;
use super::store_clock::store_time;
use super::reader::CardPresentDetails;
use super::{collect, Cached, Ledger, LockedTax, Sale};
use crate::error::{Error, Result};
use paydesk_domain::money::Currency;
use crate::tender::{SaleState, Tender, TenderStanding};
use paydesk_domain::TenderKind;
use crate::types::*;

/// One recorded print.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReceiptPrint {
    pub cart_id: CartId,
    pub print_no: i64,
    pub reprint: bool,
    pub format: String,
    pub target: String,
    pub outcome: String,
    pub error: Option<String>,
    pub at_ms: i64,
    /// Paper may have come out (printed, or stopped part-way).
    pub paper: bool,
}

/// How a print attempt ended, as it is recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrintOutcome {
    Printed,
    /// `may_have_printed`: some of the job may have reached paper (paydesk-receipt's
    /// `PrintError::may_have_printed`: stopped part-way), so the next copy is a reprint.
    Failed { may_have_printed: bool },
    /// Shown or written out, never on paper.
    Rendered,
}

impl PrintOutcome {
    pub(crate) const fn stored(self) -> (&'static str, bool) {
        match self {
            PrintOutcome::Printed => ("printed", true),
            PrintOutcome::Failed { may_have_printed } => ("failed", may_have_printed),
            PrintOutcome::Rendered => ("rendered", false),
        }
    }
}

fn split_lines(s: &str) -> Vec<String> {
    s.lines().filter(|l| !l.trim().is_empty()).map(str::to_string).collect()
}

/// What a receipt prints of a card read on a reader: the PSP's answer as the engine stored
/// it. A text the printer cannot take (a control character) is left off rather than
/// making a paid sale's receipt unprintable.
fn card_receipt(d: &CardPresentDetails) -> CardReceipt {
    // The ledger keeps up to 100 characters of a name; the receipt prints at most 64.
    let printable = |v: &Option<String>| {
        v.as_deref()
            .filter(|s| !s.trim().is_empty() && !s.chars().any(char::is_control))
            .map(|s| s.chars().take(paydesk_receipt::MAX_TEXT_CHARS).collect())
    };
    CardReceipt {
        brand: printable(&d.brand),
        last4: printable(&d.last4),
        application_name: printable(&d.application_preferred_name),
        aid: printable(&d.dedicated_file_name),
        authorization_response_code: printable(&d.authorization_response_code),
        authorization_code: printable(&d.authorization_code),
    }
}

/// The receipt's languages are English and Japanese: it is printed for the currencies of
/// those stores only (a ₩ has no byte in either printer code page).
fn receipt_currency(currency: Currency) -> Result<Currency> {
    match currency {
        Currency::Jpy | Currency::Usd => Ok(currency),
        Currency::Eur | Currency::Gbp | Currency::Krw => {
            Err(Error::InvalidInput(format!("receipts are printed in JPY or USD, not {currency}")))
        }
    }
}

/// A settled tender as the receipt prints it.
fn receipt_tender(t: &Tender, cards: &[(PaymentId, CardPresentDetails)]) -> RTender {
    match t.kind {
        // Cash shows what was handed over; the receipt prints the change.
        TenderKind::Cash => {
            RTender { kind: TenderKind::Cash, amount: t.cash_tendered_minor.unwrap_or(t.amount.amount_minor), card: None, store: None }
        }
        // A store tender shows what it paid (capped at the due when its type gives no
        // change; then the rest is printed as "no change given"), or what was handed
        // over when its type gives change, which the receipt prints like cash's.
        TenderKind::Store => {
            let s = t.store.as_ref();
            let gives_change = s.is_some_and(|s| s.forfeited_minor == 0 && t.change_minor.unwrap_or(0) > 0);
            RTender {
                kind: TenderKind::Store,
                amount: if gives_change { t.amount.amount_minor + t.change_minor.unwrap_or(0) } else { t.amount.amount_minor },
                card: None,
                store: s.map(|s| paydesk_receipt::StoreTenderLine {
                    name: s.type_name.clone(),
                    reference: s.reference.clone(),
                    gives_change,
                    counts_for_stamp: s.counts_for_stamp,
                    forfeited: s.forfeited_minor,
                }),
            }
        }
        TenderKind::Card => RTender {
            kind: TenderKind::Card,
            amount: t.amount.amount_minor,
            card: cards.iter().find(|(p, _)| Some(*p) == t.payment_id).map(|(_, d)| card_receipt(d)),
            store: None,
        },
    }
}

/// Builds a receipt's input from a PAID sale (pure). `names[i]` is the name of
/// `sale.cart.lines[i]` in the store's language; `tax` are the settings the sale's tax
/// was locked with, or the store's current ones for an untaxed sale; `cards` the
/// card-present details of the sale's reader-paid tenders, by payment.
pub fn receipt_sale_data(
    sale: &Sale,
    store: &StoreSettings,
    names: &[String],
    tax: TaxSettings,
    cards: &[(PaymentId, CardPresentDetails)],
) -> Result<(SaleData, TaxSettings)> {
    if sale.state != SaleState::Paid {
        return Err(Error::InvalidInput(format!("sale {} is {:?}: only a paid sale has a receipt", sale.cart.id, sale.state)));
    }
    let currency = receipt_currency(sale.cart.currency)?;
    let lines = sale
        .cart
        .lines
        .iter()
        .zip(names)
        .map(|(l, name)| {
            Ok(LineInput {
                name: name.clone(),
                unit_price: l.unit_price.amount_minor,
                quantity: u32::try_from(l.quantity).map_err(|_| Error::Overflow)?,
                class: l.tax_class,
                discount: l.discount,
                weight: l.weight.map(|w| paydesk_receipt::Weighed { grams: w.grams, unit: w.unit, rate: w.rate.amount_minor }),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let counted = sale.tenders.iter().filter(|t| t.standing == TenderStanding::Active && t.state.is_settled());
    // An exchange's credit (record 0123) prints first, as a tender named after the return
    // it came from: it pays the sale without being money of this sale's.
    let credit = sale.exchange_credit.as_ref().map(|c| RTender {
        kind: TenderKind::Store,
        amount: c.amount_minor,
        card: None,
        store: Some(paydesk_receipt::StoreTenderLine {
            name: paydesk_receipt::exchange_credit_name(store.locale, &c.return_number),
            reference: None,
            gives_change: false,
            counts_for_stamp: false,
            forfeited: 0,
        }),
    });
    let tenders = credit.into_iter().chain(counted.clone().map(|t| receipt_tender(t, cards))).collect();
    let paid_at = counted.map(|t| t.created_at_ms).max().unwrap_or(sale.cart.updated_at_ms);
    let registration_number = store
        .registration_number
        .as_deref()
        .map(RegistrationNumber::parse)
        .transpose()
        .map_err(|e| Error::InvalidInput(format!("registration number: {e}")))?;
    let data = SaleData {
        store: StoreInfo { name: store.name.clone(), address: store.address.clone(), phone: store.phone.clone(), registration_number },
        language: store.locale,
        currency,
        receipt_no: format!("{:06}", sale.cart.id.0),
        issued_at: store_time(paid_at, store),
        lines,
        dining: sale.cart.dining,
        sale_discount: sale.cart.sale_discount,
        tenders,
        header: split_lines(&store.receipt_header),
        footer: split_lines(&store.receipt_footer),
        cashier: None,
        register_no: None,
        tax_exempt_reason: sale.cart.tax_exempt_reason.clone(),
    };
    Ok((data, tax))
}

impl<L: Deref<Target = Ledger>> Receipts<L> {
    /// A paid sale's receipt input, read from the ledger: names in the store's language,
    /// the tax settings the sale was locked with.
    pub fn data(&self, cart_id: CartId) -> Result<(SaleData, TaxSettings)> {
        let sale = self.sales().by_cart(cart_id)?;
        let store = settings_tx(&self.conn)?;
        let lang = store.locale.code();
        let mut names = Vec::with_capacity(sale.cart.lines.len());
        for l in &sale.cart.lines {
            let n: Option<String> = self
                .conn
                .row_cached("SELECT name FROM product_names WHERE product_id = ?1 AND lang = ?2", params![l.product_id.0, lang], |r| r.get(0))
                .optional()?;
            names.push(n.unwrap_or_else(|| l.name.clone()));
        }
        let locked: Option<String> =
            self.conn.row_cached("SELECT tax_locked FROM carts WHERE id = ?1", [cart_id.0], |r| r.get(0))?;
        let tax = match locked {
            Some(doc) => serde_json::from_str::<LockedTax>(&doc)?.settings,
            None => tax_settings_tx(&self.conn)?,
        };
        let mut cards = Vec::new();
        for payment_id in sale.tenders.iter().filter_map(|t| t.payment_id) {
            if let Some(d) = self.card_readers().card_present_details(payment_id)? {
                cards.push((payment_id, d));
            }
        }
        let (mut data, tax) = receipt_sale_data(&sale, &store, &names, tax, &cards)?;
        // Who rang the sale (record 0127): the member signed in when its last tender was
        // taken; none on a register without staff.
        data.cashier = self
            .conn
            .row_cached(
                "SELECT s.name FROM tenders t JOIN staff s ON s.id = t.staff_id WHERE t.cart_id = ?1 ORDER BY t.id DESC LIMIT 1",
                [cart_id.0],
                |r| r.get(0),
            )
            .optional()?;
        Ok((data, tax))
    }

    /// Whether the next print of this sale's receipt is a reprint: an earlier copy may
    /// have come out (printed, or stopped part-way). Attempts that reached no printer do
    /// not count: the next one is still the original.
    pub fn next_print_is_reprint(&self, cart_id: CartId) -> Result<bool> {
        Ok(self.conn.row_cached(
            "SELECT EXISTS (SELECT 1 FROM receipt_prints WHERE cart_id = ?1 AND paper = 1)",
            [cart_id.0],
            |r| r.get(0),
        )?)
    }
}

/// A receipt's text longer than this is recorded without it (its SHA-256 still goes into
/// the audit row): the wire's bound (record 0146).
pub const MAX_RECEIPT_TEXT_BYTES: usize = 96 * 1024;

/// SHA-256 of a receipt's text, as 64 lower-case hex digits.
pub fn receipt_text_sha256(text: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// One print of a receipt as it went: where to, in which format, and how.
#[derive(Debug, Clone, Copy)]
pub struct PrintRecord<'a> {
    pub format: &'a str,
    pub target: &'a str,
    pub outcome: PrintOutcome,
    pub error: Option<&'a str>,
    /// The text printed (the receipt's lines joined by "\n", record 0146); `None` when the
    /// caller has none, which the back office shows as not recorded.
    pub text: Option<&'a str>,
}

impl Receipts<&mut Ledger> {
    /// Records one print (after it was attempted) with the next number of the sale. It is
    /// the original exactly when no earlier copy may have come out
    /// ([`Receipts::next_print_is_reprint`], decided in the same transaction; a trigger
    /// holds the rule). No text: see [`Receipts::record_print_text`].
    pub fn record_print(
        &mut self,
        cart_id: CartId,
        format: &str,
        target: &str,
        outcome: PrintOutcome,
        error: Option<&str>,
        now_ms: i64,
    ) -> Result<ReceiptPrint> {
        self.record_print_text(cart_id, &PrintRecord { format, target, outcome, error, text: None }, now_ms)
    }

    /// [`Receipts::record_print`] with the text that was printed (the receipt's lines joined
    /// by "\n"), and in the same transaction (record 0146) an audit row `receipt_print` naming
    /// the sale, the print and the text's SHA-256, so the text the back office shows is bound
    /// into the chain; the text, who was signed in and that row's seq go up with the print.
    pub fn record_print_text(&mut self, cart_id: CartId, print: &PrintRecord<'_>, now_ms: i64) -> Result<ReceiptPrint> {
        let PrintRecord { format, target, outcome, error, text } = *print;
        let error = error.map(|e| e.chars().take(1000).collect::<String>());
        let target: String = target.chars().take(300).collect();
        let (outcome, paper) = outcome.stored();
        let tx = self.write_tx()?;
        let print_no: i64 =
            tx.row_cached("SELECT COALESCE(MAX(print_no), 0) + 1 FROM receipt_prints WHERE cart_id = ?1", [cart_id.0], |r| r.get(0))?;
        let reprint: bool = tx.row_cached(
            "SELECT EXISTS (SELECT 1 FROM receipt_prints WHERE cart_id = ?1 AND paper = 1)",
            [cart_id.0],
            |r| r.get(0),
        )?;
        tx.exec_cached(
            "INSERT INTO receipt_prints (cart_id, print_no, reprint, format, target, outcome, error, at_ms, paper)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![cart_id.0, print_no, reprint, format, target, outcome, error, now_ms, paper],
        )?;
        let print_id = tx.last_insert_rowid();
        // The hash of what was printed, whatever its length; the text itself only within the
        // wire's bound. No text given: the hash of none ("") says so.
        let sha = receipt_text_sha256(text.unwrap_or(""));
        let kept = text.filter(|t| t.len() <= MAX_RECEIPT_TEXT_BYTES);
        let receipt_no = format!("{:06}", cart_id.0);
        let after = serde_json::json!({
            "sale": cart_id.0, "receipt_no": receipt_no, "print_no": print_no, "reprint": reprint,
            "outcome": outcome, "text_sha256": sha,
        });
        let input = super::audit::AuditInput {
            after: Some(after.to_string()),
            ..super::audit::AuditInput::new("receipt_print", &format!("receipt {receipt_no} (sale {}) print {print_no}", cart_id.0))
        };
        let audit_seq = super::audit::append_audit(&tx, &input, now_ms)?;
        let staff = crate::ledger::session::operator(&tx)?;
        tx.exec_cached(
            "INSERT INTO receipt_texts (print_id, text, text_sha256, staff_id, audit_seq) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![print_id, kept, sha, staff, audit_seq],
        )?;
        tx.commit()?;
        Ok(ReceiptPrint { cart_id, print_no, reprint, format: format.into(), target, outcome: outcome.into(), error, at_ms: now_ms, paper })
    }
}

impl<L: Deref<Target = Ledger>> Receipts<L> {
    /// Sales whose cart is paid, newest first: at most `limit` (1 to 100), older than
    /// `before` when given (the next page). Each one's receipt is read with
    /// [`Receipts::data`]; a paid cart whose sale is not paid has none.
    pub fn paid_sales(&self, before: Option<CartId>, limit: i64) -> Result<Vec<CartId>> {
        if !(1..=100).contains(&limit) {
            return Err(Error::InvalidInput(format!("a page has 1 to 100 sales, not {limit}")));
        }
        collect(
            &self.conn,
            "SELECT id FROM carts WHERE state = 'paid' AND (?1 IS NULL OR id < ?1) ORDER BY id DESC LIMIT ?2",
            params![before.map(|c| c.0), limit],
            |r| Ok(Ok(CartId(r.get(0)?))),
        )
    }

    pub fn prints(&self, cart_id: CartId) -> Result<Vec<ReceiptPrint>> {
        collect(
            &self.conn,
"SELECT print_no, reprint, format, target, outcome, error, at_ms, paper FROM receipt_prints WHERE cart_id = ?1 ORDER BY print_no",
            [cart_id.0],
            |r| {
                Ok(Ok(ReceiptPrint {
                    cart_id,
                    print_no: r.get(0)?,
                    reprint: r.get::<_, i64>(1)? == 1,
                    format: r.get(2)?,
                    target: r.get(3)?,
                    outcome: r.get(4)?,
                    error: r.get(5)?,
                    at_ms: r.get(6)?,
                    paper: r.get(7)?,
                }))
            },
        )
    }
}
