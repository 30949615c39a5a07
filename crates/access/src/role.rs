//! Staff roles (record 0062). Ordered: an owner may do all a manager may, a manager
//! all a cashier may.

use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Cashier,
    Manager,
    Owner,
}

/// A role name that is not one of ours (e.g. from a CSV or a newer back office).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown role {0:?}: expected cashier, manager or owner")]
pub struct UnknownRole(pub String);

impl Role {
    pub const ALL: [Role; 3] = [Role::Cashier, Role::Manager, Role::Owner];

    /// The name stored in the ledger and shown in logs.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Cashier => "cashier",
            Role::Manager => "manager",
            Role::Owner => "owner",
        }
    }

    pub fn parse(s: &str) -> Result<Role, UnknownRole> {
        match s {
            "cashier" => Ok(Role::Cashier),
            "manager" => Ok(Role::Manager),
            "owner" => Ok(Role::Owner),
            other => Err(UnknownRole(other.chars().take(40).collect())),
        }
    }

    /// Whether someone in this role holds at least `min`'s rights.
    pub fn at_least(self, min: Role) -> bool {
        self >= min
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_order_is_cashier_manager_owner() {
        for r in Role::ALL {
            assert_eq!(Role::parse(r.as_str()), Ok(r));
        }
        assert!(Role::Owner.at_least(Role::Manager));
        assert!(Role::Manager.at_least(Role::Manager));
        assert!(!Role::Cashier.at_least(Role::Manager));
        assert_eq!(Role::parse("admin"), Err(UnknownRole("admin".into())));
    }
}
