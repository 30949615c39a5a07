//! Down: the staff a back office publishes to its store's registers (record 0050). A
//! member travels with the Argon2id hash of their PIN (PHC form: salt and parameters
//! inside), never the PIN: the back office hashes it when the owner sets it, so one
//! PIN works at every register of the store, and no register or log ever sees it.
use crate::ProtoError;
use serde::{Deserialize, Serialize};

/// The ledger's limits: a name of 1 to 60 characters, a PHC string of at most 256 bytes.
pub const MAX_STAFF_NAME_CHARS: usize = 60;
pub const MAX_PIN_HASH_BYTES: usize = 256;
/// Members one store publishes at most (and one page of changes down may hold).
pub const MAX_STORE_STAFF: usize = 200;

/// A role at the register, as the ledger names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StaffRole {
    Cashier,
    Manager,
    Owner,
}

impl StaffRole {
    pub const ALL: [StaffRole; 3] = [StaffRole::Cashier, StaffRole::Manager, StaffRole::Owner];

    /// The role a stored or sent name stands for.
    pub fn parse(s: &str) -> Option<StaffRole> {
        StaffRole::ALL.into_iter().find(|r| r.as_str() == s)
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            StaffRole::Cashier => "cashier",
            StaffRole::Manager => "manager",
            StaffRole::Owner => "owner",
        }
    }
}

/// One member, keyed by name within the store. Never deleted (the audit log and past
/// sales name them): the back office retires a member with `active: false`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StaffMember {
    pub name: String,
    pub role: StaffRole,
    pub active: bool,
    /// `$argon2id$...` as `paydesk-access` makes it.
    pub pin_hash: String,
}

/// A staff name: trimmed, 1 to 60 characters, no control characters.
pub fn check_staff_name(field: &str, name: &str) -> Result<(), ProtoError> {
    let n = name.chars().count();
    if n == 0 || n > MAX_STAFF_NAME_CHARS {
        return Err(ProtoError::field(field, format!("must be 1 to {MAX_STAFF_NAME_CHARS} characters, got {n}")));
    }
    if name.chars().any(char::is_control) || name.trim() != name {
        return Err(ProtoError::field(field, "has a control character or a space at either end"));
    }
    Ok(())
}

impl StaffMember {
    pub fn validate(&self) -> Result<(), ProtoError> {
        check_staff_name("name", &self.name)?;
        let at = format!("staff {:?}: pin_hash", self.name);
        // The shape only; the register's ledger parses it fully before it stores it.
        if self.pin_hash.len() > MAX_PIN_HASH_BYTES || !self.pin_hash.starts_with("$argon2id$") || !self.pin_hash.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(ProtoError::field(at, format!("must be an Argon2id PHC string of at most {MAX_PIN_HASH_BYTES} bytes")));
        }
        Ok(())
    }
}
