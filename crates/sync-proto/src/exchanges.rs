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
//!
//! With `credit_parts` (record 0157), the fact says where the credit came from: how much
//! out of each of the old sale's own tenders (by `tender_seq`), and, in `credit_carried`,
//! how much was carried on from the exchange credit that paid the old sale itself (record
//! 0155, not out of the old sale's tenders). A successor that restores the sender's journal
//! needs it to know what each tender has left. Absent: a register before record 0157, whose
//! exchange a successor keeps refusing to take back (`restored_exchanged_there`).
use crate::returns::{sale_register, MAX_RETURN_NO_CHARS};
use crate::text::{amount, currency, id};
use crate::ProtoError;
use serde::{Deserialize, Serialize};

/// At most one part per tender of a sale, and a tender's seq is 1 to 1000 (`Tender`).
pub const MAX_CREDIT_PARTS: usize = 1000;

/// What a credit took out of one tender of the old sale: its place in the sale and how
/// much (minor units).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExchangeCreditPart {
    pub tender_seq: i64,
    pub amount: i64,
}

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
    /// What `credit` took out of each of the old sale's own tenders (record 0157); with
    /// `credit_carried` they add up to `credit`. Absent: an older register's fact, which
    /// says nothing of the tenders.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credit_parts: Option<Vec<ExchangeCreditPart>>,
    /// Of `credit`, what was carried on from the credit that paid the old sale (record
    /// 0155): money of an earlier sale's tenders, not the old sale's. Only with
    /// `credit_parts`, only for the sender's own sale (a restored exchange never carries).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credit_carried: Option<i64>,
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
        currency(&f("currency"), &self.currency)?;
        self.validate_parts(f)
    }

    /// The parts add up to the credit exactly, each a positive amount of a tender named
    /// once; a carried part only beside them, only for the sender's own sale.
    fn validate_parts(&self, f: &dyn Fn(&str) -> String) -> Result<(), ProtoError> {
        let Some(parts) = &self.credit_parts else {
            return match self.credit_carried {
                Some(_) => Err(ProtoError::field(f("credit_carried"), "is only sent with credit_parts")),
                None => Ok(()),
            };
        };
        if parts.len() > MAX_CREDIT_PARTS {
            return Err(ProtoError::field(f("credit_parts"), format!("at most {MAX_CREDIT_PARTS} parts, got {}", parts.len())));
        }
        let mut sum: i64 = 0;
        let mut seen = std::collections::BTreeSet::new();
        for (i, p) in parts.iter().enumerate() {
            if !(1..=1000).contains(&p.tender_seq) {
                return Err(ProtoError::field(f(&format!("credit_parts[{i}].tender_seq")), format!("must be between 1 and 1000, got {}", p.tender_seq)));
            }
            if !seen.insert(p.tender_seq) {
                return Err(ProtoError::field(f(&format!("credit_parts[{i}].tender_seq")), format!("tender {} is named twice", p.tender_seq)));
            }
            amount(&f(&format!("credit_parts[{i}].amount")), p.amount)?;
            sum = sum.checked_add(p.amount).ok_or_else(|| ProtoError::field(f("credit_parts"), "add up past any amount"))?;
        }
        if let Some(c) = self.credit_carried {
            if self.sale_register.is_some() {
                return Err(ProtoError::field(f("credit_carried"), "a restored sale's exchange carries no credit on"));
            }
            amount(&f("credit_carried"), c)?;
            sum = sum.checked_add(c).ok_or_else(|| ProtoError::field(f("credit_carried"), "adds up past any amount"))?;
        }
        if sum != self.credit {
            return Err(ProtoError::field(f("credit_parts"), format!("add up to {sum} (with what was carried on), not the credit {}", self.credit)));
        }
        Ok(())
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

    #[test]
    fn the_credit_per_tender_adds_up_to_the_credit_each_tender_once() {
        let good = json!({"exchange": 3, "old_sale": 12, "return_no": "000012-R1", "new_sale": 13, "credit": 220, "currency": "jpy",
                          "credit_parts": [{"tender_seq": 1, "amount": 120}, {"tender_seq": 2, "amount": 100}]});
        check(good.clone()).unwrap();
        // All of it carried on from the credit that paid the old sale, none out of its own tenders.
        let mut carried = good.clone();
        carried["credit_parts"] = json!([]);
        carried["credit_carried"] = json!(220);
        check(carried.clone()).unwrap();
        let mut some = good.clone();
        some["credit_parts"] = json!([{"tender_seq": 2, "amount": 20}]);
        some["credit_carried"] = json!(200);
        check(some).unwrap();
        // The restored exchange's parts name the predecessor's tenders, checked the same way.
        let mut restored = good.clone();
        restored["sale_register"] = json!(PREDECESSOR);
        check(restored.clone()).unwrap();
        for (parts, says) in [
            (json!([{"tender_seq": 1, "amount": 120}, {"tender_seq": 2, "amount": 99}]), "credit_parts"),
            (json!([{"tender_seq": 1, "amount": 120}, {"tender_seq": 2, "amount": 101}]), "credit_parts"),
            (json!([{"tender_seq": 1, "amount": 120}, {"tender_seq": 1, "amount": 100}]), "credit_parts[1].tender_seq"),
            (json!([{"tender_seq": 0, "amount": 120}, {"tender_seq": 2, "amount": 100}]), "credit_parts[0].tender_seq"),
            (json!([{"tender_seq": 1001, "amount": 120}, {"tender_seq": 2, "amount": 100}]), "credit_parts[0].tender_seq"),
            (json!([{"tender_seq": 1, "amount": 0}, {"tender_seq": 2, "amount": 220}]), "credit_parts[0].amount"),
            (json!([{"tender_seq": 1, "amount": -100}, {"tender_seq": 2, "amount": 320}]), "credit_parts[0].amount"),
            (json!([]), "credit_parts"),
        ] {
            let mut v = good.clone();
            v["credit_parts"] = parts.clone();
            let e = check(v).unwrap_err();
            assert!(e.contains(&format!("rows[0].fact.{says}")), "{parts}: {e}");
        }
        let mut unknown = good.clone();
        unknown["credit_parts"][0]["surplus"] = json!(1);
        assert!(check(unknown).unwrap_err().contains("unknown field"));
        // A carried part: positive, only beside the parts, never for a restored sale.
        for (v, says) in [
            ({ let mut v = carried.clone(); v["credit_carried"] = json!(0); v }, "credit_carried"),
            ({ let mut v = carried.clone(); v["credit_carried"] = json!(221); v }, "credit_parts"),
            ({ let mut v = carried.clone(); v.as_object_mut().unwrap().remove("credit_parts"); v }, "credit_carried"),
            ({ let mut v = carried; v["sale_register"] = json!(PREDECESSOR); v }, "credit_carried"),
        ] {
            let e = check(v.clone()).unwrap_err();
            assert!(e.contains(&format!("rows[0].fact.{says}")), "{v}: {e}");
        }
        // Read back as written.
        let x: ExchangeRecorded = serde_json::from_value(restored).unwrap();
        assert_eq!(x.credit_parts.as_deref(), Some(&[ExchangeCreditPart { tender_seq: 1, amount: 120 }, ExchangeCreditPart { tender_seq: 2, amount: 100 }][..]));
        let back: ExchangeRecorded = serde_json::from_str(&serde_json::to_string(&x).unwrap()).unwrap();
        assert_eq!(back, x);
    }
}
