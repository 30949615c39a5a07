//! An owner's staff admin at the register (record 0127): add, change a role, reset a
//! PIN, retire. Who acts is either a name and PIN typed now (the CLI: checked as a
//! sign-in, under the wrong-PIN lock) or the person signed in at this register (the app,
//! whose session its guard keeps). Either way the ledger checks, inside the write, that
//! they are active and allowed [`Action::StaffAdmin`]; this file only finds who they are.

use paydesk_access::pin::Pin;
use paydesk_access::{authorize, Action, Authorization, Role};
use paydesk_ledger::{Error, Ledger, PinPurpose, Result, Staff};

use super::staff::{policy, StaffCases};

/// Who does a staff change.
#[derive(Debug, Clone, Copy)]
pub enum StaffActor<'a> {
    /// A name and the PIN they typed now.
    Pin(&'a str, &'a Pin),
    /// Whoever is signed in at this register.
    SignedIn,
}

/// The acting member's id; a PIN is checked (and audited) as a sign-in.
fn acting_id(l: &mut Ledger, by: StaffActor<'_>, now_ms: i64) -> Result<Staff> {
    match by {
        StaffActor::Pin(name, pin) => l.roster_mut().check_pin(name, pin, PinPurpose::SignIn, policy(), now_ms),
        StaffActor::SignedIn => l.roster().signed_in()?.ok_or(Error::NotSignedIn),
    }
}

impl StaffCases<'_> {
    /// Adds a member; `by` must be allowed staff admin (checked before the write).
    pub fn add_as(&self, name: &str, role: Role, pin: &Pin, by: StaffActor<'_>) -> Result<Staff> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| {
            let who = acting_id(l, by, now)?;
            match authorize(who.person(), Action::StaffAdmin, None) {
                Authorization::Allowed => l.roster_mut().add(name, role, pin, Some(who.id), now),
                refused @ (Authorization::Approved { .. }
                | Authorization::NeedsApproval { .. }
                | Authorization::ApproverTooLow { .. }
                | Authorization::SelfApproval) => Err(Error::NotAllowed { action: Action::StaffAdmin.as_str(), authorization: refused }),
            }
        })
    }

    /// Gives `name` a new role (the store keeps an active owner).
    pub fn set_role(&self, name: &str, role: Role, by: StaffActor<'_>) -> Result<Staff> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| {
            let who = acting_id(l, by, now)?;
            l.roster_mut().set_role(name, role, who.id, now)
        })
    }

    /// A new PIN for `name`; their wrong-PIN lock is lifted.
    pub fn reset_pin(&self, name: &str, pin: &Pin, by: StaffActor<'_>) -> Result<Staff> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| {
            let who = acting_id(l, by, now)?;
            l.roster_mut().reset_pin(name, pin, who.id, now)
        })
    }

    /// Retires `name`: no more sign-ins or approvals (the last owner stays).
    pub fn retire(&self, name: &str, by: StaffActor<'_>) -> Result<Staff> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| {
            let who = acting_id(l, by, now)?;
            l.roster_mut().retire(name, who.id, now)
        })
    }
}
