//! `paydesk-cli sale …`: a sale paid by several tenders (record 0028) from the command
//! line, over the same engine as the app. Every command prints one JSON object.
//!
//! ```text
//! sale product --sku S --name N --price MINOR --currency C   add or update a catalog item
//! sale new --currency C --item SKU[:QTY] …                    a new sale (cart); prints its view
//! sale show --cart ID                                         tenders, total, settled, due, state
//! sale cash --cart ID --tendered MINOR [--override-reason R]  exit 0
//! sale tender --cart ID --store-tender TYPE_ID --amount MINOR [--ref SLIP] [--override-reason R]
//!     one of the store's own tenders (record 0118); exit 0
//! sale card --cart ID [--amount MINOR] [--card PM] [--capture automatic|manual] [--override-reason R]
//!     exit as `checkout`: 0 paid/authorized, 2 declined, 3 pending or queued offline, 1 failed
//! sale cancel --cart ID --reason R        exit 0 canceled, 3 refunds still being confirmed
//! sale refund --cart ID [--amount MINOR] [--reason R] [--ryoshusho-taken-back]
//!     exit 0 done, 3 pending, 2 a refund failed
//! sale return --cart ID --line I:Q [--line I:Q …] [--reason R] [--ryoshusho-taken-back] [--json]
//!     take back lines of a paid sale (sale_return.rs); exit as refund
//! sale return (--restored-from REG --sale N | --receipt NNNNNN [--restored-from REG]) --line I:Q …
//!     the same for a sale of a replaced register restored here (record 0144)
//! sale rounding --currency C --increment MINOR          the store's cash rounding (1 = none)
//! sale day [--since-ms MS]                              End of day: per tender kind, drawer, unpaid
//! ```
//! Errors: `{"error":{"code","message"[,"checkout_key"]}}`, exit 1 (e.g.
//! `tender_unknown_outstanding` names the pending tender's key).

use crate::outcome::{checkout_error, exit_code};
use clap::Subcommand;
use paydesk_ledger::{CartId, CheckoutOptions, NewProduct, SaleState};
use paydesk_domain::{CaptureMethod, Currency, Money, RefundState};
use paydesk_register::{Engine, EngineError};
use paydesk_tax::{Dining, Discount};
use serde::Serialize;

/// Longest SKU and item name accepted (the catalog's limits).
const MAX_SKU: usize = 64;
const MAX_NAME: usize = 200;
/// Most items on one `sale new`, and the largest quantity of one.
const MAX_ITEMS: usize = 200;
const MAX_QTY: i64 = 999;

