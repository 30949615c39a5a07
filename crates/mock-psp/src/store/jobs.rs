//! The writer's job queue: what a caller hands the writer ([`Job`]: a write, a read
//! of an in-memory database, a claim and its execution chained), how each is answered
//! exactly once after its commit, and the `Store` methods that queue them (or run
//! them inline, see [`super::WriteMode::Inline`]).
use super::writer::run_then_checkpoint;
use super::{Store, StoreError, WriterState};
use rusqlite::Connection;

/// Most transactions one inline submission runs: a job has at most two steps (see
/// [`Store::write_then`]).
const MAX_JOB_STEPS: usize = 2;


/// One queued write job. `run` may be called twice (see `writer::run_batch`); the caller
/// is answered exactly once, by `finish`, after the commit.
pub(crate) trait Job: Send {
    /// Runs the job inside the open transaction; false if it failed.
    fn run(&mut self, conn: &Connection, st: &mut WriterState) -> bool;
    /// Answers the caller: the job's result if the transaction committed, else the
    /// commit's error.
    fn finish(self: Box<Self>, commit: Result<(), StoreError>);
    /// Marks the job failed without running it again (its writes were rolled back and
    /// it could not be re-run): its caller must not be answered with the earlier result.
    fn fail(&mut self, e: StoreError);
    /// With the log syncer: may this job's caller be answered as soon as its batch
    /// committed, before the fsync? (See [`Store::write_answered_at_commit`].)
    fn answer_at_commit(&self) -> bool {
        false
    }
    /// Called after the job's transaction committed: true if the job has a second
    /// step, which the writer then runs in its next transaction (see
    /// [`Store::write_then`]) instead of answering the caller now.
    fn advance(&mut self) -> bool {
        false
    }
}

/// What [`Store::write_then`] answers: the first step's result, and the second's if
/// it ran (`None` when `go_on` said no; `Some(Err)` when it failed or its commit did:
/// the first step stays committed either way).
pub type ThenResult<A, B> = (A, Option<Result<B, StoreError>>);

/// Two steps in two transactions, the second run by the writer right after the first
/// committed (see [`Store::write_then`]).
struct ChainJob<A, B, F, G> {
    first: F,
    then: G,
    go_on: fn(&A) -> bool,
    a: Option<Result<A, StoreError>>,
    b: Option<Result<B, StoreError>>,
    second: bool,
    reply: Option<tokio::sync::oneshot::Sender<Result<ThenResult<A, B>, StoreError>>>,
}

impl<A, B, F, G> Job for ChainJob<A, B, F, G>
where
    A: Send,
    B: Send,
    F: FnMut(&Connection, &mut WriterState) -> Result<A, StoreError> + Send,
    G: FnMut(&A, &Connection, &mut WriterState) -> Result<B, StoreError> + Send,
{
    fn run(&mut self, conn: &Connection, st: &mut WriterState) -> bool {
        if !self.second {
            let r = (self.first)(conn, st);
            let ok = r.is_ok();
            self.a = Some(r);
            return ok;
        }
        let Some(Ok(a)) = &self.a else {
            // advance() only moves on from a successful first step.
            self.b = Some(Err(StoreError("the first step has no result".into())));
            return false;
        };
        let r = (self.then)(a, conn, st);
        let ok = r.is_ok();
        self.b = Some(r);
        ok
    }
    fn fail(&mut self, e: StoreError) {
        if self.second {
            self.b = Some(Err(e));
        } else {
            self.a = Some(Err(e));
        }
    }
    fn advance(&mut self) -> bool {
        if !self.second && matches!(&self.a, Some(Ok(a)) if (self.go_on)(a)) {
            self.second = true;
            return true;
        }
        false
    }
    fn finish(self: Box<Self>, commit: Result<(), StoreError>) {
        let this = *self;
        let r = match (this.second, this.a) {
            // The first step committed; the second's outcome (or its commit's error).
            (true, Some(Ok(a))) => Ok((a, Some(commit.and(this.b.unwrap_or_else(|| Err(StoreError("the second step never ran".into()))))))),
            (false, Some(Ok(a))) => commit.map(|_| (a, None)),
            (_, Some(Err(e))) => Err(commit.err().unwrap_or(e)),
            (_, None) => Err(commit.err().unwrap_or_else(|| StoreError("the write job never ran".into()))),
        };
        if let Some(to) = this.reply {
            let _ = to.send(r);
        }
    }
}

