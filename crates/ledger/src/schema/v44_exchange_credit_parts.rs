//! Schema v44 (issue #29, record 0157): an exchange's `exchange_recorded` fact says where
//! its credit came from. Until now the fact named the credit but no tender, so a register
//! that replaced this one and restored its journal could not know what each tender of the
//! old sale had left, and refused any return of it (`RestoredExchangedThere`, record 0153).
//!
//! Both triggers that queue the fact are replaced (v37's for this register's own exchanges,
//! v42's for exchanges of a restored sale); the fact now carries:
//! - `credit_parts`: `[{tender_seq, amount}]`, what the credit took out of each of the old
//!   sale's own tenders (`exchange_credits` rows on a tender of the old sale; for a restored
//!   sale, `restored_exchange_credits`, whose `tender_seq` is the predecessor's), in tender
//!   order, possibly empty;
//! - `credit_carried` (only when above 0): what was carried on from the credit that paid the
//!   old sale (record 0155: `exchange_credits` rows on an earlier sale's tender). That money
//!   is not the old sale's; the first exchange's own fact already named the tender it came
//!   out of.
//!
//! Parts + carried = the credit: the exchange's code writes every credit row before the row
//! that fires the trigger. Nothing is re-sent: a fact already queued or sent by an older
//! version stays as it was (without parts), and a successor keeps refusing that sale.
//! `DROP ... IF EXISTS` then `CREATE`: upgrade tests roll a file back and run this again.

/// Schema v44.
pub(crate) const EXCHANGE_CREDIT_PARTS: &str = r#"
DROP TRIGGER IF EXISTS outbox_exchange_recorded;
CREATE TRIGGER outbox_exchange_recorded AFTER INSERT ON exchanges_sent
WHEN EXISTS (SELECT 1 FROM exchanges e JOIN sales_sent s ON s.cart_id = e.old_cart_id WHERE e.id = NEW.exchange_id)
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT (SELECT high_water + 1 FROM outbox_seq WHERE id = 1), e.created_at_ms,
           json_patch(
               json_object('kind', 'exchange_recorded', 'exchange', e.id, 'old_sale', e.old_cart_id, 'return_no', r.number,
                           'new_sale', e.new_cart_id, 'credit', e.credit_minor, 'currency', r.currency,
                           'credit_parts', json((SELECT json_group_array(json_object('tender_seq', p.seq, 'amount', p.amount_minor))
                                                 FROM (SELECT t.seq AS seq, c.amount_minor AS amount_minor
                                                       FROM exchange_credits c JOIN tenders t ON t.id = c.tender_id
                                                       WHERE c.exchange_id = e.id AND t.cart_id = e.old_cart_id ORDER BY t.seq) p))),
               CASE WHEN k.carried > 0 THEN json_object('credit_carried', k.carried) ELSE '{}' END)
    FROM exchanges e JOIN returns r ON r.id = e.return_id
      JOIN (SELECT COALESCE(SUM(c.amount_minor), 0) AS carried
            FROM exchange_credits c JOIN tenders t ON t.id = c.tender_id JOIN exchanges x ON x.id = c.exchange_id
            WHERE c.exchange_id = NEW.exchange_id AND t.cart_id != x.old_cart_id) k
    WHERE e.id = NEW.exchange_id;
END;

DROP TRIGGER IF EXISTS outbox_restored_exchange_recorded;
CREATE TRIGGER outbox_restored_exchange_recorded AFTER INSERT ON restored_exchanges_sent
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT (SELECT high_water + 1 FROM outbox_seq WHERE id = 1), e.created_at_ms,
           json_object('kind', 'exchange_recorded', 'exchange', e.id, 'old_sale', r.sale_id, 'return_no', r.number,
                       'new_sale', e.new_cart_id, 'credit', e.credit_minor, 'currency', r.currency,
                       'sale_register', r.source,
                       'credit_parts', json((SELECT json_group_array(json_object('tender_seq', p.tender_seq, 'amount', p.amount_minor))
                                             FROM (SELECT tender_seq, amount_minor FROM restored_exchange_credits
                                                   WHERE exchange_id = e.id ORDER BY tender_seq) p)))
    FROM restored_exchanges e JOIN restored_returns r ON r.id = e.return_id WHERE e.id = NEW.exchange_id;
END;
"#;
