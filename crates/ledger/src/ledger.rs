//! The SQLite ledger.
//!
//! Durability rules (SPEC §3, §7): WAL, `synchronous=FULL` (a commit that returned is on
//! disk), foreign keys on, a busy timeout so concurrent writers wait instead of failing.
//! Every write is one `BEGIN IMMEDIATE` transaction: the write lock is taken up front, so
//! a read-then-write (claim a key, check a refund against the capture) cannot be
//! interleaved with another writer and never hits a mid-transaction `SQLITE_BUSY`.
//! All SQL takes bound parameters.
//!
//! No clock and no randomness inside: callers pass `now_ms`, keys come from an injected
//! [`KeySource`], so a seeded simulation replays exactly.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::write_tx::WriteTx;
use rusqlite::{params, Connection, ErrorCode, OpenFlags, OptionalExtension, Row};

use crate::error::{Error, Result};
use crate::money::{Currency, Money};
use crate::schema::{self, SCHEMA_VERSION};
use crate::state::{CaptureMethod, PaymentState, RefundState, Step};
use crate::types::*;

/// Prepared statements kept per connection: every statement the ledger runs is
/// parsed once and reused (re-parsing was a third of the simulation's CPU time).
/// Sized above the number of distinct statements in this file.
const STATEMENT_CACHE_CAPACITY: usize = 128;

/// `execute` / `query_row` through the connection's statement cache.
trait Cached {
    fn exec_cached<P: rusqlite::Params>(&self, sql: &str, params: P) -> rusqlite::Result<usize>;
    fn row_cached<T, P: rusqlite::Params, F: FnOnce(&Row<'_>) -> rusqlite::Result<T>>(
        &self,
        sql: &str,
        params: P,
        f: F,
    ) -> rusqlite::Result<T>;
}

impl Cached for Connection {
    fn exec_cached<P: rusqlite::Params>(&self, sql: &str, params: P) -> rusqlite::Result<usize> {
        self.prepare_cached(sql)?.execute(params)
    }
    fn row_cached<T, P: rusqlite::Params, F: FnOnce(&Row<'_>) -> rusqlite::Result<T>>(
        &self,
        sql: &str,
        params: P,
        f: F,
    ) -> rusqlite::Result<T> {
        self.prepare_cached(sql)?.query_row(params, f)
    }
}

/// How long a writer waits for the lock before `SQLITE_BUSY`.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

const PAYMENT_COLS: &str = "id, idempotency_key, psp_payment_id, amount_minor, currency, state, capture_method, \
     request_params, cart_id, offline, created_at_ms, first_attempt_at_ms, updated_at_ms, refunded_minor, last_error";

const REFUND_COLS: &str = "id, idempotency_key, payment_id, amount_minor, currency, state, psp_refund_id, reason, \
     request_params, created_at_ms, first_attempt_at_ms, updated_at_ms";

/// The ledger: one SQLite connection plus the injected key source.
///
/// Writes take `&mut self`: SPEC §7 measured that one writer fed by a queue beats
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

fn map_open_error(path: &Path, e: rusqlite::Error) -> Error {
    match e.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) => Error::NotADatabase { path: path.display().to_string() },
        Some(ErrorCode::DatabaseCorrupt) => {
            Error::Corrupt { path: path.display().to_string(), detail: e.to_string() }
        }
        _ => Error::Sqlite(e),
    }
}

impl Ledger {
    /// Opens (creating if missing) the ledger at `path` with OS-random keys.
    pub fn open(path: impl AsRef<Path>) -> Result<Ledger> {
        Ledger::open_with_keys(path, Box::new(RandomKeys))
    }

    /// Opens the ledger with an injected key source.
    ///
    /// Order matters: an existing file is first inspected through a READ-ONLY connection
    /// (is it SQLite? is its schema newer than ours? is its header sane?), because even
    /// `PRAGMA journal_mode=WAL` rewrites the header — a newer file must be refused
    /// byte-for-byte untouched so the newer build can still read it.
    pub fn open_with_keys(path: impl AsRef<Path>, keys: Box<dyn KeySource>) -> Result<Ledger> {
        let path = path.as_ref();
        let existing = std::fs::metadata(path).map(|m| m.len() > 0).unwrap_or(false);
        if existing {
            Self::inspect_read_only(path)?;
        }
        let mut conn = Connection::open(path).map_err(|e| map_open_error(path, e))?;
        Self::configure(&conn).map_err(|e| map_open_error(path, e))?;
        match schema::migrate(&mut conn) {
            Err(Error::Sqlite(e)) => return Err(map_open_error(path, e)),
            other => other?,
        }
        Ledger::with_conn(conn, keys, Some(path.to_path_buf()))
    }

