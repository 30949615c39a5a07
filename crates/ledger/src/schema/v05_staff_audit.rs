//! Schema migration 5, frozen history: never edited once shipped (a new migration
//! is appended to `MIGRATIONS` in `schema/mod.rs` instead).

/// v5 (record 0062): staff with hashed PINs and their lockout counters; the audit log
/// becomes a SHA-256 chain naming who did it. Rows written before the upgrade are
/// chained (in id order) by `seal_audit` in this same transaction: SQL cannot hash.
pub(crate) const V5_STAFF_AUDIT: &str = r#"
CREATE TABLE staff (
    id              INTEGER PRIMARY KEY,
    name            TEXT NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 60),
    role            TEXT NOT NULL CHECK (role IN ('cashier','manager','owner')),
    -- Argon2id in PHC form (salt and parameters inside); never the PIN.
    pin_hash        TEXT NOT NULL CHECK (length(pin_hash) BETWEEN 1 AND 256),
    pin_failures    INTEGER NOT NULL DEFAULT 0 CHECK (pin_failures >= 0),
    locked_until_ms INTEGER,
    active          INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0,1)),
    created_at_ms   INTEGER NOT NULL
) STRICT;

ALTER TABLE audit_log ADD COLUMN actor_id INTEGER REFERENCES staff(id);
ALTER TABLE audit_log ADD COLUMN approver_id INTEGER REFERENCES staff(id);
ALTER TABLE audit_log ADD COLUMN subject TEXT NOT NULL DEFAULT '';
ALTER TABLE audit_log ADD COLUMN before_doc TEXT;
ALTER TABLE audit_log ADD COLUMN after_doc TEXT;
ALTER TABLE audit_log ADD COLUMN prev_hash BLOB CHECK (prev_hash IS NULL OR length(prev_hash) = 32);
ALTER TABLE audit_log ADD COLUMN hash BLOB CHECK (hash IS NULL OR length(hash) = 32);
-- Before v5 the row said what it concerned in `detail`.
UPDATE audit_log SET subject = coalesce(detail, '');
"#;
