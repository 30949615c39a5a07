//! Returns of a sale restored from a replaced register (record 0144). A replacement register
//! holds its predecessor's journal read-only (`restored_history`, v10); a return of one of
//! those sales is recorded here, in this register's own tables, linked to the predecessor
//! (`source`) and its sale id, never by writing the predecessor's sale as this register's.
//!
//! - Three expression indexes on `restored_history` find a sale's facts (by `$.sale`), a
//!   payment's and its refunds' facts (by `$.checkout_key`) and a refund's states (by
//!   `$.refund_key`) without reading the whole history; each is partial, on the kinds that
//!   carry the key.
//! - `restored_payments`: a predecessor's card payment this register gives money back on.
//!   Its row in `payments` lets the usual refund machinery (its own key written before the
//!   request, the drive, recovery) work unchanged; the row is named here BEFORE it is
//!   inserted, so the two payment triggers of the outbox skip it: the back office holds that
//!   payment as the predecessor's, and this register never created it there. The refunds of
//!   it ARE sent (`refund_created`/`refund_state`, v7's triggers), and the back office takes
//!   them from the predecessor's replacement. `predecessor_refunds_minor` is what the
//!   predecessor's own refunds of it took (succeeded or still unsure): the refund machinery
//!   counts it as given back.
//! - `restored_returns` with its lines, rates and tender links, like `returns` (v20).
//!   A trigger refuses more of a line back here than the sale sold (`sold` is written with
//!   each line; the predecessor's own returns are counted by the ledger's code, from its
//!   facts), and each link is a refund row or a drawer movement, each used once.
//! - `restored_return_facts`: the one place the return's `return_recorded` fact is made,
//!   serde's form of `sync-proto`'s `ReturnRecorded` with `sale_register` naming the
//!   predecessor.

/// Schema v36.
pub(crate) const RESTORED_RETURNS: &str = r#"
CREATE INDEX IF NOT EXISTS restored_history_by_sale ON restored_history (source, json_extract(fact, '$.sale'))
    WHERE kind IN ('sale_completed', 'sale_canceled', 'tender_added', 'tender_superseded', 'return_recorded', 'cash_refunded', 'store_refunded');
CREATE INDEX IF NOT EXISTS restored_history_by_key ON restored_history (source, json_extract(fact, '$.checkout_key'))
    WHERE kind IN ('payment_created', 'payment_state', 'refund_created');
CREATE INDEX IF NOT EXISTS restored_history_by_refund ON restored_history (source, json_extract(fact, '$.refund_key'))
    WHERE kind = 'refund_state';

CREATE TABLE IF NOT EXISTS restored_payments (
    checkout_key              TEXT PRIMARY KEY CHECK (length(checkout_key) BETWEEN 1 AND 255),
    source                    TEXT NOT NULL REFERENCES restore_sources(register_id),
    -- set right after the payment row is inserted (it is named first, see above)
    payment_id                INTEGER UNIQUE REFERENCES payments(id),
    predecessor_refunds_minor INTEGER NOT NULL CHECK (predecessor_refunds_minor >= 0)
) STRICT;

DROP TRIGGER IF EXISTS outbox_payment_created;
CREATE TRIGGER outbox_payment_created AFTER INSERT ON payments
WHEN NOT EXISTS (SELECT 1 FROM restored_payments WHERE checkout_key = NEW.idempotency_key)
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
DROP TRIGGER IF EXISTS outbox_payment_state;
CREATE TRIGGER outbox_payment_state AFTER UPDATE OF state, psp_payment_id ON payments
WHEN (NEW.state IS NOT OLD.state OR NEW.psp_payment_id IS NOT OLD.psp_payment_id)
     AND NOT EXISTS (SELECT 1 FROM restored_payments WHERE checkout_key = NEW.idempotency_key)
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT high_water + 1, NEW.updated_at_ms,
           json_object('kind', 'payment_state', 'checkout_key', NEW.idempotency_key,
                       'state', NEW.state, 'psp_id', NEW.psp_payment_id)
    FROM outbox_seq WHERE id = 1;
END;

