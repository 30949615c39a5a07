//! Store tenders and store refunds that cannot be true (record 0121) are refused whole with
//! their rule's code, naming the seq, and nothing of the batch is applied: a store refund of
//! a sale this register never completed, of a tender the sale does not have or that is not
//! a store tender, in another currency, or above what its tender paid over all its refunds;
//! a store tender above its sale's total. What is true is applied and the dashboard shows it
//! per type.
use crate::support;
use paydesk_backoffice::client::ClientError;
use paydesk_sync_proto::Row;
use serde_json::json;
use crate::facts::*;
use support::*;

/// A voucher tender: `offered` for `amount` of sale `sale`, the rest forfeited.
fn voucher(sale: i64, seq: i64, amount: i64, offered: i64) -> Row {
    row(json!({"kind": "tender_added", "sale": sale, "tender_seq": seq, "amount": amount, "currency": "jpy", "checkout_key": null,
               "cash_tendered": null, "change": 0, "rounding": null, "shift": null,
               "method": {"store": {"type_id": 3, "type_name": "商品券", "type_kind": "voucher", "reference": "GV-1",
                                    "offered": offered, "forfeited": offered - amount}}}))
}

/// Sale `id` of one untaxed line at 1,000: 600 by a ¥800 voucher (¥200 forfeited), 400 cash.
fn sale(id: i64) -> Vec<Row> {
    vec![
        voucher(id, 1, 600, 800),
        row(json!({"kind": "tender_added", "sale": id, "tender_seq": 2, "method": "cash", "amount": 400, "currency": "jpy",
                   "checkout_key": null, "cash_tendered": 400, "change": 0, "rounding": 0, "shift": null})),
        row(json!({
            "kind": "sale_completed", "sale": id, "receipt_no": format!("{id:06}"), "currency": "jpy", "dining": "take_out",
            "price_mode": null, "subtotal": 1000, "sale_discount": 0, "tax_total": 0, "total": 1000, "rates": [],
            "lines": [{"sku": "A", "name": "A", "quantity": 1, "unit_price": 1000, "tax_class": "exempt", "discount": 0, "total": 1000}]
        })),
    ]
}

fn store_back(refund: i64, sale: i64, tender_seq: i64, amount: i64, currency: &str) -> Row {
    row(json!({"kind": "store_refunded", "refund": refund, "sale": sale, "tender_seq": tender_seq, "amount": amount, "currency": currency, "shift": null}))
}

async fn snapshot(h: &Harness) -> Vec<i64> {
    let mut out = vec![];
    for t in ["journal", "tenders", "store_refunds", "sales"] {
        out.push(h.count(&format!("SELECT count(*) FROM {t}")).await);
    }
    out
}

#[tokio::test]
async fn impossible_store_refunds_and_tenders_are_refused_by_rule_and_seq() {
    let h = Harness::start().await;
    let (_store, reg) = h.store_with_register("Main St").await;
    let mut rows = sale(1);
    rows.push(store_back(10, 1, 1, 200, "jpy"));
    assert_eq!(reg.send(&batch(&reg, 1, rows), "good").await.unwrap().acked_through, 4);
    let before = snapshot(&h).await;
    assert_eq!(before, vec![4, 2, 1, 1]);

    let cases: Vec<(&str, Vec<Row>, &str, &str)> = vec![
        ("unknown sale", vec![store_back(11, 9, 1, 100, "jpy")], "store_refund_contradicts_sale", "sale 9 was never completed"),
        ("no such tender", vec![store_back(11, 1, 5, 100, "jpy")], "store_refund_contradicts_sale", "sale 1 has no tender 5"),
        ("a cash tender", vec![store_back(11, 1, 2, 100, "jpy")], "store_refund_contradicts_sale", "is a cash tender"),
        ("other currency", vec![store_back(11, 1, 1, 100, "usd")], "store_refund_contradicts_sale", "is in usd"),
        ("more than the tender paid", vec![store_back(11, 1, 1, 401, "jpy")], "store_refund_contradicts_sale", "more than the 600 it paid"),
        ("a store tender above its sale", {
            let mut s = sale(2);
            s[0] = voucher(2, 1, 1100, 1200);
            s
        }, "tender_contradicts_sale", "tender 1 of sale 2 is 1100 jpy, but the sale's total is 1000"),
    ];
    for (i, (name, rows, want_code, want)) in cases.into_iter().enumerate() {
        let e = reg.send(&batch(&reg, 5, rows), &format!("bad-{i}")).await.unwrap_err();
        let ClientError::Refused(r) = e else { panic!("{name}: {e:?}") };
        let (code, seq, message) = (r.code().to_string(), r.body["error"]["seq"].as_i64(), r.body["error"]["message"].as_str().unwrap_or("").to_string());
        assert_eq!((r.status, code.as_str()), (422, want_code), "{name}: {message}");
        assert_eq!(seq, Some(5), "{name}: {message}");
        assert!(message.contains(want), "{name}: {message} (wanted {want})");
        assert_eq!(snapshot(&h).await, before, "{name}: nothing applied");
    }
    // what is true is applied: the rest of the voucher back, and the owner sees it per type
    assert_eq!(reg.send(&batch(&reg, 5, vec![store_back(11, 1, 1, 400, "jpy")]), "rest").await.unwrap().acked_through, 5);
    let d = h.owner.get("/admin/dashboard").await.unwrap();
    let v = &d["store_tenders"][0];
    assert_eq!(
        (v["name"].as_str(), v["kind"].as_str(), v["tenders"].as_i64(), v["amount"].as_i64(), v["forfeited"].as_i64(), v["refunds"].as_i64(), v["refunded"].as_i64()),
        (Some("商品券"), Some("voucher"), Some(1), Some(600), Some(200), Some(2), Some(600)),
        "{d}"
    );
    let methods: Vec<&str> = d["tenders_by_store"].as_array().unwrap().iter().map(|t| t["method"].as_str().unwrap()).collect();
    assert_eq!(methods, ["cash", "store"], "{d}");
}
