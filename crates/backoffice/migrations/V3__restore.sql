-- Restore (record 0048): the owner marks a register replaced (a dead disk, a new
-- machine). From then on its token is refused and its journal is final, so a replacement
-- register of the same store can read it as history.
ALTER TABLE registers ADD COLUMN replaced_ms bigint;
