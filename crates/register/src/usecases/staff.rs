//! Staff at the register (record 0068): the session the ledger holds, PIN checks under
//! the wrong-PIN lock, and who may add staff. The app's sign-in screen and the CLI's
//! `staff` / `shift` commands both come here.

use std::collections::HashMap;

use paydesk_access::lockout::LockoutPolicy;
use paydesk_access::pin::Pin;
use paydesk_access::{authorize, Action, Role};
use paydesk_ledger::{Actor, Error, PinPurpose, Result, Staff};

use crate::Engine;

/// The wrong-PIN lock (record 0063): 5 tries, then 5 minutes. One policy for every PIN
/// the register checks, whichever front end asked.
pub(super) fn policy() -> LockoutPolicy {
    LockoutPolicy::default()
}

/// Staff use cases; see [`Engine::staff`].
pub struct StaffCases<'e> {
    pub(crate) engine: &'e Engine,
}

/// Who uses the register now, read together.
#[derive(Debug, Clone)]
pub struct Session {
    /// The store has staff (so it sells only signed in, inside an open shift).
    pub has_staff: bool,
    pub signed_in: Option<Staff>,
}

/// The staff's names by id, read once for a report or a page of the audit log (one
/// query instead of one per name).
#[derive(Debug, Clone, Default)]
pub struct StaffNames(HashMap<i64, String>);

impl StaffNames {
    pub(crate) fn load(l: &paydesk_ledger::Ledger) -> Result<StaffNames> {
        Ok(StaffNames(l.roster().list()?.into_iter().map(|s| (s.id, s.name)).collect()))
    }

    /// A staff member's name (an id the ledger no longer knows reads "#id").
    pub fn name(&self, id: i64) -> String {
        self.0.get(&id).cloned().unwrap_or_else(|| format!("#{id}"))
    }
}

impl StaffCases<'_> {
    /// Whether the store has staff, and who is signed in (a reader: one snapshot).
    pub fn session(&self) -> Result<Session> {
        self.engine.with_reader(|l| Ok(Session { has_staff: l.shifts().required()?, signed_in: l.roster().signed_in()? }))
    }

    /// Who is signed in, if anyone.
    pub fn signed_in(&self) -> Result<Option<Staff>> {
        self.engine.with_reader(|l| l.roster().signed_in())
    }

    /// Every staff member (active or not; never a PIN hash outside the ledger's type).
    pub fn list(&self) -> Result<Vec<Staff>> {
        self.engine.with_reader(|l| l.roster().list())
    }

    /// The staff's names by id.
    pub fn names(&self) -> Result<StaffNames> {
        self.engine.with_reader(StaffNames::load)
    }

    /// Signs `name` in with their PIN (an unknown name and a wrong PIN answer alike).
    pub fn sign_in(&self, name: &str, pin: &Pin) -> Result<Staff> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| l.roster_mut().sign_in(name, pin, policy(), now))
    }

    /// Signs out whoever is signed in; their id, if anyone was.
    pub fn sign_out(&self) -> Result<Option<i64>> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| l.roster_mut().sign_out(now))
    }

    /// `name`'s own PIN change: the current one checked under the lock.
    pub fn change_pin(&self, name: &str, old: &Pin, new: &Pin) -> Result<()> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| l.roster_mut().change_pin(name, old, new, policy(), now))
    }

    /// An approver's PIN, counted on their approvals (never their own sign-in).
    pub fn check_approval_pin(&self, name: &str, pin: &Pin) -> Result<Staff> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| l.roster_mut().check_pin(name, pin, PinPurpose::Approval, policy(), now))
    }

    /// Signs `name` in with their PIN and checks the approver's PIN when one is named: who
    /// acts in a shift step (every PIN check is audited by the ledger, right or wrong).
    /// `name` stays signed in afterwards, so the sales that follow are theirs.
    pub fn act_as(&self, name: &str, pin: &Pin, approver: Option<(&str, &Pin)>) -> Result<Actor> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| {
            let who = l.roster_mut().sign_in(name, pin, policy(), now)?;
            let approver_id = match approver {
                Some((a, a_pin)) => Some(l.roster_mut().check_pin(a, a_pin, PinPurpose::Approval, policy(), now)?.id),
                None => None,
            };
            Ok(Actor { staff_id: who.id, approver_id })
        })
    }

    /// First start of a store without staff: its owner, then signed in. `None` when the
    /// store has staff already (checked inside the write, so two screens cannot both
    /// create one).
    pub fn create_first_owner(&self, name: &str, pin: &Pin) -> Result<Option<Staff>> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| {
            if !l.roster().list()?.is_empty() {
                return Ok(None);
            }
            l.roster_mut().add(name, Role::Owner, pin, None, now)?;
            Ok(Some(l.roster_mut().sign_in(name, pin, policy(), now)?))
        })
    }

    /// Adds a staff member. `by` names who adds them, with their PIN (checked as a
    /// sign-in, under the lock); they must be allowed staff admin. Only the store's first
    /// member, its owner, is added without.
    pub fn add(&self, name: &str, role: Role, pin: &Pin, by: Option<(&str, &Pin)>) -> Result<Staff> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| {
            let count = l.roster().list()?.len();
            let by_id = match by {
                Some((by, by_pin)) => {
                    let who = l.roster_mut().check_pin(by, by_pin, PinPurpose::SignIn, policy(), now)?;
                    if !authorize(who.person(), Action::StaffAdmin, None).is_granted() {
                        return Err(Error::InvalidInput(format!("{} is a {}: adding staff needs an owner", who.name, who.role)));
                    }
                    Some(who.id)
                }
                None if count == 0 && role == Role::Owner => None,
                None if count == 0 => return Err(Error::InvalidInput("the store's first staff member is its owner".into())),
                None => return Err(Error::InvalidInput("--by NAME is needed: an owner adds staff".into())),
            };
            l.roster_mut().add(name, role, pin, by_id, now)
        })
    }
}
