-- Exchanges at the registers (issue #29, records 0123 and 0145): the return `return_no` of
-- sale `old_sale_id` put `credit` on the register's sale `new_sale_id`. The money is already
-- in sale_returns, refunds, cash_refunds and the new sale's tenders; this links the two
-- sales ("exchanged for sale N"). One per return and one per new sale, as at the register.
-- The new sale may arrive later (it is completed when its rest is paid): no foreign key on
-- it. V17 in the issue's plan (another branch holds V16).

-- distributed by store_id: one row per exchange
CREATE TABLE sale_exchanges (
    store_id uuid NOT NULL,
    register_id uuid NOT NULL,
    exchange_id bigint NOT NULL CHECK (exchange_id >= 1),
    old_sale_id bigint NOT NULL,
    return_no text NOT NULL,
    new_sale_id bigint NOT NULL CHECK (new_sale_id >= 1),
    credit bigint NOT NULL CHECK (credit > 0),
    currency text NOT NULL,
    exchanged_at_ms bigint NOT NULL,
    PRIMARY KEY (store_id, register_id, exchange_id),
    UNIQUE (store_id, register_id, return_no),
    UNIQUE (store_id, register_id, new_sale_id),
    CHECK (new_sale_id <> old_sale_id),
    FOREIGN KEY (store_id, register_id, return_no) REFERENCES sale_returns (store_id, register_id, return_no),
    FOREIGN KEY (store_id, register_id, old_sale_id) REFERENCES sales (store_id, register_id, sale_id)
);
CREATE INDEX sale_exchanges_by_old_sale ON sale_exchanges (store_id, register_id, old_sale_id);
