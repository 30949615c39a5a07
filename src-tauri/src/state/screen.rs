//! What the screen holds for the sale on it that the engine does not: which cart and
//! which checkout are shown, the lock that keeps one Charge or tender running at a time,
//! and the discounts a manager approved for it (checked again at its first tender,
//! record 0068).

use std::sync::Mutex;

use paydesk_tax::Discount;
use paydesk_ledger::CartId;
use tokio::sync::MutexGuard;

use crate::base::lock;

pub struct Screen {
    /// The cart on screen.
    cart: Mutex<CartId>,
    /// The checkout key on screen (receipt, decline, unknown outcome).
    checkout: Mutex<Option<String>>,
    /// Serializes Charge presses (a second press waits and gets the same checkout) and
    /// tenders (a second one is refused).
    charge_lock: tokio::sync::Mutex<()>,
    /// The discounts above the cashier's limit a manager approved for the sale on screen.
    approved: Mutex<Approved>,
    /// Bumped whenever the sale on screen may have changed: the customer display
    /// (customer/emit.rs) waits on it, rebuilds its view and sends it if it differs.
    changes: tokio::sync::watch::Sender<u64>,
}

impl Screen {
    pub fn new(cart: CartId) -> Screen {
        Screen {
            cart: Mutex::new(cart),
            checkout: Mutex::new(None),
            charge_lock: tokio::sync::Mutex::new(()),
            approved: Mutex::new(Approved::default()),
            changes: tokio::sync::watch::Sender::new(0),
        }
    }

    /// The sale on screen may have changed (a line, a tender, a payment's outcome).
    pub fn changed(&self) {
        self.changes.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// Wakes on every [`Screen::changed`] after it is called (none is lost).
    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changes.subscribe()
    }

    pub fn cart_id(&self) -> CartId {
        *lock(&self.cart)
    }

    /// Shows `cart` (a new one) with no checkout yet.
    pub fn show_cart(&self, cart: CartId) {
        *lock(&self.cart) = cart;
        *lock(&self.checkout) = None;
        self.changed();
    }

    pub fn checkout(&self) -> Option<String> {
        lock(&self.checkout).clone()
    }

    pub fn set_checkout(&self, key: Option<String>) {
        *lock(&self.checkout) = key;
    }

    /// The charge lock, waited for.
    pub async fn charge_turn(&self) -> MutexGuard<'_, ()> {
        self.charge_lock.lock().await
    }

    /// The charge lock if nothing holds it now.
    pub fn try_charge_turn(&self) -> Option<MutexGuard<'_, ()>> {
        self.charge_lock.try_lock().ok()
    }

    pub fn approved(&self) -> Approved {
        lock(&self.approved).clone()
    }

    pub fn set_approved(&self, a: Approved) {
        *lock(&self.approved) = a;
    }
}

/// A discount above the cashier's limit on its base as it is now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Above {
    /// The line's SKU, or "sale".
    pub subject: String,
    pub discount: Discount,
    pub base: i64,
}

/// The discounts a manager approved for a sale, as they were then.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Approved {
    pub(crate) cart: Option<CartId>,
    pub(crate) above: Vec<Above>,
}
