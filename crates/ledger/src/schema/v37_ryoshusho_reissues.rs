//! The migration that records a new ryōshūsho (領収書) issued for what the customer kept
//! after a return (issue #29, record 0145), kept in its own file like the others.
//!
//! `ryoshusho_reissues`: generations 2, 3, … of a sale's ryōshūsho (generation 1 stays the
//! v19 `ryoshusho` row, its handing back the v20 `ryoshusho_taken_back` row). Each names
//! the last return it accounts for (`after_return_id`) and records its own handing back
//! (`taken_back_*`), so the next return needs THIS one back. The amounts are what the
//! document stated: what the customer kept.
//!
//! The code refuses first, with typed errors; the triggers are the last word:
//! - a generation is written only in place of the newest one, and only once that one came
//!   back (two valid ryōshūsho for the same money must never exist);
//! - its total is never more than the sale's first ryōshūsho (the sale's total) less
//!   everything returned: never a ryōshūsho for more than the customer paid and kept;
//! - once handed back it stays handed back.
//!
//! `exchanges_sent` and its trigger (record 0145): the `exchange_recorded` fact, linking the
//! old sale, its return and the new sale with the credit. The exchange's code inserts the row
//! right after the return's `returns_sent` row, so the fact follows the return's own fact
//! in the outbox (the back office checks the credit against that return). Sent only when
//! the return was (its sale is in `sales_sent`). Exchanges made before v37 are sent now,
//! in their order, after everything already queued.
//!
//! Numbered v37 in the issue's plan (another branch holds v36); `IF NOT EXISTS` everywhere:
//! upgrade tests rebuild an older file from a current one by dropping the tables they know.

/// Schema v37.
pub(crate) const RYOSHUSHO_REISSUES: &str = r#"
CREATE TABLE IF NOT EXISTS ryoshusho_reissues (
    cart_id              INTEGER NOT NULL REFERENCES ryoshusho(cart_id),
    generation           INTEGER NOT NULL CHECK (generation BETWEEN 2 AND 9999),
    number               TEXT NOT NULL UNIQUE CHECK (length(number) BETWEEN 1 AND 40),
    addressee            TEXT NOT NULL CHECK (length(addressee) <= 64),
    description          TEXT NOT NULL CHECK (length(description) BETWEEN 1 AND 64),
    total_minor          INTEGER NOT NULL CHECK (total_minor > 0),
    cash_minor           INTEGER NOT NULL CHECK (cash_minor >= 0 AND cash_minor <= total_minor),
    stamp_duty_minor     INTEGER CHECK (stamp_duty_minor IS NULL OR stamp_duty_minor > 0),
    after_return_id      INTEGER NOT NULL REFERENCES returns(id),
    issued_by            INTEGER REFERENCES staff(id),
    issued_at_ms         INTEGER NOT NULL,
    print_count          INTEGER NOT NULL DEFAULT 1 CHECK (print_count >= 1),
    last_issued_at_ms    INTEGER NOT NULL,
    taken_back_at_ms     INTEGER,
    taken_back_return_id INTEGER REFERENCES returns(id),
    taken_back_staff_id  INTEGER REFERENCES staff(id),
    PRIMARY KEY (cart_id, generation)
) STRICT;

CREATE TRIGGER IF NOT EXISTS ryoshusho_reissue_replaces_one_taken_back BEFORE INSERT ON ryoshusho_reissues
WHEN NOT (CASE WHEN NEW.generation = 2
               THEN EXISTS (SELECT 1 FROM ryoshusho_taken_back WHERE cart_id = NEW.cart_id)
               ELSE EXISTS (SELECT 1 FROM ryoshusho_reissues WHERE cart_id = NEW.cart_id AND generation = NEW.generation - 1
                                                              AND taken_back_at_ms IS NOT NULL)
          END)
     OR EXISTS (SELECT 1 FROM ryoshusho_reissues WHERE cart_id = NEW.cart_id AND generation >= NEW.generation)
BEGIN
    SELECT RAISE(ABORT, 'a ryoshusho is reissued only in place of the newest one, once it came back');
END;

CREATE TRIGGER IF NOT EXISTS ryoshusho_reissue_within_kept BEFORE INSERT ON ryoshusho_reissues
WHEN NEW.total_minor > COALESCE((SELECT total_minor FROM ryoshusho WHERE cart_id = NEW.cart_id), 0)
                       - (SELECT COALESCE(SUM(total_minor), 0) FROM returns WHERE cart_id = NEW.cart_id)
BEGIN
    SELECT RAISE(ABORT, 'a ryoshusho states more than the customer kept');
END;

CREATE TRIGGER IF NOT EXISTS ryoshusho_reissue_taken_back_stays BEFORE UPDATE OF taken_back_at_ms ON ryoshusho_reissues
WHEN OLD.taken_back_at_ms IS NOT NULL
BEGIN
    SELECT RAISE(ABORT, 'a ryoshusho handed back stays handed back');
END;

CREATE TABLE IF NOT EXISTS exchanges_sent (
    exchange_id INTEGER PRIMARY KEY REFERENCES exchanges(id)
) STRICT;

CREATE TRIGGER IF NOT EXISTS outbox_exchange_recorded AFTER INSERT ON exchanges_sent
WHEN EXISTS (SELECT 1 FROM exchanges e JOIN sales_sent s ON s.cart_id = e.old_cart_id WHERE e.id = NEW.exchange_id)
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT (SELECT high_water + 1 FROM outbox_seq WHERE id = 1), e.created_at_ms,
           json_object('kind', 'exchange_recorded', 'exchange', e.id, 'old_sale', e.old_cart_id, 'return_no', r.number,
                       'new_sale', e.new_cart_id, 'credit', e.credit_minor, 'currency', r.currency)
    FROM exchanges e JOIN returns r ON r.id = e.return_id WHERE e.id = NEW.exchange_id;
END;

INSERT INTO exchanges_sent (exchange_id)
SELECT id FROM exchanges WHERE id NOT IN (SELECT exchange_id FROM exchanges_sent) ORDER BY id;
"#;
