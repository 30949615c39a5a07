//! A register's own item goes up to the back office with its shape (record 0137): how it is
//! priced (`product_price_kinds`, record 0126), how it is sold (`product_units`, record 0134)
//! and its category (`product_categories`, record 0133). Before this, `local_item_facts` (v13)
//! wrote none of them, and a weighed item made at the register was listed at the back office
//! as a piece item.
//!
//! - `local_item_facts` is made again: the same fact, with `price_kind`, `unit` and `category`
//!   added only where they differ from a fixed-price piece item with no category, so every
//!   other item's fact is the same text as before (the wire reads a missing key as the default).
//! - Triggers on the three shape tables write the whole item again when its shape changes.
//! - No back-fill: price kinds, categories and units came in versions of this same unreleased
//!   work (v26, v29, v31), so no store holds a shaped local item made before this version; an
//!   item that had one goes up with its shape at its next change.
//!
//! `IF EXISTS` / `IF NOT EXISTS` where an upgrade test rebuilds an older file from a current one.

/// The item-fact-shape migration.
pub(crate) const ITEM_FACT_SHAPE: &str = r#"
DROP VIEW IF EXISTS local_item_facts;
CREATE VIEW local_item_facts AS
SELECT p.id AS product_id,
       json_patch(
           json_object('kind', 'item_saved', 'sku', p.sku, 'barcode', p.barcode,
                       'name_en', substr(trim(p.name), 1, 120),
                       'name_ja', (SELECT substr(trim(n.name), 1, 120) FROM product_names n WHERE n.product_id = p.id AND n.lang = 'ja'),
                       'price', p.price_minor, 'currency', p.currency, 'tax_class', p.tax_class,
                       'active', json(CASE p.active WHEN 1 THEN 'true' ELSE 'false' END)),
           -- a merge patch: a NULL adds nothing, so a plain item's fact is unchanged
           json_object('price_kind', (SELECT k.kind FROM product_price_kinds k WHERE k.product_id = p.id),
                       'unit', (SELECT CASE u.per_grams WHEN 1000 THEN 'kilogram' WHEN 100 THEN 'hundred_grams' END
                                FROM product_units u WHERE u.product_id = p.id),
                       'category', (SELECT c.category FROM product_categories c WHERE c.product_id = p.id))) AS fact
FROM products p WHERE p.published_version IS NULL;


-- the whole item again after an insert, a change or a removal of a shape row (a published
-- item has no fact: the view leaves it out)
CREATE TRIGGER IF NOT EXISTS outbox_item_product_price_kinds_insert AFTER INSERT ON product_price_kinds
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT (SELECT high_water + 1 FROM outbox_seq WHERE id = 1), CAST(round((julianday('now') - 2440587.5) * 86400000) AS INTEGER), f.fact
    FROM local_item_facts f WHERE f.product_id = NEW.product_id;
END;
CREATE TRIGGER IF NOT EXISTS outbox_item_product_price_kinds_update AFTER UPDATE ON product_price_kinds
WHEN NEW.kind IS NOT OLD.kind
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT (SELECT high_water + 1 FROM outbox_seq WHERE id = 1), CAST(round((julianday('now') - 2440587.5) * 86400000) AS INTEGER), f.fact
    FROM local_item_facts f WHERE f.product_id = NEW.product_id;
END;
CREATE TRIGGER IF NOT EXISTS outbox_item_product_price_kinds_delete AFTER DELETE ON product_price_kinds
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT (SELECT high_water + 1 FROM outbox_seq WHERE id = 1), CAST(round((julianday('now') - 2440587.5) * 86400000) AS INTEGER), f.fact
    FROM local_item_facts f WHERE f.product_id = OLD.product_id;
END;
CREATE TRIGGER IF NOT EXISTS outbox_item_product_units_insert AFTER INSERT ON product_units
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT (SELECT high_water + 1 FROM outbox_seq WHERE id = 1), CAST(round((julianday('now') - 2440587.5) * 86400000) AS INTEGER), f.fact
    FROM local_item_facts f WHERE f.product_id = NEW.product_id;
END;
CREATE TRIGGER IF NOT EXISTS outbox_item_product_units_update AFTER UPDATE ON product_units
WHEN NEW.per_grams IS NOT OLD.per_grams
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT (SELECT high_water + 1 FROM outbox_seq WHERE id = 1), CAST(round((julianday('now') - 2440587.5) * 86400000) AS INTEGER), f.fact
    FROM local_item_facts f WHERE f.product_id = NEW.product_id;
END;
CREATE TRIGGER IF NOT EXISTS outbox_item_product_units_delete AFTER DELETE ON product_units
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT (SELECT high_water + 1 FROM outbox_seq WHERE id = 1), CAST(round((julianday('now') - 2440587.5) * 86400000) AS INTEGER), f.fact
    FROM local_item_facts f WHERE f.product_id = OLD.product_id;
END;
CREATE TRIGGER IF NOT EXISTS outbox_item_product_categories_insert AFTER INSERT ON product_categories
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT (SELECT high_water + 1 FROM outbox_seq WHERE id = 1), CAST(round((julianday('now') - 2440587.5) * 86400000) AS INTEGER), f.fact
    FROM local_item_facts f WHERE f.product_id = NEW.product_id;
END;
CREATE TRIGGER IF NOT EXISTS outbox_item_product_categories_update AFTER UPDATE ON product_categories
WHEN NEW.category IS NOT OLD.category
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT (SELECT high_water + 1 FROM outbox_seq WHERE id = 1), CAST(round((julianday('now') - 2440587.5) * 86400000) AS INTEGER), f.fact
    FROM local_item_facts f WHERE f.product_id = NEW.product_id;
END;
CREATE TRIGGER IF NOT EXISTS outbox_item_product_categories_delete AFTER DELETE ON product_categories
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT (SELECT high_water + 1 FROM outbox_seq WHERE id = 1), CAST(round((julianday('now') - 2440587.5) * 86400000) AS INTEGER), f.fact
    FROM local_item_facts f WHERE f.product_id = OLD.product_id;
END;
"#;
