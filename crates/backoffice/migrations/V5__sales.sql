-- A register's completed sales with their lines and tax per rate (record 0051).
-- Keyed by store_id first like every growing table, so each is distributed by store_id
-- on Citus; a sale's id is the register's own cart id, so every key also holds
-- register_id. The figures are the register's (the tax it locked at the first tender):
-- stored as sent, never recomputed here.

-- distributed by store_id: one row per completed sale
CREATE TABLE sales (
    store_id uuid NOT NULL,
    register_id uuid NOT NULL,
    sale_id bigint NOT NULL,
    receipt_no text NOT NULL,
    currency text NOT NULL,
    dining text NOT NULL CHECK (dining IN ('eat_in', 'take_out')),
    -- NULL: no tax was computed (every line exempt, no discount)
    price_mode text CHECK (price_mode IN ('inclusive', 'exclusive')),
    subtotal bigint NOT NULL CHECK (subtotal >= 0),
    sale_discount bigint NOT NULL CHECK (sale_discount >= 0),
    tax_total bigint NOT NULL CHECK (tax_total >= 0),
    total bigint NOT NULL CHECK (total > 0),
    completed_at_ms bigint NOT NULL,
    -- a completed sale canceled afterwards (an offline card declined, then canceled)
    canceled_at_ms bigint,
    PRIMARY KEY (store_id, register_id, sale_id),
    FOREIGN KEY (store_id, register_id) REFERENCES registers (store_id, register_id)
);
CREATE INDEX sales_by_time ON sales (store_id, completed_at_ms);

-- distributed by store_id: what was sold, line by line (line_no 1.. in the register's order)
CREATE TABLE sale_lines (
    store_id uuid NOT NULL,
    register_id uuid NOT NULL,
    sale_id bigint NOT NULL,
    line_no integer NOT NULL CHECK (line_no BETWEEN 1 AND 1000),
    sku text NOT NULL,
    name text NOT NULL,
    quantity integer NOT NULL CHECK (quantity BETWEEN 1 AND 9999),
    unit_price bigint NOT NULL CHECK (unit_price >= 0),
    tax_class text NOT NULL CHECK (tax_class IN ('standard', 'reduced', 'exempt')),
    discount bigint NOT NULL CHECK (discount >= 0),
    total bigint NOT NULL CHECK (total >= 0),
    PRIMARY KEY (store_id, register_id, sale_id, line_no),
    FOREIGN KEY (store_id, register_id, sale_id) REFERENCES sales (store_id, register_id, sale_id)
);
CREATE INDEX sale_lines_by_sku ON sale_lines (store_id, sku);

-- distributed by store_id: the qualified invoice's figures, one row per rate of a sale
CREATE TABLE sale_rates (
    store_id uuid NOT NULL,
    register_id uuid NOT NULL,
    sale_id bigint NOT NULL,
    class text NOT NULL CHECK (class IN ('standard', 'reduced', 'exempt')),
    basis_points integer NOT NULL CHECK (basis_points BETWEEN 0 AND 10000),
    base bigint NOT NULL,
    tax bigint NOT NULL,
    gross bigint NOT NULL,
    PRIMARY KEY (store_id, register_id, sale_id, class),
    FOREIGN KEY (store_id, register_id, sale_id) REFERENCES sales (store_id, register_id, sale_id),
    CHECK (base + tax = gross)
);
