//! The SQLite ledger: one connection, the injected key source, and the one write path.
//!
//! Durability rules (docs/design.md, record 0023): WAL, `synchronous=FULL` (a commit that returned is on
//! disk), foreign keys on, a busy timeout so concurrent writers wait instead of failing.
//! Every write goes through `Ledger::write_tx`, one `BEGIN IMMEDIATE` transaction: the
//! write lock is taken up front, so a read-then-write (claim a key, check a refund against
//! the capture) cannot be interleaved with another writer and never hits a
//! mid-transaction `SQLITE_BUSY`. A reader ([`Ledger::open_reader`]) is opened read-only
//! and `query_only`, so that path fails on it before anything is written.
//! All SQL takes bound parameters.
//!
//! No clock and no randomness inside: callers pass `now_ms`, keys come from an injected
//! [`KeySource`], so a seeded simulation replays exactly.
//!
//! `Ledger` itself holds only the connection's life cycle and one accessor per store
//! (`stores.rs`, decision 0111); each store's methods live in the files that hold its SQL
//! (see the crate's README for the table). This file holds what they share.

mod audit;
mod audit_anchor;
pub use audit_anchor::{AuditSnapshot, ConfirmedHead, MAX_REPORTED_Z_HEADS};
mod carts;
mod cart_lines;
mod weighed;
pub use cart_lines::MAX_OPEN_PRICE_LIMIT;
mod cart_tax;
mod held;
pub use held::{HeldCart, HoldRefusal, MAX_HELD_LIMIT};
pub use cart_tax::{tax_cart, LockedTax};
pub mod catalog;
mod events;
mod offline;
mod outbox;
pub use outbox::{OutboxRow, OutboxStats, MAX_OUTBOX_BATCH};
mod payments;
mod reader;
pub use reader::{process_key, BeginAttempt, CardPresentDetails, ReaderAttempt, ReaderAttemptOutcome, ReaderPayment, ReaderRecord, ReaderSettlement, MAX_READER_ATTEMPTS};
mod receipts;
mod reports;
pub use reports::PaymentDayStats;
pub use receipts::{receipt_sale_data, receipt_text_sha256, PrintOutcome, PrintRecord, ReceiptPrint, MAX_RECEIPT_TEXT_BYTES};
mod store_clock;
pub use store_clock::{local_time, store_date, store_day_start, store_time, utc_day};
mod refunds;
mod restored;
pub use restored::{RestoreSourceRow, RestoredPayment, RestoredRow, MAX_RESTORED_PAGE};
mod restored_returns;
pub use restored_returns::{RestoredExchangePlan, RestoredReceipt, RestoredReturnLine, RestoredReturnPlan, RestoredReturnRecord, RestoredReturnTender, RestoredSale, RestoredSaleLine, RestoredTender};
mod exchange;
mod return_prints;
mod returns;
pub use return_prints::ReturnPrint;
pub use exchange::{ExchangeCredit, ExchangeOfReturn, ExchangePlan};
pub use returns::{return_number, ReturnLine, ReturnPlan, ReturnRecord, ReturnRestoredTender, ReturnTender, MAX_RETURN_LINES};
mod rows;
mod ryoshusho;
pub use ryoshusho::{
    ryoshusho_generation_number, ryoshusho_number, IssuedRyoshusho, KeptPart, RyoshushoGeneration, RyoshushoIssue, RyoshushoKept, RyoshushoRecord,
};
mod sale;
mod session;
pub mod shift;
mod staff;
mod staff_admin;
mod staff_published;
mod takings;
pub use takings::Period;
mod tax_exempt;
mod published_caps;
pub use published_caps::PublishedCaps;
pub use tax_exempt::{exempt_reason, MAX_EXEMPT_REASON_CHARS, MIN_EXEMPT_REASON_CHARS};
mod tender_types;
pub use tender_types::MAX_TENDER_TYPES;

pub use audit::AuditInput;
pub(crate) use audit::seal_audit;
pub use staff::{PinPurpose, Staff, MAX_STAFF};
pub use staff_admin::StaffRefusal;
pub use staff_published::{PublishedStaff, PublishedStaffReport};

pub use sale::{CancelAction, CancelPlan, StoreGivenBack, CardTender, CashTender, Sale, StoreTender, SaleCancel, SaleRefundPlan, TenderDay, TenderKindTotal, UnpaidBalance};

