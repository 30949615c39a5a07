//! The publishing page (record 0147) in a real headless Chromium over WebDriver (Debian's
//! chromium and chromium-driver), under the dashboard's strict CSP: signed in, it shows the
//! published catalog and a register's own items beside it; a CSV chosen in the file input
//! is read by the back office and previewed (what changes, old → new, at which register); a
//! publish by someone else in between makes the page's publish refused; previewed again and
//! published, the table shows it. A screenshot of the preview is kept.
use crate::dashboard::{chromium, sign_in, texts, wait_for, Driver};
use crate::support;
use serde_json::json;
use support::*;
use thirtyfour::prelude::*;

#[tokio::test]
async fn the_publishing_page_previews_an_uploaded_csv_and_publishes_it_in_chromium() {
    let h = Harness::start().await;
    let (store, reg) = h.store_with_register("Shibuya").await;
    let settings = json!({"store_name": "Shibuya", "currency": "jpy", "receipt_footer": "", "offline_max_payment": 5000, "offline_max_total": 20000});
    h.owner.put(&format!("/admin/stores/{store}/settings"), &json!({"expected_version": 0, "settings": settings})).await.unwrap();
    let tea = json!({"sku": "TEA", "name_en": "Tea", "price": 150, "currency": "jpy", "tax_class": "reduced", "active": true});
    h.owner.put(&format!("/admin/stores/{store}/catalog"), &json!({"items": [tea]})).await.unwrap();
    // the register has applied everything, and has an item of its own (record 0052)
    reg.get("/v1/sync/changes", &[("since", "2"), ("kinds", "settings,item,tax,staff")]).await.unwrap();
    let (s, r): (uuid::Uuid, uuid::Uuid) = (store.parse().unwrap(), reg.paired.register_id.parse().unwrap());
    h.db()
        .await
        .execute(
            "INSERT INTO register_items (store_id, register_id, sku, name_en, price, currency, tax_class, active, updated_at_ms, price_kind, unit)
             VALUES ($1, $2, 'ZINE', 'Local zine', 500, 'jpy', 'standard', true, 1796083200000, 'fixed', 'piece')",
            &[&s, &r],
        )
        .await
        .unwrap();

    // the page, its script and style are the back office's own; no inline script or style
    let page = include_str!("../static/publish.html");
    assert!(!page.contains("<style") && !page.contains(" style=") && page.matches("<script").count() == page.matches("<script src=").count());
    let js = include_str!("../static/publish.js");
    assert!(!js.contains("innerHTML") && !js.contains("eval(") && !js.contains("new Function"));
    let resp = reqwest::get(format!("{}/publish", h.url)).await.unwrap();
    assert!(resp.url().path().ends_with("/login"), "signed out, the page sends to sign-in");
    let resp = reqwest::Client::new().get(format!("{}/publish", h.url)).bearer_auth(ADMIN_TOKEN).send().await.unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-security-policy"].to_str().unwrap(), paydesk_backoffice::http::CSP);
    assert_eq!(
        paydesk_backoffice::http::CSP,
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    );

    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("catalog.csv");
    std::fs::write(&csv, "sku,name_en,price,tax_class\nTEA,Tea,160,reduced\nNEW,<b>New</b> mug,1650,standard\n").unwrap();

    let driver = tokio::task::spawn_blocking(Driver::start).await.unwrap();
    let (d, _profile) = chromium(&driver, "1300,1000").await;
    let result = async {
        sign_in(&d, &h.url).await?;
        d.find(By::Id("to-publish")).await?.click().await?;
        wait_for(&d, "return document.body.dataset.ready === 'true' && document.body.dataset.loaded === 'true'", "the publishing page").await;
        let words = |v: Vec<String>| v.iter().map(|s| s.split_whitespace().collect::<Vec<_>>().join(" ")).collect::<Vec<_>>();
        assert_eq!(words(texts(&d, "#catalog tbody tr").await), ["TEA Tea 150 JPY reduced yes 2"]);
        assert_eq!(words(texts(&d, "#own-items tbody tr").await), ["Shibuya register ZINE Local zine 500 JPY standard yes 2026-12-01 00:00 UTC"]);

        d.find(By::Id("csv-file")).await?.send_keys(csv.display().to_string()).await?;
        d.find(By::Id("catalog-preview-button")).await?.click().await?;
        wait_for(&d, "return document.getElementById('catalog-preview').dataset.ready === 'true'", "the preview").await;
        assert_eq!(
            words(texts(&d, "#catalog-preview .summary").await),
            ["1 added, 1 changed, 0 retired, 0 unchanged — computed against version 2; publishing takes 2 versions."]
        );
        assert_eq!(words(texts(&d, "#catalog-preview-changed tbody tr").await), ["TEA price 150 JPY 160 JPY"]);
        let added = words(texts(&d, "#catalog-preview-added tbody tr").await);
        // the name is text, never HTML
        assert!(added.contains(&"NEW name_en — <b>New</b> mug".to_string()) && added.contains(&"NEW price — 1,650 JPY".to_string()), "{added:?}");
        let reg_row = words(texts(&d, "#catalog-preview-registers tbody tr").await).remove(0);
        assert!(reg_row.starts_with("Shibuya register has applied every change up to version 2 (asked ") && reg_row.ends_with("received at its next sync"), "{reg_row}");
        assert!(d.find(By::Id("catalog-publish")).await?.is_displayed().await?);
        d.execute("document.getElementById('catalog-preview').scrollIntoView()", vec![]).await?;
        for p in crate::dashboard::screenshot_path("backoffice-publish-preview") {
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            d.screenshot(&p).await?;
        }

        // Someone publishes in between: the page's publish is refused and nothing is written.
        let jam = json!({"sku": "JAM", "name_en": "Jam", "price": 400, "currency": "jpy", "tax_class": "reduced", "active": true});
        h.owner.put(&format!("/admin/stores/{store}/catalog"), &json!({"items": [jam]})).await.unwrap();
        d.find(By::Id("catalog-publish")).await?.click().await?;
        wait_for(&d, "return document.getElementById('catalog-message').textContent.length > 0", "the refusal").await;
        assert_eq!(
            d.find(By::Id("catalog-message")).await?.text().await?,
            "the catalog changed since the preview (previewed at version 2, now at 3); preview again"
        );
        assert!(!d.find(By::Id("catalog-publish")).await?.is_displayed().await?);
        assert_eq!(h.count("SELECT count(*) FROM catalog_items WHERE sku IN ('NEW') OR item->>'price' = '160'").await, 0);

        // Previewed again (the same file), then published: the table shows it.
        d.find(By::Id("catalog-preview-button")).await?.click().await?;
        wait_for(&d, "return document.getElementById('catalog-preview').dataset.ready === 'true'", "the second preview").await;
        assert!(words(texts(&d, "#catalog-preview .summary").await)[0].contains("computed against version 3"));
        d.find(By::Id("catalog-publish")).await?.click().await?;
        wait_for(&d, "return document.body.dataset.published === 'catalog' && document.body.dataset.loaded === 'true'", "the publish").await;
        assert_eq!(d.find(By::Id("catalog-message")).await?.text().await?, "Published: version 5.");
        assert_eq!(
            words(texts(&d, "#catalog tbody tr").await),
            ["JAM Jam 400 JPY reduced yes 3", "NEW <b>New</b> mug 1,650 JPY standard yes 5", "TEA Tea 160 JPY reduced yes 4"]
        );
        assert!(!d.find(By::Id("catalog-publish")).await?.is_displayed().await?);
        Ok::<(), WebDriverError>(())
    }
    .await;
    d.quit().await.unwrap();
    result.unwrap();
    // what the page published is what the register receives
    let c = reg.get("/v1/sync/changes", &[("since", "2"), ("kinds", "settings,item,tax,staff")]).await.unwrap();
    assert_eq!(c["changes"].as_array().map(Vec::len), Some(3), "JAM, then TEA and NEW");
}

