//! A test printer: a TCP listener on loopback that parses the ESC/POS commands this crate
//! emits and hands each job to the test as decoded lines, cuts and drawer kicks. Any byte
//! outside that command set is an error, not skipped, so a test fails when the encoder sends
//! something a real printer would misread. Built only with the `test-printer` feature.

use std::io::Read;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crate::layout::Align;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrintedLine {
    pub text: String,
    pub align: Align,
    pub bold: bool,
    pub double: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kick {
    pub pin: u8,
    pub on_ms: u32,
    pub off_ms: u32,
}

/// One job as the printer understood it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Printout {
    pub lines: Vec<PrintedLine>,
    pub inits: usize,
    pub cuts: usize,
    pub kicks: Vec<Kick>,
    /// Whether kanji mode was on at any line.
    pub kanji: bool,
    /// Text bytes left after the last LF (a real printer would hold them unprinted).
    pub unterminated: Vec<u8>,
    /// CODE128 barcodes printed, their data without the code set prefix.
    pub barcodes: Vec<String>,
}

impl Printout {
    pub fn texts(&self) -> Vec<&str> {
        self.lines.iter().map(|l| l.text.as_str()).collect()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("byte 0x{byte:02X} at offset {offset} is not a command or text this printer knows")]
    Unknown { offset: usize, byte: u8 },
    #[error("command at offset {offset} is cut short")]
    Truncated { offset: usize },
    #[error("command at offset {offset} has a bad parameter {value}")]
    BadParameter { offset: usize, value: u8 },
    #[error("bytes at offset {offset} are not valid Shift_JIS")]
    BadShiftJis { offset: usize },
}

struct State {
    kanji: bool,
    shift_jis: bool,
    japan: bool,
    cp1252: bool,
    align: Align,
    bold: bool,
    double: bool,
}

impl State {
    fn reset() -> Self {
        State { kanji: false, shift_jis: false, japan: false, cp1252: false, align: Align::Left, bold: false, double: false }
    }
}

/// Parses a job's bytes.
pub fn parse_escpos(b: &[u8]) -> Result<Printout, ParseError> {
    let mut out = Printout::default();
    let mut st = State::reset();
    let mut text = String::new();
    let mut i = 0;
    let arg = |i: usize, k: usize| b.get(i + k).copied().ok_or(ParseError::Truncated { offset: i });
    while i < b.len() {
        let c = b[i];
        match c {
            0x1B => {
                let cmd = arg(i, 1)?;
                match cmd {
                    b'@' => {
                        st = State::reset();
                        out.inits += 1;
                        i += 2;
                    }
                    b'R' => {
                        st.japan = match arg(i, 2)? {
                            0 => false,
                            8 => true,
                            v => return Err(ParseError::BadParameter { offset: i, value: v }),
                        };
                        i += 3;
                    }
                    b't' => {
                        st.cp1252 = match arg(i, 2)? {
                            0 => false,
                            16 => true,
                            v => return Err(ParseError::BadParameter { offset: i, value: v }),
                        };
                        i += 3;
                    }
                    b'a' => {
                        st.align = match arg(i, 2)? {
                            0 | 48 => Align::Left,
                            1 | 49 => Align::Center,
                            2 | 50 => Align::Right,
                            v => return Err(ParseError::BadParameter { offset: i, value: v }),
                        };
                        i += 3;
                    }
                    b'E' => {
                        st.bold = arg(i, 2)? & 1 == 1;
                        i += 3;
                    }
                    b'd' => {
                        arg(i, 2)?;
                        i += 3;
                    }
                    b'p' => {
                        let pin = match arg(i, 2)? {
                            0 | 48 => 2,
                            1 | 49 => 5,
                            v => return Err(ParseError::BadParameter { offset: i, value: v }),
                        };
                        let on_ms = u32::from(arg(i, 3)?) * 2;
                        let off_ms = u32::from(arg(i, 4)?) * 2;
                        out.kicks.push(Kick { pin, on_ms, off_ms });
                        i += 5;
                    }
                    _ => return Err(ParseError::Unknown { offset: i + 1, byte: cmd }),
                }
            }
            0x1D => {
                let cmd = arg(i, 1)?;
                match cmd {
                    b'!' => {
                        let n = arg(i, 2)?;
                        st.double = match n {
                            0x00 => false,
                            0x11 => true,
                            v => return Err(ParseError::BadParameter { offset: i, value: v }),
                        };
                        i += 3;
                    }
                    b'V' => {
                        let m = arg(i, 2)?;
                        i += match m {
                            0 | 1 | 48 | 49 => 3,
                            65 | 66 => {
                                arg(i, 3)?;
                                4
                            }
                            v => return Err(ParseError::BadParameter { offset: i, value: v }),
                        };
                        out.cuts += 1;
                    }
                    // Barcode height, module width, where its digits print: set-up only.
                    b'h' | b'w' | b'H' => {
                        arg(i, 2)?;
                        i += 3;
                    }
                    // GS k 73 n data: CODE128, n bytes starting with the code set ("{B").
                    b'k' => {
                        let m = arg(i, 2)?;
                        if m != 73 {
                            return Err(ParseError::BadParameter { offset: i, value: m });
                        }
                        let n = usize::from(arg(i, 3)?);
                        let data = b.get(i + 4..i + 4 + n).ok_or(ParseError::Truncated { offset: i })?;
                        let text = data.strip_prefix(b"{B").ok_or(ParseError::BadParameter { offset: i, value: data.first().copied().unwrap_or(0) })?;
                        out.barcodes.push(String::from_utf8_lossy(text).into_owned());
                        i += 4 + n;
                    }
                    _ => return Err(ParseError::Unknown { offset: i + 1, byte: cmd }),
                }
            }
            0x1C => {
                let cmd = arg(i, 1)?;
                match cmd {
                    b'&' => {
                        st.kanji = true;
                        i += 2;
                    }
                    b'.' => {
                        st.kanji = false;
                        i += 2;
                    }
                    b'C' => {
                        st.shift_jis = match arg(i, 2)? {
                            0 | 48 => false,
                            1 | 49 => true,
                            v => return Err(ParseError::BadParameter { offset: i, value: v }),
                        };
                        i += 3;
                    }
                    _ => return Err(ParseError::Unknown { offset: i + 1, byte: cmd }),
                }
            }
            0x0A => {
                out.kanji |= st.kanji;
                out.lines.push(PrintedLine { text: std::mem::take(&mut text), align: st.align, bold: st.bold, double: st.double });
                i += 1;
            }
            0x20..=0xFF if c != 0x7F => {
                // Text runs to the next command or LF (a Shift_JIS trail byte is never below
                // 0x40), and is decoded in one piece under the modes now in force.
                let start = i;
                while i < b.len() && b[i] >= 0x20 && b[i] != 0x7F {
                    i += 1;
                }
                text.push_str(&decode(&b[start..i], &st, start)?);
            }
            _ => return Err(ParseError::Unknown { offset: i, byte: c }),
        }
    }
    out.unterminated = text.into_bytes();
    Ok(out)
}

