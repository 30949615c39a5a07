-- The owner's reports (record 0140) read a store's rows by time: tenders by when they were
-- taken, and what was given back by when it was given back. Indexes only, no new data:
-- the reports are read-only queries over the facts the registers sent.
CREATE INDEX tenders_by_time ON tenders (store_id, created_at_ms);
CREATE INDEX refunds_by_time ON refunds (store_id, created_at_ms);
CREATE INDEX cash_refunds_by_time ON cash_refunds (store_id, refunded_at_ms);
CREATE INDEX store_refunds_by_time ON store_refunds (store_id, refunded_at_ms);
CREATE INDEX sale_returns_by_time ON sale_returns (store_id, returned_at_ms);
