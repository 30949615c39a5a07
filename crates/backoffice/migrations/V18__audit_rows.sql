-- The auditor's search (issue #32, record 0146): each register's audit chain row by row, and
-- each print of a sale's receipt with the text printed, as the register sent them. A proof
-- recomputes the chain from a sale's row to a head the back office confirmed (audit_anchors,
-- V8). Keyed by store_id first like every growing table (record 0041).

-- distributed by store_id: one row per audit row of a register's chain, exactly what its hash
-- covers, its link and its hash; kept as first received (a register that sends another row
-- under the same seq is a rewritten chain, record 0053's break)
CREATE TABLE audit_rows (
    store_id uuid NOT NULL,
    register_id uuid NOT NULL,
    seq bigint NOT NULL CHECK (seq >= 1),
    at_ms bigint NOT NULL,
    actor_id bigint,
    approver_id bigint,
    action text NOT NULL CHECK (length(action) BETWEEN 1 AND 400),
    subject text NOT NULL CHECK (octet_length(subject) <= 400),
    reason text CHECK (octet_length(reason) BETWEEN 1 AND 1024),
    before_doc text CHECK (octet_length(before_doc) <= 16384),
    after_doc text CHECK (octet_length(after_doc) <= 16384),
    prev_hash bytea NOT NULL CHECK (length(prev_hash) = 32),
    hash bytea NOT NULL CHECK (length(hash) = 32),
    received_ms bigint NOT NULL,
    PRIMARY KEY (store_id, register_id, seq),
    FOREIGN KEY (store_id, register_id) REFERENCES registers (store_id, register_id)
);

-- distributed by store_id: each print of a sale's receipt
CREATE TABLE receipt_prints (
    store_id uuid NOT NULL,
    register_id uuid NOT NULL,
    sale_id bigint NOT NULL CHECK (sale_id >= 1),
    print_no integer NOT NULL CHECK (print_no BETWEEN 1 AND 10000),
    receipt_no text NOT NULL,
    reprint boolean NOT NULL,
    outcome text NOT NULL CHECK (outcome IN ('printed', 'failed', 'rendered')),
    paper boolean NOT NULL,
    printed_at_ms bigint NOT NULL,
    staff_id bigint,
    staff_name text,
    -- NULL: longer than the wire takes, or printed by a build that kept no text
    text text CHECK (octet_length(text) <= 98304),
    text_sha256 text NOT NULL CHECK (length(text_sha256) = 64),
    audit_seq bigint NOT NULL CHECK (audit_seq >= 1),
    received_ms bigint NOT NULL,
    PRIMARY KEY (store_id, register_id, sale_id, print_no),
    FOREIGN KEY (store_id, register_id) REFERENCES registers (store_id, register_id)
);

-- the auditor looks a receipt up by its number
CREATE INDEX sales_by_receipt ON sales (store_id, receipt_no);
