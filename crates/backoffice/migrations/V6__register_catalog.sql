-- A register's OWN catalog items, staff and tax setup (record 0052): what it edited
-- itself, never what the owner published (that is catalog_items, store_tax, store_staff,
-- V4). Kept per register and read-only here: they never overwrite the published copy.
-- Keyed by store_id first like every growing table, so each is distributed by store_id
-- on Citus. No PIN and no PIN hash: the wire does not carry them.

-- distributed by store_id: the last version of each of a register's own items
CREATE TABLE register_items (
    store_id uuid NOT NULL,
    register_id uuid NOT NULL,
    sku text NOT NULL,
    barcode text,
    name_en text NOT NULL,
    name_ja text,
    price bigint NOT NULL CHECK (price >= 0),
    currency text NOT NULL,
    tax_class text NOT NULL CHECK (tax_class IN ('standard', 'reduced', 'exempt')),
    active boolean NOT NULL,
    updated_at_ms bigint NOT NULL,
    PRIMARY KEY (store_id, register_id, sku),
    FOREIGN KEY (store_id, register_id) REFERENCES registers (store_id, register_id)
);

-- distributed by store_id: a register's own staff (its ids), without any secret
CREATE TABLE register_staff (
    store_id uuid NOT NULL,
    register_id uuid NOT NULL,
    staff_id bigint NOT NULL,
    name text NOT NULL,
    role text NOT NULL CHECK (role IN ('cashier', 'manager', 'owner')),
    active boolean NOT NULL,
    updated_at_ms bigint NOT NULL,
    PRIMARY KEY (store_id, register_id, staff_id),
    FOREIGN KEY (store_id, register_id) REFERENCES registers (store_id, register_id)
);

-- distributed by store_id: a register's own tax setup, the whole document
CREATE TABLE register_tax (
    store_id uuid NOT NULL,
    register_id uuid NOT NULL,
    price_mode text NOT NULL CHECK (price_mode IN ('inclusive', 'exclusive')),
    rounding text NOT NULL CHECK (rounding IN ('down', 'half_up', 'up')),
    registration_number text,
    -- the rate table as the register holds it: at most 64 rows, read as a whole
    rates jsonb NOT NULL,
    updated_at_ms bigint NOT NULL,
    PRIMARY KEY (store_id, register_id),
    FOREIGN KEY (store_id, register_id) REFERENCES registers (store_id, register_id)
);
