//! Versioned schema. `PRAGMA user_version` holds the number of migrations applied.
//!
//! Migrations are append-only history: never edit a shipped entry, add a new one. They
//! are applied by `migrate` (at open) in ONE `BEGIN IMMEDIATE` transaction together with the
//! `user_version` bump, so a crash mid-upgrade leaves the old schema intact.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension, TransactionBehavior};

use crate::error::{Error, Result};

/// Highest schema version this build understands.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// `MIGRATIONS[i]` moves the schema from version `i` to `i + 1`.
pub const MIGRATIONS: &[&str] = &[
    // v1: everything of issue 2.
    r#"
CREATE TABLE products (
    id            INTEGER PRIMARY KEY,
    sku           TEXT NOT NULL UNIQUE CHECK (length(sku) BETWEEN 1 AND 64),
    name          TEXT NOT NULL,
    price_minor   INTEGER NOT NULL CHECK (price_minor >= 0),
    currency      TEXT NOT NULL CHECK (currency IN ('jpy','usd','eur','gbp','krw'))
) STRICT;

CREATE TABLE carts (
    id            INTEGER PRIMARY KEY,
    currency      TEXT NOT NULL CHECK (currency IN ('jpy','usd','eur','gbp','krw')),
    -- open: editable; locked: a checkout is open, its parameters must not change
    -- (rule 2, docs/decisions/0004-same-request-every-retry.md); paid: done.
    state         TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open','locked','paid')),
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL
) STRICT;

CREATE TABLE cart_lines (
    cart_id          INTEGER NOT NULL REFERENCES carts(id),
    product_id       INTEGER NOT NULL REFERENCES products(id),
    quantity         INTEGER NOT NULL CHECK (quantity > 0),
    -- Price when added: a catalog change must not silently reprice an open cart.
    unit_price_minor INTEGER NOT NULL CHECK (unit_price_minor >= 0),
    PRIMARY KEY (cart_id, product_id)
) STRICT;

CREATE TABLE payments (
    id                  INTEGER PRIMARY KEY,
    -- rule 4 (docs/decisions/0006-unique-keys-in-the-ledger.md): the key is claimed by this
    -- constraint before any network I/O.
    idempotency_key     TEXT NOT NULL UNIQUE CHECK (length(idempotency_key) BETWEEN 1 AND 255),
    psp_payment_id      TEXT UNIQUE,
    amount_minor        INTEGER NOT NULL CHECK (amount_minor > 0),
    currency            TEXT NOT NULL CHECK (currency IN ('jpy','usd','eur','gbp','krw')),
    state               TEXT NOT NULL CHECK (state IN ('created','queued_offline','authorizing',
                            'authorized','capturing','captured','failed','canceled','refunding',
                            'partially_refunded','refunded')),
    capture_method      TEXT NOT NULL CHECK (capture_method IN ('automatic','manual')),
    -- rule 2 (docs/decisions/0004-same-request-every-retry.md): the exact PSP request
    -- parameters, as ordered [name, value] pairs in JSON. Every retry sends these, never
    -- parameters rebuilt from the cart.
    request_params      TEXT NOT NULL CHECK (json_valid(request_params)),
    cart_id             INTEGER REFERENCES carts(id),
    offline             INTEGER NOT NULL DEFAULT 0 CHECK (offline IN (0, 1)),
    created_at_ms       INTEGER NOT NULL,
    -- rule 6 (docs/decisions/0008-dedup-window-guard.md): the dedup-window guard measures
    -- from the first attempt.
    first_attempt_at_ms INTEGER,
    updated_at_ms       INTEGER NOT NULL,
    refunded_minor      INTEGER NOT NULL DEFAULT 0
                            CHECK (refunded_minor >= 0 AND refunded_minor <= amount_minor),
    last_error          TEXT
) STRICT;
CREATE INDEX payments_by_state ON payments(state, created_at_ms);
CREATE INDEX payments_by_cart ON payments(cart_id);

CREATE TABLE refunds (
    id                  INTEGER PRIMARY KEY,
    idempotency_key     TEXT NOT NULL UNIQUE CHECK (length(idempotency_key) BETWEEN 1 AND 255),
    payment_id          INTEGER NOT NULL REFERENCES payments(id),
    amount_minor        INTEGER NOT NULL CHECK (amount_minor > 0),
    currency            TEXT NOT NULL CHECK (currency IN ('jpy','usd','eur','gbp','krw')),
    state               TEXT NOT NULL CHECK (state IN ('pending','in_flight','succeeded','failed')),
    psp_refund_id       TEXT UNIQUE,
    reason              TEXT,
    request_params      TEXT NOT NULL CHECK (json_valid(request_params)),
    created_at_ms       INTEGER NOT NULL,
    first_attempt_at_ms INTEGER,
    updated_at_ms       INTEGER NOT NULL
) STRICT;
CREATE INDEX refunds_by_payment ON refunds(payment_id);
CREATE INDEX refunds_by_state ON refunds(state);

CREATE TABLE payment_timeline (
    id          INTEGER PRIMARY KEY,
    payment_id  INTEGER NOT NULL REFERENCES payments(id),
    refund_id   INTEGER REFERENCES refunds(id),
    at_ms       INTEGER NOT NULL,
    kind        TEXT NOT NULL,
    detail      TEXT NOT NULL,
    outcome     TEXT,
    latency_ms  INTEGER,
    replayed    INTEGER NOT NULL DEFAULT 0 CHECK (replayed IN (0, 1)),
    attempt_no  INTEGER
) STRICT;
CREATE INDEX timeline_by_payment ON payment_timeline(payment_id, id);

-- rule 9 (docs/decisions/0011-idempotent-event-consumer.md): the PRIMARY KEY is the idempotent consumer.
CREATE TABLE processed_events (
    event_id      TEXT PRIMARY KEY,
    event_type    TEXT NOT NULL,
    payment_id    INTEGER REFERENCES payments(id),
    applied_at_ms INTEGER NOT NULL,
    effect        TEXT NOT NULL
) STRICT;

-- Accounting: exactly one row per applied event (UNIQUE event_id). amount_minor is
-- signed: + money in (capture), - money out (refund), 0 for events with no money.
CREATE TABLE journal (
    id           INTEGER PRIMARY KEY,
    event_id     TEXT NOT NULL UNIQUE REFERENCES processed_events(event_id),
    payment_id   INTEGER REFERENCES payments(id),
    at_ms        INTEGER NOT NULL,
    account      TEXT NOT NULL CHECK (account IN ('sales','refunds','none')),
    amount_minor INTEGER NOT NULL,
    currency     TEXT CHECK (currency IS NULL OR currency IN ('jpy','usd','eur','gbp','krw')),
    memo         TEXT NOT NULL
) STRICT;

CREATE TABLE audit_log (
    id      INTEGER PRIMARY KEY,
    at_ms   INTEGER NOT NULL,
    action  TEXT NOT NULL,
    reason  TEXT NOT NULL,
    detail  TEXT
) STRICT;
"#,
    // v2 (issue 4): the event consumer's cursor survives a restart; keys reissued after
    // the PSP stored a failure for the earlier key (that key can only ever replay it).
    r#"
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
"#,
    // v3: an explicit new payment after an earlier one is made at most once per
    // predecessor, so re-running `checkout --after K` (or a second "Try another card" on
    // the same payment) resumes that payment instead of charging a second time.
    r#"
-- next_id was started explicitly after previous_id (`Ledger::payment_after`), in the
-- same transaction that created it. previous_id is the key: one successor per payment.
CREATE TABLE payment_successors (
    previous_id   INTEGER PRIMARY KEY REFERENCES payments(id),
    next_id       INTEGER NOT NULL UNIQUE REFERENCES payments(id),
    created_at_ms INTEGER NOT NULL
) STRICT;
"#,
    // v4 (design §8): a sale (the cart) paid by one or more tenders, cash or card; the
    // drawer's cash movements; per-currency cash rounding; a sale's cancel. Every cart
    // payment made before gets its card tender in this same transaction.
    r#"
-- A card tender IS a payment (payment_id, UNIQUE); a cash tender records what was
-- handed over and given back. amount_minor is what the tender pays of the sale.
-- standing 'superseded': overridden while its outcome was unknown, never counts.
CREATE TABLE tenders (
    id                  INTEGER PRIMARY KEY,
    cart_id             INTEGER NOT NULL REFERENCES carts(id),
    seq                 INTEGER NOT NULL CHECK (seq BETWEEN 1 AND 1000),
    kind                TEXT NOT NULL CHECK (kind IN ('cash','card')),
    amount_minor        INTEGER NOT NULL CHECK (amount_minor > 0),
    currency            TEXT NOT NULL CHECK (currency IN ('jpy','usd','eur','gbp','krw')),
    standing            TEXT NOT NULL DEFAULT 'active' CHECK (standing IN ('active','superseded')),
    payment_id          INTEGER UNIQUE REFERENCES payments(id),
    cash_tendered_minor INTEGER CHECK (cash_tendered_minor IS NULL OR cash_tendered_minor >= 0),
    change_minor        INTEGER CHECK (change_minor IS NULL OR change_minor >= 0),
    rounding_minor      INTEGER,
    superseded_reason   TEXT CHECK (superseded_reason IS NULL OR length(superseded_reason) BETWEEN 1 AND 1000),
    superseded_at_ms    INTEGER,
    created_at_ms       INTEGER NOT NULL,
    UNIQUE (cart_id, seq),
    CHECK ((kind = 'card') = (payment_id IS NOT NULL)),
    CHECK (kind = 'card' OR (cash_tendered_minor IS NOT NULL AND change_minor IS NOT NULL
        AND rounding_minor IS NOT NULL
        AND cash_tendered_minor - change_minor = amount_minor + rounding_minor)),
    CHECK ((standing = 'superseded') = (superseded_reason IS NOT NULL))
) STRICT;
CREATE INDEX tenders_by_cart ON tenders(cart_id, seq);

-- Signed: + into the drawer. Expected drawer = sum per currency.
CREATE TABLE cash_movements (
    id           INTEGER PRIMARY KEY,
    at_ms        INTEGER NOT NULL,
    kind         TEXT NOT NULL CHECK (kind IN ('sale_in','change_out','cancel_return','refund_out')),
    amount_minor INTEGER NOT NULL CHECK (amount_minor <> 0),
    currency     TEXT NOT NULL CHECK (currency IN ('jpy','usd','eur','gbp','krw')),
    cart_id      INTEGER REFERENCES carts(id),
    tender_id    INTEGER REFERENCES tenders(id),
    CHECK ((kind = 'sale_in') = (amount_minor > 0))
) STRICT;
-- A tender's cash comes in, its change goes out and a cancel hands it back once each.
CREATE UNIQUE INDEX cash_movements_once ON cash_movements(tender_id, kind)
    WHERE kind IN ('sale_in','change_out','cancel_return');
CREATE INDEX cash_movements_by_cart ON cash_movements(cart_id);

-- Store setting: cash amounts are rounded to a multiple of increment_minor (no row: 1).
CREATE TABLE cash_rounding (
    currency        TEXT PRIMARY KEY CHECK (currency IN ('jpy','usd','eur','gbp','krw')),
    increment_minor INTEGER NOT NULL CHECK (increment_minor BETWEEN 1 AND 1000)
) STRICT;

-- A sale the cashier canceled: 'canceling' until every settled card tender is refunded
-- (or voided); resumed by recovery after a crash.
CREATE TABLE sale_cancels (
    cart_id         INTEGER PRIMARY KEY REFERENCES carts(id),
    state           TEXT NOT NULL CHECK (state IN ('canceling','canceled')),
    reason          TEXT NOT NULL CHECK (length(reason) BETWEEN 3 AND 200),
    created_at_ms   INTEGER NOT NULL,
    completed_at_ms INTEGER
) STRICT;

-- Backfill: one card tender per cart payment, in payment order. Of a cart's payments
-- only the newest can be part of the sale; an earlier one still open or charged was
-- left behind by an override and is superseded (it never counts toward the total).
INSERT INTO tenders (cart_id, seq, kind, amount_minor, currency, standing, payment_id,
                     superseded_reason, superseded_at_ms, created_at_ms)
SELECT p.cart_id,
       (SELECT count(*) FROM payments q WHERE q.cart_id = p.cart_id AND q.id <= p.id),
       'card', p.amount_minor, p.currency,
       CASE WHEN later.id IS NOT NULL AND p.state NOT IN ('failed','canceled') THEN 'superseded' ELSE 'active' END,
       p.id,
       CASE WHEN later.id IS NOT NULL AND p.state NOT IN ('failed','canceled')
            THEN 'made before the upgrade; a later payment of the cart replaced it' END,
       CASE WHEN later.id IS NOT NULL AND p.state NOT IN ('failed','canceled') THEN p.updated_at_ms END,
       p.created_at_ms
FROM payments p
LEFT JOIN (SELECT cart_id, max(id) AS id FROM payments WHERE cart_id IS NOT NULL GROUP BY cart_id) last
       ON last.cart_id = p.cart_id
LEFT JOIN payments later ON later.id = last.id AND later.id <> p.id
WHERE p.cart_id IS NOT NULL
ORDER BY p.id;
"#,
    // v5 (design §12): staff with hashed PINs and their lockout counters; the audit log
    // becomes a SHA-256 chain naming who did it. Rows written before the upgrade are
    // chained (in id order) by `seal_audit` in this same transaction: SQL cannot hash.
    r#"
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
"#,
    // v6 (design §11.10-§11.15): the store's catalog (barcode, names per language, tax
    // class, active flag), its settings (one row), tax rates as data, a sale's dining and
    // discounts, its tax figures locked at the first tender, and every receipt printed.
    // Rows from before keep their totals: old products and lines are 'exempt', old carts
    // have no discount, and exempt-only carts without a discount are totalled as before.
    r#"
ALTER TABLE products ADD COLUMN barcode TEXT
    CHECK (barcode IS NULL OR (length(barcode) = 13 AND barcode NOT GLOB '*[^0-9]*'));
ALTER TABLE products ADD COLUMN tax_class TEXT NOT NULL DEFAULT 'exempt'
    CHECK (tax_class IN ('standard','reduced','exempt'));
ALTER TABLE products ADD COLUMN active INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0,1));
CREATE UNIQUE INDEX products_barcode ON products(barcode) WHERE barcode IS NOT NULL;