#[derive(Subcommand, Debug)]
pub(crate) enum SaleCmd {
    /// Add or update a catalog item (by SKU).
    Product {
        #[arg(long)]
        sku: String,
        #[arg(long)]
        name: String,
        /// Price in minor units.
        #[arg(long)]
        price: String,
        #[arg(long)]
        currency: String,
    },
    /// Start a new sale (a cart) from catalog SKUs.
    New {
        #[arg(long)]
        currency: String,
        /// SKU or SKU:QUANTITY; repeat for several items.
        #[arg(long = "item", required = true)]
        items: Vec<String>,
        /// Eaten in the store: reduced-rate food is taxed at the standard rate.
        #[arg(long = "eat-in")]
        eat_in: bool,
    },
    /// A discount on one line (--sku) or on the whole sale: --percent P (0-100,
    /// up to two decimals) or --amount MINOR, or --clear.
    Discount {
        #[arg(long)]
        cart: i64,
        #[arg(long)]
        sku: Option<String>,
        #[arg(long, conflicts_with_all = ["amount", "clear"])]
        percent: Option<String>,
        #[arg(long, allow_hyphen_values = true, conflicts_with = "clear")]
        amount: Option<String>,
        #[arg(long)]
        clear: bool,
    },
    /// The sale: tenders, total, settled, due, state.
    Show {
        #[arg(long)]
        cart: i64,
    },
    /// Take cash; change is printed.
    Cash {
        #[arg(long)]
        cart: i64,
        /// Cash handed over, in minor units.
        #[arg(long, allow_hyphen_values = true)]
        tendered: String,
        /// Take it although a card tender's outcome is unknown (audited; 3-200 characters).
        #[arg(long = "override-reason")]
        override_reason: Option<String>,
    },
    /// Take one of the store's own tenders (a voucher, a slip from a standalone terminal).
    Tender {
        #[arg(long)]
        cart: i64,
        /// The tender type's id (`tender-type list`).
        #[arg(long = "store-tender")]
        store_tender: i64,
        /// Its face value or the amount on its slip, in minor units.
        #[arg(long, allow_hyphen_values = true)]
        amount: String,
        /// The slip or approval number (1-40 characters).
        #[arg(long = "ref")]
        reference: Option<String>,
        /// Take it although a card tender's outcome is unknown (audited; 3-200 characters).
        #[arg(long = "override-reason")]
        override_reason: Option<String>,
    },
    /// Charge a card for part or all of what is due.
    Card {
        #[arg(long)]
        cart: i64,
        /// Minor units; everything still open when left out.
        #[arg(long, allow_hyphen_values = true)]
        amount: Option<String>,
        #[arg(long, default_value = "pm_card_visa")]
        card: String,
        /// automatic | manual
        #[arg(long, default_value = "automatic")]
        capture: String,
        #[arg(long = "override-reason")]
        override_reason: Option<String>,
    },
    /// Cancel the sale: refund each settled card tender once, hand the cash back.
    Cancel {
        #[arg(long)]
        cart: i64,
        #[arg(long)]
        reason: String,
    },
    /// Refund a paid sale: cards first, the rest in cash.
    Refund {
        #[arg(long)]
        cart: i64,
        #[arg(long, allow_hyphen_values = true)]
        amount: Option<String>,
        #[arg(long)]
        reason: Option<String>,
        /// The customer handed the sale's ryōshūsho back (needed when it has one).
        #[arg(long = "ryoshusho-taken-back")]
        ryoshusho_taken_back: bool,
    },
    /// Take back lines of a paid sale (LINE:QUANTITY, lines from 0 as `sale show` lists
    /// them): cards first, the rest in cash.
    Return {
        /// This register's sale.
        #[arg(long, required_unless_present_any = ["sale", "receipt"], conflicts_with_all = ["restored_from", "sale", "receipt"])]
        cart: Option<i64>,
        /// A sale of a replaced register restored here (record 0144): the predecessor's
        /// register id, with --sale (its sale id) or --receipt.
        #[arg(long = "restored-from")]
        restored_from: Option<String>,
        /// The predecessor's sale id (with --restored-from).
        #[arg(long, requires = "restored_from", conflicts_with = "receipt")]
        sale: Option<i64>,
        /// The predecessor's receipt number (e.g. 000042); --restored-from when two
        /// predecessors have it.
        #[arg(long)]
        receipt: Option<String>,
        #[arg(long = "line", required = true)]
        lines: Vec<String>,
        #[arg(long)]
        reason: Option<String>,
        /// The customer handed the sale's ryōshūsho back (needed when it has one).
        #[arg(long = "ryoshusho-taken-back")]
        ryoshusho_taken_back: bool,
        /// The return as JSON instead of a line of words.
        #[arg(long)]
        json: bool,
    },
    /// Exchange: take back lines of a paid sale (as `return`) and put their worth on the
    /// open sale `--into`; what is left is its due, or one refund of the difference.
    Exchange {
        /// This register's paid sale.
        #[arg(long, required_unless_present_any = ["sale", "receipt"], conflicts_with_all = ["restored_from", "sale", "receipt"])]
        cart: Option<i64>,
        /// A sale of a replaced register restored here (record 0153): the predecessor's
        /// register id, with --sale (its sale id) or --receipt.
        #[arg(long = "restored-from")]
        restored_from: Option<String>,
        /// The predecessor's sale id (with --restored-from).
        #[arg(long, requires = "restored_from", conflicts_with = "receipt")]
        sale: Option<i64>,
        /// The predecessor's receipt number (e.g. 000042); --restored-from when two
        /// predecessors have it.
        #[arg(long)]
        receipt: Option<String>,
        #[arg(long = "line", required = true)]
        lines: Vec<String>,
        /// The open sale the goods' worth pays (made with `sale new`).
        #[arg(long)]
        into: i64,
        #[arg(long)]
        reason: Option<String>,
        /// The customer handed the old sale's ryōshūsho back (needed when it has one).
        #[arg(long = "ryoshusho-taken-back")]
        ryoshusho_taken_back: bool,
        /// The exchange as JSON instead of a line of words.
        #[arg(long)]
        json: bool,
    },
    /// Set the store's cash rounding for a currency (1 = none).
    Rounding {
        #[arg(long)]
        currency: String,
        #[arg(long)]
        increment: i64,
    },
    /// End of day for tenders: totals per kind, expected drawer, unpaid balances.
    Day {
        #[arg(long = "since-ms", default_value_t = 0)]
        since_ms: i64,
    },
}

