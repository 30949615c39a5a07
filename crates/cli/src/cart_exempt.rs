//! `paydesk-cli cart exempt`: a tax-exempt sale with its reason (issue #30, record 0135);
//! the `cart` command (`cart.rs`) takes it in.
//!
//! ```text
//! cart exempt --cart N --reason TEXT [--by NAME [--approver NAME]] [--json]   no tax on the sale
//! cart exempt --cart N --clear [--by NAME [--approver NAME]] [--json]         taxed again
//! ```
//! Where the store has staff, `--by` signs in (their PIN the first line of stdin) and must be
//! a manager or owner, or name an `--approver` who is (their PIN the second line): a PIN
//! never goes on the command line, where every user of the machine can read it. The ledger
//! checks the role table, the store's setting and that nothing is tendered, and audits it.
//! Without `--json`: words; with it, `cart_id`, `currency`, `subtotal`, `tax_total`, `total`,
//! `tax_exempt_reason`. Errors: `{"error":{"code","message"}}`, exit 1, with codes
//! `exempt_not_allowed`, `exempt_tendered`, `exempt_paid`, `exempt_reason`, `cart_held`,
//! `not_signed_in`, `not_allowed`, `wrong_pin`, `staff_locked`, `unknown_cart`, `invalid_input`.

use clap::Args;
use paydesk_ledger::{Cart, CartId, Error, ExemptRefusal};
use paydesk_register::Engine;
use serde_json::json;

use crate::access::{read_pin, stdin_lines};
use crate::outcome::fail;

#[derive(Args, Debug)]
pub(crate) struct ExemptArgs {
    #[arg(long)]
    cart: i64,
    /// Why the sale bears no tax (a resale certificate and its number, a diplomat's card…).
    #[arg(long, conflicts_with = "clear", required_unless_present = "clear")]
    reason: Option<String>,
    /// Tax the sale again.
    #[arg(long)]
    clear: bool,
    /// Who does it (signed in; PIN on stdin).
    #[arg(long)]
    by: Option<String>,
    /// A manager or owner approving a cashier's `--by` (PIN the second line of stdin).
    #[arg(long, requires = "by")]
    approver: Option<String>,
    #[arg(long)]
    json: bool,
}

/// The code of a refusal, one arm per exemption refusal.
fn code(e: &Error) -> &'static str {
    match e {
        Error::TaxExemptRefused { why, .. } => match why {
            ExemptRefusal::NotAllowed => "exempt_not_allowed",
            ExemptRefusal::Tendered => "exempt_tendered",
            ExemptRefusal::Paid => "exempt_paid",
            ExemptRefusal::Reason => "exempt_reason",
        },
        Error::CartHeld { .. } => "cart_held",
        Error::NotSignedIn => "not_signed_in",
        Error::NotAllowed { .. } => "not_allowed",
        Error::WrongPin { .. } => "wrong_pin",
        Error::StaffLocked { .. } => "staff_locked",
        Error::UnknownCart(_) => "unknown_cart",
        Error::InvalidInput(_) => "invalid_input",
        _ => "ledger",
    }
}

fn refuse(e: &Error) -> ! {
    fail(code(e), &e.to_string())
}

fn cart_json(c: &Cart) -> serde_json::Value {
    let tax = c.tax.as_ref();
    json!({
        "cart_id": c.id.0,
        "currency": c.currency.code(),
        "subtotal": tax.map_or(c.total.amount_minor, |t| t.subtotal),
        "tax_total": tax.map_or(0, |t| t.tax_total),
        "total": c.total.amount_minor,
        "tax_exempt_reason": c.tax_exempt_reason,
    })
}

pub(crate) fn run(engine: &Engine, a: &ExemptArgs) -> i32 {
    let approver_id = match a.by.as_deref() {
        None => None,
        Some(by) => {
            let input = stdin_lines();
            let mut lines = input.iter();
            let by_pin = read_pin(&mut lines, "the --by member's");
            let approver_pin = a.approver.as_ref().map(|_| read_pin(&mut lines, "the --approver's"));
            let actor = engine.staff().act_as(by, &by_pin, a.approver.as_deref().zip(approver_pin.as_ref())).unwrap_or_else(|e| refuse(&e));
            actor.approver_id
        }
    };
    let reason = if a.clear { None } else { a.reason.as_deref() };
    let c = engine.carts().set_tax_exempt(CartId(a.cart), reason, approver_id).unwrap_or_else(|e| refuse(&e));
    if a.json {
        out!("{}", cart_json(&c));
    } else {
        match &c.tax_exempt_reason {
            Some(r) => out!("sale {} is tax exempt ({r}); total {} {}", c.id.0, c.total.amount_minor, c.currency.code()),
            None => out!("sale {} is taxed; total {} {}", c.id.0, c.total.amount_minor, c.currency.code()),
        }
    }
    0
}
