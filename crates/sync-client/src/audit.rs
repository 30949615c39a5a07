//! The register's audit chain in the sync (record 0053): what a batch says about it, and
//! the head the back office confirmed, kept in the ledger for local verification.
use crate::error::SyncError;
use paydesk_access::audit::Anchor;
use paydesk_ledger::Ledger;
use paydesk_sync_proto::audit::{hash_hex, parse_hash};
use paydesk_sync_proto::{AtConfirmed, AuditHead, AuditReport, ZHead};

/// The report a batch carries, read from the chain as stored now.
pub fn report(ledger: &Ledger) -> Result<AuditReport, SyncError> {
    let s = ledger.audit().snapshot()?;
    Ok(AuditReport {
        head: AuditHead { seq: s.head.seq, hash: hash_hex(&s.head.hash) },
        at_confirmed: s.at_confirmed.map(|(seq, hash)| AtConfirmed { seq, hash: hash.as_ref().map(hash_hex) }),
        z_heads: s.z_heads.iter().map(|(z, a)| ZHead { z_number: *z, seq: a.seq, hash: hash_hex(&a.hash) }).collect(),
    })
}

/// The head an ack confirmed, as the ledger keeps it.
pub fn anchor_of(head: &AuditHead) -> Result<Anchor, SyncError> {
    let hash = parse_hash(&head.hash).ok_or_else(|| SyncError::BadAnswer(format!("the confirmed audit head {:?} is not a SHA-256", head.hash)))?;
    Ok(Anchor { seq: head.seq, hash })
}
