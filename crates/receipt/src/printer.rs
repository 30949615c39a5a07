//! Sending a receipt to a printer: a raw TCP socket (port 9100, "JetDirect") or a device
//! file (USB/serial printer such as /dev/usb/lp0), with typed errors the cashier can act on.
//!
//! A device is only a USB printer's node under `/dev/usb/` or a serial port
//! (`/dev/ttyS*`, `/dev/ttyUSB*`, `/dev/ttyACM*`), and only a character device reached
//! without a symbolic link: the address is typed on a screen, and a receipt must not be
//! written into a disk, a file or another program's pipe.
//!
//! The reprint rule (record 0058): a receipt is printed unmarked at most once. A job whose
//! outcome is unknown — bytes may have reached the printer before an error — must be retried
//! as a reprint, so the customer never holds two unmarked copies. [`PrintJob::retry_after`]
//! applies the rule; a caller printing a past receipt builds the job with `reprint = true`.

use std::io::{ErrorKind, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::document::Receipt;
use crate::escpos::{render_escpos, EscPosOptions};
use crate::layout::Paper;

/// Where the printer is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PrinterTarget {
    Tcp { host: String, port: u16 },
    Device { path: PathBuf },
}

impl std::fmt::Display for PrinterTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PrinterTarget::Tcp { host, port } => write!(f, "{host}:{port}"),
            PrinterTarget::Device { path } => write!(f, "{}", path.display()),
        }
    }
}

impl std::str::FromStr for PrinterTarget {
    type Err = PrintError;
    /// "/dev/usb/lp0" (an absolute path) or "host" / "host:port" (port 9100 by default).
    fn from_str(s: &str) -> Result<Self, PrintError> {
        let s = s.trim();
        let bad = |reason: &str| PrintError::BadTarget { target: s.chars().take(80).collect(), reason: reason.to_string() };
        if s.is_empty() || s.len() > 255 {
            return Err(bad("empty or longer than 255 characters"));
        }
        if s.starts_with('/') {
            if !device_path_allowed(Path::new(s)) {
                return Err(bad("a printer device is /dev/usb/… or a serial port /dev/ttyS…, /dev/ttyUSB…, /dev/ttyACM…"));
            }
            return Ok(PrinterTarget::Device { path: PathBuf::from(s) });
        }
        match s.rsplit_once(':') {
            Some((host, port)) if !host.contains(':') || host.starts_with('[') => {
                let port = port.parse::<u16>().ok().filter(|p| *p != 0).ok_or_else(|| bad("the port is not 1-65535"))?;
                Ok(PrinterTarget::Tcp { host: host.trim_matches(['[', ']']).to_string(), port })
            }
            _ => Ok(PrinterTarget::Tcp { host: s.to_string(), port: 9100 }),
        }
    }
}

/// The ports a network receipt printer listens on (raw printing, "JetDirect"): 9100 and the
/// next nine for a print server's further ports. Another port is a choice the owner
/// confirms (the app asks).
pub const RAW_PRINT_PORTS: std::ops::RangeInclusive<u16> = 9100..=9109;

impl PrinterTarget {
    /// A TCP printer on a port outside [`RAW_PRINT_PORTS`]: the owner confirms it first.
    pub fn unusual_port(&self) -> Option<u16> {
        match self {
            PrinterTarget::Tcp { port, .. } if !RAW_PRINT_PORTS.contains(port) => Some(*port),
            PrinterTarget::Tcp { .. } | PrinterTarget::Device { .. } => None,
        }
    }
}

