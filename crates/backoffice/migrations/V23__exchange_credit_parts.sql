-- An exchange's credit per tender of the old sale, stored (record 0157, addendum "checked
-- together"). Until V22 the parts travelled only in the journal: each exchange's parts were
-- checked against the old sale alone, so two exchanges of one sale could each credit a
-- tender no more than it paid and together credit it more. With the parts kept, a new
-- exchange's part is checked against what the earlier exchanges of that sale (whoever sent
-- them: the register or its replacement) already credited out of the same tender; and what
-- an exchange carries on from the old sale's own credit (record 0155) is kept beside the link,
-- so several carries out of one credit are checked together against it.
--
-- One row per (exchange, tender). `register_id` is the sender, `old_register_id` the
-- register whose sale `old_sale_id` is (the sender's own, or a predecessor it restored,
-- V21); the key of `sale_exchanges` names the exchange. An older exchange fact without
-- parts (a register before ledger v44) has no rows: what it credited per tender is not
-- known, and is not guessed.

CREATE TABLE sale_exchange_parts (
    store_id uuid NOT NULL,
    register_id uuid NOT NULL,
    old_register_id uuid NOT NULL,
    exchange_id bigint NOT NULL,
    old_sale_id bigint NOT NULL,
    tender_seq integer NOT NULL CHECK (tender_seq >= 1),
    amount bigint NOT NULL CHECK (amount > 0),
    PRIMARY KEY (store_id, register_id, old_register_id, exchange_id, tender_seq),
    FOREIGN KEY (store_id, register_id, old_register_id, exchange_id)
        REFERENCES sale_exchanges (store_id, register_id, old_register_id, exchange_id),
    FOREIGN KEY (store_id, old_register_id, old_sale_id) REFERENCES sales (store_id, register_id, sale_id)
);
CREATE INDEX sale_exchange_parts_by_tender ON sale_exchange_parts (store_id, old_register_id, old_sale_id, tender_seq);

-- The parts of every exchange already stored, from the facts that carried them. A fact in
-- the journal was applied whole (a refused batch stores nothing), so each has its exchange.
INSERT INTO sale_exchange_parts (store_id, register_id, old_register_id, exchange_id, old_sale_id, tender_seq, amount)
SELECT x.store_id, x.register_id, x.old_register_id, x.exchange_id, x.old_sale_id,
       (p->>'tender_seq')::int, (p->>'amount')::bigint
FROM journal j
JOIN sale_exchanges x
  ON x.store_id = j.store_id AND x.register_id = j.register_id
 AND x.old_register_id = COALESCE((j.fact->>'sale_register')::uuid, j.register_id)
 AND x.exchange_id = (j.fact->>'exchange')::bigint
CROSS JOIN LATERAL jsonb_array_elements(j.fact->'credit_parts') p
WHERE j.kind = 'exchange_recorded' AND jsonb_typeof(j.fact->'credit_parts') = 'array';

-- What each exchange carried on from its old sale's own credit (0 when nothing, or when its
-- fact is older than `credit_carried`).
ALTER TABLE sale_exchanges ADD COLUMN credit_carried bigint NOT NULL DEFAULT 0 CHECK (credit_carried >= 0);
UPDATE sale_exchanges x SET credit_carried = (j.fact->>'credit_carried')::bigint
FROM journal j
WHERE j.kind = 'exchange_recorded' AND jsonb_typeof(j.fact->'credit_carried') = 'number'
  AND x.store_id = j.store_id AND x.register_id = j.register_id
  AND x.old_register_id = COALESCE((j.fact->>'sale_register')::uuid, j.register_id)
  AND x.exchange_id = (j.fact->>'exchange')::bigint;
