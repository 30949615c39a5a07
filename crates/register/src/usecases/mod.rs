//! The register's use cases (issue #31, "the engine as the only door"): what the app and
//! the CLI ask of the ledger outside a payment, one typed service per feature, each a
//! short-lived handle on the [`Engine`] (`engine.staff().sign_in(…)`).
//!
//! The app and the CLI call these, never the ledger: a rule that both front ends need
//! (who may add staff, the store's first owner, what a shift's report is built from) is
//! written once, here or in the ledger below. Each method takes one ledger connection —
//! the writer for a change, a reader for a list or a report — for exactly the reads and
//! writes that belong together, and answers the ledger's own error type, so each front
//! end keeps its error mapping. Time is the engine's clock.
//!
//! | file          | service             | what it holds                                        |
//! |---------------|---------------------|------------------------------------------------------|
//! | `staff.rs`    | [`StaffCases`]      | session, sign in/out, PINs, approvals, adding staff  |
//! | `staff_admin.rs` | [`StaffActor`]   | an owner's add, role change, PIN reset, retirement   |
//! | `audit.rs`    | [`AuditCases`]      | the chain: head, verify, confirmed head, log, rows   |
//! | `catalog.rs`  | [`CatalogCases`]    | items, barcodes, CSV import/export, published SKUs   |
//! | `scan.rs`     | [`resolve`]         | a scanned code → the item, by index reads only       |
//! | `store.rs`    | [`StoreCases`]      | store settings, demo seed, published tax             |
//! | `carts.rs`    | [`CartCases`]       | carts and sales: lines, discounts, dining, quantity  |
//! | `receipts.rs` | [`ReceiptCases`]    | a sale's receipt data, prints and paid-sales pages; its ryōshūsho |
//! | `return_docs.rs` | [`ReceiptCases`] | a return's document and each print of it     |
//! | `payments.rs` | [`PaymentCases`]    | payment look-ups, takings, attention counts, restore |
//! | `shifts.rs`   | [`ShiftCases`]      | status, open, paid in/out, X, close → Z, Z look-up   |
//! | `tender_types.rs` | [`TenderTypeCases`] | the store's own tender types (record 0118)       |
//! | `counter_rules.rs` | [`CounterRuleCases`] | label rules, open-price limit, exemptions (record 0136) |

mod audit;
mod carts;
mod catalog;
mod counter_rules;
mod payments;
mod receipts;
mod return_docs;
mod scan;
mod shifts;
mod staff;
mod staff_admin;
mod store;
mod tender_types;

pub use audit::AuditCases;
pub use carts::CartCases;
pub use catalog::{CatalogCases, CatalogScreen};
pub use counter_rules::{CounterRuleCases, CounterRules};
pub use payments::{PaymentCases, StoreDay};
pub use return_docs::{ReturnDocSource, ReturnForm, ReturnableLine};
pub use receipts::{stamp_rule, IssuedRyoshusho, PrintRecord, ReceiptCases, ReceiptSource, RyoshushoAsk, RyoshushoError};
pub use scan::{resolve, ScanLookup, Scanned};
pub use shifts::{ShiftCases, ShiftSnapshot, ShiftState};
pub use staff::{Session, StaffCases, StaffNames};
pub use staff_admin::StaffActor;
pub use store::{StoreCases, StoreView};
pub use tender_types::TenderTypeCases;

use crate::Engine;

impl Engine {
    /// Staff at this register: the session, PINs, approvals and adding staff.
    pub fn staff(&self) -> StaffCases<'_> {
        StaffCases { engine: self }
    }
    /// The audit chain: its head, its verification and its rows.
    pub fn audit(&self) -> AuditCases<'_> {
        AuditCases { engine: self }
    }
    /// The store's catalog.
    pub fn catalog(&self) -> CatalogCases<'_> {
        CatalogCases { engine: self }
    }
    /// The store's settings.
    pub fn store(&self) -> StoreCases<'_> {
        StoreCases { engine: self }
    }
    /// The store's counter rules: label rules, open-price limit, tax exemptions (record 0136).
    pub fn counter_rules(&self) -> CounterRuleCases<'_> {
        CounterRuleCases { engine: self }
    }
    /// Carts and the sales on them (the tenders are the engine's sale operations).
    pub fn carts(&self) -> CartCases<'_> {
        CartCases { engine: self }
    }
    /// Receipts: what a sale's receipt says and each print of it.
    pub fn receipts(&self) -> ReceiptCases<'_> {
        ReceiptCases { engine: self }
    }
    /// Payment look-ups and the day's figures (the payments themselves are the engine's
    /// checkout operations).
    pub fn payments(&self) -> PaymentCases<'_> {
        PaymentCases { engine: self }
    }
    /// Shifts: open, paid in / out, X and Z reports.
    pub fn shifts(&self) -> ShiftCases<'_> {
        ShiftCases { engine: self }
    }
    /// The store's own tender types (record 0118).
    pub fn tender_types(&self) -> TenderTypeCases<'_> {
        TenderTypeCases { engine: self }
    }
}
