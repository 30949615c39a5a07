//! The ledger's aggregates as types (issue #31, decision 0111): one store per aggregate,
//! reached from a [`Ledger`] with `ledger.payments()` (reads) or `ledger.payments_mut()`
//! (reads and writes). A store is only a view of the one connection: it holds the
//! `&Ledger` / `&mut Ledger` it was made from, and its methods live next to their SQL in
//! the files named below.
//!
//! The shape, `Store<L>` with reads in `impl<L: Deref<Target = Ledger>> Store<L>` and
//! writes in `impl Store<&mut Ledger>`, keeps the method bodies as they were when they
//! were `impl Ledger` blocks: `self.conn`, `self.write_tx()` and `self.new_key()` reach
//! the ledger through `Deref` / `DerefMut`, and a write method can call the store's reads.
//!
//! One write transaction: an operation that writes several aggregates (a card tender
//! writes the payment, its tender and the cart's state; an override checkout the payment,
//! the cart's lock and the audit row) is ONE method on the store it starts from, and
//! writes the others through their crate-private functions that take the open
//! transaction (`insert_payment(&tx, …)`, `refresh_cart_tx(&tx, …)`, `append_audit(&tx, …)`)
//! inside its own `Ledger::write_tx` — never by calling another store's public write
//! method, which would commit on its own.

use std::ops::{Deref, DerefMut};

use super::Ledger;

/// Declares a store: the type, and `Deref` (any store) / `DerefMut` (a writing store) to
/// the ledger it views.
macro_rules! store {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        pub struct $name<L>(pub(super) L);

        impl<L: Deref<Target = Ledger>> Deref for $name<L> {
            type Target = Ledger;
            fn deref(&self) -> &Ledger {
                &self.0
            }
        }

        impl DerefMut for $name<&mut Ledger> {
            fn deref_mut(&mut self) -> &mut Ledger {
                self.0
            }
        }
    };
}

store! {
    /// Payments and what hangs off one: checkouts and their keys (payments.rs), state
    /// transitions and settling a checkout (transitions.rs), a payment's explicit
    /// successor (successors.rs), the offline queue (offline.rs), the payment list and
    /// day statistics (reports.rs), the timeline (timeline.rs), and reissued capture /
    /// cancel keys (`crate::reissue`).
    Payments
}

store! {
    /// Refunds against a payment (refunds.rs) and reissued refunds (`crate::reissue`).
    Refunds
}

store! {
    /// Carts and the products they are filled from (carts.rs), carts parked and recalled
    /// (held.rs), and a cart's dining mode and discounts (cart_tax.rs).
    Carts
}

store! {
    /// Sales: a cart's tenders, cash and card (sale/), cancelling and refunding a sale,
    /// the tender day report, cash rounding and the drawer, and takings (takings.rs).
    Sales
}

store! {
    /// The catalog (catalog/): items, CSV import and export, the store's settings and
    /// tax, what the back office published, and the demo store.
    Catalog
}

store! {
    /// Shifts (shift/): opening and closing, paid in / out, X and Z reports.
    Shifts
}

store! {
    /// Staff (staff.rs): members and their PINs, what the back office published
    /// (staff_published.rs), who is signed in (session.rs).
    Roster
}

store! {
    /// Card readers and card-present payments (reader.rs).
    CardReaders
}

store! {
    /// The hash-chained audit log (audit.rs) and its confirmed head (audit_anchor.rs).
    Audit
}

store! {
    /// Receipts: a sale's receipt data and its prints (receipts.rs), and its ryōshūsho
    /// (ryoshusho.rs).
    Receipts
}

store! {
    /// Returns per item of a paid sale (returns.rs): what came back, what it was worth per
    /// rate, and the refunds and cash it gave back (record 0114).
    Returns
}

store! {
    /// The store's own tender types (tender_types.rs, record 0118): vouchers, standalone
    /// terminals, e-money, QR, store accounts. Paying with one is a sale's (sale/store.rs).
    TenderTypes
}

store! {
    /// What flows between this register and the outside: the outbox (outbox.rs), the PSP
    /// events applied and the journal (events.rs), the event cursor (`crate::cursor`), and
    /// rows restored from another register (restored.rs).
    SyncLog
}
