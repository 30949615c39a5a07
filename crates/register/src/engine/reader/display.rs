//! What the customer sees on the reader before the card is asked for (issue #27): the
//! sale's lines when they are what is being charged, otherwise one honest line.
//!
//! The PSP (Stripe's `set_reader_display`, and the mock PSP likewise) refuses a cart whose
//! lines (amount × quantity) and tax do not add up to its total, and the total must be
//! what the reader will charge. So the lines are shown only when that holds exactly:
//! the whole sale on one tender, no discounts (a discount has no line of its own on the
//! reader), every line priced per unit, the tax the rest. Any other case — a split
//! tender, a discount, a payment without a sale — shows one line with the amount.
//! No I/O here: the caller reads the cart and sends the display.

use crate::psp::{ReaderCart, ReaderCartLine};
use paydesk_ledger::Cart;
use paydesk_domain::Money;

/// Lines a reader's display is given at most; a longer sale shows one line.
pub(crate) const MAX_DISPLAY_LINES: usize = 30;
/// Characters of an item's name on the reader's display.
const MAX_DESCRIPTION_CHARS: usize = 100;

/// The cart the reader shows for a payment of `amount` (`cart`: its sale, if any).
pub(crate) fn display_cart(cart: Option<&Cart>, amount: Money) -> ReaderCart {
    cart.and_then(|c| lines_of(c, amount)).unwrap_or_else(|| one_line(cart.map(|c| c.id.0), amount))
}

fn lines_of(cart: &Cart, amount: Money) -> Option<ReaderCart> {
    let whole_sale = cart.total == amount && cart.currency == amount.currency;
    let discounted = cart.sale_discount.is_some() || cart.lines.iter().any(|l| l.discount.is_some());
    if !whole_sale || discounted || cart.lines.is_empty() || cart.lines.len() > MAX_DISPLAY_LINES {
        return None;
    }
    let mut sum: i64 = 0;
    let mut lines = Vec::with_capacity(cart.lines.len());
    for l in &cart.lines {
        // unit × quantity must be the line's total, or the cart would not add up
        if l.quantity <= 0 || l.unit_price.amount_minor.checked_mul(l.quantity)? != l.line_total.amount_minor {
            return None;
        }
        sum = sum.checked_add(l.line_total.amount_minor)?;
        lines.push(ReaderCartLine { description: description(&l.name), amount: l.unit_price.amount_minor, quantity: l.quantity });
    }
    // Prices without tax: the tax is what the total adds; with tax in the prices it is 0.
    let tax = amount.amount_minor.checked_sub(sum).filter(|t| *t >= 0)?;
    Some(ReaderCart { currency: amount.currency.code().to_string(), tax, total: amount.amount_minor, lines })
}

fn one_line(sale: Option<i64>, amount: Money) -> ReaderCart {
    let description = match sale {
        Some(n) => format!("Sale {n}"),
        None => "Payment".to_string(),
    };
    ReaderCart {
        currency: amount.currency.code().to_string(),
        tax: 0,
        total: amount.amount_minor,
        lines: vec![ReaderCartLine { description, amount: amount.amount_minor, quantity: 1 }],
    }
}

fn description(name: &str) -> String {
    let t = name.trim();
    let d: String = t.chars().filter(|c| !c.is_control()).take(MAX_DESCRIPTION_CHARS).collect();
    if d.is_empty() { "Item".to_string() } else { d }
}

#[cfg(test)]
mod tests {
    use super::*;
    use paydesk_ledger::{CartId, CartLine, CartState, ProductId};
    use paydesk_domain::Currency;

    fn line(name: &str, unit: i64, qty: i64) -> CartLine {
        CartLine {
            line_no: 1,
            product_id: ProductId(1),
            sku: "X".into(),
            name: name.into(),
            quantity: qty,
            unit_price: Money::new(unit, Currency::Usd),
            line_total: Money::new(unit * qty, Currency::Usd),
            tax_class: paydesk_tax::TaxClass::Standard,
            discount: None,
            price_source: paydesk_ledger::PriceSource::Catalog,
            weight: None,
        }
    }

    fn cart(lines: Vec<CartLine>, total: i64) -> Cart {
        Cart {
            id: CartId(7),
            currency: Currency::Usd,
            state: CartState::Locked,
            lines,
            total: Money::new(total, Currency::Usd),
            created_at_ms: 0,
            updated_at_ms: 0,
            dining: paydesk_tax::Dining::default(),
            sale_discount: None,
            tax: None,
            tax_locked: false,
            held: false,
            tax_exempt_reason: None,
        }
    }

    fn adds_up(c: &ReaderCart) -> bool {
        c.lines.iter().map(|l| l.amount * l.quantity).sum::<i64>() + c.tax == c.total
    }

    #[test]
    fn the_whole_sale_shows_its_lines_and_the_tax_is_the_rest() {
        let c = cart(vec![line("Tea", 350, 2), line("Bagel", 275, 1)], 1_050);
        let d = display_cart(Some(&c), Money::new(1_050, Currency::Usd));
        assert_eq!(d.lines.iter().map(|l| (l.description.as_str(), l.amount, l.quantity)).collect::<Vec<_>>(), [("Tea", 350, 2), ("Bagel", 275, 1)]);
        assert_eq!((d.tax, d.total, d.currency.as_str()), (75, 1_050, "usd"));
        assert!(adds_up(&d));
    }

    #[test]
    fn a_split_tender_a_discount_or_no_sale_shows_one_line_that_adds_up() {
        let c = cart(vec![line("Tea", 350, 2)], 700);
        let part = display_cart(Some(&c), Money::new(400, Currency::Usd));
        assert_eq!((part.lines.len(), part.lines[0].description.as_str(), part.total), (1, "Sale 7", 400));
        let mut discounted = cart(vec![line("Tea", 350, 2)], 630);
        discounted.sale_discount = Some(paydesk_tax::Discount::Percent { basis_points: 1000 });
        let d = display_cart(Some(&discounted), Money::new(630, Currency::Usd));
        assert_eq!((d.lines.len(), d.total), (1, 630));
        let none = display_cart(None, Money::new(999, Currency::Usd));
        assert_eq!(none.lines[0].description, "Payment");
        for x in [part, d, none] {
            assert!(adds_up(&x), "{x:?}");
        }
    }

    #[test]
    fn lines_that_would_not_add_up_are_never_sent() {
        // a total below the lines (cannot be: refused rather than a negative tax)
        let c = cart(vec![line("Tea", 350, 2)], 600);
        assert_eq!(display_cart(Some(&c), Money::new(600, Currency::Usd)).lines.len(), 1);
        // a line whose total is not unit × quantity
        let mut odd = line("Tea", 350, 2);
        odd.line_total = Money::new(699, Currency::Usd);
        let c = cart(vec![odd], 699);
        assert_eq!(display_cart(Some(&c), Money::new(699, Currency::Usd)).lines.len(), 1);
        // too many lines for the display
        let c = cart((0..=MAX_DISPLAY_LINES).map(|_| line("Tea", 1, 1)).collect(), (MAX_DISPLAY_LINES + 1) as i64);
        assert_eq!(display_cart(Some(&c), Money::new((MAX_DISPLAY_LINES + 1) as i64, Currency::Usd)).lines.len(), 1);
    }

    #[test]
    fn a_name_is_trimmed_of_control_characters_and_cut() {
        let long = "\u{7}".to_string() + &"é".repeat(150);
        assert_eq!(description(&long).chars().count(), MAX_DESCRIPTION_CHARS);
        assert_eq!(description(" \n "), "Item");
    }
}
