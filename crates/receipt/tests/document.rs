//! The receipt document: a Japanese receipt is a simplified qualified invoice, and bad sale
//! data is refused with a typed error.

use crate::common;

use common::*;
use paydesk_domain::TenderKind;
use paydesk_receipt::*;
use paydesk_tax::{Dining, TaxClass, TaxError};

fn text(r: &Receipt, paper: Paper) -> Vec<String> {
    render_text(r, paper).into_iter().map(|l| l.trim_end().to_string()).collect()
}

/// Each element the Consumption Tax Act asks of a simplified qualified invoice, found in the
/// printed text at both paper widths.
#[test]
fn a_japanese_receipt_is_a_simplified_qualified_invoice() {
    let r = build_receipt(&ja_sale(), &inclusive(), false).unwrap();
    assert_eq!(r.missing_invoice_elements(), Vec::<&str>::new());
    for paper in [Paper::Mm58, Paper::Mm80] {
        let lines = text(&r, paper);
        let has = |needle: &str| lines.iter().any(|l| l.contains(needle));
        let row = |label: &str, amount: &str| lines.iter().any(|l| l.trim_start().starts_with(label) && l.ends_with(amount));
        // 1. The issuer's name and registration number.
        assert!(has("ペイデスク商店 渋谷店"), "{lines:#?}");
        assert!(has("登録番号 T7000012050002"));
        // 2. The date of the sale.
        assert!(has("2026年12月01日 21:05"));
        // 3. The items, reduced-rate ones marked ※ (and the mark explained).
        assert!(has("※おにぎり 鮭") && has("※緑茶 500ml"));
        assert!(has("週刊誌") && !has("※週刊誌"));
        assert!(has("※は軽減税率対象商品"));
        // 4. Per rate, the total of the consideration; 5. per rate, the tax.
        assert!(row("10%対象", "¥550") && row("8%対象", "¥440"));
        let taxes: Vec<&String> = lines.iter().filter(|l| l.contains("内消費税")).collect();
        assert_eq!(taxes.len(), 2);
        assert!(taxes[0].ends_with("¥50") && taxes[1].ends_with("¥32"), "{taxes:?}");
        // And what the brief adds: total, tender and change.
        assert!(row("合計", "¥990") && row("現金", "¥1,000") && row("お釣り", "¥10"));
    }
    // Per-rate figures on the document itself.
    let rates: Vec<(TaxClass, u32, i64, i64)> = r.rates.iter().map(|x| (x.class, x.ppm, x.gross, x.tax)).collect();
    assert_eq!(rates, vec![(TaxClass::Standard, 100_000, 550, 50), (TaxClass::Reduced, 80_000, 440, 32)]);
}

#[test]
fn without_a_registration_number_it_is_a_receipt_but_not_an_invoice() {
    let mut sale = ja_sale();
    sale.store.registration_number = None;
    let r = build_receipt(&sale, &inclusive(), false).unwrap();
    assert_eq!(r.missing_invoice_elements(), vec!["registration number"]);
    assert!(!text(&r, Paper::Mm58).iter().any(|l| l.contains("登録番号")));
}

#[test]
fn eating_in_drops_the_reduced_rate_and_its_mark() {
    let mut sale = ja_sale();
    sale.dining = Dining::EatIn;
    let r = build_receipt(&sale, &inclusive(), false).unwrap();
    let lines = text(&r, Paper::Mm58);
    assert!(lines.iter().any(|l| l == "店内飲食"));
    assert!(!lines.iter().any(|l| l.contains('※')), "{lines:#?}");
    assert!(!lines.iter().any(|l| l.contains("8%")));
    // 990 at 10 %: tax 90.
    assert!(lines.iter().any(|l| l.contains("内消費税") && l.ends_with("¥90")));
}

#[test]
fn exclusive_prices_show_the_tax_exclusive_base_and_the_tax() {
    let r = build_receipt(&en_sale(), &exclusive(), false).unwrap();
    let lines = text(&r, Paper::Mm80);
    let row = |label: &str, amount: &str| lines.iter().any(|l| l.trim_start().starts_with(label) && l.ends_with(amount));
    // Mug: 2 × $9.00 less 10 % = $16.20 → tax $1.62; beans $14.50 at 8 % → $1.16.
    assert!(row("Taxable 10% excl. tax", "$16.20") && row("Taxable 8% excl. tax", "$14.50"), "{lines:#?}");
    assert!(row("Tax", "$1.62") && row("Tax", "$1.16"));
    assert!(row("TOTAL", "$33.48") && row("Change", "$16.52"));
    assert!(row("*Coffee beans 1 lb", "$14.50"));
}