-- The name a receipt or screen shows in a language; products.name stays the fallback.
CREATE TABLE product_names (
    product_id INTEGER NOT NULL REFERENCES products(id),
    lang       TEXT NOT NULL CHECK (lang IN ('en','ja')),
    name       TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 120),
    PRIMARY KEY (product_id, lang)
) STRICT;

-- Exactly one row (id = 1). Defaults are those of a store upgraded from before v6.
CREATE TABLE store_settings (
    id                  INTEGER PRIMARY KEY CHECK (id = 1),
    name                TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 120),
    address             TEXT NOT NULL DEFAULT '' CHECK (length(address) <= 300),
    phone               TEXT NOT NULL DEFAULT '' CHECK (length(phone) <= 40),
    currency            TEXT NOT NULL CHECK (currency IN ('jpy','usd','eur','gbp','krw')),
    locale              TEXT NOT NULL CHECK (locale IN ('en-US','ja-JP')),
    price_mode          TEXT NOT NULL CHECK (price_mode IN ('inclusive','exclusive')),
    registration_number TEXT CHECK (registration_number IS NULL OR length(registration_number) = 14),
    rounding            TEXT NOT NULL CHECK (rounding IN ('down','half_up','up')),
    receipt_header      TEXT NOT NULL DEFAULT '' CHECK (length(receipt_header) <= 500),
    receipt_footer      TEXT NOT NULL DEFAULT '' CHECK (length(receipt_footer) <= 500),
    updated_at_ms       INTEGER NOT NULL
) STRICT;
INSERT INTO store_settings (id, name, currency, locale, price_mode, rounding, updated_at_ms)
VALUES (1, 'PayDesk', 'usd', 'en-US', 'inclusive', 'down', 0);

