//! Down: what the back office publishes to a store's registers, versioned per store.
//! A register asks for changes since the version it holds and keeps working on its last
//! copy while the back office is away (record 0049).
use crate::catalog::{Item, StoreTax};
use crate::staff::StaffMember;
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
    /// Largest payment a register may accept offline, minor units (record 0009).
    pub offline_max_payment: i64,
    /// Most money a register may hold offline at once, minor units.
    pub offline_max_total: i64,
    /// The store's IANA time zone ("America/New_York"), which its registers' receipts
    /// and reports tell the time in (record 0137). Absent: not said (a register keeps its
    /// own); left out then, so a register older than this field still reads the settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_zone: Option<String>,
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
        if let Some(z) = &self.time_zone {
            text::time_zone("time_zone", z)?;
        }
        Ok(())
    }
}

/// One published change, tagged by what it replaces. Every change has its own version
/// in the store's one sequence (record 0049), so any prefix of the list sorted by
/// version is a safe place to stop and resume.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Change {
    /// The whole settings document at `version` (it is small; a register replaces its copy).
    Settings { version: u64, settings: StoreSettings },
    /// One catalog item, inserted or replaced by SKU.
    Item { version: u64, item: Item },
    /// The whole tax setup (price mode, rounding, registration number, rates).
    Tax { version: u64, tax: StoreTax },
    /// One staff member, inserted or replaced by name (record 0050).
    Staff { version: u64, member: StaffMember },
}

impl Change {
    pub fn version(&self) -> u64 {
        match self {
            Change::Settings { version, .. } | Change::Item { version, .. } | Change::Tax { version, .. } | Change::Staff { version, .. } => *version,
        }
    }

    /// The name a register lists in `kinds=` to say it understands this kind.
    pub fn kind(&self) -> ChangeKind {
        match self {
            Change::Settings { .. } => ChangeKind::Settings,
            Change::Item { .. } => ChangeKind::Item,
            Change::Tax { .. } => ChangeKind::Tax,
            Change::Staff { .. } => ChangeKind::Staff,
        }
    }
}

/// The kinds of change. A register says which it understands (`kinds=settings,item,tax,staff`);
/// one that says nothing is sent settings only, so a register older than the catalog
/// never reads a change it cannot parse (record 0049).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChangeKind {
    Settings,
    Item,
    Tax,
    Staff,
}

impl ChangeKind {
    pub const ALL: [ChangeKind; 4] = [ChangeKind::Settings, ChangeKind::Item, ChangeKind::Tax, ChangeKind::Staff];

    pub const fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Settings => "settings",
            ChangeKind::Item => "item",
            ChangeKind::Tax => "tax",
            ChangeKind::Staff => "staff",
        }
    }

    /// Parses a `kinds=` list; an unknown name is an error naming it.
    pub fn parse_list(s: &str) -> Result<Vec<ChangeKind>, ProtoError> {
        let mut out = Vec::new();
        for name in s.split(',').filter(|n| !n.is_empty()) {
            let k = ChangeKind::ALL
                .into_iter()
                .find(|k| k.as_str() == name)
                .ok_or_else(|| ProtoError::field("kinds", format!("has {name:?}; known kinds: settings, item, tax, staff")))?;
            if !out.contains(&k) {
                out.push(k);
            }
        }
        Ok(out)
    }

    /// What this build understands, as a `kinds=` value.
    pub fn all_list() -> String {
        ChangeKind::ALL.map(ChangeKind::as_str).join(",")
    }
}

/// Most changes in one answer: a full page of items, the two documents and every
/// staff member of the store.
pub const MAX_CHANGES_PER_PAGE: usize = crate::catalog::MAX_ITEMS_PER_PUBLISH + 2 + crate::staff::MAX_STORE_STAFF;

/// The answer to "what changed since version N".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Changes {
    pub v: u32,
    pub since: u64,
    /// Where this answer ends; ask again with `since = version` next time.
    pub version: u64,
    pub changes: Vec<Change>,
    /// More changes wait after `version` (the answer was cut at a page).
    #[serde(default)]
    pub more: bool,
}

impl Changes {
    pub fn validate(&self) -> Result<(), ProtoError> {
        check_version(self.v)?;
        if self.changes.len() > MAX_CHANGES_PER_PAGE {
            return Err(ProtoError::field("changes", format!("has {} entries; at most {MAX_CHANGES_PER_PAGE}", self.changes.len())));
        }
        let mut last = 0;
        for c in &self.changes {
            let v = c.version();
            if v <= last || v > self.version {
                return Err(ProtoError::field("changes", format!("version {v} is out of order (after {last}, up to {})", self.version)));
            }
            last = v;
            match c {
                Change::Settings { version: _, settings } => settings.validate()?,
                Change::Item { version: _, item } => item.validate()?,
                Change::Tax { version: _, tax } => tax.validate()?,
                Change::Staff { version: _, member } => member.validate()?,
            }
        }
        Ok(())
    }
}
