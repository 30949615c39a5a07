-- An item's shape and the store's time zone (record 0137).
--
-- Published items are whole wire documents (catalog_items.item, V4): an item now says how
-- it is priced (fixed / open / department), how it is sold (piece / kilogram /
-- hundred_grams) and its category key. A document written before this has none of them
-- and means a fixed-price piece item with no category, which is what every register made
-- of it; the CHECKs read an absent field that way and refuse any other word.
ALTER TABLE catalog_items ADD CONSTRAINT catalog_items_price_kind_check
    CHECK (coalesce(item->>'price_kind', 'fixed') IN ('fixed', 'open', 'department'));
ALTER TABLE catalog_items ADD CONSTRAINT catalog_items_unit_check
    CHECK (coalesce(item->>'unit', 'piece') IN ('piece', 'kilogram', 'hundred_grams'));
ALTER TABLE catalog_items ADD CONSTRAINT catalog_items_category_check
    CHECK (item->>'category' IS NULL OR item->>'category' ~ '^[a-z0-9_-]{1,32}$');

-- A register's own items (V6) keep the same shape as it sent them; rows from before were
-- sent without one and were fixed-price piece items.
ALTER TABLE register_items
    ADD COLUMN price_kind text NOT NULL DEFAULT 'fixed' CHECK (price_kind IN ('fixed', 'open', 'department')),
    ADD COLUMN unit text NOT NULL DEFAULT 'piece' CHECK (unit IN ('piece', 'kilogram', 'hundred_grams')),
    ADD COLUMN category text CHECK (category ~ '^[a-z0-9_-]{1,32}$');

-- The store's IANA zone: the dashboard's hours and days are the store's. A store from
-- before had none and its charts were in UTC; it stays in UTC (its charts do not move
-- under the owner) unless it sells in yen: Japan has one zone and no summer time, so
-- Asia/Tokyo is certainly its zone. A dollar store could be in any of six zones: not
-- guessed. The owner sets the zone (PUT /admin/stores/:id/time-zone), which is checked
-- against the time zone database before it is kept.
ALTER TABLE stores ADD COLUMN time_zone text NOT NULL DEFAULT 'UTC'
    CHECK (length(time_zone) BETWEEN 1 AND 64 AND time_zone ~ '^[A-Za-z0-9/_+-]+$');
UPDATE stores s SET time_zone = 'Asia/Tokyo'
    FROM store_settings ss WHERE ss.store_id = s.store_id AND ss.settings->>'currency' = 'jpy';
