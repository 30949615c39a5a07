//! Schema migration 1, frozen history: never edited once shipped (a new migration
//! is appended to `MIGRATIONS` in `schema/mod.rs` instead).

/// v1: everything of issue 2.
pub(crate) const V1_CORE: &str = r#"
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
"#;
