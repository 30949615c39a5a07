-- Encrypted copies of registers' ledgers (issue #32, record 0150). The back office holds
-- ciphertext only: the key stays with the register (and the owner's safe), so nothing here
-- reads as sales. Keyed by store_id first like every growing table (record 0041).

-- distributed by store_id: one row per copy, declared before its chunks arrive; whole once
-- completed_ms is set (the chunks then hashed to sha256). At most one incomplete copy per
-- register (a new one replaces it) and the newest N whole ones (Limits.backups.keep).
CREATE TABLE register_backups (
    store_id uuid NOT NULL,
    backup_id uuid NOT NULL,
    register_id uuid NOT NULL,
    bytes bigint NOT NULL CHECK (bytes >= 1),
    sha256 bytea NOT NULL CHECK (length(sha256) = 32),
    taken_ms bigint NOT NULL,
    started_ms bigint NOT NULL,
    completed_ms bigint,
    PRIMARY KEY (store_id, backup_id),
    UNIQUE (store_id, register_id, sha256),
    FOREIGN KEY (store_id, register_id) REFERENCES registers (store_id, register_id)
);

-- distributed by store_id: a copy's bytes in chunks of 512 KiB (the last one shorter),
-- bytea rows rather than large objects so a copy and its chunks go in one transaction and
-- one pg_dump, and a deleted copy takes its chunks with it
CREATE TABLE register_backup_chunks (
    store_id uuid NOT NULL,
    backup_id uuid NOT NULL,
    n integer NOT NULL CHECK (n >= 0),
    data bytea NOT NULL CHECK (length(data) BETWEEN 1 AND 524288),
    PRIMARY KEY (store_id, backup_id, n),
    FOREIGN KEY (store_id, backup_id) REFERENCES register_backups (store_id, backup_id) ON DELETE CASCADE
);
-- Data is compressed by nothing: ciphertext does not compress, and TOAST would try.
ALTER TABLE register_backup_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
