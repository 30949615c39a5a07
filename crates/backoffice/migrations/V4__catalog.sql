-- Catalog, taxes and staff down (record 0049, 0050). Every published document and item takes the
-- next number of its store's one sequence, stores.published_version, under the store
-- row's lock: versions commit in order, so a register that read up to N never misses
-- a change numbered N or less.
ALTER TABLE stores ADD COLUMN published_version bigint NOT NULL DEFAULT 0 CHECK (published_version >= 0);
UPDATE stores s SET published_version = ss.version FROM store_settings ss WHERE ss.store_id = s.store_id;

-- distributed by store_id: one row per SKU, its last published copy
CREATE TABLE catalog_items (
    store_id uuid NOT NULL REFERENCES stores (store_id),
    sku text NOT NULL,
    version bigint NOT NULL CHECK (version >= 1),
    item jsonb NOT NULL,
    updated_ms bigint NOT NULL,
    PRIMARY KEY (store_id, sku),
    UNIQUE (store_id, version)
);

-- distributed by store_id: the store's tax setup, a whole document
CREATE TABLE store_tax (
    store_id uuid PRIMARY KEY REFERENCES stores (store_id),
    version bigint NOT NULL CHECK (version >= 1),
    tax jsonb NOT NULL,
    updated_ms bigint NOT NULL
);

-- distributed by store_id: one row per staff member (by name), its last published copy.
-- pin_hash is the Argon2id PHC string registers verify; the PIN itself is never stored.
CREATE TABLE store_staff (
    store_id uuid NOT NULL REFERENCES stores (store_id),
    name text NOT NULL,
    version bigint NOT NULL CHECK (version >= 1),
    role text NOT NULL CHECK (role IN ('cashier', 'manager', 'owner')),
    active boolean NOT NULL,
    pin_hash text NOT NULL CHECK (pin_hash LIKE '$argon2id$%' AND length(pin_hash) <= 256),
    updated_ms bigint NOT NULL,
    PRIMARY KEY (store_id, name),
    UNIQUE (store_id, version)
);