pub(crate) use rows::refund_by_id_tx;
mod stores;
pub use stores::{Payments, Refunds, Carts, Sales, Catalog, Shifts, Roster, CardReaders, Audit, Receipts, Returns, TenderTypes, SyncLog};
mod successors;
mod timeline;
mod transitions;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use rusqlite::{Connection, Row};

use crate::error::{Error, Result};
use crate::open;
use crate::schema::{self, SCHEMA_VERSION};
use crate::types::{KeySource, RandomKeys};
use crate::write_tx::WriteTx;

/// Prepared statements kept per connection: every statement the ledger runs is
/// parsed once and reused (re-parsing was a third of the simulation's CPU time).
/// Sized above the number of distinct statements in this module.
const STATEMENT_CACHE_CAPACITY: usize = 128;

/// `query_row` through the connection's statement cache. Statements that write are run
/// with `WriteTx::exec_cached`, which exists only on an open write transaction.
trait Cached {
    fn row_cached<T, P: rusqlite::Params, F: FnOnce(&Row<'_>) -> rusqlite::Result<T>>(
        &self,
        sql: &str,
        params: P,
        f: F,
    ) -> rusqlite::Result<T>;
}

impl Cached for Connection {
    fn row_cached<T, P: rusqlite::Params, F: FnOnce(&Row<'_>) -> rusqlite::Result<T>>(
        &self,
        sql: &str,
        params: P,
        f: F,
    ) -> rusqlite::Result<T> {
        self.prepare_cached(sql)?.query_row(params, f)
    }
}

pub use crate::busy::BUSY_TIMEOUT;

const PAYMENT_COLS: &str = "id, idempotency_key, psp_payment_id, amount_minor, currency, state, capture_method, \
     request_params, cart_id, offline, created_at_ms, first_attempt_at_ms, updated_at_ms, refunded_minor, last_error";

const REFUND_COLS: &str = "id, idempotency_key, payment_id, amount_minor, currency, state, psp_refund_id, reason, \
     request_params, created_at_ms, first_attempt_at_ms, updated_at_ms";

/// The ledger: one SQLite connection plus the injected key source.
///
/// Writes take `&mut self`: record 0023 measured that one writer fed by a queue beats
/// several writer connections, so the register owns one `Ledger` on its writer thread;
/// readers may open more `Ledger`s on the same file.
pub struct Ledger {
    conn: Connection,
    keys: Box<dyn KeySource>,
    path: Option<PathBuf>,
    /// Durable commits made through this connection (a SQLite commit hook).
    commits: Arc<AtomicU64>,
}

impl std::fmt::Debug for Ledger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ledger").field("path", &self.path).finish_non_exhaustive()
    }
}

impl Ledger {
    /// Opens (creating if missing) the ledger at `path` with OS-random keys.
    pub fn open(path: impl AsRef<Path>) -> Result<Ledger> {
        Ledger::open_with_keys(path, Box::new(RandomKeys))
    }

    /// Opens the ledger with an injected key source.
    ///
    /// Refused, the file left as it was: an empty path, `:memory:` (use
    /// [`Ledger::open_in_memory`]), a directory or device, a missing directory, and a
    /// file that is neither empty nor a PayDesk ledger (see [`crate::open`]). Order
    /// matters: an existing file is first inspected through a READ-ONLY connection (is
    /// it SQLite? ours? newer than this build? is its header sane?), because even
    /// `PRAGMA journal_mode=WAL` rewrites the header — a file that is refused must stay
    /// byte-for-byte untouched.
    pub fn open_with_keys(path: impl AsRef<Path>, keys: Box<dyn KeySource>) -> Result<Ledger> {
        let path = path.as_ref();
        if open::check_path(path)? {
            let found = open::inspect_read_only(path)?;
            // record 0055: a copy before a migration runs, never when none will.
            if found > 0 && found < SCHEMA_VERSION {
                crate::backup::before_migrate(path, found, SCHEMA_VERSION)?;
            }
        }
        // Payments, staff and the audit log are this user's alone (record 0054): the file is
        // made 0600 before SQLite opens it, and SQLite gives its -wal and -shm the same mode.
        open::owner_only(path)?;
        let mut conn = Connection::open_with_flags(path, open::write_flags()).map_err(|e| crate::error::open_error(path, e))?;
        open::configure(&conn, path)?;
        open::sidecars_owner_only(path)?;
        match schema::migrate(&mut conn, path, seal_audit) {
            Err(Error::Sqlite(e)) => return Err(crate::error::open_error(path, e)),
            other => other?,
        }
        // Search keys SQL cannot fold: written for products that have none (record 0133).
        catalog::heal_search(&mut conn)?;
        Ledger::with_conn(conn, keys, Some(path.to_path_buf()))
    }

