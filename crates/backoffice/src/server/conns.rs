//! The open connections and their deadlines (record 0039): how long a client may take to
//! send its request's head and body, how long a kept-alive connection may sit idle, and
//! how many connections are open at once. The mock PSP's rules (`crates/mock-psp/src/conns.rs`):
//! a client that opens connections and never finishes a request (slowloris) holds each
//! one until its deadline; past the cap, a new connection closes the one that has waited
//! longest among those not executing a request, so a client that does send its request
//! is served. Only when every open connection is executing is a new one refused (503).
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::Notify;
use tokio::time::Instant;

/// Largest request head (request line and headers) in bytes; larger gets a 431.
pub const MAX_HEADER_BYTES: usize = 16 * 1024;
/// Most header fields in one request.
pub const MAX_HEADERS: usize = 64;
/// Read buffer of one connection (hyper's default is ~400 KiB; 300 half-open
/// connections would hold 120 MB).
pub const READ_BUFFER_BYTES: usize = 32 * 1024;

/// The HTTP side's connection limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HttpLimits {
    /// From accepting a connection to its first request's head being complete.
    pub header_timeout: Duration,
    /// From a request's head to its body being complete (408 past it).
    pub body_timeout: Duration,
    /// From an answer to the next request's head on a kept-alive connection.
    pub idle_timeout: Duration,
    /// Open connections at most.
    pub max_connections: usize,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(75),
            max_connections: 1024,
        }
    }
}

/// Counters, for the tests and the log.
#[derive(Default, Debug)]
pub struct HttpStats {
    pub accepted: AtomicU64,
    pub header_timeouts: AtomicU64,
    pub idle_timeouts: AtomicU64,
    pub body_timeouts: AtomicU64,
    pub evicted: AtomicU64,
    pub refused: AtomicU64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Waiting for a request's head (new, or kept alive after an answer).
    Waiting,
    /// Head in, reading the body (the request times itself).
    Reading,
    /// Being executed and answered: never evicted.
    Executing,
}

#[derive(Clone, Copy)]
struct PhaseState {
    phase: Phase,
    since: Instant,
    served: u64,
}

/// One open connection.
pub(crate) struct Conn {
    id: u64,
    state: Mutex<PhaseState>,
    /// Signalled on every phase change (the connection's task recomputes its deadline).
    pub(crate) changed: Notify,
    /// Signalled when the registry closes this connection to admit a new one.
    pub(crate) evict: Notify,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Expiry {
    Header,
    Idle,
}

/// A poisoned lock only means another task panicked while holding it; the plain data
/// inside is still consistent (every write is a single assignment).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Conn {
    pub(crate) fn set_phase(&self, phase: Phase) {
        {
            let mut s = lock(&self.state);
            if s.phase == Phase::Executing && phase == Phase::Waiting {
                s.served += 1;
            }
            s.phase = phase;
            s.since = Instant::now();
        }
        self.changed.notify_one();
    }

    /// When this connection must have made progress by; `None` while a request is read
    /// (timed by the request itself) or executed.
    pub(crate) fn deadline(&self, limits: &HttpLimits) -> Option<(Instant, Expiry)> {
        let s = *lock(&self.state);
        match s.phase {
            Phase::Waiting if s.served == 0 => Some((s.since + limits.header_timeout, Expiry::Header)),
            Phase::Waiting => Some((s.since + limits.idle_timeout, Expiry::Idle)),
            Phase::Reading | Phase::Executing => None,
        }
    }
}

/// The open connections.
pub struct Registry {
    pub limits: HttpLimits,
    pub stats: HttpStats,
    conns: Mutex<(u64, HashMap<u64, Arc<Conn>>)>,
}

/// Removes its connection from the registry when the connection's task ends.
pub(crate) struct Admitted {
    pub(crate) conn: Arc<Conn>,
    registry: Arc<Registry>,
}

impl Drop for Admitted {
    fn drop(&mut self) {
        lock(&self.registry.conns).1.remove(&self.conn.id);
    }
}

impl Registry {
    pub fn new(limits: HttpLimits) -> Arc<Registry> {
        Arc::new(Registry { limits, stats: HttpStats::default(), conns: Mutex::new((0, HashMap::new())) })
    }

    /// Connections open now.
    pub fn open(&self) -> usize {
        lock(&self.conns).1.len()
    }

    /// Admits a new connection. At the cap, the connection that has waited longest in
    /// its phase among those not executing is told to close and leaves the count at
    /// once; if every one is executing, the new one is refused (`None`).
    pub(crate) fn admit(self: &Arc<Self>) -> Option<Admitted> {
        self.stats.accepted.fetch_add(1, Relaxed);
        let mut g = lock(&self.conns);
        if g.1.len() >= self.limits.max_connections.max(1) {
            let victim = g.1.values().filter_map(|c| {
                let s = *lock(&c.state);
                (s.phase != Phase::Executing).then_some((s.since, c.id))
            });
            match victim.min() {
                Some((_, id)) => {
                    if let Some(c) = g.1.remove(&id) {
                        c.evict.notify_one();
                        self.stats.evicted.fetch_add(1, Relaxed);
                    }
                }
                None => {
                    self.stats.refused.fetch_add(1, Relaxed);
                    return None;
                }
            }
        }
        g.0 += 1;
        let id = g.0;
        let conn = Arc::new(Conn {
            id,
            state: Mutex::new(PhaseState { phase: Phase::Waiting, since: Instant::now(), served: 0 }),
            changed: Notify::new(),
            evict: Notify::new(),
        });
        g.1.insert(id, conn.clone());
        Some(Admitted { conn, registry: Arc::clone(self) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn at_the_cap_the_longest_waiting_non_executing_connection_makes_room() {
        let r = Registry::new(HttpLimits { max_connections: 3, ..HttpLimits::default() });
        let a = r.admit().unwrap();
        let b = r.admit().unwrap();
        let c = r.admit().unwrap();
        a.conn.set_phase(Phase::Executing);
        let d = r.admit().unwrap();
        assert_eq!(r.open(), 3);
        assert!(tokio::time::timeout(Duration::from_secs(5), b.conn.evict.notified()).await.is_ok(), "b was told to close");
        drop(b);
        c.conn.set_phase(Phase::Executing);
        d.conn.set_phase(Phase::Executing);
        assert!(r.admit().is_none(), "all executing: refused");
        d.conn.set_phase(Phase::Waiting);
        assert_eq!(d.conn.deadline(&r.limits).map(|(_, e)| e), Some(Expiry::Idle));
        assert_eq!(a.conn.deadline(&r.limits), None);
        drop((a, c, d));
        assert_eq!(r.open(), 0);
    }
}
