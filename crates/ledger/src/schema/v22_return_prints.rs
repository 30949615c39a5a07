//! The migration that records each print of a return document (issue #29, record 0117),
//! kept in its own file like the others. Appended to `MIGRATIONS` as v22.
//!
//! `return_prints` holds, per return, every print attempt of its document with the rule
//! of the sale's receipt (record 0058, schema v15): the document is printed unmarked
//! until a copy may have reached paper (printed, or stopped part-way); an attempt that
//! reached no printer leaves the next one the original; every later one is
//! 【再発行】/REPRINT. A trigger holds the rule, as `receipt_prints_one_original` does.
//! A table of its own rather than `receipt_prints`: that one is keyed by the sale, and a
//! sale can have several returns, each with its own original.
//!
//! `IF NOT EXISTS` everywhere, like v17's and v20's: upgrade tests rebuild an older file
//! from a current one by dropping only the tables they know.

/// The return-document prints migration.
pub(crate) const RETURN_PRINTS: &str = r#"
CREATE TABLE IF NOT EXISTS return_prints (
    id         INTEGER PRIMARY KEY,
    return_id  INTEGER NOT NULL REFERENCES returns(id),
    print_no   INTEGER NOT NULL CHECK (print_no BETWEEN 1 AND 10000),
    reprint    INTEGER NOT NULL CHECK (reprint IN (0,1)),
    format     TEXT NOT NULL CHECK (format IN ('text','escpos')),
    target     TEXT NOT NULL CHECK (length(target) BETWEEN 1 AND 300),
    outcome    TEXT NOT NULL CHECK (outcome IN ('printed','failed','rendered')),
    error      TEXT CHECK (error IS NULL OR length(error) <= 1000),
    at_ms      INTEGER NOT NULL,
    -- 1: paper may have come out (printed, or stopped part-way); 0: nothing reached a printer.
    paper      INTEGER NOT NULL CHECK (paper IN (0,1)),
    UNIQUE (return_id, print_no),
    CHECK (outcome <> 'printed' OR paper = 1),
    CHECK (outcome <> 'rendered' OR paper = 0)
) STRICT;
-- Unmarked exactly while no earlier copy of the return's document may have come out.
CREATE TRIGGER IF NOT EXISTS return_prints_one_original BEFORE INSERT ON return_prints
WHEN NEW.reprint <> EXISTS (SELECT 1 FROM return_prints p WHERE p.return_id = NEW.return_id AND p.paper = 1)
BEGIN SELECT RAISE(ABORT, 'a return document is unmarked until a copy may have come out, and marked after'); END;
"#;
