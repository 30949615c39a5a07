//! The migration for card-present payments on a server-driven reader (issue 27, decision
//! 0102), kept in its own file like the others. Appended to
//! `MIGRATIONS` as v18: one upgrade transaction.
//!
//! 1. `payments.state` gains `on_reader` (a process attempt may be running on a reader).
//!    SQLite cannot change a CHECK, so `payments` is rebuilt the documented way (new
//!    table, copy, drop, rename) with its two outbox triggers and two indexes recreated as
//!    v7 and v1 wrote them. `migrate` runs every upgrade with foreign keys off and checks
//!    them (`PRAGMA foreign_key_check`) before it commits; `legacy_alter_table` keeps the
//!    rename from re-checking the views that name `payments` (they resolve by name).
//! 2. `readers`: the readers this register knows (id `tmr_…`, label, location).
//! 3. `reader_payments`: which reader a payment is for, committed with the payment row
//!    before anything is sent (rule 1), and the PaymentIntent's id once known.
//! 4. `reader_attempts`: one row per process attempt, committed BEFORE it is sent, under
//!    its own key (`<checkout key>-process-<n>`); `n` grows only on a person's action.
//! 5. `card_present_details`: brand, last 4 and the EMV receipt fields of the charge, as
//!    the PSP answered them, for the receipt.
//!
//! The new tables are `IF NOT EXISTS`, like v17's: upgrade tests rebuild an older file
//! from a current one by dropping only the tables they know.

/// Schema v18.
pub(crate) const READER: &str = r#"
PRAGMA legacy_alter_table = ON;
CREATE TABLE payments_reader (
    id                  INTEGER PRIMARY KEY,
    idempotency_key     TEXT NOT NULL UNIQUE CHECK (length(idempotency_key) BETWEEN 1 AND 255),
    psp_payment_id      TEXT UNIQUE,
    amount_minor        INTEGER NOT NULL CHECK (amount_minor > 0),
    currency            TEXT NOT NULL CHECK (currency IN ('jpy','usd','eur','gbp','krw')),
    state               TEXT NOT NULL CHECK (state IN ('created','queued_offline','authorizing',
                            'authorized','capturing','captured','failed','canceled','refunding',
                            'partially_refunded','refunded','on_reader')),
    capture_method      TEXT NOT NULL CHECK (capture_method IN ('automatic','manual')),
    request_params      TEXT NOT NULL CHECK (json_valid(request_params)),
    cart_id             INTEGER REFERENCES carts(id),
    offline             INTEGER NOT NULL DEFAULT 0 CHECK (offline IN (0, 1)),
    created_at_ms       INTEGER NOT NULL,
    first_attempt_at_ms INTEGER,
    updated_at_ms       INTEGER NOT NULL,
    refunded_minor      INTEGER NOT NULL DEFAULT 0
                            CHECK (refunded_minor >= 0 AND refunded_minor <= amount_minor),
    last_error          TEXT,
    staff_id            INTEGER REFERENCES staff(id),
    -- A reader payment is never accepted offline (a server-driven reader cannot).
    CHECK (state <> 'on_reader' OR offline = 0)
) STRICT;
INSERT INTO payments_reader (id, idempotency_key, psp_payment_id, amount_minor, currency, state, capture_method,
                             request_params, cart_id, offline, created_at_ms, first_attempt_at_ms, updated_at_ms,
                             refunded_minor, last_error, staff_id)
SELECT id, idempotency_key, psp_payment_id, amount_minor, currency, state, capture_method,
       request_params, cart_id, offline, created_at_ms, first_attempt_at_ms, updated_at_ms,
       refunded_minor, last_error, staff_id
FROM payments ORDER BY id;
DROP TABLE payments;
ALTER TABLE payments_reader RENAME TO payments;
PRAGMA legacy_alter_table = OFF;
CREATE INDEX payments_by_state ON payments(state, created_at_ms);
CREATE INDEX payments_by_cart ON payments(cart_id);
CREATE TRIGGER outbox_payment_created AFTER INSERT ON payments
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT high_water + 1, NEW.created_at_ms,
           json_object('kind', 'payment_created', 'checkout_key', NEW.idempotency_key,
                       'amount', NEW.amount_minor, 'currency', NEW.currency)
    FROM outbox_seq WHERE id = 1;
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT high_water + 1, NEW.updated_at_ms,
           json_object('kind', 'payment_state', 'checkout_key', NEW.idempotency_key,
                       'state', NEW.state, 'psp_id', NEW.psp_payment_id)
    FROM outbox_seq WHERE id = 1 AND (NEW.state <> 'created' OR NEW.psp_payment_id IS NOT NULL);
