//! Printing over real loopback TCP to the test printer, to a device file, and the typed
//! errors and reprint rule when the printer is not there.

use crate::common;

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

/// A pseudo-terminal in raw mode: its other end (`/dev/pts/N`) is a character device
/// that reads back exactly what a printer would have been sent.
struct Pty {
    master: std::fs::File,
    slave: std::path::PathBuf,
    /// The slave side held open for the test's length: on Linux a read of the master while
    /// no slave descriptor is open fails with EIO at once instead of waiting, and the
    /// reader thread may start before the printer code opens the device.
    _slave_held: std::fs::File,
}

fn pty() -> Pty {
    use std::os::fd::FromRawFd;
    unsafe {
        let fd = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
        assert!(fd >= 0, "posix_openpt");
        assert_eq!(libc::grantpt(fd), 0);
        assert_eq!(libc::unlockpt(fd), 0);
        let mut name = [0 as libc::c_char; 128];
        assert_eq!(libc::ptsname_r(fd, name.as_mut_ptr(), name.len()), 0);
        let slave = std::ffi::CStr::from_ptr(name.as_ptr()).to_str().unwrap().to_string();
        // raw: no newline translation, no echo
        let sfd = libc::open(name.as_ptr(), libc::O_RDWR | libc::O_NOCTTY);
        assert!(sfd >= 0);
        let mut tio: libc::termios = std::mem::zeroed();
        assert_eq!(libc::tcgetattr(sfd, &mut tio), 0);
        libc::cfmakeraw(&mut tio);
        assert_eq!(libc::tcsetattr(sfd, libc::TCSANOW, &tio), 0);
        Pty { master: std::fs::File::from_raw_fd(fd), slave: slave.into(), _slave_held: std::fs::File::from_raw_fd(sfd) }
    }
}

fn in_pts(p: &std::path::Path) -> bool {
    p.starts_with("/dev/pts/")
}

#[test]
fn a_character_device_gets_the_bytes_and_a_missing_one_is_unplugged() {
    use std::io::Read;
    let r = build_receipt(&en_sale(), &exclusive(), false).unwrap();
    let job = PrintJob::new("A-7/1", r, Paper::Mm58);
    let bytes = job.bytes();
    let Pty { mut master, slave, _slave_held } = pty();
    let want = bytes.len();
    // read while it is written: a terminal holds only a few KiB
    let reader = std::thread::spawn(move || {
        let mut got = vec![0; want];
        master.read_exact(&mut got).unwrap();
        got
    });
    send_device_within(&slave, &bytes, &in_pts).unwrap();
    let written = reader.join().unwrap();
    assert_eq!(written, bytes);
    let p = paydesk_receipt::test_printer::parse_escpos(&written).unwrap();
    assert_eq!(p.lines[0].text, "RECEIPT");

    let gone = std::path::Path::new("/dev/usb/lp97");
    let err = Printer::new(PrinterTarget::Device { path: gone.into() }).print(&job).unwrap_err();
    assert_eq!(err, PrintError::DeviceMissing { path: gone.display().to_string() });
    assert!(!gone.exists(), "printing must not create the device node");
}
#[test]
fn only_a_character_device_reached_without_a_link_is_printed_to() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let inside = move |p: &std::path::Path| p.starts_with(&root);
    let not_device = |e: PrintError| match e {
        PrintError::NotADevice { reason, .. } => reason,
        other => panic!("{other:?}"),
    };
    let file = dir.path().join("lp0");
    std::fs::write(&file, b"").unwrap();
    assert_eq!(not_device(send_device_within(&file, b"x", &inside).unwrap_err()), "not a character device");
    assert_eq!(std::fs::read(&file).unwrap(), b"", "nothing written into a plain file");
    // a pipe is refused without waiting for a reader
    let fifo = dir.path().join("lp1");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    assert_eq!(not_device(send_device_within(&fifo, b"x", &inside).unwrap_err()), "not a character device");
    // a link from an allowed place to a character device elsewhere
    let link = dir.path().join("lp2");
    std::os::unix::fs::symlink("/dev/null", &link).unwrap();
    assert_eq!(not_device(send_device_within(&link, b"x", &inside).unwrap_err()), "a symbolic link");
    // and with the link's target allowed too: still not reached through a link
    let anything = |_: &std::path::Path| true;
    assert_eq!(not_device(send_device_within(&link, b"x", &anything).unwrap_err()), "a symbolic link");
    // a device path outside the printers' places, built without parsing
    let null = Printer::new(PrinterTarget::Device { path: "/dev/null".into() }).send(b"x").unwrap_err();
    assert_eq!(not_device(null), "not a printer's device path");
}

