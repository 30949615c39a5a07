//! Schema migration 2, frozen history: never edited once shipped (a new migration
//! is appended to `MIGRATIONS` in `schema/mod.rs` instead).

/// v2 (issue 4): the event consumer's cursor survives a restart; keys reissued after
/// the PSP stored a failure for the earlier key (that key can only ever replay it).
pub(crate) const V2_CURSOR_REISSUE: &str = r#"
-- One row per PSP endpoint (base URL + account fingerprint, never the secret key):
-- the newest event `created` (Unix seconds) whose poll was fully applied. The next
-- poll starts at created_s minus the overlap window; application stays exactly-once
-- through processed_events, the cursor only saves re-reading.
CREATE TABLE event_cursors (
    psp           TEXT PRIMARY KEY CHECK (length(psp) BETWEEN 1 AND 512),
    created_s     INTEGER NOT NULL CHECK (created_s >= 0),
    updated_at_ms INTEGER NOT NULL
) STRICT;

-- A fresh idempotency key for a capture, cancel or refund whose previous key got a
-- stored failure (a 500) from the PSP, committed BEFORE it is sent (rule 1,
-- docs/decisions/0003-key-before-network.md).
-- root_key is the operation's first key; generation 1 is the first reissue. A refund
-- reissue is a new refunds row (idempotency_key = refunds.idempotency_key).
CREATE TABLE reissued_keys (
    idempotency_key TEXT PRIMARY KEY CHECK (length(idempotency_key) BETWEEN 1 AND 255),
    payment_id      INTEGER NOT NULL REFERENCES payments(id),
    operation       TEXT NOT NULL CHECK (operation IN ('capture','cancel','refund')),
    root_key        TEXT NOT NULL,
    generation      INTEGER NOT NULL CHECK (generation BETWEEN 1 AND 1000),
    refund_id       INTEGER REFERENCES refunds(id),
    reason          TEXT NOT NULL,
    created_at_ms   INTEGER NOT NULL,
    UNIQUE (operation, root_key, generation)
) STRICT;
CREATE INDEX reissued_keys_by_payment ON reissued_keys(payment_id);
"#;