/// A write: re-runnable (`FnMut`), because a failed batch is rolled back whole and
/// run again (see `writer::run_batch`).
struct WriteJob<T, F> {
    f: F,
    result: Option<Result<T, StoreError>>,
    reply: Option<tokio::sync::oneshot::Sender<Result<T, StoreError>>>,
    /// Results for which the caller may be answered at commit (see
    /// [`Store::write_answered_at_commit`]); `None`: always after the fsync.
    at_commit: Option<fn(&T) -> bool>,
}

impl<T, F> Job for WriteJob<T, F>
where
    T: Send,
    F: FnMut(&Connection, &mut WriterState) -> Result<T, StoreError> + Send,
{
    fn run(&mut self, conn: &Connection, st: &mut WriterState) -> bool {
        let r = (self.f)(conn, st);
        let ok = r.is_ok();
        self.result = Some(r);
        ok
    }
    fn finish(self: Box<Self>, commit: Result<(), StoreError>) {
        reply(self.reply, self.result, commit, "write");
    }
    fn fail(&mut self, e: StoreError) {
        self.result = Some(Err(e));
    }
    fn answer_at_commit(&self) -> bool {
        match (&self.result, self.at_commit) {
            (Some(Ok(t)), Some(p)) => p(t),
            _ => false,
        }
    }
}

/// A read routed through the writer (in-memory database). It writes nothing, so when
/// its batch is re-run the first result stands (the state it read is rebuilt
/// identically: the jobs before it are deterministic) and `f` runs only once.
pub(super) struct ReadJob<T, F> {
    pub(super) f: Option<F>,
    pub(super) result: Option<Result<T, StoreError>>,
    pub(super) reply: Option<tokio::sync::oneshot::Sender<Result<T, StoreError>>>,
}

impl<T, F> Job for ReadJob<T, F>
where
    T: Send,
    F: FnOnce(&Connection) -> Result<T, StoreError> + Send,
{
    fn run(&mut self, conn: &Connection, _st: &mut WriterState) -> bool {
        if let Some(f) = self.f.take() {
            self.result = Some(f(conn));
        }
        matches!(self.result, Some(Ok(_)))
    }
    fn finish(self: Box<Self>, commit: Result<(), StoreError>) {
        reply(self.reply, self.result, commit, "read");
    }
    fn fail(&mut self, e: StoreError) {
        self.result = Some(Err(e));
    }
}

/// Answers a job's caller once: its result if the transaction committed, else the
/// commit's error.
fn reply<T>(
    to: Option<tokio::sync::oneshot::Sender<Result<T, StoreError>>>,
    result: Option<Result<T, StoreError>>,
    commit: Result<(), StoreError>,
    what: &str,
) {
    let r = result.unwrap_or_else(|| Err(StoreError(format!("the {what} job never ran"))));
    if let Some(to) = to {
        let _ = to.send(commit.and(r));
    }
}

pub(super) enum Msg {
    /// Batched with other jobs in one transaction (group commit).
    Job(Box<dyn Job>),
    /// Runs in a transaction of its own (purge chunks), so requests batched around it
    /// never pay for its writes, committed without waiting for an fsync (see
    /// [`Store::write_solo_unsynced`]).
    Solo(Box<dyn Job>),
}

impl Store {
    /// Runs `f` on the writer thread inside the current batch's transaction. Resolves
    /// after the commit. An error rolls back only this job's writes: the batch is then
    /// rolled back whole and re-run with each job in its own savepoint, so `f` may run
    /// twice (it is `FnMut`; its first run's writes and minted ids are undone).
    pub async fn write<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnMut(&Connection, &mut WriterState) -> Result<T, StoreError> + Send + 'static,
    {
        self.write_inner(f, false, None).await
    }

    /// Like [`Store::write`], but when `at_commit` holds for the job's result the caller
    /// is answered as soon as the batch committed — visible to every other request, not
    /// yet fsynced (with group commit on a file; otherwise exactly like `write`).
    ///
    /// Only for a step whose result never leaves the process by itself: the claim of an
    /// idempotency key. Its caller goes on to execute and complete the request in a
    /// later transaction, and the client is answered only after *that* commit's fsync,
    /// which covers the claim too (the log is written in order). A power cut before
    /// then loses the claim and the completion together, and nobody was told of
    /// either. What a fresh claim saves is one fsync wait per request.
    pub async fn write_answered_at_commit<T, F>(&self, f: F, at_commit: fn(&T) -> bool) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnMut(&Connection, &mut WriterState) -> Result<T, StoreError> + Send + 'static,
    {
        self.write_inner(f, false, Some(at_commit)).await
    }

