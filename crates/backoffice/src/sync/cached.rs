//! The ingest's statements prepared once per connection (record 0149, fourth addendum).
//!
//! `query_typed` parses and plans its statement on every call: in a 500-row batch that was
//! ~2.8 ms of parsing and ~3.9 ms of binding (planning included) of ~38 ms of PostgreSQL's
//! time. A prepared statement from the connection's cache (deadpool's) is only bound and run.
//!
//! The order is the point of the pipeline (record 0149): statements are judged in the order
//! they ran, and a read placed before the run's writes must run before them. A statement
//! prepared on demand inside the pipeline breaks that: its prepare is a round trip, and a
//! statement behind it whose own statement is already cached is sent first. (A test found
//! it: a refund check ran before the insert of the payment it refunds.) So nothing is
//! prepared inside a pipeline. [`Tx::begin`] prepares, before the batch's first statement,
//! every statement the process has run through this module (a hit costs no round trip; a
//! new connection prepares them all in one). Inside, a statement in that set is taken from
//! the cache, whose answer is ready at once, and sent at the same point `query_typed` would
//! have sent it; one not in the set (the first time the process runs it) goes out as
//! `query_typed` and joins the set for the next batch.
use deadpool_postgres::Transaction;
use std::sync::Mutex;
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{Error, Row};

/// A parameter and its PostgreSQL type, as `query_typed` takes them.
pub type Param<'a> = (&'a (dyn ToSql + Sync), Type);

/// A statement's text and its parameters' types: the cache's key.
type Key = (String, Vec<Type>);

/// Every statement run through this module, in the order first run. The texts are this
/// crate's constants (a table's name at most formatted in), never input, so the set is
/// small; it is bounded all the same, and past the bound a statement is simply not prepared.
static SEEN: Mutex<Vec<Key>> = Mutex::new(Vec::new());
const MAX_SEEN: usize = 64;

/// A batch's transaction with its connection's prepared statements.
pub struct Tx<'a> {
    inner: Transaction<'a>,
    /// What [`Tx::begin`] prepared on this connection: exactly these are cache hits.
    warm: Vec<Key>,
}

impl<'a> Tx<'a> {
    /// Begins the transaction and prepares every statement seen so far (pipelined; nothing
    /// sent when the connection has them all).
    pub async fn begin(client: &'a mut deadpool_postgres::Client) -> Result<Tx<'a>, Error> {
        let inner = client.transaction().await?;
        let warm = SEEN.lock().unwrap_or_else(|e| e.into_inner()).clone();
        futures_util::future::try_join_all(warm.iter().map(|(sql, types)| inner.prepare_typed_cached(sql, types))).await?;
        Ok(Tx { inner, warm })
    }

    pub async fn commit(self) -> Result<(), Error> {
        self.inner.commit().await
    }

    /// The cached statement when [`Tx::begin`] prepared it (ready at once), else `None`.
    async fn statement(&self, sql: &str, types: &[Type]) -> Result<Option<tokio_postgres::Statement>, Error> {
        if self.warm.iter().any(|(s, t)| s == sql && t == types) {
            return self.inner.prepare_typed_cached(sql, types).await.map(Some);
        }
        let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
        if seen.len() < MAX_SEEN && !seen.iter().any(|(s, t)| s == sql && t == types) {
            seen.push((sql.to_string(), types.to_vec()));
        }
        Ok(None)
    }
}

impl<'a> std::ops::Deref for Tx<'a> {
    type Target = tokio_postgres::Transaction<'a>;
    fn deref(&self) -> &Self::Target {
        &self.inner
    }
}

/// The cached statement and the bare values when [`Tx::begin`] prepared `sql`, else `None`
/// (the caller sends it as `query_typed` / `execute_typed`).
async fn prepared<'p>(tx: &Tx<'_>, sql: &str, params: &'p [Param<'_>]) -> Result<Option<(tokio_postgres::Statement, Vec<&'p (dyn ToSql + Sync)>)>, Error> {
    let types: Vec<Type> = params.iter().map(|(_, t)| t.clone()).collect();
    Ok(tx.statement(sql, &types).await?.map(|stmt| (stmt, params.iter().map(|(v, _)| *v).collect())))
}

/// `query_typed`, prepared when the transaction began with it prepared.
pub async fn query(tx: &Tx<'_>, sql: &str, params: &[Param<'_>]) -> Result<Vec<Row>, Error> {
    match prepared(tx, sql, params).await? {
        Some((stmt, values)) => tx.inner.query(&stmt, &values).await,
        None => tx.inner.query_typed(sql, params).await,
    }
}

/// `execute_typed`, prepared when the transaction began with it prepared.
pub async fn execute(tx: &Tx<'_>, sql: &str, params: &[Param<'_>]) -> Result<u64, Error> {
    match prepared(tx, sql, params).await? {
        Some((stmt, values)) => tx.inner.execute(&stmt, &values).await,
        None => tx.inner.execute_typed(sql, params).await,
    }
}
