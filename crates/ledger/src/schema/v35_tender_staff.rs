//! Sales by staff at the back office (record 0143): the `tender_added` fact names who took the
//! tender. `outbox_tender_added` is made again with the fact v24 wrote plus `staff` (the
//! register's `tenders.staff_id`, null on a register run without staff) and `staff_name` (that
//! member's name then). The name travels because a member the back office published has an id
//! only this register knows: the back office never receives a `staff_saved` for them (v13 sends
//! the register's own staff only), so the id alone could not be named in a report.
//!
//! No back-fill: facts already queued keep the shape they were written with and arrive
//! without a staff (the wire reads a missing `staff` as none; such tenders report as
//! "(no staff)"). Rewriting queued facts would change facts a register may already have sent
//! under the same seq. One trigger as before, so a checkout runs no more statements (record
//! 0108's pinned count). `staff` and `staff_name` are added only when the tender has a member
//! (a merge patch), so a tender taken without staff writes the same text as before.

/// Schema v35.
pub(crate) const TENDER_STAFF: &str = "
DROP TRIGGER IF EXISTS outbox_tender_added;
CREATE TRIGGER outbox_tender_added AFTER INSERT ON tenders
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT high_water + 1, NEW.created_at_ms,
           json_patch(json_object('kind', 'tender_added', 'sale', NEW.cart_id, 'tender_seq', NEW.seq,
             'method', json(CASE WHEN NEW.kind = 'store' THEN json_object('store', json_object(
                 'type_id', NEW.tender_type_id,
                 'type_name', (SELECT tt.name FROM tender_types tt WHERE tt.id = NEW.tender_type_id),
                 'type_kind', (SELECT tt.kind FROM tender_types tt WHERE tt.id = NEW.tender_type_id),
                 'reference', NEW.reference, 'offered', NEW.offered_minor, 'forfeited', NEW.forfeited_minor))
               ELSE json_quote(NEW.kind) END),
             'amount', NEW.amount_minor, 'currency', NEW.currency,
             'checkout_key', (SELECT p.idempotency_key FROM payments p WHERE p.id = NEW.payment_id),
             'cash_tendered', NEW.cash_tendered_minor, 'change', NEW.change_minor,
             'rounding', NEW.rounding_minor, 'shift', NEW.shift_id),
             -- a merge patch: a NULL adds nothing, so a tender taken without staff is the same
             -- text as before (and as serde writes it: the wire skips a missing staff)
             json_object('staff', NEW.staff_id, 'staff_name', (SELECT s.name FROM staff s WHERE s.id = NEW.staff_id)))
    FROM outbox_seq WHERE id = 1;
END;
";
