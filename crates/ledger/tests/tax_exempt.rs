//! A tax-exempt sale (record 0135): set and cleared before any tender, by a manager or with
//! one's approval where staff sign in, audited with its reason; refused once tendered, paid,
//! in a store that does not take exemptions, or for a bad reason. The exempt sale is paid
//! untaxed, its receipt says why, its fact carries the reason, and a return refunds no tax.
//! And the upgrade from the version before.

use crate::common::{self, before_tax_exempt};
use paydesk_access::pin::Pin;
use paydesk_access::{Authorization, Role};
use paydesk_domain::*;
use paydesk_ledger::*;
use paydesk_receipt::{build_receipt, render_text, Paper};
use paydesk_tax::TaxClass;

const AT: i64 = 1_796_083_200_000; // 2026-12-01 00:00 UTC
const REASON: &str = "Resale certificate ST-120 #4471";

/// An en-US demo store (New York City, 8.875 %) and a cart of a coffee $2.50 and an egg
/// sandwich $6.95: 945 taxed 84 → $10.29; exempt $9.45.
fn cafe() -> (Ledger, CartId) {
    let mut l = common::mem();
    l.catalog_mut().seed_demo_store(DemoLocale::EnUs, None, AT).unwrap();
    let cart = l.carts_mut().create(Currency::Usd, AT).unwrap();
    l.carts_mut().add(cart, "COF-001", 1, AT).unwrap();
    l.carts_mut().add(cart, "SAN-001", 1, AT).unwrap();
    (l, cart)
}

fn why(e: Error) -> ExemptRefusal {
    match e {
        Error::TaxExemptRefused { why, .. } => why,
        other => panic!("expected a tax exemption refusal, got {other:?}"),
    }
}

/// An audit row: actor, approver, action, subject, reason.
type AuditRow = (Option<i64>, Option<i64>, String, String, Option<String>);

fn audit_rows(l: &Ledger) -> Vec<AuditRow> {
    let mut st = l
        .connection()
        .prepare("SELECT actor_id, approver_id, action, subject, reason FROM audit_log WHERE action LIKE 'tax_exempt%' ORDER BY id")
        .unwrap();
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))).unwrap().map(Result::unwrap).collect()
}

