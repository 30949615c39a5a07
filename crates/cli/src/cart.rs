//! `paydesk-cli cart …`: a sale's lines by their number (issue #30, record 0126): typed
//! (open) prices for open-price items and department keys, price labels, a line's
//! quantity. Over the same engine as the app.
//!
//! ```text
//! cart new --currency C [--eat-in]                                 an empty sale; prints its lines
//! cart add-open --cart ID --sku S --price MINOR [--by NAME [--approver NAME]] [--json]
//!     a new line at a typed price; above the store's open-price limit a manager or owner
//!     allows it: `--by` themselves, or `--approver` for a cashier `--by` (PINs on stdin,
//!     `--by`'s first)
//! cart add-label --cart ID --sku S --price MINOR [--json]         a new line at a label's price
//! cart add --cart ID --sku S (--quantity Q | --grams N) [--json]  an item at its catalog price;
//!     a weighed item with its grams (1..=100000, as a scale shows them), record 0134
//! cart set-line --cart ID --line NO --quantity Q [--json]         0 removes the line
//! cart show --cart ID                                              the lines and the total
//! cart hold|held|recall|discard …                                  held sales (cart_held.rs)
//! cart exempt --cart ID (--reason TEXT | --clear) …                 a tax-exempt sale (cart_exempt.rs)
//! ```
//! Without `--json` one line of words; with it (and always for `new` and `show`) the
//! cart: `cart_id`, `currency`, `total`, `lines` (`line_no`, `sku`, `name`, `quantity`,
//! `unit_price`, `price_source`; a weighed line also `unit`, `grams`, `unit_rate`) and, for a
//! new line, `line_no`. Errors:
//! `{"error":{"code","message"}}`, exit 1: `price_required` (rung without a price),
//! `fixed_price_item`, `price_out_of_range` (0, negative, absurd), `approval_required`
//! (above the limit, nobody allowed it), `not_allowed` (the one who allowed it may not),
//! `unknown_line`, `wrong_pin`, `weight_required` (a weighed item without `--grams`),
//! `not_weighed` (grams for a piece), `weight_out_of_range`, `weighed_line_whole`,
//! `invalid_input`.

use clap::Subcommand;
use paydesk_domain::Currency;
use paydesk_ledger::{Cart, CartId, Error};
use paydesk_register::Engine;
use paydesk_tax::Dining;
use serde_json::json;

use crate::access::{read_pin, stdin_lines};
use crate::outcome::fail;

/// Longest SKU (the catalog's limit).
const MAX_SKU: usize = 64;