-- Rates are data: a change of law is a new row with its first day.
CREATE TABLE tax_rates (
    id             INTEGER PRIMARY KEY,
    class          TEXT NOT NULL CHECK (class IN ('standard','reduced','exempt')),
    basis_points   INTEGER NOT NULL CHECK (basis_points BETWEEN 0 AND 10000),
    effective_from TEXT CHECK (effective_from IS NULL OR effective_from GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
    UNIQUE (class, effective_from),
    CHECK (class <> 'exempt' OR basis_points = 0)
) STRICT;
INSERT INTO tax_rates (class, basis_points, effective_from) VALUES
    ('standard', 1000, '2019-10-01'), ('reduced', 800, '2019-10-01'), ('exempt', 0, NULL);

ALTER TABLE carts ADD COLUMN dining TEXT NOT NULL DEFAULT 'take_out' CHECK (dining IN ('eat_in','take_out'));
ALTER TABLE carts ADD COLUMN discount_kind TEXT CHECK (discount_kind IS NULL OR discount_kind IN ('percent','amount'));
ALTER TABLE carts ADD COLUMN discount_value INTEGER CHECK (discount_value IS NULL OR discount_value >= 0);
-- The sale's tax as computed when its first tender was taken (JSON of paydesk_tax's
-- SaleTax with the settings used): from then on the sale's total is this, whatever
-- later happens to prices, rates or settings.
ALTER TABLE carts ADD COLUMN tax_locked TEXT CHECK (tax_locked IS NULL OR json_valid(tax_locked));

