//! A `BEGIN IMMEDIATE` write transaction whose BEGIN / COMMIT / ROLLBACK statements
//! come from the connection's statement cache.
//!
//! Why not `rusqlite::Transaction`: it runs them through `execute_batch`, which parses
//! the SQL text again on every call. A checkout is several short transactions, so the
//! parser showed up at ~7% of the simulation's profile. Semantics are rusqlite's: the
//! write lock is taken at BEGIN, and a transaction dropped without `commit` is rolled
//! back (an early `return` or `?` never leaves half a write behind).

use rusqlite::Connection;
use std::ops::Deref;

pub(crate) struct WriteTx<'c> {
    conn: &'c Connection,
}

impl<'c> WriteTx<'c> {
    pub(crate) fn begin(conn: &'c Connection) -> rusqlite::Result<Self> {
        conn.prepare_cached("BEGIN IMMEDIATE")?.execute([])?;
        Ok(WriteTx { conn })
    }

    /// Runs a statement that writes, through the connection's statement cache. The only
    /// way the ledger runs one: a write outside a transaction does not compile.
    pub(crate) fn exec_cached<P: rusqlite::Params>(&self, sql: &str, params: P) -> rusqlite::Result<usize> {
        self.conn.prepare_cached(sql)?.execute(params)
    }

    /// Runs a statement that writes and answers one row (`… RETURNING …`), through the
    /// connection's statement cache: the row a write touched without a read after it.
    pub(crate) fn write_row_cached<T, P: rusqlite::Params, F: FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T>>(
        &self,
        sql: &str,
        params: P,
        f: F,
    ) -> rusqlite::Result<T> {
        self.conn.prepare_cached(sql)?.query_row(params, f)
    }

    /// Commits; on failure the transaction is rolled back when `self` drops.
    pub(crate) fn commit(self) -> rusqlite::Result<()> {
        self.conn.prepare_cached("COMMIT")?.execute([])?;
        Ok(())
    }
}

impl Deref for WriteTx<'_> {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        self.conn
    }
}

impl Drop for WriteTx<'_> {
    fn drop(&mut self) {
        // Still inside the transaction: not committed (early return, error, or a failed
        // COMMIT). SQLite may already have rolled back by itself (is_autocommit true).
        if !self.conn.is_autocommit() {
            let _ = self.conn.prepare_cached("ROLLBACK").and_then(|mut s| s.execute([]));
        }
    }
}
