//! Validation of the Terminal POSTs into a [`TerminalAction`], before the idempotency
//! key is claimed (a request refused here is not stored). Limits: see `mod.rs`.
use super::{TerminalAction, MAX_CART_LINE_ITEMS, MAX_LABEL_CHARS};
use crate::api::errors::{invalid, not_found_url, truncate, ApiError};
use crate::api::params::{parse_amount, valid_id, P, EXPAND};
use crate::form::Params;
use std::collections::BTreeMap;

/// Longest location name, address field and line-item description, in characters.
const MAX_TEXT_CHARS: usize = 500;
/// Most units of one cart line.
const MAX_QUANTITY: i64 = 10_000;
/// Largest amount on a cart or a tip (the PSP's amount limit).
const MAX_CART_AMOUNT: i64 = 99_999_999;

/// The registration codes this PSP knows: each registers a simulated reader.
pub const REGISTRATION_CODES: &[(&str, &str)] = &[("simulated-wpe", "simulated_wisepos_e"), ("simulated-s700", "simulated_stripe_s700")];

#[derive(Clone, Debug)]
pub(crate) struct NewLocation {
    pub display_name: String,
    pub address: BTreeMap<String, String>,
    pub metadata: BTreeMap<String, String>,
}

#[derive(Clone, Debug)]
pub(crate) struct NewReader {
    pub registration_code: String,
    pub device_type: &'static str,
    pub label: Option<String>,
    pub location: Option<String>,
    pub metadata: BTreeMap<String, String>,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct LineItem {
    pub description: String,
    pub amount: i64,
    pub quantity: i64,
}

#[derive(Clone, Debug)]
pub(crate) struct Cart {
    pub currency: String,
    pub line_items: Vec<LineItem>,
    pub tax: Option<i64>,
    pub total: i64,
}

fn required<'a>(p: &'a P, k: &str) -> Result<&'a str, ApiError> {
    p.get(k).ok_or_else(|| invalid("parameter_missing", format!("Missing required param: {k}."), Some(k)))
}

fn text(p: &P, k: &str, max: usize) -> Result<Option<String>, ApiError> {
    match p.get(k) {
        None => Ok(None),
        Some(v) if v.chars().count() > max => Err(invalid("parameter_invalid_string", format!("{k} must be at most {max} characters (got {}).", v.chars().count()), Some(k))),
        Some(v) => Ok(Some(v.to_string())),
    }
}

/// A non-negative integer amount (a cart line or tax may be 0).
fn non_negative(k: &str, v: &str) -> Result<i64, ApiError> {
    if v == "0" {
        return Ok(0);
    }
    let n = parse_amount(k, v)?;
    if n > MAX_CART_AMOUNT {
        return Err(invalid("amount_too_large", format!("{k} must be no more than {MAX_CART_AMOUNT}."), Some(k)));
    }
    Ok(n)
}

fn reader_id(id: &str) -> Result<String, ApiError> {
    if valid_id(id) {
        Ok(id.to_string())
    } else {
        Err(invalid("parameter_invalid_string", format!("Invalid reader id: {}", truncate(id, 60)), None))
    }
}

