//! The register's audit chain on the wire (record 0053): with every batch the register
//! says where its chain stands — its head, the hash it now holds at the seq the back office
//! last confirmed, and the heads its Z reports recorded — and the back office answers the
//! head it confirmed. The back office checks the register's chain still extends what it
//! confirmed: a head gone backwards (the tail deleted) or another hash at a confirmed seq
//! (a row rewritten and every later hash recomputed) is reported to the owner.
use crate::limits::MAX_SEQ;
use crate::ProtoError;
use serde::{Deserialize, Serialize};

/// Z heads one report carries at most (the newest past the confirmed head).
pub const MAX_Z_HEADS: usize = 16;

/// A place in the chain: a row's seq and its SHA-256 as 64 lower-case hex digits
/// (seq 0 with 64 zeros: the empty chain).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditHead {
    pub seq: u64,
    pub hash: String,
}

/// The seq the back office last confirmed, as the register stored it from an ack, and the
/// hash the register's chain holds at that seq now (`None`: no row there any more).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AtConfirmed {
    pub seq: u64,
    pub hash: Option<String>,
}

/// The head a Z report recorded at its close.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ZHead {
    pub z_number: i64,
    pub seq: u64,
    pub hash: String,
}

/// What a register reports about its audit chain with a batch (in its health).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditReport {
    /// The chain's last row when the batch was made.
    pub head: AuditHead,
    /// `None` until the register has stored a head the back office confirmed.
    pub at_confirmed: Option<AtConfirmed>,
    /// Z heads past the confirmed seq, by Z number ascending, at most [`MAX_Z_HEADS`].
    pub z_heads: Vec<ZHead>,
}

/// 64 lower-case hex digits (the register writes them so; one spelling, so equal hashes
/// are equal strings).
pub fn check_hash(field: &str, h: &str) -> Result<(), ProtoError> {
    if h.len() != 64 || !h.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
        return Err(ProtoError::field(field, "must be 64 lower-case hex digits (a SHA-256)"));
    }
    Ok(())
}

fn check_seq(field: &str, seq: u64) -> Result<(), ProtoError> {
    if seq > MAX_SEQ {
        return Err(ProtoError::field(field, format!("is beyond {MAX_SEQ}")));
    }
    Ok(())
}

impl AuditHead {
    pub(crate) fn validate(&self, at: &str) -> Result<(), ProtoError> {
        check_seq(&format!("{at}.seq"), self.seq)?;
        check_hash(&format!("{at}.hash"), &self.hash)
    }
}

impl AuditReport {
    pub(crate) fn validate(&self, at: &str) -> Result<(), ProtoError> {
        self.head.validate(&format!("{at}.head"))?;
        if let Some(c) = &self.at_confirmed {
            check_seq(&format!("{at}.at_confirmed.seq"), c.seq)?;
            if let Some(h) = &c.hash {
                check_hash(&format!("{at}.at_confirmed.hash"), h)?;
                if c.seq > self.head.seq {
                    return Err(ProtoError::field(format!("{at}.at_confirmed.seq"), format!("{} has a row past the head {}", c.seq, self.head.seq)));
                }
            }
        }
        if self.z_heads.len() > MAX_Z_HEADS {
            return Err(ProtoError::field(format!("{at}.z_heads"), format!("has {} heads; at most {MAX_Z_HEADS}", self.z_heads.len())));
        }
        let mut last_z = 0;
        for (i, z) in self.z_heads.iter().enumerate() {
            let f = format!("{at}.z_heads[{i}]");
            if z.z_number <= last_z || z.z_number as u64 > MAX_SEQ {
                return Err(ProtoError::field(format!("{f}.z_number"), format!("must be above {last_z} (ascending) and at most {MAX_SEQ}, got {}", z.z_number)));
            }
            last_z = z.z_number;
            check_seq(&format!("{f}.seq"), z.seq)?;
            if z.seq > self.head.seq {
                return Err(ProtoError::field(format!("{f}.seq"), format!("{} is past the head {}", z.seq, self.head.seq)));
            }
            check_hash(&format!("{f}.hash"), &z.hash)?;
        }
        Ok(())
    }
}

/// A SHA-256 as the wire spells it.
pub fn hash_hex(h: &[u8; 32]) -> String {
    h.iter().map(|b| format!("{b:02x}")).collect()
}

/// The SHA-256 a wire hash spells (`None` unless 64 lower-case hex digits).
pub fn parse_hash(s: &str) -> Option<[u8; 32]> {
    check_hash("", s).ok()?;
    let mut out = [0u8; 32];
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}
