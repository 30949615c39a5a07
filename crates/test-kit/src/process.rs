//! A PSP binary run as its own process on `127.0.0.1:0` says where it listens in its
//! first line (`listening on http://ADDR`); the harness that starts it reads it here.

use std::io::BufRead;

/// The URL of a `listening on URL` line, the first line the mock PSP prints once its
/// socket is bound: reading it is the signal that the server is ready.
pub fn listening_url(out: &mut impl BufRead) -> Result<String, String> {
    let mut line = String::new();
    out.read_line(&mut line).map_err(|e| format!("reading the PSP's first line: {e}"))?;
    line.trim().strip_prefix("listening on ").map(str::to_string).ok_or_else(|| format!("the PSP's first line is {line:?}, not `listening on URL`"))
}
