-- Refunds owed back to customers (record 0142): a charge that reconciliation found the
-- store should not have taken (a duplicate charge's extra charge, a charge no register
-- recorded) becomes a proposed refund, approved by a second person, executed once against
-- the PSP with the idempotency key made here at proposal and never changed.
-- distributed by store_id: one row per charge to pay back, however often reconciliation
-- finds its exception again (UNIQUE (store_id, psp_charge_id): a charge is never proposed
-- twice, even if it shows up under a second exception).
CREATE TABLE owed_refunds (
    store_id uuid NOT NULL REFERENCES stores (store_id),
    owed_id uuid NOT NULL,
    exception_id uuid NOT NULL,
    kind text NOT NULL CHECK (kind IN ('duplicate_charge', 'charge_without_record')),
    psp_charge_id text NOT NULL CHECK (length(psp_charge_id) BETWEEN 1 AND 255),
    amount bigint NOT NULL CHECK (amount > 0 AND amount <= 1000000000000),
    currency text NOT NULL CHECK (currency ~ '^[a-z]{3}$'),
    idempotency_key text NOT NULL CHECK (length(idempotency_key) BETWEEN 16 AND 255),
    state text NOT NULL CHECK (state IN ('proposed', 'approved', 'executing', 'succeeded', 'failed')),
    proposed_by text NOT NULL CHECK (length(proposed_by) BETWEEN 1 AND 100),
    proposed_ms bigint NOT NULL,
    approved_by text CHECK (length(approved_by) BETWEEN 1 AND 100),
    approved_ms bigint,
    executing_ms bigint,
    attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    finished_ms bigint,
    psp_refund_id text CHECK (length(psp_refund_id) BETWEEN 1 AND 255),
    last_error text CHECK (length(last_error) <= 1000),
    PRIMARY KEY (store_id, owed_id),
    FOREIGN KEY (store_id, exception_id) REFERENCES recon_exceptions (store_id, exception_id),
    UNIQUE (store_id, psp_charge_id),
    UNIQUE (store_id, idempotency_key),
    -- a second person: never the one who proposed it
    CHECK (approved_by IS NULL OR approved_by <> proposed_by),
    -- approved exactly when past `proposed` (a failed one may have been withdrawn before approval)
    CHECK ((state = 'proposed') = (approved_by IS NULL) OR state = 'failed'),
    CHECK ((approved_by IS NULL) = (approved_ms IS NULL)),
    -- the PSP was called only from `executing` on
    CHECK (state NOT IN ('proposed', 'approved') OR (executing_ms IS NULL AND psp_refund_id IS NULL)),
    CHECK (state <> 'succeeded' OR (psp_refund_id IS NOT NULL AND finished_ms IS NOT NULL)),
    CHECK (state <> 'failed' OR (last_error IS NOT NULL AND finished_ms IS NOT NULL)),
    CHECK (state IN ('succeeded', 'failed') OR finished_ms IS NULL)
);
CREATE INDEX owed_refunds_by_exception ON owed_refunds (store_id, exception_id);
-- the dashboard's open ones
CREATE INDEX owed_refunds_open ON owed_refunds (store_id, state) WHERE state IN ('proposed', 'approved', 'executing');
