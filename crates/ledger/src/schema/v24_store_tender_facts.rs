//! The migration that sends the store's own tenders up to the back office (record 0121),
//! kept in its own file like the others. Appended to `MIGRATIONS` as v24 and applied by
//! `migrate` in the one upgrade transaction.
//!
//! - `outbox_tender_added` is rewritten without v23's `WHEN NEW.kind <> 'store'`: a store
//!   tender now sends `tender_added` with the method `{"store": {...}}` (`sync-proto`'s
//!   `TenderMethod::Store`): its type's id, name and kind as they are when the tender is
//!   taken, the slip, what was offered and what was forfeited. One trigger as before, so a
//!   card checkout runs no more statements than it did (record 0108's pinned count).
//!   The method is built with `json(CASE ...)`: a CASE's result loses the JSON subtype of
//!   `json_object`, which would nest the store part as a string; `json_quote` makes the
//!   cash and card names JSON strings for the same `json()`.
//! - `outbox_store_refunded`: a `store_refunds` row (a voucher given back as a voucher)
//!   sends `store_refunded` with the tender's place in its sale, for a sale the back office
//!   holds (`sales_sent`, v12), as `cash_refunded` does (v21): a refund of a sale it never
//!   received could only refuse the batch.
//!
//! Back-fill: every store tender already recorded (the v23 trigger skipped them all) and
//! every store refund of a sale in `sales_sent`, after the high-water mark, tenders first
//! then refunds, each by id; the seqs are fixed before any outbox row is written (as v12
//! and v21 do). The back-fill runs before the new triggers exist and writes no tender or
//! refund row, so nothing is sent twice. Store tenders are never superseded (only a card
//! tender with an unknown outcome is), so no `tender_superseded` already queued can name
//! a store tender the back office has not been sent.

/// The `tender_added` fact of tender row `t` (an alias in scope): one definition for the
/// trigger (`NEW`) and the back-fill.
macro_rules! tender_added_fact {
    ($t:literal) => {
        concat!(
            "json_object('kind', 'tender_added', 'sale', ", $t, ".cart_id, 'tender_seq', ", $t, ".seq,
             'method', json(CASE WHEN ", $t, ".kind = 'store' THEN json_object('store', json_object(
                 'type_id', ", $t, ".tender_type_id,
                 'type_name', (SELECT tt.name FROM tender_types tt WHERE tt.id = ", $t, ".tender_type_id),
                 'type_kind', (SELECT tt.kind FROM tender_types tt WHERE tt.id = ", $t, ".tender_type_id),
                 'reference', ", $t, ".reference, 'offered', ", $t, ".offered_minor, 'forfeited', ", $t, ".forfeited_minor))
               ELSE json_quote(", $t, ".kind) END),
             'amount', ", $t, ".amount_minor, 'currency', ", $t, ".currency,
             'checkout_key', (SELECT p.idempotency_key FROM payments p WHERE p.id = ", $t, ".payment_id),
             'cash_tendered', ", $t, ".cash_tendered_minor, 'change', ", $t, ".change_minor,
             'rounding', ", $t, ".rounding_minor, 'shift', ", $t, ".shift_id)"
        )
    };
}

/// The `store_refunded` fact of `store_refunds` row `s`.
macro_rules! store_refunded_fact {
    ($s:literal) => {
        concat!(
            "json_object('kind', 'store_refunded', 'refund', ", $s, ".id, 'sale', ", $s, ".cart_id,
             'tender_seq', (SELECT t.seq FROM tenders t WHERE t.id = ", $s, ".tender_id),
             'amount', ", $s, ".amount_minor,
             'currency', (SELECT t.currency FROM tenders t WHERE t.id = ", $s, ".tender_id),
             'shift', ", $s, ".shift_id)"
        )
    };
}

/// Schema v24.
pub(crate) const STORE_TENDER_FACTS: &str = concat!(
    "
CREATE TEMP TABLE outbox_store_backfill AS
SELECT (SELECT high_water FROM outbox_seq WHERE id = 1) + row_number() OVER (ORDER BY k.rank, k.id) AS seq,
       k.at_ms AS at_ms, k.fact AS fact
FROM (SELECT 0 AS rank, x.id AS id, x.created_at_ms AS at_ms, ",
    tender_added_fact!("x"),
    " AS fact
      FROM tenders x WHERE x.kind = 'store'
      UNION ALL
      SELECT 1, y.id, y.at_ms, ",
    store_refunded_fact!("y"),
    "
      FROM store_refunds y WHERE y.cart_id IN (SELECT cart_id FROM sales_sent)) k;
INSERT INTO outbox (seq, at_ms, fact) SELECT seq, at_ms, fact FROM temp.outbox_store_backfill ORDER BY seq;
DROP TABLE temp.outbox_store_backfill;

DROP TRIGGER IF EXISTS outbox_tender_added;
CREATE TRIGGER outbox_tender_added AFTER INSERT ON tenders
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT high_water + 1, NEW.created_at_ms, ",
    tender_added_fact!("NEW"),
    "
    FROM outbox_seq WHERE id = 1;
END;

CREATE TRIGGER IF NOT EXISTS outbox_store_refunded AFTER INSERT ON store_refunds
WHEN EXISTS (SELECT 1 FROM sales_sent WHERE cart_id = NEW.cart_id)
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT high_water + 1, NEW.at_ms, ",
    store_refunded_fact!("NEW"),
    "
    FROM outbox_seq WHERE id = 1;
END;
"
);
