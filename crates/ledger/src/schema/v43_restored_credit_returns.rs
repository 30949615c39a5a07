//! Schema v43 (record 0156): a restored exchange's credit given back. A sale of this register
//! paid in part by the credit of an exchange of a restored sale (record 0153) gives that part
//! back through the predecessor's tenders the credit came out of, as a restored return does
//! (record 0144): a card refund on the predecessor's payment (an ordinary `refunds` row with
//! its own key, sent up by v7's triggers), cash out of this register's drawer (a `refund_out`
//! movement with no cart of this register, its `cash_refunded` fact naming the predecessor).
//!
//! `restored_exchange_credit_returns` links each such give-back to the credit part
//! (`restored_exchange_credits`) it came out of, and to the return of the new sale that made
//! it (`return_id`; NULL for a refund by amount). What a credit part holds is its amount less
//! its give-backs that did not fail; the restored sale's rebuild reads so, and counts the
//! give-back as given back through the tender instead (a card refund is on the payment
//! already; the drawer movements of this table are counted with the sale's cash back).
//!
//! Triggers, the last word (the code refuses first, typed): a credit part never gives back
//! more than it holds; a card give-back is a refund of a payment restored here; a link's
//! return, once set, never changes.
//! `IF NOT EXISTS` everywhere: upgrade tests roll a file back by dropping what they know.

/// Schema v43.
pub(crate) const RESTORED_CREDIT_RETURNS: &str = r#"
CREATE TABLE IF NOT EXISTS restored_exchange_credit_returns (
    id           INTEGER PRIMARY KEY,
    credit_id    INTEGER NOT NULL REFERENCES restored_exchange_credits(id),
    amount_minor INTEGER NOT NULL CHECK (amount_minor > 0),
    refund_id    INTEGER UNIQUE REFERENCES refunds(id),
    movement_id  INTEGER UNIQUE REFERENCES cash_movements(id),
    return_id    INTEGER REFERENCES returns(id),
    CHECK ((refund_id IS NULL) <> (movement_id IS NULL))
) STRICT;
CREATE INDEX IF NOT EXISTS restored_exchange_credit_returns_by_credit ON restored_exchange_credit_returns(credit_id);
CREATE INDEX IF NOT EXISTS restored_exchange_credit_returns_by_return ON restored_exchange_credit_returns(return_id)
    WHERE return_id IS NOT NULL;

CREATE TRIGGER IF NOT EXISTS restored_credit_returns_within_credit BEFORE INSERT ON restored_exchange_credit_returns
WHEN NEW.amount_minor + COALESCE((
        SELECT SUM(x.amount_minor) FROM restored_exchange_credit_returns x LEFT JOIN refunds rf ON rf.id = x.refund_id
        WHERE x.credit_id = NEW.credit_id AND (x.refund_id IS NULL OR rf.state != 'failed')), 0)
     > COALESCE((SELECT amount_minor FROM restored_exchange_credits WHERE id = NEW.credit_id), 0)
BEGIN
    SELECT RAISE(ABORT, 'a restored exchange credit gives back more than it holds');
END;

CREATE TRIGGER IF NOT EXISTS restored_credit_returns_on_restored_payment BEFORE INSERT ON restored_exchange_credit_returns
WHEN NEW.refund_id IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM refunds rf JOIN restored_payments rp ON rp.payment_id = rf.payment_id WHERE rf.id = NEW.refund_id)
BEGIN
    SELECT RAISE(ABORT, 'a restored exchange credit gives back only on a payment restored here');
END;

CREATE TRIGGER IF NOT EXISTS restored_credit_returns_return_once BEFORE UPDATE ON restored_exchange_credit_returns
WHEN OLD.return_id IS NOT NULL OR NEW.credit_id IS NOT OLD.credit_id OR NEW.amount_minor IS NOT OLD.amount_minor
  OR NEW.refund_id IS NOT OLD.refund_id OR NEW.movement_id IS NOT OLD.movement_id
BEGIN
    SELECT RAISE(ABORT, 'a restored exchange credit give-back is written once; only its return is named later, once');
END;
"#;
