//! Versioned schema. `PRAGMA user_version` holds the number of migrations applied.
//!
//! Migrations are append-only history: never edit a shipped entry, add a new one. They
//! are applied by `migrate` (at open) in ONE `BEGIN IMMEDIATE` transaction together with the
//! `user_version` bump, so a crash mid-upgrade leaves the old schema intact.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension, TransactionBehavior};

use crate::error::{Error, Result};

pub(crate) use ours::check_ours;

mod ours;
mod v01_core;
mod v02_cursor_reissue;
mod v03_successors;
mod v04_sales_tenders;
mod v05_staff_audit;
mod v06_store;
mod v07_outbox;
mod v08_shifts;
mod v09_books;
mod v10_restore;
mod v11_published;
mod v12_sales;
mod v13_local;
mod v14_harden;
mod v15_prints;
mod v16_time_zone;
mod v17_audit_confirmed;
mod v18_reader;
mod v19_ryoshusho;
mod v20_returns;
mod v21_return_facts;
mod v22_return_prints;
mod v23_store_tenders;
mod v24_store_tender_facts;
mod v25_exchanges;
mod v26_cart_lines;
mod v27_held_sales;
mod v28_named_rates;
mod v29_categories;
mod v30_tax_exempt;
mod v31_weighed;
mod v32_counter_rules;
mod v33_published_caps;
mod v34_item_fact_shape;
mod v35_tender_staff;
mod v36_restored_returns;
mod v37_ryoshusho_reissues;
mod v38_audit_rows;
mod v39_restored_return_prints;
mod v40_restored_exchanges;
mod v41_credit_carries;
mod v42_restored_exchange_facts;
mod v43_restored_credit_returns;
mod v44_exchange_credit_parts;

/// Highest schema version this build understands.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// `MIGRATIONS[i]` moves the schema from version `i` to `i + 1`.
pub const MIGRATIONS: &[&str] = &[
    v01_core::V1_CORE,                     // v1: payments, attempts, refunds, events, the audit log
    v02_cursor_reissue::V2_CURSOR_REISSUE, // v2: the event cursor; keys reissued after a stored failure
    v03_successors::V3_SUCCESSORS,         // v3: one explicit new payment per predecessor
    v04_sales_tenders::V4_SALES_TENDERS,   // v4: sales paid by tenders, the drawer, cancels
    v05_staff_audit::V5_STAFF_AUDIT,       // v5: staff and PINs; the audit log becomes a chain
    v06_store::V6_STORE,                   // v6: catalog, store settings, tax as data, receipts
    v07_outbox::V7_OUTBOX,                 // v7: the outbox to the back office
    v08_shifts::V8_SHIFTS,                 // v8: shifts, paid in/out, Z reports, sessions
    v09_books::SYNC_BOOKS,                 // v9: tenders and shifts in the outbox
    v10_restore::RESTORE,                  // v10: a replacement register's restored history
    v11_published::PUBLISHED,              // v11: the catalog and tax the back office publishes
    v12_sales::SALES,                      // v12: completed sales, lines and tax in the outbox
    v13_local::LOCAL,                      // v13: the register's own items, staff and tax, sent up
    v14_harden::HARDEN,                    // v14: growing locks, approval PINs apart
    v15_prints::PRINTS,                    // v15: whether paper may have come out of a print
    v16_time_zone::TIME_ZONE,              // v16: the store's time zone
    v17_audit_confirmed::AUDIT_CONFIRMED,  // v17: the back office's confirmed audit head
    v18_reader::READER,                    // v18: card-present payments on a reader (decision 0102)
    v19_ryoshusho::RYOSHUSHO,              // v19: the ryōshūsho issued, one per sale (record 0112)
    v20_returns::RETURNS,                  // v20: returns per item, their refunds and cash (record 0114)
    v21_return_facts::RETURN_FACTS,        // v21: returns and cash refunds in the outbox (record 0119)
    v22_return_prints::RETURN_PRINTS,      // v22: each print of a return document (record 0117)
    v23_store_tenders::STORE_TENDERS,      // v23: the store's own tender types and their tenders (record 0118)
    v24_store_tender_facts::STORE_TENDER_FACTS, // v24: store tenders and store refunds in the outbox (record 0121)
    v25_exchanges::EXCHANGES,              // v25: exchanges: a return's worth paying a new sale (record 0123)
    v26_cart_lines::CART_LINES,            // v26: cart lines by place; open prices, department keys, labels (record 0126)
    v27_held_sales::HELD_SALES,            // v27: carts parked by the cashier, recalled or discarded (record 0128)
    v28_named_rates::NAMED_RATES,          // v28: named tax rates in parts per million (record 0131)
    v29_categories::CATEGORIES,            // v29: categories and the folded search keys of items (record 0133)
    v30_tax_exempt::TAX_EXEMPT,            // v30: a tax-exempt sale and its reason (record 0135)
    v31_weighed::WEIGHED,                  // v31: weighed goods (record 0134)
    v32_counter_rules::COUNTER_RULES,      // v32: the store's in-store label rules (record 0136)
    v33_published_caps::PUBLISHED_CAPS,    // v33: the back office's offline caps (record 0139)
    v34_item_fact_shape::ITEM_FACT_SHAPE,  // v34: a local item's fact carries its shape (record 0137)
    v35_tender_staff::TENDER_STAFF,        // v35: a tender's fact names its staff (record 0143)
    v36_restored_returns::RESTORED_RETURNS, // v36: returns of a sale restored from a replaced register (record 0144)
    v37_ryoshusho_reissues::RYOSHUSHO_REISSUES, // v37: a new ryōshūsho for what was kept after a return (record 0145)
    v38_audit_rows::AUDIT_ROWS,            // v38: audit rows and receipt prints with their text go up (record 0146)
    v39_restored_return_prints::RESTORED_RETURN_PRINTS, // v39: prints of a restored sale's return document (record 0144)
    v40_restored_exchanges::RESTORED_EXCHANGES, // v40: exchanges of a restored sale (record 0153)
    v41_credit_carries::CREDIT_CARRIES,    // v41: an exchange credit carried on to a later exchange (record 0155)
    v42_restored_exchange_facts::RESTORED_EXCHANGE_FACTS, // v42: a restored exchange's link to the back office (record 0153)
    v43_restored_credit_returns::RESTORED_CREDIT_RETURNS, // v43: a restored exchange's credit given back (record 0156)
    v44_exchange_credit_parts::EXCHANGE_CREDIT_PARTS, // v44: an exchange's fact names its credit per tender (record 0157)
];

