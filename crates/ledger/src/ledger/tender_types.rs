//! The store's own tender types (record 0118): added by the owner, listed for the
//! counter, switched off (never deleted: the sales that used one keep naming it).

use std::ops::Deref;

use rusqlite::{params, Connection, OptionalExtension};

use super::{collect, Cached, Ledger, TenderTypes};
use crate::error::{Error, Result};
use paydesk_domain::tender_type::checked_name;
use paydesk_domain::{StoreTenderKind, TenderType, TenderTypeId};

/// The most tender types a store may define (a counter shows one button each).
pub const MAX_TENDER_TYPES: i64 = 50;

const TYPE_SQL: &str = "SELECT id, name, kind, gives_change, counts_for_stamp, active FROM tender_types";

fn type_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Result<TenderType>> {
    let kind: String = r.get(2)?;
    let (id, name) = (TenderTypeId(r.get(0)?), r.get(1)?);
    let (gives_change, counts_for_stamp, active): (i64, i64, i64) = (r.get(3)?, r.get(4)?, r.get(5)?);
    Ok(kind.parse::<StoreTenderKind>().map_err(Error::from).map(|kind| TenderType {
        id,
        name,
        kind,
        gives_change: gives_change == 1,
        counts_for_stamp: counts_for_stamp == 1,
        active: active == 1,
    }))
}

/// Defining tender types is the catalog's (a manager or the owner): where the register
/// has staff, the person signed in must be allowed [`Action::CatalogEdit`]; a register
/// without staff (a demo, the simulator) names nobody, as it does for money.
fn allowed_tx(tx: &crate::write_tx::WriteTx<'_>) -> Result<()> {
    if crate::ledger::shift::shifts_required(tx)? {
        let operator = crate::ledger::session::operator(tx)?.ok_or(Error::NotSignedIn)?;
        crate::ledger::shift::authorize_tx(tx, crate::ledger::shift::Actor::alone(operator), paydesk_access::Action::CatalogEdit)?;
    }
    Ok(())
}

/// One tender type, inside the caller's transaction (or on a reader).
pub(in crate::ledger) fn tender_type_tx(conn: &Connection, id: TenderTypeId) -> Result<TenderType> {
    conn.row_cached(&format!("{TYPE_SQL} WHERE id = ?1"), [id.0], type_row)
        .optional()?
        .ok_or(Error::UnknownTenderType(id.0))?
}

impl<L: Deref<Target = Ledger>> TenderTypes<L> {
    /// Every tender type, in the order they were added (inactive ones too).
    pub fn list(&self) -> Result<Vec<TenderType>> {
        collect(&self.conn, &format!("{TYPE_SQL} ORDER BY id"), [], type_row)
    }

    /// One tender type.
    pub fn get(&self, id: TenderTypeId) -> Result<TenderType> {
        tender_type_tx(&self.conn, id)
    }
}

impl TenderTypes<&mut Ledger> {
    /// Adds a tender type (active). The name is trimmed, 1-40 characters, unique. Needs a
    /// manager or the owner signed in where the register has staff (`NotAllowed`).
    pub fn add(&mut self, name: &str, kind: StoreTenderKind, gives_change: bool, counts_for_stamp: bool, now_ms: i64) -> Result<TenderType> {
        let name = checked_name(name).ok_or_else(|| Error::InvalidInput("a tender type's name needs 1 to 40 printable characters".into()))?;
        let tx = self.write_tx()?;
        allowed_tx(&tx)?;
        let taken: bool = tx.row_cached("SELECT EXISTS (SELECT 1 FROM tender_types WHERE name = ?1)", [name], |r| r.get(0))?;
        if taken {
            return Err(Error::TenderTypeNameTaken { name: name.to_string() });
        }
        let n: i64 = tx.row_cached("SELECT count(*) FROM tender_types", [], |r| r.get(0))?;
        if n >= MAX_TENDER_TYPES {
            return Err(Error::InvalidInput(format!("a store has at most {MAX_TENDER_TYPES} tender types")));
        }
        tx.exec_cached(
            "INSERT INTO tender_types (name, kind, gives_change, counts_for_stamp, active, created_at_ms) VALUES (?1, ?2, ?3, ?4, 1, ?5)",
            params![name, kind.as_str(), gives_change as i64, counts_for_stamp as i64, now_ms],
        )?;
        let id = TenderTypeId(tx.last_insert_rowid());
        crate::ledger::audit::append_audit(
            &tx,
            &crate::ledger::AuditInput::new("tender_type_added", &format!("tender type {id}: {name} ({})", kind.as_str())),
            now_ms,
        )?;
        let ty = tender_type_tx(&tx, id)?;
        tx.commit()?;
        Ok(ty)
    }

    /// Offers a tender type at the counter again, or stops offering it.
    pub fn set_active(&mut self, id: TenderTypeId, active: bool, now_ms: i64) -> Result<TenderType> {
        let tx = self.write_tx()?;
        allowed_tx(&tx)?;
        let before = tender_type_tx(&tx, id)?;
        if before.active != active {
            tx.exec_cached("UPDATE tender_types SET active = ?2 WHERE id = ?1", params![id.0, active as i64])?;
            let what = if active { "offered again" } else { "no longer offered" };
            crate::ledger::audit::append_audit(
                &tx,
                &crate::ledger::AuditInput::new("tender_type_changed", &format!("tender type {id}: {} {what}", before.name)),
                now_ms,
            )?;
        }
        let ty = tender_type_tx(&tx, id)?;
        tx.commit()?;
        Ok(ty)
    }
}
