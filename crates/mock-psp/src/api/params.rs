//! Stripe's form parameters: per-endpoint allow-lists with unknown and duplicate
//! checks ([`P`]), metadata limits, amounts, currencies, ids, and the validation of
//! every POST into an [`Action`] before its idempotency key is claimed (a request
//! refused here is not stored, record 0016).
use super::errors::{invalid, not_found_url, truncate, ApiError};
use crate::form::Params;
use std::collections::BTreeMap;

const CURRENCIES: &[&str] = &[
    "usd", "eur", "jpy", "gbp", "aud", "cad", "chf", "cny", "hkd", "sgd", "sek", "nok", "dkk", "pln", "czk", "huf",
    "nzd", "mxn", "brl", "inr", "krw", "twd", "thb", "myr", "php", "idr", "zar", "ils", "aed", "sar", "try", "ron",
    "bgn", "isk", "clp", "vnd", "ugx", "kwd", "bhd", "jod", "omr", "tnd",
];
const MAX_AMOUNT: i64 = 99_999_999;
/// The test payment methods this PSP knows (Stripe's names): the two declines fail, the
/// others succeed. The app's card list must offer only these (a test checks it), and the
/// app names a payment's card from this list, never from the token's spelling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TestPaymentMethod {
    Visa,
    Mastercard,
    ChargeDeclined,
    ChargeDeclinedInsufficientFunds,
}

impl TestPaymentMethod {
    pub const ALL: [TestPaymentMethod; 4] = [
        TestPaymentMethod::Visa,
        TestPaymentMethod::Mastercard,
        TestPaymentMethod::ChargeDeclined,
        TestPaymentMethod::ChargeDeclinedInsufficientFunds,
    ];

    /// The token a request names (`payment_method`).
    pub const fn token(self) -> &'static str {
        match self {
            TestPaymentMethod::Visa => "pm_card_visa",
            TestPaymentMethod::Mastercard => "pm_card_mastercard",
            TestPaymentMethod::ChargeDeclined => "pm_card_chargeDeclined",
            TestPaymentMethod::ChargeDeclinedInsufficientFunds => "pm_card_chargeDeclinedInsufficientFunds",
        }
    }

    /// The card's decline code, or `None` for a card that succeeds.
    pub const fn decline_code(self) -> Option<&'static str> {
        match self {
            TestPaymentMethod::Visa | TestPaymentMethod::Mastercard => None,
            TestPaymentMethod::ChargeDeclined => Some("generic_decline"),
            TestPaymentMethod::ChargeDeclinedInsufficientFunds => Some("insufficient_funds"),
        }
    }

    /// The test method a token names; `None` for a token this PSP does not know.
    pub fn parse(token: &str) -> Option<TestPaymentMethod> {
        TestPaymentMethod::ALL.into_iter().find(|m| m.token() == token)
    }
}
/// The `payment_method_types[]` a PaymentIntent may name.
const PAYMENT_METHOD_TYPES: &[&str] = &["card", "card_present"];
/// Most metadata keys an object may hold (Stripe's limit).
pub(super) const MAX_METADATA_KEYS: usize = 50;
/// Longest description, in characters.
const MAX_DESCRIPTION_CHARS: usize = 1000;
/// Longest id accepted in a path or a parameter.
const MAX_ID_LEN: usize = 255;

pub(super) fn parse_amount(name: &str, v: &str) -> Result<i64, ApiError> {
    let ok = !v.is_empty() && v.len() <= 20 && v.bytes().enumerate().all(|(i, b)| b.is_ascii_digit() || (i == 0 && b == b'-'));
    let n: i64 = if ok { v.parse().ok() } else { None }.ok_or_else(|| {
        invalid("parameter_invalid_integer", format!("Invalid integer: {}", truncate(v, 40)), Some(name))
    })?;
    if n < 1 {
        return Err(invalid("amount_too_small", format!("Amount must be at least 1 (got {n})."), Some(name)));
    }
    if n > MAX_AMOUNT {
        return Err(invalid("amount_too_large", format!("Amount must be no more than {MAX_AMOUNT}."), Some(name)));
    }
    Ok(n)
}

