//! The migration that gives each cart line its own identity (issue #30, record 0126),
//! kept in its own file like the others. Appended to `MIGRATIONS` as v26: one upgrade
//! transaction.
//!
//! Until v25 a line WAS its product: `cart_lines` had PRIMARY KEY (cart_id, product_id)
//! and the catalog's price, so a sale could not hold two department keys ("Food 8%" at
//! ¥300 and at ¥500) or a price label at a price other than the catalog's.
//!
//! 1. `cart_lines` is rebuilt (SQLite's documented procedure: new table, copy, drop,
//!    rename; `migrate` runs with foreign keys off and checks them before it commits;
//!    `legacy_alter_table` keeps the rename from re-checking the views that name the
//!    table, which resolve it by name when they run). A line is `(cart_id, line_no)`:
//!    `line_no` is its place in scan order, 1-based. Existing lines are numbered in the
//!    SKU order they were listed in, so a line's place (`return_lines.line`, the sale
//!    fact's order, the locked tax's lines) means the same line as before.
//!    `price_source` says where the price came from: the catalog, the cashier's typed
//!    open price, or a price label; `approved_by` who allowed an open price above the
//!    store's limit. One catalog-priced line per product and cart (a partial unique
//!    index): scanning an item again adds to its line; an open or label line is always
//!    its own.
//! 2. `return_lines` gains `line_no`, the sale line it takes back (filled for old rows
//!    from the one line their product had), and the within-sold trigger counts per line,
//!    not per product. A second trigger holds `line` (the place, 0-based) to that line.
//! 3. `product_price_kinds`: an item whose price the cashier types, 'open', or an open-
//!    price item shown as a key over the items, 'department' (部門). No row: the catalog
//!    price. A table of its own rather than a column of `products` (and the limit below
//!    rather than a column of `store_settings`): `IF NOT EXISTS` like v17's to v25's, as
//!    upgrade tests rebuild an older file from a current one by dropping the tables they
//!    know and lowering the version, which a column added by ALTER would break.
//! 4. `open_price_settings`: the store's limit for an open price; above it a member
//!    allowed `open_price_above_limit` must approve. It starts at ¥10,000 / 100.00 in
//!    the store's other currencies, ₩100,000 in won.
//! 5. `sale_completed_facts` lists lines by `line_no` (the same order as before for every
//!    sale made before the upgrade).

/// Schema v26.
pub(crate) const CART_LINES: &str = r#"
PRAGMA legacy_alter_table = ON;
CREATE TABLE cart_lines_v26 (
    cart_id          INTEGER NOT NULL REFERENCES carts(id),
    line_no          INTEGER NOT NULL CHECK (line_no BETWEEN 1 AND 1000000),
    product_id       INTEGER NOT NULL REFERENCES products(id),
    quantity         INTEGER NOT NULL CHECK (quantity > 0),
    -- Price when added: a catalog change must not silently reprice an open cart.
    unit_price_minor INTEGER NOT NULL CHECK (unit_price_minor >= 0),
    tax_class        TEXT NOT NULL DEFAULT 'exempt' CHECK (tax_class IN ('standard','reduced','exempt')),
    discount_kind    TEXT CHECK (discount_kind IS NULL OR discount_kind IN ('percent','amount')),
    discount_value   INTEGER CHECK (discount_value IS NULL OR discount_value >= 0),
    price_source     TEXT NOT NULL DEFAULT 'catalog' CHECK (price_source IN ('catalog','open','label')),
    approved_by      INTEGER REFERENCES staff(id),
    -- A typed or printed price is never zero; only a typed one is ever approved.
    CHECK (price_source = 'catalog' OR unit_price_minor > 0),
    CHECK (price_source = 'open' OR approved_by IS NULL),
    PRIMARY KEY (cart_id, line_no)
) STRICT;
INSERT INTO cart_lines_v26 (cart_id, line_no, product_id, quantity, unit_price_minor, tax_class, discount_kind, discount_value)
SELECT l.cart_id, row_number() OVER (PARTITION BY l.cart_id ORDER BY p.sku), l.product_id, l.quantity, l.unit_price_minor,
       l.tax_class, l.discount_kind, l.discount_value
FROM cart_lines l JOIN products p ON p.id = l.product_id;
DROP TABLE cart_lines;
ALTER TABLE cart_lines_v26 RENAME TO cart_lines;

CREATE TABLE return_lines_v26 (
    return_id  INTEGER NOT NULL REFERENCES returns(id),
    line       INTEGER NOT NULL CHECK (line BETWEEN 0 AND 999),
    line_no    INTEGER NOT NULL CHECK (line_no BETWEEN 1 AND 1000000),
    product_id INTEGER NOT NULL REFERENCES products(id),
    quantity   INTEGER NOT NULL CHECK (quantity > 0),
    class      TEXT NOT NULL CHECK (class IN ('standard','reduced','exempt')),
    net_minor  INTEGER NOT NULL CHECK (net_minor >= 0),
    PRIMARY KEY (return_id, line),
    UNIQUE (return_id, line_no)
) STRICT;
INSERT INTO return_lines_v26 (return_id, line, line_no, product_id, quantity, class, net_minor)
SELECT rl.return_id, rl.line,
       (SELECT l.line_no FROM cart_lines l JOIN returns r ON r.cart_id = l.cart_id
        WHERE r.id = rl.return_id AND l.product_id = rl.product_id ORDER BY l.line_no LIMIT 1),
       rl.product_id, rl.quantity, rl.class, rl.net_minor
FROM return_lines rl;
DROP TABLE return_lines;
ALTER TABLE return_lines_v26 RENAME TO return_lines;
PRAGMA legacy_alter_table = OFF;

