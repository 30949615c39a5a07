//! Stripe's test cards for `card_present` (the numbers a simulated reader accepts in
//! `present_payment_method`), its test amounts, and what an approved card leaves on
//! the charge: `payment_method_details.card_present` with the EMV receipt fields.
use crate::store::WriterState;
use serde_json::{json, Value};

/// Card brand, as Stripe spells it in `brand` / `network`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Brand {
    Visa,
    Mastercard,
    Amex,
    Discover,
    Diners,
    Jcb,
    Unionpay,
}

impl Brand {
    fn name(self) -> &'static str {
        match self {
            Brand::Visa => "visa",
            Brand::Mastercard => "mastercard",
            Brand::Amex => "amex",
            Brand::Discover => "discover",
            Brand::Diners => "diners",
            Brand::Jcb => "jcb",
            Brand::Unionpay => "unionpay",
        }
    }
    /// The EMV application identifier a chip of this brand selects (`dedicated_file_name`).
    fn aid(self) -> &'static str {
        match self {
            Brand::Visa => "A0000000031010",
            Brand::Mastercard => "A0000000041010",
            Brand::Amex => "A00000002501",
            Brand::Discover | Brand::Diners => "A0000001523010",
            Brand::Jcb => "A0000000651010",
            Brand::Unionpay => "A000000333010101",
        }
    }
    fn app_name(self, funding: Funding) -> &'static str {
        match (self, funding) {
            (Brand::Visa, Funding::Debit) => "Visa Debit",
            (Brand::Visa, Funding::Credit | Funding::Prepaid) => "Visa Credit",
            (Brand::Mastercard, Funding::Debit) => "Debit Mastercard",
            (Brand::Mastercard, Funding::Credit | Funding::Prepaid) => "Mastercard",
            (Brand::Amex, _) => "American Express",
            (Brand::Discover, _) => "Discover",
            (Brand::Diners, _) => "Diners Club",
            (Brand::Jcb, _) => "JCB",
            (Brand::Unionpay, _) => "UnionPay Credit",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Funding {
    Credit,
    Debit,
    Prepaid,
}

impl Funding {
    fn name(self) -> &'static str {
        match self {
            Funding::Credit => "credit",
            Funding::Debit => "debit",
            Funding::Prepaid => "prepaid",
        }
    }
    /// The receipt's `account_type`.
    fn account_type(self) -> &'static str {
        match self {
            Funding::Credit => "credit",
            Funding::Debit => "checking",
            Funding::Prepaid => "prepaid",
        }
    }
}

/// What the issuer answers for a card: approve, or a decline with Stripe's error
/// `code` (`card_declined`, `expired_card`, `processing_error`) and `decline_code`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Outcome {
    Approve,
    Decline { code: &'static str, decline_code: &'static str },
}

#[derive(Clone, Copy, Debug)]
pub(super) struct TestCard {
    pub number: &'static str,
    pub brand: Brand,
    pub funding: Funding,
    pub outcome: Outcome,
}

const fn card(number: &'static str, brand: Brand, funding: Funding, outcome: Outcome) -> TestCard {
    TestCard { number, brand, funding, outcome }
}
const fn declined(code: &'static str, decline_code: &'static str) -> Outcome {
    Outcome::Decline { code, decline_code }
}

/// Stripe's documented `card_present` test numbers.
const CARDS: &[TestCard] = &[
    card("4242424242424242", Brand::Visa, Funding::Credit, Outcome::Approve),
    card("4000056655665556", Brand::Visa, Funding::Debit, Outcome::Approve),
    card("5555555555554444", Brand::Mastercard, Funding::Credit, Outcome::Approve),
    card("5200828282828210", Brand::Mastercard, Funding::Debit, Outcome::Approve),
    card("5105105105105100", Brand::Mastercard, Funding::Prepaid, Outcome::Approve),
    card("378282246310005", Brand::Amex, Funding::Credit, Outcome::Approve),
    card("371449635398431", Brand::Amex, Funding::Credit, Outcome::Approve),
    card("6011111111111117", Brand::Discover, Funding::Credit, Outcome::Approve),
    card("6011000990139424", Brand::Discover, Funding::Credit, Outcome::Approve),
    card("3056930009020004", Brand::Diners, Funding::Credit, Outcome::Approve),
    card("36227206271667", Brand::Diners, Funding::Credit, Outcome::Approve),
    card("3566002020360505", Brand::Jcb, Funding::Credit, Outcome::Approve),
    card("6200000000000005", Brand::Unionpay, Funding::Credit, Outcome::Approve),
    card("4000000000000002", Brand::Visa, Funding::Credit, declined("card_declined", "generic_decline")),
    card("4000000000009995", Brand::Visa, Funding::Credit, declined("card_declined", "insufficient_funds")),
    card("4000000000009987", Brand::Visa, Funding::Credit, declined("card_declined", "lost_card")),
    card("4000000000009979", Brand::Visa, Funding::Credit, declined("card_declined", "stolen_card")),
    card("4000000000000069", Brand::Visa, Funding::Credit, declined("expired_card", "expired_card")),
    card("4000000000000119", Brand::Visa, Funding::Credit, declined("processing_error", "processing_error")),
];

