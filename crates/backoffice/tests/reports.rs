//! The owner's reports (record 0140) over HTTP on a real PostgreSQL: each bad parameter a
//! 400 naming it, a store that is not the owner's refused, the CSV's header, filename and
//! formula-safe cells, hours in the store's own zone (a Tokyo store's 09:00 is hour 09),
//! and all stores summed per currency, each cut at its own midnight. The figures' agreement
//! with the registers' Z reports is `crates/sync-client/tests/reports_z.rs`.
use crate::support;
use paydesk_backoffice::client::ClientError;
use serde_json::{json, Value};
use support::*;

/// 2026-12-01 09:30 in Tokyo (00:30 UTC).
const TOKYO_0930: i64 = 1_796_083_200_000 + 30 * 60_000;

/// A completed cash sale of one line straight into the tables the ingest writes (the
/// ingest itself is the sync tests'): `name` is what the register printed.
async fn sale(h: &Harness, (store, register): (&str, &str), id: i64, (name, sku): (&str, &str), (amount, currency): (i64, &str), at_ms: i64) {
    let db = h.db().await;
    let (s, r): (uuid::Uuid, uuid::Uuid) = (store.parse().unwrap(), register.parse().unwrap());
    db.execute(
        "INSERT INTO sales (store_id, register_id, sale_id, receipt_no, currency, dining, price_mode, subtotal, sale_discount, tax_total, total, completed_at_ms)
         VALUES ($1, $2, $3, $4, $5, 'take_out', 'inclusive', $6, 0, 0, $6, $7)",
        &[&s, &r, &id, &format!("{id:06}"), &currency, &amount, &at_ms],
    )
    .await
    .unwrap();
    db.execute(
        "INSERT INTO sale_lines (store_id, register_id, sale_id, line_no, sku, name, quantity, unit_price, tax_class, discount, total)
         VALUES ($1, $2, $3, 1, $4, $5, 1, $6, 'standard', 0, $6)",
        &[&s, &r, &id, &sku, &name, &amount],
    )
    .await
    .unwrap();
    db.execute(
        "INSERT INTO tenders (store_id, register_id, sale_id, tender_seq, method, amount, currency, cash_tendered, change_given, rounding, created_at_ms)
         VALUES ($1, $2, $3, 1, 'cash', $4, $5, $4, 0, 0, $6)",
        &[&s, &r, &id, &amount, &currency, &at_ms],
    )
    .await
    .unwrap();
}

fn refused(e: ClientError) -> (u16, String, String) {
    match e {
        ClientError::Refused(r) => (r.status, r.code().to_string(), r.body["error"]["message"].as_str().unwrap_or("").to_string()),
        ClientError::Transport(t) => panic!("transport: {t}"),
    }
}

async fn zone(h: &Harness, store: &str, zone: &str, currency: &str) {
    let settings = json!({"store_name": "S", "currency": currency, "receipt_footer": "", "offline_max_payment": 5000, "offline_max_total": 20000});
    h.owner.put(&format!("/admin/stores/{store}/settings"), &json!({"expected_version": 0, "settings": settings})).await.unwrap();
    h.owner.put(&format!("/admin/stores/{store}/time-zone"), &json!({"time_zone": zone})).await.unwrap();
}

#[tokio::test]
async fn bad_parameters_are_400s_that_name_them_and_another_owners_store_is_refused() {
    let h = Harness::start().await;
    let (store, _) = h.store_with_register("Shibuya").await;
    let ok = "from=2026-12-01&to=2026-12-02";
    for (q, says) in [
        (format!("by=cashier&{ok}"), "unknown grouping \"cashier\""),
        (ok.to_string(), "by: missing"),
        ("by=item&from=2026-02-30&to=2026-03-01".to_string(), "from: \"2026-02-30\" is not a date"),
        ("by=item&from=2026-12-01&to=12/02/2026".to_string(), "to: \"12/02/2026\" is not a date"),
        ("by=item&from=2026-12-02&to=2026-12-01".to_string(), "from 2026-12-02 is after to 2026-12-01"),
        ("by=item&from=2026-01-01&to=2027-01-02".to_string(), "the range is 367 days; at most 366"),
        (format!("by=item&{ok}&store=nope"), "store: \"nope\" is not a store id"),
        // a store of another back office (another owner's): not one this owner holds
        (format!("by=item&{ok}&store=7d3f5a1e-0000-4000-8000-000000000001"), "is not one of the owner's stores"),
        (format!("by=item&{ok}&format=xlsx"), "format: \"xlsx\""),
        (format!("by=item&{ok}&limit=5"), "unknown parameter \"limit\""),
    ] {
        let (status, code, message) = refused(h.owner.get(&format!("/admin/reports?{q}")).await.unwrap_err());
        assert_eq!((status, code.as_str()), (400, "bad_request"), "{q}: {message}");
        assert!(message.contains(says), "{q}: {message:?} should say {says:?}");
    }
    // the owner's own store answers, and nobody else gets in
    let r = h.owner.get(&format!("/admin/reports?by=item&{ok}&store={store}")).await.unwrap();
    assert_eq!((r["rows"].as_array().unwrap().len(), r["truncated"].as_bool()), (0, Some(false)), "{r}");
    let anon = reqwest::get(format!("{}/admin/reports?by=item&{ok}", h.url)).await.unwrap();
    assert_eq!(anon.status(), 401);
}