pub(super) fn valid_id(s: &str) -> bool {
    !s.is_empty() && s.len() <= MAX_ID_LEN && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Parameter access with unknown-parameter and duplicate checks.
pub(super) struct P {
    map: BTreeMap<String, Vec<String>>,
    pub(super) metadata: BTreeMap<String, String>,
}

impl P {
    pub(super) fn new(params: &Params, allowed: &[&str], allow_metadata: bool) -> Result<P, ApiError> {
        let mut map: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut metadata = BTreeMap::new();
        for (k, v) in params {
            if allow_metadata && k == "metadata" && v.is_empty() {
                continue;
            }
            if allow_metadata && k.starts_with("metadata[") && k.ends_with(']') {
                let mk = &k[9..k.len() - 1];
                if mk.is_empty() || mk.len() > 40 || mk.contains('[') {
                    return Err(invalid("parameter_invalid_string", format!("Invalid metadata key: '{}'", truncate(mk, 60)), Some(k)));
                }
                if v.chars().count() > 500 {
                    return Err(invalid("parameter_invalid_string", "Metadata values can have up to 500 characters", Some(k)));
                }
                if metadata.insert(mk.to_string(), v.clone()).is_some() {
                    return Err(invalid("parameter_duplicate", format!("Received duplicate parameter: {k}"), Some(k)));
                }
                if metadata.len() > MAX_METADATA_KEYS {
                    return Err(invalid("parameter_invalid_string", "At most 50 metadata keys", Some("metadata")));
                }
                continue;
            }
            let base = k.split('[').next().unwrap_or(k);
            if !allowed.contains(&k.as_str()) && !allowed.contains(&format!("{base}[]").as_str()) {
                return Err(invalid("parameter_unknown", format!("Received unknown parameter: {}", truncate(k, 80)), Some(truncate(k, 80).as_str())));
            }
            let e = map.entry(k.clone()).or_default();
            e.push(v.clone());
            if e.len() > 1 && !k.ends_with("[]") {
                return Err(invalid("parameter_duplicate", format!("Received duplicate parameter: {k}"), Some(k)));
            }
        }
        Ok(P { map, metadata })
    }
    pub(super) fn get(&self, k: &str) -> Option<&str> {
        self.map.get(k).and_then(|v| v.first()).map(|s| s.as_str())
    }
    pub(super) fn bool(&self, k: &str) -> Result<Option<bool>, ApiError> {
        match self.get(k) {
            None => Ok(None),
            Some("true") => Ok(Some(true)),
            Some("false") => Ok(Some(false)),
            Some(v) => Err(invalid("parameter_invalid_boolean", format!("Invalid boolean: {}", truncate(v, 40)), Some(k))),
        }
    }
    pub(super) fn limit(&self) -> Result<i64, ApiError> {
        match self.get("limit") {
            None => Ok(10),
            Some(v) => match v.parse::<i64>() {
                Ok(n) if (1..=100).contains(&n) => Ok(n),
                _ => Err(invalid("parameter_invalid_integer", "limit must be an integer between 1 and 100", Some("limit"))),
            },
        }
    }
    pub(super) fn id(&self, k: &str) -> Result<Option<String>, ApiError> {
        match self.get(k) {
            None => Ok(None),
            Some(v) if valid_id(v) => Ok(Some(v.to_string())),
            Some(_) => Err(invalid("parameter_invalid_string", format!("Invalid id in {k}"), Some(k))),
        }
    }
    /// Every value of an array parameter sent as `k[]=…` (repeated) or `k[N]=…` (what
    /// Stripe's SDKs send), in index order.
    pub(super) fn array(&self, base: &str) -> Vec<String> {
        let mut out = self.all(&format!("{base}[]"));
        let mut indexed: Vec<(usize, String)> = self
            .map
            .iter()
            .filter_map(|(k, v)| {
                let i = k.strip_prefix(base)?.strip_prefix('[')?.strip_suffix(']')?.parse::<usize>().ok()?;
                Some((i, v.first()?.clone()))
            })
            .collect();
        indexed.sort();
        out.extend(indexed.into_iter().map(|(_, v)| v));
        out
    }
    /// Every value of a repeatable parameter (`types[]`).
    pub(super) fn all(&self, k: &str) -> Vec<String> {
        self.map.get(k).cloned().unwrap_or_default()
    }
}

/// A validated write operation, executed on the writer thread after the claim.
#[derive(Clone, Debug)]
pub(super) enum Action {
    CreatePi(CreatePi),
    Capture { id: String, amount: Option<i64> },
    Cancel { id: String, reason: Option<String> },
    UpdatePi(UpdatePi),
    Refund(Refund),
    Terminal(super::terminal::TerminalAction),
}

/// `POST /v1/payment_intents`.
#[derive(Clone, Debug)]
pub(super) struct CreatePi {
    pub amount: i64,
    pub currency: String,
    pub payment_method: Option<String>,
    pub confirm: bool,
    pub manual: bool,
    pub metadata: BTreeMap<String, String>,
    pub description: Option<String>,
    /// `card` (the default), `card_present` (a reader takes the card), or both.
    pub payment_method_types: Vec<String>,
}

/// `POST /v1/payment_intents/:id`: metadata merged key by key (an empty value deletes
/// its key; `metadata=` empties it first), description set (empty: unset).
#[derive(Clone, Debug)]
pub(super) struct UpdatePi {
    pub id: String,
    pub clear_metadata: bool,
    pub metadata: BTreeMap<String, String>,
    pub description: Option<Option<String>>,
}

/// `POST /v1/refunds`: by PaymentIntent or by charge (at least one).
#[derive(Clone, Debug)]
pub(super) struct Refund {
    pub payment_intent: Option<String>,
    pub charge: Option<String>,
    pub amount: Option<i64>,
    pub reason: Option<String>,
    pub metadata: BTreeMap<String, String>,
}

pub(super) const EXPAND: &str = "expand[]";

/// Is `segs` one of the POST endpoints? (Checked before the idempotency key.)
pub(super) fn known_post(segs: &[&str]) -> bool {
    matches!(
        segs,
        ["v1", "payment_intents"]
            | ["v1", "refunds"]
            | ["v1", "payment_intents", _]
            | ["v1", "payment_intents", _, "capture" | "cancel"]
            | ["v1", "terminal", "locations" | "readers"]
            | ["v1", "terminal", "readers", _, "process_payment_intent" | "cancel_action" | "set_reader_display"]
            | ["v1", "test_helpers", "terminal", "readers", _, "present_payment_method"]
    )
}

pub(super) fn validate_post(path: &[&str], params: &Params) -> Result<Action, ApiError> {
    match path {
        ["v1", "terminal", ..] | ["v1", "test_helpers", "terminal", ..] => super::terminal::params::validate(path, params).map(Action::Terminal),
        ["v1", "payment_intents"] => create_pi(params),
        ["v1", "payment_intents", id, "capture"] if valid_id(id) => {
            let p = P::new(params, &["amount_to_capture", EXPAND], false)?;
            let amount = p.get("amount_to_capture").map(|v| parse_amount("amount_to_capture", v)).transpose()?;
            Ok(Action::Capture { id: id.to_string(), amount })
        }
        ["v1", "payment_intents", id] if valid_id(id) => update_pi(id, params),
        ["v1", "payment_intents", id, "cancel"] if valid_id(id) => cancel_pi(id, params),
        ["v1", "refunds"] => refund(params),
        _ => Err(not_found_url("POST", path)),
    }
}

/// `POST /v1/payment_intents`: the amount and currency, a test payment method, its types
/// (card unless given), confirm (needs a payment method), the capture method.
fn create_pi(params: &Params) -> Result<Action, ApiError> {
    let p = P::new(
        params,
        &["amount", "currency", "payment_method", "confirm", "capture_method", "description", "payment_method_types[]", "receipt_email", "statement_descriptor", "confirmation_method", "automatic_payment_methods[enabled]", "automatic_payment_methods[allow_redirects]", "off_session", "setup_future_usage", "customer", EXPAND],
        true,
    )?;
    let amount = parse_amount("amount", p.get("amount").ok_or_else(|| invalid("parameter_missing", "Missing required param: amount.", Some("amount")))?)?;
    let currency = p.get("currency").ok_or_else(|| invalid("parameter_missing", "Missing required param: currency.", Some("currency")))?;
    let cur = currency.to_ascii_lowercase();
    if !CURRENCIES.contains(&cur.as_str()) {
        return Err(invalid("parameter_invalid_string", format!("Invalid currency: {}. Stripe currently supports these currencies: {}", truncate(currency, 20), CURRENCIES.join(", ")), Some("currency")));
    }
    let pm = p.get("payment_method").map(str::to_string);
    if let Some(pm) = &pm {
        if TestPaymentMethod::parse(pm).is_none() {
            return Err(invalid("resource_missing", format!("No such PaymentMethod: '{}'", truncate(pm, 60)), Some("payment_method")));
        }
    }
    let mut payment_method_types: Vec<String> = vec![];
    for t in p.array("payment_method_types") {
        if !PAYMENT_METHOD_TYPES.contains(&t.as_str()) {
            return Err(invalid("parameter_invalid_string", format!("payment_method_types: {} is not a type this PSP supports ({}).", truncate(&t, 40), PAYMENT_METHOD_TYPES.join(", ")), Some("payment_method_types")));
        }
        if !payment_method_types.contains(&t) {
            payment_method_types.push(t);
        }
    }
    if payment_method_types.is_empty() {
        payment_method_types.push("card".into());
    }
    if pm.is_some() && !payment_method_types.iter().any(|t| t == "card") {
        return Err(invalid("payment_intent_incompatible_payment_method", "The PaymentMethod provided (card) is not allowed for this PaymentIntent: its payment_method_types do not include card. A card_present PaymentIntent gets its card on a reader (process_payment_intent).", Some("payment_method")));
    }
    let confirm = p.bool("confirm")?.unwrap_or(false);
    if confirm && pm.is_none() {
        return Err(invalid("payment_intent_unexpected_state", "You cannot confirm this PaymentIntent because it's missing a payment method.", Some("payment_method")));
    }
    let manual = match p.get("capture_method") {
        None | Some("automatic") | Some("automatic_async") => false,
        Some("manual") => true,
        Some(v) => return Err(invalid("parameter_invalid_string", format!("Invalid capture_method: must be one of automatic, automatic_async, or manual (got {})", truncate(v, 40)), Some("capture_method"))),
    };
    if let Some(d) = p.get("description") {
        if d.chars().count() > MAX_DESCRIPTION_CHARS {
            return Err(invalid("parameter_invalid_string", "description is too long", Some("description")));
        }
    }
    let description = p.get("description").map(str::to_string);
    Ok(Action::CreatePi(CreatePi { amount, currency: cur, payment_method: pm, confirm, manual, description, metadata: p.metadata, payment_method_types }))
}

/// `POST /v1/payment_intents/:id`: the description and metadata (an empty `metadata`
/// clears it).
fn update_pi(id: &str, params: &Params) -> Result<Action, ApiError> {
    let p = P::new(params, &["description", EXPAND], true)?;
    let clear_metadata = params.iter().any(|(k, v)| k == "metadata" && v.is_empty());
    if let Some(d) = p.get("description") {
        if d.chars().count() > MAX_DESCRIPTION_CHARS {
            return Err(invalid("parameter_invalid_string", format!("description is too long (at most {MAX_DESCRIPTION_CHARS} characters)"), Some("description")));
        }
    }
    let description = p.get("description").map(|d| (!d.is_empty()).then(|| d.to_string()));
    Ok(Action::UpdatePi(UpdatePi { id: id.to_string(), clear_metadata, metadata: p.metadata, description }))
}

/// `POST /v1/payment_intents/:id/cancel`, with one of Stripe's cancellation reasons.
fn cancel_pi(id: &str, params: &Params) -> Result<Action, ApiError> {
    let p = P::new(params, &["cancellation_reason", EXPAND], false)?;
    let reason = p.get("cancellation_reason").map(str::to_string);
    if let Some(r) = &reason {
        if !["duplicate", "fraudulent", "requested_by_customer", "abandoned"].contains(&r.as_str()) {
            return Err(invalid("parameter_invalid_string", "Invalid cancellation_reason", Some("cancellation_reason")));
        }
    }
    Ok(Action::Cancel { id: id.to_string(), reason })
}

/// `POST /v1/refunds` of a payment intent or a charge, with one of Stripe's reasons.
fn refund(params: &Params) -> Result<Action, ApiError> {
    let p = P::new(params, &["payment_intent", "charge", "amount", "reason", EXPAND], true)?;
    let payment_intent = p.id("payment_intent")?;
    let charge = p.id("charge")?;
    if payment_intent.is_none() && charge.is_none() {
        return Err(invalid("parameter_missing", "One of the following params should be provided for this request: payment_intent or charge.", Some("payment_intent")));
    }
    let amount = p.get("amount").map(|v| parse_amount("amount", v)).transpose()?;
    let reason = p.get("reason").map(str::to_string);
    if let Some(r) = &reason {
        if !["duplicate", "fraudulent", "requested_by_customer"].contains(&r.as_str()) {
            return Err(invalid("parameter_invalid_string", "Invalid reason", Some("reason")));
        }
    }
    Ok(Action::Refund(Refund { payment_intent, charge, amount, reason, metadata: p.metadata }))
}
