//! `paydesk-cli store rules | label-rules | open-price-limit | tax-exemptions` (issue #30,
//! record 0136): the store's counter rules. JSON out, one object.
//!
//! ```text
//! store rules                          {"label_rules":{"rules":[…],"own":bool},"open_price_limit":{"amount":…,"currency":…},
//!                                       "tax_exemptions":{"on":bool,"default":bool}}
//! store label-rules set --rule 22:4:price [--rule 21:5:grams …]   PREFIX:ITEM_DIGITS:price|grams, tried in order
//! store label-rules set --none         no label read at all (every code is a plain barcode)
//! store label-rules reset              the built-in rules (02 price, 21 grams)
//! store open-price-limit AMOUNT        in the store's currency's major units ("10000" yen, "250.00" dollars)
//! store tax-exemptions on|off|default  default: the locale's (on in the US, off in Japan)
//! ```
//! Refusals: exit 1 with `invalid_label_rule` (which rule and why: prefix 02/20–29, 1 to 9
//! item digits, no prefix twice, at most 10), `invalid_input` (a malformed rule or amount, a
//! negative or zero limit), `not_signed_in` / `not_allowed` where the ledger gates the change.

use clap::Subcommand;
use paydesk_domain::Money;
use paydesk_ledger::Error;
use paydesk_register::Engine;
use paydesk_tax::{Embedded, InStoreRule};
use serde_json::json;

use crate::outcome::fail;

/// `store label-rules …`
#[derive(Subcommand, Debug)]
pub(crate) enum LabelRulesCmd {
    /// Replace the store's label rules with these, tried in the order given.
    Set {
        /// PREFIX:ITEM_DIGITS:price|grams, e.g. 22:4:price (a prefix of 02 or 20 to 29).
        #[arg(long = "rule", required_unless_present = "none")]
        rules: Vec<String>,
        /// No label rules at all: every code is looked up as a plain barcode.
        #[arg(long, conflicts_with = "rules")]
        none: bool,
    },
    /// Back to the built-in rules (02 + 5 item digits + price; 21 + 5 item digits + grams).
    Reset,
}

/// The longest `--rule` read (`22:4:grams` is 10 characters).
const MAX_RULE_CHARS: usize = 32;

/// `PREFIX:ITEM_DIGITS:price|grams`. The prefix and digit counts are checked by the ledger
/// (one rule for every front end); only the shape is read here.
fn parse_rule(s: &str) -> InStoreRule {
    let bad = |why: &str| -> ! { fail("invalid_input", &format!("--rule {:?}: {why}", s.chars().take(MAX_RULE_CHARS).collect::<String>())) };
    if s.chars().count() > MAX_RULE_CHARS {
        bad("too long");
    }
    let parts: Vec<&str> = s.trim().split(':').collect();
    let [prefix, digits, value] = parts.as_slice() else { bad("expected PREFIX:ITEM_DIGITS:price|grams, e.g. 22:4:price") };
    let item_digits: u8 = digits.parse().unwrap_or_else(|_| bad("the item digits are a number from 1 to 9"));
    let value = match *value {
        "price" => Embedded::Price,
        "grams" | "weight" => Embedded::WeightGrams,
        _ => bad("the value is price or grams"),
    };
    InStoreRule { prefix: prefix.to_string(), item_digits, value }
}

fn rules_fail(e: &Error) -> ! {
    match e {
        Error::LabelRuleRefused { .. } => fail("invalid_label_rule", &e.to_string()),
        Error::LinePriceOutOfRange { max, .. } => {
            fail("invalid_input", &format!("the open-price limit is 1 to {max} minor units of the store's currency"))
        }
        Error::NotSignedIn => fail("not_signed_in", &e.to_string()),
        Error::NotAllowed { .. } => fail("not_allowed", &e.to_string()),
        Error::InvalidInput(_) => fail("invalid_input", &e.to_string()),
        _ => fail("ledger", &e.to_string()),
    }
}

/// `store rules`: the three rules now.
pub(crate) fn show(engine: &Engine) -> i32 {
    let r = engine.counter_rules().get().unwrap_or_else(|e| rules_fail(&e));
    let rules: Vec<_> = r
        .labels
        .rules
        .iter()
        .map(|x| {
            let value = match x.value {
                Embedded::Price => "price",
                Embedded::WeightGrams => "grams",
            };
            json!({"prefix": x.prefix, "item_digits": x.item_digits, "value": value})
        })
        .collect();
    out!(
        "{}",
        json!({
            "label_rules": {"rules": rules, "own": r.labels.own},
            "open_price_limit": {"amount": r.open_price_limit, "currency": r.currency.code(),
                                 "text": Money::new(r.open_price_limit, r.currency).to_string()},
            "tax_exemptions": {"on": r.tax_exemptions, "default": r.tax_exemptions_setting.is_none()},
        })
    );
    0
}

pub(crate) fn label_rules(engine: &Engine, cmd: &LabelRulesCmd) -> i32 {
    let rules: Option<Vec<InStoreRule>> = match cmd {
        LabelRulesCmd::Set { rules, none: true } if rules.is_empty() => Some(Vec::new()),
        LabelRulesCmd::Set { rules, .. } => Some(rules.iter().map(|s| parse_rule(s)).collect()),
        LabelRulesCmd::Reset => None,
    };
    engine.counter_rules().set_label_rules(rules.as_deref(), None).unwrap_or_else(|e| rules_fail(&e));
    show(engine)
}

/// `store open-price-limit AMOUNT`, typed as money in the store's currency.
pub(crate) fn open_price_limit(engine: &Engine, amount: &str) -> i32 {
    let currency = engine.store().settings().unwrap_or_else(|e| rules_fail(&e)).currency;
    if amount.trim_start().starts_with('-') {
        fail("invalid_input", &format!("open-price limit {amount:?}: a limit is above zero"));
    }
    // The parser's refusal names the currency and why (sign, decimals, digits).
    let m = Money::parse(amount, currency).unwrap_or_else(|e| fail("invalid_input", &format!("open-price limit: {e}")));
    engine.counter_rules().set_open_price_limit(m.amount_minor, None).unwrap_or_else(|e| rules_fail(&e));
    show(engine)
}

/// `store tax-exemptions on|off|default`.
pub(crate) fn tax_exemptions(engine: &Engine, setting: &str) -> i32 {
    let allowed = match setting {
        "on" => Some(true),
        "off" => Some(false),
        "default" => None,
        other => fail("invalid_input", &format!("tax-exemptions {:?}: on, off or default", other.chars().take(16).collect::<String>())),
    };
    engine.counter_rules().set_tax_exemptions(allowed, None).unwrap_or_else(|e| rules_fail(&e));
    show(engine)
}