pub(crate) fn validate(path: &[&str], params: &Params) -> Result<TerminalAction, ApiError> {
    match path {
        ["v1", "terminal", "locations"] => create_location(params),
        ["v1", "terminal", "readers"] => {
            let p = P::new(params, &["registration_code", "label", "location", EXPAND], true)?;
            let code = required(&p, "registration_code")?;
            let Some((_, device_type)) = REGISTRATION_CODES.iter().find(|(c, _)| *c == code) else {
                let known: Vec<&str> = REGISTRATION_CODES.iter().map(|(c, _)| *c).collect();
                return Err(invalid("parameter_invalid_string", format!("The registration code {} is not valid: this PSP registers simulated readers only ({}).", truncate(code, 40), known.join(", ")), Some("registration_code")));
            };
            let label = text(&p, "label", MAX_LABEL_CHARS)?;
            Ok(TerminalAction::CreateReader(NewReader { registration_code: code.to_string(), device_type, label, location: p.id("location")?, metadata: p.metadata }))
        }
        ["v1", "terminal", "readers", id, "process_payment_intent"] => {
            let p = P::new(params, &["payment_intent", "process_config[skip_tipping]", "process_config[enable_customer_cancellation]", EXPAND], false)?;
            p.bool("process_config[skip_tipping]")?;
            p.bool("process_config[enable_customer_cancellation]")?;
            let payment_intent = p.id("payment_intent")?.ok_or_else(|| invalid("parameter_missing", "Missing required param: payment_intent.", Some("payment_intent")))?;
            Ok(TerminalAction::Process { reader: reader_id(id)?, payment_intent, fault: None })
        }
        ["v1", "terminal", "readers", id, "cancel_action"] => {
            P::new(params, &[EXPAND], false)?;
            Ok(TerminalAction::CancelAction { reader: reader_id(id)? })
        }
        ["v1", "terminal", "readers", id, "set_reader_display"] => set_display(id, params),
        ["v1", "test_helpers", "terminal", "readers", id, "present_payment_method"] => {
            let p = P::new(params, &["type", "card_present[number]", "amount_tip", EXPAND], false)?;
            match p.get("type") {
                None | Some("card_present") => {}
                Some(t) => return Err(invalid("parameter_invalid_string", format!("type must be card_present on this PSP (got {}).", truncate(t, 40)), Some("type"))),
            }
            let card = p.get("card_present[number]").unwrap_or(super::cards::DEFAULT_CARD);
            if super::cards::lookup(card).is_none() {
                return Err(invalid("parameter_invalid_string", format!("card_present[number] {} is not one of Stripe's card_present test card numbers (digits only, no spaces; 4242424242424242 approves).", truncate(card, 25)), Some("card_present[number]")));
            }
            let tip = p.get("amount_tip").map(|v| non_negative("amount_tip", v)).transpose()?.filter(|t| *t > 0);
            Ok(TerminalAction::Present { reader: reader_id(id)?, card: card.to_string(), tip })
        }
        _ => Err(not_found_url("POST", path)),
    }
}

/// `POST /v1/terminal/locations`: a display name and an address with an ISO country code.
fn create_location(params: &Params) -> Result<TerminalAction, ApiError> {
    let fields = ["address[line1]", "address[line2]", "address[city]", "address[state]", "address[postal_code]", "address[country]"];
    let mut allowed = vec!["display_name", EXPAND];
    allowed.extend(fields);
    let p = P::new(params, &allowed, true)?;
    let display_name = text(&p, "display_name", MAX_TEXT_CHARS)?.ok_or_else(|| invalid("parameter_missing", "Missing required param: display_name.", Some("display_name")))?;
    if display_name.trim().is_empty() {
        return Err(invalid("parameter_invalid_string_blank", "display_name must not be blank.", Some("display_name")));
    }
    let country = required(&p, "address[country]")?;
    if country.len() != 2 || !country.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(invalid("country_code_invalid", format!("address[country] must be a two-letter ISO country code in capitals, such as US (got {}).", truncate(country, 20)), Some("address[country]")));
    }
    let mut address = BTreeMap::new();
    for f in fields {
        if let Some(v) = text(&p, f, MAX_TEXT_CHARS)? {
            address.insert(f["address[".len()..f.len() - 1].to_string(), v);
        }
    }
    Ok(TerminalAction::CreateLocation(NewLocation { display_name, address, metadata: p.metadata }))
}

/// `POST /v1/terminal/readers/:id/set_reader_display`: a cart whose lines and tax add up
/// to its total.
fn set_display(id: &str, params: &Params) -> Result<TerminalAction, ApiError> {
    let (items, rest): (Params, Params) = params.iter().cloned().partition(|(k, _)| k.starts_with("cart[line_items]"));
    let p = P::new(&rest, &["type", "cart[currency]", "cart[tax]", "cart[total]", EXPAND], false)?;
    let typ = required(&p, "type")?;
    if typ != "cart" {
        return Err(invalid("parameter_invalid_string", format!("type must be cart (got {}).", truncate(typ, 40)), Some("type")));
    }
    let currency = required(&p, "cart[currency]")?.to_ascii_lowercase();
    if currency.len() != 3 || !currency.bytes().all(|b| b.is_ascii_lowercase()) {
        return Err(invalid("parameter_invalid_string", "cart[currency] must be a three-letter currency code.", Some("cart[currency]")));
    }
    let line_items = line_items(&items)?;
    let tax = p.get("cart[tax]").map(|v| non_negative("cart[tax]", v)).transpose()?;
    let total = non_negative("cart[total]", required(&p, "cart[total]")?)?;
    // The customer must see a cart that adds up: the lines and the tax make the total.
    let sum = line_items.iter().map(|l| l.amount.saturating_mul(l.quantity)).fold(0i64, i64::saturating_add).saturating_add(tax.unwrap_or(0));
    if sum != total {
        return Err(invalid("parameter_invalid_integer", format!("cart[total] ({total}) is not the sum of the line items (amount × quantity) and the tax ({sum})."), Some("cart[total]")));
    }
    Ok(TerminalAction::SetDisplay { reader: reader_id(id)?, cart: Cart { currency, line_items, tax, total } })
}