#[test]
fn an_exempt_sale_is_paid_untaxed_and_says_why_on_the_receipt_and_to_the_back_office() {
    let (mut l, cart) = cafe();
    assert_eq!(l.carts().by_id(cart).unwrap().total.amount_minor, 1029);
    let c = l.carts_mut().set_tax_exempt(cart, Some(&format!("  {REASON} \n")), None, AT + 1).unwrap();
    assert_eq!(c.tax_exempt_reason.as_deref(), Some(REASON), "kept trimmed");
    let tax = c.tax.as_ref().unwrap();
    assert!(tax.exempt);
    assert_eq!((tax.subtotal, tax.tax_total, tax.total, c.total.amount_minor), (945, 0, 945, 945));
    assert!(tax.rates.iter().all(|r| r.class == TaxClass::Exempt && r.tax == 0));
    // Cleared, it is taxed again; set again, exempt.
    assert_eq!(l.carts_mut().set_tax_exempt(cart, None, None, AT + 2).unwrap().total.amount_minor, 1029);
    l.carts_mut().set_tax_exempt(cart, Some(REASON), None, AT + 3).unwrap();
    let paid = l.sales_mut().pay_cash(cart, 1000, None, AT + 4).unwrap();
    assert_eq!((paid.sale.state, paid.split.change_minor), (SaleState::Paid, 55));

    let (data, settings) = l.receipts().data(cart).unwrap();
    let text = render_text(&build_receipt(&data, &settings, false).unwrap(), Paper::Mm80).join("\n");
    for want in [&format!("Tax exempt: {REASON}") as &str, "$9.45", "$0.00"] {
        assert!(text.contains(want), "{want:?} not on the receipt:\n{text}");
    }
    assert!(!text.contains("8.875"), "{text}");
    let fact: String = l
        .connection()
        .query_row("SELECT fact FROM outbox WHERE json_extract(fact, '$.kind') = 'sale_completed'", [], |r| r.get(0))
        .unwrap();
    assert!(fact.ends_with(&format!(r#""tax_exempt_reason":"{REASON}"}}"#)), "{fact}");
    assert!(fact.contains(r#""tax_total":0,"total":945"#), "{fact}");

    // A return of the sandwich gives back its price and no tax: the locked document says exempt.
    let plan = l.returns_mut().take_back(cart, &[paydesk_tax::Returned { line: 1, quantity: 1 }], None, false, AT + 10).unwrap();
    assert_eq!((plan.record.total_minor, plan.record.tax_minor), (695, 0));
    // Every change was audited with the sale and the reason; nobody is named on a register without staff.
    let rows = audit_rows(&l);
    let actions: Vec<_> = rows.iter().map(|r| (r.2.as_str(), r.3.as_str(), r.4.as_deref())).collect();
    let subject = format!("cart:{}", cart.0);
    assert_eq!(
        actions,
        [("tax_exempt_set", subject.as_str(), Some(REASON)), ("tax_exempt_clear", subject.as_str(), Some(REASON)), ("tax_exempt_set", subject.as_str(), Some(REASON))]
    );
    assert!(l.audit().verify(None).unwrap().is_intact());
}

#[test]
fn refused_after_a_tender_on_a_paid_sale_for_a_bad_reason_and_where_the_store_does_not_allow_it() {
    let (mut l, cart) = cafe();
    for bad in ["", "  ab  ", "bad\u{7}reason", &"x".repeat(201)] {
        assert_eq!(why(l.carts_mut().set_tax_exempt(cart, Some(bad), None, AT + 1).unwrap_err()), ExemptRefusal::Reason, "{bad:?}");
    }
    l.carts_mut().set_tax_exempt(cart, Some(&"x".repeat(200)), None, AT + 1).unwrap();
    l.carts_mut().set_tax_exempt(cart, Some("abc"), None, AT + 1).unwrap();
    // A first tender locks the exempt figures; nothing changes them since.
    l.sales_mut().pay_cash(cart, 500, None, AT + 2).unwrap();
    assert_eq!(why(l.carts_mut().set_tax_exempt(cart, None, None, AT + 3).unwrap_err()), ExemptRefusal::Tendered);
    assert_eq!(why(l.carts_mut().set_tax_exempt(cart, Some(REASON), None, AT + 3).unwrap_err()), ExemptRefusal::Tendered);
    // The schema is the last word: a plain UPDATE is refused too.
    let e = l.connection().execute("UPDATE carts SET tax_exempt_reason = NULL WHERE id = ?1", [cart.0]).unwrap_err();
    assert!(e.to_string().contains("changes only while nothing is tendered"), "{e}");
    l.sales_mut().pay_cash(cart, 445, None, AT + 4).unwrap();
    assert_eq!(l.sales().by_cart(cart).unwrap().state, SaleState::Paid);
    assert_eq!(why(l.carts_mut().set_tax_exempt(cart, None, None, AT + 5).unwrap_err()), ExemptRefusal::Paid);
    assert_eq!(l.carts().by_id(cart).unwrap().tax_exempt_reason.as_deref(), Some("abc"));

    // Japan's 免税 is another regime: off by default there, and a store may turn it off or on.
    let mut ja = common::mem();
    ja.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, AT).unwrap();
    assert!(!ja.catalog().tax_exemptions_allowed().unwrap());
    let c = ja.carts_mut().create(Currency::Jpy, AT).unwrap();
    ja.carts_mut().add(c, "COF-001", 1, AT).unwrap();
    assert_eq!(why(ja.carts_mut().set_tax_exempt(c, Some(REASON), None, AT).unwrap_err()), ExemptRefusal::NotAllowed);
    ja.catalog_mut().set_tax_exemptions(Some(true), None, AT).unwrap();
    ja.carts_mut().set_tax_exempt(c, Some(REASON), None, AT).unwrap();
    assert!(l.catalog().tax_exemptions_allowed().unwrap());
    l.catalog_mut().set_tax_exemptions(Some(false), None, AT).unwrap();
    let other = l.carts_mut().create(Currency::Usd, AT).unwrap();
    assert_eq!(why(l.carts_mut().set_tax_exempt(other, Some(REASON), None, AT).unwrap_err()), ExemptRefusal::NotAllowed);
}

#[test]
fn where_staff_sign_in_a_cashier_needs_a_managers_approval_and_both_are_audited() {
    let (mut l, cart) = cafe();
    let pin = |s: &str| Pin::parse(s).unwrap();
    let owner = l.roster_mut().add("Olivia", Role::Owner, &pin("1111"), None, AT).unwrap().id;
    let manager = l.roster_mut().add("Marcus", Role::Manager, &pin("2222"), Some(owner), AT).unwrap().id;
    let cashier = l.roster_mut().add("Casey", Role::Cashier, &pin("3333"), Some(owner), AT).unwrap().id;
    assert!(matches!(l.carts_mut().set_tax_exempt(cart, Some(REASON), None, AT).unwrap_err(), Error::NotSignedIn));
    let policy = paydesk_access::lockout::LockoutPolicy::default();
    l.roster_mut().sign_in("Casey", &pin("3333"), policy, AT).unwrap();
    let e = l.carts_mut().set_tax_exempt(cart, Some(REASON), None, AT + 1).unwrap_err();
    assert!(
        matches!(e, Error::NotAllowed { action: "tax_exempt", authorization: Authorization::NeedsApproval { min_role: Role::Manager } }),
        "{e:?}"
    );
    assert!(matches!(l.carts_mut().set_tax_exempt(cart, Some(REASON), Some(cashier), AT + 1).unwrap_err(), Error::NotAllowed { .. }));
    assert_eq!(l.carts().by_id(cart).unwrap().tax_exempt_reason, None, "nothing written");
    l.carts_mut().set_tax_exempt(cart, Some(REASON), Some(manager), AT + 2).unwrap();
    // Clearing is gated the same way.
    assert!(matches!(l.carts_mut().set_tax_exempt(cart, None, None, AT + 3).unwrap_err(), Error::NotAllowed { .. }));
    l.roster_mut().sign_in("Marcus", &pin("2222"), policy, AT + 4).unwrap();
    l.carts_mut().set_tax_exempt(cart, None, None, AT + 5).unwrap();
    let rows = audit_rows(&l);
    assert_eq!(rows.len(), 2);
    assert_eq!((rows[0].0, rows[0].1, rows[0].2.as_str(), rows[0].4.as_deref()), (Some(cashier), Some(manager), "tax_exempt_set", Some(REASON)));
    assert_eq!((rows[1].0, rows[1].1, rows[1].2.as_str()), (Some(manager), None, "tax_exempt_clear"));
    // A store setting is the owner's.
    assert!(matches!(l.catalog_mut().set_tax_exemptions(Some(false), None, AT + 6).unwrap_err(), Error::NotAllowed { .. }));
    // With the owner's approval (record 0136: the Settings screen asks for it), audited with both.
    assert!(matches!(l.catalog_mut().set_tax_exemptions(Some(false), Some(cashier), AT + 6).unwrap_err(), Error::NotAllowed { .. }));
    l.catalog_mut().set_tax_exemptions(Some(false), Some(owner), AT + 7).unwrap();
    assert!(!l.catalog().tax_exemptions_allowed().unwrap());
    let who: (Option<i64>, Option<i64>) = l
        .connection()
        .query_row("SELECT actor_id, approver_id FROM audit_log WHERE action = 'store_tax_exemptions'", [], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    assert_eq!(who, (Some(manager), Some(owner)));
}

#[test]
fn the_upgrade_adds_the_exemption_and_earlier_sales_read_and_pay_as_before() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("before.db");
    let (paid, open, receipt_before, fact_before) = {
        let (mut l, open) = {
            let mut l = Ledger::open(&path).unwrap();
            l.catalog_mut().seed_demo_store(DemoLocale::EnUs, None, AT).unwrap();
            let c = l.carts_mut().create(Currency::Usd, AT).unwrap();
            l.carts_mut().add(c, "COF-001", 1, AT).unwrap();
            (l, c)
        };
        let paid = l.carts_mut().create(Currency::Usd, AT).unwrap();
        l.carts_mut().add(paid, "SAN-001", 2, AT).unwrap();
        l.sales_mut().pay_cash(paid, 2000, None, AT + 1).unwrap();
        let (data, settings) = l.receipts().data(paid).unwrap();
        let text = render_text(&build_receipt(&data, &settings, false).unwrap(), Paper::Mm80);
        let fact: String = l.connection().query_row("SELECT fact FROM sale_completed_facts WHERE cart_id = ?1", [paid.0], |r| r.get(0)).unwrap();
        (paid, open, text, fact)
    };
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        common::undo_tax_exempt(&c);
        c.execute_batch(&format!("PRAGMA user_version = {};", before_tax_exempt())).unwrap();
        let fact: String = c.query_row("SELECT fact FROM sale_completed_facts WHERE cart_id = ?1", [paid.0], |r| r.get(0)).unwrap();
        assert_eq!(fact, fact_before, "a taxed sale's fact is the same text before and after");
    }
    let mut l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), paydesk_ledger::schema::SCHEMA_VERSION, "upgraded through the exemption and on");
    let (data, settings) = l.receipts().data(paid).unwrap();
    assert_eq!(render_text(&build_receipt(&data, &settings, false).unwrap(), Paper::Mm80), receipt_before);
    let fact: String = l.connection().query_row("SELECT fact FROM sale_completed_facts WHERE cart_id = ?1", [paid.0], |r| r.get(0)).unwrap();
    assert_eq!(fact, fact_before);
    // The en-US store takes exemptions by its locale's default; the open cart is made exempt and paid.
    assert!(l.catalog().tax_exemptions_allowed().unwrap());
    assert_eq!(l.carts_mut().set_tax_exempt(open, Some(REASON), None, AT + 5).unwrap().total.amount_minor, 250);
    l.sales_mut().pay_cash(open, 250, None, AT + 6).unwrap();
    assert!(l.audit().verify(None).unwrap().is_intact());
}

#[test]
fn the_takings_list_tax_by_rate_and_the_exempt_sales_apart_and_still_add_up() {
    let (mut l, exempt) = cafe();
    l.carts_mut().set_tax_exempt(exempt, Some(REASON), None, AT + 1).unwrap();
    l.sales_mut().pay_cash(exempt, 1000, None, AT + 2).unwrap(); // $9.45, $0.55 change
    // A taxed sale: two coffees and a bagel (grocery food, 0 %): 500 × 8.875 % = 44.4 → 44.
    let taxed = l.carts_mut().create(Currency::Usd, AT + 3).unwrap();
    l.carts_mut().add(taxed, "COF-001", 2, AT + 3).unwrap();
    l.carts_mut().add(taxed, "BAG-001", 1, AT + 3).unwrap();
    let total = l.carts().by_id(taxed).unwrap().total.amount_minor;
    assert_eq!(total, 500 + 44 + 275);
    l.sales_mut().pay_cash(taxed, total, None, AT + 4).unwrap();
    // The sandwich of the exempt sale comes back: $6.95 and no tax.
    l.returns_mut().take_back(exempt, &[paydesk_tax::Returned { line: 1, quantity: 1 }], None, false, AT + 5).unwrap();

    let (k, _) = l.sales().takings(Currency::Usd, Period::Since(AT)).unwrap();
    assert_eq!((k.sale_count, k.exempt_sale_count, k.exempt_minor), (2, 1, 945));
    let rates: Vec<_> = k.tax_rates.iter().map(|r| (r.class, r.ppm, r.base_minor, r.tax_minor)).collect();
    assert_eq!(rates, [(TaxClass::Standard, 88_750, 500, 44), (TaxClass::Reduced, 0, 275, 0), (TaxClass::Exempt, 0, 945, 0)]);
    let parts: Vec<_> = k.tax_rates[0].parts.iter().map(|p| (p.0.as_str(), p.2)).collect();
    assert_eq!(parts, [("NY State", 20), ("New York City", 22), ("MCTD", 2)]);
    // Money in less money out is sales less returns, with an exempt sale in the mix.
    let gross: i64 = k.tax_rates.iter().map(|r| r.gross_minor).sum();
    assert_eq!(gross, k.sales_minor, "every counted sale's total is in one rate line");
    assert_eq!((k.sales_minor, k.refunds_minor, k.net_minor), (945 + 819, 695, 945 + 819 - 695));
    let drawer: i64 = l.connection().query_row("SELECT SUM(amount_minor) FROM cash_movements", [], |r| r.get(0)).unwrap();
    assert_eq!(drawer, k.net_minor, "the drawer took in what the sales less the return came to");
}
