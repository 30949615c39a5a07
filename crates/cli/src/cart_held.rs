//! `paydesk-cli cart hold|held|recall|discard`: held sales (issue #30, record 0128); the
//! `cart` command (`cart.rs`) takes these subcommands in.
//!
//! ```text
//! cart hold --cart N [--limit 1..=20 (default 5)] [--json]   park a cart with nothing tendered
//! cart held [--json]                                          the parked carts, oldest first
//! cart recall --cart N [--json]                               take one back, to edit and pay it
//! cart discard --cart N [--json]                              its lines void for good (audited)
//! ```
//! Who is signed in (if anyone) is recorded as having done it. Without `--json`: words;
//! with it, JSON. Errors: `{"error":{"code","message"}}`, exit 1, with codes `hold_empty`,
//! `hold_tendered`, `hold_limit`, `not_held`, `cart_held`, `unknown_cart`, `invalid_input`.

use clap::Subcommand;
use paydesk_ledger::{CartId, Error, HeldCart, HoldRefusal, MAX_HELD_LIMIT};
use paydesk_register::Engine;
use serde_json::json;

use crate::outcome::fail;

/// The app's default limit (settings.json `max_held_carts`), used when none is given.
const DEFAULT_LIMIT: u32 = 5;

#[derive(Subcommand, Debug)]
pub(crate) enum HeldCmd {
    /// Park a cart: it keeps its lines and takes no tender until recalled.
    Hold {
        #[arg(long)]
        cart: i64,
        /// At most this many carts parked at once (1 to 20).
        #[arg(long, default_value_t = DEFAULT_LIMIT)]
        limit: u32,
        #[arg(long)]
        json: bool,
    },
    /// The parked carts, oldest first.
    Held {
        #[arg(long)]
        json: bool,
    },
    /// Take a parked cart back.
    Recall {
        #[arg(long)]
        cart: i64,
        #[arg(long)]
        json: bool,
    },
    /// Discard a parked cart: its lines are void for good.
    Discard {
        #[arg(long)]
        cart: i64,
        #[arg(long)]
        json: bool,
    },
}

/// The code of a ledger refusal (one arm per hold refusal).
fn code(e: &Error) -> &'static str {
    match e {
        Error::HoldRefused { why, .. } => match why {
            HoldRefusal::Empty => "hold_empty",
            HoldRefusal::Tendered => "hold_tendered",
            HoldRefusal::AtLimit { .. } => "hold_limit",
            HoldRefusal::NotHeld => "not_held",
        },
        Error::CartHeld { .. } => "cart_held",
        Error::UnknownCart(_) => "unknown_cart",
        Error::InvalidInput(_) => "invalid_input",
        _ => "ledger",
    }
}

fn ledger_fail(e: &Error) -> ! {
    fail(code(e), &e.to_string())
}

fn held_json(h: &HeldCart) -> serde_json::Value {
    json!({
        "cart": h.cart_id.0,
        "held_at_ms": h.held_at_ms,
        "held_by": h.held_by,
        "items": h.items,
        "lines": h.lines,
        "total_minor": h.total.amount_minor,
        "currency": h.total.currency.code(),
    })
}

fn words(h: &HeldCart) -> String {
    format!("cart {} held at {} ms: {} items, {} {}", h.cart_id.0, h.held_at_ms, h.items, h.total.amount_minor, h.total.currency.code())
}

pub(crate) fn run(engine: &Engine, cmd: &HeldCmd) -> i32 {
    let by = engine.staff().signed_in().unwrap_or_else(|e| ledger_fail(&e)).map(|s| s.id);
    let carts = engine.carts();
    match cmd {
        HeldCmd::Hold { cart, limit, json } => {
            if !(1..=MAX_HELD_LIMIT).contains(limit) {
                fail("invalid_input", &format!("--limit {limit}: 1 to {MAX_HELD_LIMIT}"));
            }
            let h = carts.hold(CartId(*cart), *limit, by).unwrap_or_else(|e| ledger_fail(&e));
            if *json {
                out!("{}", held_json(&h));
            } else {
                out!("held {}", words(&h));
            }
        }
        HeldCmd::Held { json } => {
            let all = carts.held().unwrap_or_else(|e| ledger_fail(&e));
            if *json {
                out!("{}", serde_json::Value::Array(all.iter().map(held_json).collect()));
            } else {
                for h in &all {
                    out!("{}", words(h));
                }
            }
        }
        HeldCmd::Recall { cart, json } => {
            let c = carts.recall(CartId(*cart), by).unwrap_or_else(|e| ledger_fail(&e));
            let items: i64 = c.lines.iter().map(|l| l.quantity).sum();
            if *json {
                out!("{}", json!({"cart": c.id.0, "items": items, "total_minor": c.total.amount_minor, "currency": c.currency.code()}));
            } else {
                out!("recalled cart {}: {} items, {} {}", c.id.0, items, c.total.amount_minor, c.currency.code());
            }
        }
        HeldCmd::Discard { cart, json } => {
            carts.discard_held(CartId(*cart), by).unwrap_or_else(|e| ledger_fail(&e));
            if *json {
                out!("{}", json!({"cart": cart, "discarded": true}));
            } else {
                out!("discarded cart {cart}: its lines are void");
            }
        }
    }
    0
}
