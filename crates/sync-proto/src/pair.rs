//! Pairing: a register trades a one-time code, made by the store's owner in the back
//! office, for its own id and token (record 0038).
use crate::{check_version, text, ProtoError};
use serde::{Deserialize, Serialize};

/// Longest pairing code accepted (they are 16 characters; room for dashes and spaces).
pub const MAX_PAIRING_CODE_LEN: usize = 40;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PairRequest {
    pub v: u32,
    pub pairing_code: String,
    pub app_version: String,
}

impl PairRequest {
    pub fn validate(&self) -> Result<(), ProtoError> {
        check_version(self.v)?;
        if self.pairing_code.is_empty() || self.pairing_code.len() > MAX_PAIRING_CODE_LEN {
            return Err(ProtoError::field("pairing_code", format!("must be 1 to {MAX_PAIRING_CODE_LEN} characters")));
        }
        text::text("pairing_code", &self.pairing_code)?;
        text::text("app_version", &self.app_version)
    }
}

/// The answer to a pairing: the token is shown this once; the back office keeps only
/// its hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Paired {
    pub v: u32,
    pub store_id: String,
    pub register_id: String,
    pub register_name: String,
    pub token: String,
}