#[tokio::test]
async fn a_tokyo_stores_hours_are_tokyos_and_all_stores_are_summed_per_currency_each_at_its_own_midnight() {
    let h = Harness::start().await;
    let (tokyo, reg_t) = h.store_with_register("Shibuya").await;
    let (utc, reg_u) = h.store_with_register("London").await;
    zone(&h, &tokyo, "Asia/Tokyo", "jpy").await;
    sale(&h, (&tokyo, &reg_t.paired.register_id), 1, ("Tea", "TEA-001"), (500, "jpy"), TOKYO_0930).await;
    // 2026-12-01 00:30 UTC is Dec 1 in both stores; 23:30 UTC on Nov 30 is Dec 1 in Tokyo
    // only (08:30), Nov 30 in the UTC store
    sale(&h, (&utc, &reg_u.paired.register_id), 1, ("Tea", "TEA-001"), (300, "jpy"), TOKYO_0930).await;
    sale(&h, (&tokyo, &reg_t.paired.register_id), 2, ("Tea", "TEA-001"), (200, "jpy"), TOKYO_0930 - 3_600_000).await;
    sale(&h, (&utc, &reg_u.paired.register_id), 2, ("Tea", "TEA-001"), (7_000, "jpy"), TOKYO_0930 - 3_600_000).await;
    sale(&h, (&utc, &reg_u.paired.register_id), 3, ("Tea", "TEA-001"), (1_000, "usd"), TOKYO_0930).await;

    let hours = h.owner.get(&format!("/admin/reports?by=hour&from=2026-12-01&to=2026-12-01&store={tokyo}")).await.unwrap();
    let keys: Vec<(&str, i64)> = hours["rows"].as_array().unwrap().iter().map(|r| (r["key"].as_str().unwrap(), r["sold"].as_i64().unwrap())).collect();
    assert_eq!(keys, [("08", 200), ("09", 500)], "Tokyo's own hours, not UTC's 00 and 23: {hours}");
    assert_eq!(hours["rows"][1]["label"], "09:00");

    let all = h.owner.get("/admin/reports?by=item&from=2026-12-01&to=2026-12-01").await.unwrap();
    let rows: Vec<(Value, &str, i64, i64)> =
        all["rows"].as_array().unwrap().iter().map(|r| (r["store_id"].clone(), r["currency"].as_str().unwrap(), r["sold"].as_i64().unwrap(), r["sales"].as_i64().unwrap())).collect();
    // yen: Tokyo's two (500 + 200) and London's Dec 1 one (300), never its Nov 30 ¥7,000;
    // dollars apart
    assert_eq!(rows, [(Value::Null, "jpy", 1_000, 3), (Value::Null, "usd", 1_000, 1)], "{all}");
    let totals: Vec<(&str, i64)> = all["totals"].as_array().unwrap().iter().map(|r| (r["currency"].as_str().unwrap(), r["sold"].as_i64().unwrap())).collect();
    assert_eq!(totals, [("jpy", 1_000), ("usd", 1_000)], "{all}");
}

#[tokio::test]
async fn the_csv_has_a_header_a_filename_and_no_formula_a_spreadsheet_would_run() {
    let h = Harness::start().await;
    let (store, reg) = h.store_with_register("Shibuya").await;
    zone(&h, &store, "Asia/Tokyo", "jpy").await;
    let r = &reg.paired.register_id;
    sale(&h, (&store, r), 1, ("=HYPERLINK(\"http://evil\",\"x\")", "EVIL-1"), (100, "jpy"), TOKYO_0930).await;
    sale(&h, (&store, r), 2, ("+1+1", "@SUM"), (200, "jpy"), TOKYO_0930).await;
    sale(&h, (&store, r), 3, ("Tea, green", "-TEA"), (300, "jpy"), TOKYO_0930).await;

    let resp = reqwest::Client::new()
        .get(format!("{}/admin/reports?by=item&from=2026-12-01&to=2026-12-01&store={store}&format=csv", h.url))
        .bearer_auth(ADMIN_TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let header = |n: &str| resp.headers().get(n).unwrap().to_str().unwrap().to_string();
    assert_eq!(header("content-type"), "text/csv; charset=utf-8");
    assert_eq!(header("content-disposition"), "attachment; filename=\"paydesk-item-2026-12-01-2026-12-01.csv\"");
    let body = resp.text().await.unwrap();
    let lines: Vec<&str> = body.split("\r\n").collect();
    assert_eq!(lines[0], "store_id,currency,key,label,count,sales,sold,returned,net,grouping");
    assert_eq!(
        &lines[1..],
        [
            format!("{store},jpy,'-TEA,\"Tea, green\",1,1,300,0,300,item").as_str(),
            format!("{store},jpy,'@SUM,'+1+1,1,1,200,0,200,item").as_str(),
            format!("{store},jpy,EVIL-1,\"'=HYPERLINK(\"\"http://evil\"\",\"\"x\"\")\",1,1,100,0,100,item").as_str(),
            "",
        ],
        "{body}"
    );
    // a bad parameter is still a JSON 400, not a file
    let bad = reqwest::Client::new()
        .get(format!("{}/admin/reports?by=item&from=2026-12-01&to=2026-11-01&format=csv", h.url))
        .bearer_auth(ADMIN_TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 400);
}