    /// A read-only connection for reports and the UI, separate from the single writer
    /// (record 0023: one writer fed by a queue, separate readers). It never migrates or
    /// writes: a schema other than this build's is refused ([`Error::NewerSchema`] if
    /// newer; an older or missing one must first be opened by the writer). Opened
    /// `SQLITE_OPEN_READ_ONLY` with `PRAGMA query_only`: every write method fails at
    /// `Ledger::write_tx` with SQLite's read-only error and changes nothing.
    pub fn open_reader(path: impl AsRef<Path>) -> Result<Ledger> {
        let path = path.as_ref();
        open::check_path(path)?;
        open::inspect_read_only(path)?;
        let conn = Connection::open_with_flags(path, open::read_flags()).map_err(|e| crate::error::open_error(path, e))?;
        crate::busy::wait_for_locks(&conn)?;
        // Belt and braces over SQLITE_OPEN_READ_ONLY: a statement that would write is
        // refused by SQLite itself, whichever way it reaches this connection.
        conn.pragma_update(None, "query_only", true)?;
        let found = schema::user_version(&conn).map_err(|e| crate::error::open_error(path, e))?;
        if found != SCHEMA_VERSION {
            return Err(Error::InvalidInput(format!(
                "ledger schema {found} is not {SCHEMA_VERSION}: open it with the writer first"
            )));
        }
        Ledger::with_conn(conn, Box::new(RandomKeys), Some(path.to_path_buf()))
    }

    /// A reader on `conn`, a connection to a file checked already (the check of a copy,
    /// record 0154: one connection for the whole check, so its reads can be paced).
    pub(crate) fn reader_on(conn: Connection, path: &Path) -> Result<Ledger> {
        Ledger::with_conn(conn, Box::new(RandomKeys), Some(path.to_path_buf()))
    }

    /// A private in-memory ledger (tests, simulations). Not durable.
    pub fn open_in_memory(keys: Box<dyn KeySource>) -> Result<Ledger> {
        let mut conn = Connection::open_in_memory()?;
        conn.execute_batch("PRAGMA foreign_keys = ON")?;
        schema::migrate(&mut conn, Path::new(":memory:"), seal_audit)?;
        catalog::heal_search(&mut conn)?;
        Ledger::with_conn(conn, keys, None)
    }