END;
CREATE TRIGGER outbox_payment_state AFTER UPDATE OF state, psp_payment_id ON payments
WHEN NEW.state IS NOT OLD.state OR NEW.psp_payment_id IS NOT OLD.psp_payment_id
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT high_water + 1, NEW.updated_at_ms,
           json_object('kind', 'payment_state', 'checkout_key', NEW.idempotency_key,
                       'state', NEW.state, 'psp_id', NEW.psp_payment_id)
    FROM outbox_seq WHERE id = 1;
END;

CREATE TABLE IF NOT EXISTS readers (
    id               TEXT PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 255),
    label            TEXT NOT NULL CHECK (length(label) BETWEEN 1 AND 100),
    location         TEXT CHECK (location IS NULL OR length(location) BETWEEN 1 AND 255),
    device_type      TEXT CHECK (device_type IS NULL OR length(device_type) BETWEEN 1 AND 100),
    registered_at_ms INTEGER NOT NULL
) STRICT;

CREATE TABLE IF NOT EXISTS reader_payments (
    payment_id  INTEGER PRIMARY KEY REFERENCES payments(id),
    reader_id   TEXT NOT NULL CHECK (length(reader_id) BETWEEN 1 AND 255)
) STRICT;

-- outcome: sent (may be running; unknown until read), declined (intent back in
-- requires_payment_method with a failed or cleared action: not charged), canceled (the
-- action was canceled and the read showed nothing charged), succeeded (the intent
-- succeeded or holds the funds), superseded (a later attempt was made; kept as history).
CREATE TABLE IF NOT EXISTS reader_attempts (
    payment_id      INTEGER NOT NULL REFERENCES reader_payments(payment_id),
    attempt_no      INTEGER NOT NULL CHECK (attempt_no BETWEEN 1 AND 100),
    idempotency_key TEXT NOT NULL UNIQUE CHECK (length(idempotency_key) BETWEEN 1 AND 255),
    reader_id       TEXT NOT NULL CHECK (length(reader_id) BETWEEN 1 AND 255),
    outcome         TEXT NOT NULL CHECK (outcome IN ('sent','declined','canceled','succeeded')),
    failure_code    TEXT CHECK (failure_code IS NULL OR length(failure_code) <= 100),
    failure_message TEXT CHECK (failure_message IS NULL OR length(failure_message) <= 500),
    created_at_ms   INTEGER NOT NULL,
    updated_at_ms   INTEGER NOT NULL,
    PRIMARY KEY (payment_id, attempt_no)
) STRICT;

CREATE TABLE IF NOT EXISTS card_present_details (
    payment_id                     INTEGER PRIMARY KEY REFERENCES payments(id),
    brand                          TEXT CHECK (brand IS NULL OR length(brand) <= 40),
    last4                          TEXT CHECK (last4 IS NULL OR (length(last4) = 4 AND last4 NOT GLOB '*[^0-9]*')),
    read_method                    TEXT CHECK (read_method IS NULL OR length(read_method) <= 60),
    application_preferred_name     TEXT CHECK (application_preferred_name IS NULL OR length(application_preferred_name) <= 100),
    dedicated_file_name            TEXT CHECK (dedicated_file_name IS NULL OR length(dedicated_file_name) <= 100),
    authorization_response_code    TEXT CHECK (authorization_response_code IS NULL OR length(authorization_response_code) <= 20),
    authorization_code             TEXT CHECK (authorization_code IS NULL OR length(authorization_code) <= 40),
    account_type                   TEXT CHECK (account_type IS NULL OR length(account_type) <= 40),
    cardholder_verification_method TEXT CHECK (cardholder_verification_method IS NULL OR length(cardholder_verification_method) <= 60),
    recorded_at_ms                 INTEGER NOT NULL
) STRICT;
"#;
