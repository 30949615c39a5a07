//! The return document (返品伝票 / 適格返還請求書, issue #29, record 0114): the elements a
//! return invoice must state — the original sale's date and receipt number, the lines with
//! ※ on the reduced-rate ones, the amount given back and its tax per rate, the store's
//! registration number — and its text and ESC/POS (Shift_JIS) renderings agreeing.

use crate::common::*;
use paydesk_domain::{Currency, Locale};
use paydesk_receipt::return_doc::{render_return_escpos, render_return_text, ReturnDocLine, ReturnDocument};
use paydesk_receipt::test_printer::parse_escpos;
use paydesk_receipt::*;
use paydesk_tax::TaxClass;
use unicode_width::UnicodeWidthStr;

fn doc() -> ReturnDocument {
    ReturnDocument {
        language: Locale::Ja,
        currency: Currency::Jpy,
        store: ja_store(),
        number: "000042-R1".into(),
        returned_at: LocalDateTime { year: 2026, month: 12, day: 3, hour: 10, minute: 15 },
        sale_receipt_no: "000042".into(),
        sale_at: at(),
        lines: vec![
            ReturnDocLine { name: "おにぎり 鮭".into(), quantity: 2, amount: 324, reduced: true },
            ReturnDocLine { name: "週刊誌".into(), quantity: 1, amount: 550, reduced: false },
        ],
        rates: vec![
            ReceiptRate { class: TaxClass::Standard, ppm: 100_000, parts: vec![], base: 500, tax: 50, gross: 550 },
            ReceiptRate { class: TaxClass::Reduced, ppm: 80_000, parts: vec![], base: 300, tax: 24, gross: 324 },
        ],
        total: 874,
        card: 600,
        cash: 274,
        store_tenders: 0,
        exchange: None,
        reprint: false,
        from_register: None,
    }
}

#[test]
fn a_reprint_is_marked_under_the_title_and_the_original_is_not() {
    for (language, mark) in [(Locale::Ja, "再発行"), (Locale::En, "REPRINT")] {
        let original = ReturnDocument { language, ..doc() };
        let text = render_return_text(&original, Paper::Mm80).join("\n");
        assert!(!text.contains(mark), "{text}");
        let copy = ReturnDocument { reprint: true, ..original };
        let lines = render_return_text(&copy, Paper::Mm80);
        assert!(lines[1].contains(mark), "{lines:?}");
    }
}

#[test]
fn it_states_the_original_sale_the_marked_lines_and_the_tax_back_per_rate() {
    let d = doc();
    for paper in [Paper::Mm58, Paper::Mm80] {
        let rows = render_return_text(&d, paper);
        for row in &rows {
            assert_eq!(row.width_cjk(), paper.columns(), "{row:?}");
        }
        let text = rows.join("\n");
        for needle in ["返品伝票", "適格返還請求書", "000042-R1", "2026年12月01日", "元のレシート番号 000042", "※おにぎり 鮭 ×2", "週刊誌 ×1", "10%対象", "8%対象", "T7000012050002"] {
            assert!(text.contains(needle), "{needle} missing:\n{text}");
        }
        assert!(!text.contains("※週刊誌"), "a standard-rate line has no ※:\n{text}");
        let amount_of = |label: &str| rows.iter().find(|r| r.contains(label)).map(|r| r.split_whitespace().last().unwrap().to_string());
        assert_eq!(amount_of("返金額").as_deref(), Some("¥874"), "{text}");
        assert_eq!(amount_of("クレジットカードへ返金").as_deref(), Some("¥600"), "{text}");
        assert_eq!(amount_of("現金で返金").as_deref(), Some("¥274"), "{text}");
        let tax_rows: Vec<&String> = rows.iter().filter(|r| r.contains("内消費税")).collect();
        assert_eq!(tax_rows.len(), 2, "{text}");
        assert!(tax_rows[0].ends_with("¥50") && tax_rows[1].ends_with("¥24"), "{text}");
    }
}

#[test]
fn the_printer_reads_the_same_rows_in_kanji_mode_and_no_drawer_opens() {
    let d = doc();
    let printed = parse_escpos(&render_return_escpos(&d, Paper::Mm80)).unwrap();
    assert!(printed.kanji, "Shift_JIS kanji mode");
    assert_eq!((printed.cuts, printed.kicks.len()), (1, 0));
    let texts: Vec<String> = printed.texts().iter().map(|t| t.trim().to_string()).collect();
    let rows: Vec<String> = render_return_text(&d, Paper::Mm80).iter().map(|t| t.trim().to_string()).collect();
    assert_eq!(texts, rows);
    // An English store prints the same document in its words, without ※ lines.
    let en = ReturnDocument { language: Locale::En, currency: Currency::Usd, lines: vec![ReturnDocLine { reduced: false, ..doc().lines[1].clone() }], ..doc() };
    let text = render_return_text(&en, Paper::Mm80).join("\n");
    assert!(text.contains("RETURN") && text.contains("Original sale") && !text.contains('※'), "{text}");
}

#[test]
fn an_exchange_prints_what_paid_the_new_sale_beside_what_came_back() {
    // 874 back: 300 to the card, 574 paid sale 000043 (record 0123).
    let d = ReturnDocument { card: 300, cash: 0, exchange: Some(("000043".into(), 574)), ..doc() };
    let ja = render_return_text(&d, Paper::Mm80).join("\n");
    assert!(ja.contains("お買上げ 000043 に充当") && ja.contains("¥574") && ja.contains("¥300"), "{ja}");
    assert!(ja.contains("返品金額") && !ja.contains("返金額") && !ja.contains("現金で返金"), "not all of it was refunded: {ja}");
    let en = render_return_text(&ReturnDocument { language: Locale::En, currency: Currency::Usd, store_tenders: 100, ..d }, Paper::Mm80).join("\n");
    assert!(en.contains("Applied to sale 000043") && en.contains("$5.74") && en.contains("Back as store tender"), "{en}");
    assert!(en.contains("Value returned") && !en.contains("Refunded"), "{en}");
}

/// A return of a sale restored from a replaced register (record 0144) names that register
/// under the original receipt number; a normal return's document does not.
#[test]
fn a_restored_sales_return_names_the_register_that_sold_it() {
    let d = ReturnDocument { from_register: Some("レジ1".into()), ..doc() };
    let text = render_return_text(&d, Paper::Mm80).join("\n");
    assert!(text.contains("元のレシート番号 000042"), "{text}");
    assert!(text.contains("旧レジ レジ1 の取引"), "{text}");
    assert!(!render_return_text(&doc(), Paper::Mm80).join("\n").contains("旧レジ"));
    let en = render_return_text(&ReturnDocument { language: Locale::En, currency: Currency::Usd, from_register: Some("Till 1".into()), ..doc() }, Paper::Mm80).join("\n");
    assert!(en.contains("From register Till 1"), "{en}");
}