/// Decodes a run of text bytes under the current modes.
fn decode(bytes: &[u8], st: &State, offset: usize) -> Result<String, ParseError> {
    let mut s = String::new();
    let mut k = 0;
    while k < bytes.len() {
        let c = bytes[k];
        if c < 0x80 {
            // With the Japan character set, 0x5C is the yen sign.
            s.push(if c == 0x5C && st.japan { '¥' } else { c as char });
            k += 1;
        } else if st.kanji && st.shift_jis && matches!(c, 0x81..=0x9F | 0xE0..=0xFC) {
            let pair = bytes.get(k..k + 2).ok_or(ParseError::BadShiftJis { offset: offset + k })?;
            let (d, had_errors) = encoding_rs::SHIFT_JIS.decode_without_bom_handling(pair);
            if had_errors {
                return Err(ParseError::BadShiftJis { offset: offset + k });
            }
            s.push_str(&d);
            k += 2;
        } else if st.kanji && st.shift_jis && matches!(c, 0xA1..=0xDF) {
            // Half-width katakana: one byte.
            s.push_str(&encoding_rs::SHIFT_JIS.decode_without_bom_handling(&[c]).0);
            k += 1;
        } else if !st.kanji && st.cp1252 {
            s.push_str(&encoding_rs::WINDOWS_1252.decode_without_bom_handling(&[c]).0);
            k += 1;
        } else {
            return Err(ParseError::Unknown { offset: offset + k, byte: c });
        }
    }
    Ok(s)
}

/// The listener. Each connection is one job, read to its end and parsed.
pub struct TestPrinter {
    addr: SocketAddr,
    jobs: mpsc::Receiver<Result<Printout, ParseError>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl TestPrinter {
    /// Listens on 127.0.0.1 on a free port.
    pub fn start() -> std::io::Result<TestPrinter> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?;
        let (tx, jobs) = mpsc::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        let thread = std::thread::spawn(move || {
            for conn in listener.incoming() {
                if stopping.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(mut conn) = conn else { continue };
                let mut bytes = Vec::new();
                // A client that never closes must not hang the test: give up after 10 s.
                let _ = conn.set_read_timeout(Some(Duration::from_secs(10)));
                let job = conn.read_to_end(&mut bytes).map(|_| parse_escpos(&bytes));
                if let Ok(job) = job {
                    if tx.send(job).is_err() {
                        break;
                    }
                }
            }
        });
        Ok(TestPrinter { addr, jobs, stop, thread: Some(thread) })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The next job, waiting at most `timeout`; `None` if none came.
    pub fn next_job(&self, timeout: Duration) -> Option<Result<Printout, ParseError>> {
        self.jobs.recv_timeout(timeout).ok()
    }
}

impl Drop for TestPrinter {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag; then the port is closed.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
