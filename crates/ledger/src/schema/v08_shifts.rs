//! Schema migration 8, frozen history: never edited once shipped (a new migration
//! is appended to `MIGRATIONS` in `schema/mod.rs` instead).

/// v8: shifts, paid in/out, Z reports, who is signed in (record 0066, 0067).
pub(crate) const V8_SHIFTS: &str = r#"
-- A till session: opened on a counted float, closed on a blind count. At most one open.
CREATE TABLE shifts (
    id           INTEGER PRIMARY KEY,
    currency     TEXT NOT NULL CHECK (currency IN ('jpy','usd','eur','gbp','krw')),
    opened_at_ms INTEGER NOT NULL,
    opened_by    INTEGER NOT NULL REFERENCES staff(id),
    -- JSON [[denomination_minor, count], ...] as counted; float_minor is their sum.
    float_counts TEXT NOT NULL CHECK (json_valid(float_counts)),
    float_minor  INTEGER NOT NULL CHECK (float_minor >= 0),
    closed_at_ms INTEGER,
    closed_by    INTEGER REFERENCES staff(id),
    CHECK ((closed_at_ms IS NULL) = (closed_by IS NULL))
) STRICT;
CREATE UNIQUE INDEX shifts_one_open ON shifts((closed_at_ms IS NULL)) WHERE closed_at_ms IS NULL;

-- Cash put in or taken out of the drawer outside a sale, with who and why.
CREATE TABLE paid_in_out (
    id           INTEGER PRIMARY KEY,
    shift_id     INTEGER NOT NULL REFERENCES shifts(id),
    kind         TEXT NOT NULL CHECK (kind IN ('paid_in','paid_out')),
    amount_minor INTEGER NOT NULL CHECK (amount_minor > 0),
    currency     TEXT NOT NULL CHECK (currency IN ('jpy','usd','eur','gbp','krw')),
    reason       TEXT NOT NULL CHECK (length(reason) BETWEEN 3 AND 200),
    staff_id     INTEGER NOT NULL REFERENCES staff(id),
    approver_id  INTEGER REFERENCES staff(id),
    at_ms        INTEGER NOT NULL
) STRICT;
CREATE INDEX paid_in_out_by_shift ON paid_in_out(shift_id);

-- Which shift's drawer a movement and a tender belong to (NULL: before shifts, or a
-- store that does not sign in).
ALTER TABLE cash_movements ADD COLUMN shift_id INTEGER REFERENCES shifts(id);
ALTER TABLE tenders ADD COLUMN shift_id INTEGER REFERENCES shifts(id);
CREATE INDEX cash_movements_by_shift ON cash_movements(shift_id) WHERE shift_id IS NOT NULL;
CREATE INDEX tenders_by_shift ON tenders(shift_id) WHERE shift_id IS NOT NULL;

-- Who is signed in at this register: at most one person. Money rows and audit rows
-- written while someone is signed in name them.
CREATE TABLE register_session (
    id        INTEGER PRIMARY KEY CHECK (id = 1),
    staff_id  INTEGER NOT NULL REFERENCES staff(id),
    since_ms  INTEGER NOT NULL
) STRICT;
ALTER TABLE payments ADD COLUMN staff_id INTEGER REFERENCES staff(id);
ALTER TABLE tenders ADD COLUMN staff_id INTEGER REFERENCES staff(id);
ALTER TABLE refunds ADD COLUMN staff_id INTEGER REFERENCES staff(id);
ALTER TABLE cash_movements ADD COLUMN staff_id INTEGER REFERENCES staff(id);

-- The closing of a shift, numbered 1, 2, 3 ... with no gap, never changed or deleted.
CREATE TABLE z_reports (
    z_number         INTEGER PRIMARY KEY CHECK (z_number >= 1),
    shift_id         INTEGER NOT NULL UNIQUE REFERENCES shifts(id),
    closed_at_ms     INTEGER NOT NULL,
    closed_by        INTEGER NOT NULL REFERENCES staff(id),
    approver_id      INTEGER REFERENCES staff(id),
    counted_counts   TEXT NOT NULL CHECK (json_valid(counted_counts)),
    counted_minor    INTEGER NOT NULL CHECK (counted_minor >= 0),
    expected_minor   INTEGER NOT NULL,
    over_short_minor INTEGER NOT NULL CHECK (over_short_minor = counted_minor - expected_minor),
    -- The whole report as shown and printed (JSON of the ledger's ShiftReport).
    report           TEXT NOT NULL CHECK (json_valid(report)),
    -- The audit chain's head right after the close's own row: a printed Z report
    -- anchors the chain, so rows cut from its end are found later.
    audit_seq        INTEGER NOT NULL,
    audit_hash       BLOB NOT NULL CHECK (length(audit_hash) = 32)
) STRICT;
CREATE TRIGGER z_reports_consecutive BEFORE INSERT ON z_reports
WHEN NEW.z_number <> (SELECT COALESCE(MAX(z_number), 0) + 1 FROM z_reports)
BEGIN SELECT RAISE(ABORT, 'Z reports are numbered consecutively'); END;
CREATE TRIGGER z_reports_never_changed BEFORE UPDATE ON z_reports
BEGIN SELECT RAISE(ABORT, 'a Z report is never changed'); END;
CREATE TRIGGER z_reports_never_deleted BEFORE DELETE ON z_reports
BEGIN SELECT RAISE(ABORT, 'a Z report is never deleted'); END;
"#;
