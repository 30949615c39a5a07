//! The cart as the screen shows it: its lines, tax by rate and totals, in the store's
//! words (the commands that change the cart are `store/cart.rs`).

use paydesk_tax::{Dining, PriceMode, TaxClass};
use paydesk_ledger::{Cart, CartState, PriceSource};
use serde::Serialize;

use crate::wording::class_name;
use crate::money;
use crate::wording::discount_label;

#[derive(Debug, Clone, Serialize)]
pub struct CartLine {
    /// The line's number in the sale (record 0126): what a typed-price line is changed by.
    pub line_no: i64,
    /// catalog | open | label
    pub price_source: &'static str,
    /// A typed or label price: the line shares its SKU with others and is changed by its
    /// number (`set_line_quantity`), not by SKU.
    pub by_number: bool,
    pub sku: String,
    pub name: String,
    pub quantity: i64,
    pub unit_price: i64,
    /// `unit_price × quantity`, before the line's discount.
    pub line_total: i64,
    pub unit_price_display: String,
    pub line_total_display: String,
    /// The line's discount in minor units (0 without one) and how it was given.
    pub discount: i64,
    pub discount_display: String,
    pub discount_label: Option<String>,
    /// After the line's discount.
    pub net_display: String,
    /// Taxed at the reduced rate in this sale (shown with ※; eaten in it is not).
    pub reduced: bool,
    pub tax_class: &'static str,
    /// A weighed line's weight and price per unit, as the receipt prints it ("0.452 kg @
    /// $0.69/kg", record 0134); `None` for a line of pieces.
    pub weight_display: Option<String>,
}

/// One rate's part of the sale: taxable total (in the store's price mode) and its tax.
#[derive(Debug, Clone, Serialize)]
pub struct RateLine {
    pub class: &'static str,
    /// Parts per million, every tax stacked in the rate together (88 750 = 8.875 %).
    pub ppm: u32,
    /// "8%", "10%", "8.875%"
    pub rate_label: String,
    /// The named taxes stacked in the rate ("NY State 4%"), empty for an unnamed rate.
    pub parts: Vec<RatePart>,
    pub reduced: bool,
    pub gross: i64,
    pub gross_display: String,
    pub base_display: String,
    pub tax: i64,
    pub tax_display: String,
}

