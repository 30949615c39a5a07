//! Printing over real loopback TCP to the test printer, to a device file, and the typed
//! errors and reprint rule when the printer is not there.

mod common;

use std::net::TcpListener;
use std::time::{Duration, Instant};

use common::*;
use paydesk_receipt::test_printer::{Kick, TestPrinter};
use paydesk_receipt::*;

const WAIT: Duration = Duration::from_secs(10);

fn tcp_printer(tp: &TestPrinter) -> Printer {
    let a = tp.addr();
    Printer::new(PrinterTarget::Tcp { host: a.ip().to_string(), port: a.port() })
}

#[test]
fn a_japanese_receipt_prints_over_tcp_with_kanji_cut_and_kick() {
    let tp = TestPrinter::start().unwrap();
    let r = build_receipt(&ja_sale(), &inclusive(), false).unwrap();
    let job = PrintJob::new("sale-42/1", r.clone(), Paper::Mm58);
    tcp_printer(&tp).print(&job).unwrap();
    let p = tp.next_job(WAIT).expect("the printer got a job").unwrap();
    let texts: Vec<String> = p.texts().iter().map(|t| t.trim().to_string()).collect();
    for want in ["領収書", "ペイデスク商店 渋谷店", "登録番号 T7000012050002", "※おにぎり 鮭", "※は軽減税率対象商品"] {
        assert!(texts.iter().any(|t| t == want), "{want} not in {texts:#?}");
    }
    let row = |label: &str, amount: &str| texts.iter().any(|t| t.starts_with(label) && t.ends_with(amount));
    assert!(row("8%対象", "¥440") && row("内消費税", "¥32") && row("10%対象", "¥550") && row("内消費税", "¥50"));
    assert!(row("合計", "¥990") && row("お釣り", "¥10"));
    assert!(p.kanji && p.lines[0].double && p.lines[0].bold);
    assert_eq!(p.cuts, 1);
    assert_eq!(p.kicks, vec![Kick { pin: 2, on_ms: 50, off_ms: 500 }]);
    assert!(!texts.iter().any(|t| t.contains("再発行")));
}

#[test]
fn an_english_receipt_prints_over_tcp() {
    let tp = TestPrinter::start().unwrap();
    let r = build_receipt(&en_sale(), &exclusive(), false).unwrap();
    tcp_printer(&tp).print(&PrintJob::new("A-7/1", r, Paper::Mm80)).unwrap();
    let p = tp.next_job(WAIT).unwrap().unwrap();
    let texts: Vec<String> = p.texts().iter().map(|t| t.trim().to_string()).collect();
    assert_eq!(texts[0], "RECEIPT");
    assert_eq!(texts[1], "PayDesk Café");
    assert!(texts.iter().any(|t| t.starts_with("TOTAL") && t.ends_with("$33.48")));
    assert!(texts.iter().any(|t| t.starts_with("Change") && t.ends_with("$16.52")));
    assert!(!p.kanji);
    assert_eq!((p.cuts, p.kicks.len()), (1, 1));
}

/// Whether a retry must say "reprint" follows from the error, and the reprint is marked on
/// paper and leaves the drawer shut.
#[test]
fn a_retry_after_an_unknown_outcome_prints_as_a_reprint() {
    let tp = TestPrinter::start().unwrap();
    let r = build_receipt(&ja_sale(), &inclusive(), false).unwrap();
    let job = PrintJob::new("sale-42/1", r, Paper::Mm58);

    let refused = PrintError::Refused { target: "x".into() };
    assert!(!job.retry_after(&refused).reprint(), "nothing reached a printer that refused");
    let cut_off = PrintError::Interrupted { target: "x".into(), sent: 100, total: 900, reason: "reset".into() };
    let retry = job.retry_after(&cut_off);
    assert!(retry.reprint() && retry.id == job.id);
    // Once a reprint, always a reprint.
    assert!(retry.retry_after(&refused).reprint());

    tcp_printer(&tp).print(&retry).unwrap();
    let p = tp.next_job(WAIT).unwrap().unwrap();
    assert_eq!(p.lines[1].text.trim(), "【再発行】");
    assert!(p.lines[1].bold);
    assert_eq!((p.cuts, p.kicks.len()), (1, 0));
}

#[test]
fn a_refused_port_is_a_typed_error_quickly() {
    let port = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let printer = Printer::new(PrinterTarget::Tcp { host: "127.0.0.1".into(), port });
    let r = build_receipt(&ja_sale(), &inclusive(), false).unwrap();
    let started = Instant::now();
    let err = printer.print(&PrintJob::new("j", r, Paper::Mm58)).unwrap_err();
    assert_eq!(err, PrintError::Refused { target: format!("127.0.0.1:{port}") });
    assert!(!err.may_have_printed());
    assert!(started.elapsed() < printer.connect_timeout, "{:?}", started.elapsed());
    assert!(err.to_string().contains("refused the connection"));
}

#[test]
fn a_closed_test_printer_refuses() {
    let tp = TestPrinter::start().unwrap();
    let printer = tcp_printer(&tp);
    drop(tp);
    let started = Instant::now();
    let err = printer.send(b"\x1b@").unwrap_err();
    assert!(matches!(err, PrintError::Refused { .. }), "{err:?}");
    assert!(started.elapsed() < printer.connect_timeout);
}

#[test]
fn a_device_file_gets_the_bytes_and_a_missing_one_is_unplugged() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lp0");
    std::fs::write(&path, b"").unwrap();
    let r = build_receipt(&en_sale(), &exclusive(), false).unwrap();
    let job = PrintJob::new("A-7/1", r, Paper::Mm58);
    Printer::new(PrinterTarget::Device { path: path.clone() }).print(&job).unwrap();
    let written = std::fs::read(&path).unwrap();
    assert_eq!(written, job.bytes());
    let p = paydesk_receipt::test_printer::parse_escpos(&written).unwrap();
    assert_eq!(p.lines[0].text, "RECEIPT");

    let gone = dir.path().join("lp1");
    let err = Printer::new(PrinterTarget::Device { path: gone.clone() }).print(&job).unwrap_err();
    assert_eq!(err, PrintError::DeviceMissing { path: gone.display().to_string() });
    assert!(!gone.exists(), "printing must not create the device node");
}

#[test]
fn printer_addresses() {
    let t = |s: &str| s.parse::<PrinterTarget>();
    assert_eq!(t("192.168.1.50"), Ok(PrinterTarget::Tcp { host: "192.168.1.50".into(), port: 9100 }));
    assert_eq!(t("printer.local:9101"), Ok(PrinterTarget::Tcp { host: "printer.local".into(), port: 9101 }));
    assert_eq!(t("[::1]:9100"), Ok(PrinterTarget::Tcp { host: "::1".into(), port: 9100 }));
    assert_eq!(t("/dev/usb/lp0"), Ok(PrinterTarget::Device { path: "/dev/usb/lp0".into() }));
    assert!(matches!(t("host:0"), Err(PrintError::BadTarget { .. })));
    assert!(matches!(t("host:http"), Err(PrintError::BadTarget { .. })));
    assert!(matches!(t(""), Err(PrintError::BadTarget { .. })));
}