/// The values of the inputs matching `css`, in page order.
/// Signs the owner in and opens the publishing page, waiting until it has loaded.
async fn open_publishing(d: &WebDriver, url: &str) -> WebDriverResult<()> {
    sign_in(d, url).await?;
    d.goto(format!("{url}/publish")).await?;
    wait_for(d, "return document.body.dataset.ready === 'true' && document.body.dataset.loaded === 'true'", "the publishing page").await;
    Ok(())
}

async fn values(d: &WebDriver, css: &str) -> Vec<String> {
    let mut out = vec![];
    for e in d.find_all(By::Css(css)).await.unwrap() {
        out.push(e.prop("value").await.unwrap().unwrap_or_default());
    }
    out
}

/// The tax setup is a form, one row per rate, in percent (record 0147 addendum): the owner
/// never writes the document. The published setup fills it; a rate typed with a comma is
/// refused naming its row before anything is sent; rounding, the registration number and a
/// new stacked rate with its first day are previewed as changes (the rate in percent) and
/// published; the register receives exactly those figures (8.875 % exactly, as ppm).
#[tokio::test]
async fn the_tax_setup_is_a_form_of_rates_in_percent_previewed_and_published_in_chromium() {
    let h = Harness::start().await;
    let (store, reg) = h.store_with_register("Shibuya").await;
    let settings = json!({"store_name": "Shibuya", "currency": "jpy", "receipt_footer": "", "offline_max_payment": 5000, "offline_max_total": 20000});
    h.owner.put(&format!("/admin/stores/{store}/settings"), &json!({"expected_version": 0, "settings": settings})).await.unwrap();
    let jp = json!({"price_mode": "inclusive", "rounding": "down", "registration_number": null, "rates": [
        {"class": "standard", "ppm": 100000}, {"class": "reduced", "ppm": 80000}, {"class": "exempt", "ppm": 0}]});
    h.owner.put(&format!("/admin/stores/{store}/tax"), &json!({"expected_version": 0, "tax": jp})).await.unwrap();
    reg.get("/v1/sync/changes", &[("since", "0"), ("kinds", "settings,item,tax,staff")]).await.unwrap();
    let stored = || async { h.db().await.query_one("SELECT tax::text FROM store_tax ORDER BY version DESC LIMIT 1", &[]).await.unwrap().get::<_, String>(0) };
    let before = stored().await;

    let driver = tokio::task::spawn_blocking(Driver::start).await.unwrap();
    let (d, _profile) = chromium(&driver, "1300,1000").await;
    let result = async {
        open_publishing(&d, &h.url).await?;
        assert!(d.find_all(By::Css("textarea")).await?.is_empty(), "no document to write by hand");
        assert_eq!(values(&d, "#tax-rates .rate-class").await, ["standard", "reduced", "exempt"]);
        assert_eq!(values(&d, "#tax-rates .rate-percent").await, ["10", "8", "0"]);
        assert_eq!(values(&d, "#tax-price-mode, #tax-rounding, #tax-registration").await, ["inclusive", "down", ""]);

        // A rate typed the European way is refused, naming its row; nothing is previewed.
        let percent = d.find_all(By::Css("#tax-rates .rate-percent")).await?;
        percent[1].clear().await?;
        percent[1].send_keys("8,5").await?;
        d.find(By::Id("tax-preview-button")).await?.click().await?;
        wait_for(&d, "return document.getElementById('tax-message').textContent.length > 0", "the refusal").await;
        assert_eq!(
            d.find(By::Id("tax-message")).await?.text().await?,
            "Rate 2: must be a percentage with at most four decimals, like 10 or 8.875 (got \"8,5\")."
        );
        assert_eq!(d.find(By::Id("tax-preview")).await?.attr("data-ready").await?.as_deref(), Some("false"));

        // The reduced rate back to 8; rounding half up, the registration number, and a
        // stacked 8.875 % "City" rate from the first of next year.
        percent[1].clear().await?;
        percent[1].send_keys("8").await?;
        // The refusal was about "8,5": once the row is edited it is no longer on screen (it
        // stayed, and the wait for the preview below took it for the preview's answer).
        assert_eq!(d.find(By::Id("tax-message")).await?.text().await?, "", "a refusal of what the form no longer holds");
        d.find(By::Css("#tax-rounding option[value='half_up']")).await?.click().await?;
        d.find(By::Id("tax-registration")).await?.send_keys("T7000012050002").await?;
        d.find(By::Id("tax-add-rate")).await?.click().await?;
        let last = |c: &'static str| {
            let d = &d;
            async move { d.find_all(By::Css(format!("#tax-rates .rate-{c}"))).await.unwrap().pop().unwrap() }
        };
        last("name").await.send_keys("City").await?;
        last("percent").await.send_keys("8.875").await?;
        last("from").await.send_keys("2027-01-01").await?;
        d.find(By::Id("tax-preview-button")).await?.click().await?;
        wait_for(
            &d,
            "return document.getElementById('tax-preview').dataset.ready === 'true' || document.getElementById('tax-message').textContent.length > 0",
            "the preview",
        )
        .await;
        assert_eq!(d.find(By::Id("tax-message")).await?.text().await?, "", "the back office refused the form's document");
        let words = |v: Vec<String>| v.iter().map(|s| s.split_whitespace().collect::<Vec<_>>().join(" ")).collect::<Vec<_>>();
        assert_eq!(words(texts(&d, "#tax-preview .summary").await)[0].split(" — ").next(), Some("1 added, 1 changed, 0 removed, 3 unchanged"));
        assert_eq!(words(texts(&d, "#tax-preview-changed tbody tr").await), ["setup rounding down half_up", "setup registration_number — T7000012050002"]);
        assert_eq!(words(texts(&d, "#tax-preview-added tbody tr").await), ["rate standard City from 2027-01-01 rate — 8.875 %"]);
        assert_eq!(stored().await, before, "a preview writes nothing");
        for p in crate::dashboard::screenshot_path("backoffice-publish-tax") {
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            d.screenshot(&p).await?;
        }
        d.find(By::Id("tax-publish")).await?.click().await?;
        wait_for(&d, "return document.body.dataset.published === 'tax' && document.body.dataset.loaded === 'true'", "the publish").await;
        assert!(d.find(By::Id("tax-message")).await?.text().await?.starts_with("Published: version "));
        assert_eq!(values(&d, "#tax-rates .rate-percent").await, ["10", "8", "0", "8.875"], "the form shows what is published");
        Ok::<(), WebDriverError>(())
    }
    .await;
    d.quit().await.unwrap();
    result.unwrap();
    let tax: serde_json::Value = serde_json::from_str(&stored().await).unwrap();
    assert_eq!((tax["rounding"].as_str(), tax["registration_number"].as_str()), (Some("half_up"), Some("T7000012050002")));
    let rates: Vec<(String, String, u64, Option<String>)> = tax["rates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["class"].as_str().unwrap().into(), r["name"].as_str().unwrap_or("").into(), r["ppm"].as_u64().unwrap(), r["effective_from"].as_str().map(Into::into)))
        .collect();
    assert_eq!(
        rates,
        [("standard".into(), "".into(), 100_000, None), ("reduced".into(), "".into(), 80_000, None), ("exempt".into(), "".into(), 0, None), ("standard".into(), "City".into(), 88_750, Some("2027-01-01".into()))]
    );
    // and the register receives that document
    let c = reg.get("/v1/sync/changes", &[("since", "2"), ("kinds", "tax")]).await.unwrap();
    assert_eq!(c["changes"].as_array().map(Vec::len), Some(1), "{c}");
}