    /// A read-only connection for reports and the UI, separate from the single writer
    /// (SPEC §7: one writer fed by a queue, separate readers). It never migrates or
    /// writes: a schema other than this build's is refused ([`Error::NewerSchema`] if
    /// newer; an older or missing one must first be opened by the writer). Write methods
    /// on it fail with SQLite's read-only error.
    pub fn open_reader(path: impl AsRef<Path>) -> Result<Ledger> {
        let path = path.as_ref();
        Self::inspect_read_only(path)?;
        let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)
            .map_err(|e| map_open_error(path, e))?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        let found = schema::user_version(&conn).map_err(|e| map_open_error(path, e))?;
        if found != SCHEMA_VERSION {
            return Err(Error::InvalidInput(format!(
                "ledger schema {found} is not {SCHEMA_VERSION}: open it with the writer first"
            )));
        }
        Ledger::with_conn(conn, Box::new(RandomKeys), Some(path.to_path_buf()))
    }

    /// A private in-memory ledger (tests, simulations). Not durable.
    pub fn open_in_memory(keys: Box<dyn KeySource>) -> Result<Ledger> {
        let mut conn = Connection::open_in_memory()?;
        conn.execute_batch("PRAGMA foreign_keys = ON")?;
        schema::migrate(&mut conn)?;
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

    fn inspect_read_only(path: &Path) -> Result<()> {
        let ro = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)
            .map_err(|e| map_open_error(path, e))?;
        ro.busy_timeout(BUSY_TIMEOUT)?;
        // Reading the schema forces SQLite to parse the header and sqlite_schema:
        // NOTADB / CORRUPT surface here, before anything writes.
        let found = schema::user_version(&ro).map_err(|e| map_open_error(path, e))?;
        if found > SCHEMA_VERSION {
            return Err(Error::NewerSchema { found, supported: SCHEMA_VERSION });
        }
        ro.query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get::<_, i64>(0))
            .map_err(|e| map_open_error(path, e))?;
        let check: String =
            ro.query_row("PRAGMA quick_check(1)", [], |r| r.get(0)).map_err(|e| map_open_error(path, e))?;
        if check != "ok" {
            return Err(Error::Corrupt { path: path.display().to_string(), detail: check });
        }
        Ok(())
    }

    fn configure(conn: &Connection) -> rusqlite::Result<()> {
        conn.busy_timeout(BUSY_TIMEOUT)?;
        let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(rusqlite::Error::InvalidQuery);
        }
        // FULL: the WAL is fsynced on every commit, so a returned commit survives power
        // loss (SPEC §3 rule 1: the key is durable before the network is touched).
        conn.execute_batch("PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;")?;
        Ok(())
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

    fn write_tx(&mut self) -> Result<WriteTx<'_>> {
        Ok(WriteTx::begin(&self.conn)?)
    }

    // ----------------------------------------------------------------- checkouts

    /// Opens a checkout for `cart_id` (SPEC §3 rules 1-3).
    ///
    /// If the cart already has an open checkout (created / authorizing / authorized /
    /// capturing) it is returned with `is_new == false`: pressing Charge twice, a double
    /// click or a restart reuses the same key. Otherwise a new payment is committed —
    /// state `created`, a fresh UUID v4 key, the exact request parameters built from the
    /// cart total — and the cart is locked, all in one transaction that is durable when
    /// this returns, before the caller sends anything.
    pub fn open_checkout(&mut self, cart_id: CartId, options: &CheckoutOptions, now_ms: i64) -> Result<Checkout> {
        let key = self.new_key();
        let tx = self.write_tx()?;
        let co = open_checkout_in(&tx, &key, cart_id, options, None, now_ms)?;
        if co.is_new {
            tx.commit()?;
        } // else: read-only path; dropping tx just releases the lock.
        Ok(co)
    }

    /// Starts a NEW checkout for a cart even though one is still open — the cashier's
    /// explicit override of SPEC §3 rule 3 (e.g. the previous outcome is unknown and the
    /// customer cannot wait). The reason is required and written to the audit log in the
    /// same transaction as the new payment. The old checkout is left as it is: crash
    /// recovery still resolves it, so a possible double charge stays visible.
    /// Without an open checkout this is a plain [`Ledger::open_checkout`].
    pub fn open_checkout_override(
        &mut self,
        cart_id: CartId,
        options: &CheckoutOptions,
        reason: &str,
        now_ms: i64,
    ) -> Result<Checkout> {
        if reason.trim().is_empty() {
            return Err(Error::InvalidInput("an override needs a reason".into()));
        }
        let key = self.new_key();
        let tx = self.write_tx()?;
        let co = open_checkout_in(&tx, &key, cart_id, options, Some(reason), now_ms)?;
        if co.is_new {
            tx.commit()?;
        }
        Ok(co)
    }

    /// The payment explicitly started after `previous` with [`Ledger::payment_after`], if any.
    pub fn successor_of(&self, previous: PaymentId) -> Result<Option<Payment>> {
        successor_tx(&self.conn, previous)
    }

    /// A new payment explicitly started after `previous` ("Try another card", the CLI's
    /// `checkout --after`), at most once per predecessor: if `previous` already has a
    /// successor, that payment is returned with `is_new == false` and nothing is written
    /// (re-running the same command resumes it, never a second payment). Otherwise the
    /// new payment (as [`Ledger::create_payment`], or for a cart as
    /// [`Ledger::open_checkout`] / [`Ledger::open_checkout_override`] with
    /// `override_reason`) and its link to `previous` are committed in one transaction.
    /// A cart's open checkout that is not `previous`'s successor is returned as by
    /// `open_checkout` (`is_new == false`, not linked).
    pub fn payment_after(&mut self, previous: PaymentId, after: After<'_>, now_ms: i64) -> Result<Checkout> {
        if let After::Cart { override_reason: Some(r), .. } = &after {
            if r.trim().is_empty() {
                return Err(Error::InvalidInput("an override needs a reason".into()));
            }
        }
        let key = self.new_key();
        let tx = self.write_tx()?;
        payment_by_id_tx(&tx, previous)?;
        if let Some(next) = successor_tx(&tx, previous)? {
            return Ok(Checkout { payment: next, is_new: false });
        }
        let co = match after {
            After::Amount(new) => {
                let amount = Money::positive(new.amount.amount_minor, new.amount.currency)?;
                let id = insert_payment(&tx, &key, amount, &new.options, None, now_ms)?;
                Checkout { payment: payment_by_id_tx(&tx, id)?, is_new: true }
            }
            After::Cart { cart_id, options, override_reason } => {
                open_checkout_in(&tx, &key, cart_id, options, override_reason, now_ms)?
            }
        };
        if co.is_new {
            tx.exec_cached(
                "INSERT INTO payment_successors (previous_id, next_id, created_at_ms) VALUES (?1, ?2, ?3)",
                params![previous.0, co.payment.id.0, now_ms],
            )?;
            tx.commit()?;
        }
        Ok(co)
    }

    /// Creates a payment without a cart (CLI `checkout --amount`): committed in state
    /// `created` with a new key before returning.
    pub fn create_payment(&mut self, new: &NewPayment, now_ms: i64) -> Result<Payment> {
        let amount = Money::positive(new.amount.amount_minor, new.amount.currency)?;
        let key = self.new_key();
        let tx = self.write_tx()?;
        let id = insert_payment(&tx, &key, amount, &new.options, None, now_ms)?;
        let p = payment_by_id_tx(&tx, id)?;
        tx.commit()?;
        Ok(p)
    }

    /// Records what the PSP answered for `result.idempotency_key`, idempotently
    /// (SPEC §3 rule 4). Never creates a second row for a key:
    ///
    /// * no row for the key → insert one in `state_if_new` → `Recorded`;
    /// * row without a PSP id and same amount/currency → attach the id → `Recorded`;
    /// * row with the same fields → `Exists`;
    /// * a field differs → `ExistsWithDifferent{Amount,Currency,PspPaymentId}` (checked in
    ///   that order), and nothing changes;
    /// * the PSP id is on another key → `PspPaymentIdBelongsToAnotherKey`.
    pub fn record_psp_result(&mut self, result: &PspResult, now_ms: i64) -> Result<RecordOutcome> {
        if result.amount.amount_minor <= 0 {
            return Err(Error::InvalidAmount(format!("{} must be greater than zero", result.amount.amount_minor)));
        }
        if result.psp_payment_id.is_empty() {
            return Err(Error::InvalidInput("empty psp_payment_id".into()));
        }
        let tx = self.write_tx()?;
        let outcome = record_psp_result_tx(&tx, result, now_ms)?;
        if matches!(outcome, RecordOutcome::Recorded(_)) {
            tx.commit()?;
        }
        // Any other outcome wrote nothing: dropping tx rolls back (no fsync).
        Ok(outcome)
    }

    /// Moves a payment `from -> to` with `UPDATE … WHERE id=? AND state=?` in one
    /// transaction, appending a timeline row (SPEC §4).
    ///
    /// * illegal per the table → [`Error::IllegalTransition`], nothing written;
    /// * already in `to` → `AlreadyDone(to)`, nothing written (a repeat is a no-op);
    /// * in a third state → [`Error::StaleState`], nothing written.
    ///
    /// Side effects in the same transaction: the cart is unlocked when the checkout
    /// fails or is canceled (a new intent may follow), marked paid when captured or
    /// accepted offline; `offline` is set on entering `queued_offline`.
    pub fn transition(
        &mut self,
        payment_id: PaymentId,
        from: PaymentState,
        to: PaymentState,
        detail: &str,
        now_ms: i64,
    ) -> Result<TransitionOutcome<PaymentState>> {
        let tx = self.write_tx()?;
        let out = transition_tx(&tx, payment_id, from, to, detail, now_ms)?;
        if matches!(out, TransitionOutcome::Applied { .. }) {
            tx.commit()?;
        }
        Ok(out)
    }

    /// Records one attempt (an HTTP request with the checkout key): a timeline row with
    /// outcome, latency, replay flag and attempt number; stamps `first_attempt_at_ms` the
    /// first time (the dedup-window guard of SPEC §3 rule 6 measures from it).
    pub fn record_attempt(&mut self, payment_id: PaymentId, attempt: &TimelineInput, now_ms: i64) -> Result<()> {
        let tx = self.write_tx()?;
        record_attempt_tx(&tx, payment_id, attempt, now_ms)?;
        tx.commit()?;
        Ok(())
    }

    /// Settles what one attempt phase of a checkout ended with, in ONE transaction
    /// (one durable commit): the attempts' timeline rows (stamping
    /// `first_attempt_at_ms`), the PSP's answer recorded idempotently (the same
    /// `Exists…` checks as [`Ledger::record_psp_result`]), the last error, and the state
    /// path to `target` — `created`/`queued_offline` go through `authorizing` first —
    /// each step checked against the one transition table and applied with
    /// `UPDATE … WHERE id=? AND state=?` ([`Ledger::transition`]'s rules and side
    /// effects). Without a target, `sent` still moves a `created`/`queued_offline` row
    /// to `authorizing`. A state already past the target is kept (an event may have
    /// moved it first).
    ///
    /// If the PSP result disagrees with the row (`ExistsWith…`, `…BelongsToAnotherKey`)
    /// nothing at all is written and [`SettleOutcome::PspConflict`] is returned.
    pub fn settle_checkout(&mut self, payment_id: PaymentId, s: &CheckoutSettlement, now_ms: i64) -> Result<SettleOutcome> {
        let tx = self.write_tx()?;
        for (entry, at_ms) in &s.attempts {
            record_attempt_tx(&tx, payment_id, entry, *at_ms)?;
        }
        if let Some(res) = &s.psp {
            let out = record_psp_result_tx(&tx, res, now_ms)?;
            if !matches!(out, RecordOutcome::Recorded(_) | RecordOutcome::Exists(_)) {
                return Ok(SettleOutcome::PspConflict(out)); // dropping tx rolls back
            }
        }
        if let Some(e) = &s.last_error {
            let n = tx.exec_cached(
                "UPDATE payments SET last_error = ?2, updated_at_ms = ?3 WHERE id = ?1",
                params![payment_id.0, e, now_ms],
            )?;
            if n == 0 {
                return Err(Error::UnknownPayment(payment_id.to_string()));
            }
        }
        let cur = payment_by_id_tx(&tx, payment_id)?.state;
        use PaymentState::*;
        let target = match s.target {
            Some(t) => Some(t),
            None if s.sent && matches!(cur, Created | QueuedOffline) => Some(Authorizing),
            None => None,
        };
        if let Some(to) = target {
            // Already past it (None): keep what is there.
            let path = cur.settle_path(to).unwrap_or_default();
            let mut from = cur;
            for step in path {
                let detail = if step == Authorizing { SENT_DETAIL } else { s.via.as_str() };
                from = transition_tx(&tx, payment_id, from, step, detail, now_ms)?.state();
            }
        }
        let p = payment_by_id_tx(&tx, payment_id)?;
        tx.commit()?;
        Ok(SettleOutcome::Settled(p))
    }

    /// Stores the last error shown for a payment (decline message, 400 body).
    pub fn set_last_error(&mut self, payment_id: PaymentId, error: Option<&str>, now_ms: i64) -> Result<()> {
        let n = self.conn.exec_cached(
            "UPDATE payments SET last_error = ?2, updated_at_ms = ?3 WHERE id = ?1",
            params![payment_id.0, error, now_ms],
        )?;
        if n == 0 {
            return Err(Error::UnknownPayment(payment_id.to_string()));
        }
        Ok(())
    }

    /// Appends a free timeline row.
    pub fn append_timeline(&mut self, payment_id: PaymentId, entry: &TimelineInput, now_ms: i64) -> Result<i64> {
        let tx = self.write_tx()?;
        payment_by_id_tx(&tx, payment_id)?;
        let id = append_timeline_tx(&tx, payment_id, entry, now_ms)?;
        tx.commit()?;
        Ok(id)
    }

    // ----------------------------------------------------------------- queries

    pub fn payment_by_id(&self, id: PaymentId) -> Result<Payment> {
        payment_by_id_tx(&self.conn, id)
    }

    pub fn payment_by_key(&self, key: &str) -> Result<Option<Payment>> {
        payment_by_key_tx(&self.conn, key)
    }

    pub fn payment_by_psp_id(&self, psp_payment_id: &str) -> Result<Option<Payment>> {
        let sql = format!("SELECT {PAYMENT_COLS} FROM payments WHERE psp_payment_id = ?1");
        self.conn.row_cached(&sql, [psp_payment_id], payment_from_row).optional()?.transpose()
    }

    /// Newest first.
    pub fn list_payments(&self, limit: i64, offset: i64) -> Result<Vec<Payment>> {
        let sql = format!("SELECT {PAYMENT_COLS} FROM payments ORDER BY id DESC LIMIT ?1 OFFSET ?2");
        collect(&self.conn, &sql, params![limit, offset], payment_from_row)
    }

    /// Payments crash recovery must resolve (SPEC §3 rule 8): `created`, `authorizing`,
    /// `capturing`, `refunding` — see [`PaymentState::needs_recovery`]. Oldest first.
    pub fn payments_needing_recovery(&self) -> Result<Vec<Payment>> {
        let states: Vec<&str> =
            PaymentState::ALL.into_iter().filter(|s| s.needs_recovery()).map(|s| s.as_str()).collect();
        self.payments_in_states(&states)
    }

    /// Payments whose outcome may be unknown (`authorizing`, `capturing`, `refunding`).
    pub fn payments_in_flight(&self) -> Result<Vec<Payment>> {
        let states: Vec<&str> =
            PaymentState::ALL.into_iter().filter(|s| s.is_in_flight()).map(|s| s.as_str()).collect();
        self.payments_in_states(&states)
    }

    fn payments_in_states(&self, states: &[&str]) -> Result<Vec<Payment>> {
        // The JSON array keeps the statement parameterized whatever the list length.
        let sql = format!(
            "SELECT {PAYMENT_COLS} FROM payments WHERE state IN (SELECT value FROM json_each(?1))
             ORDER BY created_at_ms, id"
        );
        collect(&self.conn, &sql, params![serde_json::to_string(states)?], payment_from_row)
    }

    /// The store-and-forward queue (SPEC §3 rule 7), forwarded in creation order.
    pub fn offline_queue(&self) -> Result<Vec<Payment>> {
        self.payments_in_states(&[PaymentState::QueuedOffline.as_str()])
    }

    /// Count, totals and age of the offline queue, for the offline limits.
    pub fn offline_queue_stats(&self) -> Result<OfflineQueueStats> {
        let q = self.offline_queue()?;
        let mut stats = OfflineQueueStats { count: q.len() as i64, ..Default::default() };
        for p in &q {
            stats.oldest_created_at_ms =
                Some(stats.oldest_created_at_ms.map_or(p.created_at_ms, |o: i64| o.min(p.created_at_ms)));
            match stats.total_minor_by_currency.iter_mut().find(|(c, _)| *c == p.amount.currency) {
                Some((_, t)) => *t = t.checked_add(p.amount.amount_minor).ok_or(Error::Overflow)?,
                None => stats.total_minor_by_currency.push((p.amount.currency, p.amount.amount_minor)),
            }
        }
        Ok(stats)
    }

    /// The open checkout of a cart, if any.
    pub fn open_checkout_for_cart(&self, cart_id: CartId) -> Result<Option<Payment>> {
        open_checkout_of_cart(&self.conn, cart_id)
    }

    /// When this ledger's first payment was created (register clock, ms), if any. The
    /// first payment by id: O(1) however long the history.
    pub fn first_payment_created_at_ms(&self) -> Result<Option<i64>> {
        Ok(self
            .conn
            .row_cached("SELECT created_at_ms FROM payments ORDER BY id LIMIT 1", [], |r| r.get(0))
            .optional()?)
    }

    /// The cart's most recent payment, open or finished (index `payments_by_cart`).
    pub fn last_payment_for_cart(&self, cart_id: CartId) -> Result<Option<Payment>> {
        let sql = format!("SELECT {PAYMENT_COLS} FROM payments WHERE cart_id = ?1 ORDER BY id DESC LIMIT 1");
        self.conn.row_cached(&sql, params![cart_id.0], payment_from_row).optional()?.transpose()
    }

    pub fn timeline(&self, payment_id: PaymentId) -> Result<Vec<TimelineEntry>> {
        collect(
            &self.conn,
            "SELECT id, payment_id, refund_id, at_ms, kind, detail, outcome, latency_ms, replayed, attempt_no
             FROM payment_timeline WHERE payment_id = ?1 ORDER BY id",
            params![payment_id.0],
            |r| {
                Ok(Ok(TimelineEntry {
                    id: r.get(0)?,
                    payment_id: PaymentId(r.get(1)?),
                    refund_id: r.get::<_, Option<i64>>(2)?.map(RefundId),
                    at_ms: r.get(3)?,
                    kind: r.get(4)?,
                    detail: r.get(5)?,
                    outcome: r.get(6)?,
                    latency_ms: r.get(7)?,
                    replayed: r.get::<_, i64>(8)? != 0,
                    attempt_no: r.get(9)?,
                }))
            },
        )
    }

    // ----------------------------------------------------------------- refunds

    /// Creates a refund with its own new key, in state `pending`, and moves the payment
    /// to `refunding`. The amount is checked against captured minus every non-failed
    /// refund IN THE SAME TRANSACTION, so concurrent refunds cannot exceed the capture.
    /// Refused with [`Error::RefundInProgress`] while another refund of the payment is
    /// not settled (same transaction): a partial refund pressed twice would otherwise
    /// be two refunds under two keys.
    pub fn create_refund(
        &mut self,
        payment_id: PaymentId,
        amount_minor: i64,
        reason: Option<&str>,
        now_ms: i64,
    ) -> Result<Refund> {
        if amount_minor <= 0 {
            return Err(Error::InvalidAmount(format!("refund of {amount_minor} must be greater than zero")));
        }
        let key = self.new_key();
        let tx = self.write_tx()?;
        let p = payment_by_id_tx(&tx, payment_id)?;
        if !p.state.is_refundable() {
            return Err(Error::NotRefundable { payment_id: payment_id.0, state: p.state });
        }
        let open: Option<String> = tx
            .row_cached(
                "SELECT idempotency_key FROM refunds WHERE payment_id = ?1 AND state IN ('pending', 'in_flight')
                 ORDER BY id LIMIT 1",
                [payment_id.0],
                |r| r.get(0),
            )
            .optional()?;
        if let Some(refund_key) = open {
            return Err(Error::RefundInProgress { payment_id: payment_id.0, refund_key });
        }
        let reserved: i64 = tx.row_cached(
            "SELECT COALESCE(SUM(amount_minor), 0) FROM refunds WHERE payment_id = ?1 AND state != 'failed'",
            [payment_id.0],
            |r| r.get(0),
        )?;
        let refundable = p.amount.amount_minor.checked_sub(reserved).ok_or(Error::Overflow)?;
        if amount_minor > refundable {
            return Err(Error::RefundExceedsCaptured {
                payment_id: payment_id.0,
                requested_minor: amount_minor,
                refundable_minor: refundable,
            });
        }
        let mut params = RequestParams::default();
        if let Some(psp) = &p.psp_payment_id {
            params.push("payment_intent", psp.clone());
        }
        params.push("amount", amount_minor.to_string());
        params.push("metadata[refund_key]", key.clone());
        params.push("metadata[checkout_key]", p.idempotency_key.clone());
        tx.exec_cached(
            "INSERT INTO refunds (idempotency_key, payment_id, amount_minor, currency, state, reason,
                 request_params, created_at_ms, updated_at_ms)
             VALUES (?1, ?2, ?3, ?4, 'pending', ?5, ?6, ?7, ?7)",
            params![key, payment_id.0, amount_minor, p.amount.currency.code(), reason, serde_json::to_string(&params)?, now_ms],
        )?;
        let refund_id = RefundId(tx.last_insert_rowid());
        append_timeline_tx(
            &tx,
            payment_id,
            &TimelineInput {
                kind: Some(TimelineKind::Refund),
                detail: format!("refund of {} created", Money::new(amount_minor, p.amount.currency)),
                refund_id: Some(refund_id),
                ..Default::default()
            },
            now_ms,
        )?;
        if p.state != PaymentState::Refunding {
            transition_tx(&tx, payment_id, p.state, PaymentState::Refunding, "refund created", now_ms)?;
        }
        let r = refund_by_id_tx(&tx, refund_id)?;
        tx.commit()?;
        Ok(r)
    }

    /// Moves a refund `from -> to` (same contract as [`Ledger::transition`]); reaching
    /// `succeeded` or `failed` settles the payment in the same transaction.
    pub fn transition_refund(
        &mut self,
        refund_id: RefundId,
        from: RefundState,
        to: RefundState,
        now_ms: i64,
    ) -> Result<TransitionOutcome<RefundState>> {
        let tx = self.write_tx()?;
        let out = refund_transition_tx(&tx, refund_id, from, to, now_ms)?;
        if matches!(out, TransitionOutcome::Applied { .. }) {
            tx.commit()?;
        }
        Ok(out)
    }

    /// Stamps the first attempt of a refund and appends an attempt row to the payment's
    /// timeline.
    pub fn record_refund_attempt(&mut self, refund_id: RefundId, attempt: &TimelineInput, now_ms: i64) -> Result<()> {
        let tx = self.write_tx()?;
        let r = refund_by_id_tx(&tx, refund_id)?;
        tx.exec_cached(
            "UPDATE refunds SET first_attempt_at_ms = COALESCE(first_attempt_at_ms, ?2), updated_at_ms = ?2 WHERE id = ?1",
            params![refund_id.0, now_ms],
        )?;
        let mut entry = attempt.clone();
        entry.kind = Some(entry.kind.unwrap_or(TimelineKind::Attempt));
        entry.refund_id = Some(refund_id);
        append_timeline_tx(&tx, r.payment_id, &entry, now_ms)?;
        tx.commit()?;
        Ok(())
    }

    /// Records the PSP's answer for a refund idempotently: attaches `psp_refund_id` and
    /// moves the refund to `outcome` (`in_flight` when the PSP reports it pending,
    /// `succeeded`, `failed`). A different stored PSP id changes nothing and says so.
    pub fn record_refund_result(
        &mut self,
        refund_id: RefundId,
        psp_refund_id: &str,
        outcome: RefundState,
        now_ms: i64,
    ) -> Result<RefundRecordOutcome> {
        let tx = self.write_tx()?;
        let r = refund_by_id_tx(&tx, refund_id)?;
        let mut changed = false;
        match &r.psp_refund_id {
            Some(stored) if stored != psp_refund_id => {
                return Ok(RefundRecordOutcome::ExistsWithDifferentPspRefundId {
                    id: refund_id,
                    stored: stored.clone(),
                    requested: psp_refund_id.to_string(),
                })
            }
            Some(_) => {}
            None => {
                tx.exec_cached(
                    "UPDATE refunds SET psp_refund_id = ?2, updated_at_ms = ?3 WHERE id = ?1",
                    params![refund_id.0, psp_refund_id, now_ms],
                )?;
                changed = true;
            }
        }
        if r.state != outcome {
            // A pending refund the PSP answered was necessarily sent: pass through in_flight.
            let mut from = r.state;
            if from == RefundState::Pending && outcome != RefundState::InFlight && outcome != RefundState::Failed {
                refund_transition_tx(&tx, refund_id, from, RefundState::InFlight, now_ms)?;
                from = RefundState::InFlight;
            }
            if let TransitionOutcome::Applied { .. } = refund_transition_tx(&tx, refund_id, from, outcome, now_ms)? {
                changed = true;
            }
        }
        if changed {
            tx.commit()?;
            Ok(RefundRecordOutcome::Recorded(refund_id))
        } else {
            Ok(RefundRecordOutcome::Exists(refund_id))
        }
    }

    pub fn refund_by_id(&self, id: RefundId) -> Result<Refund> {
        refund_by_id_tx(&self.conn, id)
    }

    pub fn refund_by_key(&self, key: &str) -> Result<Option<Refund>> {
        let sql = format!("SELECT {REFUND_COLS} FROM refunds WHERE idempotency_key = ?1");
        self.conn.row_cached(&sql, [key], refund_from_row).optional()?.transpose()
    }

    pub fn refunds_for_payment(&self, payment_id: PaymentId) -> Result<Vec<Refund>> {
        let sql = format!("SELECT {REFUND_COLS} FROM refunds WHERE payment_id = ?1 ORDER BY id");
        collect(&self.conn, &sql, params![payment_id.0], refund_from_row)
    }

    /// Refunds crash recovery must resolve: `pending` and `in_flight`, oldest first.
    pub fn refunds_needing_recovery(&self) -> Result<Vec<Refund>> {
        let sql = format!("SELECT {REFUND_COLS} FROM refunds WHERE state IN ('pending','in_flight') ORDER BY id");
        collect(&self.conn, &sql, [], refund_from_row)
    }

    // ----------------------------------------------------------------- events

    /// Applies a PSP event exactly once (SPEC §3 rule 9).
    ///
    /// One transaction: INSERT into `processed_events` (PRIMARY KEY on the event id) —
    /// on conflict the transaction is abandoned and `AlreadyApplied` returned, nothing
    /// else changes; otherwise the effects (a state change when the table allows it from
    /// the current state, refund settlement) and exactly one journal row.
    ///
    /// Out-of-order events are tolerated: an event whose state change is not legal from
    /// the current state (e.g. `succeeded` arriving after a refund started) changes no
    /// state, but is still recorded and journaled, because the money movement it reports
    /// happened.
    pub fn apply_event(&mut self, event: &PspEvent, now_ms: i64) -> Result<ApplyOutcome> {
        if event.event_id.is_empty() {
            return Err(Error::InvalidInput("empty event id".into()));
        }
        let tx = self.write_tx()?;
        let inserted = tx.exec_cached(
            "INSERT INTO processed_events (event_id, event_type, applied_at_ms, effect)
             VALUES (?1, ?2, ?3, '') ON CONFLICT(event_id) DO NOTHING",
            params![event.event_id, event.event_type, now_ms],
        )?;
        if inserted == 0 {
            return Ok(ApplyOutcome::AlreadyApplied);
        }

        let payment = match (&event.psp_payment_id, &event.checkout_key) {
            (Some(psp), _) if payment_by_psp_tx(&tx, psp)?.is_some() => payment_by_psp_tx(&tx, psp)?,
            (_, Some(key)) => payment_by_key_tx(&tx, key)?,
            _ => None,
        };
        let refund = match (&event.psp_refund_id, &event.refund_key) {
            (Some(psp), _) if refund_by_psp_tx(&tx, psp)?.is_some() => refund_by_psp_tx(&tx, psp)?,
            (_, Some(key)) => {
                let sql = format!("SELECT {REFUND_COLS} FROM refunds WHERE idempotency_key = ?1");
                tx.row_cached(&sql, [key], refund_from_row).optional()?.transpose()?
            }
            _ => None,
        };
        let payment = match (payment, &refund) {
            (Some(p), _) => Some(p),
            (None, Some(r)) => Some(payment_by_id_tx(&tx, r.payment_id)?),
            (None, None) => None,
        };

        // Found by checkout key while the PSP's answer was lost: the event tells us the
        // PSP id, so attach it (only if no other payment holds it; UNIQUE would refuse).
        if let (Some(p), Some(psp)) = (&payment, &event.psp_payment_id) {
            if p.psp_payment_id.is_none() && payment_by_psp_tx(&tx, psp)?.is_none() {
                tx.exec_cached(
                    "UPDATE payments SET psp_payment_id = ?2, updated_at_ms = ?3 WHERE id = ?1 AND psp_payment_id IS NULL",
                    params![p.id.0, psp, now_ms],
                )?;
            }
        }
        let target = match &event.kind {
            EventKind::PaymentSucceeded => Some(PaymentState::Captured),
            EventKind::PaymentAuthorized => Some(PaymentState::Authorized),
            EventKind::PaymentFailed => Some(PaymentState::Failed),
            EventKind::PaymentCanceled => Some(PaymentState::Canceled),
            EventKind::RefundSucceeded | EventKind::RefundFailed | EventKind::Other(_) => None,
        };
        let mut effects: Vec<String> = Vec::new();
        let mut state_change = None;
        if let (Some(p), Some(to)) = (&payment, target) {
            match p.state.step(to) {
                Ok(Step::Moved(_)) => {
                    match transition_tx(&tx, p.id, p.state, to, &format!("event {}", event.event_id), now_ms) {
                        Ok(_) => {
                            state_change = Some((p.state, to));
                            effects.push(format!("{} -> {}", p.state, to));
                        }
                        // A late payment event while refunds are open (refunding ->
                        // captured): the refunds own that state; record, don't move.
                        Err(e @ Error::RefundBookkeeping { .. }) => effects.push(format!("no state change ({e})")),
                        Err(e) => return Err(e),
                    }
                }
                Ok(Step::AlreadyThere(_)) => effects.push(format!("already {to}")),
                Err(e) => effects.push(format!("no state change ({e})")),
            }
        }
        if let Some(r) = &refund {
            let to = match &event.kind {
                EventKind::RefundSucceeded => Some(RefundState::Succeeded),
                EventKind::RefundFailed => Some(RefundState::Failed),
                _ => None,
            };
            if let Some(to) = to {
                let mut from = r.state;
                if from == RefundState::Pending && to == RefundState::Succeeded {
                    refund_transition_tx(&tx, r.id, from, RefundState::InFlight, now_ms)?;
                    from = RefundState::InFlight;
                }
                match from.step(to) {
                    Ok(Step::Moved(_)) => {
                        refund_transition_tx(&tx, r.id, from, to, now_ms)?;
                        effects.push(format!("refund {} {from} -> {to}", r.id));
                    }
                    Ok(Step::AlreadyThere(_)) => effects.push(format!("refund {} already {to}", r.id)),
                    Err(e) => effects.push(format!("no refund change ({e})")),
                }
                if let (Some(psp), None) = (&event.psp_refund_id, &r.psp_refund_id) {
                    tx.exec_cached(
                        "UPDATE refunds SET psp_refund_id = ?2 WHERE id = ?1 AND psp_refund_id IS NULL",
                        params![r.id.0, psp],
                    )?;
                }
            }
        }
        if payment.is_none() {
            effects.push("unknown payment".into());
        }

        // The journal row: signed money movement the event reports.
        let currency = event
            .amount
            .map(|m| m.currency)
            .or(refund.as_ref().map(|r| r.amount.currency))
            .or(payment.as_ref().map(|p| p.amount.currency));
        let (account, amount_minor) = match &event.kind {
            EventKind::PaymentSucceeded => {
                let a = event.amount.map(|m| m.amount_minor).or(payment.as_ref().map(|p| p.amount.amount_minor));
                ("sales", a.unwrap_or(0))
            }
            EventKind::RefundSucceeded => {
                let a = event.amount.map(|m| m.amount_minor).or(refund.as_ref().map(|r| r.amount.amount_minor));
                ("refunds", a.unwrap_or(0).checked_neg().ok_or(Error::Overflow)?)
            }
            EventKind::PaymentAuthorized
            | EventKind::PaymentFailed
            | EventKind::PaymentCanceled
            | EventKind::RefundFailed
            | EventKind::Other(_) => {
                ("none", 0)
            }
        };
        if account != "none" && amount_minor == 0 {
            effects.push("amount unknown".into());
        }
        let effect = if effects.is_empty() { "none".to_string() } else { effects.join("; ") };
        let payment_id = payment.as_ref().map(|p| p.id);
        tx.exec_cached(
            "UPDATE processed_events SET payment_id = ?2, effect = ?3 WHERE event_id = ?1",
            params![event.event_id, payment_id.map(|p| p.0), effect],
        )?;
        tx.exec_cached(
            "INSERT INTO journal (event_id, payment_id, at_ms, account, amount_minor, currency, memo)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                event.event_id,
                payment_id.map(|p| p.0),
                now_ms,
                account,
                amount_minor,
                currency.map(|c| c.code()),
                format!("{}: {effect}", event.event_type)
            ],
        )?;
        if let Some(p) = &payment {
            append_timeline_tx(
                &tx,
                p.id,
                &TimelineInput {
                    kind: Some(TimelineKind::Event),
                    detail: format!("{} {}", event.event_type, event.event_id),
                    outcome: Some(effect.clone()),
                    refund_id: refund.as_ref().map(|r| r.id),
                    ..Default::default()
                },
                now_ms,
            )?;
        }
        tx.commit()?;
        Ok(ApplyOutcome::Applied { payment_id, state_change, journal_amount_minor: amount_minor, effect })
    }

    pub fn is_event_processed(&self, event_id: &str) -> Result<bool> {
        Ok(self
            .conn
            .row_cached("SELECT 1 FROM processed_events WHERE event_id = ?1", [event_id], |_| Ok(()))
            .optional()?
            .is_some())
    }

    pub fn journal(&self) -> Result<Vec<JournalEntry>> {
        collect(
            &self.conn,
            "SELECT id, event_id, payment_id, at_ms, account, amount_minor, currency, memo FROM journal ORDER BY id",
            [],
            |r| {
                let currency: Option<String> = r.get(6)?;
                Ok((|| {
                    Ok(JournalEntry {
                        id: r.get(0)?,
                        event_id: r.get(1)?,
                        payment_id: r.get::<_, Option<i64>>(2)?.map(PaymentId),
                        at_ms: r.get(3)?,
                        account: r.get(4)?,
                        amount_minor: r.get(5)?,
                        currency: currency.as_deref().map(str::parse).transpose()?,
                        memo: r.get(7)?,
                    })
                })())
            },
        )
    }

    /// Signed journal total for one currency (checked sum).
    pub fn journal_total(&self, currency: Currency) -> Result<i64> {
        let mut total: i64 = 0;
        for e in self.journal()? {
            if e.currency == Some(currency) {
                total = total.checked_add(e.amount_minor).ok_or(Error::Overflow)?;
            }
        }
        Ok(total)
    }

    // ----------------------------------------------------------------- audit

    /// Appends to the audit log (e.g. the cashier's override of SPEC §3 rule 3 with the
    /// reason they gave). Durable on return.
    pub fn audit(&mut self, action: &str, reason: &str, detail: Option<&str>, now_ms: i64) -> Result<i64> {
        self.conn.exec_cached(
            "INSERT INTO audit_log (at_ms, action, reason, detail) VALUES (?1, ?2, ?3, ?4)",
            params![now_ms, action, reason, detail],
        )?;
        Ok(self.conn.last_insert_rowid())
    }

    pub fn audit_log(&self) -> Result<Vec<AuditEntry>> {
        collect(&self.conn, "SELECT id, at_ms, action, reason, detail FROM audit_log ORDER BY id", [], |r| {
            Ok(Ok(AuditEntry { id: r.get(0)?, at_ms: r.get(1)?, action: r.get(2)?, reason: r.get(3)?, detail: r.get(4)? }))
        })
    }

    // ----------------------------------------------------------------- catalog & carts

    /// Inserts or updates products by SKU. Returns how many were written.
    pub fn seed_catalog(&mut self, products: &[NewProduct]) -> Result<usize> {
        let tx = self.write_tx()?;
        for p in products {
            if p.price.amount_minor < 0 {
                return Err(Error::InvalidAmount(format!("price of {} is negative", p.sku)));
            }
            tx.exec_cached(
                "INSERT INTO products (sku, name, price_minor, currency) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT(sku) DO UPDATE SET name = excluded.name, price_minor = excluded.price_minor,
                     currency = excluded.currency",
                params![p.sku, p.name, p.price.amount_minor, p.price.currency.code()],
            )?;
        }
        tx.commit()?;
        Ok(products.len())
    }

    pub fn products(&self) -> Result<Vec<Product>> {
        collect(&self.conn, "SELECT id, sku, name, price_minor, currency FROM products ORDER BY sku", [], product_from_row)
    }

    pub fn product_by_sku(&self, sku: &str) -> Result<Option<Product>> {
        self.conn
            .row_cached("SELECT id, sku, name, price_minor, currency FROM products WHERE sku = ?1", [sku], product_from_row)
            .optional()?
            .transpose()
    }

    pub fn create_cart(&mut self, currency: Currency, now_ms: i64) -> Result<CartId> {
        self.conn.exec_cached(
            "INSERT INTO carts (currency, state, created_at_ms, updated_at_ms) VALUES (?1, 'open', ?2, ?2)",
            params![currency.code(), now_ms],
        )?;
        Ok(CartId(self.conn.last_insert_rowid()))
    }

    pub fn cart(&self, cart_id: CartId) -> Result<Cart> {
        load_cart(&self.conn, cart_id)
    }

    /// Adds `quantity` of a product (adds to an existing line). Refused unless the cart
    /// is open: a locked cart belongs to an open checkout whose parameters are fixed.
    pub fn add_to_cart(&mut self, cart_id: CartId, sku: &str, quantity: i64, now_ms: i64) -> Result<Cart> {
        if quantity <= 0 {
            return Err(Error::InvalidInput(format!("quantity {quantity} must be positive")));
        }
        let tx = self.write_tx()?;
        let cart = editable_cart(&tx, cart_id)?;
        let product = product_for_cart(&tx, sku, cart.currency)?;
        let current: i64 = tx
            .row_cached(
                "SELECT quantity FROM cart_lines WHERE cart_id = ?1 AND product_id = ?2",
                params![cart_id.0, product.id.0],
                |r| r.get(0),
            )
            .optional()?
            .unwrap_or(0);
        let new_qty = current.checked_add(quantity).ok_or(Error::Overflow)?;
        set_line(&tx, cart_id, &product, new_qty, now_ms)?;
        let cart = load_cart(&tx, cart_id)?;
        tx.commit()?;
        Ok(cart)
    }

    /// Sets a line's quantity; 0 removes the line.
    pub fn set_quantity(&mut self, cart_id: CartId, sku: &str, quantity: i64, now_ms: i64) -> Result<Cart> {
        if quantity < 0 {
            return Err(Error::InvalidInput(format!("quantity {quantity} must not be negative")));
        }
        let tx = self.write_tx()?;
        let cart = editable_cart(&tx, cart_id)?;
        let product = product_for_cart(&tx, sku, cart.currency)?;
        set_line(&tx, cart_id, &product, quantity, now_ms)?;
        let cart = load_cart(&tx, cart_id)?;
        tx.commit()?;
        Ok(cart)
    }

    pub fn remove_from_cart(&mut self, cart_id: CartId, sku: &str, now_ms: i64) -> Result<Cart> {
        self.set_quantity(cart_id, sku, 0, now_ms)
    }
}

