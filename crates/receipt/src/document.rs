//! The receipt document and the pure function that builds it from sale data.

use paydesk_domain::{Currency, Locale, TenderKind};
use paydesk_tax::{compute, Dining, Discount, PriceMode, RegistrationNumber, TaxClass, TaxError, TaxPart, TaxSettings};
use serde::{Deserialize, Serialize};

use crate::weighed::Weighed;

/// Limits on what a receipt prints, so a runaway name cannot eat a roll of paper.
pub const MAX_TEXT_CHARS: usize = 64;
pub const MAX_TEXT_LINES: usize = 8;
pub const MAX_TENDERS: usize = 16;

/// The store as printed at the top. The registration number makes a Japanese receipt a
/// qualified invoice; without it the receipt is still a receipt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreInfo {
    pub name: String,
    #[serde(default)]
    pub address: String,
    #[serde(default)]
    pub phone: String,
    #[serde(default)]
    pub registration_number: Option<RegistrationNumber>,
}

/// The wall-clock time of the sale in the store's time zone, as the ledger recorded it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocalDateTime {
    pub year: u16,
    pub month: u8,
    pub day: u8,
    pub hour: u8,
    pub minute: u8,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineInput {
    pub name: String,
    pub unit_price: i64,
    pub quantity: u32,
    pub class: TaxClass,
    #[serde(default)]
    pub discount: Option<Discount>,
    /// A weighed line's weight and price per unit (record 0134): then `quantity` is 1 and
    /// `unit_price` its amount.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<Weighed>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tender {
    pub kind: TenderKind,
    pub amount: i64,
    /// A card read on a reader: what the PSP's charge said about it, printed under the
    /// tender. `None` for cash and for a keyed card (the register never knows its number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub card: Option<CardReceipt>,
    /// One of the store's own tenders (record 0118): its type's name, slip number, and
    /// what was not given as change. `None` for cash and card.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store: Option<StoreTenderLine>,
}

/// What the receipt prints of a store tender (record 0118).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreTenderLine {
    /// The tender type's name, printed instead of "Other tender".
    pub name: String,
    /// The slip or approval number.
    pub reference: Option<String>,
    /// The type gives change (out of the drawer, like cash).
    pub gives_change: bool,
    /// Counts like cash for the 領収書 stamp rule.
    pub counts_for_stamp: bool,
    /// Worth handed over beyond what was due and not given back ("no change given").
    pub forfeited: i64,
}

/// The card-present lines of a card tender, as the PSP answered them
/// (`payment_method_details.card_present` and its `receipt`), never a token's name.
/// Each field is printed only when the PSP gave it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CardReceipt {
    /// The PSP's brand code: `visa`, `mastercard`, … (printed as the brand's name).
    pub brand: Option<String>,
    pub last4: Option<String>,
    /// The EMV application's name on the chip ("Visa Credit").
    pub application_name: Option<String>,
    /// The EMV application identifier (`dedicated_file_name`), which card schemes require on
    /// the receipt.
    pub aid: Option<String>,
    pub authorization_response_code: Option<String>,
    pub authorization_code: Option<String>,
}

impl CardReceipt {
    /// "Visa ****4242": ASCII stars, since neither WPC1252 nor Shift_JIS has a bullet.
    pub fn number_line(&self) -> Option<String> {
        let brand = self.brand.as_deref().map(brand_name);
        match (brand, self.last4.as_deref()) {
            (Some(b), Some(l4)) => Some(format!("{b} ****{l4}")),
            (Some(b), None) => Some(b),
            (None, Some(l4)) => Some(format!("****{l4}")),
            (None, None) => None,
        }
    }

