-- Returns of a sale restored from a replaced register (record 0144).
--
-- `register_restores`: which register read which replaced register's history
-- (`GET /v1/restore/rows`). A replacement may give back a sale of a predecessor it restored,
-- and only that: a refund of the predecessor's payment, a return of its sale, cash back for
-- it. Any other register's sale stays refused as before.
-- distributed by store_id
CREATE TABLE register_restores (
    store_id uuid NOT NULL,
    register_id uuid NOT NULL,
    source_register_id uuid NOT NULL,
    first_read_ms bigint NOT NULL,
    PRIMARY KEY (store_id, register_id, source_register_id),
    CHECK (register_id <> source_register_id)
);

-- A return is kept under the register whose SALE it is (so every report that joins a
-- return to its sale's lines and tenders by register finds it); `taken_by` names the
-- replacement that took it back, NULL when the sale's own register did.
ALTER TABLE sale_returns ADD COLUMN taken_by uuid;

-- Cash back is kept under the sale's register too, and `drawer_register_id` names the
-- register whose drawer it left (whose movement id it is): the two differ for a
-- replacement's return. Movement ids are the drawer's register's, so the key is that one.
ALTER TABLE cash_refunds ADD COLUMN drawer_register_id uuid;
UPDATE cash_refunds SET drawer_register_id = register_id;
ALTER TABLE cash_refunds ALTER COLUMN drawer_register_id SET NOT NULL;
ALTER TABLE cash_refunds DROP CONSTRAINT cash_refunds_pkey;
ALTER TABLE cash_refunds ADD PRIMARY KEY (store_id, drawer_register_id, movement_id);
