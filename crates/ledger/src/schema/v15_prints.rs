//! The migration that records whether paper may have come out of each receipt print
//! (record 0058), kept in its own file like v9-v13. Appended to
//! `MIGRATIONS` as one entry: one upgrade transaction, like every migration.
//!
//! The rule it stores: a sale's receipt is printed unmarked until a copy may have reached
//! paper. An attempt that reached no printer (refused, timed out connecting, no device)
//! leaves the next one the original — unmarked and, for a cash sale, opening the drawer;
//! once a copy may have come out (printed, or stopped part-way), every later one is
//! 【再発行】/REPRINT and never opens the drawer. Before, print 1 was the only unmarked one
//! (a CHECK), so a first print refused by a printer that was off made every copy a reprint
//! and the drawer of that cash sale never opened. The CHECK becomes a trigger over the new
//! `paper` column; SQLite cannot drop a CHECK, so the table is rebuilt.

/// Schema v15.
pub(crate) const PRINTS: &str = r#"
CREATE TABLE receipt_prints_paper (
    id         INTEGER PRIMARY KEY,
    cart_id    INTEGER NOT NULL REFERENCES carts(id),
    print_no   INTEGER NOT NULL CHECK (print_no BETWEEN 1 AND 10000),
    reprint    INTEGER NOT NULL CHECK (reprint IN (0,1)),
    format     TEXT NOT NULL CHECK (format IN ('text','html','escpos')),
    target     TEXT NOT NULL CHECK (length(target) BETWEEN 1 AND 300),
    outcome    TEXT NOT NULL CHECK (outcome IN ('printed','failed','rendered')),
    error      TEXT CHECK (error IS NULL OR length(error) <= 1000),
    at_ms      INTEGER NOT NULL,
    -- 1: paper may have come out (printed, or stopped part-way); 0: nothing reached a printer.
    paper      INTEGER NOT NULL CHECK (paper IN (0,1)),
    UNIQUE (cart_id, print_no),
    CHECK (outcome <> 'printed' OR paper = 1),
    CHECK (outcome <> 'rendered' OR paper = 0)
) STRICT;
-- A failure recorded before did not say whether paper came out: counted as if it may
-- have (its retries were marked already), so no old sale gets a second unmarked copy.
INSERT INTO receipt_prints_paper (id, cart_id, print_no, reprint, format, target, outcome, error, at_ms, paper)
SELECT id, cart_id, print_no, reprint, format, target, outcome, error, at_ms,
       CASE outcome WHEN 'rendered' THEN 0 ELSE 1 END
FROM receipt_prints ORDER BY id;
DROP TABLE receipt_prints;
ALTER TABLE receipt_prints_paper RENAME TO receipt_prints;
-- Unmarked exactly while no earlier copy of the sale may have come out.
CREATE TRIGGER receipt_prints_one_original BEFORE INSERT ON receipt_prints
WHEN NEW.reprint <> EXISTS (SELECT 1 FROM receipt_prints p WHERE p.cart_id = NEW.cart_id AND p.paper = 1)
BEGIN SELECT RAISE(ABORT, 'a receipt is unmarked until a copy may have come out, and marked after'); END;
"#;