-- The class is captured with the price when the line is added.
ALTER TABLE cart_lines ADD COLUMN tax_class TEXT NOT NULL DEFAULT 'exempt'
    CHECK (tax_class IN ('standard','reduced','exempt'));
ALTER TABLE cart_lines ADD COLUMN discount_kind TEXT CHECK (discount_kind IS NULL OR discount_kind IN ('percent','amount'));
ALTER TABLE cart_lines ADD COLUMN discount_value INTEGER CHECK (discount_value IS NULL OR discount_value >= 0);

-- Each print of a sale's receipt. print_no 1 is the original; every later one
-- (including a retry after a failure: paper may have come out) is a reprint.
CREATE TABLE receipt_prints (
    id         INTEGER PRIMARY KEY,
    cart_id    INTEGER NOT NULL REFERENCES carts(id),
    print_no   INTEGER NOT NULL CHECK (print_no BETWEEN 1 AND 10000),
    reprint    INTEGER NOT NULL CHECK (reprint IN (0,1)),
    format     TEXT NOT NULL CHECK (format IN ('text','html','escpos')),
    target     TEXT NOT NULL CHECK (length(target) BETWEEN 1 AND 300),
    outcome    TEXT NOT NULL CHECK (outcome IN ('printed','failed','rendered')),
    error      TEXT CHECK (error IS NULL OR length(error) <= 1000),
    at_ms      INTEGER NOT NULL,
    UNIQUE (cart_id, print_no),
    CHECK ((print_no = 1) = (reprint = 0))
) STRICT;
"#,
    // v7 (design §9.11): the outbox the sync loop sends to the back office. Triggers on
    // `payments` and `refunds` write one row per creation and per change of state or PSP
    // id, inside whatever transaction made the change, so no code path can skip it.
    // History from before the upgrade is back-filled first (a register upgraded with
    // history syncs it), in the order a live register would have written it.
    r#"
