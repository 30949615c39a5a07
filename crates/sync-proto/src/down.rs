//! Down: what the back office publishes to a store's registers, versioned per store.
//! A register asks for changes since the version it holds and keeps working on its last
//! copy while the back office is away (design §9.5).
use crate::{check_version, text, ProtoError};
use serde::{Deserialize, Serialize};

/// A store's settings as its registers use them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoreSettings {
    pub store_name: String,
    /// The store's currency (lower-case ISO 4217).
    pub currency: String,
    pub receipt_footer: String,
    /// Largest payment a register may accept offline, minor units (design §3.7).
    pub offline_max_payment: i64,
    /// Most money a register may hold offline at once, minor units.
    pub offline_max_total: i64,
}

impl StoreSettings {
    pub fn validate(&self) -> Result<(), ProtoError> {
        text::text("store_name", &self.store_name)?;
        if self.store_name.trim().is_empty() {
            return Err(ProtoError::field("store_name", "is empty"));
        }
        text::currency("currency", &self.currency)?;
        text::text("receipt_footer", &self.receipt_footer)?;
        text::amount("offline_max_payment", self.offline_max_payment)?;
        text::amount("offline_max_total", self.offline_max_total)?;
        if self.offline_max_payment > self.offline_max_total {
            return Err(ProtoError::field("offline_max_payment", "is larger than offline_max_total"));
        }
        Ok(())
    }
}

/// One published change, tagged by what it replaces. Catalog, taxes and staff join as
/// variants of their own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Change {
    /// The whole settings document at `version` (it is small; a register replaces its copy).
    Settings { version: u64, settings: StoreSettings },
}

/// The answer to "what changed since version N".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Changes {
    pub v: u32,
    pub since: u64,
    /// The store's current version; ask again with `since = version` next time.
    pub version: u64,
    pub changes: Vec<Change>,
}

impl Changes {
    pub fn validate(&self) -> Result<(), ProtoError> {
        check_version(self.v)?;
        for c in &self.changes {
            match c {
                Change::Settings { version: _, settings } => settings.validate()?,
            }
        }
        Ok(())
    }
}
