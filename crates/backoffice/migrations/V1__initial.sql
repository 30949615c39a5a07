-- The back office's schema (record 0041). Every table that grows with the business is
-- keyed by store_id first, so on Citus each one is distributed by store_id and a store's
-- rows live together on one shard; the few global tables are marked as reference tables.

-- reference table: the same few rows everywhere
CREATE TABLE currencies (
    code text PRIMARY KEY CHECK (code ~ '^[a-z]{3}$'),
    exponent smallint NOT NULL CHECK (exponent BETWEEN 0 AND 4)
);
INSERT INTO currencies (code, exponent) VALUES
    ('usd', 2), ('eur', 2), ('gbp', 2), ('jpy', 0), ('krw', 0), ('chf', 2), ('cad', 2), ('aud', 2), ('bhd', 3);

-- distributed by store_id
CREATE TABLE stores (
    store_id uuid PRIMARY KEY,
    name text NOT NULL,
    created_ms bigint NOT NULL
);

-- reference table: a pairing code is looked up before its store is known; rare writes
CREATE TABLE pairing_codes (
    code_hash bytea PRIMARY KEY,
    store_id uuid NOT NULL,
    register_name text NOT NULL,
    expires_ms bigint NOT NULL,
    used_ms bigint,
    register_id uuid
);

-- distributed by store_id
CREATE TABLE registers (
    store_id uuid NOT NULL REFERENCES stores (store_id),
    register_id uuid NOT NULL,
    name text NOT NULL,
    token_hash bytea NOT NULL,
    paired_ms bigint NOT NULL,
    acked_through bigint NOT NULL DEFAULT 0 CHECK (acked_through >= 0),
    app_version text NOT NULL DEFAULT '',
    last_sync_ms bigint,
    queued bigint NOT NULL DEFAULT 0,
    offline_waiting bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (store_id, register_id)
);

-- distributed by store_id: every fact each register sent, once per (register, seq)
CREATE TABLE journal (
    store_id uuid NOT NULL,
    register_id uuid NOT NULL,
    seq bigint NOT NULL CHECK (seq >= 1),
    at_ms bigint NOT NULL,
    kind text NOT NULL,
    fact jsonb NOT NULL,
    received_ms bigint NOT NULL,
    PRIMARY KEY (store_id, register_id, seq),
    FOREIGN KEY (store_id, register_id) REFERENCES registers (store_id, register_id)
);

-- distributed by store_id: batches that arrived past a gap, waiting for it to fill
CREATE TABLE held_batches (
    store_id uuid NOT NULL,
    register_id uuid NOT NULL,
    first_seq bigint NOT NULL,
    last_seq bigint NOT NULL,
    rows jsonb NOT NULL,
    received_ms bigint NOT NULL,
    PRIMARY KEY (store_id, register_id, first_seq),
    FOREIGN KEY (store_id, register_id) REFERENCES registers (store_id, register_id)
);

-- distributed by store_id: one row per Idempotency-Key a register used
CREATE TABLE batch_keys (
    store_id uuid NOT NULL,
    register_id uuid NOT NULL,
    idem_key text NOT NULL,
    body_sha256 bytea NOT NULL,
    first_seq bigint NOT NULL,
    received_ms bigint NOT NULL,
    PRIMARY KEY (store_id, register_id, idem_key)
);

-- distributed by store_id: projections of the journal for the dashboard and reconciliation
CREATE TABLE payments (
    store_id uuid NOT NULL,
    checkout_key text NOT NULL,
    register_id uuid NOT NULL,
    amount bigint NOT NULL CHECK (amount > 0),
    currency text NOT NULL,
    state text NOT NULL,
    psp_id text,
    created_at_ms bigint NOT NULL,
    updated_at_ms bigint NOT NULL,
    PRIMARY KEY (store_id, checkout_key)
);
CREATE INDEX payments_by_time ON payments (store_id, created_at_ms);

CREATE TABLE refunds (
    store_id uuid NOT NULL,
    refund_key text NOT NULL,
    checkout_key text NOT NULL,
    register_id uuid NOT NULL,
    amount bigint NOT NULL CHECK (amount > 0),
    state text NOT NULL,
    psp_refund_id text,
    created_at_ms bigint NOT NULL,
    updated_at_ms bigint NOT NULL,
    PRIMARY KEY (store_id, refund_key)
);

-- distributed by store_id: what registers pull, versioned per store
CREATE TABLE store_settings (
    store_id uuid PRIMARY KEY REFERENCES stores (store_id),
    version bigint NOT NULL CHECK (version >= 1),
    settings jsonb NOT NULL,
    updated_ms bigint NOT NULL
);

-- distributed by store_id: the store's PSP account for reconciliation
CREATE TABLE psp_accounts (
    store_id uuid PRIMARY KEY REFERENCES stores (store_id),
    api_base text NOT NULL,
    secret_key text NOT NULL
);

-- distributed by store_id
CREATE TABLE recon_runs (
    store_id uuid NOT NULL,
    run_id uuid NOT NULL,
    started_ms bigint NOT NULL,
    finished_ms bigint NOT NULL,
    psp_charges bigint NOT NULL,
    psp_refunds bigint NOT NULL,
    matched bigint NOT NULL,
    exceptions bigint NOT NULL,
    PRIMARY KEY (store_id, run_id)
);

-- distributed by store_id: one row per (kind, subject) however often it is found again
CREATE TABLE recon_exceptions (
    store_id uuid NOT NULL,
    exception_id uuid NOT NULL,
    kind text NOT NULL,
    subject text NOT NULL,
    detail jsonb NOT NULL,
    first_seen_ms bigint NOT NULL,
    last_seen_ms bigint NOT NULL,
    last_run_id uuid NOT NULL,
    resolved_ms bigint,
    resolved_by text,
    resolution text,
    PRIMARY KEY (store_id, exception_id),
    UNIQUE (store_id, kind, subject)
);
