-- Exchanges of a sale restored from a replaced register (record 0153, addendum "the link to
-- the back office"): a replacement takes back goods of its predecessor's sale as a restored
-- return (kept under the predecessor's register, `taken_by` the replacement, V16) and puts
-- their worth on a new sale of its own. Its `exchange_recorded` names the predecessor as
-- `sale_register`. The link joins a sale of one register to a sale of another.
--
-- `old_register_id`: the register whose sale `old_sale_id` and return `return_no` are. The
-- sender's own (= `register_id`) for every exchange before this and for every exchange of a
-- register's own sale; the predecessor for a restored one. `register_id` stays the sender,
-- whose new sale and exchange id they are. The return and the old sale are looked up under
-- `old_register_id`; one exchange per return whoever sent it; one credit per new sale.
-- The register's exchange ids and its restored exchange ids are two counters: an own
-- exchange is unique by the primary key (its old register is the sender), a restored one by
-- the partial index below. Two sales of one register are never one; a predecessor's sale
-- may have the id of one of the sender's.
-- V21 on main; an unmerged branch (rollup) also numbers a migration V21 and will take the
-- next free number when it is merged.

ALTER TABLE sale_exchanges ADD COLUMN old_register_id uuid;
UPDATE sale_exchanges SET old_register_id = register_id;
ALTER TABLE sale_exchanges ALTER COLUMN old_register_id SET NOT NULL;

ALTER TABLE sale_exchanges DROP CONSTRAINT sale_exchanges_store_id_register_id_return_no_fkey;
ALTER TABLE sale_exchanges DROP CONSTRAINT sale_exchanges_store_id_register_id_old_sale_id_fkey;
ALTER TABLE sale_exchanges DROP CONSTRAINT sale_exchanges_store_id_register_id_return_no_key;
ALTER TABLE sale_exchanges DROP CONSTRAINT sale_exchanges_check;
ALTER TABLE sale_exchanges DROP CONSTRAINT sale_exchanges_pkey;
DROP INDEX sale_exchanges_by_old_sale;

ALTER TABLE sale_exchanges ADD PRIMARY KEY (store_id, register_id, old_register_id, exchange_id);
CREATE UNIQUE INDEX sale_exchanges_restored_once ON sale_exchanges (store_id, register_id, exchange_id)
    WHERE old_register_id <> register_id;
ALTER TABLE sale_exchanges ADD CONSTRAINT sale_exchanges_one_per_return UNIQUE (store_id, old_register_id, return_no);
ALTER TABLE sale_exchanges ADD CONSTRAINT sale_exchanges_two_sales CHECK (old_register_id <> register_id OR new_sale_id <> old_sale_id);
ALTER TABLE sale_exchanges ADD CONSTRAINT sale_exchanges_return_fkey
    FOREIGN KEY (store_id, old_register_id, return_no) REFERENCES sale_returns (store_id, register_id, return_no);
ALTER TABLE sale_exchanges ADD CONSTRAINT sale_exchanges_old_sale_fkey
    FOREIGN KEY (store_id, old_register_id, old_sale_id) REFERENCES sales (store_id, register_id, sale_id);
CREATE INDEX sale_exchanges_by_old_sale ON sale_exchanges (store_id, old_register_id, old_sale_id);
