-- What registers gave back after a sale (record 0119): returns of items with their tax per
-- rate, and the cash out of a drawer for a refund or a return. Netted against `sales` by the
-- dashboard; stored as sent, never recomputed. Keyed by store_id first like every growing table.

-- distributed by store_id: one row per return (`return_no` is the register's "000042-R1")
CREATE TABLE sale_returns (
    store_id uuid NOT NULL,
    register_id uuid NOT NULL,
    sale_id bigint NOT NULL,
    return_no text NOT NULL CHECK (length(return_no) BETWEEN 1 AND 40),
    currency text NOT NULL,
    total bigint NOT NULL CHECK (total >= 0),
    tax_total bigint NOT NULL CHECK (tax_total >= 0 AND tax_total <= total),
    cash_out bigint NOT NULL CHECK (cash_out >= 0 AND cash_out <= total),
    returned_at_ms bigint NOT NULL,
    PRIMARY KEY (store_id, register_id, return_no),
    FOREIGN KEY (store_id, register_id, sale_id) REFERENCES sales (store_id, register_id, sale_id)
);
CREATE INDEX sale_returns_by_sale ON sale_returns (store_id, register_id, sale_id);

-- distributed by store_id: the lines a return took back (`line_no` as in sale_lines, 1..)
CREATE TABLE sale_return_lines (
    store_id uuid NOT NULL,
    register_id uuid NOT NULL,
    return_no text NOT NULL,
    sale_id bigint NOT NULL,
    line_no integer NOT NULL CHECK (line_no BETWEEN 1 AND 1000),
    sku text NOT NULL,
    quantity integer NOT NULL CHECK (quantity BETWEEN 1 AND 9999),
    tax_class text NOT NULL CHECK (tax_class IN ('standard', 'reduced', 'exempt')),
    net bigint NOT NULL CHECK (net >= 0),
    PRIMARY KEY (store_id, register_id, return_no, line_no),
    FOREIGN KEY (store_id, register_id, return_no) REFERENCES sale_returns (store_id, register_id, return_no),
    FOREIGN KEY (store_id, register_id, sale_id, line_no) REFERENCES sale_lines (store_id, register_id, sale_id, line_no)
);

-- distributed by store_id: a return's figures per rate
CREATE TABLE sale_return_rates (
    store_id uuid NOT NULL,
    register_id uuid NOT NULL,
    return_no text NOT NULL,
    class text NOT NULL CHECK (class IN ('standard', 'reduced', 'exempt')),
    basis_points integer NOT NULL CHECK (basis_points BETWEEN 0 AND 10000),
    base bigint NOT NULL CHECK (base >= 0),
    tax bigint NOT NULL CHECK (tax >= 0),
    gross bigint NOT NULL,
    PRIMARY KEY (store_id, register_id, return_no, class),
    FOREIGN KEY (store_id, register_id, return_no) REFERENCES sale_returns (store_id, register_id, return_no),
    CHECK (base + tax = gross)
);

-- distributed by store_id: cash handed back out of a drawer for a sale (refund or return)
CREATE TABLE cash_refunds (
    store_id uuid NOT NULL,
    register_id uuid NOT NULL,
    movement_id bigint NOT NULL,
    sale_id bigint NOT NULL,
    amount bigint NOT NULL CHECK (amount > 0),
    currency text NOT NULL,
    shift_id bigint,
    refunded_at_ms bigint NOT NULL,
    PRIMARY KEY (store_id, register_id, movement_id),
    FOREIGN KEY (store_id, register_id, sale_id) REFERENCES sales (store_id, register_id, sale_id)
);
CREATE INDEX cash_refunds_by_sale ON cash_refunds (store_id, register_id, sale_id);
