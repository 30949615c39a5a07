//! Why the register refuses an owner's staff change (record 0127). Its own module, below
//! the ledger's, so the crate's `Error` can carry it without importing the ledger.

use paydesk_access::Role;

/// Why the register refuses a staff change (nothing is written).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StaffRefusal {
    /// No member has this name.
    #[error("there is no staff member named {name:?}")]
    Unknown { name: String },
    /// The back office publishes this member (record 0050): changed there, not here.
    #[error("{name} is managed by the back office; change them there")]
    Published { name: String },
    /// The change would leave the store without an active owner: nobody could add
    /// staff or change settings any more.
    #[error("{name} is the store's last active owner; make someone else an owner first")]
    LastOwner { name: String },
    /// The member is retired: nothing about them changes any more.
    #[error("{name} is retired")]
    Retired { name: String },
    /// A new member under a retired member's name: that would bring them back silently.
    #[error("{name} was retired; a new member needs another name")]
    RetiredName { name: String },
    /// The member already has this role (no audit row for a change that is none).
    #[error("{name} is already a {role}")]
    SameRole { name: String, role: Role },
}