CREATE UNIQUE INDEX cart_lines_catalog ON cart_lines(cart_id, product_id) WHERE price_source = 'catalog';

-- More of a line back than the sale sold of THAT line is refused by SQLite itself (the
-- code refuses it first, with the typed ReturnExceedsSold); the line must be the product named.
DROP TRIGGER IF EXISTS return_lines_within_sold;
CREATE TRIGGER return_lines_within_sold BEFORE INSERT ON return_lines
WHEN NEW.quantity + (SELECT COALESCE(SUM(rl.quantity), 0) FROM return_lines rl JOIN returns r ON r.id = rl.return_id
                     WHERE r.cart_id = (SELECT cart_id FROM returns WHERE id = NEW.return_id) AND rl.line_no = NEW.line_no)
     > COALESCE((SELECT quantity FROM cart_lines
                 WHERE cart_id = (SELECT cart_id FROM returns WHERE id = NEW.return_id)
                   AND line_no = NEW.line_no AND product_id = NEW.product_id), 0)
BEGIN
    SELECT RAISE(ABORT, 'a return of more than the sale sold of a line');
END;
-- `line` (the place the return document and the back office name) is that line's place.
CREATE TRIGGER return_lines_place BEFORE INSERT ON return_lines
WHEN NEW.line <> (SELECT count(*) FROM cart_lines
                  WHERE cart_id = (SELECT cart_id FROM returns WHERE id = NEW.return_id) AND line_no < NEW.line_no)
BEGIN
    SELECT RAISE(ABORT, 'a return line whose place is not its sale line''s');
END;

CREATE TABLE IF NOT EXISTS product_price_kinds (
    product_id INTEGER PRIMARY KEY REFERENCES products(id),
    kind       TEXT NOT NULL CHECK (kind IN ('open','department'))
) STRICT;

CREATE TABLE IF NOT EXISTS open_price_settings (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    limit_minor INTEGER NOT NULL CHECK (limit_minor BETWEEN 1 AND 10000000000)
) STRICT;
-- ¥10,000 / 100.00; ₩10,000 is little, so a won store's limit starts at ₩100,000.
INSERT OR IGNORE INTO open_price_settings (id, limit_minor)
SELECT 1, CASE currency WHEN 'krw' THEN 100000 ELSE 10000 END FROM store_settings WHERE id = 1;

DROP VIEW sale_completed_facts;
CREATE VIEW sale_completed_facts AS
SELECT c.id AS cart_id, c.updated_at_ms AS at_ms,
       json_object(
           'kind', 'sale_completed',
           'sale', c.id,
           'receipt_no', printf('%06d', c.id),
           'currency', c.currency,
           'dining', c.dining,
           'price_mode', json_extract(c.tax_locked, '$.tax.price_mode'),
           'subtotal', COALESCE(json_extract(c.tax_locked, '$.tax.subtotal'),
                                (SELECT COALESCE(SUM(quantity * unit_price_minor), 0) FROM cart_lines WHERE cart_id = c.id)),
           'sale_discount', COALESCE(json_extract(c.tax_locked, '$.tax.sale_discount'), 0),
           'tax_total', COALESCE(json_extract(c.tax_locked, '$.tax.tax_total'), 0),
           'total', COALESCE(json_extract(c.tax_locked, '$.tax.total'),
                             (SELECT COALESCE(SUM(quantity * unit_price_minor), 0) FROM cart_lines WHERE cart_id = c.id)),
           -- json(): a subquery's result loses its JSON subtype, and would be nested as a string
           'rates', json(COALESCE(
               (SELECT json_group_array(json_object(
                           'class', json_extract(r.value, '$.class'),
                           'basis_points', json_extract(r.value, '$.basis_points'),
                           'base', json_extract(r.value, '$.base'),
                           'tax', json_extract(r.value, '$.tax'),
                           'gross', json_extract(r.value, '$.gross')))
                FROM json_each(c.tax_locked, '$.tax.rates') r),
               '[]')),
           -- the lines in scan order (line_no), as load_cart lists them and the locked tax
           -- holds them; a window's ORDER BY (any SQLite since 3.25), every row of the
           -- whole-partition frame holds the full array, one is taken; no line gives '[]'
           'lines', json(COALESCE((
               SELECT json_group_array(json_object(
                          'sku', x.sku, 'name', x.name, 'quantity', x.quantity, 'unit_price', x.unit_price,
                          'tax_class', x.tax_class,
                          'discount', COALESCE(json_extract(c.tax_locked, '$.tax.lines[' || x.idx || '].discount'), 0),
                          'total', COALESCE(json_extract(c.tax_locked, '$.tax.lines[' || x.idx || '].net'), x.quantity * x.unit_price)))
                      OVER (ORDER BY x.idx ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
               FROM (SELECT p.sku AS sku,
                            substr(COALESCE((SELECT n.name FROM product_names n
                                             WHERE n.product_id = p.id
                                               AND n.lang = (SELECT CASE locale WHEN 'ja-JP' THEN 'ja' ELSE 'en' END
                                                             FROM store_settings WHERE id = 1)),
                                            p.name), 1, 120) AS name,
                            l.quantity AS quantity, l.unit_price_minor AS unit_price, l.tax_class AS tax_class,
                            row_number() OVER (ORDER BY l.line_no) - 1 AS idx
                     FROM cart_lines l JOIN products p ON p.id = l.product_id
                     WHERE l.cart_id = c.id) x
               LIMIT 1), '[]'))
       ) AS fact
FROM carts c;
"#;
