//! Schema migration 4, frozen history: never edited once shipped (a new migration
//! is appended to `MIGRATIONS` in `schema/mod.rs` instead).

/// v4 (record 0028): a sale (the cart) paid by one or more tenders, cash or card; the
/// drawer's cash movements; per-currency cash rounding; a sale's cancel. Every cart
/// payment made before gets its card tender in this same transaction.
pub(crate) const V4_SALES_TENDERS: &str = r#"
-- A card tender IS a payment (payment_id, UNIQUE); a cash tender records what was
-- handed over and given back. amount_minor is what the tender pays of the sale.
-- standing 'superseded': overridden while its outcome was unknown, never counts.
CREATE TABLE tenders (
    id                  INTEGER PRIMARY KEY,
    cart_id             INTEGER NOT NULL REFERENCES carts(id),
    seq                 INTEGER NOT NULL CHECK (seq BETWEEN 1 AND 1000),
    kind                TEXT NOT NULL CHECK (kind IN ('cash','card')),
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
    UNIQUE (cart_id, seq),
    CHECK ((kind = 'card') = (payment_id IS NOT NULL)),
    CHECK (kind = 'card' OR (cash_tendered_minor IS NOT NULL AND change_minor IS NOT NULL
        AND rounding_minor IS NOT NULL
        AND cash_tendered_minor - change_minor = amount_minor + rounding_minor)),
    CHECK ((standing = 'superseded') = (superseded_reason IS NOT NULL))
) STRICT;
CREATE INDEX tenders_by_cart ON tenders(cart_id, seq);

-- Signed: + into the drawer. Expected drawer = sum per currency.
CREATE TABLE cash_movements (
    id           INTEGER PRIMARY KEY,
    at_ms        INTEGER NOT NULL,
    kind         TEXT NOT NULL CHECK (kind IN ('sale_in','change_out','cancel_return','refund_out')),
    amount_minor INTEGER NOT NULL CHECK (amount_minor <> 0),
    currency     TEXT NOT NULL CHECK (currency IN ('jpy','usd','eur','gbp','krw')),
    cart_id      INTEGER REFERENCES carts(id),
    tender_id    INTEGER REFERENCES tenders(id),
    CHECK ((kind = 'sale_in') = (amount_minor > 0))
) STRICT;
-- A tender's cash comes in, its change goes out and a cancel hands it back once each.
CREATE UNIQUE INDEX cash_movements_once ON cash_movements(tender_id, kind)
    WHERE kind IN ('sale_in','change_out','cancel_return');
CREATE INDEX cash_movements_by_cart ON cash_movements(cart_id);

-- Store setting: cash amounts are rounded to a multiple of increment_minor (no row: 1).
CREATE TABLE cash_rounding (
    currency        TEXT PRIMARY KEY CHECK (currency IN ('jpy','usd','eur','gbp','krw')),
    increment_minor INTEGER NOT NULL CHECK (increment_minor BETWEEN 1 AND 1000)
) STRICT;

-- A sale the cashier canceled: 'canceling' until every settled card tender is refunded
-- (or voided); resumed by recovery after a crash.
CREATE TABLE sale_cancels (
    cart_id         INTEGER PRIMARY KEY REFERENCES carts(id),
    state           TEXT NOT NULL CHECK (state IN ('canceling','canceled')),
    reason          TEXT NOT NULL CHECK (length(reason) BETWEEN 3 AND 200),
    created_at_ms   INTEGER NOT NULL,
    completed_at_ms INTEGER
) STRICT;

-- Backfill: one card tender per cart payment, in payment order. Of a cart's payments
-- only the newest can be part of the sale; an earlier one still open or charged was
-- left behind by an override and is superseded (it never counts toward the total).
INSERT INTO tenders (cart_id, seq, kind, amount_minor, currency, standing, payment_id,
                     superseded_reason, superseded_at_ms, created_at_ms)
SELECT p.cart_id,
       (SELECT count(*) FROM payments q WHERE q.cart_id = p.cart_id AND q.id <= p.id),
       'card', p.amount_minor, p.currency,
       CASE WHEN later.id IS NOT NULL AND p.state NOT IN ('failed','canceled') THEN 'superseded' ELSE 'active' END,
       p.id,
       CASE WHEN later.id IS NOT NULL AND p.state NOT IN ('failed','canceled')
            THEN 'made before the upgrade; a later payment of the cart replaced it' END,
       CASE WHEN later.id IS NOT NULL AND p.state NOT IN ('failed','canceled') THEN p.updated_at_ms END,
       p.created_at_ms
FROM payments p
LEFT JOIN (SELECT cart_id, max(id) AS id FROM payments WHERE cart_id IS NOT NULL GROUP BY cart_id) last
       ON last.cart_id = p.cart_id
LEFT JOIN payments later ON later.id = last.id AND later.id <> p.id
WHERE p.cart_id IS NOT NULL
ORDER BY p.id;
"#;
