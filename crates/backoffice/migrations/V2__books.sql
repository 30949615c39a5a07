-- The register's books beyond payments and refunds (record 0047): tenders and shifts.
-- Keyed by store_id first like every growing table, so each is distributed by store_id
-- on Citus. Ids are the register's own (a sale, a shift, a drawer entry), so every key
-- also holds register_id.

-- distributed by store_id: each tender of each sale, as the register recorded it
CREATE TABLE tenders (
    store_id uuid NOT NULL,
    register_id uuid NOT NULL,
    sale_id bigint NOT NULL,
    tender_seq integer NOT NULL CHECK (tender_seq BETWEEN 1 AND 1000),
    method text NOT NULL CHECK (method IN ('cash', 'card')),
    amount bigint NOT NULL CHECK (amount > 0),
    currency text NOT NULL,
    checkout_key text,
    cash_tendered bigint,
    change_given bigint,
    rounding bigint,
    shift_id bigint,
    created_at_ms bigint NOT NULL,
    superseded_at_ms bigint,
    PRIMARY KEY (store_id, register_id, sale_id, tender_seq),
    FOREIGN KEY (store_id, register_id) REFERENCES registers (store_id, register_id),
    CHECK ((method = 'card') = (checkout_key IS NOT NULL))
);

-- distributed by store_id: a drawer session, from its float to its Z report
CREATE TABLE shifts (
    store_id uuid NOT NULL,
    register_id uuid NOT NULL,
    shift_id bigint NOT NULL,
    currency text NOT NULL,
    float_amount bigint NOT NULL CHECK (float_amount >= 0),
    opened_at_ms bigint NOT NULL,
    z_number bigint,
    counted bigint,
    expected bigint,
    over_short bigint,
    closed_at_ms bigint,
    PRIMARY KEY (store_id, register_id, shift_id),
    UNIQUE (store_id, register_id, z_number),
    FOREIGN KEY (store_id, register_id) REFERENCES registers (store_id, register_id),
    CHECK ((z_number IS NULL) = (closed_at_ms IS NULL))
);

-- distributed by store_id: cash paid into or out of a shift's drawer outside a sale
CREATE TABLE drawer_moves (
    store_id uuid NOT NULL,
    register_id uuid NOT NULL,
    entry_id bigint NOT NULL,
    shift_id bigint NOT NULL,
    direction text NOT NULL CHECK (direction IN ('paid_in', 'paid_out')),
    amount bigint NOT NULL CHECK (amount > 0),
    currency text NOT NULL,
    reason text NOT NULL,
    at_ms bigint NOT NULL,
    PRIMARY KEY (store_id, register_id, entry_id),
    FOREIGN KEY (store_id, register_id, shift_id) REFERENCES shifts (store_id, register_id, shift_id)
);