/// `cart[line_items][N][field]` (what SDKs send) or `cart[line_items][][field]` (a
/// field seen again starts the next item).
fn line_items(items: &Params) -> Result<Vec<LineItem>, ApiError> {
    let mut raw: Vec<BTreeMap<&str, &str>> = Vec::new();
    let mut indexed: BTreeMap<usize, usize> = BTreeMap::new();
    for (k, v) in items {
        let rest = &k["cart[line_items]".len()..];
        let bad = || invalid("parameter_unknown", format!("Received unknown parameter: {}", truncate(k, 80)), Some(truncate(k, 80).as_str()));
        let (idx, field) = rest.strip_prefix('[').and_then(|r| r.split_once("][")).and_then(|(i, f)| f.strip_suffix(']').map(|f| (i, f))).ok_or_else(bad)?;
        if !["description", "amount", "quantity"].contains(&field) {
            return Err(bad());
        }
        let slot = if idx.is_empty() {
            if raw.last().is_none_or(|m| m.contains_key(field)) {
                raw.push(BTreeMap::new());
            }
            raw.len() - 1
        } else {
            let n: usize = idx.parse().ok().filter(|n| *n < MAX_CART_LINE_ITEMS).ok_or_else(|| invalid("parameter_invalid_integer", format!("A cart has at most {MAX_CART_LINE_ITEMS} line items (index {} in {}).", truncate(idx, 12), truncate(k, 60)), Some("cart[line_items]")))?;
            *indexed.entry(n).or_insert_with(|| {
                raw.push(BTreeMap::new());
                raw.len() - 1
            })
        };
        if raw[slot].insert(field, v.as_str()).is_some() {
            return Err(invalid("parameter_duplicate", format!("Received duplicate parameter: {}", truncate(k, 80)), Some(truncate(k, 80).as_str())));
        }
        if raw.len() > MAX_CART_LINE_ITEMS {
            return Err(invalid("parameter_invalid_integer", format!("A cart has at most {MAX_CART_LINE_ITEMS} line items."), Some("cart[line_items]")));
        }
    }
    raw.iter()
        .enumerate()
        .map(|(i, m)| {
            let field = |f: &str| m.get(f).copied().ok_or_else(|| invalid("parameter_missing", format!("Missing required param: cart[line_items][{i}][{f}]."), Some("cart[line_items]")));
            let description = field("description")?;
            if description.chars().count() > MAX_TEXT_CHARS {
                return Err(invalid("parameter_invalid_string", format!("cart[line_items][{i}][description] must be at most {MAX_TEXT_CHARS} characters."), Some("cart[line_items]")));
            }
            let amount = non_negative("cart[line_items][amount]", field("amount")?)?;
            let quantity = parse_amount("cart[line_items][quantity]", field("quantity")?)?;
            if quantity > MAX_QUANTITY {
                return Err(invalid("parameter_invalid_integer", format!("cart[line_items][{i}][quantity] must be at most {MAX_QUANTITY}."), Some("cart[line_items]")));
            }
            Ok(LineItem { description: description.to_string(), amount, quantity })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    fn ps(v: &[(&str, &str)]) -> Params {
        v.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }
    #[test]
    fn line_items_in_both_notations_and_limits() {
        let a = line_items(&ps(&[("cart[line_items][0][description]", "Tea"), ("cart[line_items][0][amount]", "300"), ("cart[line_items][0][quantity]", "2"), ("cart[line_items][1][description]", "Cake"), ("cart[line_items][1][amount]", "450"), ("cart[line_items][1][quantity]", "1")])).unwrap();
        let b = line_items(&ps(&[("cart[line_items][][description]", "Tea"), ("cart[line_items][][amount]", "300"), ("cart[line_items][][quantity]", "2"), ("cart[line_items][][description]", "Cake"), ("cart[line_items][][amount]", "450"), ("cart[line_items][][quantity]", "1")])).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.len(), 2);
        let many: Vec<(String, String)> = (0..=MAX_CART_LINE_ITEMS).flat_map(|i| [("cart[line_items][][description]".to_string(), format!("x{i}")), ("cart[line_items][][amount]".into(), "1".into()), ("cart[line_items][][quantity]".into(), "1".into())]).collect();
        assert_eq!(line_items(&many).unwrap_err().code.as_deref(), Some("parameter_invalid_integer"));
        assert_eq!(line_items(&ps(&[("cart[line_items][0][price]", "1")])).unwrap_err().code.as_deref(), Some("parameter_unknown"));
    }
}
