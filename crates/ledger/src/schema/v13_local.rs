//! The migration that puts the register's own catalog items, staff and tax setup in the
//! outbox (record 0052), kept in its own file like v9-v12. Appended to
//! `MIGRATIONS` as one entry: one upgrade transaction, like every migration.

/// Triggers write a whole item, member or tax document whenever the register's OWN copy
/// changes: never a row the back office published (`published_version` /
/// `tax_published_version` not null — the publish sets it in the statement that writes
/// the row, so a published change never echoes back up), and never a PIN hash.
///
/// An item lives in two tables (`products`, and its Japanese name in `product_names`), so
/// one save can write two rows, each the whole item as it then stands; the last one is
/// the item. Names are cut to the wire's 120 characters and trimmed (names from before v6
/// were not bounded). These tables keep no change time, so `at_ms` is the register's
/// clock when the trigger ran.
///
/// Back-fill, after the high-water mark: every local item (by id), every local member (by
/// id), then the tax setup if it is the register's own and was ever set (a fresh file's
/// default row, time 0, is not sent: a new register's outbox starts empty).
pub(crate) const LOCAL: &str = r#"
CREATE VIEW local_item_facts AS
SELECT p.id AS product_id,
       json_object('kind', 'item_saved', 'sku', p.sku, 'barcode', p.barcode,
                   'name_en', substr(trim(p.name), 1, 120),
                   'name_ja', (SELECT substr(trim(n.name), 1, 120) FROM product_names n WHERE n.product_id = p.id AND n.lang = 'ja'),
                   'price', p.price_minor, 'currency', p.currency, 'tax_class', p.tax_class,
                   'active', json(CASE p.active WHEN 1 THEN 'true' ELSE 'false' END)) AS fact
FROM products p WHERE p.published_version IS NULL;

CREATE VIEW local_staff_facts AS
SELECT s.id AS staff_id,
       json_object('kind', 'staff_saved', 'staff', s.id, 'name', s.name, 'role', s.role,
                   'active', json(CASE s.active WHEN 1 THEN 'true' ELSE 'false' END)) AS fact
FROM staff s WHERE s.published_version IS NULL;

CREATE VIEW local_tax_facts AS
SELECT json_object('kind', 'tax_setup_changed', 'price_mode', s.price_mode, 'rounding', s.rounding,
                   'registration_number', s.registration_number,
                   'rates', json((SELECT json_group_array(json_object('class', class, 'basis_points', basis_points,
                                                                      'effective_from', effective_from) ORDER BY id)
                                  FROM tax_rates))) AS fact
FROM store_settings s WHERE s.id = 1 AND s.tax_published_version IS NULL;

-- the seqs are fixed here, before any outbox row is written (as v9 does)
CREATE TEMP TABLE outbox_local_backfill AS
WITH facts(k1, k2, fact) AS (
    SELECT 0, product_id, fact FROM local_item_facts
    UNION ALL SELECT 1, staff_id, fact FROM local_staff_facts
    -- a setup never edited (the row v6 created, time 0) is not the register's choice
    UNION ALL SELECT 2, 0, fact FROM local_tax_facts WHERE (SELECT updated_at_ms FROM store_settings WHERE id = 1) <> 0
)
SELECT (SELECT high_water FROM outbox_seq WHERE id = 1) + row_number() OVER (ORDER BY k1, k2) AS seq,
       CAST(unixepoch('subsec') * 1000 AS INTEGER) AS at_ms, fact
FROM facts;
INSERT INTO outbox (seq, at_ms, fact) SELECT seq, at_ms, fact FROM temp.outbox_local_backfill ORDER BY seq;
DROP TABLE temp.outbox_local_backfill;

CREATE TRIGGER outbox_item_added AFTER INSERT ON products
WHEN NEW.published_version IS NULL
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT (SELECT high_water + 1 FROM outbox_seq WHERE id = 1), CAST(unixepoch('subsec') * 1000 AS INTEGER), f.fact
    FROM local_item_facts f WHERE f.product_id = NEW.id;
END;
CREATE TRIGGER outbox_item_changed AFTER UPDATE ON products
WHEN NEW.published_version IS NULL
     AND (NEW.sku IS NOT OLD.sku OR NEW.name IS NOT OLD.name OR NEW.price_minor IS NOT OLD.price_minor
          OR NEW.currency IS NOT OLD.currency OR NEW.barcode IS NOT OLD.barcode
          OR NEW.tax_class IS NOT OLD.tax_class OR NEW.active IS NOT OLD.active)
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT (SELECT high_water + 1 FROM outbox_seq WHERE id = 1), CAST(unixepoch('subsec') * 1000 AS INTEGER), f.fact
    FROM local_item_facts f WHERE f.product_id = NEW.id;
END;
CREATE TRIGGER outbox_item_name_ja_added AFTER INSERT ON product_names
WHEN NEW.lang = 'ja'
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT (SELECT high_water + 1 FROM outbox_seq WHERE id = 1), CAST(unixepoch('subsec') * 1000 AS INTEGER), f.fact
    FROM local_item_facts f WHERE f.product_id = NEW.product_id;
END;
CREATE TRIGGER outbox_item_name_ja_changed AFTER UPDATE ON product_names
WHEN NEW.lang = 'ja' AND NEW.name IS NOT OLD.name
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT (SELECT high_water + 1 FROM outbox_seq WHERE id = 1), CAST(unixepoch('subsec') * 1000 AS INTEGER), f.fact
    FROM local_item_facts f WHERE f.product_id = NEW.product_id;
END;
CREATE TRIGGER outbox_item_name_ja_removed AFTER DELETE ON product_names
WHEN OLD.lang = 'ja'
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT (SELECT high_water + 1 FROM outbox_seq WHERE id = 1), CAST(unixepoch('subsec') * 1000 AS INTEGER), f.fact
    FROM local_item_facts f WHERE f.product_id = OLD.product_id;
END;

CREATE TRIGGER outbox_staff_added AFTER INSERT ON staff
WHEN NEW.published_version IS NULL
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT (SELECT high_water + 1 FROM outbox_seq WHERE id = 1), NEW.created_at_ms, f.fact
    FROM local_staff_facts f WHERE f.staff_id = NEW.id;
END;
CREATE TRIGGER outbox_staff_changed AFTER UPDATE OF name, role, active ON staff
WHEN NEW.published_version IS NULL
     AND (NEW.name IS NOT OLD.name OR NEW.role IS NOT OLD.role OR NEW.active IS NOT OLD.active)
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT (SELECT high_water + 1 FROM outbox_seq WHERE id = 1), CAST(unixepoch('subsec') * 1000 AS INTEGER), f.fact
    FROM local_staff_facts f WHERE f.staff_id = NEW.id;
END;

CREATE TRIGGER outbox_tax_changed AFTER UPDATE OF price_mode, rounding, registration_number ON store_settings
WHEN NEW.tax_published_version IS NULL
     AND (NEW.price_mode IS NOT OLD.price_mode OR NEW.rounding IS NOT OLD.rounding
          OR NEW.registration_number IS NOT OLD.registration_number)
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT (SELECT high_water + 1 FROM outbox_seq WHERE id = 1), NEW.updated_at_ms, f.fact
    FROM local_tax_facts f;
END;
"#;