// --------------------------------------------------------------------- helpers

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

fn payment_from_row(r: &Row<'_>) -> rusqlite::Result<Result<Payment>> {
    let currency: String = r.get(4)?;
    let state: String = r.get(5)?;
    let capture: String = r.get(6)?;
    let params: String = r.get(7)?;
    let amount_minor: i64 = r.get(3)?;
    let id = PaymentId(r.get(0)?);
    let idempotency_key: String = r.get(1)?;
    let psp_payment_id: Option<String> = r.get(2)?;
    let cart_id = r.get::<_, Option<i64>>(8)?.map(CartId);
    let offline = r.get::<_, i64>(9)? != 0;
    let created_at_ms = r.get(10)?;
    let first_attempt_at_ms = r.get(11)?;
    let updated_at_ms = r.get(12)?;
    let refunded_minor = r.get(13)?;
    let last_error = r.get(14)?;
    Ok((|| {
        Ok(Payment {
            id,
            idempotency_key,
            psp_payment_id,
            amount: Money::new(amount_minor, currency.parse()?),
            state: state.parse()?,
            capture_method: capture.parse::<CaptureMethod>()?,
            request_params: serde_json::from_str(&params)?,
            cart_id,
            offline,
            created_at_ms,
            first_attempt_at_ms,
            updated_at_ms,
            refunded_minor,
            last_error,
        })
    })())
}

