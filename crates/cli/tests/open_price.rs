//! `paydesk-cli cart add-open` (issue #30, record 0126) through the real binary and the
//! real mock PSP, in a ja-JP store: the food department key rung at ¥300 and ¥500 is two
//! lines of one sale; ¥12,000 is above the store's ¥10,000 limit, refused until a manager
//! allows it (a cashier's own word is not enough); typed refusals for a fixed-price item
//! and an absurd price; paid by card, the receipt lists both food lines, and a return
//! names the ¥500 line.

use crate::common;
use common::*;

async fn cli(db: &std::path::Path, url: &str, args: &[&str]) -> Run {
    run(db, url, &[], args).await
}

/// `cart add-open` of `sku` at `price` with `extra` flags and `stdin` (PINs).
async fn ring(db: &std::path::Path, url: &str, cart: &str, sku: &str, price: &str, extra: &[&str], stdin: &str) -> Run {
    let mut a = vec!["cart", "add-open", "--cart", cart, "--sku", sku, "--price", price, "--json"];
    a.extend_from_slice(extra);
    run_stdin(db, url, &a, stdin).await
}

fn err(r: &Run) -> (Option<i32>, Option<String>) {
    (r.code, r.json()["error"]["code"].as_str().map(str::to_string))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_department_key_rung_twice_is_two_lines_and_above_the_limit_needs_a_manager() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let (db, url) = (dir.path().join("r.db"), psp.url());
    assert_eq!(cli(&db, &url, &["store", "seed", "--locale", "ja-JP"]).await.code, Some(0));
    for (name, role, stdin) in [("Aiko", "owner", "1357\n"), ("Mori", "manager", "2468\n1357\n"), ("Ken", "cashier", "3579\n1357\n")] {
        let mut a = vec!["staff", "add", "--name", name, "--role", role];
        if role != "owner" {
            a.extend(["--by", "Aiko"]);
        }
        let r = run_stdin(&db, &url, &a, stdin).await;
        assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    }
    let made = cli(&db, &url, &["cart", "new", "--currency", "jpy"]).await;
    assert_eq!(made.code, Some(0), "{}{}", made.stdout, made.stderr);
    let cart = made.json()["cart_id"].as_i64().unwrap().to_string();

    let r = ring(&db, &url, &cart, "DEPT-FOOD", "300", &[], "").await;
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    assert_eq!(r.json()["line_no"].as_i64(), Some(1));
    let r = ring(&db, &url, &cart, "DEPT-FOOD", "500", &[], "").await;
    assert_eq!((r.json()["line_no"].as_i64(), r.json()["total"].as_i64()), (Some(2), Some(800)), "{}", r.stdout);
    let lines: Vec<(i64, i64, String)> = r.json()["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["line_no"].as_i64().unwrap(), l["unit_price"].as_i64().unwrap(), l["price_source"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(lines, [(1, 300, "open".to_string()), (2, 500, "open".to_string())]);

    // Above the ¥10,000 limit: nobody, a cashier alone, a wrong PIN, then a manager's approval.
    let r = ring(&db, &url, &cart, "DEPT-FOOD", "12000", &[], "").await;
    assert_eq!(err(&r), (Some(1), Some("approval_required".into())), "{}", r.stdout);
    let r = ring(&db, &url, &cart, "DEPT-FOOD", "12000", &["--by", "Ken"], "3579\n").await;
    assert_eq!(err(&r), (Some(1), Some("not_allowed".into())), "{}", r.stdout);
    let r = ring(&db, &url, &cart, "DEPT-FOOD", "12000", &["--by", "Ken", "--approver", "Mori"], "3579\n0000\n").await;
    assert_eq!(err(&r), (Some(1), Some("wrong_pin".into())), "{}", r.stdout);
    let r = ring(&db, &url, &cart, "DEPT-FOOD", "12000", &["--by", "Ken", "--approver", "Mori"], "3579\n2468\n").await;
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    assert_eq!((r.json()["line_no"].as_i64(), r.json()["total"].as_i64()), (Some(3), Some(12_800)));
    let audit = cli(&db, &url, &["audit"]).await;
    let approvals: Vec<serde_json::Value> = audit.lines().into_iter().filter(|a| a["action"] == "open_price_above_limit").collect();
    assert_eq!(approvals.len(), 1, "{}", audit.stdout);
    assert!(approvals[0].to_string().contains("12000"), "{}", approvals[0]);

    // Typed refusals, nothing written.
    let r = ring(&db, &url, &cart, "COF-001", "100", &[], "").await;
    assert_eq!(err(&r), (Some(1), Some("fixed_price_item".into())), "{}", r.stdout);
    for bad in ["0", "-5", "99999999999999"] {
        let r = ring(&db, &url, &cart, "DEPT-FOOD", bad, &[], "").await;
        assert_eq!(err(&r), (Some(1), Some("price_out_of_range".into())), "{bad}: {}", r.stdout);
    }
    let r = cli(&db, &url, &["sale", "new", "--currency", "jpy", "--item", "DEPT-FOOD"]).await;
    assert_eq!(r.code, Some(1), "a department key is not rung without its price: {}", r.stdout);
    // The ¥12,000 line goes again (by its number); two food lines are left.
    let r = cli(&db, &url, &["cart", "set-line", "--cart", &cart, "--line", "3", "--quantity", "0", "--json"]).await;
    assert_eq!(r.json()["total"].as_i64(), Some(800), "{}", r.stdout);

    // Paid by card at the mock PSP (in Ken's shift); the receipt lists both food lines.
    let r = run_stdin(&db, &url, &["shift", "open", "--by", "Ken", "--float", "1000x10"], "3579\n").await;
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    let paid = cli(&db, &url, &["sale", "card", "--cart", &cart]).await;
    assert_eq!(paid.code, Some(0), "{}{}", paid.stdout, paid.stderr);
    let text = cli(&db, &url, &["receipt", "--cart", &cart, "--format", "text"]).await.stdout;
    assert_eq!(text.matches("食品 8%").count(), 2, "{text}");
    assert!(text.contains("300") && text.contains("500"), "{text}");

    // A return names the ¥500 line (place 1); it cannot come back twice.
    let r = cli(&db, &url, &["sale", "return", "--cart", &cart, "--line", "1:1", "--json"]).await;
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    assert_eq!(r.json()["return"]["total_minor"].as_i64(), Some(500), "{}", r.stdout);
    let r = cli(&db, &url, &["sale", "return", "--cart", &cart, "--line", "1:1", "--json"]).await;
    assert_eq!(err(&r), (Some(1), Some("return_exceeds_sold".into())), "{}", r.stdout);
    assert_ledger_equals_psp(&db, &psp).await;
}