/// Device paths a receipt printer may be: `/dev/usb/<name>` (the usblp driver's nodes) or
/// a serial port `/dev/ttyS<n>`, `/dev/ttyUSB<n>`, `/dev/ttyACM<n>`. Exact names: no `..`,
/// no further folders.
pub fn device_path_allowed(path: &Path) -> bool {
    let Some(s) = path.to_str() else { return false };
    let numbered = |n: &str| !n.is_empty() && n.len() <= 3 && n.bytes().all(|b| b.is_ascii_digit());
    let serial = ["/dev/ttyS", "/dev/ttyUSB", "/dev/ttyACM"].iter().any(|p| s.strip_prefix(p).is_some_and(numbered));
    let usb = s
        .strip_prefix("/dev/usb/")
        .is_some_and(|n| !n.is_empty() && n.len() <= 32 && n.bytes().all(|b| b.is_ascii_alphanumeric()));
    serial || usb
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum PrintError {
    #[error("printer address {target:?}: {reason}")]
    BadTarget { target: String, reason: String },
    #[error("the printer at {target} refused the connection (is it on, and is this its address?)")]
    Refused { target: String },
    #[error("the printer at {target} did not answer within {after_ms} ms (is it switched off or unplugged from the network?)")]
    TimedOut { target: String, after_ms: u64 },
    #[error("the printer at {target} cannot be reached: {reason}")]
    Unreachable { target: String, reason: String },
    #[error("no printer at {path} (is the cable plugged in?)")]
    DeviceMissing { path: String },
    #[error("not allowed to write to {path}")]
    PermissionDenied { path: String },
    #[error("{path} is not a printer: {reason}")]
    NotADevice { path: String, reason: String },
    #[error("printing to {target} stopped after {sent} of {total} bytes: {reason}; the receipt may have printed, retry as a reprint")]
    Interrupted { target: String, sent: usize, total: usize, reason: String },
}

impl PrintError {
    /// Whether any of the job may have come out of the printer. Only then must a retry be
    /// marked as a reprint.
    pub fn may_have_printed(&self) -> bool {
        match self {
            PrintError::Interrupted { .. } => true,
            PrintError::BadTarget { .. }
            | PrintError::Refused { .. }
            | PrintError::TimedOut { .. }
            | PrintError::Unreachable { .. }
            | PrintError::DeviceMissing { .. }
            | PrintError::PermissionDenied { .. }
            | PrintError::NotADevice { .. } => false,
        }
    }
}

/// One receipt to print. `id` names it in logs and the ledger (e.g. the sale id plus a print
/// counter); the bytes are rendered with the job's `reprint` flag, so a reprint is marked and
/// does not open the drawer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrintJob {
    pub id: String,
    pub receipt: Receipt,
    pub paper: Paper,
}

impl PrintJob {
    /// A job for `receipt` as built (its `reprint` flag is the caller's decision: true for
    /// any receipt printed before).
    pub fn new(id: impl Into<String>, receipt: Receipt, paper: Paper) -> Self {
        PrintJob { id: id.into(), receipt, paper }
    }

    pub fn reprint(&self) -> bool {
        self.receipt.reprint
    }

    /// The job to send after `error`: the same id, marked as a reprint if this attempt may
    /// have printed (or already was a reprint).
    pub fn retry_after(&self, error: &PrintError) -> PrintJob {
        let mut next = self.clone();
        next.receipt.reprint = self.receipt.reprint || error.may_have_printed();
        next
    }

    /// The job as text: the receipt's lines at the paper's columns, joined by "\n" — what
    /// the register keeps and sends up as the receipt issued (record 0146).
    pub fn text(&self) -> String {
        crate::text::render_text(&self.receipt, self.paper).join("\n")
    }

    pub fn bytes(&self) -> Vec<u8> {
        render_escpos(&self.receipt, EscPosOptions::for_receipt(&self.receipt, self.paper))
    }
}

/// A printer and how long to wait for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Printer {
    pub target: PrinterTarget,
    /// How long a TCP connect may take before the printer counts as off (default 3 s).
    pub connect_timeout: Duration,
    /// How long one write may block (default 10 s).
    pub write_timeout: Duration,
}

impl Printer {
    pub fn new(target: PrinterTarget) -> Self {
        Printer { target, connect_timeout: Duration::from_secs(3), write_timeout: Duration::from_secs(10) }
    }

    /// Sends the job's bytes. On error nothing is retried here: the caller decides, with
    /// [`PrintJob::retry_after`]. The sale is never touched by printing.
    pub fn print(&self, job: &PrintJob) -> Result<(), PrintError> {
        self.send(&job.bytes())
    }

    /// Sends raw bytes (already ESC/POS).
    pub fn send(&self, bytes: &[u8]) -> Result<(), PrintError> {
        match &self.target {
            PrinterTarget::Tcp { host, port } => self.send_tcp(host, *port, bytes),
            PrinterTarget::Device { path } => send_device(path, bytes),
        }
    }

