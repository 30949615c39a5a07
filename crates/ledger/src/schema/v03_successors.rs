//! Schema migration 3, frozen history: never edited once shipped (a new migration
//! is appended to `MIGRATIONS` in `schema/mod.rs` instead).

/// v3: an explicit new payment after an earlier one is made at most once per
/// predecessor, so re-running `checkout --after K` (or a second "Try another card" on
/// the same payment) resumes that payment instead of charging a second time.
pub(crate) const V3_SUCCESSORS: &str = r#"
-- next_id was started explicitly after previous_id (`Payments::payment_after`), in the
-- same transaction that created it. previous_id is the key: one successor per payment.
CREATE TABLE payment_successors (
    previous_id   INTEGER PRIMARY KEY REFERENCES payments(id),
    next_id       INTEGER NOT NULL UNIQUE REFERENCES payments(id),
    created_at_ms INTEGER NOT NULL
) STRICT;
"#;
