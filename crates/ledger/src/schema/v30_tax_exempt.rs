//! A tax-exempt sale with its reason (issue #30 "US sales tax", record 0135), kept in its own
//! file like the others. Appended to `MIGRATIONS` after the named rates.
//!
//! - `carts.tax_exempt_reason`: why the whole sale is exempt (a resale certificate, a
//!   diplomat's card, a non-profit's exemption number), 3 to 200 characters; NULL for a taxed
//!   sale. The tax itself is the locked document's (`SaleTax.exempt`), as for every sale.
//! - `store_settings.tax_exemptions`: whether this store takes exemptions at all; NULL means
//!   its locale's default (on for en-US, off for ja-JP, whose 免税 is another regime).
//! - A trigger is the last word over the code's typed refusals: the reason changes only on an
//!   open cart with nothing ever tendered (no tender, payment, cash, exchange credit or
//!   cancel) that is not parked or discarded.
//! - `sale_completed_facts` is made again with `tax_exempt_reason`, added at the end of the
//!   fact of an exempt sale only; every other sale's fact is the same text as before.
//!
//! `IF NOT EXISTS`/`IF EXISTS` where an upgrade test rebuilds an older file from a current one.

/// The tax-exempt sale migration.
pub(crate) const TAX_EXEMPT: &str = r#"
ALTER TABLE carts ADD COLUMN tax_exempt_reason TEXT
    CHECK (tax_exempt_reason IS NULL OR length(tax_exempt_reason) BETWEEN 3 AND 200);
ALTER TABLE store_settings ADD COLUMN tax_exemptions INTEGER
    CHECK (tax_exemptions IS NULL OR tax_exemptions IN (0, 1));

CREATE TRIGGER IF NOT EXISTS carts_tax_exempt_untendered BEFORE UPDATE OF tax_exempt_reason ON carts
WHEN NEW.tax_exempt_reason IS NOT OLD.tax_exempt_reason AND (
     OLD.state IS NOT 'open'
  OR OLD.tax_locked IS NOT NULL
  OR EXISTS (SELECT 1 FROM tenders WHERE cart_id = OLD.id)
  OR EXISTS (SELECT 1 FROM payments WHERE cart_id = OLD.id)
  OR EXISTS (SELECT 1 FROM cash_movements WHERE cart_id = OLD.id)
  OR EXISTS (SELECT 1 FROM exchanges WHERE new_cart_id = OLD.id)
  OR EXISTS (SELECT 1 FROM sale_cancels WHERE cart_id = OLD.id)
  OR EXISTS (SELECT 1 FROM held_carts h WHERE h.cart_id = OLD.id AND (h.ended_how IS NULL OR h.ended_how = 'discarded')))
BEGIN
    SELECT RAISE(ABORT, 'a sale''s tax exemption changes only while nothing is tendered');
END;

DROP VIEW IF EXISTS sale_completed_facts;
CREATE VIEW sale_completed_facts AS
SELECT c.id AS cart_id, c.updated_at_ms AS at_ms,
       -- the reason of a tax-exempt sale is added at the end; any other sale's fact is as before
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
       ), CASE WHEN c.tax_exempt_reason IS NULL THEN '{}'
               ELSE json_object('tax_exempt_reason', c.tax_exempt_reason) END) AS fact
FROM carts c;
"#;
