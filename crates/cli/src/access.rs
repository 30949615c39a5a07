//! `paydesk-cli staff …` and `paydesk-cli audit …` (record 0062): staff members with
//! hashed PINs, and the audit chain's log and verification. One JSON object per line.
//!
//! ```text
//! audit                       the log, oldest first (as before the chain)
//! audit verify [--head SEQ:HASH] [--checkpoint SEQ:HASH]…   exit 0 intact; exit 4 broken, each
//!                             break named (a checkpoint is an older head, e.g. a Z report's);
//!                             every Z report's head and the head the back office last
//!                             confirmed are checked too (`back_office_confirmed`, or null)
//! audit head                  the last row's seq and hash, to keep apart
//! staff add --name N --role cashier|manager|owner [--by NAME]   the PIN is read from stdin
//! staff list                 every member with role, active and published (read-only here)
//! staff role --name N --role R --by NAME        the --by owner's PIN on stdin
//! staff reset-pin --name N --by NAME            the new PIN, then the --by owner's, on stdin
//! staff retire --name N --by NAME               the --by owner's PIN on stdin
//! staff sign-in --name N | sign-out | whoami   who is signed in (sales are theirs)
//! ```
//! A PIN never goes on the command line (argv is visible to every user of the machine):
//! `staff add` reads it from the first line of stdin. `--by` names who adds the member;
//! that person's PIN is the second line, checked under the lockout like any sign-in.

use crate::outcome::fail;
use clap::Subcommand;
use paydesk_access::audit::{Anchor, Hash};
use paydesk_access::pin::Pin;
use paydesk_access::Role;
use paydesk_ledger::{Error, ShiftRefusal, StaffRefusal};
use paydesk_register::usecases::StaffActor;
use paydesk_register::Engine;
use serde_json::json;

/// Exit code of `audit verify` when the chain is broken.
pub(crate) const EXIT_AUDIT_BROKEN: i32 = 4;

#[derive(Subcommand, Debug)]
pub(crate) enum AuditCmd {
    /// Check the chain; name every row changed, deleted or moved.
    Verify {
        /// The head kept apart (from `audit head`, a Z report or the back office):
        /// SEQ:HEX. Without it, rows cut from the end cannot be seen.
        #[arg(long)]
        head: Option<String>,
        /// An older head kept apart (the one printed on a Z report): SEQ:HEX. The row
        /// must still be there with that hash; later rows are fine. Repeatable.
        #[arg(long)]
        checkpoint: Vec<String>,
    },
    /// The last row's seq and hash.
    Head,
}

#[derive(Subcommand, Debug)]
pub(crate) enum StaffCmd {
    /// Add a staff member; the PIN is the first line of stdin.
    Add {
        #[arg(long)]
        name: String,
        #[arg(long)]
        role: String,
        /// Who adds them (must be allowed staff admin); their PIN is the second line of
        /// stdin. Only the store's first member may be added without.
        #[arg(long)]
        by: Option<String>,
    },
    /// Every staff member (never a PIN or its hash).
    List,
    /// Give a member another role (record 0127); the --by owner's PIN is on stdin.
    Role {
        #[arg(long)]
        name: String,
        #[arg(long)]
        role: String,
        #[arg(long)]
        by: String,
    },
    /// Set a member's new PIN, lifting their lock: the new PIN is the first line of
    /// stdin, the --by owner's PIN the second.
    ResetPin {
        #[arg(long)]
        name: String,
        #[arg(long)]
        by: String,
    },
    /// Retire a member: no more sign-ins or approvals. The --by owner's PIN is on stdin.
    Retire {
        #[arg(long)]
        name: String,
        #[arg(long)]
        by: String,
    },
    /// Sign in at this register (PIN on stdin): sales and refunds from now are theirs.
    SignIn {
        #[arg(long)]
        name: String,
    },
    /// Sign out whoever is signed in.
    SignOut,
    /// Who is signed in, or null.
    Whoami,
}

