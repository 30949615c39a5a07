//! The migration that records the ryōshūsho (領収書) issued at the counter (issue #29,
//! record 0112), kept in its own file like the others. Appended to `MIGRATIONS` as v19
//! and applied by `migrate` in the one upgrade transaction.
//!
//! `ryoshusho`: ONE row per sale (the primary key is the cart), so two formal receipts
//! for the same money cannot exist: issuing again reads this row and prints it as a
//! reprint. `number` is the sale's receipt number with "-1"; the amounts are minor units
//! as the document stated them when first issued; `stamp_duty_minor` is NULL when no
//! stamp was needed (a card sale, under the threshold, a store without stamp duty);
//! `print_count` counts every issue (the first and each reprint), whether or not a
//! printer took it.
//!
//! `IF NOT EXISTS`, like v17's: upgrade tests rebuild an older file from a current one
//! by dropping only the tables they know.

/// Schema v19.
pub(crate) const RYOSHUSHO: &str = r#"
CREATE TABLE IF NOT EXISTS ryoshusho (
    cart_id          INTEGER PRIMARY KEY REFERENCES carts(id),
    number           TEXT NOT NULL UNIQUE CHECK (length(number) BETWEEN 1 AND 40),
    addressee        TEXT NOT NULL CHECK (length(addressee) <= 64),
    description      TEXT NOT NULL CHECK (length(description) BETWEEN 1 AND 64),
    total_minor      INTEGER NOT NULL CHECK (total_minor > 0),
    cash_minor       INTEGER NOT NULL CHECK (cash_minor >= 0 AND cash_minor <= total_minor),
    stamp_duty_minor INTEGER CHECK (stamp_duty_minor IS NULL OR stamp_duty_minor > 0),
    issued_by        INTEGER REFERENCES staff(id),
    issued_at_ms     INTEGER NOT NULL,
    print_count      INTEGER NOT NULL DEFAULT 1 CHECK (print_count >= 1),
    last_issued_at_ms INTEGER NOT NULL
) STRICT;
"#;