/// The card used when `card_present[number]` is left out.
pub(super) const DEFAULT_CARD: &str = "4242424242424242";

pub(super) fn lookup(number: &str) -> Option<TestCard> {
    CARDS.iter().find(|c| c.number == number).copied()
}

/// Currencies without minor units: test amounts (which look at the cents) do not apply.
const ZERO_DECIMAL: &[&str] = &["jpy", "krw", "vnd", "clp", "ugx", "isk", "bif", "djf", "gnf", "kmf", "mga", "pyg", "rwf", "vuv", "xaf", "xof", "xpf"];

/// Stripe's Terminal test amounts: an otherwise approved card is declined when the
/// amount's minor units end in 01, 05, 55, 65 or 75.
pub(super) fn outcome_for(card: &TestCard, amount: i64, currency: &str) -> Outcome {
    if card.outcome != Outcome::Approve || ZERO_DECIMAL.contains(&currency) {
        return card.outcome;
    }
    match amount % 100 {
        1 => declined("card_declined", "call_issuer"),
        5 => declined("card_declined", "generic_decline"),
        55 => declined("card_declined", "incorrect_pin"),
        65 => declined("card_declined", "withdrawal_count_limit_exceeded"),
        75 => declined("card_declined", "pin_try_exceeded"),
        _ => Outcome::Approve,
    }
}

/// The customer-facing message of a decline (`failure_message`, `last_payment_error.message`).
pub(super) fn decline_message(decline_code: &str) -> &'static str {
    match decline_code {
        "insufficient_funds" => "Your card has insufficient funds.",
        "expired_card" => "Your card has expired.",
        "processing_error" => "An error occurred while processing your card. Try again in a little bit.",
        "incorrect_pin" => "The PIN entered is incorrect.",
        "pin_try_exceeded" => "The allowable number of PIN tries was exceeded.",
        _ => "Your card was declined.",
    }
}

/// Contactless payments up to this amount need no cardholder verification.
const NO_CVM_LIMIT: i64 = 10_000;

/// `payment_method_details` of a `card_present` charge.
pub(super) fn details(st: &mut WriterState, card: &TestCard, amount: i64, approved: bool) -> Value {
    let last4 = &card.number[card.number.len() - 4..];
    let auth_code: String = st.random_alnum(6).to_ascii_uppercase();
    let cryptogram: String = st.random_alnum(16).to_ascii_uppercase();
    let receipt = json!({
        "account_type": card.funding.account_type(),
        "application_cryptogram": cryptogram,
        "application_preferred_name": card.brand.app_name(card.funding),
        "authorization_code": if approved { Value::from(auth_code) } else { Value::Null },
        // "00" approved, "05" do not honour, as ASCII hex (the EMV tag 8A value).
        "authorization_response_code": if approved { "3030" } else { "3035" },
        "cardholder_verification_method": if amount <= NO_CVM_LIMIT { "none" } else { "online_pin" },
        "dedicated_file_name": card.brand.aid(),
        "terminal_verification_results": "0000000000",
        "transaction_status_information": "0000",
    });
    json!({
        "type": "card_present",
        "card_present": {
            "amount_authorized": if approved { Value::from(amount) } else { Value::Null },
            "brand": card.brand.name(),
            "cardholder_name": null,
            "country": "US",
            "exp_month": 12,
            "exp_year": 2030,
            "fingerprint": format!("fp{}", &card.number[card.number.len() - 8..]),
            "funding": card.funding.name(),
            "generated_card": null,
            "incremental_authorization_supported": false,
            "last4": last4,
            "network": card.brand.name(),
            "offline": null,
            "overcapture_supported": false,
            "read_method": "contactless_emv",
            "receipt": receipt,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn test_amounts_decline_approving_cards_only_with_minor_units() {
        let visa = lookup("4242424242424242").unwrap();
        assert_eq!(outcome_for(&visa, 1000, "usd"), Outcome::Approve);
        assert_eq!(outcome_for(&visa, 1001, "usd"), declined("card_declined", "call_issuer"));
        assert_eq!(outcome_for(&visa, 1075, "usd"), declined("card_declined", "pin_try_exceeded"));
        assert_eq!(outcome_for(&visa, 1001, "jpy"), Outcome::Approve);
        let nsf = lookup("4000000000009995").unwrap();
        assert_eq!(outcome_for(&nsf, 1000, "usd"), declined("card_declined", "insufficient_funds"));
        assert!(lookup("4111111111111111").is_none());
    }
}