    /// Like [`Store::write`], but in a transaction of its own (not group-committed)
    /// whose commit does not wait for an fsync (`synchronous=NORMAL` for that one
    /// transaction). Only for housekeeping whose loss in a crash is harmless — the
    /// purge: a lost purge chunk leaves expired keys, which a claim already treats as
    /// forgotten and the next purge deletes. Request durability is unchanged: every
    /// request's commit still fsyncs the log, and with it this transaction's frames.
    /// What it buys: a request queued behind a purge chunk no longer also waits for
    /// the chunk's fsync (the slowest part of a chunk when the disk is busy).
    pub async fn write_solo_unsynced<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnMut(&Connection, &mut WriterState) -> Result<T, StoreError> + Send + 'static,
    {
        self.write_inner(f, true, None).await
    }

    /// Two writes in two transactions, the second (`then`, given the first's result)
    /// run by the writer in the transaction right after the first committed, when
    /// `go_on` holds for the first's result. The caller is answered once, after the
    /// second committed (with group commit on a file: after its fsync, which covers
    /// the first too). For the idempotency layer's claim and execution: the claim is
    /// committed before execution begins, and the execution does not wait for a
    /// round trip through the request's task between the two (a request then spends
    /// one writer queue wait less). Both steps may run twice (see [`Store::write`]).
    pub async fn write_then<A, B, F, G>(&self, first: F, go_on: fn(&A) -> bool, then: G) -> Result<ThenResult<A, B>, StoreError>
    where
        A: Send + 'static,
        B: Send + 'static,
        F: FnMut(&Connection, &mut WriterState) -> Result<A, StoreError> + Send + 'static,
        G: FnMut(&A, &Connection, &mut WriterState) -> Result<B, StoreError> + Send + 'static,
    {
        let (otx, orx) = tokio::sync::oneshot::channel();
        self.submit(Box::new(ChainJob { first, then, go_on, a: None, b: None, second: false, reply: Some(otx) }), false)?;
        orx.await.map_err(|_| StoreError("writer stopped".into()))?
    }

    async fn write_inner<T, F>(&self, f: F, solo: bool, at_commit: Option<fn(&T) -> bool>) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnMut(&Connection, &mut WriterState) -> Result<T, StoreError> + Send + 'static,
    {
        let (otx, orx) = tokio::sync::oneshot::channel();
        self.submit(Box::new(WriteJob { f, result: None, reply: Some(otx), at_commit }), solo)?;
        orx.await.map_err(|_| StoreError("writer stopped".into()))?
    }

    /// Runs `job` inline (to its commit, right here) or queues it for the writer.
    pub(super) fn submit(&self, job: Box<dyn Job>, solo: bool) -> Result<(), StoreError> {
        if let Some(inline) = &self.inline {
            // Runs to its commit right here; the reply is already in the channel.
            let mut g = inline.lock();
            let w = g.as_mut().ok_or_else(|| StoreError("store is closed".into()))?;
            let mut jobs = vec![job];
            // A job with a second step runs it in the next transaction, right here.
            for _ in 0..MAX_JOB_STEPS {
                if jobs.is_empty() {
                    break;
                }
                jobs = run_then_checkpoint(&w.conn, &mut w.state, jobs, solo, &self.stats, &self.wal_restart, None);
            }
            assert!(jobs.is_empty(), "a job has at most {MAX_JOB_STEPS} steps");
            Ok(())
        } else {
            self.send(if solo { Msg::Solo(job) } else { Msg::Job(job) })
        }
    }

    fn send(&self, msg: Msg) -> Result<(), StoreError> {
        let g = self.tx.lock();
        self.stats.queued.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let r = match g.as_ref() {
            Some(tx) => tx.send(msg).map_err(|_| StoreError("writer stopped".into())),
            None => Err(StoreError("store is closed".into())),
        };
        if r.is_err() {
            self.stats.queued.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
        }
        r
    }
}
