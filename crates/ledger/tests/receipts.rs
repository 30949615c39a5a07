//! Receipts from the ledger (record 0058): the receipt of a paid sale carries its lines,
//! per-rate tax, tenders and change and the store's settings; it keeps the locked tax after
//! a settings change; every print is recorded and only the first is unmarked.

use paydesk_domain::Locale;
use paydesk_receipt::{build_receipt, render_text, Paper};
use paydesk_tax::{PriceMode, TaxClass};
use paydesk_domain::*;
use paydesk_ledger::*;

const DAY_MS: i64 = 1_796_083_200_000; // 2026-12-01 00:00 UTC = 09:00 in Tokyo

fn paid_ja_sale() -> (Ledger, CartId) {
    let mut l = Ledger::open_in_memory(Box::new(SeededKeys::new(4))).unwrap();
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
    let cart = l.carts_mut().create(Currency::Jpy, DAY_MS).unwrap();
    l.carts_mut().add(cart, "COF-001", 1, DAY_MS).unwrap(); // ¥250 reduced
    l.carts_mut().add(cart, "MUG-001", 1, DAY_MS).unwrap(); // ¥1,650 standard
    l.sales_mut().pay_cash(cart, 2000, None, DAY_MS + 60_000).unwrap();
    (l, cart)
}

#[test]
fn a_paid_sale_becomes_a_qualified_invoice_with_per_rate_tax_and_change() {
    let (l, cart) = paid_ja_sale();
    let (data, tax) = l.receipts().data(cart).unwrap();
    assert_eq!(data.language, Locale::Ja);
    assert_eq!(data.store.registration_number.as_ref().unwrap().as_str(), "T7000012050002");
    assert_eq!(data.lines[0].name, "ブレンドコーヒー");
    assert_eq!((data.issued_at.hour, data.issued_at.minute), (9, 1), "Tokyo time of the tender");
    let r = build_receipt(&data, &tax, false).unwrap();
    let rates: Vec<(TaxClass, i64, i64)> = r.rates.iter().map(|x| (x.class, x.gross, x.tax)).collect();
    assert_eq!(rates, vec![(TaxClass::Standard, 1650, 150), (TaxClass::Reduced, 250, 18)]);
    assert_eq!((r.total, r.paid, r.change), (1900, 2000, 100));
    assert_eq!(r.total, l.sales().by_cart(cart).unwrap().totals.total_minor, "the receipt's total is the sale's");
    let text = render_text(&r, Paper::Mm80).join("\n");
    assert!(text.contains('※'), "{text}");
}

#[test]
fn the_receipt_keeps_the_tax_the_sale_was_locked_with() {
    let (mut l, cart) = paid_ja_sale();
    let mut s = l.catalog().store_settings().unwrap();
    s.price_mode = PriceMode::Exclusive;
    l.catalog_mut().set_store_settings(s, None, DAY_MS + 2).unwrap();
    let (data, tax) = l.receipts().data(cart).unwrap();
    assert_eq!(tax.price_mode, PriceMode::Inclusive);
    assert_eq!(build_receipt(&data, &tax, false).unwrap().total, 1900);
}

/// record 0058: unmarked until a copy may have come out. A printer that was off printed
/// nothing, so the retry is still the original; once a copy printed (or stopped
/// part-way), every later one is a reprint.
#[test]
fn a_receipt_is_unmarked_until_a_copy_may_have_come_out_and_an_unpaid_sale_has_no_receipt() {
    let (mut l, cart) = paid_ja_sale();
    assert!(!l.receipts().next_print_is_reprint(cart).unwrap());
    let off = PrintOutcome::Failed { may_have_printed: false };
    let first = l.receipts_mut().record_print(cart, "escpos", "127.0.0.1:9100", off, Some("connection refused"), 5).unwrap();
    assert_eq!((first.print_no, first.reprint, first.paper), (1, false, false));
    assert!(!l.receipts().next_print_is_reprint(cart).unwrap(), "nothing came out: the retry is the original");
    let second = l.receipts_mut().record_print(cart, "escpos", "127.0.0.1:9100", PrintOutcome::Printed, None, 6).unwrap();
    assert_eq!((second.print_no, second.reprint), (2, false), "the one unmarked copy");
    assert!(l.receipts().next_print_is_reprint(cart).unwrap());
    let third = l.receipts_mut().record_print(cart, "escpos", "127.0.0.1:9100", off, Some("connection refused"), 7).unwrap();
    assert_eq!((third.print_no, third.reprint), (3, true));
    assert_eq!(l.receipts().prints(cart).unwrap().len(), 3);

    // A print that stopped part-way may have come out: the retry is a reprint.
    let (mut l2, cart2) = paid_ja_sale();
    let cut = PrintOutcome::Failed { may_have_printed: true };
    assert!(!l2.receipts_mut().record_print(cart2, "escpos", "127.0.0.1:9100", cut, Some("stopped"), 5).unwrap().reprint);
    assert!(l2.receipts().next_print_is_reprint(cart2).unwrap());
    assert!(l2.receipts_mut().record_print(cart2, "escpos", "127.0.0.1:9100", PrintOutcome::Printed, None, 6).unwrap().reprint);
    // The trigger holds the rule against a write that skips the ledger's code.
    let bad = l2.connection().execute(
        "INSERT INTO receipt_prints (cart_id, print_no, reprint, format, target, outcome, at_ms, paper)
         VALUES (?1, 9, 0, 'escpos', 'x', 'printed', 7, 1)",
        [cart2.0],
    );
    assert!(bad.is_err(), "a second unmarked copy is refused");
    assert_eq!(l.sales().by_cart(cart).unwrap().state, SaleState::Paid, "printing never touches the sale");

    let open = l.carts_mut().create(Currency::Jpy, DAY_MS).unwrap();
    l.carts_mut().add(open, "COF-001", 1, DAY_MS).unwrap();
    assert!(matches!(l.receipts().data(open), Err(Error::InvalidInput(_))));
}