fn refund_from_row(r: &Row<'_>) -> rusqlite::Result<Result<Refund>> {
    let currency: String = r.get(4)?;
    let state: String = r.get(5)?;
    let params: String = r.get(8)?;
    let amount_minor: i64 = r.get(3)?;
    let id = RefundId(r.get(0)?);
    let idempotency_key: String = r.get(1)?;
    let payment_id = PaymentId(r.get(2)?);
    let psp_refund_id = r.get(6)?;
    let reason = r.get(7)?;
    let created_at_ms = r.get(9)?;
    let first_attempt_at_ms = r.get(10)?;
    let updated_at_ms = r.get(11)?;
    Ok((|| {
        Ok(Refund {
            id,
            idempotency_key,
            payment_id,
            amount: Money::new(amount_minor, currency.parse()?),
            state: state.parse()?,
            psp_refund_id,
            reason,
            request_params: serde_json::from_str(&params)?,
            created_at_ms,
            first_attempt_at_ms,
            updated_at_ms,
        })
    })())
}

fn product_from_row(r: &Row<'_>) -> rusqlite::Result<Result<Product>> {
    let id = ProductId(r.get(0)?);
    let sku: String = r.get(1)?;
    let name: String = r.get(2)?;
    let price_minor: i64 = r.get(3)?;
    let currency: String = r.get(4)?;
    Ok(currency.parse().map(|c| Product { id, sku, name, price: Money::new(price_minor, c) }))
}

