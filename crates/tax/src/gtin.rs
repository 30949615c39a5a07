//! Retail barcodes as one value (issue #30): a UPC-A, EAN-8 or EAN-13 (JAN) scan becomes a
//! [`Gtin13`], and the store's own in-store labels (GS1 restricted-circulation prefixes 02
//! and 20–29) are read by the store's rules, which are data: which prefix, how many digits
//! name the item, and whether the rest is a price or a weight.

use serde::{Deserialize, Serialize};

use crate::codes::{ean_check_digit, CodeError};

/// A barcode as stored: 13 digits, the check digit valid. UPC-A gains a leading 0 and
/// EAN-8 five (the GS1 rule for GTINs in a longer field: the check digit is unchanged).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Gtin13(String);

impl Gtin13 {
    /// Reads a scanned or typed code: 8 (EAN-8), 12 (UPC-A) or 13 (EAN-13 / JAN) ASCII
    /// digits with a valid check digit. Surrounding spaces are ignored; nothing else is
    /// guessed (a full-width digit is refused with its position).
    pub fn parse(input: &str) -> Result<Gtin13, CodeError> {
        let s = input.trim();
        let len = s.chars().count();
        let pad = match len {
            13 => 0,
            12 => 1,
            8 => 5,
            _ => return Err(CodeError::WrongLength { kind: "barcode", len, expected: "8 (EAN-8), 12 (UPC-A) or 13 (EAN-13) digits" }),
        };
        for (i, c) in s.chars().enumerate() {
            if !c.is_ascii_digit() {
                return Err(CodeError::NotADigit { position: i });
            }
        }
        let d: Vec<u8> = s.bytes().map(|b| b - b'0').collect();
        let (data, check) = d.split_at(d.len() - 1);
        let expected = ean_check_digit(data);
        if check[0] != expected {
            return Err(CodeError::BadCheckDigit { found: check[0], expected });
        }
        Ok(Gtin13(format!("{}{s}", "0".repeat(pad))))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Gtin13 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for Gtin13 {
    type Error = CodeError;
    fn try_from(s: String) -> Result<Self, CodeError> {
        Gtin13::parse(&s)
    }
}

impl From<Gtin13> for String {
    fn from(g: Gtin13) -> String {
        g.0
    }
}

/// What the digits after the item code stand for on an in-store label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Embedded {
    /// The price, in minor units (¥ or cents).
    Price,
    /// The weight, in grams.
    WeightGrams,
}

/// One of the store's in-store label layouts: `prefix` (two digits, 02 or 20–29), then
/// `item_digits` naming the item, then the value's digits, then the check digit; 13 in all.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InStoreRule {
    pub prefix: String,
    pub item_digits: u8,
    pub value: Embedded,
}

/// A label read by a rule: the item code (the prefix and item digits, as the catalog keys
/// it) and the embedded value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InStoreLabel {
    pub item_code: String,
    pub value: Embedded,
    /// Minor units for a price, grams for a weight.
    pub amount: i64,
}

impl InStoreRule {
    /// Whether the rule can be used: a restricted-circulation prefix, and between 1 and 9
    /// item digits (so at least one value digit).
    pub fn validate(&self) -> Result<(), String> {
        let p = self.prefix.as_str();
        let restricted = p == "02" || (p.len() == 2 && p.starts_with('2') && p.bytes().all(|b| b.is_ascii_digit()));
        if !restricted {
            return Err(format!("prefix {p:?}: in-store labels use 02 or 20 to 29"));
        }
        if !(1..=9).contains(&self.item_digits) {
            return Err(format!("{} item digits: 1 to 9 leave room for the value", self.item_digits));
        }
        Ok(())
    }

    /// The label `code` under this rule, or `None` when it is not one of its labels.
    pub fn read(&self, code: &Gtin13) -> Option<InStoreLabel> {
        let s = code.as_str();
        if self.validate().is_err() || !s.starts_with(&self.prefix) {
            return None;
        }
        let item_end = 2 + usize::from(self.item_digits);
        let amount = s[item_end..12].parse::<i64>().ok()?;
        Some(InStoreLabel { item_code: s[..item_end].to_string(), value: self.value, amount })
    }
}

