//! A tax-exempt sale (issue #30 "US sales tax", record 0135): the whole sale is computed
//! with no tax because the customer showed why (a resale certificate, a diplomat's card, a
//! non-profit's exemption number). The reason is kept on the cart (`carts.tax_exempt_reason`)
//! and the tax is computed as exempt in one place (`paydesk_tax::compute`); the first tender
//! locks that document like any other, so a paid sale and its returns re-read exempt.
//!
//! Set and cleared only on an open sale with nothing ever tendered, in a store that takes
//! exemptions (`store_settings.tax_exemptions`, by default on in the US and off in Japan);
//! where the register has staff, the person signed in must be allowed
//! [`Action::TaxExempt`] or name a manager who approved (their PIN is the caller's to check).
//! Each change is one transaction with its audit row: who, who approved, which sale, why.

use std::ops::Deref;

use paydesk_access::Action;
use rusqlite::params;

use super::audit::{append_audit, AuditInput};
use super::carts::load_cart;
use super::Cached;
use crate::error::{Error, ExemptRefusal, Result};
use crate::ledger::{Carts, Catalog, Ledger};
use crate::types::*;
use crate::write_tx::WriteTx;

/// The shortest and longest reason kept, in characters, once trimmed.
pub const MIN_EXEMPT_REASON_CHARS: usize = 3;
pub const MAX_EXEMPT_REASON_CHARS: usize = 200;

fn refused(cart_id: CartId, why: ExemptRefusal) -> Error {
    Error::TaxExemptRefused { cart_id: cart_id.0, why }
}

/// The reason as kept: trimmed, 3 to 200 characters, no control character (it is printed
/// on the receipt and sent to the back office).
pub fn exempt_reason(cart_id: CartId, reason: &str) -> Result<String> {
    let r = reason.trim();
    let n = r.chars().count();
    if !(MIN_EXEMPT_REASON_CHARS..=MAX_EXEMPT_REASON_CHARS).contains(&n) || r.chars().any(char::is_control) {
        return Err(refused(cart_id, ExemptRefusal::Reason));
    }
    Ok(r.to_string())
}

fn allowed_in_store(conn: &rusqlite::Connection) -> Result<bool> {
    // NULL: the locale's default. Japan's 免税 is a different regime (record 0135).
    Ok(conn.row_cached(
        "SELECT COALESCE(tax_exemptions, locale = 'en-US') FROM store_settings WHERE id = 1",
        [],
        |r| r.get(0),
    )?)
}

impl<L: Deref<Target = Ledger>> Catalog<L> {
    /// Whether this store takes tax-exempt sales.
    pub fn tax_exemptions_allowed(&self) -> Result<bool> {
        allowed_in_store(&self.conn)
    }

    /// The store's own setting: `None` when it follows its locale's default (record 0136).
    pub fn tax_exemptions_setting(&self) -> Result<Option<bool>> {
        Ok(self.conn.row_cached("SELECT tax_exemptions FROM store_settings WHERE id = 1", [], |r| r.get(0))?)
    }
}

impl Catalog<&mut Ledger> {
    /// Turns tax-exempt sales on or off for this store (`None`: its locale's default). A
    /// store setting: where the register has staff, the person signed in must be allowed
    /// [`Action::Settings`], or name `approver_id` who is (their PIN is the caller's to
    /// check, as for every store setting the app saves with an owner's approval). Audited.
    pub fn set_tax_exemptions(&mut self, allowed: Option<bool>, approver_id: Option<i64>, now_ms: i64) -> Result<()> {
        let tx = self.write_tx()?;
        set_tax_exemptions_tx(&tx, allowed, approver_id, now_ms)?;
        tx.commit()?;
        Ok(())
    }
}

