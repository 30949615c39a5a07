//! Named rates in parts per million (issue #30 "US sales tax", record 0131), kept in its own
//! file like the others. Appended to `MIGRATIONS` after the held sales.
//!
//! - `tax_rates` is rebuilt: a rate is `ppm` (parts per million, 88 750 = 8.875 %) instead of
//!   basis points, which cannot say New York City's 8.875 %, and has a `name` ("NY State");
//!   rows of one class from one day stack, so the unique key becomes (class, day, name).
//!   Existing rows convert exactly (× 100) and keep their ids (the table's order), with an
//!   empty name (Japan's single rates are unnamed).
//! - `return_rates` is rebuilt the same way: a return's rate is the sale's combined rate.
//! - The views that read either table or a locked tax's rates (`sale_completed_facts`,
//!   `return_recorded_facts`, `local_tax_facts`) are dropped first and made again saying
//!   `ppm` (and `name` for the tax setup). The tables are copied aside, dropped and made
//!   again under their own names: no `ALTER TABLE … RENAME`, which SQLite refuses while a
//!   trigger names a view that is, at that moment, dropped. A tax
//!   locked on a cart by an older build keeps `basis_points` in its JSON: the sale's fact
//!   converts it here, and `paydesk_tax` reads it (record 0131), so nothing is rewritten.
//!
//! `IF NOT EXISTS`/`IF EXISTS` where an upgrade test rebuilds an older file from a current one.

/// The named rates migration.
pub(crate) const NAMED_RATES: &str = r#"
DROP VIEW IF EXISTS sale_completed_facts;
DROP VIEW IF EXISTS return_recorded_facts;
DROP VIEW IF EXISTS local_tax_facts;

CREATE TEMP TABLE tax_rates_v28 AS SELECT * FROM tax_rates;
DROP TABLE tax_rates;
CREATE TABLE tax_rates (
    id             INTEGER PRIMARY KEY,
    class          TEXT NOT NULL CHECK (class IN ('standard','reduced','exempt')),
    name           TEXT NOT NULL DEFAULT '' CHECK (length(name) <= 40),
    ppm            INTEGER NOT NULL CHECK (ppm BETWEEN 0 AND 1000000),
    effective_from TEXT CHECK (effective_from IS NULL OR effective_from GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
    UNIQUE (class, effective_from, name),
    CHECK (class <> 'exempt' OR ppm = 0)
) STRICT;
INSERT INTO tax_rates (id, class, name, ppm, effective_from)
SELECT id, class, '', basis_points * 100, effective_from FROM tax_rates_v28 ORDER BY id;
DROP TABLE tax_rates_v28;

CREATE TEMP TABLE return_rates_v28 AS SELECT * FROM return_rates;
DROP TABLE return_rates;
CREATE TABLE return_rates (
    return_id    INTEGER NOT NULL REFERENCES returns(id),
    class        TEXT NOT NULL CHECK (class IN ('standard','reduced','exempt')),
    ppm          INTEGER NOT NULL CHECK (ppm BETWEEN 0 AND 1000000),
    base_minor   INTEGER NOT NULL CHECK (base_minor >= 0),
    tax_minor    INTEGER NOT NULL CHECK (tax_minor >= 0),
    gross_minor  INTEGER NOT NULL CHECK (gross_minor = base_minor + tax_minor),
    PRIMARY KEY (return_id, class)
) STRICT;
INSERT INTO return_rates (return_id, class, ppm, base_minor, tax_minor, gross_minor)
SELECT return_id, class, basis_points * 100, base_minor, tax_minor, gross_minor FROM return_rates_v28;
DROP TABLE return_rates_v28;

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

CREATE VIEW return_recorded_facts AS
SELECT r.id AS return_id, r.cart_id AS cart_id, r.created_at_ms AS at_ms,
       json_object(
           'kind', 'return_recorded',
           'sale', r.cart_id,
           'return_no', r.number,
           'currency', r.currency,
           'total', r.total_minor,
           'tax_total', r.tax_minor,
           'cash_out', r.cash_out_minor,
           -- json(): a subquery's result loses its JSON subtype, and would be nested as a string
           'rates', json(COALESCE(
               (SELECT json_group_array(json_object('class', x.class, 'ppm', x.ppm,
                                                    'base', x.base_minor, 'tax', x.tax_minor, 'gross', x.gross_minor))
                FROM (SELECT * FROM return_rates WHERE return_id = r.id ORDER BY class) x),
               '[]')),
           'lines', json((
               SELECT json_group_array(json_object('line', x.line, 'sku', x.sku, 'quantity', x.quantity,
                                                   'tax_class', x.class, 'net', x.net_minor))
               FROM (SELECT rl.line AS line, p.sku AS sku, rl.quantity AS quantity, rl.class AS class, rl.net_minor AS net_minor
                     FROM return_lines rl JOIN products p ON p.id = rl.product_id
                     WHERE rl.return_id = r.id ORDER BY rl.line) x))
       ) AS fact
FROM returns r;

CREATE VIEW local_tax_facts AS
SELECT json_object('kind', 'tax_setup_changed', 'price_mode', s.price_mode, 'rounding', s.rounding,
                   'registration_number', s.registration_number,
                   'rates', json(COALESCE((SELECT json_group_array(json_object('class', class, 'name', name, 'ppm', ppm,
                                                                               'effective_from', effective_from))
                                               OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
                                           FROM tax_rates LIMIT 1), '[]'))) AS fact
FROM store_settings s WHERE s.id = 1 AND s.tax_published_version IS NULL;
"#;