#[test]
fn printer_device_paths_are_usb_printers_and_serial_ports_only() {
    let t = |s: &str| s.parse::<PrinterTarget>();
    for ok in ["/dev/usb/lp0", "/dev/usb/lp12", "/dev/ttyS0", "/dev/ttyUSB1", "/dev/ttyACM0"] {
        assert_eq!(t(ok), Ok(PrinterTarget::Device { path: ok.into() }), "{ok}");
    }
    for bad in ["/etc/passwd", "/dev/sda", "/dev/null", "/dev/usb/../sda", "/dev/usb/", "/dev/usb/lp0/x", "/dev/usb//lp0",
                "/dev/ttyS", "/dev/ttyUSBx", "/dev/ttyS0/..", "/dev/tty", "/dev/ttyACM1234", "/home/me/lp0", "/dev/pts/3"] {
        assert!(matches!(t(bad), Err(PrintError::BadTarget { .. })), "{bad}: {:?}", t(bad));
    }
}

#[test]
fn a_network_printer_off_the_raw_print_ports_is_unusual() {
    let t = |s: &str| s.parse::<PrinterTarget>().unwrap().unusual_port();
    assert_eq!(t("10.0.0.5"), None);
    assert_eq!(t("10.0.0.5:9100"), None);
    assert_eq!(t("10.0.0.5:9109"), None);
    assert_eq!(t("10.0.0.5:9110"), Some(9110));
    assert_eq!(t("10.0.0.5:22"), Some(22));
    assert_eq!(t("/dev/usb/lp0"), None);
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

/// Who rang the sale and the register's number (record 0127) come out on paper, read
/// back from the ESC/POS the printer got, in Japanese and in English.
#[test]
fn the_cashier_and_the_register_number_are_printed() {
    let tp = TestPrinter::start().unwrap();
    let sale = SaleData { cashier: Some("山田".into()), register_no: Some(2), ..ja_sale() };
    tcp_printer(&tp).print(&PrintJob::new("sale-42/1", build_receipt(&sale, &inclusive(), false).unwrap(), Paper::Mm58)).unwrap();
    let p = tp.next_job(WAIT).unwrap().unwrap();
    let texts: Vec<String> = p.texts().iter().map(|t| t.trim().to_string()).collect();
    assert!(texts.iter().any(|t| t.starts_with("担当者: 山田") && t.ends_with("レジ 2")), "{texts:#?}");

    let sale = SaleData { cashier: Some("Casey".into()), register_no: Some(3), ..en_sale() };
    tcp_printer(&tp).print(&PrintJob::new("A-7/1", build_receipt(&sale, &exclusive(), false).unwrap(), Paper::Mm80)).unwrap();
    let p = tp.next_job(WAIT).unwrap().unwrap();
    let texts: Vec<String> = p.texts().iter().map(|t| t.trim().to_string()).collect();
    assert!(texts.iter().any(|t| t.starts_with("Cashier: Casey") && t.ends_with("Register 3")), "{texts:#?}");

    // A register without staff and without a number prints neither line.
    tcp_printer(&tp).print(&PrintJob::new("A-8/1", build_receipt(&en_sale(), &exclusive(), false).unwrap(), Paper::Mm80)).unwrap();
    let p = tp.next_job(WAIT).unwrap().unwrap();
    assert!(!p.texts().iter().any(|t| t.contains("Cashier") || t.contains("Register")), "{:#?}", p.texts());
}
