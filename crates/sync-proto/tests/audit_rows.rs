//! The audit chain's rows and the receipts printed, on the wire (record 0146): read back as
//! sent, and each rule refused with the field named.
use paydesk_sync_proto::*;
use serde_json::{json, Value};

const H1: &str = "0101010101010101010101010101010101010101010101010101010101010101";
const H2: &str = "abababababababababababababababababababababababababababababababab";

fn batch(fact: Value) -> Value {
    json!({"v": 1, "register_id": "r1", "first_seq": 1, "rows": [{"at_ms": 1_700_000_000_000i64, "fact": fact}],
           "health": {"app_version": "0.1.0", "queued": 0, "offline_waiting": 0}})
}

fn parse(fact: Value) -> Result<Batch, String> {
    let b: Batch = serde_json::from_value(batch(fact)).map_err(|e| e.to_string())?;
    b.validate().map_err(|e| e.to_string())?;
    Ok(b)
}

fn row() -> Value {
    json!({"kind": "audit_row", "seq": 7, "at_ms": 1_700_000_000_000i64, "actor_id": 2, "approver_id": null, "action": "receipt_print",
           "subject": "receipt 000012 (sale 12) print 1", "reason": null, "before": null, "after": "{\"sale\":12}", "prev_hash": H1, "hash": H2})
}

fn print() -> Value {
    json!({"kind": "receipt_printed", "sale": 12, "receipt_no": "000012", "print_no": 1, "reprint": false, "outcome": "printed", "paper": true,
           "staff": 2, "staff_name": "Aiko", "text": "RECEIPT", "text_sha256": H1, "audit_seq": 7})
}

fn with(mut v: Value, key: &str, to: Value) -> Value {
    v[key] = to;
    v
}

#[test]
fn an_audit_row_and_a_print_read_back_as_sent() {
    for fact in [row(), print()] {
        let b = parse(fact.clone()).unwrap();
        assert_eq!(serde_json::to_value(&b.rows[0].fact).unwrap(), fact, "serde's form is the register's");
    }
    match parse(print()).unwrap().rows[0].fact.clone() {
        Fact::ReceiptPrinted(p) => assert_eq!((p.outcome, p.text.as_deref(), p.audit_seq), (PrintOutcome::Printed, Some("RECEIPT"), 7)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn each_rule_is_refused_naming_its_field() {
    let refused = |fact: Value, field: &str| {
        let e = parse(fact).unwrap_err();
        assert!(e.contains(field), "{field}: {e}");
    };
    refused(with(row(), "seq", json!(0)), "seq");
    refused(with(row(), "hash", json!("ABAB")), "hash");
    refused(with(row(), "prev_hash", json!(H2.to_uppercase())), "prev_hash");
    refused(with(row(), "action", json!("")), "action");
    refused(with(row(), "subject", json!("x".repeat(401))), "subject");
    refused(with(row(), "reason", json!("")), "reason");
    refused(with(row(), "after", json!("x".repeat(16 * 1024 + 1))), "after");
    refused(with(row(), "actor_id", json!(0)), "actor_id");
    refused(with(print(), "receipt_no", json!("12a")), "receipt_no");
    refused(with(print(), "print_no", json!(0)), "print_no");
    refused(with(print(), "paper", json!(false)), "paper");
    refused(with(with(print(), "outcome", json!("rendered")), "paper", json!(true)), "paper");
    refused(with(print(), "staff_name", json!(" Aiko")), "staff_name");
    refused(with(print(), "text", json!("x".repeat(MAX_RECEIPT_TEXT_BYTES + 1))), "text");
    refused(with(print(), "text_sha256", json!("00")), "text_sha256");
    refused(with(print(), "audit_seq", json!(0)), "audit_seq");
    // an unknown field is refused whole, never skipped
    assert!(parse(with(print(), "pin", json!("1234"))).is_err());
}