fn parse_head(s: &str) -> Anchor {
    fn bad() -> ! {
        fail("invalid_input", "--head is SEQ:HASH (a number, a colon, 64 hex digits), as `audit head` prints it")
    }
    let (seq, hex_hash) = s.split_once(':').unwrap_or_else(|| bad());
    let seq: u64 = seq.parse().unwrap_or_else(|_| bad());
    let bytes = hex::decode(hex_hash).unwrap_or_else(|_| bad());
    let hash = Hash::try_from(bytes.as_slice()).unwrap_or_else(|_| bad());
    Anchor { seq, hash }
}

fn head_json(a: Anchor) -> serde_json::Value {
    json!({ "seq": a.seq, "hash": hex::encode(a.hash), "head": format!("{}:{}", a.seq, hex::encode(a.hash)) })
}

pub(crate) fn audit(engine: &Engine, cmd: &Option<AuditCmd>) -> i32 {
    match cmd {
        None => crate::reports::audit(engine),
        Some(AuditCmd::Head) => {
            let head = engine.audit().head().unwrap_or_else(|e| fail("ledger", &e.to_string()));
            out!("{}", head_json(head));
            0
        }
        Some(AuditCmd::Verify { head, checkpoint }) => {
            let head = head.as_deref().map(parse_head);
            if checkpoint.len() > 1000 {
                fail("invalid_input", "at most 1000 --checkpoint");
            }
            let checkpoints: Vec<Anchor> = checkpoint.iter().map(|c| parse_head(c)).collect();
            let v = engine.audit().verify(head, &checkpoints).unwrap_or_else(|e| fail("ledger", &e.to_string()));
            let breaks: Vec<_> = v
                .breaks
                .iter()
                .map(|b| {
                    let mut j = serde_json::to_value(b).expect("a break serializes");
                    j["message"] = json!(b.describe());
                    j
                })
                .collect();
            // What "intact" was checked against: the head the back office last confirmed
            // (record 0053) is one of the anchors, when there is one.
            let confirmed = engine.audit().confirmed().unwrap_or_else(|e| fail("ledger", &e.to_string()));
            let confirmed = confirmed.map(|c| {
                let mut j = head_json(c.anchor);
                j["confirmed_at_ms"] = json!(c.confirmed_at_ms);
                j
            });
            out!(
                "{}",
                json!({ "intact": v.is_intact(), "rows_checked": v.rows_checked, "breaks": breaks, "breaks_not_listed": v.breaks_not_listed,
                        "back_office_confirmed": confirmed })
            );
            if v.is_intact() {
                0
            } else {
                EXIT_AUDIT_BROKEN
            }
        }
    }
}

/// Stdin holds at most two PINs of 8 digits (and their line ends): more than this is
/// not ours to read.
const STDIN_MAX_BYTES: u64 = 256;

pub(crate) fn stdin_lines() -> Vec<String> {
    use std::io::Read;
    let mut buf = String::new();
    if std::io::stdin().take(STDIN_MAX_BYTES).read_to_string(&mut buf).is_err() {
        fail("invalid_input", "stdin is not UTF-8 text");
    }
    buf.lines().map(|l| l.trim_end_matches('\r').to_string()).collect()
}

pub(crate) fn read_pin<'a>(lines: &mut impl Iterator<Item = &'a String>, whose: &str) -> Pin {
    let Some(line) = lines.next() else { fail("invalid_input", &format!("{whose} PIN expected on stdin")) };
    Pin::parse(line).unwrap_or_else(|e| fail("invalid_pin", &format!("{whose} PIN: {e}")))
}

pub(crate) fn ledger_fail(e: &Error) -> ! {
    let code = match e {
        Error::WrongPin { .. } => "wrong_pin",
        Error::StaffLocked { .. } => "staff_locked",
        Error::InvalidInput(_) | Error::InvalidItem { .. } | Error::NotTheOperator { .. } | Error::InactiveStaff { .. } => "invalid_input",
        Error::InvalidAmount(_) => "invalid_amount",
        // The codes these had as untyped input and amount errors, kept for scripts.
        Error::ShiftRefused(ShiftRefusal::PaidAmountOutOfRange { .. } | ShiftRefusal::PaidOutAboveDrawer { .. }) => "invalid_amount",
        Error::ShiftRefused(_) => "invalid_input",
        Error::NoOpenShift => "no_open_shift",
        Error::NotSignedIn => "not_signed_in",
        Error::ShiftAlreadyOpen { .. } => "shift_already_open",
        Error::ShiftHasOpenSale { .. } => "shift_has_open_sale",
        Error::NotAllowed { .. } => "not_allowed",
        Error::StaffRefused(r) => staff_refusal_code(r),
        _ => "ledger",
    };
    fail(code, &e.to_string())
}

