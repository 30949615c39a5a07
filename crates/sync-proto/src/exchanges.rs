//! An exchange at the register (issue #29, records 0123 and 0145): a return of the paid
//! sale `old_sale` whose worth, `credit`, paid the register's sale `new_sale`. Its money
//! already travels as the return (`return_recorded`, the refunds and cash of the
//! difference) and the new sale's own tenders; this fact links the two sales, so the back
//! office can say "exchanged for sale N". Sent right after the return's own fact.
//!
//! With `sale_register`, the old sale and its return are a predecessor's, restored by the
//! sending register (records 0144 and 0153, addendum "the link"): the return is a restored
//! return (its `return_recorded` names the same `sale_register`), the new sale is the
//! sender's own. Absent, both sales are the sender's, exactly as before.
use crate::returns::{sale_register, MAX_RETURN_NO_CHARS};
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
    /// The register whose sale `old_sale` (and whose return `return_no`) is, when not the
    /// sending one: a replacement's exchange of a sale restored from its predecessor. Absent
    /// otherwise, so a register's own exchange reads and writes exactly as before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sale_register: Option<String>,
}

impl ExchangeRecorded {
    pub(crate) fn validate(&self, f: &dyn Fn(&str) -> String) -> Result<(), ProtoError> {
        id(&f("exchange"), self.exchange)?;
        id(&f("old_sale"), self.old_sale)?;
        id(&f("new_sale"), self.new_sale)?;
        sale_register(&f("sale_register"), self.sale_register.as_deref())?;
        // Two sales of one register are two ids; a predecessor's sale may share its id with
        // one of the sender's.
        if self.sale_register.is_none() && self.new_sale == self.old_sale {
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

    const PREDECESSOR: &str = "0b6c3f4e-9a1d-4c55-8e2a-1f0d3c7b9a42";

    #[test]
    fn a_restored_exchange_names_its_sales_register_checked_as_a_restored_returns() {
        let good = json!({"exchange": 1, "old_sale": 12, "return_no": "000012-R2", "new_sale": 12, "credit": 220, "currency": "jpy",
                          "sale_register": PREDECESSOR});
        // The predecessor's sale 12 into the sender's own sale 12: two registers, two sales.
        check(good.clone()).unwrap();
        for bad in [json!("front-till"), json!(""), json!("0b6c3f4e-9a1d-4c55-8e2a-1f0d3c7b9a4"), json!("0b6c3f4e-9a1d-4c55-8e2a-1f0d3c7b9a4z")] {
            let mut v = good.clone();
            v["sale_register"] = bad.clone();
            let e = check(v).unwrap_err();
            assert!(e.contains("rows[0].fact.sale_register") && e.contains("register id"), "{bad}: {e}");
        }
        // The same id as a return_recorded's sale_register refuses it there too: one rule.
        let ret = crate::returns::sale_register("x", Some("front-till")).unwrap_err().to_string();
        assert!(ret.contains("register id"), "{ret}");
        // Still the return of the old sale, still a credit.
        let mut v = good.clone();
        v["return_no"] = json!("000013-R1");
        assert!(check(v).unwrap_err().contains("return_no"));
        let mut v = good;
        v["credit"] = json!(0);
        assert!(check(v).unwrap_err().contains("credit"));
    }

    #[test]
    fn a_registers_own_exchange_is_written_byte_for_byte_as_before() {
        let text = r#"{"exchange":3,"old_sale":12,"return_no":"000012-R1","new_sale":13,"credit":220,"currency":"jpy"}"#;
        let x: ExchangeRecorded = serde_json::from_str(text).unwrap();
        assert_eq!(x.sale_register, None);
        assert_eq!(serde_json::to_string(&x).unwrap(), text);
        let restored = ExchangeRecorded { sale_register: Some(PREDECESSOR.into()), ..x };
        let back: ExchangeRecorded = serde_json::from_str(&serde_json::to_string(&restored).unwrap()).unwrap();
        assert_eq!(back, restored);
    }
}