    fn with_conn(conn: Connection, keys: Box<dyn KeySource>, path: Option<PathBuf>) -> Result<Ledger> {
        conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE_CAPACITY);
        let commits = Arc::new(AtomicU64::new(0));
        let c2 = commits.clone();
        conn.commit_hook(Some(move || {
            c2.fetch_add(1, Ordering::Relaxed);
            false // let the commit proceed
        }))?;
        Ok(Ledger { conn, keys, path, commits })
    }

    /// How many transactions this connection has committed since it was opened (a
    /// SQLite commit hook: each one is a durable commit, one fsync under
    /// `synchronous=FULL`). For tests and benchmarks of the register's overhead.
    pub fn commit_count(&self) -> u64 {
        self.commits.load(Ordering::Relaxed)
    }

    /// Path of the file, `None` in memory.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Current `user_version`.
    pub fn schema_version(&self) -> Result<i64> {
        Ok(schema::user_version(&self.conn)?)
    }

    /// The underlying connection, read-only use (reports, tests). Writes must go through
    /// the methods so the invariants hold.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    /// A new key from the injected source.
    pub fn new_key(&mut self) -> String {
        self.keys.next_key().to_string()
    }

    /// The Payments store, to read (see [`Payments`]).
    pub fn payments(&self) -> Payments<&Ledger> {
        Payments(self)
    }

    /// The Payments store, to read and write (see [`Payments`]).
    pub fn payments_mut(&mut self) -> Payments<&mut Ledger> {
        Payments(self)
    }

    /// The Refunds store, to read (see [`Refunds`]).
    pub fn refunds(&self) -> Refunds<&Ledger> {
        Refunds(self)
    }

    /// The Refunds store, to read and write (see [`Refunds`]).
    pub fn refunds_mut(&mut self) -> Refunds<&mut Ledger> {
        Refunds(self)
    }

    /// The Carts store, to read (see [`Carts`]).
    pub fn carts(&self) -> Carts<&Ledger> {
        Carts(self)
    }

    /// The Carts store, to read and write (see [`Carts`]).
    pub fn carts_mut(&mut self) -> Carts<&mut Ledger> {
        Carts(self)
    }

    /// The Sales store, to read (see [`Sales`]).
    pub fn sales(&self) -> Sales<&Ledger> {
        Sales(self)
    }

    /// The Sales store, to read and write (see [`Sales`]).
    pub fn sales_mut(&mut self) -> Sales<&mut Ledger> {
        Sales(self)
    }

    /// The Catalog store, to read (see [`Catalog`]).
    pub fn catalog(&self) -> Catalog<&Ledger> {
        Catalog(self)
    }

    /// The Catalog store, to read and write (see [`Catalog`]).
    pub fn catalog_mut(&mut self) -> Catalog<&mut Ledger> {
        Catalog(self)
    }

    /// The Shifts store, to read (see [`Shifts`]).
    pub fn shifts(&self) -> Shifts<&Ledger> {
        Shifts(self)
    }

    /// The Shifts store, to read and write (see [`Shifts`]).
    pub fn shifts_mut(&mut self) -> Shifts<&mut Ledger> {
        Shifts(self)
    }

    /// The Roster store, to read (see [`Roster`]).
    pub fn roster(&self) -> Roster<&Ledger> {
        Roster(self)
    }

    /// The Roster store, to read and write (see [`Roster`]).
    pub fn roster_mut(&mut self) -> Roster<&mut Ledger> {
        Roster(self)
    }

    /// The CardReaders store, to read (see [`CardReaders`]).
    pub fn card_readers(&self) -> CardReaders<&Ledger> {
        CardReaders(self)
    }

    /// The CardReaders store, to read and write (see [`CardReaders`]).
    pub fn card_readers_mut(&mut self) -> CardReaders<&mut Ledger> {
        CardReaders(self)
    }

    /// The Audit store, to read (see [`Audit`]).
    pub fn audit(&self) -> Audit<&Ledger> {
        Audit(self)
    }

    /// The Audit store, to read and write (see [`Audit`]).
    pub fn audit_mut(&mut self) -> Audit<&mut Ledger> {
        Audit(self)
    }

    /// The Receipts store, to read (see [`Receipts`]).
    pub fn receipts(&self) -> Receipts<&Ledger> {
        Receipts(self)
    }

    /// The Receipts store, to read and write (see [`Receipts`]).
    pub fn receipts_mut(&mut self) -> Receipts<&mut Ledger> {
        Receipts(self)
    }

    /// The Returns store, to read (see [`Returns`]).
    pub fn returns(&self) -> Returns<&Ledger> {
        Returns(self)
    }

    /// The Returns store, to read and write (see [`Returns`]).
    pub fn returns_mut(&mut self) -> Returns<&mut Ledger> {
        Returns(self)
    }

    /// The TenderTypes store, to read (see [`TenderTypes`]).
    pub fn tender_types(&self) -> TenderTypes<&Ledger> {
        TenderTypes(self)
    }

    /// The TenderTypes store, to read and write (see [`TenderTypes`]).
    pub fn tender_types_mut(&mut self) -> TenderTypes<&mut Ledger> {
        TenderTypes(self)
    }

    /// The SyncLog store, to read (see [`SyncLog`]).
    pub fn sync_log(&self) -> SyncLog<&Ledger> {
        SyncLog(self)
    }

    /// The SyncLog store, to read and write (see [`SyncLog`]).
    pub fn sync_log_mut(&mut self) -> SyncLog<&mut Ledger> {
        SyncLog(self)
    }

    /// THE write path: every method that writes opens its transaction here (payments,
    /// carts, refunds, events, audit, the event cursor, reissued keys). On a reader it
    /// fails at `BEGIN IMMEDIATE` with SQLite's read-only error, before any statement.
    pub(crate) fn write_tx(&mut self) -> Result<WriteTx<'_>> {
        Ok(WriteTx::begin(&self.conn)?)
    }
}

fn collect<P: rusqlite::Params, T>(
    conn: &Connection,
    sql: &str,
    params: P,
    f: impl FnMut(&Row<'_>) -> rusqlite::Result<Result<T>>,
) -> Result<Vec<T>> {
    let mut stmt = conn.prepare_cached(sql)?;
    let rows = stmt.query_map(params, f)?;
    let mut out = Vec::new();
    for r in rows {
        out.push(r??);
    }
    Ok(out)
}