/// The code of each staff admin refusal (record 0127), for scripts.
fn staff_refusal_code(r: &StaffRefusal) -> &'static str {
    match r {
        StaffRefusal::Unknown { .. } => "unknown_staff",
        StaffRefusal::Published { .. } => "managed_by_back_office",
        StaffRefusal::LastOwner { .. } => "last_owner",
        StaffRefusal::Retired { .. } => "staff_retired",
        StaffRefusal::RetiredName { .. } => "staff_name_retired",
        StaffRefusal::SameRole { .. } => "same_role",
    }
}

/// The outcome of a staff admin command: the member as they now are, or the refusal.
fn staff_out(r: paydesk_ledger::Result<paydesk_ledger::Staff>) -> i32 {
    match r {
        Ok(s) => {
            out!("{}", serde_json::to_string(&s).expect("staff serializes"));
            0
        }
        Err(e) => ledger_fail(&e),
    }
}

pub(crate) fn staff(engine: &Engine, cmd: &StaffCmd) -> i32 {
    match cmd {
        StaffCmd::SignIn { name } => {
            let input = stdin_lines();
            let pin = read_pin(&mut input.iter(), "the member's");
            let who = engine.staff().sign_in(name, &pin).unwrap_or_else(|e| ledger_fail(&e));
            out!("{}", serde_json::to_string(&who).expect("staff serializes"));
            0
        }
        StaffCmd::SignOut => {
            let was = engine.staff().sign_out().unwrap_or_else(|e| ledger_fail(&e));
            out!("{}", json!({ "signed_out": was }));
            0
        }
        StaffCmd::Whoami => {
            let who = engine.staff().signed_in().unwrap_or_else(|e| ledger_fail(&e));
            out!("{}", serde_json::to_string(&who).expect("staff serializes"));
            0
        }
        StaffCmd::List => {
            let all = engine.staff().list().unwrap_or_else(|e| ledger_fail(&e));
            for s in all {
                out!("{}", serde_json::to_string(&s).expect("staff serializes"));
            }
            0
        }
        StaffCmd::Role { name, role, by } => {
            let role = Role::parse(role).unwrap_or_else(|e| fail("invalid_input", &e.to_string()));
            let input = stdin_lines();
            let by_pin = read_pin(&mut input.iter(), "the --by member's");
            staff_out(engine.staff().set_role(name, role, StaffActor::Pin(by, &by_pin)))
        }
        StaffCmd::ResetPin { name, by } => {
            let input = stdin_lines();
            let mut lines = input.iter();
            let pin = read_pin(&mut lines, "the member's new");
            let by_pin = read_pin(&mut lines, "the --by member's");
            staff_out(engine.staff().reset_pin(name, &pin, StaffActor::Pin(by, &by_pin)))
        }
        StaffCmd::Retire { name, by } => {
            let input = stdin_lines();
            let by_pin = read_pin(&mut input.iter(), "the --by member's");
            staff_out(engine.staff().retire(name, StaffActor::Pin(by, &by_pin)))
        }
        StaffCmd::Add { name, role, by } => {
            let role = Role::parse(role).unwrap_or_else(|e| fail("invalid_input", &e.to_string()));
            let input = stdin_lines();
            let mut lines = input.iter();
            let pin = read_pin(&mut lines, "the new member's");
            let by_pin = by.as_ref().map(|_| read_pin(&mut lines, "the --by member's"));
            // Who may add staff (an owner; the store's first member is its owner) is the
            // engine's rule.
            let by = by.as_deref().zip(by_pin.as_ref());
            let added = engine.staff().add(name, role, &pin, by);
            match added {
                Ok(s) => {
                    out!("{}", serde_json::to_string(&s).expect("staff serializes"));
                    0
                }
                Err(e) => ledger_fail(&e),
            }
        }
    }
}