fn payment_by_id_tx(conn: &Connection, id: PaymentId) -> Result<Payment> {
    let sql = format!("SELECT {PAYMENT_COLS} FROM payments WHERE id = ?1");
    conn.row_cached(&sql, [id.0], payment_from_row)
        .optional()?
        .transpose()?
        .ok_or_else(|| Error::UnknownPayment(id.to_string()))
}

fn payment_by_key_tx(conn: &Connection, key: &str) -> Result<Option<Payment>> {
    let sql = format!("SELECT {PAYMENT_COLS} FROM payments WHERE idempotency_key = ?1");
    conn.row_cached(&sql, [key], payment_from_row).optional()?.transpose()
}

fn payment_by_psp_tx(conn: &Connection, psp: &str) -> Result<Option<Payment>> {
    let sql = format!("SELECT {PAYMENT_COLS} FROM payments WHERE psp_payment_id = ?1");
    conn.row_cached(&sql, [psp], payment_from_row).optional()?.transpose()
}

fn refund_by_id_tx(conn: &Connection, id: RefundId) -> Result<Refund> {
    let sql = format!("SELECT {REFUND_COLS} FROM refunds WHERE id = ?1");
    conn.row_cached(&sql, [id.0], refund_from_row)
        .optional()?
        .transpose()?
        .ok_or_else(|| Error::UnknownRefund(id.to_string()))
}

