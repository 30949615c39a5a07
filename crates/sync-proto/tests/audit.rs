//! The audit report a batch carries in its health, and the head an ack confirms (design
//! record 0053): read back as sent, refused with the field named when malformed, and absent
//! from the JSON when there is none (so the shape older peers know is unchanged).
use paydesk_sync_proto::audit::{hash_hex, parse_hash};
use paydesk_sync_proto::*;
use serde_json::{json, Value};

const H1: &str = "0101010101010101010101010101010101010101010101010101010101010101";
const H2: &str = "abababababababababababababababababababababababababababababababab";

fn batch(audit: Value) -> Value {
    json!({"v": 1, "register_id": "r1", "first_seq": 1,
           "rows": [{"at_ms": 1_700_000_000_000i64, "fact": {"kind": "payment_created", "checkout_key": "k1", "amount": 100, "currency": "usd"}}],
           "health": {"app_version": "0.1.0", "queued": 0, "offline_waiting": 0, "audit": audit}})
}

fn parse(v: Value) -> Result<Batch, String> {
    let b: Batch = serde_json::from_value(v).map_err(|e| e.to_string())?;
    b.validate().map_err(|e| format!("{}: {e}", e.code()))?;
    Ok(b)
}

fn report(head_seq: u64, at: Value, z: Value) -> Value {
    json!({"head": {"seq": head_seq, "hash": H1}, "at_confirmed": at, "z_heads": z})
}

#[test]
fn a_report_reads_back_and_an_ack_carries_the_confirmed_head() {
    let b = parse(batch(report(40, json!({"seq": 30, "hash": H2}), json!([{"z_number": 3, "seq": 31, "hash": H2}, {"z_number": 4, "seq": 39, "hash": H1}])))).unwrap();
    let a = b.health.audit.unwrap();
    assert_eq!(a.head, AuditHead { seq: 40, hash: H1.into() });
    assert_eq!(a.at_confirmed, Some(AtConfirmed { seq: 30, hash: Some(H2.into()) }));
    assert_eq!(a.z_heads[1], ZHead { z_number: 4, seq: 39, hash: H1.into() });
    // The confirmed row gone: its hash is null, its seq may be past the head.
    assert!(parse(batch(report(10, json!({"seq": 30, "hash": null}), json!([])))).is_ok());
    assert!(parse(batch(report(0, Value::Null, json!([])))).is_ok(), "an empty chain, never confirmed");

    let ack: Ack = serde_json::from_value(json!({"v": 1, "acked_through": 4, "held": false, "applied": 4, "audit": {"seq": 40, "hash": H1}})).unwrap();
    assert_eq!(ack.audit, Some(AuditHead { seq: 40, hash: H1.into() }));
}

#[test]
fn without_a_report_the_json_is_the_shape_older_peers_know() {
    let health = RegisterHealth { app_version: "0.1.0".into(), queued: 0, offline_waiting: 0, audit: None };
    assert_eq!(serde_json::to_value(&health).unwrap(), json!({"app_version": "0.1.0", "queued": 0, "offline_waiting": 0}));
    // An ack from a back office older than the report: no confirmed head.
    let ack: Ack = serde_json::from_value(json!({"v": 1, "acked_through": 4, "held": false, "applied": 4})).unwrap();
    assert_eq!(ack.audit, None);
    assert!(!serde_json::to_string(&ack).unwrap().contains("audit"));
}

#[test]
fn a_malformed_report_is_refused_naming_the_field() {
    let upper = H2.to_uppercase();
    let cases = [
        (report(40, json!({"seq": 30, "hash": upper}), json!([])), "health.audit.at_confirmed.hash must be 64 lower-case hex"),
        (json!({"head": {"seq": 40, "hash": "01"}, "at_confirmed": null, "z_heads": []}), "health.audit.head.hash must be 64"),
        (report(40, json!({"seq": 41, "hash": H2}), json!([])), "health.audit.at_confirmed.seq 41 has a row past the head 40"),
        (report(40, Value::Null, json!([{"z_number": 2, "seq": 5, "hash": H1}, {"z_number": 2, "seq": 6, "hash": H1}])), "health.audit.z_heads[1].z_number must be above 2"),
        (report(40, Value::Null, json!([{"z_number": 0, "seq": 5, "hash": H1}])), "health.audit.z_heads[0].z_number must be above 0"),
        (report(40, Value::Null, json!([{"z_number": 1, "seq": 41, "hash": H1}])), "health.audit.z_heads[0].seq 41 is past the head 40"),
        (report(u64::MAX, Value::Null, json!([])), "health.audit.head.seq is beyond"),
    ];
    for (r, want) in cases {
        let e = parse(batch(r.clone())).expect_err("refused");
        assert!(e.starts_with("bad_field: ") && e.contains(want), "{r}: {e}");
    }
    let many: Vec<Value> = (1..=MAX_Z_HEADS as i64 + 1).map(|z| json!({"z_number": z, "seq": z, "hash": H1})).collect();
    let e = parse(batch(report(40, Value::Null, json!(many)))).expect_err("refused");
    assert!(e.contains("health.audit.z_heads has 17 heads; at most 16"), "{e}");
    let e = parse(batch(json!({"head": {"seq": 1, "hash": H1}, "at_confirmed": null, "z_heads": [], "extra": 1}))).expect_err("refused");
    assert!(e.contains("unknown field"), "{e}");
}

#[test]
fn hashes_are_spelled_one_way() {
    let h: [u8; 32] = core::array::from_fn(|i| i as u8 * 7);
    assert_eq!(parse_hash(&hash_hex(&h)), Some(h));
    assert_eq!(parse_hash(&hash_hex(&h).to_uppercase()), None);
    assert_eq!(parse_hash("zz"), None);
}
