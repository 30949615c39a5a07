//! `checkout`: charge an amount, a cart of the ledger, or a new payment after an earlier
//! one ("another card"). Its input is checked before the ledger is opened, so a refused
//! command leaves nothing behind.

use crate::parse::parse_amount;
use crate::outcome::{checkout_error, exit_code, fail};
use clap::Args;
use paydesk_ledger::CheckoutOptions;
use paydesk_domain::{CaptureMethod, Currency, Money};
use paydesk_register::{CheckoutOutcome, Engine, EngineError};

#[derive(Args, Debug)]
pub(crate) struct CheckoutArgs {
    /// Amount in minor units (JPY 500 = 500; USD 5.00 = 500).
    #[arg(long, allow_hyphen_values = true, required_unless_present = "cart")]
    amount: Option<String>,
    #[arg(long, required_unless_present = "cart")]
    currency: Option<String>,
    /// Charge this cart of the ledger instead ("Charge" pressed for a cart: an
    /// open checkout of the cart is reused, same key).
    #[arg(long, conflicts_with_all = ["amount", "currency", "after"])]
    cart: Option<i64>,
    /// Payment method token.
    #[arg(long, default_value = "pm_card_visa")]
    card: String,
    /// automatic | manual
    #[arg(long, default_value = "automatic")]
    capture: String,
    /// Explicit new payment after this checkout (e.g. another card after a decline).
    #[arg(long)]
    after: Option<String>,
    /// Start the new payment even though the previous outcome is unknown (audited).
    #[arg(long = "override-reason", requires = "after")]
    override_reason: Option<String>,
}

/// Refuses bad input before the ledger is touched: bad input loses nothing.
pub(crate) fn validate(a: &CheckoutArgs) {
    if let Some(amount) = &a.amount {
        if let Err(e) = parse_amount(amount) {
            fail("invalid_input", &e);
        }
    }
    if let Some(currency) = &a.currency {
        if currency.parse::<Currency>().is_err() {
            fail("invalid_input", &format!("unknown currency {currency:?} (known: jpy, usd, eur, gbp, krw)"));
        }
    }
    if a.capture.parse::<CaptureMethod>().is_err() {
        fail("invalid_input", &format!("--capture must be automatic or manual (got {:?})", a.capture));
    }
}

pub(crate) async fn run(engine: &Engine, a: &CheckoutArgs) -> i32 {
    let CheckoutArgs { amount, currency, cart, card, capture, after, override_reason } = a;
    let mut options = CheckoutOptions::card(card.clone());
    options.capture_method = capture.parse().unwrap_or(CaptureMethod::Automatic);
    let res = match (cart, after) {
        (Some(cart), _) => engine.charge_cart(paydesk_ledger::CartId(*cart), options).await,
        (None, Some(prev)) => engine.new_payment_after(prev, options, override_reason.as_deref()).await,
        (None, None) => {
            let amount = parse_amount(amount.as_deref().unwrap_or(""))
                .unwrap_or_else(|e| fail("invalid_input", &e));
            let currency: Currency = currency
                .as_deref()
                .unwrap_or("")
                .parse()
                .unwrap_or_else(|_| fail("invalid_input", "unknown currency"));
            let money =
                Money::positive(amount, currency).unwrap_or_else(|e| fail("invalid_input", &e.to_string()));
            engine.checkout_amount(money, options).await
        }
    };
    match res {
        // Never charged, and not a decline: an error object, with the key.
        Ok(r) if r.outcome == CheckoutOutcome::Failed => {
            let code = r.error_code.clone().unwrap_or_else(|| "failed".into());
            let message = r.message.clone().unwrap_or_default();
            checkout_error(&code, &format!("{message}; nothing was charged"), Some(&r.checkout_key), Some(r.state.as_str()))
        }
        Ok(r) => {
            out!("{}", serde_json::to_string(&r).unwrap());
            exit_code(r.outcome)
        }
        Err(e) => {
            let state = e.checkout_key().and_then(|k| engine.status_of(k).ok()).map(|r| r.state.as_str());
            // The engine names the later payment; how to start from it is this CLI's flag.
            let message = if let EngineError::LaterPaymentExists { later, .. } = &e {
                format!("{e} (use --after {later})")
            } else {
                e.to_string()
            };
            checkout_error(e.code(), &message, e.checkout_key(), state)
        }
    }
}
