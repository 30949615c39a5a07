//! The reports page (record 0140) in a real headless Chromium over WebDriver, under the
//! dashboard's strict CSP: signed in, it lists the owner's stores, shows a report by item
//! and by tender for the chosen days and store, links the same report as a CSV, and shows
//! the back office's own message for a range it refuses.
use crate::dashboard::{chromium, sign_in, texts, wait_for, Driver};
use crate::support;
use serde_json::json;
use support::*;
use thirtyfour::prelude::*;

/// 2026-12-01 09:30 in Tokyo.
const TOKYO_0930: i64 = 1_796_083_200_000 + 30 * 60_000;

#[tokio::test]
async fn the_reports_page_shows_a_stores_days_by_item_and_tender_and_links_the_csv_in_chromium() {
    let h = Harness::start().await;
    let (store, reg) = h.store_with_register("Shibuya").await;
    let settings = json!({"store_name": "Shibuya", "currency": "jpy", "receipt_footer": "", "offline_max_payment": 5000, "offline_max_total": 20000});
    h.owner.put(&format!("/admin/stores/{store}/settings"), &json!({"expected_version": 0, "settings": settings})).await.unwrap();
    h.owner.put(&format!("/admin/stores/{store}/time-zone"), &json!({"time_zone": "Asia/Tokyo"})).await.unwrap();
    let db = h.db().await;
    let (s, r): (uuid::Uuid, uuid::Uuid) = (store.parse().unwrap(), reg.paired.register_id.parse().unwrap());
    db.execute(
        "INSERT INTO sales (store_id, register_id, sale_id, receipt_no, currency, dining, price_mode, subtotal, sale_discount, tax_total, total, completed_at_ms)
         VALUES ($1, $2, 1, '000001', 'jpy', 'take_out', 'inclusive', 1650, 0, 150, 1650, $3)",
        &[&s, &r, &TOKYO_0930],
    )
    .await
    .unwrap();
    db.execute(
        "INSERT INTO sale_lines (store_id, register_id, sale_id, line_no, sku, name, quantity, unit_price, tax_class, discount, total)
         VALUES ($1, $2, 1, 1, 'MUG-001', '<b>Mug</b>', 1, 1650, 'standard', 0, 1650)",
        &[&s, &r],
    )
    .await
    .unwrap();
    db.execute(
        "INSERT INTO tenders (store_id, register_id, sale_id, tender_seq, method, amount, currency, cash_tendered, change_given, rounding, created_at_ms)
         VALUES ($1, $2, 1, 1, 'cash', 1650, 'jpy', 2000, 350, 0, $3)",
        &[&s, &r, &TOKYO_0930],
    )
    .await
    .unwrap();
    let page = include_str!("../static/reports.html");
    assert!(!page.contains("<style") && !page.contains(" style=") && page.matches("<script").count() == page.matches("<script src=").count());
    let resp = reqwest::get(format!("{}/reports", h.url)).await.unwrap();
    assert!(resp.url().path().ends_with("/login"), "signed out, the page sends to sign-in");

    let driver = tokio::task::spawn_blocking(Driver::start).await.unwrap();
    let (d, _profile) = chromium(&driver, "1300,900").await;
    let result = async {
        sign_in(&d, &h.url).await?;
        d.find(By::Id("to-reports")).await?.click().await?;
        wait_for(&d, "return document.body.dataset.ready === 'true'", "the reports page").await;
        let set = |id: &'static str, v: String| {
            let d = &d;
            async move { d.execute(&format!("document.getElementById('{id}').value = arguments[0]; document.getElementById('{id}').dispatchEvent(new Event('change'))"), vec![json!(v)]).await }
        };
        set("from", "2026-12-01".into()).await?;
        set("to", "2026-12-01".into()).await?;
        set("store", store.clone()).await?;
        d.find(By::Id("show")).await?.click().await?;
        wait_for(&d, "return document.body.dataset.loaded === 'true'", "the report").await;
        let words = |v: Vec<String>| v.iter().map(|s| s.split_whitespace().collect::<Vec<_>>().join(" ")).collect::<Vec<_>>();
        // the name is text, never HTML
        assert_eq!(words(texts(&d, "#report tbody tr").await), ["Shibuya <b>Mug</b> 1 1 1,650 JPY 0 JPY 1,650 JPY"]);
        assert_eq!(words(texts(&d, "#totals tbody tr").await), ["Shibuya Total 1 1 1,650 JPY 0 JPY 1,650 JPY"]);
        let csv = d.find(By::Id("csv")).await?.attr("href").await?.unwrap_or_default();
        assert_eq!(csv, format!("/admin/reports?by=item&from=2026-12-01&to=2026-12-01&store={store}&format=csv"));

        set("by", "tender".into()).await?;
        d.find(By::Id("show")).await?.click().await?;
        wait_for(&d, "return document.body.dataset.loaded === 'true' && document.querySelector('#report th:nth-child(2)').textContent === 'Tender'", "by tender").await;
        assert_eq!(words(texts(&d, "#report tbody tr").await), ["Shibuya cash 1 1 1,650 JPY 0 JPY 1,650 JPY"]);
        for p in crate::dashboard::screenshot_path("backoffice-reports") {
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            d.screenshot(&p).await?;
        }

        set("to", "2026-11-01".into()).await?;
        d.find(By::Id("show")).await?.click().await?;
        wait_for(&d, "return document.getElementById('message').textContent.length > 0", "the refusal").await;
        assert_eq!(d.find(By::Id("message")).await?.text().await?, "from 2026-12-01 is after to 2026-11-01");
        Ok::<(), WebDriverError>(())
    }
    .await;
    d.quit().await.unwrap();
    result.unwrap();
}