fn refund_by_psp_tx(conn: &Connection, psp: &str) -> Result<Option<Refund>> {
    let sql = format!("SELECT {REFUND_COLS} FROM refunds WHERE psp_refund_id = ?1");
    conn.row_cached(&sql, [psp], refund_from_row).optional()?.transpose()
}

fn successor_tx(conn: &Connection, previous: PaymentId) -> Result<Option<Payment>> {
    let sql = format!(
        "SELECT {PAYMENT_COLS} FROM payments WHERE id = (SELECT next_id FROM payment_successors WHERE previous_id = ?1)"
    );
    conn.row_cached(&sql, [previous.0], payment_from_row).optional()?.transpose()
}

/// The body of [`Ledger::open_checkout`] (`override_reason` None) and
/// [`Ledger::open_checkout_override`], inside the caller's write transaction (which it
/// does not commit). `is_new == false`: the cart's open checkout, nothing written.
fn open_checkout_in(
    tx: &Connection,
    key: &str,
    cart_id: CartId,
    options: &CheckoutOptions,
    override_reason: Option<&str>,
    now_ms: i64,
) -> Result<Checkout> {
    let cart = load_cart(tx, cart_id)?;
    let previous = open_checkout_of_cart(tx, cart_id)?;
    let (previous, reason) = match (previous, override_reason) {
        (Some(existing), None) => return Ok(Checkout { payment: existing, is_new: false }),
        (Some(previous), Some(reason)) => (Some(previous), reason),
        (None, _) => (None, ""),
    };
    if previous.is_none() && cart.state == CartState::Paid {
        return Err(Error::CartNotOpen { cart_id: cart_id.0, state: cart.state.as_str().into() });
    }
    if cart.lines.is_empty() {
        return Err(Error::EmptyCart(cart_id.0));
    }
    let amount = Money::positive(cart.total.amount_minor, cart.currency)?;
    let id = insert_payment(tx, key, amount, options, Some(cart_id), now_ms)?;
    match previous {
        None => {
            tx.exec_cached(
                "UPDATE carts SET state = 'locked', updated_at_ms = ?2 WHERE id = ?1",
                params![cart_id.0, now_ms],
            )?;
        }
        Some(previous) => {
            tx.exec_cached(
                "INSERT INTO audit_log (at_ms, action, reason, detail) VALUES (?1, 'new_checkout_override', ?2, ?3)",
                params![
                    now_ms,
                    reason,
                    format!(
                        "cart {cart_id}: new payment {id} while payment {} ({}) is {}",
                        previous.id, previous.idempotency_key, previous.state
                    )
                ],
            )?;
            append_timeline_tx(
                tx,
                previous.id,
                &TimelineInput {
                    kind: Some(TimelineKind::Note),
                    detail: format!("superseded by payment {id} on cashier override: {reason}"),
                    ..Default::default()
                },
                now_ms,
            )?;
        }
    }
    let payment = payment_by_id_tx(tx, id)?;
    Ok(Checkout { payment, is_new: true })
}

