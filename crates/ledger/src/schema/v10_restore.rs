//! The migration that gives a replacement register its predecessor's history (design
//! record 0048), kept in its own file like v9. Appended to `MIGRATIONS` as one entry.

/// `restore_sources`: each predecessor restored from, as the back office described it.
/// `restored_history`: its journal rows, appended in seq order with no gap (so a run
/// killed half way resumes after the last row), never updated or deleted. No trigger
/// writes the outbox from these tables: this register never sends them as its own.
pub(crate) const RESTORE: &str = r#"
CREATE TABLE restore_sources (
    register_id     TEXT PRIMARY KEY CHECK (length(register_id) BETWEEN 1 AND 255),
    register_name   TEXT NOT NULL CHECK (length(register_name) <= 200),
    -- the predecessor's history at the back office ends here (seqs 1..acked_through)
    acked_through   INTEGER NOT NULL CHECK (acked_through >= 0),
    -- the back office's whole description (replaced when, rows still queued at its last
    -- sync: never received), as JSON: kept for people, not read by the ledger
    described       TEXT NOT NULL CHECK (json_valid(described) AND length(described) <= 4096),
    started_at_ms   INTEGER NOT NULL,
    finished_at_ms  INTEGER
) STRICT;

CREATE TABLE restored_history (
    source          TEXT NOT NULL REFERENCES restore_sources(register_id),
    seq             INTEGER NOT NULL CHECK (seq >= 1),
    at_ms           INTEGER NOT NULL,
    kind            TEXT NOT NULL CHECK (length(kind) BETWEEN 1 AND 64),
    fact            TEXT NOT NULL CHECK (json_valid(fact)),
    restored_at_ms  INTEGER NOT NULL,
    PRIMARY KEY (source, seq)
) STRICT;
CREATE TRIGGER restored_history_in_order BEFORE INSERT ON restored_history
WHEN NEW.seq <> (SELECT COALESCE(MAX(seq), 0) + 1 FROM restored_history WHERE source = NEW.source)
BEGIN SELECT RAISE(ABORT, 'restored history is appended in seq order, without a gap'); END;
CREATE TRIGGER restored_history_read_only BEFORE UPDATE ON restored_history
BEGIN SELECT RAISE(ABORT, 'restored history is read-only'); END;
CREATE TRIGGER restored_history_never_deleted BEFORE DELETE ON restored_history
BEGIN SELECT RAISE(ABORT, 'restored history is read-only'); END;
"#;
