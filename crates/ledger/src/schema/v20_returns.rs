//! The migration that records returns per item (issue #29, record 0114), kept in its own
//! file like the others. Appended to `MIGRATIONS` as v20 and applied by `migrate` in the
//! one upgrade transaction.
//!
//! - `returns`: one row per return of a paid sale: its `seq` within the sale (1, 2, …) and
//!   its number (the sale's receipt number, "-R" and the seq), who took it back and why,
//!   and what it gave back: `total_minor` (gross, 0 for lines given away) with `tax_minor` in it.
//! - `return_rates`: the return's figures per tax rate, as `paydesk_tax::return_tax`
//!   valued them (the return document states them; `gross = base + tax`).
//! - `return_lines`: which lines of the sale came back and how many. `line` is the index
//!   into the sale's cart lines (in their SKU order, fixed once the sale is paid);
//!   `product_id` names the same line so SQLite itself can refuse more back than was sold
//!   (trigger `return_lines_within_sold`).
//! - `return_tenders`: the link from a return to the money it gave back, per tender: the
//!   card refund row it created (each with its own key, driven once) or the drawer's cash
//!   movement. A trigger refuses a link that would give back more than the tender paid.
//! - `ryoshusho_taken_back`: the sale's ryōshūsho (record 0112) handed back by the
//!   customer at a return or refund, so it can no longer be reprinted as if still valid.
//!
//! No outbox row yet: the back office has no return to net against a sale (record 0114).
//! `IF NOT EXISTS` everywhere, like v17's and v19's: upgrade tests rebuild an older file
//! from a current one by dropping only the tables they know.

/// Schema v20.
pub(crate) const RETURNS: &str = r#"
CREATE TABLE IF NOT EXISTS returns (
    id                   INTEGER PRIMARY KEY,
    cart_id              INTEGER NOT NULL REFERENCES carts(id),
    seq                  INTEGER NOT NULL CHECK (seq BETWEEN 1 AND 9999),
    number               TEXT NOT NULL UNIQUE CHECK (length(number) BETWEEN 1 AND 40),
    created_at_ms        INTEGER NOT NULL,
    staff_id             INTEGER REFERENCES staff(id),
    reason               TEXT CHECK (reason IS NULL OR length(reason) BETWEEN 1 AND 200),
    currency             TEXT NOT NULL CHECK (currency IN ('jpy','usd','eur','gbp','krw')),
    total_minor          INTEGER NOT NULL CHECK (total_minor >= 0),
    tax_minor            INTEGER NOT NULL CHECK (tax_minor >= 0 AND tax_minor <= total_minor),
    cash_out_minor       INTEGER NOT NULL CHECK (cash_out_minor >= 0 AND cash_out_minor <= total_minor),
    ryoshusho_taken_back INTEGER NOT NULL DEFAULT 0 CHECK (ryoshusho_taken_back IN (0, 1)),
    UNIQUE (cart_id, seq)
) STRICT;

CREATE TABLE IF NOT EXISTS return_rates (
    return_id    INTEGER NOT NULL REFERENCES returns(id),
    class        TEXT NOT NULL CHECK (class IN ('standard','reduced','exempt')),
    basis_points INTEGER NOT NULL CHECK (basis_points BETWEEN 0 AND 10000),
    base_minor   INTEGER NOT NULL CHECK (base_minor >= 0),
    tax_minor    INTEGER NOT NULL CHECK (tax_minor >= 0),
    gross_minor  INTEGER NOT NULL CHECK (gross_minor = base_minor + tax_minor),
    PRIMARY KEY (return_id, class)
) STRICT;

CREATE TABLE IF NOT EXISTS return_lines (
    return_id  INTEGER NOT NULL REFERENCES returns(id),
    line       INTEGER NOT NULL CHECK (line BETWEEN 0 AND 999),
    product_id INTEGER NOT NULL REFERENCES products(id),
    quantity   INTEGER NOT NULL CHECK (quantity > 0),
    class      TEXT NOT NULL CHECK (class IN ('standard','reduced','exempt')),
    net_minor  INTEGER NOT NULL CHECK (net_minor >= 0),
    PRIMARY KEY (return_id, line)
) STRICT;

-- More of a line back than the sale sold is refused by SQLite itself (the code refuses
-- it first, with the typed ReturnExceedsSold).
CREATE TRIGGER IF NOT EXISTS return_lines_within_sold BEFORE INSERT ON return_lines
WHEN NEW.quantity + (SELECT COALESCE(SUM(rl.quantity), 0) FROM return_lines rl JOIN returns r ON r.id = rl.return_id
                     WHERE r.cart_id = (SELECT cart_id FROM returns WHERE id = NEW.return_id) AND rl.product_id = NEW.product_id)
     > COALESCE((SELECT quantity FROM cart_lines
                 WHERE cart_id = (SELECT cart_id FROM returns WHERE id = NEW.return_id) AND product_id = NEW.product_id), 0)
BEGIN
    SELECT RAISE(ABORT, 'a return of more than the sale sold of a line');
END;

CREATE TABLE IF NOT EXISTS return_tenders (
    return_id    INTEGER NOT NULL REFERENCES returns(id),
    tender_id    INTEGER NOT NULL REFERENCES tenders(id),
    amount_minor INTEGER NOT NULL CHECK (amount_minor > 0),
    refund_id    INTEGER UNIQUE REFERENCES refunds(id),
    movement_id  INTEGER UNIQUE REFERENCES cash_movements(id),
    CHECK ((refund_id IS NULL) <> (movement_id IS NULL)),
    PRIMARY KEY (return_id, tender_id)
) STRICT;
CREATE INDEX IF NOT EXISTS return_tenders_by_tender ON return_tenders(tender_id);

-- What returns give back through one tender never passes what the tender paid.
CREATE TRIGGER IF NOT EXISTS return_tenders_within_paid BEFORE INSERT ON return_tenders
WHEN NEW.amount_minor + (SELECT COALESCE(SUM(amount_minor), 0) FROM return_tenders WHERE tender_id = NEW.tender_id)
     > COALESCE((SELECT amount_minor FROM tenders WHERE id = NEW.tender_id), 0)
BEGIN
    SELECT RAISE(ABORT, 'a return gives back more than the tender paid');
END;

CREATE TABLE IF NOT EXISTS ryoshusho_taken_back (
    cart_id          INTEGER PRIMARY KEY REFERENCES ryoshusho(cart_id),
    return_id        INTEGER REFERENCES returns(id),
    staff_id         INTEGER REFERENCES staff(id),
    taken_back_at_ms INTEGER NOT NULL
) STRICT;
"#;
