//! Schema v42 (record 0153, addendum "the link to the back office"): a restored exchange's
//! `exchange_recorded` fact. Until now a register that exchanged goods of a sale restored
//! from its predecessor sent the return (`return_recorded` with `sale_register`) and the new
//! sale, but not the link between them; the back office could not say "sale X of register A
//! was exchanged for sale Y of register B".
//!
//! `restored_exchanges_sent` and its trigger, as `exchanges_sent` (v37): the exchange's code
//! inserts the row right after the restored return's own fact (`restored_return_facts`,
//! written in the same transaction), so the link always follows the return it names in the
//! outbox, whatever batch boundaries fall between them. The fact is `exchange_recorded` with
//! `sale_register` naming the predecessor (sync-proto's `ExchangeRecorded`): the old sale and
//! the return number are the predecessor's, the new sale this register's own. A restored
//! return's fact is always sent (there is no `sales_sent` to wait for), so the link is too.
//!
//! Restored exchanges made before v42 are queued now, in their order, after everything
//! already queued: their returns' facts were queued when they were made.
//! `IF NOT EXISTS` everywhere: upgrade tests roll a file back by dropping what they know.

/// Schema v42.
pub(crate) const RESTORED_EXCHANGE_FACTS: &str = r#"
CREATE TABLE IF NOT EXISTS restored_exchanges_sent (
    exchange_id INTEGER PRIMARY KEY REFERENCES restored_exchanges(id)
) STRICT;

CREATE TRIGGER IF NOT EXISTS outbox_restored_exchange_recorded AFTER INSERT ON restored_exchanges_sent
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT (SELECT high_water + 1 FROM outbox_seq WHERE id = 1), e.created_at_ms,
           json_object('kind', 'exchange_recorded', 'exchange', e.id, 'old_sale', r.sale_id, 'return_no', r.number,
                       'new_sale', e.new_cart_id, 'credit', e.credit_minor, 'currency', r.currency,
                       'sale_register', r.source)
    FROM restored_exchanges e JOIN restored_returns r ON r.id = e.return_id WHERE e.id = NEW.exchange_id;
END;

INSERT INTO restored_exchanges_sent (exchange_id)
SELECT id FROM restored_exchanges WHERE id NOT IN (SELECT exchange_id FROM restored_exchanges_sent) ORDER BY id;
"#;