fn print<T: Serialize>(v: &T) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stdout(), "{}", serde_json::to_string(v).unwrap_or_default());
}

fn refuse(code: &str, message: &str) -> i32 {
    checkout_error(code, message, None, None)
}

fn engine_error(e: &EngineError) -> i32 {
    checkout_error(e.code(), &e.to_string(), e.checkout_key(), None)
}

fn minor(what: &str, s: &str) -> Result<i64, String> {
    crate::parse::parse_amount(s).map_err(|e| format!("{what}: {e}"))
}

fn currency(s: &str) -> Result<Currency, String> {
    crate::parse::parse_currency(s)
}

fn reason(r: &Option<String>) -> Result<Option<&str>, String> {
    match r.as_deref().map(str::trim) {
        None => Ok(None),
        Some(t) if (3..=200).contains(&t.chars().count()) && !t.chars().any(char::is_control) => Ok(Some(t)),
        Some(_) => Err("a reason needs 3 to 200 printable characters".into()),
    }
}

/// "10" or "12.5" percent as basis points (0-10000).
fn percent_bp(s: &str) -> Result<u32, String> {
    let bad = || format!("--percent {s:?}: 0 to 100, at most two decimals");
    let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
    if whole.is_empty() || whole.len() > 3 || frac.len() > 2 || !whole.chars().chain(frac.chars()).all(|c| c.is_ascii_digit()) {
        return Err(bad());
    }
    let bp = whole.parse::<u32>().map_err(|_| bad())? * 100 + format!("{frac:0<2}").parse::<u32>().map_err(|_| bad())?;
    if bp > 10_000 {
        return Err(bad());
    }
    Ok(bp)
}

/// `SKU` or `SKU:QTY`.
fn item(s: &str) -> Result<(String, i64), String> {
    let (sku, qty) = match s.rsplit_once(':') {
        Some((sku, q)) => (sku, q.parse::<i64>().map_err(|_| format!("item {s:?}: quantity {q:?} is not a whole number"))?),
        None => (s, 1),
    };
    if sku.is_empty() || sku.len() > MAX_SKU || !sku.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
        return Err(format!("item {s:?}: a SKU is 1-{MAX_SKU} letters, digits, '-' or '_'"));
    }
    if !(1..=MAX_QTY).contains(&qty) {
        return Err(format!("item {s:?}: quantity must be 1-{MAX_QTY}"));
    }
    Ok((sku.to_string(), qty))
}

/// Runs one `sale` command; returns the exit code. Input is checked before the ledger
/// is touched: bad input changes nothing.
pub(crate) async fn run(engine: &Engine, cmd: &SaleCmd) -> i32 {
    match run_checked(engine, cmd).await {
        Ok(code) => code,
        Err(message) => refuse("invalid_input", &message),
    }
}

