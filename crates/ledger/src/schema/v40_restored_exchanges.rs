//! Schema v40 (record 0153, issue #29): exchanges of a sale restored from a replaced
//! register. The return is a restored return (v36); of its worth, as much as the new sale
//! (this register's own) has open becomes that sale's credit, taken out of the
//! predecessor's tenders, which keep it (cards first, then cash; never a store tender).
//!
//! 1. `restored_exchanges`: the restored return, the new sale, the credit. One per return
//!    and one per new sale; a sale holds at most one credit of either kind (the two
//!    triggers below look across `exchanges` too).
//! 2. `restored_exchange_credits`: which of the predecessor's tenders (`tender_seq`) the
//!    credit came out of. The restored sale's rebuild subtracts them from what each tender
//!    has left, so a later return of the restored sale never gives the same money back.
//!
//! Triggers are the last word (the code refuses first, with typed errors): the credit is
//! never more than its return's worth, and its parts never more than the credit.
//! `IF NOT EXISTS` everywhere: upgrade tests rebuild an older file from a current one by
//! dropping only what they know.

/// Schema v40.
pub(crate) const RESTORED_EXCHANGES: &str = r#"
CREATE TABLE IF NOT EXISTS restored_exchanges (
    id            INTEGER PRIMARY KEY,
    return_id     INTEGER NOT NULL UNIQUE REFERENCES restored_returns(id),
    new_cart_id   INTEGER NOT NULL UNIQUE REFERENCES carts(id),
    credit_minor  INTEGER NOT NULL CHECK (credit_minor > 0),
    created_at_ms INTEGER NOT NULL,
    staff_id      INTEGER REFERENCES staff(id)
) STRICT;

CREATE TABLE IF NOT EXISTS restored_exchange_credits (
    id           INTEGER PRIMARY KEY,
    exchange_id  INTEGER NOT NULL REFERENCES restored_exchanges(id),
    tender_seq   INTEGER NOT NULL,
    amount_minor INTEGER NOT NULL CHECK (amount_minor > 0),
    UNIQUE (exchange_id, tender_seq)
) STRICT;

CREATE TRIGGER IF NOT EXISTS restored_exchanges_within_return BEFORE INSERT ON restored_exchanges
WHEN NEW.credit_minor > COALESCE((SELECT total_minor FROM restored_returns WHERE id = NEW.return_id), 0)
BEGIN
    SELECT RAISE(ABORT, 'a restored exchange credits more than its return is worth');
END;

CREATE TRIGGER IF NOT EXISTS restored_exchanges_one_credit BEFORE INSERT ON restored_exchanges
WHEN EXISTS (SELECT 1 FROM exchanges WHERE new_cart_id = NEW.new_cart_id)
BEGIN
    SELECT RAISE(ABORT, 'the new sale already holds an exchange credit');
END;

CREATE TRIGGER IF NOT EXISTS exchanges_one_credit_restored BEFORE INSERT ON exchanges
WHEN EXISTS (SELECT 1 FROM restored_exchanges WHERE new_cart_id = NEW.new_cart_id)
BEGIN
    SELECT RAISE(ABORT, 'the new sale already holds an exchange credit');
END;

CREATE TRIGGER IF NOT EXISTS restored_exchange_credits_within_credit BEFORE INSERT ON restored_exchange_credits
WHEN NEW.amount_minor + (SELECT COALESCE(SUM(amount_minor), 0) FROM restored_exchange_credits WHERE exchange_id = NEW.exchange_id)
     > COALESCE((SELECT credit_minor FROM restored_exchanges WHERE id = NEW.exchange_id), 0)
BEGIN
    SELECT RAISE(ABORT, 'a restored exchange takes more out of the tenders than it credits');
END;
"#;
