//! Weighed goods (issue #30 "Weighed and price-embedded goods", record 0134), kept in its own
//! file like the others. Appended to `MIGRATIONS` after the tax-exempt sale (v30), whose
//! `tax_exempt_reason` the sale fact view below keeps.
//!
//! - `product_units`: an item sold by weight, and the grams its price is for (1000: per
//!   kilogram, 100: per 100 g). No row: sold by the piece. A table of its own (like v26's
//!   `product_price_kinds`) so an upgrade test can rebuild an older file by dropping it.
//! - `cart_lines` is rebuilt with a weighed line's `grams` (1 g .. 100 kg), `per_grams` and
//!   `rate_minor` (the price per unit when rung), so a stored sale re-reads exactly whatever
//!   the catalog says later. A weighed line is ONE line of quantity 1 whose
//!   `unit_price_minor` is its amount (the tax crate's `weighed_amount`): every sum that
//!   takes quantity × unit price (the views below, reports, returns, receipts) is the line's
//!   amount by construction. Only a catalog-priced line is weighed (a price label on a
//!   weighed item is a label line at the printed price). Two weighings of one item are two
//!   lines, so the one-catalog-line-per-item index leaves weighed lines out.
//!   The table is copied aside, dropped and made again (no RENAME, as in v28); the held
//!   sales' triggers on it go with it and are made again. `return_lines` needs nothing: a
//!   weighed line is returned whole (quantity 1 of 1).
//! - `sale_completed_facts` adds `unit`, `grams` and `unit_rate` to a weighed line only.

/// The weighed goods migration.
pub(crate) const WEIGHED: &str = r#"
DROP VIEW IF EXISTS sale_completed_facts;

CREATE TABLE IF NOT EXISTS product_units (
    product_id INTEGER PRIMARY KEY REFERENCES products(id),
    per_grams  INTEGER NOT NULL CHECK (per_grams IN (100, 1000))
) STRICT;

CREATE TEMP TABLE cart_lines_v31 AS
SELECT cart_id, line_no, product_id, quantity, unit_price_minor, tax_class, discount_kind, discount_value, price_source, approved_by
FROM cart_lines;
DROP TABLE cart_lines;
CREATE TABLE cart_lines (
    cart_id          INTEGER NOT NULL REFERENCES carts(id),
    line_no          INTEGER NOT NULL CHECK (line_no BETWEEN 1 AND 1000000),
    product_id       INTEGER NOT NULL REFERENCES products(id),
    quantity         INTEGER NOT NULL CHECK (quantity > 0),
    -- Price when added: a catalog change must not silently reprice an open cart. A weighed
    -- line's is its amount for its grams.
    unit_price_minor INTEGER NOT NULL CHECK (unit_price_minor >= 0),
    tax_class        TEXT NOT NULL DEFAULT 'exempt' CHECK (tax_class IN ('standard','reduced','exempt')),
    discount_kind    TEXT CHECK (discount_kind IS NULL OR discount_kind IN ('percent','amount')),
    discount_value   INTEGER CHECK (discount_value IS NULL OR discount_value >= 0),
    price_source     TEXT NOT NULL DEFAULT 'catalog' CHECK (price_source IN ('catalog','open','label')),
    approved_by      INTEGER REFERENCES staff(id),
    grams            INTEGER CHECK (grams IS NULL OR grams BETWEEN 1 AND 100000),
    per_grams        INTEGER CHECK (per_grams IS NULL OR per_grams IN (100, 1000)),
    rate_minor       INTEGER CHECK (rate_minor IS NULL OR rate_minor >= 0),
    CHECK (price_source = 'catalog' OR unit_price_minor > 0),
    CHECK (price_source = 'open' OR approved_by IS NULL),
    CHECK ((grams IS NULL) = (per_grams IS NULL) AND (grams IS NULL) = (rate_minor IS NULL)),
    CHECK (grams IS NULL OR (quantity = 1 AND price_source = 'catalog')),
    PRIMARY KEY (cart_id, line_no)
) STRICT;
INSERT INTO cart_lines (cart_id, line_no, product_id, quantity, unit_price_minor, tax_class, discount_kind, discount_value,
                        price_source, approved_by)
SELECT cart_id, line_no, product_id, quantity, unit_price_minor, tax_class, discount_kind, discount_value, price_source, approved_by
FROM temp.cart_lines_v31;
DROP TABLE temp.cart_lines_v31;

