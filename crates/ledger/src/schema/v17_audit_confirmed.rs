//! The migration that keeps the audit head the back office last confirmed (record 0053),
//! kept in its own file like the others. Appended to `MIGRATIONS` as v17.

/// One row: the head (seq, hash) the back office last confirmed and when this register
/// learned it. `IF NOT EXISTS`: a file rebuilt to an older version by a test that drops
/// only what it knows keeps working.
pub(crate) const AUDIT_CONFIRMED: &str = r#"
CREATE TABLE IF NOT EXISTS audit_confirmed (
    id              INTEGER PRIMARY KEY CHECK (id = 1),
    seq             INTEGER NOT NULL CHECK (seq >= 0),
    hash            BLOB NOT NULL CHECK (length(hash) = 32),
    confirmed_at_ms INTEGER NOT NULL
) STRICT;
"#;
