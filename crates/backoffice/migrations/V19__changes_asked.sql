-- The owner's publishing pages (issue #32, record 0147): what each register last said it has
-- applied of its store's published changes. A register asks `GET /v1/sync/changes?since=N`
-- after applying everything up to N, so N is a version it has surely applied (the kinds it
-- named say of what). NULL: it has not asked since this version of the back office.
ALTER TABLE registers
    ADD COLUMN changes_since bigint CHECK (changes_since >= 0),
    -- the kinds it named, as the wire lists them ("settings,item,tax,staff"); at most 4 words
    ADD COLUMN changes_kinds text CHECK (octet_length(changes_kinds) <= 64),
    ADD COLUMN changes_asked_ms bigint;