CREATE UNIQUE INDEX cart_lines_catalog ON cart_lines(cart_id, product_id) WHERE price_source = 'catalog' AND grams IS NULL;
-- v27's triggers on the lines of a held cart, dropped with the old table.
CREATE TRIGGER IF NOT EXISTS held_carts_lines_frozen_insert BEFORE INSERT ON cart_lines
WHEN EXISTS (SELECT 1 FROM held_carts WHERE cart_id = NEW.cart_id AND (ended_how IS NULL OR ended_how = 'discarded'))
BEGIN
    SELECT RAISE(ABORT, 'a held or discarded cart is not changed');
END;
CREATE TRIGGER IF NOT EXISTS held_carts_lines_frozen_update BEFORE UPDATE ON cart_lines
WHEN EXISTS (SELECT 1 FROM held_carts WHERE cart_id = OLD.cart_id AND (ended_how IS NULL OR ended_how = 'discarded'))
BEGIN
    SELECT RAISE(ABORT, 'a held or discarded cart is not changed');
END;
CREATE TRIGGER IF NOT EXISTS held_carts_lines_frozen_delete BEFORE DELETE ON cart_lines
WHEN EXISTS (SELECT 1 FROM held_carts WHERE cart_id = OLD.cart_id AND (ended_how IS NULL OR ended_how = 'discarded'))
BEGIN
    SELECT RAISE(ABORT, 'a held or discarded cart is not changed');
END;

CREATE VIEW sale_completed_facts AS
SELECT c.id AS cart_id, c.updated_at_ms AS at_ms,
       -- the reason of a tax-exempt sale (v30) is added at the end; any other sale's fact is as before
       json_patch(json_object(
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
                           -- ppm since v28; a tax locked by an older build still says basis_points
                           'ppm', COALESCE(json_extract(r.value, '$.ppm'), json_extract(r.value, '$.basis_points') * 100),
                           'base', json_extract(r.value, '$.base'),
                           'tax', json_extract(r.value, '$.tax'),
                           'gross', json_extract(r.value, '$.gross')))
                FROM json_each(c.tax_locked, '$.tax.rates') r),
               '[]')),
           -- the lines in scan order (line_no, v26), as load_cart lists them and the locked
           -- tax holds them; a window's ORDER BY (any SQLite since 3.25), every row of the
           -- whole-partition frame holds the full array, one is taken; no line gives '[]'
           'lines', json(COALESCE((
               -- a weighed line (v31) adds its unit, grams and price per unit; a piece line's
               -- object is exactly as before, so a reader that refuses unknown fields still reads it
               SELECT json_group_array(json_patch(json_object(
                          'sku', x.sku, 'name', x.name, 'quantity', x.quantity, 'unit_price', x.unit_price,
                          'tax_class', x.tax_class,
                          'discount', COALESCE(json_extract(c.tax_locked, '$.tax.lines[' || x.idx || '].discount'), 0),
                          'total', COALESCE(json_extract(c.tax_locked, '$.tax.lines[' || x.idx || '].net'), x.quantity * x.unit_price)),
                          CASE WHEN x.grams IS NULL THEN '{}'
                               ELSE json_object('unit', CASE x.per_grams WHEN 1000 THEN 'kilogram' ELSE 'hundred_grams' END,
                                                'grams', x.grams, 'unit_rate', x.rate) END))
                      OVER (ORDER BY x.idx ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
               FROM (SELECT p.sku AS sku,
                            substr(COALESCE((SELECT n.name FROM product_names n
                                             WHERE n.product_id = p.id
                                               AND n.lang = (SELECT CASE locale WHEN 'ja-JP' THEN 'ja' ELSE 'en' END
                                                             FROM store_settings WHERE id = 1)),
                                            p.name), 1, 120) AS name,
                            l.quantity AS quantity, l.unit_price_minor AS unit_price, l.tax_class AS tax_class,
                            l.grams AS grams, l.per_grams AS per_grams, l.rate_minor AS rate,
                            row_number() OVER (ORDER BY l.line_no) - 1 AS idx
                     FROM cart_lines l JOIN products p ON p.id = l.product_id
                     WHERE l.cart_id = c.id) x
               LIMIT 1), '[]'))
       ), CASE WHEN c.tax_exempt_reason IS NULL THEN '{}'
               ELSE json_object('tax_exempt_reason', c.tax_exempt_reason) END) AS fact
FROM carts c;
"#;
