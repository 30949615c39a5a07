//! An exchange at the register (issue #29, records 0123 and 0145): a return of the paid
//! sale `old_sale` whose worth, `credit`, paid the register's sale `new_sale`. Its money
//! already travels as the return (`return_recorded`, the refunds and cash of the
//! difference) and the new sale's own tenders; this fact links the two sales, so the back
//! office can say "exchanged for sale N". Sent right after the return's own fact.
use crate::returns::MAX_RETURN_NO_CHARS;
use crate::text::{amount, currency, id};
use crate::ProtoError;
use serde::{Deserialize, Serialize};

/// The register's exchange `exchange`: the return `return_no` of `old_sale` put `credit`
/// on `new_sale` (which is paid later, or already by the credit alone).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExchangeRecorded {
    pub exchange: i64,
    pub old_sale: i64,
    pub return_no: String,
    pub new_sale: i64,
    pub credit: i64,
    pub currency: String,
}

impl ExchangeRecorded {
    pub(crate) fn validate(&self, f: &dyn Fn(&str) -> String) -> Result<(), ProtoError> {
        id(&f("exchange"), self.exchange)?;
        id(&f("old_sale"), self.old_sale)?;
        id(&f("new_sale"), self.new_sale)?;
        if self.new_sale == self.old_sale {
            return Err(ProtoError::field(f("new_sale"), "is the sale whose goods came back"));
        }
        let prefix = format!("{:06}-R", self.old_sale);
        let seq_ok = self.return_no.strip_prefix(&prefix).is_some_and(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()));
        if self.return_no.chars().count() > MAX_RETURN_NO_CHARS || !seq_ok {
            return Err(ProtoError::field(f("return_no"), format!("must be a return of the old sale, \"{prefix}\" and its number, got {:?}", self.return_no)));
        }
        amount(&f("credit"), self.credit)?;
        currency(&f("currency"), &self.currency)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(v: serde_json::Value) -> Result<(), String> {
        let r: ExchangeRecorded = serde_json::from_value(v).map_err(|e| e.to_string())?;
        r.validate(&|n| format!("rows[0].fact.{n}")).map_err(|e| e.to_string())
    }

    #[test]
    fn an_exchange_that_cannot_be_is_refused_naming_its_field() {
        let good = json!({"exchange": 3, "old_sale": 12, "return_no": "000012-R1", "new_sale": 13, "credit": 220, "currency": "jpy"});
        check(good.clone()).unwrap();
        for (field, bad, says) in [
            ("new_sale", json!(12), "new_sale"),
            ("return_no", json!("000013-R1"), "return_no"),
            ("return_no", json!("000012-R"), "return_no"),
            ("credit", json!(0), "credit"),
            ("exchange", json!(0), "exchange"),
            ("currency", json!("yen!"), "currency"),
        ] {
            let mut v = good.clone();
            v[field] = bad;
            let e = check(v).unwrap_err();
            assert!(e.contains(says), "{field}: {e}");
        }
        let mut extra = good;
        extra["surplus"] = json!(1);
        assert!(check(extra).unwrap_err().contains("unknown field"));
    }
}
