//! The store's in-store label rules (issue #30 "counter rules", record 0136), kept in its own
//! file like the others. Appended to `MIGRATIONS` after weighed goods (v31).
//!
//! - `in_store_rules`: one row per label layout, in the order they are tried (`position`
//!   1..=10): a GS1 restricted-circulation prefix (02 or 20–29), how many digits after it
//!   name the item (1..=9, so at least one value digit is left), and whether the rest is a
//!   price or a weight. The CHECKs mirror `paydesk_tax::InStoreRule::validate`; the prefix
//!   is UNIQUE, as only the first rule with a prefix could ever read a label.
//! - `in_store_rules_own`: one row (id 1) once the store set its own list. No row: the
//!   built-in defaults (02 price, 21 grams). A row and no rules: the store reads no labels
//!   at all (every code is looked up as a plain barcode). Apart from the rules so an empty
//!   list is still a choice that was made.
//!
//! Only new tables, `IF NOT EXISTS`: running it again on a file an upgrade test rolled back
//! changes nothing.

/// The counter rules migration.
pub(crate) const COUNTER_RULES: &str = r#"
CREATE TABLE IF NOT EXISTS in_store_rules (
    position    INTEGER PRIMARY KEY CHECK (position BETWEEN 1 AND 10),
    prefix      TEXT NOT NULL UNIQUE CHECK (prefix = '02' OR (length(prefix) = 2 AND prefix GLOB '2[0-9]')),
    item_digits INTEGER NOT NULL CHECK (item_digits BETWEEN 1 AND 9),
    value       TEXT NOT NULL CHECK (value IN ('price', 'weight_grams'))
) STRICT;

CREATE TABLE IF NOT EXISTS in_store_rules_own (
    id INTEGER PRIMARY KEY CHECK (id = 1)
) STRICT;
"#;
