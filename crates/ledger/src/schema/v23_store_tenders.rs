//! The migration for the store's own tenders (issue #29, record 0118), kept in its own
//! file like the others. Appended to `MIGRATIONS` as v23: one upgrade transaction.
//!
//! 1. `tender_types`: what the owner defined — a name, a kind (voucher, external terminal,
//!    e-money, QR, store account), whether change is given, whether it counts like cash
//!    for the 領収書 stamp rule, and whether it is offered.
//! 2. `tenders` gains the kind `store`, with its type, the slip or approval number, what
//!    was offered and what was forfeited (`offered - change - forfeited = amount`). SQLite
//!    cannot change a CHECK, so the table is rebuilt the documented way (new table, copy,
//!    drop, rename), as v15 and v18 did, with its two indexes and its two outbox triggers
//!    recreated as v4, v8 and v9 wrote them. `migrate` runs it with foreign keys off and
//!    checks them before the commit; `legacy_alter_table` keeps the rename from
//!    re-checking the rest of the schema. The outbox trigger sends no store tender yet:
//!    the back office's `TenderMethod` knows cash and card only, and would refuse the
//!    fact (and so every later one); record 0118 lists that as left.
//! 3. Triggers refuse change from a type that gives none, and a tender of an inactive type.
//! 4. `store_refunds`: money given back through a store tender (a voucher refunded as a
//!    voucher): no drawer movement, at most what the tender paid (a trigger).
//! 5. `return_tenders` gains `store_refund_id` (a return's link to such a refund); its
//!    CHECK said "a card refund or a drawer movement", so it is rebuilt the same way, with
//!    its index and its within-paid trigger.

/// Schema v23.
pub(crate) const STORE_TENDERS: &str = r#"
CREATE TABLE IF NOT EXISTS tender_types (
    id               INTEGER PRIMARY KEY,
    name             TEXT NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 40),
    kind             TEXT NOT NULL CHECK (kind IN ('voucher','external_terminal','e_money','qr','store_account')),
    gives_change     INTEGER NOT NULL CHECK (gives_change IN (0, 1)),
    counts_for_stamp INTEGER NOT NULL CHECK (counts_for_stamp IN (0, 1)),
    active           INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
    created_at_ms    INTEGER NOT NULL
) STRICT;

PRAGMA legacy_alter_table = ON;
CREATE TABLE tenders_store (
    id                  INTEGER PRIMARY KEY,
    cart_id             INTEGER NOT NULL REFERENCES carts(id),
    seq                 INTEGER NOT NULL CHECK (seq BETWEEN 1 AND 1000),
    kind                TEXT NOT NULL CHECK (kind IN ('cash','card','store')),
    amount_minor        INTEGER NOT NULL CHECK (amount_minor > 0),
    currency            TEXT NOT NULL CHECK (currency IN ('jpy','usd','eur','gbp','krw')),
    standing            TEXT NOT NULL DEFAULT 'active' CHECK (standing IN ('active','superseded')),
    payment_id          INTEGER UNIQUE REFERENCES payments(id),
    cash_tendered_minor INTEGER CHECK (cash_tendered_minor IS NULL OR cash_tendered_minor >= 0),
    change_minor        INTEGER CHECK (change_minor IS NULL OR change_minor >= 0),
    rounding_minor      INTEGER,
    superseded_reason   TEXT CHECK (superseded_reason IS NULL OR length(superseded_reason) BETWEEN 1 AND 1000),
    superseded_at_ms    INTEGER,
    created_at_ms       INTEGER NOT NULL,
    shift_id            INTEGER REFERENCES shifts(id),
    staff_id            INTEGER REFERENCES staff(id),
    tender_type_id      INTEGER REFERENCES tender_types(id),
    reference           TEXT CHECK (reference IS NULL OR length(reference) BETWEEN 1 AND 40),
    offered_minor       INTEGER CHECK (offered_minor IS NULL OR offered_minor > 0),
    forfeited_minor     INTEGER CHECK (forfeited_minor IS NULL OR forfeited_minor >= 0),
    UNIQUE (cart_id, seq),
    CHECK ((kind = 'card') = (payment_id IS NOT NULL)),
    CHECK ((kind = 'store') = (tender_type_id IS NOT NULL)),
    CHECK (kind <> 'cash' OR (cash_tendered_minor IS NOT NULL AND change_minor IS NOT NULL
        AND rounding_minor IS NOT NULL
        AND cash_tendered_minor - change_minor = amount_minor + rounding_minor)),
    -- a store tender: what was offered pays the amount, the rest is change or forfeited
    -- (never both); no cash handed over, no rounding
    CHECK (kind <> 'store' OR (offered_minor IS NOT NULL AND change_minor IS NOT NULL AND forfeited_minor IS NOT NULL
        AND cash_tendered_minor IS NULL AND rounding_minor IS NULL
        AND offered_minor - change_minor - forfeited_minor = amount_minor
        AND (change_minor = 0 OR forfeited_minor = 0))),
    CHECK (kind = 'store' OR (reference IS NULL AND offered_minor IS NULL AND forfeited_minor IS NULL)),
    CHECK ((standing = 'superseded') = (superseded_reason IS NOT NULL))
) STRICT;
INSERT INTO tenders_store (id, cart_id, seq, kind, amount_minor, currency, standing, payment_id, cash_tendered_minor,
                           change_minor, rounding_minor, superseded_reason, superseded_at_ms, created_at_ms,
                           shift_id, staff_id)