-- seq is the register's own sequence: 1, 2, 3... with no gap, never reused once rows
-- are acknowledged and dropped (outbox_seq keeps the high-water mark). `fact` is the
-- JSON of paydesk-sync-proto's Fact (tagged by "kind").
CREATE TABLE outbox (
    seq   INTEGER PRIMARY KEY CHECK (seq >= 1),
    at_ms INTEGER NOT NULL,
    fact  TEXT NOT NULL CHECK (json_valid(fact))
) STRICT;

-- Exactly one row: the last seq ever written and the last one the back office acknowledged.
CREATE TABLE outbox_seq (
    id            INTEGER PRIMARY KEY CHECK (id = 1),
    high_water    INTEGER NOT NULL CHECK (high_water >= 0),
    acked_through INTEGER NOT NULL CHECK (acked_through >= 0 AND acked_through <= high_water)
) STRICT;

WITH facts(k1, k2, k3, at_ms, fact) AS (
    SELECT 0, id, 0, created_at_ms,
           json_object('kind', 'payment_created', 'checkout_key', idempotency_key,
                       'amount', amount_minor, 'currency', currency)
    FROM payments
    UNION ALL
    SELECT 0, id, 1, updated_at_ms,
           json_object('kind', 'payment_state', 'checkout_key', idempotency_key,
                       'state', state, 'psp_id', psp_payment_id)
    FROM payments WHERE state <> 'created' OR psp_payment_id IS NOT NULL
    UNION ALL
    SELECT 1, r.id, 0, r.created_at_ms,
           json_object('kind', 'refund_created', 'refund_key', r.idempotency_key,
                       'checkout_key', p.idempotency_key, 'amount', r.amount_minor)
    FROM refunds r JOIN payments p ON p.id = r.payment_id
    UNION ALL
    SELECT 1, id, 1, updated_at_ms,
           json_object('kind', 'refund_state', 'refund_key', idempotency_key,
                       'state', state, 'psp_refund_id', psp_refund_id)
    FROM refunds WHERE state <> 'pending' OR psp_refund_id IS NOT NULL
)
INSERT INTO outbox (seq, at_ms, fact)
SELECT row_number() OVER (ORDER BY k1, k2, k3), at_ms, fact FROM facts ORDER BY k1, k2, k3;
INSERT INTO outbox_seq (id, high_water, acked_through) VALUES (1, (SELECT count(*) FROM outbox), 0);

