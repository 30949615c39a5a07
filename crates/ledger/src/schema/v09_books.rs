//! The migration that puts the register's tenders and shifts in the outbox (design
//! record 0047), kept in its own file so the list there stays readable. Appended to
//! `MIGRATIONS` as one entry: one upgrade transaction, like every migration.

/// Triggers on `tenders`, `shifts`, `paid_in_out` and `z_reports` write the outbox row in
/// the statement that made the change, as v7 does for payments and refunds. The history
/// already in the file is back-filled first, seq continuing after the high-water mark:
/// shifts opened, drawer moves, tenders (each superseded one followed by its supersede),
/// then closes — so every fact comes after the shift it names.
pub(crate) const SYNC_BOOKS: &str = r#"
CREATE TEMP TABLE outbox_books_backfill AS
WITH facts(k1, k2, k3, at_ms, fact) AS (
    SELECT 0, id, 0, opened_at_ms,
           json_object('kind', 'shift_opened', 'shift', id, 'currency', currency, 'float', float_minor)
    FROM shifts
    UNION ALL
    SELECT 1, id, 0, at_ms,
           json_object('kind', 'paid_in_out', 'entry', id, 'shift', shift_id, 'direction', kind,
                       'amount', amount_minor, 'currency', currency, 'reason', reason)
    FROM paid_in_out
    UNION ALL
    SELECT 2, t.id, 0, t.created_at_ms,
           json_object('kind', 'tender_added', 'sale', t.cart_id, 'tender_seq', t.seq, 'method', t.kind,
                       'amount', t.amount_minor, 'currency', t.currency,
                       'checkout_key', (SELECT idempotency_key FROM payments p WHERE p.id = t.payment_id),
                       'cash_tendered', t.cash_tendered_minor, 'change', t.change_minor,
                       'rounding', t.rounding_minor, 'shift', t.shift_id)
    FROM tenders t
    UNION ALL
    SELECT 2, id, 1, COALESCE(superseded_at_ms, created_at_ms),
           json_object('kind', 'tender_superseded', 'sale', cart_id, 'tender_seq', seq)
    FROM tenders WHERE standing = 'superseded'
    UNION ALL
    SELECT 3, z_number, 0, closed_at_ms,
           json_object('kind', 'shift_closed', 'shift', shift_id, 'z_number', z_number,
                       'counted', counted_minor, 'expected', expected_minor, 'over_short', over_short_minor)
    FROM z_reports
)
-- the seqs are fixed here, before any outbox row is written
SELECT (SELECT high_water FROM outbox_seq WHERE id = 1) + row_number() OVER (ORDER BY k1, k2, k3) AS seq, at_ms, fact
FROM facts;
INSERT INTO outbox (seq, at_ms, fact) SELECT seq, at_ms, fact FROM temp.outbox_books_backfill ORDER BY seq;
DROP TABLE temp.outbox_books_backfill;

CREATE TRIGGER outbox_shift_opened AFTER INSERT ON shifts
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT high_water + 1, NEW.opened_at_ms,
           json_object('kind', 'shift_opened', 'shift', NEW.id, 'currency', NEW.currency, 'float', NEW.float_minor)
    FROM outbox_seq WHERE id = 1;
END;
CREATE TRIGGER outbox_paid_in_out AFTER INSERT ON paid_in_out
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT high_water + 1, NEW.at_ms,
           json_object('kind', 'paid_in_out', 'entry', NEW.id, 'shift', NEW.shift_id, 'direction', NEW.kind,
                       'amount', NEW.amount_minor, 'currency', NEW.currency, 'reason', NEW.reason)
    FROM outbox_seq WHERE id = 1;
END;
CREATE TRIGGER outbox_tender_added AFTER INSERT ON tenders
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT high_water + 1, NEW.created_at_ms,
           json_object('kind', 'tender_added', 'sale', NEW.cart_id, 'tender_seq', NEW.seq, 'method', NEW.kind,
                       'amount', NEW.amount_minor, 'currency', NEW.currency,
                       'checkout_key', (SELECT idempotency_key FROM payments p WHERE p.id = NEW.payment_id),
                       'cash_tendered', NEW.cash_tendered_minor, 'change', NEW.change_minor,
                       'rounding', NEW.rounding_minor, 'shift', NEW.shift_id)
    FROM outbox_seq WHERE id = 1;
END;
CREATE TRIGGER outbox_tender_superseded AFTER UPDATE OF standing ON tenders
WHEN NEW.standing = 'superseded' AND OLD.standing IS NOT 'superseded'
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT high_water + 1, COALESCE(NEW.superseded_at_ms, NEW.created_at_ms),
           json_object('kind', 'tender_superseded', 'sale', NEW.cart_id, 'tender_seq', NEW.seq)
    FROM outbox_seq WHERE id = 1;
END;
CREATE TRIGGER outbox_shift_closed AFTER INSERT ON z_reports
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT high_water + 1, NEW.closed_at_ms,
           json_object('kind', 'shift_closed', 'shift', NEW.shift_id, 'z_number', NEW.z_number,
                       'counted', NEW.counted_minor, 'expected', NEW.expected_minor, 'over_short', NEW.over_short_minor)
    FROM outbox_seq WHERE id = 1;
END;
"#;