/// The version whose migration turned the audit log into a chain.
const AUDIT_CHAIN_VERSION: i64 = 5;

/// The one upgrade step SQL cannot do: hashing the audit rows written before v5 into a
/// chain. The ledger's audit module owns the hashing and hands it in, so the schema
/// history does not depend on the ledger built on it.
pub(crate) type SealAudit = fn(&Connection) -> Result<()>;

/// Reads `user_version` without writing anything.
pub(crate) fn user_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("PRAGMA user_version", [], |r| r.get(0))
}

/// Applies every pending migration in one transaction. Re-checks the version and that
/// the database is ours (or empty) under the write lock, so two processes opening a
/// fresh file at once migrate it exactly once, and a file made newer or filled by
/// another program in between is still refused without a write.
pub(crate) fn migrate(conn: &mut Connection, path: &Path, seal_audit: SealAudit) -> Result<()> {
    if user_version(conn)? >= SCHEMA_VERSION {
        return migrate_in_tx(conn, path, seal_audit);
    }
    // A migration that rebuilds a table others refer to (v18 rebuilds `payments`) needs
    // foreign keys off while the old table is dropped (SQLite's documented procedure;
    // the pragma is a no-op inside a transaction). They are checked before the commit
    // and switched back on whatever happened.
    conn.execute_batch("PRAGMA foreign_keys = OFF")?;
    let res = migrate_in_tx(conn, path, seal_audit);
    let on = conn.execute_batch("PRAGMA foreign_keys = ON");
    res?;
    on?;
    Ok(())
}

fn migrate_in_tx(conn: &mut Connection, path: &Path, seal_audit: SealAudit) -> Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let found = user_version(&tx)?;
    if found > SCHEMA_VERSION {
        // Dropping `tx` rolls back; nothing was written.
        return Err(Error::NewerSchema { found, supported: SCHEMA_VERSION });
    }
    check_ours(&tx, found, path)?;
    for sql in &MIGRATIONS[found as usize..] {
        tx.execute_batch(sql)?;
    }
    if found < AUDIT_CHAIN_VERSION && SCHEMA_VERSION >= AUDIT_CHAIN_VERSION {
        seal_audit(&tx)?;
    }
    if found < SCHEMA_VERSION {
        let broken: Option<String> = tx
            .query_row("SELECT \"table\" || ' row ' || rowid || ' -> ' || parent FROM pragma_foreign_key_check LIMIT 1", [], |r| r.get(0))
            .optional()?;
        if let Some(b) = broken {
            // Dropping `tx` rolls back: the old schema stays as it was.
            return Err(Error::InvalidInput(format!("the upgrade would break a reference: {b}")));
        }
        // PRAGMA cannot take a bound parameter; SCHEMA_VERSION is a compile-time integer.
        tx.execute_batch(&format!("PRAGMA user_version = {SCHEMA_VERSION}"))?;
    }
    tx.commit()?;
    Ok(())
}