-- The next seq must be exactly one past the high-water mark: a gap would hold the back
-- office's copy forever.
CREATE TRIGGER outbox_seq_next BEFORE INSERT ON outbox
WHEN NEW.seq IS NOT (SELECT high_water + 1 FROM outbox_seq WHERE id = 1)
BEGIN
    SELECT RAISE(ABORT, 'outbox seq must follow the high-water mark');
END;
CREATE TRIGGER outbox_seq_bump AFTER INSERT ON outbox
BEGIN
    UPDATE outbox_seq SET high_water = NEW.seq WHERE id = 1;
END;
CREATE TRIGGER outbox_no_update BEFORE UPDATE ON outbox
BEGIN
    SELECT RAISE(ABORT, 'outbox rows are never changed');
END;

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
CREATE TRIGGER outbox_refund_created AFTER INSERT ON refunds
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT high_water + 1, NEW.created_at_ms,
           json_object('kind', 'refund_created', 'refund_key', NEW.idempotency_key,
                       'checkout_key', (SELECT idempotency_key FROM payments WHERE id = NEW.payment_id),
                       'amount', NEW.amount_minor)
    FROM outbox_seq WHERE id = 1;
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT high_water + 1, NEW.updated_at_ms,
           json_object('kind', 'refund_state', 'refund_key', NEW.idempotency_key,
                       'state', NEW.state, 'psp_refund_id', NEW.psp_refund_id)
    FROM outbox_seq WHERE id = 1 AND (NEW.state <> 'pending' OR NEW.psp_refund_id IS NOT NULL);
END;
CREATE TRIGGER outbox_refund_state AFTER UPDATE OF state, psp_refund_id ON refunds
WHEN NEW.state IS NOT OLD.state OR NEW.psp_refund_id IS NOT OLD.psp_refund_id
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT high_water + 1, NEW.updated_at_ms,
           json_object('kind', 'refund_state', 'refund_key', NEW.idempotency_key,
                       'state', NEW.state, 'psp_refund_id', NEW.psp_refund_id)
    FROM outbox_seq WHERE id = 1;
