-- The back office under hostile or buggy clients (record 0039, 0040, 0043).

-- A checkout or refund key is its register's own: keyed by (store_id, register_id, key),
-- so a key another register of the store used (a bug, or on purpose) never blocks this
-- register's batch. A refund names a payment of its own register. store_id stays first:
-- distributed by store_id on Citus as before.
ALTER TABLE payments DROP CONSTRAINT payments_pkey;
ALTER TABLE payments ADD PRIMARY KEY (store_id, register_id, checkout_key);
-- reconciliation and the "another register's payment" refusal look a key up store-wide
CREATE INDEX payments_by_key ON payments (store_id, checkout_key);
ALTER TABLE refunds DROP CONSTRAINT refunds_pkey;
ALTER TABLE refunds ADD PRIMARY KEY (store_id, register_id, refund_key);
-- what is left of a payment: its refunds by payment
CREATE INDEX refunds_by_payment ON refunds (store_id, register_id, checkout_key);

-- Idempotency keys are pruned by age (prune.rs): the oldest first.
CREATE INDEX batch_keys_by_age ON batch_keys (received_ms);

-- reference table (global, small): the owner's dashboard sessions. Only the SHA-256 of
-- the random session id is stored; the cookie holds the id, never the owner's token.
CREATE TABLE owner_sessions (
    id_hash bytea PRIMARY KEY,
    created_ms bigint NOT NULL,
    expires_ms bigint NOT NULL
);
CREATE INDEX owner_sessions_by_expiry ON owner_sessions (expires_ms);