CREATE TABLE IF NOT EXISTS restored_returns (
    id             INTEGER PRIMARY KEY,
    source         TEXT NOT NULL REFERENCES restore_sources(register_id),
    sale_id        INTEGER NOT NULL CHECK (sale_id >= 1),
    receipt_no     TEXT NOT NULL CHECK (length(receipt_no) BETWEEN 1 AND 20),
    sale_at_ms     INTEGER NOT NULL,
    -- this return's place among ALL returns of the sale (the predecessor's first)
    seq            INTEGER NOT NULL CHECK (seq >= 1),
    number         TEXT NOT NULL CHECK (length(number) BETWEEN 1 AND 40),
    created_at_ms  INTEGER NOT NULL,
    staff_id       INTEGER REFERENCES staff(id),
    reason         TEXT CHECK (reason IS NULL OR length(reason) BETWEEN 3 AND 200),
    currency       TEXT NOT NULL CHECK (currency IN ('jpy','usd','eur','gbp','krw')),
    total_minor    INTEGER NOT NULL CHECK (total_minor >= 0),
    tax_minor      INTEGER NOT NULL CHECK (tax_minor BETWEEN 0 AND total_minor),
    cash_out_minor INTEGER NOT NULL CHECK (cash_out_minor BETWEEN 0 AND total_minor),
    UNIQUE (source, sale_id, seq)
) STRICT;

CREATE TABLE IF NOT EXISTS restored_return_lines (
    return_id  INTEGER NOT NULL REFERENCES restored_returns(id),
    line       INTEGER NOT NULL CHECK (line BETWEEN 0 AND 999),
    sku        TEXT NOT NULL CHECK (length(sku) BETWEEN 1 AND 64),
    name       TEXT NOT NULL,
    sold       INTEGER NOT NULL CHECK (sold BETWEEN 1 AND 9999),
    quantity   INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 9999),
    class      TEXT NOT NULL CHECK (class IN ('standard','reduced','exempt')),
    net_minor  INTEGER NOT NULL CHECK (net_minor >= 0),
    PRIMARY KEY (return_id, line)
) STRICT;
CREATE TRIGGER IF NOT EXISTS restored_return_lines_within_sold BEFORE INSERT ON restored_return_lines
WHEN NEW.quantity + (SELECT COALESCE(SUM(l.quantity), 0)
                     FROM restored_return_lines l JOIN restored_returns r ON r.id = l.return_id
                     JOIN restored_returns me ON me.id = NEW.return_id
                     WHERE r.source = me.source AND r.sale_id = me.sale_id AND l.line = NEW.line) > NEW.sold
BEGIN SELECT RAISE(ABORT, 'a restored sale''s line cannot come back more than it sold'); END;

CREATE TABLE IF NOT EXISTS restored_return_rates (
    return_id    INTEGER NOT NULL REFERENCES restored_returns(id),
    class        TEXT NOT NULL CHECK (class IN ('standard','reduced','exempt')),
    ppm          INTEGER NOT NULL CHECK (ppm BETWEEN 0 AND 1000000),
    base_minor   INTEGER NOT NULL CHECK (base_minor >= 0),
    tax_minor    INTEGER NOT NULL CHECK (tax_minor >= 0),
    gross_minor  INTEGER NOT NULL CHECK (gross_minor = base_minor + tax_minor),
    PRIMARY KEY (return_id, class)
) STRICT;

CREATE TABLE IF NOT EXISTS restored_return_tenders (
    return_id    INTEGER NOT NULL REFERENCES restored_returns(id),
    -- the predecessor's tender of the sale the money went back through
    tender_seq   INTEGER NOT NULL CHECK (tender_seq BETWEEN 1 AND 1000),
    amount_minor INTEGER NOT NULL CHECK (amount_minor > 0),
    refund_id    INTEGER UNIQUE REFERENCES refunds(id),
    movement_id  INTEGER UNIQUE REFERENCES cash_movements(id),
    CHECK ((refund_id IS NULL) <> (movement_id IS NULL))
) STRICT;

DROP VIEW IF EXISTS restored_return_facts;
CREATE VIEW restored_return_facts AS
SELECT r.id AS return_id, r.created_at_ms AS at_ms,
       json_object(
           'kind', 'return_recorded',
           'sale', r.sale_id,
           'return_no', r.number,
           'currency', r.currency,
           'total', r.total_minor,
           'tax_total', r.tax_minor,
           'cash_out', r.cash_out_minor,
           'rates', json(COALESCE(
               (SELECT json_group_array(json_object('class', x.class, 'ppm', x.ppm,
                                                    'base', x.base_minor, 'tax', x.tax_minor, 'gross', x.gross_minor))
                FROM (SELECT * FROM restored_return_rates WHERE return_id = r.id ORDER BY class) x),
               '[]')),
           'lines', json((
               SELECT json_group_array(json_object('line', x.line, 'sku', x.sku, 'quantity', x.quantity,
                                                   'tax_class', x.class, 'net', x.net_minor))
               FROM (SELECT * FROM restored_return_lines WHERE return_id = r.id ORDER BY line) x)),
           'sale_register', r.source
       ) AS fact
FROM restored_returns r;
"#;