/// Puts one member in the staff form and presses "Add to the list" (an empty `pin`: none).
async fn add_member(d: &WebDriver, name: &str, role: &str, pin: &str) -> WebDriverResult<()> {
    let n = d.find(By::Id("staff-name")).await?;
    n.clear().await?;
    n.send_keys(name).await?;
    d.find(By::Css(format!("#staff-role option[value='{role}']"))).await?.click().await?;
    let p = d.find(By::Id("staff-pin")).await?;
    p.clear().await?;
    if !pin.is_empty() {
        p.send_keys(pin).await?;
    }
    d.find(By::Id("staff-add")).await?.click().await
}

/// Every text of the page, as the DOM holds it (hidden or not) and as it is drawn.
async fn page_text(d: &WebDriver) -> String {
    let v = d.execute("return document.documentElement.textContent + '\\n' + document.body.innerText", vec![]).await.unwrap();
    v.json().as_str().unwrap().to_string()
}

async fn pin_hash(h: &Harness, name: &str) -> String {
    h.db().await.query_one("SELECT pin_hash FROM store_staff WHERE name = $1", &[&name]).await.unwrap().get(0)
}

fn words(v: Vec<String>) -> Vec<String> {
    v.iter().map(|s| s.split_whitespace().collect::<Vec<_>>().join(" ")).collect()
}

