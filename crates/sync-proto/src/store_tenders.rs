//! The store's own tenders up to the back office (record 0121): a voucher, a standalone
//! terminal, e-money, a QR payment or a store account the owner defined at the register
//! (record 0118). A tender of one travels as `tender_added` with the method
//! `{"store": {...}}`, naming the type as the register knew it when the tender was taken
//! (a later rename does not rewrite the books); money given back through one travels as
//! `store_refunded`.
use crate::text::{self, amount_or_zero, id};
use crate::ProtoError;
use serde::{Deserialize, Serialize};

/// A tender type's name at the register: 1-40 characters (the ledger's CHECK).
pub const MAX_TENDER_TYPE_NAME_CHARS: usize = 40;
/// A slip or approval number: 1-40 characters (the ledger's CHECK).
pub const MAX_SLIP_CHARS: usize = 40;

/// What kind of tender the store defined. The wire keeps its own copy of the domain's
/// `StoreTenderKind` (as it does the payment states); `tests/ledger_states.rs` checks the
/// two stay the same set with the same names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StoreTenderKind {
    Voucher,
    ExternalTerminal,
    EMoney,
    Qr,
    StoreAccount,
}

impl StoreTenderKind {
    pub const ALL: [StoreTenderKind; 5] =
        [StoreTenderKind::Voucher, StoreTenderKind::ExternalTerminal, StoreTenderKind::EMoney, StoreTenderKind::Qr, StoreTenderKind::StoreAccount];

    pub const fn as_str(self) -> &'static str {
        match self {
            StoreTenderKind::Voucher => "voucher",
            StoreTenderKind::ExternalTerminal => "external_terminal",
            StoreTenderKind::EMoney => "e_money",
            StoreTenderKind::Qr => "qr",
            StoreTenderKind::StoreAccount => "store_account",
        }
    }
}

/// What a store tender carries beyond its amount: the register's tender type (id, name,
/// kind), the slip or approval number if the cashier typed one, what was offered and what
/// the store kept as no change given. With the tender's `change`:
/// `offered - change - forfeited = amount`, and change and forfeit never both.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoreTender {
    pub type_id: i64,
    pub type_name: String,
    pub type_kind: StoreTenderKind,
    pub reference: Option<String>,
    pub offered: i64,
    pub forfeited: i64,
}

fn bounded_text(field: &str, s: &str, max: usize) -> Result<(), ProtoError> {
    let n = s.chars().count();
    if n == 0 || n > max || s.trim().is_empty() {
        return Err(ProtoError::field(field, format!("must be 1 to {max} characters, got {n}")));
    }
    text::text(field, s)
}

impl StoreTender {
    /// The store part of a tender of `amount` whose method is this: `cash_or_card` says
    /// whether it names a payment, cash handed over or rounding, `change` its change.
    pub(crate) fn validate(&self, amount: i64, cash_or_card: bool, change: Option<i64>, f: &dyn Fn(&str) -> String) -> Result<(), ProtoError> {
        id(&f("method.store.type_id"), self.type_id)?;
        bounded_text(&f("method.store.type_name"), &self.type_name, MAX_TENDER_TYPE_NAME_CHARS)?;
        if let Some(r) = &self.reference {
            bounded_text(&f("method.store.reference"), r, MAX_SLIP_CHARS)?;
        }
        text::amount(&f("method.store.offered"), self.offered)?;
        amount_or_zero(&f("method.store.forfeited"), self.forfeited)?;
        if cash_or_card {
            return Err(ProtoError::field(f("checkout_key"), "a store tender has no payment, cash handed over or rounding"));
        }
        let change = change.ok_or_else(|| ProtoError::field(f("change"), "a store tender says its change (0 when none)"))?;
        amount_or_zero(&f("change"), change)?;
        if change > 0 && self.forfeited > 0 {
            return Err(ProtoError::field(f("method.store.forfeited"), format!("a store tender gives change {change} or forfeits, never both")));
        }
        if i128::from(self.offered) - i128::from(change) - i128::from(self.forfeited) != i128::from(amount) {
            return Err(ProtoError::field(
                f("method.store.offered"),
                format!("offered {} less change {change} less forfeited {} must be the amount {amount}", self.offered, self.forfeited),
            ));
        }
        Ok(())
    }
}