#[test]
fn a_reprint_is_marked_and_never_opens_the_drawer() {
    let first = build_receipt(&ja_sale(), &inclusive(), false).unwrap();
    let again = build_receipt(&ja_sale(), &inclusive(), true).unwrap();
    assert!(first.opens_drawer() && !again.opens_drawer());
    assert!(!text(&first, Paper::Mm58).iter().any(|l| l.contains("再発行")));
    assert!(text(&again, Paper::Mm58).iter().any(|l| l.trim() == "【再発行】"));
    // A card-only sale never opens it either.
    let mut card = ja_sale();
    card.tenders = vec![Tender { kind: TenderKind::Card, amount: 990, card: None, store: None }];
    assert!(!build_receipt(&card, &inclusive(), false).unwrap().opens_drawer());
}

#[test]
fn bad_sale_data_is_a_typed_error() {
    let s = inclusive();
    let mut sale = ja_sale();
    sale.tenders = vec![Tender { kind: TenderKind::Cash, amount: 989, card: None, store: None }];
    assert_eq!(build_receipt(&sale, &s, false), Err(ReceiptError::Underpaid { paid: 989, total: 990 }));

    let mut sale = ja_sale();
    sale.tenders = vec![Tender { kind: TenderKind::Card, amount: 1000, card: None, store: None }];
    assert_eq!(build_receipt(&sale, &s, false), Err(ReceiptError::ChangeWithoutCash { change: 10, cash: 0 }));

    let mut sale = ja_sale();
    sale.tenders[0].amount = 0;
    assert_eq!(build_receipt(&sale, &s, false), Err(ReceiptError::BadTender { index: 0, amount: 0 }));

    // An ESC in an item name would reach the printer as a command.
    let mut sale = ja_sale();
    sale.lines[1].name = "tea\u{1b}@".into();
    assert!(matches!(build_receipt(&sale, &s, false), Err(ReceiptError::BadText { ref field, .. }) if field == "lines[1].name"));

    let mut sale = ja_sale();
    sale.store.name = "x".repeat(MAX_TEXT_CHARS + 1);
    assert!(matches!(build_receipt(&sale, &s, false), Err(ReceiptError::BadText { ref field, .. }) if field == "store.name"));

    let mut sale = ja_sale();
    sale.footer = vec!["ok".into(); MAX_TEXT_LINES + 1];
    assert!(matches!(build_receipt(&sale, &s, false), Err(ReceiptError::BadText { ref field, .. }) if field == "footer"));

    let mut sale = ja_sale();
    sale.tenders[0].amount = 1_000_000_000_000_001;
    assert!(matches!(build_receipt(&sale, &s, false), Err(ReceiptError::BadTender { index: 0, .. })));

    for (month, day, hour) in [(2, 29, 10), (13, 1, 10), (4, 31, 10), (12, 1, 24), (1, 0, 0)] {
        let mut sale = ja_sale();
        sale.issued_at = LocalDateTime { year: 2026, month, day, hour, minute: 0 };
        assert!(matches!(build_receipt(&sale, &s, false), Err(ReceiptError::BadDateTime { .. })), "{month}-{day} {hour}h");
    }
    for (year, valid) in [(2028, true), (2000, true), (2100, false)] {
        let mut sale = ja_sale();
        sale.issued_at = LocalDateTime { year, month: 2, day: 29, hour: 23, minute: 59 };
        // (2000 has no rates in the Japanese table: a tax error, but not a date error.)
        let bad_date = matches!(build_receipt(&sale, &s, false), Err(ReceiptError::BadDateTime { .. }));
        assert_eq!(!bad_date, valid, "{year}-02-29");
    }

    let mut sale = ja_sale();
    sale.lines[0].discount = Some(paydesk_tax::Discount::Amount { amount: 281 });
    assert_eq!(
        build_receipt(&sale, &s, false),
        Err(ReceiptError::Tax(TaxError::LineDiscountTooLarge { line: 0, discount: 281, gross: 280 }))
    );
}

#[test]
fn sale_data_and_the_receipt_travel_as_json() {
    let json = serde_json::to_string(&ja_sale()).unwrap();
    let back: SaleData = serde_json::from_str(&json).unwrap();
    assert_eq!(back, ja_sale());
    // A bad registration number in stored settings is refused on load, not printed.
    let bad = json.replace("T7000012050002", "T1000012050002");
    assert!(serde_json::from_str::<SaleData>(&bad).is_err());
    let r = build_receipt(&back, &inclusive(), false).unwrap();
    let again: Receipt = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
    assert_eq!(again, r);
}