    fn texts(&self) -> [(&'static str, Option<&str>); 6] {
        [
            ("brand", self.brand.as_deref()),
            ("last4", self.last4.as_deref()),
            ("application_name", self.application_name.as_deref()),
            ("aid", self.aid.as_deref()),
            ("authorization_response_code", self.authorization_response_code.as_deref()),
            ("authorization_code", self.authorization_code.as_deref()),
        ]
    }
}

/// A brand's printed name from the PSP's code; an unknown code prints as given.
pub fn brand_name(code: &str) -> String {
    match code {
        "visa" => "Visa".into(),
        "mastercard" => "Mastercard".into(),
        "amex" => "American Express".into(),
        "jcb" => "JCB".into(),
        "discover" => "Discover".into(),
        "diners" => "Diners Club".into(),
        "unionpay" => "UnionPay".into(),
        "interac" => "Interac".into(),
        other => other.to_string(),
    }
}

/// Everything a receipt shows, as the ledger and the store settings hold it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SaleData {
    pub store: StoreInfo,
    pub language: Locale,
    pub currency: Currency,
    pub receipt_no: String,
    pub issued_at: LocalDateTime,
    pub lines: Vec<LineInput>,
    pub dining: Dining,
    #[serde(default)]
    pub sale_discount: Option<Discount>,
    pub tenders: Vec<Tender>,
    #[serde(default)]
    pub header: Vec<String>,
    #[serde(default)]
    pub footer: Vec<String>,
    /// Who rang the sale (担当者), when the store signs staff in (record 0127).
    #[serde(default)]
    pub cashier: Option<String>,
    /// The register's number in the store (settings.json `register_number`).
    #[serde(default)]
    pub register_no: Option<u32>,
    /// Why the whole sale is tax exempt (record 0135): its tax is computed as exempt and
    /// the receipt says so with the reason. `None` for a taxed sale.
    #[serde(default)]
    pub tax_exempt_reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReceiptLine {
    pub name: String,
    pub quantity: u32,
    pub unit_price: i64,
    pub discount: i64,
    pub net: i64,
    /// Taxed at the reduced rate: printed with ※.
    pub reduced: bool,
    /// A weighed line's weight and price per unit, printed under its name (record 0134).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<Weighed>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReceiptRate {
    pub class: TaxClass,
    /// The rate in parts per million (88 750 = 8.875 %), every tax stacked in it together.
    pub ppm: u32,
    /// The named taxes stacked in the rate and their shares of its tax, printed under it
    /// (record 0131); empty for an unnamed rate (Japan's) and on documents that do not split.
    #[serde(default)]
    pub parts: Vec<TaxPart>,
    pub base: i64,
    pub tax: i64,
    pub gross: i64,
}

/// The document: what every rendering prints, already computed. Plain data, serde-able.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Receipt {
    pub language: Locale,
    pub currency: Currency,
    pub reprint: bool,
    pub store: StoreInfo,
    pub header: Vec<String>,
    pub footer: Vec<String>,
    pub receipt_no: String,
    pub issued_at: LocalDateTime,
    pub dining: Dining,
    pub lines: Vec<ReceiptLine>,
    pub subtotal: i64,
    pub sale_discount: i64,
    pub price_mode: PriceMode,
    pub rates: Vec<ReceiptRate>,
    pub tax_total: i64,
    pub total: i64,
    pub tenders: Vec<Tender>,
    pub paid: i64,
    pub change: i64,
    pub cashier: Option<String>,
    pub register_no: Option<u32>,
    /// The reason of a tax-exempt sale, printed as "Tax exempt: …" (record 0135).
    #[serde(default)]
    pub tax_exempt_reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum ReceiptError {
    #[error(transparent)]
    Tax(#[from] TaxError),
    #[error("{field}: {reason}")]
    BadText { field: String, reason: String },
    #[error("{count} tenders; at most {max}")]
    TooManyTenders { count: usize, max: usize },
    #[error("tender {index}: amount {amount} must be positive")]
    BadTender { index: usize, amount: i64 },
    #[error("the tenders pay {paid} of {total}")]
    Underpaid { paid: i64, total: i64 },
    #[error("change {change} is more than the cash tendered ({cash}); only cash gives change")]
    ChangeWithoutCash { change: i64, cash: i64 },
    #[error("issued_at {year:04}-{month:02}-{day:02} {hour:02}:{minute:02} is not a valid date and time")]
    BadDateTime { year: u16, month: u8, day: u8, hour: u8, minute: u8 },
    /// A ryōshūsho for what was kept after returns (record 0145) whose parts do not pay
    /// exactly what was kept, or whose returns the sale's rates do not hold.
    #[error("the parts pay {parts} of the {kept} kept")]
    KeptUnstated { parts: i64, kept: i64 },
}

/// Longest reason of a tax-exempt sale printed (the ledger keeps at most as many).
pub const MAX_EXEMPT_REASON_CHARS: usize = 200;

/// Largest single tender (10¹⁵ minor units): sixteen of them still add up within `i64`.
const MAX_TENDER: i64 = 1_000_000_000_000_000;

pub(crate) fn check_date_time(t: &LocalDateTime) -> Result<(), ReceiptError> {
    // Gregorian: every 4th year, except centuries not divisible by 400.
    let leap = matches!((t.year % 4, t.year % 100, t.year % 400), (0, 1.., _) | (_, _, 0));
    let days = match t.month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => 0,
    };
    if (2000..=9999).contains(&t.year) && (1..=days).contains(&t.day) && t.hour < 24 && t.minute < 60 {
        return Ok(());
    }
    Err(ReceiptError::BadDateTime { year: t.year, month: t.month, day: t.day, hour: t.hour, minute: t.minute })
}

pub(crate) fn check_text(field: &str, s: &str, allow_empty: bool) -> Result<(), ReceiptError> {
    let bad = |reason: &str| Err(ReceiptError::BadText { field: field.to_string(), reason: reason.to_string() });
    if !allow_empty && s.trim().is_empty() {
        return bad("must not be empty");
    }
    if s.chars().count() > MAX_TEXT_CHARS {
        return bad(&format!("longer than {MAX_TEXT_CHARS} characters"));
    }
    // A control character would reach the printer as a command (ESC, GS…), not as text.
    if s.chars().any(char::is_control) {
        return bad("contains a control character");
    }
    Ok(())
}

fn check_lines(field: &str, lines: &[String]) -> Result<(), ReceiptError> {
    if lines.len() > MAX_TEXT_LINES {
        return Err(ReceiptError::BadText { field: field.to_string(), reason: format!("more than {MAX_TEXT_LINES} lines") });
    }
    lines.iter().enumerate().try_for_each(|(i, l)| check_text(&format!("{field}[{i}]"), l, true))
}

/// Builds the receipt of a sale: computes its tax with `settings` (paydesk-tax), checks every
/// printed text against the limits, and works out the change. `reprint` marks a copy of a
/// receipt that was (or may have been) printed before.
pub fn build_receipt(sale: &SaleData, settings: &TaxSettings, reprint: bool) -> Result<Receipt, ReceiptError> {
    check_text("store.name", &sale.store.name, false)?;
    check_text("store.address", &sale.store.address, true)?;
    check_text("store.phone", &sale.store.phone, true)?;
    check_text("receipt_no", &sale.receipt_no, false)?;
    check_date_time(&sale.issued_at)?;
    check_lines("header", &sale.header)?;
    check_lines("footer", &sale.footer)?;
    for (i, l) in sale.lines.iter().enumerate() {
        check_text(&format!("lines[{i}].name"), &l.name, false)?;
        if let Some(w) = &l.weight {
            w.check(l.unit_price, l.quantity)
                .map_err(|reason| ReceiptError::BadText { field: format!("lines[{i}].weight"), reason })?;
        }
    }
    if sale.tenders.len() > MAX_TENDERS {
        return Err(ReceiptError::TooManyTenders { count: sale.tenders.len(), max: MAX_TENDERS });
    }
    for (index, t) in sale.tenders.iter().enumerate() {
        if t.amount <= 0 || t.amount > MAX_TENDER {
            return Err(ReceiptError::BadTender { index, amount: t.amount });
        }
        // The PSP's words reach the printer too: the same limits as the store's own text.
        if let Some(s) = &t.store {
            check_text(&format!("tenders[{index}].store.name"), &s.name, false)?;
            if let Some(r) = &s.reference {
                check_text(&format!("tenders[{index}].store.reference"), r, false)?;
            }
            if s.forfeited < 0 || s.forfeited > MAX_TENDER {
                return Err(ReceiptError::BadTender { index, amount: s.forfeited });
            }
        }
        for (field, text) in t.card.iter().flat_map(CardReceipt::texts) {
            if let Some(text) = text {
                check_text(&format!("tenders[{index}].card.{field}"), text, false)?;
            }
        }
    }
    if let Some(reason) = &sale.tax_exempt_reason {
        // Longer than a printed name may be (a certificate number with its issuer): wrapped
        // on paper, but never empty and never a printer command.
        let n = reason.trim().chars().count();
        if n == 0 || n > MAX_EXEMPT_REASON_CHARS || reason.chars().any(char::is_control) {
            let why = format!("must be 1 to {MAX_EXEMPT_REASON_CHARS} characters without control characters");
            return Err(ReceiptError::BadText { field: "tax_exempt_reason".into(), reason: why });
        }
    }
    let cart = paydesk_tax::Cart {
        lines: sale
            .lines
            .iter()
            .map(|l| paydesk_tax::Line { unit_price: l.unit_price, quantity: l.quantity, class: l.class, discount: l.discount })
            .collect(),
        dining: sale.dining,
        sale_discount: sale.sale_discount,
        date: paydesk_tax::YearMonthDay { year: sale.issued_at.year, month: sale.issued_at.month, day: sale.issued_at.day },
        exempt: sale.tax_exempt_reason.is_some(),
    };
    let tax = compute(&cart, settings)?;
    let paid: i64 = sale.tenders.iter().map(|t| t.amount).sum();
    if paid < tax.total {
        return Err(ReceiptError::Underpaid { paid, total: tax.total });
    }
    let change = paid - tax.total;
    // Change comes out of the drawer: for cash, and for a store tender whose type gives it.
    let cash: i64 = sale.tenders.iter().filter(|t| t.gives_change()).map(|t| t.amount).sum();
    if change > cash {
        return Err(ReceiptError::ChangeWithoutCash { change, cash });
    }
    let lines = sale
        .lines
        .iter()
        .zip(&tax.lines)
        .map(|(l, r)| ReceiptLine {
            name: l.name.clone(),
            quantity: l.quantity,
            unit_price: l.unit_price,
            discount: r.discount,
            net: r.net,
            reduced: r.is_reduced(),
            weight: l.weight,
        })
        .collect();
    let rates = tax
        .rates
        .iter()
        .map(|r| ReceiptRate { class: r.class, ppm: r.ppm, parts: named_parts(&r.parts), base: r.base, tax: r.tax, gross: r.gross })
        .collect();
    Ok(Receipt {
        language: sale.language,
        currency: sale.currency,
        reprint,
        store: sale.store.clone(),
        header: sale.header.clone(),
        footer: sale.footer.clone(),
        receipt_no: sale.receipt_no.clone(),
        issued_at: sale.issued_at,
        dining: sale.dining,
        lines,
        subtotal: tax.subtotal,
        sale_discount: tax.sale_discount,
        price_mode: tax.price_mode,
        rates,
        tax_total: tax.tax_total,
        total: tax.total,
        tenders: sale.tenders.clone(),
        paid,
        change,
        cashier: sale.cashier.clone(),
        register_no: sale.register_no,
        tax_exempt_reason: sale.tax_exempt_reason.clone(),
    })
}

impl Tender {
    /// Money beyond the due comes back as change from the drawer (cash, and a store tender
    /// whose type gives change; a card is charged exactly).
    pub fn gives_change(&self) -> bool {
        match self.kind {
            TenderKind::Cash => true,
            TenderKind::Card => false,
            TenderKind::Store => self.store.as_ref().is_some_and(|s| s.gives_change),
        }
    }
}

impl Receipt {
    /// Whether printing this receipt should open the cash drawer: cash changed hands, and this
    /// is the first print (a reprint never opens the drawer).
    pub fn opens_drawer(&self) -> bool {
        !self.reprint && self.tenders.iter().any(|t| t.kind == TenderKind::Cash)
    }

    /// The elements of a simplified qualified invoice (適格簡易請求書, Consumption Tax Act
    /// art. 57-4(2)) this receipt lacks; empty means it is one. The document always carries the
    /// date, the items with the reduced-rate mark, and per rate the total and its tax; what a
    /// store can lack is its name or registration number.
    pub fn missing_invoice_elements(&self) -> Vec<&'static str> {
        let mut missing = Vec::new();
        if self.store.name.trim().is_empty() {
            missing.push("store name");
        }
        if self.store.registration_number.is_none() {
            missing.push("registration number");
        }
        if self.lines.is_empty() {
            missing.push("items");
        }
        missing
    }
}

/// The parts a receipt prints under a rate: the named ones; none for an unnamed rate.
pub(crate) fn named_parts(parts: &[TaxPart]) -> Vec<TaxPart> {
    if parts.iter().all(|p| p.name.is_empty()) {
        return Vec::new();
    }
    parts.to_vec()
}