END;
"#,
    // v8: shifts, paid in/out, Z reports, who is signed in (design §12.7, §12.8).
    r#"
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
"#,
    // v9: tenders and shifts in the outbox (design §9.14).
    crate::schema_books::SYNC_BOOKS,
    // v10: a replacement register's restored history (design §9.15).
    crate::schema_restore::RESTORE,
    // v11: what the back office publishes: catalog items and the tax setup (design §9.16).
    crate::schema_catalog::PUBLISHED,
    // v12: completed sales with their lines and tax per rate in the outbox (design §9.18).
    crate::schema_sales::SALES,
    crate::schema_local::LOCAL, // v13: the register's own items, staff, tax setup up (§9.19)
    crate::schema_harden::HARDEN, // v14: growing locks, approval PINs apart; sqlite3 3.40 reads it
    crate::schema_prints::PRINTS, // v15: whether paper may have come out of a print (design §11.8)
    crate::schema_time_zone::TIME_ZONE, // v16: the store's time zone (design §11.14)
    crate::schema_audit::AUDIT_CONFIRMED, // v17: the back office's confirmed audit head (§9.20)
    crate::schema_reader::READER, // v18: card-present payments on a reader, state on_reader (decision 0102)
];

/// The version whose migration turned the audit log into a chain.
const AUDIT_CHAIN_VERSION: i64 = 5;

/// Reads `user_version` without writing anything.
pub(crate) fn user_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("PRAGMA user_version", [], |r| r.get(0))
}

/// Applies every pending migration in one transaction. Re-checks the version and that
/// the database is ours (or empty) under the write lock, so two processes opening a
/// fresh file at once migrate it exactly once, and a file made newer or filled by
/// another program in between is still refused without a write.
pub(crate) fn migrate(conn: &mut Connection, path: &Path) -> Result<()> {
    if user_version(conn)? >= SCHEMA_VERSION {
        return migrate_in_tx(conn, path);
    }
    // A migration that rebuilds a table others refer to (v18 rebuilds `payments`) needs
    // foreign keys off while the old table is dropped (SQLite's documented procedure;
    // the pragma is a no-op inside a transaction). They are checked before the commit
    // and switched back on whatever happened.
    conn.execute_batch("PRAGMA foreign_keys = OFF")?;
    let res = migrate_in_tx(conn, path);
    let on = conn.execute_batch("PRAGMA foreign_keys = ON");
    res?;
    on?;
    Ok(())
}

fn migrate_in_tx(conn: &mut Connection, path: &Path) -> Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let found = user_version(&tx)?;
    if found > SCHEMA_VERSION {
        // Dropping `tx` rolls back; nothing was written.
        return Err(Error::NewerSchema { found, supported: SCHEMA_VERSION });
    }
    crate::open::check_ours(&tx, found, path)?;
    for sql in &MIGRATIONS[found as usize..] {
        tx.execute_batch(sql)?;
    }
    if found < AUDIT_CHAIN_VERSION && SCHEMA_VERSION >= AUDIT_CHAIN_VERSION {
        crate::ledger::seal_audit(&tx)?;
    }
    if found < SCHEMA_VERSION {
        let broken: Option<String> = tx
            .query_row("SELECT \"table\" || ' row ' || rowid || ' -> ' || parent FROM pragma_foreign_key_check LIMIT 1", [], |r| r.get(0))
            .optional()?;
        if let Some(b) = broken {
            // Dropping `tx` rolls back: the old schema stays as it was.
            return Err(Error::InvalidInput(format!("the upgrade would break a reference: {b}")));
        }
        // PRAGMA cannot take a bound parameter; SCHEMA_VERSION is a compile-time integer.
        tx.execute_batch(&format!("PRAGMA user_version = {SCHEMA_VERSION}"))?;
    }
    tx.commit()?;
    Ok(())
}