/// Several staff changes in one publish (record 0147 addendum): the owner lists two new
/// members and a published one's new role (picked with Change, PIN left as it is), sees the
/// list with each PIN only as "set" or "unchanged", is refused a second row for one member
/// before anything is sent, previews the whole list once, and publishes it once: the back
/// office holds all three and the register receives all three. An edit after the preview
/// hides Publish; the list stops at the API's limit; the PINs' digits are never page text.
#[tokio::test]
async fn several_staff_changes_are_listed_previewed_and_published_at_once_in_chromium() {
    const PINS: [&str; 2] = ["739164", "86420531"];
    let h = Harness::start().await;
    let (store, reg) = h.store_with_register("Shibuya").await;
    let settings = json!({"store_name": "Shibuya", "currency": "jpy", "receipt_footer": "", "offline_max_payment": 5000, "offline_max_total": 20000});
    h.owner.put(&format!("/admin/stores/{store}/settings"), &json!({"expected_version": 0, "settings": settings})).await.unwrap();
    let staff = json!({"staff": [{"name": "Olivia", "role": "owner", "active": true, "pin": "1111"}, {"name": "Casey", "role": "cashier", "active": true, "pin": "2580"}]});
    h.owner.put(&format!("/admin/stores/{store}/staff"), &staff).await.unwrap();
    reg.get("/v1/sync/changes", &[("since", "3"), ("kinds", "settings,item,tax,staff")]).await.unwrap();
    let casey_hash = pin_hash(&h, "Casey").await;

    let driver = tokio::task::spawn_blocking(Driver::start).await.unwrap();
    let (d, _profile) = chromium(&driver, "1300,1000").await;
    let result = async {
        open_publishing(&d, &h.url).await?;
        assert_eq!(words(texts(&d, "#staff tbody tr").await), ["Casey cashier yes 3 Change", "Olivia owner yes 2 Change"]);
        assert_eq!(words(texts(&d, "#staff-pending tbody tr").await), ["No changes yet: add a member above, or press Change beside one."]);

        add_member(&d, "Ben", "cashier", PINS[0]).await?;
        add_member(&d, "Dana", "manager", PINS[1]).await?;
        d.find(By::XPath("//table[@id='staff']//tr[td[1]='Casey']//button")).await?.click().await?;
        assert_eq!(d.find(By::Id("staff-name")).await?.prop("value").await?.as_deref(), Some("Casey"));
        d.find(By::Css("#staff-role option[value='manager']")).await?.click().await?;
        d.find(By::Id("staff-add")).await?.click().await?;
        let listed = ["Ben new member cashier yes set Remove", "Dana new member manager yes set Remove", "Casey change manager yes unchanged Remove"];
        assert_eq!(words(texts(&d, "#staff-pending tbody tr").await), listed);
        assert_eq!(d.find(By::Id("staff-count")).await?.text().await?, "3 of at most 50 in one publish");
        assert_eq!(d.find(By::Id("staff-pin")).await?.prop("value").await?.as_deref(), Some(""), "the PIN leaves the form once listed");

        // A second row for one member, and a new member without a PIN, are refused on the page.
        add_member(&d, "Ben", "manager", "").await?;
        assert_eq!(d.find(By::Id("staff-message")).await?.text().await?, "Ben is already in the list. Remove that row first to change it again.");
        add_member(&d, "Eve", "cashier", "").await?;
        assert_eq!(d.find(By::Id("staff-message")).await?.text().await?, "Eve is new: give a PIN of 4 to 8 digits.");
        assert_eq!(words(texts(&d, "#staff-pending tbody tr").await), listed, "nothing added");
        assert_eq!(d.find(By::Id("staff-preview")).await?.attr("data-ready").await?.as_deref(), Some("false"));

        // One preview for the whole list.
        d.find(By::Id("staff-preview-button")).await?.click().await?;
        let ready = "return document.getElementById('staff-preview').dataset.ready === 'true' || document.getElementById('staff-message').textContent.length > 0";
        wait_for(&d, ready, "the preview").await;
        assert_eq!(d.find(By::Id("staff-message")).await?.text().await?, "", "the back office refused the list");
        assert_eq!(
            words(texts(&d, "#staff-preview .summary").await),
            ["2 added, 1 changed, 0 retired, 0 unchanged — computed against version 3; publishing takes 3 versions."]
        );
        assert_eq!(
            words(texts(&d, "#staff-preview-added tbody tr").await),
            ["Ben role — cashier", "Ben active — yes", "Ben pin — set", "Dana role — manager", "Dana active — yes", "Dana pin — set"]
        );
        assert_eq!(words(texts(&d, "#staff-preview-changed tbody tr").await), ["Casey role cashier manager"]);
        let reg_row = words(texts(&d, "#staff-preview-registers tbody tr").await).remove(0);
        assert!(reg_row.starts_with("Shibuya register has applied every change up to version 3") && reg_row.ends_with("received at its next sync"), "{reg_row}");
        assert!(d.find(By::Id("staff-publish")).await?.is_displayed().await?);
        let text = page_text(&d).await;
        assert!(PINS.iter().all(|p| !text.contains(p)), "a PIN's digits in the page: {text}");
        d.execute("document.getElementById('h-staff').scrollIntoView()", vec![]).await?;
        for p in crate::dashboard::screenshot_path("backoffice-publish-staff") {
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            d.screenshot(&p).await?;
        }

        // An edit after the preview drops it: Publish is gone until the list is previewed again.
        add_member(&d, "Eve", "cashier", "5555").await?;
        assert!(!d.find(By::Id("staff-publish")).await?.is_displayed().await?, "Publish after an edit");
        assert_eq!(d.find(By::Id("staff-preview")).await?.attr("data-ready").await?.as_deref(), Some("false"));
        d.find(By::XPath("//table[@id='staff-pending']//tr[td[1]='Eve']//button")).await?.click().await?;
        assert!(!d.find(By::Id("staff-publish")).await?.is_displayed().await?, "Publish after a removal");
        assert_eq!(words(texts(&d, "#staff-pending tbody tr").await), listed);
        d.find(By::Id("staff-preview-button")).await?.click().await?;
        wait_for(&d, ready, "the second preview").await;
        assert_eq!(words(texts(&d, "#staff-preview .summary").await)[0].split(" — ").next(), Some("2 added, 1 changed, 0 retired, 0 unchanged"));
        assert_eq!(h.count("SELECT count(*) FROM store_staff").await, 2, "a preview writes nothing");

        d.find(By::Id("staff-publish")).await?.click().await?;
        wait_for(&d, "return document.body.dataset.published === 'staff' && document.body.dataset.loaded === 'true'", "the publish").await;
        assert_eq!(d.find(By::Id("staff-message")).await?.text().await?, "Published: version 6.");
        assert_eq!(
            words(texts(&d, "#staff tbody tr").await),
            ["Ben cashier yes 4 Change", "Casey manager yes 6 Change", "Dana manager yes 5 Change", "Olivia owner yes 2 Change"]
        );
        assert_eq!(words(texts(&d, "#staff-pending tbody tr").await), ["No changes yet: add a member above, or press Change beside one."]);
        let text = page_text(&d).await;
        assert!(PINS.iter().all(|p| !text.contains(p)), "a PIN's digits in the page: {text}");

        // The list stops at what one publish takes (the API's limit), and Clear empties it.
        let refused = d
            .execute(
                "for (let i = 1; i <= 51; i++) { document.getElementById('staff-name').value = 'Temp ' + i; document.getElementById('staff-pin').value = '4444'; document.getElementById('staff-add').click(); }
                 return document.getElementById('staff-message').textContent",
                vec![],
            )
            .await?;
        assert_eq!(refused.json().as_str(), Some("One publish takes at most 50 changes. Publish these first, then add more."));
        assert_eq!(d.find(By::Id("staff-count")).await?.text().await?, "50 of at most 50 in one publish");
        d.find(By::Id("staff-clear")).await?.click().await?;
        assert_eq!(d.find(By::Id("staff-count")).await?.text().await?, "0 of at most 50 in one publish");
        Ok::<(), WebDriverError>(())
    }
    .await;
    d.quit().await.unwrap();
    result.unwrap();
    // The back office holds all three, Casey with the PIN she had.
    let rows: Vec<(String, String, bool, i64)> = h
        .db()
        .await
        .query("SELECT name, role, active, version FROM store_staff ORDER BY name", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
        .collect();
    let expect = [("Ben", "cashier", 4), ("Casey", "manager", 6), ("Dana", "manager", 5), ("Olivia", "owner", 2)];
    assert_eq!(rows, expect.map(|(n, r, v)| (n.to_string(), r.to_string(), true, v)));
    assert_eq!(pin_hash(&h, "Casey").await, casey_hash, "a change without a PIN keeps the member's");
    for (name, pin) in [("Ben", PINS[0]), ("Dana", PINS[1])] {
        let hash = pin_hash(&h, name).await;
        assert!(hash.starts_with("$argon2id$") && !hash.contains(pin), "{name}: {hash}");
    }
    // and the register receives all three, in the publish's order
    let c: paydesk_sync_proto::Changes = serde_json::from_value(reg.get("/v1/sync/changes", &[("since", "3"), ("kinds", "settings,item,tax,staff")]).await.unwrap()).unwrap();
    let got: Vec<(u64, String, &str)> = c
        .changes
        .iter()
        .map(|ch| match ch {
            paydesk_sync_proto::Change::Staff { version, member } => (*version, member.name.clone(), member.role.as_str()),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(got, [(4, "Ben".to_string(), "cashier"), (5, "Dana".to_string(), "manager"), (6, "Casey".to_string(), "manager")]);
}