fn visa() -> CardReceipt {
    CardReceipt {
        brand: Some("visa".into()),
        last4: Some("4242".into()),
        application_name: Some("Visa Credit".into()),
        aid: Some("A0000000031010".into()),
        authorization_response_code: Some("3030".into()),
        authorization_code: Some("123456".into()),
    }
}

/// A card read on a reader prints under its tender: brand and last 4, the chip's
/// application, AID, response and authorization codes, in both languages at both widths;
/// a keyed card (no details) prints only the tender line.
#[test]
fn a_card_present_tender_prints_its_card_lines() {
    for (mut sale, labels) in [(ja_sale(), ["AID", "応答コード", "承認番号"]), (en_sale(), ["AID", "ARC", "Auth code"])] {
        let total = build_receipt(&sale, &inclusive(), false).unwrap().total;
        sale.tenders = vec![Tender { kind: TenderKind::Card, amount: total, card: Some(visa()), store: None }];
        let r = build_receipt(&sale, &inclusive(), false).unwrap();
        for paper in [Paper::Mm58, Paper::Mm80] {
            let t = text(&r, paper);
            assert!(t.iter().any(|l| l.trim() == "Visa ****4242"), "{t:#?}");
            assert!(t.iter().any(|l| l.trim() == "Visa Credit"), "{t:#?}");
            for (label, value) in labels.iter().zip(["A0000000031010", "3030", "123456"]) {
                assert!(t.iter().any(|l| l.trim_start().starts_with(label) && l.ends_with(value)), "{label} {value}: {t:#?}");
            }
        }
        sale.tenders[0].card = None;
        let keyed = text(&build_receipt(&sale, &inclusive(), false).unwrap(), Paper::Mm80);
        assert!(!keyed.iter().any(|l| l.contains("****") || l.contains("AID")), "{keyed:#?}");
    }
}

/// The PSP's words reach the printer like the store's: a control character is refused
/// with the field that carried it.
#[test]
fn a_card_field_with_a_control_character_is_refused_with_its_field() {
    let mut sale = ja_sale();
    let mut card = visa();
    card.application_name = Some("Visa\u{1b}Credit".into());
    sale.tenders = vec![Tender { kind: TenderKind::Card, amount: 990, card: Some(card), store: None }];
    assert!(matches!(
        build_receipt(&sale, &inclusive(), false),
        Err(ReceiptError::BadText { field, .. }) if field == "tenders[0].card.application_name"
    ));
}

/// A tax-exempt sale (record 0135) says so with its reason in the store's language, and its
/// tax is nothing; a taxed sale never says it.
#[test]
fn an_exempt_sale_prints_its_reason_and_no_tax_in_both_languages() {
    let nyc = paydesk_tax::TaxSettings::new_york_city();
    let taxed = build_receipt(&en_sale(), &nyc, false).unwrap();
    assert!(taxed.tax_total > 0);
    let en = SaleData { tax_exempt_reason: Some("Diplomat card 12-345".into()), ..en_sale() };
    let r = build_receipt(&en, &nyc, false).unwrap();
    assert_eq!((r.tax_total, r.total), (0, r.subtotal));
    let t = text(&r, Paper::Mm58);
    assert!(t.iter().any(|l| l.contains("Tax exempt: Diplomat card 12-345")), "{t:#?}");
    assert!(t.iter().any(|l| l.starts_with("Tax ") && l.ends_with("$0.00")), "{t:#?}");
    assert!(!text(&taxed, Paper::Mm80).iter().any(|l| l.contains("Tax exempt:")));
    let ja = SaleData { tax_exempt_reason: Some("大使館 免税カード 0042".into()), ..ja_sale() };
    let r = build_receipt(&ja, &exclusive(), false).unwrap();
    assert_eq!(r.tax_total, 0);
    assert!(text(&r, Paper::Mm80).iter().any(|l| l.contains("免税: 大使館 免税カード 0042")));
    // The reason reaches the printer: never a command, never beyond the ledger's limit.
    for bad in ["\u{1b}@", "", &"x".repeat(201)] {
        let s = SaleData { tax_exempt_reason: Some(bad.to_string()), ..en_sale() };
        assert!(matches!(build_receipt(&s, &nyc, false), Err(ReceiptError::BadText { .. })), "{bad:?}");
    }
}
