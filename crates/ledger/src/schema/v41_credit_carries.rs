//! Schema v41 (issue #29, record 0155): an exchange of a sale itself paid in part by an
//! exchange credit. The new credit is taken out of the old sale's own tenders first, then,
//! for the rest, out of the old sale's credit: the first sale's tenders, further down the
//! chain. The money stays where it is (the first sale's card payment, cash or voucher);
//! what changes is which credit holds it.
//!
//! 1. `exchange_credit_carries`: `from_credit` (an `exchange_credits` row of the credit
//!    that paid the old sale) hands `amount_minor` over to the exchange `to_exchange_id`,
//!    whose own `exchange_credits` row on the SAME tender (UNIQUE per exchange and tender)
//!    holds it from then on. Written before that row, inside the exchange's transaction.
//! 2. What a credit holds is its amount less what it gave back less what it carried on;
//!    what a tender has credited out is the sum of its credits less what they gave back
//!    less what they carried on (a carried ¥ is in two rows and counted once). The two
//!    triggers of v25 are replaced to say so.
//!
//! Triggers are the last word (the code refuses first): a carry never takes more than its
//! credit holds, only from the credit that paid the exchange's old sale; a credit on a tender
//! of another sale than its old sale is exactly what was carried to it there; the credits of
//! a tender, each carried ¥ once, never exceed what it paid; a credit never gives back more
//! than it holds after its carries. `IF NOT EXISTS`/`DROP ... IF EXISTS`: the upgrade tests
//! roll a file back by dropping what they know.

/// Schema v41.
pub(crate) const CREDIT_CARRIES: &str = r#"
CREATE TABLE IF NOT EXISTS exchange_credit_carries (
    id             INTEGER PRIMARY KEY,
    from_credit    INTEGER NOT NULL REFERENCES exchange_credits(id),
    to_exchange_id INTEGER NOT NULL REFERENCES exchanges(id),
    amount_minor   INTEGER NOT NULL CHECK (amount_minor > 0),
    UNIQUE (from_credit, to_exchange_id)
) STRICT;
CREATE INDEX IF NOT EXISTS exchange_credit_carries_to ON exchange_credit_carries(to_exchange_id);

DROP TRIGGER IF EXISTS exchange_credit_carries_within_credit;
CREATE TRIGGER exchange_credit_carries_within_credit BEFORE INSERT ON exchange_credit_carries
WHEN NEW.amount_minor > COALESCE((SELECT amount_minor FROM exchange_credits WHERE id = NEW.from_credit), 0)
     - (SELECT COALESCE(SUM(x.amount_minor), 0) FROM exchange_credit_returns x LEFT JOIN refunds rf ON rf.id = x.refund_id
        WHERE x.credit_id = NEW.from_credit AND (x.refund_id IS NULL OR rf.state != 'failed'))
     - (SELECT COALESCE(SUM(amount_minor), 0) FROM exchange_credit_carries WHERE from_credit = NEW.from_credit)
  OR NOT EXISTS (SELECT 1 FROM exchange_credits f JOIN exchanges a ON a.id = f.exchange_id JOIN exchanges b ON b.id = NEW.to_exchange_id
                 WHERE f.id = NEW.from_credit AND a.new_cart_id = b.old_cart_id)
BEGIN
    SELECT RAISE(ABORT, 'an exchange credit carries more than it holds, or to an exchange of another sale');
END;

DROP TRIGGER IF EXISTS exchange_credits_carried;
CREATE TRIGGER exchange_credits_carried BEFORE INSERT ON exchange_credits
WHEN (SELECT t.cart_id FROM tenders t WHERE t.id = NEW.tender_id) IS NOT (SELECT old_cart_id FROM exchanges WHERE id = NEW.exchange_id)
 AND NEW.amount_minor != (SELECT COALESCE(SUM(c.amount_minor), 0) FROM exchange_credit_carries c JOIN exchange_credits f ON f.id = c.from_credit
                          WHERE c.to_exchange_id = NEW.exchange_id AND f.tender_id = NEW.tender_id)
BEGIN
    SELECT RAISE(ABORT, 'an exchange credits a tender of another sale beyond what was carried to it');
END;

DROP TRIGGER IF EXISTS exchange_credits_within_paid;
CREATE TRIGGER exchange_credits_within_paid BEFORE INSERT ON exchange_credits
WHEN NEW.amount_minor + (SELECT COALESCE(SUM(amount_minor), 0) FROM exchange_credits WHERE tender_id = NEW.tender_id)
     - (SELECT COALESCE(SUM(c.amount_minor), 0) FROM exchange_credit_carries c JOIN exchange_credits f ON f.id = c.from_credit
        WHERE f.tender_id = NEW.tender_id)
     > COALESCE((SELECT amount_minor FROM tenders WHERE id = NEW.tender_id AND standing = 'active'), 0)
BEGIN
    SELECT RAISE(ABORT, 'an exchange credits more than the tender paid');
END;

DROP TRIGGER IF EXISTS exchange_credit_returns_within_credit;
CREATE TRIGGER exchange_credit_returns_within_credit BEFORE INSERT ON exchange_credit_returns
WHEN NEW.amount_minor + (SELECT COALESCE(SUM(x.amount_minor), 0) FROM exchange_credit_returns x LEFT JOIN refunds rf ON rf.id = x.refund_id
                         WHERE x.credit_id = NEW.credit_id AND (x.refund_id IS NULL OR rf.state != 'failed'))
     + (SELECT COALESCE(SUM(amount_minor), 0) FROM exchange_credit_carries WHERE from_credit = NEW.credit_id)
     > COALESCE((SELECT amount_minor FROM exchange_credits WHERE id = NEW.credit_id), 0)
BEGIN
    SELECT RAISE(ABORT, 'an exchange credit gives back more than it holds');
END;
"#;
