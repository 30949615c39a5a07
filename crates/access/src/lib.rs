//! Access control for the register (record 0062): who may do what, how staff prove who
//! they are, and the audit chain that makes every action tamper-evident.
//!
//! Pure domain code, no I/O and no clock: the ledger stores what this crate computes
//! (PIN hashes, lockout counters, chained audit rows) and callers pass `now_ms` in, so
//! every rule is testable without a database or a real clock.
//!
//! - [`role`]: the three roles and their order.
//! - [`permission`]: the one table of role × action, and the approval rule.
//! - [`pin`]: PIN format and Argon2id hashing.
//! - [`lockout`]: wrong-PIN counting and the lock.
//! - [`audit`]: the SHA-256 chain over audit rows and its verification.

pub mod audit;
pub mod lockout;
pub mod permission;
pub mod pin;
pub mod role;

pub use audit::{AuditRecord, Break, ChainedRecord, Anchor, Verdict};
pub use lockout::{LockoutPolicy, Locked, MonotonicLocks, PinAttempts};
pub use permission::{authorize, Action, Authorization, Person};
pub use pin::{check_hash, hash_pin, verify_pin, verify_work_done, Pin, PinError};
pub use role::Role;
