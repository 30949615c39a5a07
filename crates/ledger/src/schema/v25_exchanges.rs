//! The migration that records exchanges (issue #29, record 0123), kept in its own file
//! like the others. Appended to `MIGRATIONS` after the store tenders' facts.
//!
//! An exchange is a return of a paid sale whose worth pays (part of) a new sale, so the
//! customer makes one payment or gets one refund for the difference. Three tables:
//!
//! 1. `exchanges`: the return, the old sale, the new sale, and the credit the return
//!    put on the new sale (never more than the new sale had open). One per return and
//!    one per new sale.
//! 2. `exchange_credits`: which of the old sale's tenders the credit came out of. The
//!    money never moved: it is still the card payment, the cash or the voucher the
//!    customer paid the old sale with, now paying for other goods. So a later return of
//!    the new sale gives it back through that same tender (a card refund on the OLD
//!    payment, cash out of the drawer, the voucher as itself) and a card's money is
//!    never turned into cash by way of an exchange.
//! 3. `exchange_credit_returns`: each such give-back, linked to the refund row, drawer
//!    movement or store refund that carried it (exactly one).
//!
//! Triggers are the last word (the code refuses first, with typed errors): the credits
//! of a tender never exceed what it paid, and a credit never gives back more than it
//! holds (a card refund that failed gave nothing back). `IF NOT EXISTS` everywhere: upgrade tests rebuild an older file from a current
//! one by dropping only the tables they know.

/// The exchanges migration.
pub(crate) const EXCHANGES: &str = r#"
CREATE TABLE IF NOT EXISTS exchanges (
    id            INTEGER PRIMARY KEY,
    return_id     INTEGER NOT NULL UNIQUE REFERENCES returns(id),
    old_cart_id   INTEGER NOT NULL REFERENCES carts(id),
    new_cart_id   INTEGER NOT NULL UNIQUE REFERENCES carts(id),
    credit_minor  INTEGER NOT NULL CHECK (credit_minor > 0),
    created_at_ms INTEGER NOT NULL,
    staff_id      INTEGER REFERENCES staff(id),
    CHECK (old_cart_id <> new_cart_id)
) STRICT;

CREATE TABLE IF NOT EXISTS exchange_credits (
    id           INTEGER PRIMARY KEY,
    exchange_id  INTEGER NOT NULL REFERENCES exchanges(id),
    tender_id    INTEGER NOT NULL REFERENCES tenders(id),
    amount_minor INTEGER NOT NULL CHECK (amount_minor > 0),
    UNIQUE (exchange_id, tender_id)
) STRICT;
CREATE INDEX IF NOT EXISTS exchange_credits_by_tender ON exchange_credits(tender_id);
CREATE TRIGGER IF NOT EXISTS exchange_credits_within_paid BEFORE INSERT ON exchange_credits
WHEN NEW.amount_minor + (SELECT COALESCE(SUM(amount_minor), 0) FROM exchange_credits WHERE tender_id = NEW.tender_id)
     > COALESCE((SELECT amount_minor FROM tenders WHERE id = NEW.tender_id AND standing = 'active'), 0)
BEGIN
    SELECT RAISE(ABORT, 'an exchange credits more than the tender paid');
END;

CREATE TABLE IF NOT EXISTS exchange_credit_returns (
    id              INTEGER PRIMARY KEY,
    credit_id       INTEGER NOT NULL REFERENCES exchange_credits(id),
    amount_minor    INTEGER NOT NULL CHECK (amount_minor > 0),
    refund_id       INTEGER UNIQUE REFERENCES refunds(id),
    movement_id     INTEGER UNIQUE REFERENCES cash_movements(id),
    store_refund_id INTEGER UNIQUE REFERENCES store_refunds(id),
    CHECK ((refund_id IS NOT NULL) + (movement_id IS NOT NULL) + (store_refund_id IS NOT NULL) = 1)
) STRICT;
CREATE INDEX IF NOT EXISTS exchange_credit_returns_by_credit ON exchange_credit_returns(credit_id);
CREATE TRIGGER IF NOT EXISTS exchange_credit_returns_within_credit BEFORE INSERT ON exchange_credit_returns
WHEN NEW.amount_minor + (SELECT COALESCE(SUM(x.amount_minor), 0) FROM exchange_credit_returns x LEFT JOIN refunds rf ON rf.id = x.refund_id
                         WHERE x.credit_id = NEW.credit_id AND (x.refund_id IS NULL OR rf.state != 'failed'))
     > COALESCE((SELECT amount_minor FROM exchange_credits WHERE id = NEW.credit_id), 0)
BEGIN
    SELECT RAISE(ABORT, 'an exchange credit gives back more than it holds');
END;
"#;