fn open_checkout_of_cart(conn: &Connection, cart_id: CartId) -> Result<Option<Payment>> {
    let open: Vec<&str> =
        PaymentState::ALL.into_iter().filter(|s| s.is_checkout_open()).map(|s| s.as_str()).collect();
    let sql = format!(
        "SELECT {PAYMENT_COLS} FROM payments WHERE cart_id = ?1 AND state IN (SELECT value FROM json_each(?2))
         ORDER BY id DESC LIMIT 1"
    );
    conn.row_cached(&sql, params![cart_id.0, serde_json::to_string(&open)?], payment_from_row)
        .optional()?
        .transpose()
}

fn insert_payment(
    tx: &Connection,
    key: &str,
    amount: Money,
    options: &CheckoutOptions,
    cart_id: Option<CartId>,
    now_ms: i64,
) -> Result<PaymentId> {
    if options.payment_method.is_empty() {
        return Err(Error::InvalidInput("payment_method is empty".into()));
    }
    // The exact request the PSP will get, on every attempt (SPEC §3 rule 2). The key is
    // also in metadata so reconciliation can search for it past the dedup window (rule 6).
    let mut params = RequestParams::default();
    params.push("amount", amount.amount_minor.to_string());
    params.push("currency", amount.currency.code());
    params.push("payment_method", options.payment_method.clone());
    params.push("confirm", "true");
    params.push("capture_method", options.capture_method.as_str());
    params.push("metadata[checkout_key]", key);
    if let Some(c) = cart_id {
        params.push("metadata[cart_id]", c.0.to_string());
    }
    for (k, v) in &options.extra_params {
        params.push(k.clone(), v.clone());
    }
    tx.exec_cached(
        "INSERT INTO payments (idempotency_key, amount_minor, currency, state, capture_method, request_params,
             cart_id, created_at_ms, updated_at_ms)
         VALUES (?1, ?2, ?3, 'created', ?4, ?5, ?6, ?7, ?7)",
        params![
            key,
            amount.amount_minor,
            amount.currency.code(),
            options.capture_method.as_str(),
            serde_json::to_string(&params)?,
            cart_id.map(|c| c.0),
            now_ms
        ],
    )?;
    let id = PaymentId(tx.last_insert_rowid());
    append_timeline_tx(
        tx,
        id,
        &TimelineInput {
            kind: Some(TimelineKind::Created),
            detail: format!("checkout of {amount} created"),
            ..Default::default()
        },
        now_ms,
    )?;
    Ok(id)
}

fn append_timeline_tx(conn: &Connection, payment_id: PaymentId, e: &TimelineInput, at_ms: i64) -> Result<i64> {
    conn.exec_cached(
        "INSERT INTO payment_timeline (payment_id, refund_id, at_ms, kind, detail, outcome, latency_ms, replayed, attempt_no)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![
            payment_id.0,
            e.refund_id.map(|r| r.0),
            at_ms,
            e.kind.unwrap_or(TimelineKind::Note).as_str(),
            e.detail,
            e.outcome,
            e.latency_ms,
            e.replayed as i64,
            e.attempt_no
        ],
    )?;
    Ok(conn.last_insert_rowid())
}

