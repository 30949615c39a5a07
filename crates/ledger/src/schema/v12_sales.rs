//! The migration that puts completed sales, with their lines and tax per rate, in the
//! outbox (record 0051), kept in its own file like v9-v11. Appended to
//! `MIGRATIONS` as one entry: one upgrade transaction, like every migration.

/// `sale_completed_facts` is the one place the fact's JSON is built (`sync-proto`'s
/// `SaleCompleted`, serde's form exactly): the back-fill and the trigger both read it, so
/// they cannot disagree. Figures come from the tax the sale was locked with at its first
/// tender (`carts.tax_locked`, record 0060); a sale with no tax computed (exempt lines, no
/// discount) has `price_mode` null and totals the sum of its lines. A line's discount and
/// net are the locked tax's line at the same place: both list the lines by SKU, as
/// `load_cart` does. The name is the one its receipt prints (the store's language,
/// falling back to `products.name`), cut to the wire's 120 characters (names from before
/// v6 were not bounded).
///
/// `sales_sent` records each sale whose fact was written: a sale is sent once. A paid
/// sale can become unpaid again (a card accepted offline and declined when forwarded,
/// record 0028) and be paid a second time; its lines and figures cannot change meanwhile (it
/// stays locked), so the second completion writes nothing. If such a sale is canceled
/// instead, `sale_canceled` says so. A sale canceled without ever being paid sold nothing
/// and sends no sale fact (its tenders and refunds travel as before).
///
/// Back-fill: every sale paid now, by id, seqs after the high-water mark (after every
/// tender and payment fact of the earlier back-fills and triggers, which they name).
pub(crate) const SALES: &str = r#"
CREATE TABLE sales_sent (
    cart_id INTEGER PRIMARY KEY REFERENCES carts(id)
) STRICT;

CREATE VIEW sale_completed_facts AS
SELECT c.id AS cart_id, c.updated_at_ms AS at_ms,
       json_object(
           'kind', 'sale_completed',
           'sale', c.id,
           'receipt_no', printf('%06d', c.id),
           'currency', c.currency,
           'dining', c.dining,
           'price_mode', json_extract(c.tax_locked, '$.tax.price_mode'),
           'subtotal', COALESCE(json_extract(c.tax_locked, '$.tax.subtotal'),
                                (SELECT COALESCE(SUM(quantity * unit_price_minor), 0) FROM cart_lines WHERE cart_id = c.id)),
           'sale_discount', COALESCE(json_extract(c.tax_locked, '$.tax.sale_discount'), 0),
           'tax_total', COALESCE(json_extract(c.tax_locked, '$.tax.tax_total'), 0),
           'total', COALESCE(json_extract(c.tax_locked, '$.tax.total'),
                             (SELECT COALESCE(SUM(quantity * unit_price_minor), 0) FROM cart_lines WHERE cart_id = c.id)),
           -- json(): a subquery's result loses its JSON subtype, and would be nested as a string
           'rates', json(COALESCE(
               (SELECT json_group_array(json_object(
                           'class', json_extract(r.value, '$.class'),
                           'basis_points', json_extract(r.value, '$.basis_points'),
                           'base', json_extract(r.value, '$.base'),
                           'tax', json_extract(r.value, '$.tax'),
                           'gross', json_extract(r.value, '$.gross')))
                FROM json_each(c.tax_locked, '$.tax.rates') r),
               '[]')),
           'lines', json((
               SELECT json_group_array(json_object(
                          'sku', x.sku, 'name', x.name, 'quantity', x.quantity, 'unit_price', x.unit_price,
                          'tax_class', x.tax_class,
                          'discount', COALESCE(json_extract(c.tax_locked, '$.tax.lines[' || x.idx || '].discount'), 0),
                          'total', COALESCE(json_extract(c.tax_locked, '$.tax.lines[' || x.idx || '].net'), x.quantity * x.unit_price))
                      ORDER BY x.sku)
               FROM (SELECT p.sku AS sku,
                            substr(COALESCE((SELECT n.name FROM product_names n
                                             WHERE n.product_id = p.id
                                               AND n.lang = (SELECT CASE locale WHEN 'ja-JP' THEN 'ja' ELSE 'en' END
                                                             FROM store_settings WHERE id = 1)),
                                            p.name), 1, 120) AS name,
                            l.quantity AS quantity, l.unit_price_minor AS unit_price, l.tax_class AS tax_class,
                            row_number() OVER (ORDER BY p.sku) - 1 AS idx
                     FROM cart_lines l JOIN products p ON p.id = l.product_id
                     WHERE l.cart_id = c.id) x))
       ) AS fact
FROM carts c;

INSERT INTO sales_sent (cart_id) SELECT id FROM carts WHERE state = 'paid' ORDER BY id;
-- the seqs are fixed here, before any outbox row is written (as v9 does)
CREATE TEMP TABLE outbox_sales_backfill AS
SELECT (SELECT high_water FROM outbox_seq WHERE id = 1) + row_number() OVER (ORDER BY f.cart_id) AS seq, f.at_ms AS at_ms, f.fact AS fact
FROM sale_completed_facts f JOIN carts c ON c.id = f.cart_id
WHERE c.state = 'paid';
INSERT INTO outbox (seq, at_ms, fact) SELECT seq, at_ms, fact FROM temp.outbox_sales_backfill ORDER BY seq;
DROP TABLE temp.outbox_sales_backfill;

CREATE TRIGGER outbox_sale_completed AFTER UPDATE OF state ON carts
WHEN NEW.state = 'paid' AND OLD.state IS NOT 'paid'
     AND NOT EXISTS (SELECT 1 FROM sales_sent WHERE cart_id = NEW.id)
BEGIN
    INSERT INTO sales_sent (cart_id) VALUES (NEW.id);
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT (SELECT high_water + 1 FROM outbox_seq WHERE id = 1), NEW.updated_at_ms, f.fact
    FROM sale_completed_facts f WHERE f.cart_id = NEW.id;
END;
CREATE TRIGGER outbox_sale_canceled AFTER UPDATE OF state ON sale_cancels
WHEN NEW.state = 'canceled' AND OLD.state IS NOT 'canceled'
     AND EXISTS (SELECT 1 FROM sales_sent WHERE cart_id = NEW.cart_id)
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT high_water + 1, COALESCE(NEW.completed_at_ms, NEW.created_at_ms),
           json_object('kind', 'sale_canceled', 'sale', NEW.cart_id)
    FROM outbox_seq WHERE id = 1;
END;
CREATE TRIGGER outbox_sale_canceled_at_once AFTER INSERT ON sale_cancels
WHEN NEW.state = 'canceled' AND EXISTS (SELECT 1 FROM sales_sent WHERE cart_id = NEW.cart_id)
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT high_water + 1, COALESCE(NEW.completed_at_ms, NEW.created_at_ms),
           json_object('kind', 'sale_canceled', 'sale', NEW.cart_id)
    FROM outbox_seq WHERE id = 1;
END;
"#;
