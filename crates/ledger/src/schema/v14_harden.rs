//! v14 (issue 28, register hardening), kept in its own file like v9-v13 and
//! appended to `MIGRATIONS` as one entry:
//!
//! 1. Wrong-PIN locks that grow (`staff.pin_locks`: locks in a row since the last right
//!    PIN), and wrong approval PINs counted per member on this register
//!    (`approval_pin_attempts`), apart from the member's own sign-in (record 0063).
//! 2. The ledger readable by an older SQLite, such as Debian 12's own `sqlite3` (3.40),
//!    so a support person can open it.
//!
//! A schema that an older SQLite cannot parse makes EVERY query there fail ("malformed
//! database schema"). Two views of v12/v13 used an aggregate's own `ORDER BY`
//! (`json_group_array(... ORDER BY ...)`, SQLite 3.44): they are recreated with the same
//! order taken from a window (`OVER (ORDER BY ...)`, SQLite 3.25), building byte-identical
//! facts. The triggers reading the views look them up by name when they run, so they stay.
//! v13's triggers stamped `at_ms` with `unixepoch('subsec')` (3.42; NULL on an older SQLite,
//! which `outbox.at_ms NOT NULL` would refuse): they are recreated with `julianday('now')`,
//! the same clock to the millisecond on any version.
//!
//! The oldest SQLite the schema must parse is pinned by a test that opens a ledger in the
//! system's `sqlite3` (`crates/ledger/tests/old_sqlite.rs`).

pub(crate) const HARDEN: &str = r#"
ALTER TABLE staff ADD COLUMN pin_locks INTEGER NOT NULL DEFAULT 0 CHECK (pin_locks >= 0);
CREATE TABLE approval_pin_attempts (
    staff_id        INTEGER PRIMARY KEY REFERENCES staff(id),
    failures        INTEGER NOT NULL DEFAULT 0 CHECK (failures >= 0),
    locked_until_ms INTEGER,
    locks           INTEGER NOT NULL DEFAULT 0 CHECK (locks >= 0)
) STRICT;

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
           -- the lines by SKU: a window's ORDER BY (any SQLite since 3.25), every row of the
           -- whole-partition frame holds the full array, one is taken; no line gives '[]'
           'lines', json(COALESCE((
               SELECT json_group_array(json_object(
                          'sku', x.sku, 'name', x.name, 'quantity', x.quantity, 'unit_price', x.unit_price,
                          'tax_class', x.tax_class,
                          'discount', COALESCE(json_extract(c.tax_locked, '$.tax.lines[' || x.idx || '].discount'), 0),
                          'total', COALESCE(json_extract(c.tax_locked, '$.tax.lines[' || x.idx || '].net'), x.quantity * x.unit_price)))
                      OVER (ORDER BY x.sku ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
               FROM (SELECT p.sku AS sku,
                            substr(COALESCE((SELECT n.name FROM product_names n
                                             WHERE n.product_id = p.id
                                               AND n.lang = (SELECT CASE locale WHEN 'ja-JP' THEN 'ja' ELSE 'en' END
                                                             FROM store_settings WHERE id = 1)),
                                            p.name), 1, 120) AS name,
                            l.quantity AS quantity, l.unit_price_minor AS unit_price, l.tax_class AS tax_class,
                            row_number() OVER (ORDER BY p.sku) - 1 AS idx
                     FROM cart_lines l JOIN products p ON p.id = l.product_id
                     WHERE l.cart_id = c.id) x
               LIMIT 1), '[]'))
       ) AS fact
FROM carts c;

DROP VIEW local_tax_facts;
CREATE VIEW local_tax_facts AS
SELECT json_object('kind', 'tax_setup_changed', 'price_mode', s.price_mode, 'rounding', s.rounding,
                   'registration_number', s.registration_number,
                   'rates', json(COALESCE((SELECT json_group_array(json_object('class', class, 'basis_points', basis_points,
                                                                               'effective_from', effective_from))
                                               OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
                                           FROM tax_rates LIMIT 1), '[]'))) AS fact
FROM store_settings s WHERE s.id = 1 AND s.tax_published_version IS NULL;
DROP TRIGGER outbox_item_added;
DROP TRIGGER outbox_item_changed;
DROP TRIGGER outbox_item_name_ja_added;
DROP TRIGGER outbox_item_name_ja_changed;
DROP TRIGGER outbox_item_name_ja_removed;
DROP TRIGGER outbox_staff_changed;
CREATE TRIGGER outbox_item_added AFTER INSERT ON products
WHEN NEW.published_version IS NULL
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT (SELECT high_water + 1 FROM outbox_seq WHERE id = 1), CAST(round((julianday('now') - 2440587.5) * 86400000) AS INTEGER), f.fact
    FROM local_item_facts f WHERE f.product_id = NEW.id;
END;
CREATE TRIGGER outbox_item_changed AFTER UPDATE ON products
WHEN NEW.published_version IS NULL
     AND (NEW.sku IS NOT OLD.sku OR NEW.name IS NOT OLD.name OR NEW.price_minor IS NOT OLD.price_minor
          OR NEW.currency IS NOT OLD.currency OR NEW.barcode IS NOT OLD.barcode
          OR NEW.tax_class IS NOT OLD.tax_class OR NEW.active IS NOT OLD.active)
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT (SELECT high_water + 1 FROM outbox_seq WHERE id = 1), CAST(round((julianday('now') - 2440587.5) * 86400000) AS INTEGER), f.fact
    FROM local_item_facts f WHERE f.product_id = NEW.id;
END;
CREATE TRIGGER outbox_item_name_ja_added AFTER INSERT ON product_names
WHEN NEW.lang = 'ja'
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT (SELECT high_water + 1 FROM outbox_seq WHERE id = 1), CAST(round((julianday('now') - 2440587.5) * 86400000) AS INTEGER), f.fact
    FROM local_item_facts f WHERE f.product_id = NEW.product_id;
END;
CREATE TRIGGER outbox_item_name_ja_changed AFTER UPDATE ON product_names
WHEN NEW.lang = 'ja' AND NEW.name IS NOT OLD.name
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT (SELECT high_water + 1 FROM outbox_seq WHERE id = 1), CAST(round((julianday('now') - 2440587.5) * 86400000) AS INTEGER), f.fact
    FROM local_item_facts f WHERE f.product_id = NEW.product_id;
END;
CREATE TRIGGER outbox_item_name_ja_removed AFTER DELETE ON product_names
WHEN OLD.lang = 'ja'
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT (SELECT high_water + 1 FROM outbox_seq WHERE id = 1), CAST(round((julianday('now') - 2440587.5) * 86400000) AS INTEGER), f.fact
    FROM local_item_facts f WHERE f.product_id = OLD.product_id;
END;
CREATE TRIGGER outbox_staff_changed AFTER UPDATE OF name, role, active ON staff
WHEN NEW.published_version IS NULL
     AND (NEW.name IS NOT OLD.name OR NEW.role IS NOT OLD.role OR NEW.active IS NOT OLD.active)
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT (SELECT high_water + 1 FROM outbox_seq WHERE id = 1), CAST(round((julianday('now') - 2440587.5) * 86400000) AS INTEGER), f.fact
    FROM local_staff_facts f WHERE f.staff_id = NEW.id;
END;
"#;
