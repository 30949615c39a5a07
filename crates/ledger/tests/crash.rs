//! Real process, real SIGKILL (record 0023 crash tests).
//!
//! The test binary re-executes itself as the child (selected by an environment
//! variable), so no extra binary has to be found. The child commits through the ledger,
//! reports each commit on stdout only after `commit()` returned, then opens a large
//! transaction (big enough to spill uncommitted pages into the WAL), says READY and
//! blocks on stdin. The parent kills it with SIGKILL and reopens the file.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};

use paydesk_domain::*;
use paydesk_ledger::*;

const CHILD_ENV: &str = "PAYDESK_LEDGER_CRASH_CHILD";
const COMMITTED: usize = 40;
const PARTIAL_ROWS: usize = 3000;

fn child(path: &str) -> ! {
    let mut l = Ledger::open_with_keys(path, Box::new(RandomKeys)).unwrap();
    l.carts_mut().seed_catalog(&[NewProduct { sku: "P".into(), name: "P".into(), price: Money::new(250, Currency::Usd) }]).unwrap();
    let out = std::io::stdout();
    for i in 0..COMMITTED as i64 {
        // Checkout = payment row + timeline row + cart lock, one transaction.
        let cart = l.carts_mut().create(Currency::Usd, i).unwrap();
        l.carts_mut().add(cart, "P", 1 + i, i).unwrap();
        let co = l.payments_mut().open_checkout(cart, &CheckoutOptions::card("pm_card_visa"), i).unwrap();
        let mut o = out.lock();
        writeln!(o, "COMMITTED {}", co.payment.idempotency_key).unwrap();
        o.flush().unwrap();
    }
    // The transaction that never commits.
    let c = l.connection();
    c.execute_batch("BEGIN IMMEDIATE").unwrap();
    let filler = "x".repeat(2000);
    for i in 0..PARTIAL_ROWS {
        c.execute(
            "INSERT INTO payments (idempotency_key, amount_minor, currency, state, capture_method, request_params,
                 created_at_ms, updated_at_ms) VALUES (?1, 1, 'usd', 'created', 'automatic', json_array(?2), 0, 0)",
            rusqlite::params![format!("partial-{i}"), filler],
        )
        .unwrap();
    }
    c.execute("UPDATE carts SET state = 'paid'", []).unwrap();
    {
        let mut o = out.lock();
        writeln!(o, "READY").unwrap();
        o.flush().unwrap();
    }
    // Block until killed; the parent holds our stdin open.
    let mut sink = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut sink);
    std::process::exit(3);
}