    fn send_tcp(&self, host: &str, port: u16, bytes: &[u8]) -> Result<(), PrintError> {
        let target = self.target.to_string();
        let addrs: Vec<_> = (host, port)
            .to_socket_addrs()
            .map_err(|e| PrintError::Unreachable { target: target.clone(), reason: e.to_string() })?
            .collect();
        let mut last = PrintError::Unreachable { target: target.clone(), reason: "the name has no address".into() };
        let mut stream = None;
        for addr in addrs {
            match TcpStream::connect_timeout(&addr, self.connect_timeout) {
                Ok(s) => {
                    stream = Some(s);
                    break;
                }
                Err(e) => last = connect_error(&target, e, self.connect_timeout),
            }
        }
        let mut stream = stream.ok_or(last)?;
        let interrupted = |sent: usize, e: std::io::Error| PrintError::Interrupted {
            target: target.clone(),
            sent,
            total: bytes.len(),
            reason: e.to_string(),
        };
        stream.set_write_timeout(Some(self.write_timeout)).map_err(|e| interrupted(0, e))?;
        let mut sent = 0;
        while sent < bytes.len() {
            match stream.write(&bytes[sent..]) {
                Ok(0) => return Err(interrupted(sent, ErrorKind::WriteZero.into())),
                Ok(n) => sent += n,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(interrupted(sent, e)),
            }
        }
        // Closing our side tells the printer the job is complete.
        stream.shutdown(std::net::Shutdown::Write).map_err(|e| interrupted(sent, e))
    }
}

fn connect_error(target: &str, e: std::io::Error, timeout: Duration) -> PrintError {
    let target = target.to_string();
    match e.kind() {
        ErrorKind::ConnectionRefused => PrintError::Refused { target },
        ErrorKind::TimedOut | ErrorKind::WouldBlock => PrintError::TimedOut { target, after_ms: timeout.as_millis() as u64 },
        _ => PrintError::Unreachable { target, reason: e.to_string() },
    }
}

fn send_device(path: &Path, bytes: &[u8]) -> Result<(), PrintError> {
    send_device_within(path, bytes, &device_path_allowed)
}

/// Writes `bytes` to the character device at `path`, which `allowed` must accept both as
/// given and with every link resolved (the same path: no symbolic link on the way).
/// `allowed` is [`device_path_allowed`] for printing; tests pass their own to print into
/// a pseudo-terminal.
pub fn send_device_within(path: &Path, bytes: &[u8], allowed: &dyn Fn(&Path) -> bool) -> Result<(), PrintError> {
    let shown = path.display().to_string();
    let not_device = |reason: &str| PrintError::NotADevice { path: shown.clone(), reason: reason.to_string() };
    let open_error = |e: std::io::Error| match e.kind() {
        ErrorKind::NotFound => PrintError::DeviceMissing { path: shown.clone() },
        ErrorKind::PermissionDenied => PrintError::PermissionDenied { path: shown.clone() },
        // ENXIO/ENODEV: the node exists but no device answers (unplugged USB printer).
        _ if matches!(e.raw_os_error(), Some(libc::ENXIO) | Some(libc::ENODEV)) => PrintError::DeviceMissing { path: shown.clone() },
        _ if e.raw_os_error() == Some(libc::ELOOP) => not_device("a symbolic link"),
        _ => PrintError::Unreachable { target: shown.clone(), reason: e.to_string() },
    };
    if !allowed(path) {
        return Err(not_device("not a printer's device path"));
    }
    let real = std::fs::canonicalize(path).map_err(open_error)?;
    if real != path || !allowed(&real) {
        return Err(not_device("a symbolic link"));
    }
    // Checked before opening too: opening a pipe to write would wait for a reader.
    let is_char = |m: std::fs::Metadata| m.file_type().is_char_device();
    if !std::fs::symlink_metadata(&real).map(is_char).map_err(open_error)? {
        return Err(not_device("not a character device"));
    }
    // No create: a missing device node means the printer is unplugged, not a file to make.
    // O_NOCTTY: a serial port never becomes this process's terminal.
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NOCTTY)
        .open(&real)
        .map_err(open_error)?;
    // What was opened, not what the name pointed at a moment before.
    if !file.metadata().map(is_char).map_err(open_error)? {
        return Err(not_device("not a character device"));
    }
    file.write_all(bytes).and_then(|_| file.flush()).map_err(|e| PrintError::Interrupted {
        target: shown.clone(),
        // write_all does not say how far it got; count it as possibly printed.
        sent: 0,
        total: bytes.len(),
        reason: e.to_string(),
    })
}
