//! Identifiers printed on or scanned at the register: JAN/EAN barcodes and the
//! qualified-invoice registration number (record 0056).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum CodeError {
    #[error("{len} characters; a {kind} has {expected}")]
    WrongLength { kind: &'static str, len: usize, expected: &'static str },
    #[error("character {position} is not a digit 0-9")]
    NotADigit { position: usize },
    #[error("the check digit is {found}; the other digits give {expected}")]
    BadCheckDigit { found: u8, expected: u8 },
    #[error("a registration number starts with an upper-case T")]
    MissingT,
}

fn digits(s: &str, offset: usize) -> Result<Vec<u8>, CodeError> {
    s.chars()
        .enumerate()
        .map(|(i, c)| c.to_digit(10).filter(|_| c.is_ascii_digit()).map(|d| d as u8).ok_or(CodeError::NotADigit { position: i + offset }))
        .collect()
}

/// The GS1 check digit of the data digits (all but the check digit): weights 3 and 1
/// alternate from the rightmost data digit, and the check digit brings the sum to a
/// multiple of 10. Same rule for EAN-13/JAN-13 and EAN-8/JAN-8.
pub fn ean_check_digit(data: &[u8]) -> u8 {
    let sum: u32 = data
        .iter()
        .rev()
        .enumerate()
        .map(|(i, d)| u32::from(*d) * if i % 2 == 0 { 3 } else { 1 })
        .sum();
    ((10 - sum % 10) % 10) as u8
}

/// A qualified-invoice issuer's registration number (適格請求書発行事業者登録番号): "T" and
/// 13 digits. For a corporation the 13 digits are its corporate number (法人番号), whose
/// leading digit is a check digit. Sole proprietors get 13 digits that are neither their
/// individual number nor any corporate number; they are checked with the same rule here, on
/// the understanding that the tax agency issues them with the same check digit (record 0056
/// notes this is not confirmed from a primary source).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct RegistrationNumber(String);

impl RegistrationNumber {
    /// Parses "T" followed by 13 ASCII digits with a valid check digit. Surrounding spaces
    /// are ignored; nothing else is normalised (a full-width "Ｔ" or digit is refused with
    /// the position, so the operator retypes it rather than the receipt showing a guess).
    pub fn parse(input: &str) -> Result<Self, CodeError> {
        let s = input.trim();
        let len = s.chars().count();
        if len != 14 {
            return Err(CodeError::WrongLength { kind: "registration number", len, expected: "T and 13 digits" });
        }
        let rest = s.strip_prefix('T').ok_or(CodeError::MissingT)?;
        let d = digits(rest, 1)?;
        let expected = corporate_number_check_digit(&d[1..]);
        if d[0] != expected {
            return Err(CodeError::BadCheckDigit { found: d[0], expected });
        }
        Ok(RegistrationNumber(s.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for RegistrationNumber {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for RegistrationNumber {
    type Error = CodeError;
    fn try_from(s: String) -> Result<Self, CodeError> {
        RegistrationNumber::parse(&s)
    }
}

impl From<RegistrationNumber> for String {
    fn from(r: RegistrationNumber) -> String {
        r.0
    }
}

/// The check digit of a corporate number from its 12-digit base number.
///
/// Rule (法人番号の指定等に関する省令 第2条, as published by the National Tax Agency):
/// check digit = 9 − (Σ_{n=1}^{12} Pn × Qn mod 9), where Pn is the n-th digit of the base
/// number counted from its lowest (rightmost) digit, and Qn is 1 when n is odd and 2 when n
/// is even. The check digit is written first, before the base number.
fn corporate_number_check_digit(base: &[u8]) -> u8 {
    debug_assert_eq!(base.len(), 12);
    let sum: u32 = base
        .iter()
        .rev()
        .enumerate()
        .map(|(i, p)| u32::from(*p) * if (i + 1) % 2 == 1 { 1 } else { 2 })
        .sum();
    (9 - sum % 9) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ean13_and_ean8_check_digits() {
        // 4901234567894 is the JAN used in GS1 Japan's examples; 49012347 an EAN-8. The
        // check itself is read through `Gtin13::parse`, the one barcode rule (record 0115).
        use crate::Gtin13;
        assert!(Gtin13::parse("4901234567894").is_ok());
        assert!(Gtin13::parse("49012347").is_ok());
        assert!(Gtin13::parse("4006381333931").is_ok());
        assert_eq!(Gtin13::parse("4901234567890"), Err(CodeError::BadCheckDigit { found: 0, expected: 4 }));
        assert!(matches!(Gtin13::parse("49012345678"), Err(CodeError::WrongLength { len: 11, .. })));
        assert_eq!(Gtin13::parse("49012345678a4"), Err(CodeError::NotADigit { position: 11 }));
        assert_eq!(Gtin13::parse("４901234567894").unwrap_err(), CodeError::NotADigit { position: 0 });
    }

    #[test]
    fn registration_number_check_digit() {
        // 7000012050002 is the National Tax Agency's own corporate number.
        let r = RegistrationNumber::parse(" T7000012050002 ").unwrap();
        assert_eq!(r.as_str(), "T7000012050002");
        assert_eq!(
            RegistrationNumber::parse("T1000012050002"),
            Err(CodeError::BadCheckDigit { found: 1, expected: 7 })
        );
        assert_eq!(RegistrationNumber::parse("7000012050002X"), Err(CodeError::MissingT));
        assert!(matches!(RegistrationNumber::parse("T700001205000"), Err(CodeError::WrongLength { len: 13, .. })));
        assert_eq!(RegistrationNumber::parse("T700001205000x"), Err(CodeError::NotADigit { position: 13 }));
        // Check digit 9 (sum ≡ 0 mod 9) is possible; 0 never is.
        assert_eq!(corporate_number_check_digit(&[0; 12]), 9);
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(json, "\"T7000012050002\"");
        assert!(serde_json::from_str::<RegistrationNumber>("\"T1000012050002\"").is_err());
    }
}
