//! The migration that sends returns and the drawer's cash refunds up to the back office
//! (record 0119), kept in its own file like the others. Appended to `MIGRATIONS` and
//! applied by `migrate` in the one upgrade transaction.
//!
//! - `cash_refunded`: written by a trigger on the drawer movement itself (`refund_out`,
//!   made by a refund by amount or a return), so no code path that hands cash back can
//!   forget it. Card parts already travel as `refund_created`/`refund_state` (v7).
//! - `return_recorded`: a return is several rows (the return, its lines, rates and
//!   links), so no trigger on one of them sees it whole. `returns_sent` is written last, in
//!   the return's own transaction, by the one function that records returns, and its
//!   trigger builds the fact from `return_recorded_facts`, the one place its JSON is made
//!   (serde's form of `sync-proto`'s `ReturnRecorded` exactly). `returns_sent` also
//!   says a return went into the outbox once.
//!
//! Both are sent only for a sale the back office holds (`sales_sent`, v12): a return of a
//! sale it never received could only refuse the batch and stop the register's sync.
//! Lines are listed by their place in the sale (the sale fact lists them in the same order,
//! by SKU), rates by class.
//!
//! Back-fill: every return and every cash refund already in the ledger, after the
//! high-water mark, returns first then movements, each by id; then `returns_sent` is filled
//! and only then are the triggers made, so the back-fill's own inserts send nothing twice.

/// Schema v21.
pub(crate) const RETURN_FACTS: &str = r#"
CREATE TABLE IF NOT EXISTS returns_sent (
    return_id INTEGER PRIMARY KEY REFERENCES returns(id)
) STRICT;

DROP VIEW IF EXISTS return_recorded_facts;
CREATE VIEW return_recorded_facts AS
SELECT r.id AS return_id, r.cart_id AS cart_id, r.created_at_ms AS at_ms,
       json_object(
           'kind', 'return_recorded',
           'sale', r.cart_id,
           'return_no', r.number,
           'currency', r.currency,
           'total', r.total_minor,
           'tax_total', r.tax_minor,
           'cash_out', r.cash_out_minor,
           -- json(): a subquery's result loses its JSON subtype, and would be nested as a string
           'rates', json(COALESCE(
               (SELECT json_group_array(json_object('class', x.class, 'basis_points', x.basis_points,
                                                    'base', x.base_minor, 'tax', x.tax_minor, 'gross', x.gross_minor))
                FROM (SELECT * FROM return_rates WHERE return_id = r.id ORDER BY class) x),
               '[]')),
           'lines', json((
               SELECT json_group_array(json_object('line', x.line, 'sku', x.sku, 'quantity', x.quantity,
                                                   'tax_class', x.class, 'net', x.net_minor))
               FROM (SELECT rl.line AS line, p.sku AS sku, rl.quantity AS quantity, rl.class AS class, rl.net_minor AS net_minor
                     FROM return_lines rl JOIN products p ON p.id = rl.product_id
                     WHERE rl.return_id = r.id ORDER BY rl.line) x))
       ) AS fact
FROM returns r;

-- Back-fill. The seqs are fixed first, before any outbox row is written (as v12 does).
CREATE TEMP TABLE outbox_returns_backfill AS
SELECT (SELECT high_water FROM outbox_seq WHERE id = 1) + row_number() OVER (ORDER BY k.rank, k.id) AS seq, k.at_ms AS at_ms, k.fact AS fact
FROM (SELECT 0 AS rank, f.return_id AS id, f.at_ms AS at_ms, f.fact AS fact
      FROM return_recorded_facts f WHERE f.cart_id IN (SELECT cart_id FROM sales_sent)
        AND f.return_id NOT IN (SELECT return_id FROM returns_sent)
      UNION ALL
      SELECT 1, m.id, m.at_ms,
             json_object('kind', 'cash_refunded', 'movement', m.id, 'sale', m.cart_id, 'amount', -m.amount_minor,
                         'currency', m.currency, 'shift', m.shift_id)
      FROM cash_movements m WHERE m.kind = 'refund_out' AND m.cart_id IN (SELECT cart_id FROM sales_sent)) k;
INSERT INTO outbox (seq, at_ms, fact) SELECT seq, at_ms, fact FROM temp.outbox_returns_backfill ORDER BY seq;
DROP TABLE temp.outbox_returns_backfill;
-- Every return is sent now; written before the triggers exist, so none is sent twice.
INSERT INTO returns_sent (return_id) SELECT id FROM returns WHERE id NOT IN (SELECT return_id FROM returns_sent) ORDER BY id;

CREATE TRIGGER IF NOT EXISTS outbox_return_recorded AFTER INSERT ON returns_sent
WHEN EXISTS (SELECT 1 FROM sales_sent s JOIN returns r ON r.cart_id = s.cart_id WHERE r.id = NEW.return_id)
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT (SELECT high_water + 1 FROM outbox_seq WHERE id = 1), f.at_ms, f.fact
    FROM return_recorded_facts f WHERE f.return_id = NEW.return_id;
END;

CREATE TRIGGER IF NOT EXISTS outbox_cash_refunded AFTER INSERT ON cash_movements
WHEN NEW.kind = 'refund_out' AND EXISTS (SELECT 1 FROM sales_sent WHERE cart_id = NEW.cart_id)
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT high_water + 1, NEW.at_ms,
           json_object('kind', 'cash_refunded', 'movement', NEW.id, 'sale', NEW.cart_id, 'amount', -NEW.amount_minor,
                       'currency', NEW.currency, 'shift', NEW.shift_id)
    FROM outbox_seq WHERE id = 1;
END;
"#;
