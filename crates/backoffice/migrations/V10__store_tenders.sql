-- The store's own tenders (record 0121): a tender of method 'store' names the register's
-- tender type as it was when the tender was taken (id, name, kind), its slip, what was
-- offered and what the store kept as no change given; money given back through one is a
-- store refund. Stored as sent, never recomputed.

ALTER TABLE tenders DROP CONSTRAINT tenders_method_check;
ALTER TABLE tenders ADD CONSTRAINT tenders_method_check CHECK (method IN ('cash', 'card', 'store'));
ALTER TABLE tenders
    ADD COLUMN tender_type_id bigint,
    ADD COLUMN tender_type_name text CHECK (length(tender_type_name) BETWEEN 1 AND 40),
    ADD COLUMN tender_type_kind text CHECK (tender_type_kind IN ('voucher', 'external_terminal', 'e_money', 'qr', 'store_account')),
    ADD COLUMN slip text CHECK (length(slip) BETWEEN 1 AND 40),
    ADD COLUMN offered bigint CHECK (offered > 0),
    ADD COLUMN forfeited bigint CHECK (forfeited >= 0);
-- a store tender has its type, offered and forfeited, and nothing of cash or card;
-- offered pays the amount, the rest is change or forfeited, never both
ALTER TABLE tenders ADD CONSTRAINT tenders_store_shape CHECK (
    (method = 'store') = (tender_type_id IS NOT NULL)
    AND (method = 'store' OR (tender_type_name IS NULL AND tender_type_kind IS NULL AND slip IS NULL AND offered IS NULL AND forfeited IS NULL))
    AND (method <> 'store' OR (tender_type_name IS NOT NULL AND tender_type_kind IS NOT NULL AND offered IS NOT NULL
                               AND forfeited IS NOT NULL AND change_given IS NOT NULL AND cash_tendered IS NULL AND rounding IS NULL
                               AND offered - change_given - forfeited = amount AND (change_given = 0 OR forfeited = 0))));

-- distributed by store_id: money given back through a store tender (a voucher as a voucher)
CREATE TABLE store_refunds (
    store_id uuid NOT NULL,
    register_id uuid NOT NULL,
    refund_id bigint NOT NULL,
    sale_id bigint NOT NULL,
    tender_seq integer NOT NULL CHECK (tender_seq BETWEEN 1 AND 1000),
    amount bigint NOT NULL CHECK (amount > 0),
    currency text NOT NULL,
    shift_id bigint,
    refunded_at_ms bigint NOT NULL,
    PRIMARY KEY (store_id, register_id, refund_id),
    FOREIGN KEY (store_id, register_id, sale_id) REFERENCES sales (store_id, register_id, sale_id),
    FOREIGN KEY (store_id, register_id, sale_id, tender_seq) REFERENCES tenders (store_id, register_id, sale_id, tender_seq)
);
CREATE INDEX store_refunds_by_tender ON store_refunds (store_id, register_id, sale_id, tender_seq);
