//! The migration that lets a cashier park a cart (issue #30, record 0128), kept in its own
//! file like the others. Appended to `MIGRATIONS` after the exchanges.
//!
//! One table, `held_carts`: each time a cart was parked, when, by whom, and how the
//! parking ended (recalled to the screen, or discarded with its lines void). A cart is
//! *frozen* while it has a row not ended (parked) or a row ended 'discarded' (void for
//! good); the partial unique index keeps that to one row per cart.
//!
//! Triggers are the last word (the code refuses first, with typed errors): only an open
//! cart with lines and nothing tendered (no tender, payment, cash, exchange credit or
//! cancel) is parked; a frozen cart takes no tender, cash, exchange credit or cancel, and
//! neither its lines nor its dining and discounts change. Rows are history: an ended row
//! is never changed and no row is deleted.
//!
//! Kept off the checkout's hot path where another trigger already holds (record 0108):
//! no trigger on `payments` (every card payment of a cart is a tender of it since v4, so
//! the tenders trigger refuses it in the same statement's transaction), and the head's
//! trigger watches dining and discounts only (a cart's state moves with its tenders). `IF NOT EXISTS` everywhere: upgrade tests rebuild
//! an older file from a current one by dropping only what they know.

/// The held sales migration.
pub(crate) const HELD_SALES: &str = r#"
CREATE TABLE IF NOT EXISTS held_carts (
    id          INTEGER PRIMARY KEY,
    cart_id     INTEGER NOT NULL REFERENCES carts(id),
    held_at_ms  INTEGER NOT NULL,
    held_by     INTEGER REFERENCES staff(id),
    ended_at_ms INTEGER,
    ended_how   TEXT CHECK (ended_how IS NULL OR ended_how IN ('recalled','discarded')),
    CHECK ((ended_at_ms IS NULL) = (ended_how IS NULL))
) STRICT;
CREATE UNIQUE INDEX IF NOT EXISTS held_carts_frozen ON held_carts(cart_id)
    WHERE ended_how IS NULL OR ended_how = 'discarded';

CREATE TRIGGER IF NOT EXISTS held_carts_only_untendered BEFORE INSERT ON held_carts
WHEN (SELECT state FROM carts WHERE id = NEW.cart_id) IS NOT 'open'
  OR NOT EXISTS (SELECT 1 FROM cart_lines WHERE cart_id = NEW.cart_id)
  OR EXISTS (SELECT 1 FROM tenders WHERE cart_id = NEW.cart_id)
  OR EXISTS (SELECT 1 FROM payments WHERE cart_id = NEW.cart_id)
  OR EXISTS (SELECT 1 FROM cash_movements WHERE cart_id = NEW.cart_id)
  OR EXISTS (SELECT 1 FROM exchanges WHERE new_cart_id = NEW.cart_id)
  OR EXISTS (SELECT 1 FROM sale_cancels WHERE cart_id = NEW.cart_id)
BEGIN
    SELECT RAISE(ABORT, 'only an open cart with lines and nothing tendered is held');
END;
CREATE TRIGGER IF NOT EXISTS held_carts_history_update BEFORE UPDATE ON held_carts
WHEN OLD.ended_how IS NOT NULL OR NEW.cart_id <> OLD.cart_id OR NEW.held_at_ms <> OLD.held_at_ms
BEGIN
    SELECT RAISE(ABORT, 'a held cart''s history is not changed');
END;
CREATE TRIGGER IF NOT EXISTS held_carts_history_delete BEFORE DELETE ON held_carts
BEGIN
    SELECT RAISE(ABORT, 'a held cart''s history is not changed');
END;

CREATE TRIGGER IF NOT EXISTS held_carts_no_tender BEFORE INSERT ON tenders
WHEN EXISTS (SELECT 1 FROM held_carts WHERE cart_id = NEW.cart_id AND (ended_how IS NULL OR ended_how = 'discarded'))
BEGIN
    SELECT RAISE(ABORT, 'a held or discarded cart takes no tender');
END;
CREATE TRIGGER IF NOT EXISTS held_carts_no_cash BEFORE INSERT ON cash_movements
WHEN EXISTS (SELECT 1 FROM held_carts WHERE cart_id = NEW.cart_id AND (ended_how IS NULL OR ended_how = 'discarded'))
BEGIN
    SELECT RAISE(ABORT, 'a held or discarded cart takes no tender');
END;
CREATE TRIGGER IF NOT EXISTS held_carts_no_credit BEFORE INSERT ON exchanges
WHEN EXISTS (SELECT 1 FROM held_carts WHERE cart_id = NEW.new_cart_id AND (ended_how IS NULL OR ended_how = 'discarded'))
BEGIN
    SELECT RAISE(ABORT, 'a held or discarded cart takes no tender');
END;
CREATE TRIGGER IF NOT EXISTS held_carts_no_cancel BEFORE INSERT ON sale_cancels
WHEN EXISTS (SELECT 1 FROM held_carts WHERE cart_id = NEW.cart_id AND (ended_how IS NULL OR ended_how = 'discarded'))
BEGIN
    SELECT RAISE(ABORT, 'a held or discarded cart takes no tender');
END;
CREATE TRIGGER IF NOT EXISTS held_carts_head_frozen BEFORE UPDATE OF dining, discount_kind, discount_value ON carts
WHEN EXISTS (SELECT 1 FROM held_carts WHERE cart_id = OLD.id AND (ended_how IS NULL OR ended_how = 'discarded'))
BEGIN
    SELECT RAISE(ABORT, 'a held or discarded cart is not changed');
END;
CREATE TRIGGER IF NOT EXISTS held_carts_lines_frozen_insert BEFORE INSERT ON cart_lines
WHEN EXISTS (SELECT 1 FROM held_carts WHERE cart_id = NEW.cart_id AND (ended_how IS NULL OR ended_how = 'discarded'))
BEGIN
    SELECT RAISE(ABORT, 'a held or discarded cart is not changed');
END;
CREATE TRIGGER IF NOT EXISTS held_carts_lines_frozen_update BEFORE UPDATE ON cart_lines
WHEN EXISTS (SELECT 1 FROM held_carts WHERE cart_id = OLD.cart_id AND (ended_how IS NULL OR ended_how = 'discarded'))
BEGIN
    SELECT RAISE(ABORT, 'a held or discarded cart is not changed');
END;
CREATE TRIGGER IF NOT EXISTS held_carts_lines_frozen_delete BEFORE DELETE ON cart_lines
WHEN EXISTS (SELECT 1 FROM held_carts WHERE cart_id = OLD.cart_id AND (ended_how IS NULL OR ended_how = 'discarded'))
BEGIN
    SELECT RAISE(ABORT, 'a held or discarded cart is not changed');
END;
"#;
