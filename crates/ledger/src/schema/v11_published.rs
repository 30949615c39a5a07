//! The migration that marks what the back office publishes (record 0049, 0050), kept apart
//! from `schema/mod.rs` like v9 and v10. Appended to `MIGRATIONS` as one entry.

/// `products.published_version`: the back office's version of the item this row holds
/// (NULL: the register's own item). A published item is the back office's to change;
/// the register refuses to edit it locally (`Error::PublishedItem`).
/// `store_settings.tax_published_version`: likewise for the tax setup (price mode,
/// rounding, registration number and the rates).
/// `staff.published_version`: a member the back office publishes (record 0050).
pub(crate) const PUBLISHED: &str = r#"
ALTER TABLE products ADD COLUMN published_version INTEGER
    CHECK (published_version IS NULL OR published_version >= 1);
ALTER TABLE store_settings ADD COLUMN tax_published_version INTEGER
    CHECK (tax_published_version IS NULL OR tax_published_version >= 1);
ALTER TABLE staff ADD COLUMN published_version INTEGER
    CHECK (published_version IS NULL OR published_version >= 1);
"#;
