//! Connection limits of the HTTP server: how long a client may take to send a request,
//! how long a kept-alive connection may sit idle, and how many connections are open at
//! once. A client that opens connections and never finishes a request (slowloris) holds
//! each one until its header timeout; past the cap, a new connection closes the idlest
//! of them instead of waiting behind them, so a client that does send its request is
//! served. Only when every open connection is executing a request is a new one refused
//! (503 at once).
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;
use tokio::time::Instant;

/// Largest request head (request line and headers) in bytes; larger gets a 431.
pub const MAX_HEADER_BYTES: usize = 16 * 1024;
/// Most header fields in one request; more gets a 431.
pub const MAX_HEADERS: usize = 64;
/// Read buffer of one connection (hyper's is ~400 KiB by default, which a client
/// holding many connections with long partial headers turned into hundreds of MB).
pub const READ_BUFFER_BYTES: usize = 32 * 1024;

/// The HTTP server's limits (see [`crate::MockPspBuilder::header_timeout`] and the
/// other setters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HttpLimits {
    /// From accepting a connection to its first request's headers being complete; and
    /// from a request's headers to its body being complete.
    pub header_timeout: Duration,
    /// From an answer to the next request's headers on a kept-alive connection.
    pub idle_timeout: Duration,
    /// Open connections at most (those being closed aside).
    pub max_connections: usize,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits { header_timeout: Duration::from_secs(10), idle_timeout: Duration::from_secs(75), max_connections: 512 }
    }
}

/// Counters for `/__admin/stats` (`http`).
#[derive(Default)]
pub struct HttpStats {
    pub accepted: AtomicU64,
    /// Closed because their request did not arrive within the header timeout.
    pub header_timeouts: AtomicU64,
    /// Closed because they sat idle past the idle timeout after an answer.
    pub idle_timeouts: AtomicU64,
    /// Requests whose body did not arrive within the header timeout (408).
    pub body_timeouts: AtomicU64,
    /// Idle or half-sent connections closed to make room for a new one at the cap.
    pub evicted: AtomicU64,
    /// New connections refused (503) because every open one was executing a request.
    pub refused: AtomicU64,
}

impl HttpStats {
    pub(crate) fn snapshot(&self, open: usize) -> serde_json::Value {
        serde_json::json!({
            "open": open,
            "accepted": self.accepted.load(Relaxed),
            "header_timeouts": self.header_timeouts.load(Relaxed),
            "idle_timeouts": self.idle_timeouts.load(Relaxed),
            "body_timeouts": self.body_timeouts.load(Relaxed),
            "evicted": self.evicted.load(Relaxed),
            "refused": self.refused.load(Relaxed),
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Waiting for a request's headers (a new connection, or kept alive after an answer).
    Waiting,
    /// Headers in, reading the body.
    Reading,
    /// The request is being executed and answered: never evicted.
    Executing,
}

#[derive(Clone, Copy)]
struct PhaseState {
    phase: Phase,
    since: Instant,
    served: u64,
}

/// One open connection, as the registry and its own task see it.
pub(crate) struct Conn {
    id: u64,
    state: Mutex<PhaseState>,
    /// Signalled on every phase change (the connection's task recomputes its deadline).
    pub(crate) changed: Notify,
    /// Signalled when the registry closes this connection to admit a new one.
    pub(crate) evict: Notify,
}

/// Why a connection's deadline passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Expiry {
    Header,
    Idle,
}

impl Conn {
    pub(crate) fn set_phase(&self, phase: Phase) {
        {
            let mut s = self.state.lock();
            if s.phase == Phase::Executing && phase == Phase::Waiting {
                s.served += 1;
            }
            s.phase = phase;
            s.since = Instant::now();
        }
        self.changed.notify_one();
    }

    /// When this connection must have made progress by, and what it is waiting for;
    /// `None` while it executes (or reads a body, which the handler times itself).
    pub(crate) fn deadline(&self, limits: &HttpLimits) -> Option<(Instant, Expiry)> {
        let s = *self.state.lock();
        match s.phase {
            Phase::Waiting if s.served == 0 => Some((s.since + limits.header_timeout, Expiry::Header)),
            Phase::Waiting => Some((s.since + limits.idle_timeout, Expiry::Idle)),
            Phase::Reading | Phase::Executing => None,
        }
    }
}

/// The open connections.
pub(crate) struct Registry {
    pub(crate) limits: HttpLimits,
    pub(crate) stats: HttpStats,
    conns: Mutex<(u64, HashMap<u64, Arc<Conn>>)>,
}

/// Removes its connection from the registry when the connection's task ends.
pub(crate) struct Admitted {
    pub(crate) conn: Arc<Conn>,
    registry: Arc<Registry>,
}

impl Drop for Admitted {
    fn drop(&mut self) {
        self.registry.conns.lock().1.remove(&self.conn.id);
    }
}

impl Registry {
    pub(crate) fn new(limits: HttpLimits) -> Arc<Registry> {
        Arc::new(Registry { limits, stats: HttpStats::default(), conns: Mutex::new((0, HashMap::new())) })
    }

    pub(crate) fn open(&self) -> usize {
        self.conns.lock().1.len()
    }

    /// Admits a new connection. At the cap, the connection that has waited longest in
    /// its current phase among those not executing (idle, or with its request not yet
    /// fully received) is told to close and leaves the count at once; if every
    /// connection is executing, the new one is refused (`None`).
    pub(crate) fn admit(self: &Arc<Self>) -> Option<Admitted> {
        self.stats.accepted.fetch_add(1, Relaxed);
        let mut g = self.conns.lock();
        if g.1.len() >= self.limits.max_connections.max(1) {
            let victim = g.1.values().filter_map(|c| {
                let s = *c.state.lock();
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
    async fn at_the_cap_the_idlest_non_executing_connection_makes_room() {
        let r = Registry::new(HttpLimits { max_connections: 3, ..HttpLimits::default() });
        let a = r.admit().unwrap();
        let b = r.admit().unwrap();
        let c = r.admit().unwrap();
        a.conn.set_phase(Phase::Reading);
        a.conn.set_phase(Phase::Executing);
        // b is now the idlest non-executing one.
        let d = r.admit().unwrap();
        assert_eq!(r.open(), 3);
        assert!(tokio::time::timeout(Duration::from_secs(5), b.conn.evict.notified()).await.is_ok(), "b was told to close");
        drop(b);
        assert_eq!(r.open(), 3, "b had already left the count");
        c.conn.set_phase(Phase::Reading);
        c.conn.set_phase(Phase::Executing);
        d.conn.set_phase(Phase::Reading);
        d.conn.set_phase(Phase::Executing);
        assert!(r.admit().is_none(), "all executing: refused");
        assert_eq!(r.stats.refused.load(Relaxed), 1);
        assert_eq!(r.stats.evicted.load(Relaxed), 1);
        // An answer makes it idle again (and counts as served: the idle timeout applies).
        d.conn.set_phase(Phase::Waiting);
        assert_eq!(d.conn.deadline(&r.limits).map(|(_, e)| e), Some(Expiry::Idle));
        assert_eq!(a.conn.deadline(&r.limits), None);
        drop((a, c, d));
        assert_eq!(r.open(), 0);
    }
}