/// One named tax of a rate and its share of the rate's tax (record 0131).
#[derive(Debug, Clone, Serialize)]
pub struct RatePart {
    pub name: String,
    pub rate_label: String,
    pub tax_display: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct CartView {
    pub id: i64,
    pub lines: Vec<CartLine>,
    pub item_count: i64,
    pub currency: String,
    pub total: i64,
    pub total_display: String,
    /// True while a checkout is open or the cart is paid: it cannot change
    /// (record 0004).
    pub locked: bool,
    /// eat_in | take_out
    pub dining: &'static str,
    /// The tax is fixed (first tender taken or a payment open): dining and discounts
    /// are refused (record 0060).
    pub tax_locked: bool,
    /// inclusive | exclusive
    pub price_mode: &'static str,
    pub subtotal_display: String,
    pub sale_discount: i64,
    pub sale_discount_display: String,
    pub sale_discount_label: Option<String>,
    pub tax_total: i64,
    pub tax_total_display: String,
    pub rates: Vec<RateLine>,
    /// Why the whole sale is tax exempt (record 0135); `None` for a taxed sale.
    pub tax_exempt_reason: Option<String>,
    /// The store takes tax-exempt sales (its setting): the screen shows "Tax exempt…".
    pub tax_exempt_allowed: bool,
}

impl CartView {
    /// `names` gives a line's name in the store's language (by SKU), if it has one.
    pub fn of(cart: &Cart, names: &dyn Fn(&str) -> Option<String>) -> CartView {
        let cur = cart.currency;
        let fmt = |m: i64| money::format(m, cur);
        let tax = cart.tax.as_ref();
        let lines: Vec<CartLine> = cart
            .lines
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let figures = tax.and_then(|t| t.lines.get(i));
                let discount = figures.map_or(0, |f| f.discount);
                let net = figures.map_or(l.line_total.amount_minor, |f| f.net);
                CartLine {
                    line_no: l.line_no,
                    price_source: l.price_source.as_str(),
                    // A weighed line (record 0134) shares its item with other weighings.
                    by_number: l.weight.is_some()
                        || match l.price_source {
                            PriceSource::Catalog => false,
                            PriceSource::Open | PriceSource::Label => true,
                        },
                    sku: l.sku.clone(),
                    name: names(&l.sku).unwrap_or_else(|| l.name.clone()),
                    quantity: l.quantity,
                    unit_price: l.unit_price.amount_minor,
                    line_total: l.line_total.amount_minor,
                    unit_price_display: fmt(l.unit_price.amount_minor),
                    line_total_display: fmt(l.line_total.amount_minor),
                    discount,
                    discount_display: fmt(discount),
                    discount_label: l.discount.map(|d| discount_label(d, cur)),
                    net_display: fmt(net),
                    reduced: figures.is_some_and(|f| f.is_reduced()),
                    tax_class: class_name(l.tax_class),
                    weight_display: l.weight.map(|w| {
                        paydesk_receipt::Weighed { grams: w.grams, unit: w.unit, rate: w.rate.amount_minor }.text(&fmt)
                    }),
                }
            })
            .collect();
        let rates = tax
            .map(|t| {
                t.rates
                    .iter()
                    .map(|r| RateLine {
                        class: class_name(r.class),
                        ppm: r.ppm,
                        rate_label: format!("{}%", paydesk_tax::percent_text(r.ppm)),
                        parts: r
                            .parts
                            .iter()
                            .filter(|p| !p.name.is_empty())
                            .map(|p| RatePart { name: p.name.clone(), rate_label: format!("{}%", paydesk_tax::percent_text(p.ppm)), tax_display: fmt(p.tax) })
                            .collect(),
                        // ※ marks a reduced rate; a class at 0 % (New York's food) is not one.
                        reduced: r.class == TaxClass::Reduced && r.ppm > 0,
                        gross: r.gross,
                        gross_display: fmt(r.gross),
                        base_display: fmt(r.base),
                        tax: r.tax,
                        tax_display: fmt(r.tax),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let subtotal = tax.map_or(cart.total.amount_minor, |t| t.subtotal);
        let sale_discount = tax.map_or(0, |t| t.sale_discount);
        let tax_total = tax.map_or(0, |t| t.tax_total);
        let open = match cart.state {
            CartState::Open => true,
            CartState::Locked | CartState::Paid => false,
        };
        CartView {
            id: cart.id.0,
            item_count: lines.iter().map(|l| l.quantity).sum(),
            lines,
            currency: cur.to_string(),
            total: cart.total.amount_minor,
            total_display: fmt(cart.total.amount_minor),
            locked: !open,
            dining: match cart.dining {
                Dining::EatIn => "eat_in",
                Dining::TakeOut => "take_out",
            },
            tax_locked: cart.tax_locked || !open,
            price_mode: match tax.map_or(PriceMode::Inclusive, |t| t.price_mode) {
                PriceMode::Inclusive => "inclusive",
                PriceMode::Exclusive => "exclusive",
            },
            subtotal_display: fmt(subtotal),
            sale_discount,
            sale_discount_display: fmt(sale_discount),
            sale_discount_label: cart.sale_discount.map(|d| discount_label(d, cur)),
            tax_total,
            tax_total_display: fmt(tax_total),
            rates,
            tax_exempt_reason: cart.tax_exempt_reason.clone(),
            // Filled in by the command that answers with the view (one read of the setting).
            tax_exempt_allowed: false,
        }
    }
}
