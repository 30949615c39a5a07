//! One CSV cell as the reports (record 0140) and the accountant's journal (record 0141)
//! write it, safe to open in a spreadsheet: text that starts with `=`, `+`, `-`, `@`, a tab
//! or a carriage return is a formula to Excel and is written with a leading `'` (an item
//! name is the register's, and anyone can type one); a cell holding a comma, quote or line
//! break is quoted, its quotes doubled (RFC 4180).

/// The cell for `s`.
pub fn cell(s: &str) -> String {
    let s = if s.starts_with(['=', '+', '-', '@', '\t', '\r']) { format!("'{s}") } else { s.to_string() };
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}