/// Validates the fields of a `store_refunded` fact.
pub(crate) fn validate_store_refunded(
    f: &dyn Fn(&str) -> String,
    (refund, sale, tender_seq): (i64, i64, i64),
    amount: i64,
    currency: &str,
    shift: Option<i64>,
) -> Result<(), ProtoError> {
    id(&f("refund"), refund)?;
    id(&f("sale"), sale)?;
    if !(1..=1000).contains(&tender_seq) {
        return Err(ProtoError::field(f("tender_seq"), format!("must be between 1 and 1000, got {tender_seq}")));
    }
    text::amount(&f("amount"), amount)?;
    text::currency(&f("currency"), currency)?;
    shift.map_or(Ok(()), |s| id(&f("shift"), s))
}

#[cfg(test)]
mod tests {
    use crate::{Fact, Row};
    use serde_json::json;

    fn voucher() -> serde_json::Value {
        json!({"kind": "tender_added", "sale": 7, "tender_seq": 1, "amount": 800, "currency": "jpy", "checkout_key": null,
               "cash_tendered": null, "change": 0, "rounding": null, "shift": 3,
               "method": {"store": {"type_id": 2, "type_name": "商品券", "type_kind": "voucher", "reference": null,
                                    "offered": 1000, "forfeited": 200}}})
    }

    fn check(v: serde_json::Value) -> Result<Fact, String> {
        let fact: Fact = serde_json::from_value(v).map_err(|e| e.to_string())?;
        fact.validate("rows[0].fact").map_err(|e| e.to_string())?;
        Ok(fact)
    }

    #[test]
    fn a_store_tender_and_a_store_refund_round_trip_through_serde() {
        for v in [voucher(), json!({"kind": "store_refunded", "refund": 4, "sale": 7, "tender_seq": 1, "amount": 300, "currency": "jpy", "shift": null})] {
            let fact = check(v.clone()).unwrap();
            let row = Row { at_ms: 1_700_000_000_000, fact };
            let back: Row = serde_json::from_str(&serde_json::to_string(&row).unwrap()).unwrap();
            assert_eq!(back, row);
            assert_eq!(serde_json::to_value(&row.fact).unwrap(), v);
        }
    }

    #[test]
    fn a_store_tender_that_does_not_add_up_is_refused_naming_its_field() {
        let cases: [(&str, serde_json::Value, &str); 9] = [
            ("/method/store/forfeited", json!(100), "must be the amount"),
            ("/method/store/offered", json!(900), "must be the amount"),
            ("/change", json!(200), "never both"),
            ("/change", json!(null), "says its change"),
            ("/cash_tendered", json!(1000), "no payment, cash"),
            ("/checkout_key", json!("k-1"), "no payment, cash"),
            ("/method/store/type_name", json!(""), "type_name"),
            ("/method/store/reference", json!("x".repeat(41)), "reference"),
            ("/method/store/type_id", json!(0), "type_id"),
        ];
        for (path, value, want) in cases {
            let mut v = voucher();
            *v.pointer_mut(path).unwrap() = value;
            let e = check(v).unwrap_err();
            assert!(e.contains(want), "{path}: {e}");
        }
        // change instead of forfeit adds up too
        let mut v = voucher();
        v["change"] = json!(200);
        v["method"]["store"]["forfeited"] = json!(0);
        check(v).unwrap();
        let mut kind = voucher();
        kind["method"]["store"]["type_kind"] = json!("coupon");
        assert!(check(kind).unwrap_err().contains("unknown variant"));
        let mut extra = voucher();
        extra["method"]["store"]["drawer"] = json!(1);
        assert!(check(extra).unwrap_err().contains("unknown field"));
    }

    #[test]
    fn a_store_refund_out_of_bounds_is_refused() {
        let good = json!({"kind": "store_refunded", "refund": 4, "sale": 7, "tender_seq": 1, "amount": 300, "currency": "jpy", "shift": 2});
        check(good.clone()).unwrap();
        for (field, value, want) in [("amount", json!(0), "amount"), ("tender_seq", json!(1001), "tender_seq"), ("refund", json!(0), "refund"), ("currency", json!("JPY"), "currency")] {
            let mut v = good.clone();
            v[field] = value;
            let e = check(v).unwrap_err();
            assert!(e.contains(want), "{field}: {e}");
        }
    }
}
