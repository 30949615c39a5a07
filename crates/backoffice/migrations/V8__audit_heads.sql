-- The audit chain each register reports with its batches (record 0053): the head the
-- back office confirmed, the last head reported, the heads its Z reports recorded, and
-- the first break found (a head gone backwards, another hash at a confirmed seq, a Z head
-- that changed). Keyed by store_id first like every growing table (record 0041).

-- distributed by store_id: one row per register that ever reported its chain
CREATE TABLE audit_heads (
    store_id uuid NOT NULL,
    register_id uuid NOT NULL,
    confirmed_seq bigint NOT NULL CHECK (confirmed_seq >= 0),
    confirmed_hash bytea NOT NULL CHECK (length(confirmed_hash) = 32),
    confirmed_ms bigint NOT NULL,
    reported_seq bigint NOT NULL CHECK (reported_seq >= 0),
    reported_hash bytea NOT NULL CHECK (length(reported_hash) = 32),
    reported_ms bigint NOT NULL,
    -- the first break found; kept until the owner looks into it (clearing is not built)
    broken_kind text CHECK (broken_kind IN ('went_backwards', 'rewritten', 'z_head_changed')),
    broken_seq bigint,
    broken_detail text,
    broken_ms bigint,
    CHECK ((broken_kind IS NULL) = (broken_ms IS NULL)),
    PRIMARY KEY (store_id, register_id),
    FOREIGN KEY (store_id, register_id) REFERENCES registers (store_id, register_id)
);

-- distributed by store_id: the newest heads confirmed (a few per register, older ones
-- pruned), so a register that names an earlier one (its ack was lost) is checked there
CREATE TABLE audit_anchors (
    store_id uuid NOT NULL,
    register_id uuid NOT NULL,
    seq bigint NOT NULL CHECK (seq >= 0),
    hash bytea NOT NULL CHECK (length(hash) = 32),
    confirmed_ms bigint NOT NULL,
    PRIMARY KEY (store_id, register_id, seq),
    FOREIGN KEY (store_id, register_id) REFERENCES registers (store_id, register_id)
);

-- distributed by store_id: each Z report's audit head, as first received
CREATE TABLE audit_z_heads (
    store_id uuid NOT NULL,
    register_id uuid NOT NULL,
    z_number bigint NOT NULL CHECK (z_number >= 1),
    seq bigint NOT NULL CHECK (seq >= 0),
    hash bytea NOT NULL CHECK (length(hash) = 32),
    received_ms bigint NOT NULL,
    PRIMARY KEY (store_id, register_id, z_number),
    FOREIGN KEY (store_id, register_id) REFERENCES registers (store_id, register_id)
);