#[test]
fn sigkill_mid_transaction_keeps_every_committed_row_and_no_partial_one() {
    if let Ok(path) = std::env::var(CHILD_ENV) {
        child(&path);
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crash.db");
    let exe = std::env::current_exe().unwrap();
    let mut proc = Command::new(exe)
        .args(["crash::sigkill_mid_transaction_keeps_every_committed_row_and_no_partial_one", "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, &path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut committed = Vec::new();
    let mut ready = false;
    for line in BufReader::new(proc.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        // libtest may print "test name ... " on the same line before our first output.
        if let Some(at) = line.find("COMMITTED ") {
            committed.push(line[at + "COMMITTED ".len()..].trim().to_string());
        } else if line.ends_with("READY") {
            ready = true;
            break;
        }
    }
    assert!(ready, "child never reached the open transaction");
    let wal = std::path::PathBuf::from(format!("{}-wal", path.display()));
    let wal_len = std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0);
    // SAFETY: plain kill(2) on the pid of the child we spawned.
    let rc = unsafe { libc::kill(proc.id() as libc::pid_t, libc::SIGKILL) };
    assert_eq!(rc, 0);
    let status = proc.wait().unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(libc::SIGKILL), "child must die by SIGKILL, not exit: {status:?}");
    assert_eq!(committed.len(), COMMITTED);
    assert!(wal_len > 4 * 1024 * 1024, "uncommitted pages should have spilled into the WAL ({wal_len} bytes)");

    let l = Ledger::open(&path).unwrap();
    let ok: String = l.connection().query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(ok, "ok");
    for k in &committed {
        let p = l.payments().by_key(k).unwrap().unwrap_or_else(|| panic!("committed payment {k} lost"));
        assert_eq!(p.state, PaymentState::Created);
        assert_eq!(l.carts().by_id(p.cart_id.unwrap()).unwrap().state, CartState::Locked, "cart lock committed with it");
        assert_eq!(l.payments().timeline(p.id).unwrap().len(), 1, "timeline row committed with it");
    }
    let count = |sql: &str| -> i64 { l.connection().query_row(sql, [], |r| r.get(0)).unwrap() };
    assert_eq!(count("SELECT count(*) FROM payments"), COMMITTED as i64);
    assert_eq!(count("SELECT count(*) FROM payments WHERE idempotency_key LIKE 'partial-%'"), 0);
    assert_eq!(count("SELECT count(*) FROM carts WHERE state = 'paid'"), 0);
}

const STREAM_ENV: &str = "PAYDESK_LEDGER_CRASH_STREAM";

/// Commits checkouts back to back and reports each one; never stops on its own, so the
/// parent's SIGKILL lands at an arbitrary point, usually inside a transaction or commit.
fn stream_child(path: &str) -> ! {
    let mut l = Ledger::open(path).unwrap();
    l.carts_mut().seed_catalog(&[NewProduct { sku: "P".into(), name: "P".into(), price: Money::new(100, Currency::Jpy) }]).unwrap();
    let out = std::io::stdout();
    for i in 0i64.. {
        let cart = l.carts_mut().create(Currency::Jpy, i).unwrap();
        l.carts_mut().add(cart, "P", 1, i).unwrap();
        let p = l.payments_mut().open_checkout(cart, &CheckoutOptions::card("pm_card_visa"), i).unwrap().payment;
        l.payments_mut().transition(p.id, PaymentState::Created, PaymentState::Authorizing, "", i).unwrap();
        let mut o = out.lock();
        writeln!(o, "COMMITTED {}", p.idempotency_key).unwrap();
        o.flush().unwrap();
    }
    unreachable!()
}

#[test]
fn sigkill_at_an_arbitrary_point_loses_no_acknowledged_commit() {
    if let Ok(path) = std::env::var(STREAM_ENV) {
        stream_child(&path);
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("stream.db");
    for round in 0..3 {
        let mut proc = Command::new(std::env::current_exe().unwrap())
            .args(["crash::sigkill_at_an_arbitrary_point_loses_no_acknowledged_commit", "--exact", "--nocapture", "--test-threads=1"])
            .env(STREAM_ENV, &path)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut acknowledged = Vec::new();
        let mut lines = BufReader::new(proc.stdout.take().unwrap()).lines();
        while acknowledged.len() < 25 + round * 10 {
            let line = lines.next().expect("child ended early").unwrap();
            if let Some(at) = line.find("COMMITTED ") {
                acknowledged.push(line[at + "COMMITTED ".len()..].trim().to_string());
            }
        }
        // SAFETY: kill(2) on our own child's pid.
        assert_eq!(unsafe { libc::kill(proc.id() as libc::pid_t, libc::SIGKILL) }, 0);
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(proc.wait().unwrap().signal(), Some(libc::SIGKILL));

        let l = Ledger::open(&path).unwrap();
        let ok: String = l.connection().query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
        assert_eq!(ok, "ok");
        for k in &acknowledged {
            let p = l.payments().by_key(k).unwrap().unwrap_or_else(|| panic!("acknowledged payment {k} lost"));
            assert_eq!(p.state, PaymentState::Authorizing);
        }
        // Whatever else got in is whole: every payment has its cart locked and its
        // creation on the timeline; none is half-written.
        for p in l.payments().list(100_000, 0).unwrap() {
            assert_eq!(l.carts().by_id(p.cart_id.unwrap()).unwrap().state, CartState::Locked);
            let tl = l.payments().timeline(p.id).unwrap();
            assert_eq!(tl[0].kind, TimelineKind::Created);
            let transitions = tl.iter().filter(|e| e.kind == TimelineKind::Transition).count();
            assert_eq!(transitions, (p.state == PaymentState::Authorizing) as usize, "{p:?}");
        }
    }
}
