//! The auditor's search (issue #32, record 0146), the register's side: the audit chain's rows
//! and each receipt print, with the text printed, go up to the back office.
//!
//! - `receipt_texts`: per print (`receipt_prints.id`), the text as printed (the receipt's lines
//!   joined by "\n"; NULL when longer than the wire takes), its SHA-256, who was signed in, and
//!   the seq of the audit row `receipt_print` that recorded the print with that SHA-256 (the row
//!   that binds the text into the chain). A table of its own, not columns of `receipt_prints`:
//!   v15 rebuilds that table, and upgrade tests that roll a file back re-run it.
//! - `outbox_audit_row`: every audit row appended goes up as `audit_row` with exactly what its
//!   hash covers, its link and its hash, in the same transaction (no code path skips it).
//! - `outbox_receipt_printed`: every print's text goes up as `receipt_printed`.
//!
//! No back-fill: rows and prints from before the upgrade stay on the register. A proof walks
//! from a sale's row to a head the back office confirmed; for a receipt printed after the
//! upgrade every row on that walk is sent. Back-filling a chain of years would queue it all
//! in one upgrade transaction. `IF NOT EXISTS` everywhere, as v17, v20 and v22: upgrade tests
//! rebuild an older file from a current one.

/// Schema v38.
pub(crate) const AUDIT_ROWS: &str = r#"
CREATE TABLE IF NOT EXISTS receipt_texts (
    print_id    INTEGER PRIMARY KEY,
    text        TEXT CHECK (text IS NULL OR length(CAST(text AS BLOB)) <= 98304),
    text_sha256 TEXT NOT NULL CHECK (length(text_sha256) = 64),
    staff_id    INTEGER,
    audit_seq   INTEGER NOT NULL CHECK (audit_seq >= 1)
) STRICT;

CREATE TRIGGER IF NOT EXISTS outbox_audit_row AFTER INSERT ON audit_log
BEGIN
    -- Queued at SQLite's clock by julianday, as v14's own items and staff (an old SQLite
    -- reads it): the row's own time travels in
    -- the fact (its hash covers it); an action dated by its caller (a test's small clock, a
    -- back-dated import) must not make the back office refuse the whole batch as a bad clock.
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT high_water + 1, CAST(round((julianday('now') - 2440587.5) * 86400000) AS INTEGER),
           json_object('kind', 'audit_row', 'seq', NEW.id, 'at_ms', NEW.at_ms,
                       'actor_id', NEW.actor_id, 'approver_id', NEW.approver_id,
                       'action', NEW.action, 'subject', NEW.subject,
                       -- the column predates the chain: '' is "no reason", which the hash covers as none
                       'reason', NULLIF(NEW.reason, ''),
                       'before', NEW.before_doc, 'after', NEW.after_doc,
                       'prev_hash', lower(hex(NEW.prev_hash)), 'hash', lower(hex(NEW.hash)))
    FROM outbox_seq WHERE id = 1;
END;

CREATE TRIGGER IF NOT EXISTS outbox_receipt_printed AFTER INSERT ON receipt_texts
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT o.high_water + 1, p.at_ms,
           json_object('kind', 'receipt_printed', 'sale', p.cart_id, 'receipt_no', printf('%06d', p.cart_id),
                       'print_no', p.print_no,
                       'reprint', json(CASE p.reprint WHEN 1 THEN 'true' ELSE 'false' END),
                       'outcome', p.outcome,
                       'paper', json(CASE p.paper WHEN 1 THEN 'true' ELSE 'false' END),
                       'staff', NEW.staff_id,
                       'staff_name', (SELECT s.name FROM staff s WHERE s.id = NEW.staff_id),
                       'text', NEW.text, 'text_sha256', NEW.text_sha256, 'audit_seq', NEW.audit_seq)
    FROM outbox_seq o JOIN receipt_prints p ON p.id = NEW.print_id
    WHERE o.id = 1;
END;
"#;