#[derive(Subcommand, Debug)]
pub(crate) enum CartCmd {
    /// An empty sale (cart) in a currency.
    New {
        #[arg(long)]
        currency: String,
        #[arg(long = "eat-in")]
        eat_in: bool,
    },
    /// Ring an open-price item or department key at a typed price, as a line of its own.
    #[command(name = "add-open")]
    AddOpen {
        #[arg(long)]
        cart: i64,
        #[arg(long)]
        sku: String,
        /// The typed price in minor units.
        #[arg(long, allow_hyphen_values = true)]
        price: String,
        /// Who rings it (signed in with the PIN on stdin's first line).
        #[arg(long)]
        by: Option<String>,
        /// A manager or owner allowing a price above the limit (PIN on the next line).
        #[arg(long, requires = "by")]
        approver: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Ring an item at the price printed on its label, as a line of its own.
    #[command(name = "add-label")]
    AddLabel {
        #[arg(long)]
        cart: i64,
        #[arg(long)]
        sku: String,
        #[arg(long, allow_hyphen_values = true)]
        price: String,
        #[arg(long)]
        json: bool,
    },
    /// Ring an item at its catalog price: pieces by `--quantity`, a weighed item by `--grams`.
    Add {
        #[arg(long)]
        cart: i64,
        #[arg(long)]
        sku: String,
        #[arg(long, conflicts_with = "grams", allow_hyphen_values = true)]
        quantity: Option<String>,
        /// The weight in grams, 1 to 100000 (record 0134).
        #[arg(long, allow_hyphen_values = true)]
        grams: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Set a line's quantity by its number (0 removes it).
    #[command(name = "set-line")]
    SetLine {
        #[arg(long)]
        cart: i64,
        #[arg(long)]
        line: i64,
        #[arg(long)]
        quantity: i64,
        #[arg(long)]
        json: bool,
    },
    /// The sale's lines and total.
    Show {
        #[arg(long)]
        cart: i64,
    },
    /// Held sales: hold, held, recall, discard (`cart_held.rs`, record 0128).
    #[command(flatten)]
    Held(crate::cart_held::HeldCmd),
    /// Make the sale tax exempt with a reason, or `--clear` it (`cart_exempt.rs`, record 0135).
    Exempt(crate::cart_exempt::ExemptArgs),
}

/// The code of a refusal, one per reason (scripts tell them apart by it).
fn code_of(e: &Error) -> &'static str {
    match e {
        Error::PriceRequired { .. } => "price_required",
        Error::WeightRequired { .. } => "weight_required",
        Error::NotWeighed { .. } => "not_weighed",
        Error::WeightRefused { .. } => "weight_out_of_range",
        Error::WeighedLineWhole { .. } => "weighed_line_whole",
        Error::FixedPriceItem { .. } => "fixed_price_item",
        Error::LinePriceOutOfRange { .. } => "price_out_of_range",
        Error::OpenPriceAboveLimit { .. } => "approval_required",
        Error::NotAllowed { .. } => "not_allowed",
        Error::UnknownLine { .. } => "unknown_line",
        Error::WrongPin { .. } => "wrong_pin",
        Error::StaffLocked { .. } => "staff_locked",
        Error::UnknownProduct(_) | Error::UnknownCart(_) | Error::CartNotOpen { .. } | Error::InvalidInput(_) => "invalid_input",
        Error::InactiveStaff { .. } | Error::CurrencyMismatch { .. } | Error::QuantityTooLarge { .. } | Error::TooManyLines { .. } => {
            "invalid_input"
        }
        _ => "ledger",
    }
}

fn refuse(e: &Error) -> ! {
    fail(code_of(e), &e.to_string())
}

fn sku(s: &str) -> &str {
    if s.is_empty() || s.chars().count() > MAX_SKU || s.chars().any(char::is_control) {
        fail("invalid_input", &format!("--sku: 1 to {MAX_SKU} printable characters"));
    }
    s
}

fn price(s: &str) -> i64 {
    // Whole minor units only; the range (1 ..= the per-unit limit) is the ledger's rule.
    s.parse().unwrap_or_else(|_| fail("invalid_input", &format!("--price {s:?}: a whole number of minor units")))
}

fn cart_json(c: &Cart, new_line: Option<i64>) -> serde_json::Value {
    let lines: Vec<_> = c
        .lines
        .iter()
        .map(|l| {
            let mut v = json!({"line_no": l.line_no, "sku": l.sku, "name": l.name, "quantity": l.quantity,
                   "unit_price": l.unit_price.amount_minor, "price_source": l.price_source.as_str()});
            if let Some(w) = l.weight {
                v["unit"] = json!(w.unit.as_str());
                v["grams"] = json!(w.grams);
                v["unit_rate"] = json!(w.rate.amount_minor);
            }
            v
        })
        .collect();
    let mut v = json!({"cart_id": c.id.0, "currency": c.currency.code(), "total": c.total.amount_minor, "lines": lines});
    if let Some(n) = new_line {
        v["line_no"] = json!(n);
    }
    v
}

fn done(c: &Cart, new_line: Option<i64>, as_json: bool) -> i32 {
    if as_json {
        out!("{}", cart_json(c, new_line));
    } else {
        let what = match new_line.and_then(|n| c.lines.iter().find(|l| l.line_no == n)) {
            Some(l) => match l.weight {
                Some(w) => format!(
                    "line {}: {} {} g at {}/{} = {}",
                    l.line_no,
                    l.sku,
                    w.grams,
                    w.rate.amount_minor,
                    w.unit.label(),
                    l.unit_price.amount_minor
                ),
                None => format!("line {}: {} at {} ({})", l.line_no, l.sku, l.unit_price.amount_minor, l.price_source.as_str()),
            },
            None => format!("{} lines", c.lines.len()),
        };
        out!("sale {}: {what}; total {} {}", c.id.0, c.total.amount_minor, c.currency.code());
    }
    0
}

/// Who allows a price above the limit: `--by` signed in (and `--approver`'s PIN checked
/// as an approval); the approver if named, else `--by` themselves. The ledger checks the
/// role of whoever it is.
fn allowed_by(engine: &Engine, by: Option<&str>, approver: Option<&str>) -> Option<i64> {
    let by = by?;
    let input = stdin_lines();
    let mut lines = input.iter();
    let by_pin = read_pin(&mut lines, "the --by member's");
    let approver_pin = approver.map(|_| read_pin(&mut lines, "the --approver's"));
    let actor = engine.staff().act_as(by, &by_pin, approver.zip(approver_pin.as_ref())).unwrap_or_else(|e| refuse(&e));
    Some(actor.approver_id.unwrap_or(actor.staff_id))
}

pub(crate) fn run(engine: &Engine, cmd: &CartCmd) -> i32 {
    let carts = engine.carts();
    match cmd {
        CartCmd::Held(held) => crate::cart_held::run(engine, held),
        CartCmd::Exempt(a) => crate::cart_exempt::run(engine, a),
        CartCmd::New { currency, eat_in } => {
            let c: Currency = currency.parse().unwrap_or_else(|_| fail("invalid_input", &format!("unknown currency {currency:?}")));
            let made = carts.create_with(c, &[], eat_in.then_some(Dining::EatIn)).unwrap_or_else(|e| refuse(&e));
            done(&carts.cart(made).unwrap_or_else(|e| refuse(&e)), None, true)
        }
        CartCmd::AddOpen { cart, sku: s, price: p, by, approver, json } => {
            let (s, p) = (sku(s), price(p));
            let allowed = allowed_by(engine, by.as_deref(), approver.as_deref());
            let (c, no) = carts.add_open(CartId(*cart), s, p, allowed).unwrap_or_else(|e| refuse(&e));
            done(&c, Some(no), *json)
        }
        CartCmd::AddLabel { cart, sku: s, price: p, json } => {
            let (s, p) = (sku(s), price(p));
            let (c, no) = carts.add_label(CartId(*cart), s, p).unwrap_or_else(|e| refuse(&e));
            done(&c, Some(no), *json)
        }
        CartCmd::Add { cart, sku: s, quantity, grams, json } => {
            let s = sku(s);
            let whole = |flag: &str, v: &str| -> i64 {
                v.parse().unwrap_or_else(|_| fail("invalid_input", &format!("{flag} {v:?}: a whole number")))
            };
            match (quantity, grams) {
                (_, Some(g)) => {
                    let (c, no) = carts.add_weighed(CartId(*cart), s, whole("--grams", g)).unwrap_or_else(|e| refuse(&e));
                    done(&c, Some(no), *json)
                }
                (q, None) => {
                    let q = q.as_deref().map_or(1, |q| whole("--quantity", q));
                    let c = carts.add(CartId(*cart), s, q).unwrap_or_else(|e| refuse(&e));
                    done(&c, None, *json)
                }
            }
        }
        CartCmd::SetLine { cart, line, quantity, json } => {
            let c = carts.set_line_quantity(CartId(*cart), *line, *quantity).unwrap_or_else(|e| refuse(&e));
            done(&c, None, *json)
        }
        CartCmd::Show { cart } => done(&carts.cart(CartId(*cart)).unwrap_or_else(|e| refuse(&e)), None, true),
    }
}