/// The rules a store gets until it sets its own (record 0115): the common Japanese
/// in-store price label, 02 + a 5-digit item code + a 5-digit price + the check digit, and
/// a scale's weight label, 21 + a 5-digit item code + the grams in 5 digits (record 0134).
/// Both prefixes are GS1 restricted-circulation numbers, never on a retail product, so
/// neither rule can misread a real barcode. Other 20–29 layouts differ from store to store,
/// so none is assumed: such a code is looked up as an ordinary barcode.
pub fn default_in_store_rules() -> Vec<InStoreRule> {
    vec![
        InStoreRule { prefix: "02".into(), item_digits: 5, value: Embedded::Price },
        InStoreRule { prefix: "21".into(), item_digits: 5, value: Embedded::WeightGrams },
    ]
}

/// The first of `rules` that reads `code`: an in-store label, or `None` for a retail barcode.
pub fn read_in_store(rules: &[InStoreRule], code: &Gtin13) -> Option<InStoreLabel> {
    rules.iter().find_map(|r| r.read(code))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upc_a_ean_8_and_ean_13_become_one_13_digit_code() {
        // The same product family three ways, each with its own valid check digit.
        assert_eq!(Gtin13::parse("036000291452").unwrap().as_str(), "0036000291452", "UPC-A");
        assert_eq!(Gtin13::parse("96385074").unwrap().as_str(), "0000096385074", "EAN-8");
        assert_eq!(Gtin13::parse(" 4901234567894 ").unwrap().as_str(), "4901234567894", "JAN");
        assert_eq!(Gtin13::parse("0036000291452"), Gtin13::parse("036000291452"), "a UPC-A scanned as EAN-13 is the same item");
        assert!(matches!(Gtin13::parse("036000291453"), Err(CodeError::BadCheckDigit { found: 3, expected: 2 })));
        assert!(matches!(Gtin13::parse("12345"), Err(CodeError::WrongLength { len: 5, .. })));
        assert!(matches!(Gtin13::parse("49012345６7894"), Err(CodeError::NotADigit { position: 8 })));
        let json = serde_json::to_string(&Gtin13::parse("96385074").unwrap()).unwrap();
        assert_eq!(json, "\"0000096385074\"");
        assert!(serde_json::from_str::<Gtin13>("\"0000096385075\"").is_err(), "a stored code is checked when read");
    }

    #[test]
    fn an_in_store_label_rings_up_its_item_at_the_embedded_price_or_weight() {
        let rules = vec![
            InStoreRule { prefix: "02".into(), item_digits: 5, value: Embedded::Price },
            InStoreRule { prefix: "21".into(), item_digits: 5, value: Embedded::WeightGrams },
        ];
        // 02 + item 12345 + ¥00398 + check.
        let data: Vec<u8> = "021234500398".bytes().map(|b| b - b'0').collect();
        let price_label = Gtin13::parse(&format!("021234500398{}", ean_check_digit(&data))).unwrap();
        assert_eq!(
            read_in_store(&rules, &price_label),
            Some(InStoreLabel { item_code: "0212345".into(), value: Embedded::Price, amount: 398 })
        );
        let data: Vec<u8> = "215432101250".bytes().map(|b| b - b'0').collect();
        let weight_label = Gtin13::parse(&format!("215432101250{}", ean_check_digit(&data))).unwrap();
        assert_eq!(read_in_store(&rules, &weight_label).map(|l| (l.item_code, l.value, l.amount)), Some(("2154321".into(), Embedded::WeightGrams, 1_250)));
        // A retail JAN is no label.
        assert_eq!(read_in_store(&rules, &Gtin13::parse("4901234567894").unwrap()), None);
        // A rule outside the restricted prefixes is never used.
        let bad = InStoreRule { prefix: "49".into(), item_digits: 5, value: Embedded::Price };
        assert!(bad.validate().is_err());
        assert_eq!(bad.read(&Gtin13::parse("4901234567894").unwrap()), None);
        assert!(InStoreRule { prefix: "20".into(), item_digits: 10, value: Embedded::Price }.validate().is_err());
    }
}