/// Every paid sale is listed for its receipt (cash-only, card or split alike), newest
/// first, a page at a time; an open sale is not.
#[test]
fn paid_sales_are_listed_newest_first_a_page_at_a_time() {
    let (mut l, first) = paid_ja_sale();
    let second = l.carts_mut().create(Currency::Jpy, DAY_MS).unwrap();
    l.carts_mut().add(second, "COF-001", 1, DAY_MS).unwrap();
    l.sales_mut().pay_cash(second, 250, None, DAY_MS + 1).unwrap();
    let open = l.carts_mut().create(Currency::Jpy, DAY_MS).unwrap();
    l.carts_mut().add(open, "COF-001", 1, DAY_MS).unwrap();
    assert_eq!(l.receipts().paid_sales(None, 20).unwrap(), vec![second, first]);
    assert_eq!(l.receipts().paid_sales(None, 1).unwrap(), vec![second]);
    assert_eq!(l.receipts().paid_sales(Some(second), 20).unwrap(), vec![first]);
    assert!(l.receipts().paid_sales(Some(first), 20).unwrap().is_empty());
    assert!(matches!(l.receipts().paid_sales(None, 0), Err(Error::InvalidInput(_))));
    assert!(matches!(l.receipts().paid_sales(None, 101), Err(Error::InvalidInput(_))));
}

/// A sale paid at `at` in the en-US demo store, whose settings then name `zone` ("" keeps
/// the demo's).
fn en_sale_at(at: i64, zone: &str) -> (Ledger, CartId) {
    let mut l = Ledger::open_in_memory(Box::new(SeededKeys::new(4))).unwrap();
    l.catalog_mut().seed_demo_store(DemoLocale::EnUs, None, 1).unwrap();
    if !zone.is_empty() {
        let mut s = l.catalog().store_settings().unwrap();
        s.time_zone = zone.into();
        l.catalog_mut().set_store_settings(s, None, 2).unwrap();
    }
    let cart = l.carts_mut().create(Currency::Usd, at).unwrap();
    l.carts_mut().add(cart, "COF-001", 1, at).unwrap();
    l.sales_mut().pay_cash(cart, 1000, None, at).unwrap();
    (l, cart)
}

#[test]
fn receipts_tell_the_time_in_the_stores_zone_summer_time_included() {
    // The en-US demo cafe is in New York City (record 0131): 2026-12-01 00:00 UTC is 19:00
    // the day before there (EST, UTC-5); on 2026-07-01 00:00 UTC it is 20:00 (EDT, UTC-4).
    let (l, cart) = en_sale_at(DAY_MS, "");
    assert_eq!(l.catalog().store_settings().unwrap().time_zone, "America/New_York");
    let at = l.receipts().data(cart).unwrap().0.issued_at;
    assert_eq!((at.year, at.month, at.day, at.hour, at.minute), (2026, 11, 30, 19, 0));
    let july = 1_782_864_000_000; // 2026-07-01 00:00 UTC
    let (l, cart) = en_sale_at(july, "");
    assert_eq!(l.receipts().data(cart).unwrap().0.issued_at.hour, 20);

    // An owner who names another zone gets it on every receipt from then on.
    let (l, cart) = en_sale_at(DAY_MS, "America/Los_Angeles");
    let at = l.receipts().data(cart).unwrap().0.issued_at;
    assert_eq!((at.day, at.hour), (30, 16));
    // The Japanese demo store is in Tokyo.
    let (l, _) = paid_ja_sale();
    assert_eq!(l.catalog().store_settings().unwrap().time_zone, "Asia/Tokyo");
}