async fn run_checked(engine: &Engine, cmd: &SaleCmd) -> Result<i32, String> {
    Ok(match cmd {
        SaleCmd::Product { sku, name, price, currency: c } => {
            let (sku, _) = item(sku)?;
            let name = name.trim();
            if name.is_empty() || name.chars().count() > MAX_NAME || name.chars().any(char::is_control) {
                return Err(format!("a name is 1-{MAX_NAME} printable characters"));
            }
            let price = Money::new(minor("--price", price)?, currency(c)?);
            let p = NewProduct { sku: sku.clone(), name: name.to_string(), price };
            match engine.catalog().seed(&[p]) {
                Ok(_) => {
                    print(&serde_json::json!({"sku": sku, "name": name, "price": price.amount_minor, "currency": price.currency.code()}));
                    0
                }
                Err(e) => engine_error(&e.into()),
            }
        }
        SaleCmd::Discount { cart, sku, percent, amount, clear } => {
            let d = match (percent, amount, clear) {
                (Some(p), None, false) => Some(Discount::Percent { basis_points: percent_bp(p)? }),
                (None, Some(a), false) => Some(Discount::Amount { amount: minor("--amount", a)? }),
                (None, None, true) => None,
                _ => return Err("give one of --percent, --amount or --clear".into()),
            };
            let sku = sku.as_deref().map(item).transpose()?.map(|(s, _)| s);
            let done = engine.carts().set_discount(CartId(*cart), sku.as_deref(), d);
            match done {
                Ok(_) => show(engine, CartId(*cart)),
                Err(e) => engine_error(&e.into()),
            }
        }
        SaleCmd::New { currency: c, items, eat_in } => {
            let c = currency(c)?;
            if items.len() > MAX_ITEMS {
                return Err(format!("at most {MAX_ITEMS} items"));
            }
            let items = items.iter().map(|s| item(s)).collect::<Result<Vec<_>, _>>()?;
            // Every SKU checked before the cart is made: a refused item leaves nothing behind.
            let made = engine.carts().create_with(c, &items, eat_in.then_some(Dining::EatIn));
            match made {
                Ok(cart) => show(engine, cart),
                Err(e) => engine_error(&e.into()),
            }
        }
        SaleCmd::Show { cart } => show(engine, CartId(*cart)),
        SaleCmd::Cash { cart, tendered, override_reason } => {
            let tendered = minor("--tendered", tendered)?;
            match engine.pay_cash(CartId(*cart), tendered, reason(override_reason)?) {
                Ok(r) => {
                    print(&r);
                    0
                }
                Err(e) => engine_error(&e),
            }
        }
        SaleCmd::Tender { cart, store_tender, amount, reference, override_reason } => {
            let amount = minor("--amount", amount)?;
            let type_id = paydesk_domain::TenderTypeId(*store_tender);
            match engine.pay_store(CartId(*cart), type_id, amount, reference.as_deref(), reason(override_reason)?) {
                Ok(r) => {
                    print(&r);
                    0
                }
                Err(e) => engine_error(&e),
            }
        }
        SaleCmd::Card { cart, amount, card, capture, override_reason } => {
            let amount = amount.as_deref().map(|a| minor("--amount", a)).transpose()?;
            let capture: CaptureMethod =
                capture.parse().map_err(|_| format!("--capture must be automatic or manual (got {capture:?})"))?;
            let mut options = CheckoutOptions::card(card.clone());
            options.capture_method = capture;
            match engine.charge_card_tender(CartId(*cart), amount, options, reason(override_reason)?).await {
                Ok(r) => {
                    print(&r);
                    exit_code(r.checkout.outcome)
                }
                Err(e) => engine_error(&e),
            }
        }
        SaleCmd::Cancel { cart, reason: r } => {
            let r = reason(&Some(r.clone()))?.unwrap_or_default().to_string();
            match engine.cancel_sale(CartId(*cart), &r).await {
                Ok(rep) => {
                    print(&rep);
                    match rep.state {
                        SaleState::Canceled => 0,
                        SaleState::Canceling
                        | SaleState::Open
                        | SaleState::PartiallyPaid
                        | SaleState::Paid
                        | SaleState::UnpaidBalance => 3,
                    }
                }
                Err(e) => engine_error(&e),
            }
        }
        SaleCmd::Refund { cart, amount, reason: r, ryoshusho_taken_back } => {
            let amount = amount.as_deref().map(|a| minor("--amount", a)).transpose()?;
            match engine.refund_sale_with(CartId(*cart), amount, reason(r)?, *ryoshusho_taken_back).await {
                Ok(rep) => {
                    print(&rep);
                    let states: Vec<RefundState> = rep.card_refunds.iter().map(|r| r.state).collect();
                    crate::sale_return::exit_of(&states, !rep.errors.is_empty())
                }
                Err(e) => engine_error(&e),
            }
        }
        SaleCmd::Return { cart, restored_from, sale, receipt, lines, reason: r, ryoshusho_taken_back, json } => {
            let items = crate::sale_return::returned_lines(lines)?;
            match (cart, sale, receipt) {
                (Some(cart), _, _) => crate::sale_return::run(engine, *cart, &items, reason(r)?, *ryoshusho_taken_back, *json).await,
                (None, sale, receipt) => {
                    let which = crate::sale_return::Restored { source: restored_from.as_deref(), sale: *sale, receipt: receipt.as_deref() };
                    crate::sale_return::run_restored(engine, which, &items, reason(r)?, *json).await
                }
            }
        }
        SaleCmd::Exchange { cart, restored_from, sale, receipt, lines, into, reason: r, ryoshusho_taken_back, json } => {
            let items = crate::sale_return::returned_lines(lines)?;
            match cart {
                Some(cart) => crate::sale_exchange::run(engine, *cart, &items, *into, reason(r)?, *ryoshusho_taken_back, *json).await,
                None => {
                    let which = crate::sale_return::Restored { source: restored_from.as_deref(), sale: *sale, receipt: receipt.as_deref() };
                    crate::sale_exchange::run_restored(engine, which, &items, *into, reason(r)?, *json).await
                }
            }
        }
        SaleCmd::Rounding { currency: c, increment } => {
            let c = currency(c)?;
            match engine.set_cash_rounding(c, *increment) {
                Ok(()) => {
                    print(&serde_json::json!({"currency": c.code(), "increment": increment}));
                    0
                }
                Err(e) => engine_error(&e),
            }
        }
        SaleCmd::Day { since_ms } => match engine.tender_day(*since_ms) {
            Ok(d) => {
                print(&d);
                0
            }
            Err(e) => engine_error(&e),
        },
    })
}

fn show(engine: &Engine, cart: CartId) -> i32 {
    match engine.sale_view(cart) {
        Ok(v) => {
            print(&v);
            0
        }
        Err(e) => engine_error(&e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_and_reasons_are_checked_before_anything_is_written() {
        assert_eq!(item("TEA:3"), Ok(("TEA".to_string(), 3)));
        assert_eq!(item("TEA"), Ok(("TEA".to_string(), 1)));
        assert!(item("TEA:0").is_err() && item("TEA:1000").is_err() && item(":2").is_err() && item("a b").is_err());
        assert_eq!(reason(&None), Ok(None));
        assert_eq!((percent_bp("10"), percent_bp("12.5"), percent_bp("100")), (Ok(1000), Ok(1250), Ok(10_000)));
        assert!(percent_bp("100.01").is_err() && percent_bp("-1").is_err() && percent_bp("1e2").is_err() && percent_bp("").is_err());
        assert!(reason(&Some("no".into())).is_err());
        assert_eq!(reason(&Some(" ok then ".into())), Ok(Some("ok then")));
    }
}
