//! Reads: on a pool of read connections (file database; in WAL mode they never wait
//! for the writer), through the writer queue (in-memory database), or on the calling
//! task for the idempotency fast path. A read that answers a client waits until
//! every commit it could have seen is on disk (see `log_sync.rs`).
use super::jobs::ReadJob;
use super::{open_conn, DbLocation, Store, StoreError};
use rusqlite::{params, Connection, OptionalExtension};

/// Read connections kept open for reuse.
const MAX_POOLED_READERS: usize = 16;

impl Store {
    /// Runs a read-only `f` on a read connection (file database) or through the
    /// writer queue (in-memory database). On a file database with group commit it
    /// answers only once every commit it could have seen is on disk (see
    /// [`super::log_sync`]): usually at once; in a burst of writes, after the next
    /// fsync. It never causes an fsync of its own.
    pub async fn read<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    {
        self.read_impl(f, |_| true, false).await
    }

    /// The idempotency fast path's lookup of one key: like [`Store::read`], but
    /// - it runs on the calling task, not on the blocking pool: one indexed lookup
    ///   (tens of µs) costs less than the two thread hops it would take, which were a
    ///   tenth of a request's latency at 16 clients (reads in WAL mode never wait for
    ///   the writer, so this does not stall the runtime behind a write);
    /// - it waits for pending commits to reach the disk only when `reveals` holds for
    ///   the result: "no such key" is no answer to anyone (the claim in the writer
    ///   decides afresh), so a new key does not wait for other requests' fsyncs.
    pub async fn read_point<T, F>(&self, f: F, reveals: fn(&T) -> bool) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    {
        self.read_impl(f, reveals, true).await
    }

    async fn read_impl<T, F>(&self, f: F, reveals: fn(&T) -> bool, on_caller: bool) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    {
        match &self.location {
            DbLocation::Memory => {
                let (otx, orx) = tokio::sync::oneshot::channel();
                self.submit(Box::new(ReadJob { f: Some(f), result: None, reply: Some(otx) }), false)?;
                orx.await.map_err(|_| StoreError("writer stopped".into()))?
            }
            DbLocation::File(_) => {
                let conn = {
                    let mut pool = self.readers.lock();
                    pool.pop()
                };
                let conn = match conn {
                    Some(c) => c,
                    None => open_conn(&self.location)?,
                };
                let (r, conn) = if on_caller {
                    (f(&conn), conn)
                } else {
                    tokio::task::spawn_blocking(move || {
                        let r = f(&conn);
                        (r, conn)
                    })
                    .await
                    .map_err(|e| StoreError(e.to_string()))?
                };
                {
                    let mut pool = self.readers.lock();
                    if pool.len() < MAX_POOLED_READERS {
                        pool.push(conn);
                    }
                }
                if let (Some(d), Ok(v)) = (&self.durability, &r) {
                    if reveals(v) {
                        d.settled().await?;
                    }
                }
                r
            }
        }
    }

    /// Synchronous read for non-async callers (tests, bench setup). Unlike
    /// [`Store::read`] it does not wait for pending commits to reach the disk: never
    /// use it to answer a request.
    pub fn read_blocking<T>(&self, f: impl FnOnce(&Connection) -> Result<T, StoreError>) -> Result<T, StoreError> {
        match &self.location {
            DbLocation::Memory => Err(StoreError("read_blocking needs a file database".into())),
            DbLocation::File(_) => f(&open_conn(&self.location)?),
        }
    }
}

/// One stored idempotency row, as the request path needs it.
#[derive(Debug, Clone)]
pub struct IdemRow {
    pub id: i64,
    pub method: String,
    pub path: String,
    pub fingerprint: String,
    pub params: String,
    pub created_ms: i64,
    pub lock_until_ms: i64,
    pub status: Option<u16>,
    pub body: Option<Vec<u8>>,
}

pub fn get_idem(conn: &Connection, account: &str, key: &str) -> Result<Option<IdemRow>, StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT id, method, path, fingerprint, params, created_ms, lock_until_ms, status, body
             FROM idem WHERE account=?1 AND key=?2",
        )?
        .query_row(params![account, key], |r| {
            Ok(IdemRow {
                id: r.get(0)?,
                method: r.get(1)?,
                path: r.get(2)?,
                fingerprint: r.get(3)?,
                params: r.get(4)?,
                created_ms: r.get(5)?,
                lock_until_ms: r.get(6)?,
                status: r.get::<_, Option<i64>>(7)?.map(|s| s as u16),
                body: r.get(8)?,
            })
        })
        .optional()?)
}
