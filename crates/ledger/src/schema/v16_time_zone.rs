//! The migration that gives the store a time zone (record 0058), kept apart from
//! `schema/mod.rs` like the others. Appended to `MIGRATIONS` as v16. Empty: the locale's own
//! zone (Asia/Tokyo for ja-JP, America/Los_Angeles for the en-US demo).

pub(crate) const TIME_ZONE: &str =
    "ALTER TABLE store_settings ADD COLUMN time_zone TEXT NOT NULL DEFAULT '' CHECK (length(time_zone) <= 64);";
