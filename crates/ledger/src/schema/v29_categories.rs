//! The migration for finding items (issue #30, record 0133), kept in its own file like the
//! others. Appended to `MIGRATIONS` after the held sales.
//!
//! `categories`: the store's categories as data, a key with an English and an optional
//! Japanese name and a place in the register's tabs. `product_categories` puts an item in
//! at most one. A table beside `products`, not a column on it: `products` is neither
//! rebuilt nor altered (other columns come to it in parallel), and every statement here
//! can run again on a file that has it, as the upgrade tests do when they rebuild an older
//! file from a current one (an ALTER TABLE ADD COLUMN cannot).
//!
//! `product_search`: one row per product, its SKU and names folded for search (NFKC, lower
//! case, katakana as hiragana, no spaces). SQL cannot fold Unicode, so the ledger writes the
//! rows (after each write of an item, and at open for any product without one); the
//! triggers here only DELETE a product's row when its SKU or a name changes, so a key is
//! missing (found again at the next write or open) rather than wrong. Each key is indexed:
//! a prefix is a range on the index, never a scan of the catalog.
//!
//! `IF NOT EXISTS` everywhere, for those upgrade tests.

/// The categories and search migration.
pub(crate) const CATEGORIES: &str = r#"
CREATE TABLE IF NOT EXISTS categories (
    key      TEXT PRIMARY KEY CHECK (length(key) BETWEEN 1 AND 32 AND key NOT GLOB '*[^a-z0-9_-]*'),
    name_en  TEXT NOT NULL CHECK (length(name_en) BETWEEN 1 AND 40),
    name_ja  TEXT CHECK (name_ja IS NULL OR length(name_ja) BETWEEN 1 AND 40),
    position INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE TABLE IF NOT EXISTS product_categories (
    product_id INTEGER PRIMARY KEY REFERENCES products(id),
    category   TEXT NOT NULL REFERENCES categories(key)
) STRICT;
CREATE INDEX IF NOT EXISTS product_categories_category ON product_categories(category);

CREATE TABLE IF NOT EXISTS product_search (
    product_id INTEGER PRIMARY KEY REFERENCES products(id),
    sku_key    TEXT NOT NULL,
    en_key     TEXT NOT NULL,
    ja_key     TEXT NOT NULL,
    -- The three keys in one, for "contains" (a scan of this narrow table, bounded).
    all_key    TEXT NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS product_search_sku ON product_search(sku_key);
CREATE INDEX IF NOT EXISTS product_search_en ON product_search(en_key);
CREATE INDEX IF NOT EXISTS product_search_ja ON product_search(ja_key);

CREATE TRIGGER IF NOT EXISTS product_search_stale_product AFTER UPDATE OF sku, name ON products
BEGIN
    DELETE FROM product_search WHERE product_id = NEW.id;
END;
CREATE TRIGGER IF NOT EXISTS product_search_stale_name_added AFTER INSERT ON product_names
BEGIN
    DELETE FROM product_search WHERE product_id = NEW.product_id;
END;
CREATE TRIGGER IF NOT EXISTS product_search_stale_name_changed AFTER UPDATE ON product_names
BEGIN
    DELETE FROM product_search WHERE product_id = NEW.product_id OR product_id = OLD.product_id;
END;
CREATE TRIGGER IF NOT EXISTS product_search_stale_name_removed AFTER DELETE ON product_names
BEGIN
    DELETE FROM product_search WHERE product_id = OLD.product_id;
END;
"#;