/// Turns tax-exempt sales on or off inside `tx` (see [`Catalog::set_tax_exemptions`]),
/// checking who may; audited. Also part of the counter rules' one save (`counter_rules.rs`).
pub(crate) fn set_tax_exemptions_tx(tx: &WriteTx<'_>, allowed: Option<bool>, approver_id: Option<i64>, now_ms: i64) -> Result<()> {
    let (actor, approver) = if crate::ledger::shift::shifts_required(tx)? {
        let me = crate::ledger::session::operator(tx)?.ok_or(Error::NotSignedIn)?;
        let who = crate::ledger::shift::Actor { staff_id: me, approver_id };
        (Some(me), crate::ledger::shift::authorize_tx(tx, who, Action::Settings)?)
    } else {
        (None, None)
    };
    let before = allowed_in_store(tx)?;
    tx.exec_cached("UPDATE store_settings SET tax_exemptions = ?1 WHERE id = 1", [allowed])?;
    let after = allowed_in_store(tx)?;
    let audit = AuditInput {
        actor_id: actor,
        approver_id: approver,
        before: Some(serde_json::json!({ "tax_exemptions": before }).to_string()),
        after: Some(serde_json::json!({ "tax_exemptions": after, "setting": allowed }).to_string()),
        ..AuditInput::new("store_tax_exemptions", "store")
    };
    append_audit(tx, &audit, now_ms)?;
    Ok(())
}

impl Carts<&mut Ledger> {
    /// Marks the sale tax exempt for `reason` (`Some`) or taxes it again (`None`).
    /// `approver_id` is a manager who approved a cashier's request (PIN checked by the
    /// caller). Refused with [`Error::TaxExemptRefused`] (store does not allow it, sale
    /// tendered or paid, bad reason), [`Error::CartHeld`], [`Error::NotSignedIn`] or
    /// [`Error::NotAllowed`]. The same reason again, or clearing a taxed sale, writes nothing.
    pub fn set_tax_exempt(&mut self, cart_id: CartId, reason: Option<&str>, approver_id: Option<i64>, now_ms: i64) -> Result<Cart> {
        let reason = reason.map(|r| exempt_reason(cart_id, r)).transpose()?;
        let tx = self.write_tx()?;
        let cart = load_cart(&tx, cart_id)?;
        super::held::refuse_held(&cart)?;
        match cart.state {
            CartState::Open => {}
            CartState::Locked => return Err(refused(cart_id, ExemptRefusal::Tendered)),
            CartState::Paid => return Err(refused(cart_id, ExemptRefusal::Paid)),
        }
        if cart.tax_locked || super::held::anything_tendered(&tx, cart_id)? {
            return Err(refused(cart_id, ExemptRefusal::Tendered));
        }
        if reason.is_some() && !allowed_in_store(&tx)? {
            return Err(refused(cart_id, ExemptRefusal::NotAllowed));
        }
        let (actor, approver) = if crate::ledger::shift::shifts_required(&tx)? {
            let me = crate::ledger::session::operator(&tx)?.ok_or(Error::NotSignedIn)?;
            let actor = crate::ledger::shift::Actor { staff_id: me, approver_id };
            (Some(me), crate::ledger::shift::authorize_tx(&tx, actor, Action::TaxExempt)?)
        } else {
            (None, None)
        };
        if reason == cart.tax_exempt_reason {
            return Ok(cart);
        }
        tx.exec_cached(
            "UPDATE carts SET tax_exempt_reason = ?2, updated_at_ms = ?3 WHERE id = ?1",
            params![cart_id.0, reason, now_ms],
        )?;
        let after = load_cart(&tx, cart_id)?;
        let figures = |c: &Cart| serde_json::json!({ "tax_exempt_reason": c.tax_exempt_reason, "total_minor": c.total.amount_minor });
        let action = if reason.is_some() { "tax_exempt_set" } else { "tax_exempt_clear" };
        let audit = AuditInput {
            actor_id: actor,
            approver_id: approver,
            reason: reason.clone().or(cart.tax_exempt_reason.clone()),
            before: Some(figures(&cart).to_string()),
            after: Some(figures(&after).to_string()),
            ..AuditInput::new(action, &format!("cart:{}", cart_id.0))
        };
        append_audit(&tx, &audit, now_ms)?;
        tx.commit()?;
        Ok(after)
    }
}
