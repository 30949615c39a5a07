//! The back office's offline money caps, as published to this register (record 0139). Kept
//! in a table of its own so that the back office's write never passes through the outbox
//! triggers of the register's own store settings (record 0052).
//!
//! - `published_offline_caps`: one row at most (`id = 1`): the currency the caps are in, the
//!   largest payment a register may accept offline and the most it may hold offline at once,
//!   in that currency's minor units. No row: the back office has published none.
//!
//! `IF NOT EXISTS` where an upgrade test rebuilds an older file from a current one.

/// The published offline caps migration.
pub(crate) const PUBLISHED_CAPS: &str = r#"
CREATE TABLE IF NOT EXISTS published_offline_caps (
    id                INTEGER PRIMARY KEY CHECK (id = 1),
    currency          TEXT    NOT NULL CHECK (length(currency) = 3 AND currency = lower(currency)),
    per_payment_minor INTEGER NOT NULL CHECK (per_payment_minor >= 0),
    total_minor       INTEGER NOT NULL CHECK (total_minor >= per_payment_minor),
    updated_at_ms     INTEGER NOT NULL
) STRICT;
"#;