/// [`Ledger::record_psp_result`] inside a caller's transaction (nothing is committed
/// here; a non-`Recorded` outcome writes nothing).
fn record_psp_result_tx(tx: &Connection, result: &PspResult, now_ms: i64) -> Result<RecordOutcome> {
    if result.amount.amount_minor <= 0 {
        return Err(Error::InvalidAmount(format!("{} must be greater than zero", result.amount.amount_minor)));
    }
    if result.psp_payment_id.is_empty() {
        return Err(Error::InvalidInput("empty psp_payment_id".into()));
    }
    let by_psp: Option<(i64, String)> = tx
        .row_cached(
            "SELECT id, idempotency_key FROM payments WHERE psp_payment_id = ?1",
            [&result.psp_payment_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let existing = payment_by_key_tx(tx, &result.idempotency_key)?;
    let outcome = match existing {
        Some(p) => {
            if p.amount.amount_minor != result.amount.amount_minor {
                RecordOutcome::ExistsWithDifferentAmount {
                    id: p.id,
                    stored_minor: p.amount.amount_minor,
                    requested_minor: result.amount.amount_minor,
                }
            } else if p.amount.currency != result.amount.currency {
                RecordOutcome::ExistsWithDifferentCurrency {
                    id: p.id,
                    stored: p.amount.currency,
                    requested: result.amount.currency,
                }
            } else if let Some(stored) = p.psp_payment_id.clone() {
                if stored == result.psp_payment_id {
                    RecordOutcome::Exists(p.id)
                } else {
                    RecordOutcome::ExistsWithDifferentPspPaymentId {
                        id: p.id,
                        stored,
                        requested: result.psp_payment_id.clone(),
                    }
                }
            } else if let Some((other_id, other_key)) = by_psp {
                RecordOutcome::PspPaymentIdBelongsToAnotherKey { id: PaymentId(other_id), other_key }
            } else {
                tx.exec_cached(
                    "UPDATE payments SET psp_payment_id = ?2, updated_at_ms = ?3 WHERE id = ?1",
                    params![p.id.0, result.psp_payment_id, now_ms],
                )?;
                append_timeline_tx(
                    tx,
                    p.id,
                    &TimelineInput {
                        kind: Some(TimelineKind::PspResult),
                        detail: format!("PSP payment {}", result.psp_payment_id),
                        ..Default::default()
                    },
                    now_ms,
                )?;
                RecordOutcome::Recorded(p.id)
            }
        }
        None => {
            if let Some((other_id, other_key)) = by_psp {
                RecordOutcome::PspPaymentIdBelongsToAnotherKey { id: PaymentId(other_id), other_key }
            } else {
                let mut params = RequestParams::default();
                params.push("amount", result.amount.amount_minor.to_string());
                params.push("currency", result.amount.currency.code());
                params.push("metadata[checkout_key]", result.idempotency_key.clone());
                tx.exec_cached(
                    "INSERT INTO payments (idempotency_key, psp_payment_id, amount_minor, currency, state,
                         capture_method, request_params, created_at_ms, updated_at_ms)
                     VALUES (?1, ?2, ?3, ?4, ?5, 'automatic', ?6, ?7, ?7)",
                    params![
                        result.idempotency_key,
                        result.psp_payment_id,
                        result.amount.amount_minor,
                        result.amount.currency.code(),
                        result.state_if_new.as_str(),
                        serde_json::to_string(&params)?,
                        now_ms
                    ],
                )?;
                let id = PaymentId(tx.last_insert_rowid());
                append_timeline_tx(
                    tx,
                    id,
                    &TimelineInput {
                        kind: Some(TimelineKind::PspResult),
                        detail: format!(
                            "recorded from PSP payment {} in state {}",
                            result.psp_payment_id, result.state_if_new
                        ),
                        ..Default::default()
                    },
                    now_ms,
                )?;
                RecordOutcome::Recorded(id)
            }
        }
    };
    Ok(outcome)
}

/// Detail of the `-> authorizing` step: a request may be out.
const SENT_DETAIL: &str = "sent to the PSP";

fn record_attempt_tx(tx: &Connection, payment_id: PaymentId, attempt: &TimelineInput, now_ms: i64) -> Result<()> {
    let n = tx.exec_cached(
        "UPDATE payments SET first_attempt_at_ms = COALESCE(first_attempt_at_ms, ?2), updated_at_ms = ?2
         WHERE id = ?1",
        params![payment_id.0, now_ms],
    )?;
    if n == 0 {
        return Err(Error::UnknownPayment(payment_id.to_string()));
    }
    let mut entry = attempt.clone();
    entry.kind = Some(entry.kind.unwrap_or(TimelineKind::Attempt));
    append_timeline_tx(tx, payment_id, &entry, now_ms)?;
    Ok(())
}

fn transition_tx(
    tx: &Connection,
    payment_id: PaymentId,
    from: PaymentState,
    to: PaymentState,
    detail: &str,
    now_ms: i64,
) -> Result<TransitionOutcome<PaymentState>> {
    if from != to && !from.can_transition_to(to) {
        return Err(Error::IllegalTransition(crate::state::IllegalTransition { from, to }));
    }
    if from != to {
        check_refund_bookkeeping(tx, payment_id, from, to)?;
    }
    let n = if from == to {
        0
    } else {
        tx.exec_cached(
            "UPDATE payments SET state = ?3, updated_at_ms = ?4,
                 offline = CASE WHEN ?3 = 'queued_offline' THEN 1 ELSE offline END
             WHERE id = ?1 AND state = ?2",
            params![payment_id.0, from.as_str(), to.as_str(), now_ms],
        )?
    };
    if n == 0 {
        let current = payment_by_id_tx(tx, payment_id)?.state;
        if current == to {
            return Ok(TransitionOutcome::AlreadyDone(current));
        }
        return Err(Error::StaleState { payment_id: payment_id.0, expected: from, found: current });
    }
    append_timeline_tx(
        tx,
        payment_id,
        &TimelineInput {
            kind: Some(TimelineKind::Transition),
            detail: if detail.is_empty() { format!("{from} -> {to}") } else { format!("{from} -> {to}: {detail}") },
            outcome: Some(to.as_str().to_string()),
            ..Default::default()
        },
        now_ms,
    )?;
    // The cart follows its checkout. Exhaustive on purpose: a new state must decide.
    use PaymentState::*;
    let cart_state = match to {
        Failed | Canceled => Some(("open", "locked")),
        Captured | QueuedOffline => Some(("paid", "locked")),
        Created | Authorizing | Authorized | Capturing | Refunding | PartiallyRefunded | Refunded => None,
    };
    if let Some((new, only_from)) = cart_state {
        tx.exec_cached(
            "UPDATE carts SET state = ?2, updated_at_ms = ?4
             WHERE id = (SELECT cart_id FROM payments WHERE id = ?1) AND state = ?3",
            params![payment_id.0, new, only_from, now_ms],
        )?;
    }
    Ok(TransitionOutcome::Applied { from, to })
}

/// Moves a refund and, on a terminal state, settles the payment: `refunded_minor` grows
/// on success (once: the `WHERE state=?` guard makes the second caller a no-op), and the
/// payment leaves `refunding` when no other refund is still open.
fn refund_transition_tx(
    tx: &Connection,
    refund_id: RefundId,
    from: RefundState,
    to: RefundState,
    now_ms: i64,
) -> Result<TransitionOutcome<RefundState>> {
    if from != to && !from.can_transition_to(to) {
        return Err(Error::IllegalRefundTransition(crate::state::IllegalRefundTransition { from, to }));
    }
    let n = if from == to {
        0
    } else {
        tx.exec_cached(
            "UPDATE refunds SET state = ?3, updated_at_ms = ?4 WHERE id = ?1 AND state = ?2",
            params![refund_id.0, from.as_str(), to.as_str(), now_ms],
        )?
    };
    let r = refund_by_id_tx(tx, refund_id)?;
    if n == 0 {
        if r.state == to {
            return Ok(TransitionOutcome::AlreadyDone(to));
        }
        return Err(Error::StaleRefundState { refund_id: refund_id.0, expected: from, found: r.state });
    }
    append_timeline_tx(
        tx,
        r.payment_id,
        &TimelineInput {
            kind: Some(TimelineKind::Refund),
            detail: format!("refund {} of {}: {from} -> {to}", refund_id, r.amount),
            outcome: Some(to.as_str().into()),
            refund_id: Some(refund_id),
            ..Default::default()
        },
        now_ms,
    )?;
    if to == RefundState::Succeeded {
        tx.exec_cached(
            "UPDATE payments SET refunded_minor = refunded_minor + ?2, updated_at_ms = ?3 WHERE id = ?1",
            params![r.payment_id.0, r.amount.amount_minor, now_ms],
        )?;
    }
    if to.is_terminal() {
        let p = payment_by_id_tx(tx, r.payment_id)?;
        let still_open: i64 = tx.row_cached(
            "SELECT count(*) FROM refunds WHERE payment_id = ?1 AND state IN ('pending','in_flight')",
            [r.payment_id.0],
            |row| row.get(0),
        )?;
        if p.state == PaymentState::Refunding && still_open == 0 {
            let settled = if p.refunded_minor == p.amount.amount_minor {
                PaymentState::Refunded
            } else if p.refunded_minor > 0 {
                PaymentState::PartiallyRefunded
            } else {
                PaymentState::Captured
            };
            transition_tx(tx, p.id, PaymentState::Refunding, settled, &format!("refund {refund_id} {to}"), now_ms)?;
        }
    }
    Ok(TransitionOutcome::Applied { from, to })
}

/// The payment's refund states must agree with its refunds (see
/// [`Error::RefundBookkeeping`]), so a report never shows "refunded" for money that was
/// not. Exhaustive over the target state on purpose.
fn check_refund_bookkeeping(tx: &Connection, payment_id: PaymentId, from: PaymentState, to: PaymentState) -> Result<()> {
    use PaymentState::*;
    let row: Option<(i64, i64)> = tx
        .row_cached("SELECT refunded_minor, amount_minor FROM payments WHERE id = ?1", [payment_id.0], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .optional()?;
    let Some((refunded_minor, amount_minor)) = row else {
        return Err(Error::UnknownPayment(payment_id.to_string()));
    };
    let open_refunds: i64 = tx.row_cached(
        "SELECT count(*) FROM refunds WHERE payment_id = ?1 AND state IN ('pending','in_flight')",
        [payment_id.0],
        |r| r.get(0),
    )?;
    let leaving_refunding = from == Refunding;
    let ok = match to {
        Refunding => open_refunds > 0,
        Refunded => !leaving_refunding || (open_refunds == 0 && refunded_minor == amount_minor),
        PartiallyRefunded => {
            !leaving_refunding || (open_refunds == 0 && refunded_minor > 0 && refunded_minor < amount_minor)
        }
        Captured => !leaving_refunding || (open_refunds == 0 && refunded_minor == 0),
        Created | QueuedOffline | Authorizing | Authorized | Capturing | Failed | Canceled => true,
    };
    if ok {
        Ok(())
    } else {
        Err(Error::RefundBookkeeping { payment_id: payment_id.0, to, refunded_minor, amount_minor, open_refunds })
    }
}

fn load_cart(conn: &Connection, cart_id: CartId) -> Result<Cart> {
    let head: Option<(String, String, i64, i64)> = conn
        .row_cached(
            "SELECT currency, state, created_at_ms, updated_at_ms FROM carts WHERE id = ?1",
            [cart_id.0],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .optional()?;
    let (currency, state, created_at_ms, updated_at_ms) = head.ok_or(Error::UnknownCart(cart_id.0))?;
    let currency: Currency = currency.parse()?;
    let lines = collect(
        conn,
        "SELECT l.product_id, p.sku, p.name, l.quantity, l.unit_price_minor
         FROM cart_lines l JOIN products p ON p.id = l.product_id WHERE l.cart_id = ?1 ORDER BY p.sku",
        params![cart_id.0],
        |r| {
            let product_id = ProductId(r.get(0)?);
            let sku: String = r.get(1)?;
            let name: String = r.get(2)?;
            let quantity: i64 = r.get(3)?;
            let unit_price = Money::new(r.get(4)?, currency);
            Ok(unit_price
                .checked_mul(quantity)
                .map(|line_total| CartLine { product_id, sku, name, quantity, unit_price, line_total }))
        },
    )?;
    let mut total = Money::zero(currency);
    for l in &lines {
        total = total.checked_add(l.line_total)?;
    }
    Ok(Cart { id: cart_id, currency, state: state.parse()?, lines, total, created_at_ms, updated_at_ms })
}

fn editable_cart(conn: &Connection, cart_id: CartId) -> Result<Cart> {
    let cart = load_cart(conn, cart_id)?;
    match cart.state {
        CartState::Open => Ok(cart),
        CartState::Locked | CartState::Paid => {
            Err(Error::CartNotOpen { cart_id: cart_id.0, state: cart.state.as_str().into() })
        }
    }
}

fn product_for_cart(conn: &Connection, sku: &str, currency: Currency) -> Result<Product> {
    let p = conn
        .row_cached("SELECT id, sku, name, price_minor, currency FROM products WHERE sku = ?1", [sku], product_from_row)
        .optional()?
        .transpose()?
        .ok_or_else(|| Error::UnknownProduct(sku.to_string()))?;
    if p.price.currency != currency {
        return Err(Error::CurrencyMismatch { expected: currency, found: p.price.currency });
    }
    Ok(p)
}

fn set_line(conn: &Connection, cart_id: CartId, product: &Product, quantity: i64, now_ms: i64) -> Result<()> {
    if quantity == 0 {
        conn.exec_cached(
            "DELETE FROM cart_lines WHERE cart_id = ?1 AND product_id = ?2",
            params![cart_id.0, product.id.0],
        )?;
    } else {
        // Refuse a quantity whose line total would overflow, before storing it.
        product.price.checked_mul(quantity)?;
        conn.exec_cached(
            "INSERT INTO cart_lines (cart_id, product_id, quantity, unit_price_minor) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT(cart_id, product_id) DO UPDATE SET quantity = excluded.quantity",
            params![cart_id.0, product.id.0, quantity, product.price.amount_minor],
        )?;
    }
    conn.exec_cached("UPDATE carts SET updated_at_ms = ?2 WHERE id = ?1", params![cart_id.0, now_ms])?;
    // The whole cart total must stay representable.
    load_cart(conn, cart_id)?;
    Ok(())
}
