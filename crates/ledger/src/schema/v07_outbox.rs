//! Schema migration 7, frozen history: never edited once shipped (a new migration
//! is appended to `MIGRATIONS` in `schema/mod.rs` instead).

/// v7 (record 0044): the outbox the sync loop sends to the back office. Triggers on
/// `payments` and `refunds` write one row per creation and per change of state or PSP
/// id, inside whatever transaction made the change, so no code path can skip it.
/// History from before the upgrade is back-filled first (a register upgraded with
/// history syncs it), in the order a live register would have written it.
pub(crate) const V7_OUTBOX: &str = r#"
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
"#;
