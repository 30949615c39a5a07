//! A printer that does not answer, and one that hangs up mid-job: the typed errors the
//! cashier sees, and whether the retry must say "reprint".

use crate::common;

use std::io::Read;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

use common::*;
use paydesk_receipt::*;
use socket2::{Domain, Socket, Type};

/// A listener whose accept queue (backlog 0 → one slot) is already full: the kernel drops
/// further SYNs, as a switched-off printer's address would, so a connect can only time out.
#[test]
fn a_printer_that_does_not_answer_times_out_as_off() {
    let s = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
    s.bind(&"127.0.0.1:0".parse::<SocketAddr>().unwrap().into()).unwrap();
    s.listen(0).unwrap();
    let addr = s.local_addr().unwrap().as_socket().unwrap();
    // Fill the queue; keep the connections open. Stop at the first that cannot get in.
    let mut held = Vec::new();
    for _ in 0..8 {
        match TcpStream::connect_timeout(&addr, Duration::from_millis(300)) {
            Ok(c) => held.push(c),
            Err(_) => break,
        }
    }
    assert!(!held.is_empty());
    let mut printer = Printer::new(PrinterTarget::Tcp { host: "127.0.0.1".into(), port: addr.port() });
    printer.connect_timeout = Duration::from_millis(300);
    let started = Instant::now();
    let err = printer.send(b"\x1b@").unwrap_err();
    assert_eq!(err, PrintError::TimedOut { target: format!("127.0.0.1:{}", addr.port()), after_ms: 300 });
    assert!(!err.may_have_printed());
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
    assert!(err.to_string().contains("switched off"));
}

/// A printer that reads a little and closes with the rest unread (the kernel answers with a
/// reset): the job is interrupted, may have printed, and its retry is a reprint.
#[test]
fn a_printer_that_hangs_up_mid_job_makes_the_retry_a_reprint() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let server = std::thread::spawn(move || {
        let (mut c, _) = listener.accept().unwrap();
        let mut first = [0u8; 64];
        c.read_exact(&mut first).unwrap();
        // Dropping with unread data resets the connection.
    });
    // Far more than the socket buffers hold, so the writer is still writing at the reset.
    let big = vec![b'x'; 64 * 1024 * 1024];
    let printer = Printer::new(PrinterTarget::Tcp { host: "127.0.0.1".into(), port: addr.port() });
    let err = printer.send(&big).unwrap_err();
    server.join().unwrap();
    match &err {
        PrintError::Interrupted { sent, total, .. } => assert!(*sent >= 64 && *sent < *total, "{err:?}"),
        other => panic!("expected Interrupted, got {other:?}"),
    }
    assert!(err.may_have_printed());
    let job = PrintJob::new("sale-42/1", build_receipt(&ja_sale(), &inclusive(), false).unwrap(), Paper::Mm58);
    assert!(job.retry_after(&err).reprint());
}
