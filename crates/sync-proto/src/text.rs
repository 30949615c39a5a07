//! Shared checks for the strings and amounts inside messages.
use crate::limits::{MAX_AMOUNT, MAX_KEY_LEN, MAX_SEQ, MAX_TEXT_LEN};
use crate::ProtoError;

/// A key or id: 1..=255 printable ASCII characters, no spaces.
pub(crate) fn key(field: &str, s: &str) -> Result<(), ProtoError> {
    if s.is_empty() {
        return Err(ProtoError::field(field, "is empty"));
    }
    if s.len() > MAX_KEY_LEN {
        return Err(ProtoError::field(field, format!("is {} bytes long; at most {MAX_KEY_LEN}", s.len())));
    }
    if let Some(i) = s.bytes().position(|b| !b.is_ascii_graphic()) {
        return Err(ProtoError::field(field, format!("has a space, control or non-ASCII character at byte {i}")));
    }
    Ok(())
}

/// Free text: at most 200 characters, no control characters.
pub(crate) fn text(field: &str, s: &str) -> Result<(), ProtoError> {
    let n = s.chars().count();
    if n > MAX_TEXT_LEN {
        return Err(ProtoError::field(field, format!("is {n} characters long; at most {MAX_TEXT_LEN}")));
    }
    if s.chars().any(char::is_control) {
        return Err(ProtoError::field(field, "has a control character"));
    }
    Ok(())
}

/// Money in minor units: positive and bounded (record 0012).
pub(crate) fn amount(field: &str, a: i64) -> Result<(), ProtoError> {
    if a <= 0 || a > MAX_AMOUNT {
        return Err(ProtoError::field(field, format!("must be between 1 and {MAX_AMOUNT} minor units, got {a}")));
    }
    Ok(())
}

/// An ISO 4217 code in lower case, as the PSP writes it ("usd", "jpy").
pub(crate) fn currency(field: &str, c: &str) -> Result<(), ProtoError> {
    if c.len() != 3 || !c.bytes().all(|b| b.is_ascii_lowercase()) {
        return Err(ProtoError::field(field, format!("must be three lower-case letters, got {c:?}")));
    }
    Ok(())
}

/// A register-local row id: positive and inside BIGINT.
pub(crate) fn id(field: &str, v: i64) -> Result<(), ProtoError> {
    if v < 1 || v as u64 > MAX_SEQ {
        return Err(ProtoError::field(field, format!("must be between 1 and {MAX_SEQ}, got {v}")));
    }
    Ok(())
}

/// Money that may be zero (a float, a count, the change).
pub(crate) fn amount_or_zero(field: &str, a: i64) -> Result<(), ProtoError> {
    if !(0..=MAX_AMOUNT).contains(&a) {
        return Err(ProtoError::field(field, format!("must be between 0 and {MAX_AMOUNT} minor units, got {a}")));
    }
    Ok(())
}

/// Longest time zone name (the register ledger's `MAX_TIME_ZONE_CHARS`).
pub const MAX_TIME_ZONE_CHARS: usize = 64;

/// An IANA time zone name by the register ledger's own rule (its `checked_time_zone`):
/// letters, digits, `/ _ - +`, at most 64, and a zone of the time zone database, looked
/// up with the same library (jiff), so a zone the back office accepts is one every
/// register accepts. An empty name is refused: on the wire, "not said" is absent.
pub fn time_zone(field: &str, name: &str) -> Result<(), ProtoError> {
    let shape = !name.is_empty()
        && name.chars().count() <= MAX_TIME_ZONE_CHARS
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '_' | '-' | '+'));
    if !shape || jiff::tz::TimeZone::get(name).is_err() {
        let shown: String = name.chars().take(MAX_TIME_ZONE_CHARS).collect();
        return Err(ProtoError::field(field, format!("{shown:?} is not a zone of the time zone database (e.g. Asia/Tokyo, America/New_York)")));
    }
    Ok(())
}