SELECT id, cart_id, seq, kind, amount_minor, currency, standing, payment_id, cash_tendered_minor,
       change_minor, rounding_minor, superseded_reason, superseded_at_ms, created_at_ms, shift_id, staff_id
FROM tenders ORDER BY id;
DROP TABLE tenders;
ALTER TABLE tenders_store RENAME TO tenders;
CREATE INDEX tenders_by_cart ON tenders(cart_id, seq);
CREATE INDEX tenders_by_shift ON tenders(shift_id) WHERE shift_id IS NOT NULL;
CREATE TRIGGER outbox_tender_added AFTER INSERT ON tenders
WHEN NEW.kind <> 'store'
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
-- The code refuses these first, with typed errors; SQLite is the last word.
CREATE TRIGGER tenders_store_type_rules BEFORE INSERT ON tenders
WHEN NEW.kind = 'store'
     AND (COALESCE((SELECT active FROM tender_types WHERE id = NEW.tender_type_id), 0) = 0
          OR (NEW.change_minor > 0 AND (SELECT gives_change FROM tender_types WHERE id = NEW.tender_type_id) = 0))
BEGIN
    SELECT RAISE(ABORT, 'a store tender of an inactive type, or with change from a type that gives none');
END;

CREATE TABLE IF NOT EXISTS store_refunds (
    id           INTEGER PRIMARY KEY,
    tender_id    INTEGER NOT NULL REFERENCES tenders(id),
    cart_id      INTEGER NOT NULL REFERENCES carts(id),
    amount_minor INTEGER NOT NULL CHECK (amount_minor > 0),
    at_ms        INTEGER NOT NULL,
    shift_id     INTEGER REFERENCES shifts(id),
    staff_id     INTEGER REFERENCES staff(id)
) STRICT;
CREATE INDEX IF NOT EXISTS store_refunds_by_tender ON store_refunds(tender_id);
CREATE TRIGGER IF NOT EXISTS store_refunds_within_paid BEFORE INSERT ON store_refunds
WHEN NEW.amount_minor + (SELECT COALESCE(SUM(amount_minor), 0) FROM store_refunds WHERE tender_id = NEW.tender_id)
     > COALESCE((SELECT amount_minor FROM tenders WHERE id = NEW.tender_id AND kind = 'store'), 0)
BEGIN
    SELECT RAISE(ABORT, 'a store refund gives back more than the store tender paid');
END;

CREATE TABLE return_tenders_store (
    return_id       INTEGER NOT NULL REFERENCES returns(id),
    tender_id       INTEGER NOT NULL REFERENCES tenders(id),
    amount_minor    INTEGER NOT NULL CHECK (amount_minor > 0),
    refund_id       INTEGER UNIQUE REFERENCES refunds(id),
    movement_id     INTEGER UNIQUE REFERENCES cash_movements(id),
    store_refund_id INTEGER UNIQUE REFERENCES store_refunds(id),
    CHECK ((refund_id IS NOT NULL) + (movement_id IS NOT NULL) + (store_refund_id IS NOT NULL) = 1),
    PRIMARY KEY (return_id, tender_id)
) STRICT;
INSERT INTO return_tenders_store (return_id, tender_id, amount_minor, refund_id, movement_id)
SELECT return_id, tender_id, amount_minor, refund_id, movement_id FROM return_tenders ORDER BY rowid;
DROP TABLE return_tenders;
ALTER TABLE return_tenders_store RENAME TO return_tenders;
PRAGMA legacy_alter_table = OFF;
CREATE INDEX return_tenders_by_tender ON return_tenders(tender_id);
CREATE TRIGGER return_tenders_within_paid BEFORE INSERT ON return_tenders
WHEN NEW.amount_minor + (SELECT COALESCE(SUM(amount_minor), 0) FROM return_tenders WHERE tender_id = NEW.tender_id)
     > COALESCE((SELECT amount_minor FROM tenders WHERE id = NEW.tender_id), 0)
BEGIN
    SELECT RAISE(ABORT, 'a return gives back more than the tender paid');
END;
"#;
