//! Schema v39 (record 0144's print, issue #29): each print of the document of a return of a
//! sale restored from a replaced register. `restored_return_prints` is `return_prints` (v22)
//! for `restored_returns`: per return, every attempt, the original until a copy may have come
//! out, held by a trigger as v22's is. Each row also keeps the SHA-256 of the text printed and
//! the seq of the audit row `restored_return_print` that recorded it (record 0146's rule:
//! every print is audited with its text's hash; the audit row goes up by v38's trigger).
//! A table of its own: `return_prints.return_id` references this register's own `returns`.
//!
//! `IF NOT EXISTS` everywhere, as v22's and v38's: upgrade tests rebuild an older file from a
//! current one by dropping only what they know.

/// Schema v39.
pub(crate) const RESTORED_RETURN_PRINTS: &str = r#"
CREATE TABLE IF NOT EXISTS restored_return_prints (
    id          INTEGER PRIMARY KEY,
    return_id   INTEGER NOT NULL REFERENCES restored_returns(id),
    print_no    INTEGER NOT NULL CHECK (print_no BETWEEN 1 AND 10000),
    reprint     INTEGER NOT NULL CHECK (reprint IN (0,1)),
    format      TEXT NOT NULL CHECK (format IN ('text','escpos')),
    target      TEXT NOT NULL CHECK (length(target) BETWEEN 1 AND 300),
    outcome     TEXT NOT NULL CHECK (outcome IN ('printed','failed','rendered')),
    error       TEXT CHECK (error IS NULL OR length(error) <= 1000),
    at_ms       INTEGER NOT NULL,
    -- 1: paper may have come out (printed, or stopped part-way); 0: nothing reached a printer.
    paper       INTEGER NOT NULL CHECK (paper IN (0,1)),
    text_sha256 TEXT NOT NULL CHECK (length(text_sha256) = 64),
    audit_seq   INTEGER NOT NULL CHECK (audit_seq >= 1),
    UNIQUE (return_id, print_no),
    CHECK (outcome <> 'printed' OR paper = 1),
    CHECK (outcome <> 'rendered' OR paper = 0)
) STRICT;
-- Unmarked exactly while no earlier copy of the return's document may have come out.
CREATE TRIGGER IF NOT EXISTS restored_return_prints_one_original BEFORE INSERT ON restored_return_prints
WHEN NEW.reprint <> EXISTS (SELECT 1 FROM restored_return_prints p WHERE p.return_id = NEW.return_id AND p.paper = 1)
BEGIN SELECT RAISE(ABORT, 'a return document is unmarked until a copy may have come out, and marked after'); END;
"#;
