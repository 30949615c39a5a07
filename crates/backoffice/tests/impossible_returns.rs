//! Returns and cash refunds that cannot be true (record 0119) are refused whole with their
//! own code, naming the seq, and nothing of the batch is applied: a return of a sale this
//! register never completed or canceled, of a line it does not have or under another SKU,
//! more of a line back than it sold over several returns, more money back than the sale
//! took; cash back for a sale never completed, in another currency, or above what its cash
//! tenders took. What is true is applied.
use crate::support;
use paydesk_backoffice::client::ClientError;
use paydesk_sync_proto::Row;
use serde_json::{json, Value};
use crate::facts::*;
use support::*;

/// Return `k` of `sale`: `lines` as (line, sku, quantity, net), total their nets.
fn ret(sale: i64, k: i64, lines: &[(i64, &str, i64, i64)], currency: &str) -> Row {
    let total: i64 = lines.iter().map(|l| l.3).sum();
    let lines: Vec<Value> = lines.iter().map(|(line, sku, q, net)| json!({"line": line, "sku": sku, "quantity": q, "tax_class": "exempt", "net": net})).collect();
    row(json!({"kind": "return_recorded", "sale": sale, "return_no": format!("{sale:06}-R{k}"), "currency": currency,
               "total": total, "tax_total": 0, "cash_out": total, "rates": [], "lines": lines}))
}

fn cash_back(movement: i64, sale: i64, amount: i64, currency: &str) -> Row {
    row(json!({"kind": "cash_refunded", "movement": movement, "sale": sale, "amount": amount, "currency": currency, "shift": null}))
}

async fn snapshot(h: &Harness) -> Vec<i64> {
    let mut out = vec![];
    for t in ["journal", "sale_returns", "sale_return_lines", "sale_return_rates", "cash_refunds", "sales"] {
        out.push(h.count(&format!("SELECT count(*) FROM {t}")).await);
    }
    out
}

#[tokio::test]
async fn impossible_returns_and_cash_refunds_are_refused_by_rule_and_seq() {
    let h = Harness::start().await;
    let (_store, reg) = h.store_with_register("Main St").await;
    let mut rows = two_line_cash_sale(1);
    rows.push(ret(1, 1, &[(0, "A", 1, 300)], "jpy"));
    rows.push(cash_back(10, 1, 300, "jpy"));
    assert_eq!(reg.send(&batch(&reg, 1, rows), "good").await.unwrap().acked_through, 4);
    let before = snapshot(&h).await;
    assert_eq!(before, vec![4, 1, 1, 0, 1, 1]);

    let cases: Vec<(&str, Vec<Row>, &str, &str)> = vec![
        ("unknown sale", vec![ret(9, 1, &[(0, "A", 1, 300)], "jpy")], "return_contradicts_sale", "sale 9 was never completed"),
        ("other currency", vec![ret(1, 2, &[(1, "B", 1, 400)], "usd")], "return_contradicts_sale", "is in usd"),
        ("no such line", vec![ret(1, 2, &[(5, "A", 1, 300)], "jpy")], "return_contradicts_sale", "line 5 (A), which sale 1 does not have"),
        ("another sku", vec![ret(1, 2, &[(1, "A", 1, 400)], "jpy")], "return_contradicts_sale", "line 1 as A, but that line of sale 1 is B"),
        ("more than sold over two returns", vec![ret(1, 2, &[(0, "A", 2, 600)], "jpy")], "return_contradicts_sale", "brings line 0 of sale 1 back 3 times in all; it sold 2"),
        ("more money than the sale", vec![ret(1, 2, &[(1, "B", 1, 900)], "jpy")], "return_contradicts_sale", "come to 1200, above its total 1000"),
        ("cash for an unknown sale", vec![cash_back(11, 9, 100, "jpy")], "cash_refund_contradicts_sale", "sale 9 was never completed"),
        ("cash in another currency", vec![cash_back(11, 1, 100, "usd")], "cash_refund_contradicts_sale", "is in usd"),
        ("more cash than the cash tenders took", vec![cash_back(11, 1, 701, "jpy")], "cash_refund_contradicts_sale", "comes to 1001, above the 1000"),
    ];
    for (i, (name, rows, want_code, want)) in cases.into_iter().enumerate() {
        let e = reg.send(&batch(&reg, 5, rows), &format!("bad-{i}")).await.unwrap_err();
        let ClientError::Refused(r) = e else { panic!("{name}: {e:?}") };
        let (code, seq, message) = (r.code().to_string(), r.body["error"]["seq"].as_i64(), r.body["error"]["message"].as_str().unwrap_or("").to_string());
        assert_eq!((r.status, code.as_str(), seq), (422, want_code, Some(5)), "{name}: {message}");
        assert!(message.contains(want), "{name}: {message} (wanted {want})");
        assert_eq!(snapshot(&h).await, before, "{name}: nothing applied");
    }
    // what is true is applied: the rest of the sale back, and cash up to what was paid
    let rows = vec![ret(1, 2, &[(0, "A", 1, 300), (1, "B", 1, 400)], "jpy"), cash_back(11, 1, 700, "jpy")];
    assert_eq!(reg.send(&batch(&reg, 5, rows), "rest").await.unwrap().acked_through, 6);
    let d = h.owner.get("/admin/dashboard").await.unwrap();
    let n = &d["sales_net"][0];
    assert_eq!((n["sold"].as_i64(), n["returned"].as_i64(), n["net"].as_i64(), n["cash_refunded"].as_i64()), (Some(1000), Some(1000), Some(0), Some(1000)), "{d}");
}