#[test]
fn a_zone_the_database_does_not_know_is_refused_and_nothing_changes() {
    let (mut l, _) = en_sale_at(DAY_MS, "");
    for bad in ["Mars/Olympus_Mons", "../../etc/passwd", "Asia/To kyo", &"A".repeat(65)] {
        let mut s = l.catalog().store_settings().unwrap();
        s.time_zone = bad.to_string();
        let e = l.catalog_mut().set_store_settings(s, None, 3).unwrap_err();
        assert!(matches!(e, Error::InvalidInput(ref m) if m.contains("time zone")), "{bad:?}: {e}");
    }
    assert_eq!(l.catalog().store_settings().unwrap().time_zone, "America/New_York");
    // Empty: the locale's own zone (the en locale's is Los Angeles, the demo cafe's is not).
    let mut s = l.catalog().store_settings().unwrap();
    s.time_zone = "Europe/London".into();
    assert_eq!(l.catalog_mut().set_store_settings(s, None, 4).unwrap().time_zone, "Europe/London");
    let mut s = l.catalog().store_settings().unwrap();
    s.time_zone = String::new();
    assert_eq!(l.catalog_mut().set_store_settings(s, None, 5).unwrap().time_zone, "America/Los_Angeles");
}

#[test]
fn the_stores_day_starts_at_its_own_midnight_summer_time_included() {
    // 2026-12-01 00:00 UTC is 19:00 on Nov 30 in New York (EST): its day began
    // 2026-11-30 05:00 UTC. In Tokyo it is 09:00 on Dec 1: the day began Nov 30 15:00 UTC.
    let (l, _) = en_sale_at(DAY_MS, "");
    let store = l.catalog().store_settings().unwrap();
    assert_eq!(store_day_start(DAY_MS, &store), DAY_MS - 19 * 3_600_000);
    let (l, _) = paid_ja_sale();
    let store = l.catalog().store_settings().unwrap();
    assert_eq!(store_day_start(DAY_MS, &store), DAY_MS - 9 * 3_600_000);
    // Idempotent: the start of the day that starts at a midnight is that midnight.
    assert_eq!(store_day_start(DAY_MS - 9 * 3_600_000, &store), DAY_MS - 9 * 3_600_000);
    // 2026-07-01 00:00 UTC is 20:00 on June 30 in New York (EDT, UTC-4).
    let july = 1_782_864_000_000;
    let (l, _) = en_sale_at(july, "");
    let store = l.catalog().store_settings().unwrap();
    assert_eq!(store_day_start(july, &store), july - 20 * 3_600_000);
    // A zone the database lost since it was saved: the locale's standard offset.
    let mut lost = store.clone();
    lost.time_zone = "Mars/Olympus_Mons".into();
    assert_eq!(store_day_start(DAY_MS, &lost), DAY_MS - 16 * 3_600_000);
}

/// A tender paid on a reader prints the card as the PSP's charge described it (brand, last 4,
/// the chip's application name, AID, response and authorization codes); cash prints none.
#[test]
fn a_reader_paid_tender_prints_the_psps_card_details_in_english_and_japanese() {
    for (locale, card_word) in [(DemoLocale::JaJp, "クレジット"), (DemoLocale::EnUs, "Card")] {
        let mut l = Ledger::open_in_memory(Box::new(SeededKeys::new(4))).unwrap();
        l.catalog_mut().seed_demo_store(locale, None, 1).unwrap();
        let currency = if locale == DemoLocale::JaJp { Currency::Jpy } else { Currency::Usd };
        let cart = l.carts_mut().create(currency, DAY_MS).unwrap();
        l.carts_mut().add(cart, "MUG-001", 1, DAY_MS).unwrap();
        let ct = l.card_readers_mut().open_tender(cart, None, "tmr_1", CaptureMethod::Automatic, None, DAY_MS + 1).unwrap();
        let BeginAttempt::New(_) = l.card_readers_mut().begin_attempt(ct.payment.id, "pi_1", &[], false, DAY_MS + 2).unwrap() else { panic!("attempt") };
        let details = CardPresentDetails {
            brand: Some("visa".into()),
            last4: Some("4242".into()),
            application_preferred_name: Some("Visa Credit".into()),
            dedicated_file_name: Some("A0000000031010".into()),
            authorization_response_code: Some("3030".into()),
            authorization_code: Some("123456".into()),
            ..Default::default()
        };
        let paid = ReaderSettlement {
            to: Some(PaymentState::Captured),
            attempt: Some((1, ReaderAttemptOutcome::Succeeded, None, None)),
            details: Some(details),
            note: "paid".into(),
        };
        l.card_readers_mut().settle(ct.payment.id, &paid, DAY_MS + 3).unwrap();
        let (data, tax) = l.receipts().data(cart).unwrap();
        let card = data.tenders[0].card.clone().expect("the reader tender carries the card");
        assert_eq!(card.number_line().as_deref(), Some("Visa ****4242"));
        let text = render_text(&build_receipt(&data, &tax, false).unwrap(), Paper::Mm80).join("\n");
        for want in [card_word, "Visa ****4242", "Visa Credit", "A0000000031010", "3030", "123456"] {
            assert!(text.contains(want), "{want} missing from\n{text}");
        }
        assert!(!text.contains("pm_card"), "never a token's name");
    }
    // Cash prints no card lines.
    let (l, cart) = paid_ja_sale();
    let (data, _) = l.receipts().data(cart).unwrap();
    assert!(data.tenders.iter().all(|t| t.card.is_none()));
}
