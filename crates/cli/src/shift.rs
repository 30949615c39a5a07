//! `paydesk-cli shift …` (record 0066): a shift opened on a counted float, paid in /
//! out with a reason, the X report, the close on a blind count and its Z report. One
//! JSON object per command on stdout.
//!
//! ```text
//! shift open --by NAME --float 1000x5,100x20           float counted by denomination
//! shift paid-in|paid-out --by NAME --amount N --reason TEXT [--approver NAME]
//! shift x --by NAME                                    the open shift so far
//! shift close --by NAME --counted 10000x1,1000x3 [--approver NAME]   blind: prints the Z
//! shift z [--number N]                                 a Z report (default: the newest)
//! shift status                                         the open shift, or null
//! ```
//! PINs never go on the command line: the first line of stdin is `--by`'s PIN, the
//! second `--approver`'s. `--by` is signed in at the register and stays signed in (the
//! sales that follow are theirs) until `staff sign-out`. A count is
//! `DENOMINATION x PIECES` pairs in minor units.

use clap::Subcommand;
use paydesk_ledger::{Actor, DenominationCount, Error, PaidKind};
use paydesk_register::Engine;

use crate::access::{ledger_fail, read_pin, stdin_lines};
use crate::outcome::fail;

/// Denominations one count may name (every currency has fewer).
const MAX_COUNT_LINES: usize = 32;

#[derive(Subcommand, Debug)]
pub(crate) enum ShiftCmd {
    /// Open a shift on a float counted by denomination.
    Open {
        #[arg(long)]
        by: String,
        /// e.g. 1000x5,100x20 (denomination in minor units x pieces); empty: no float.
        #[arg(long, default_value = "")]
        float: String,
    },
    /// Put cash into the drawer outside a sale.
    PaidIn(PaidArgs),
    /// Take cash out of the drawer outside a sale.
    PaidOut(PaidArgs),
    /// The open shift's X report.
    X {
        #[arg(long)]
        by: String,
    },
    /// Close the open shift on a blind count; prints its Z report.
    Close {
        #[arg(long)]
        by: String,
        #[arg(long, default_value = "")]
        counted: String,
        #[arg(long)]
        approver: Option<String>,
    },
    /// A Z report as written at its close (default: the newest).
    Z {
        #[arg(long)]
        number: Option<i64>,
    },
    /// The open shift, or null.
    Status,
}

#[derive(clap::Args, Debug)]
pub(crate) struct PaidArgs {
    #[arg(long)]
    by: String,
    #[arg(long)]
    amount: i64,
    #[arg(long)]
    reason: String,
    #[arg(long)]
    approver: Option<String>,
}

/// Parses `1000x5,100x20`.
fn parse_count(s: &str) -> Vec<DenominationCount> {
    let s = s.trim();
    if s.is_empty() {
        return Vec::new();
    }
    let parts: Vec<&str> = s.split(',').collect();
    if parts.len() > MAX_COUNT_LINES {
        fail("invalid_input", &format!("a count names at most {MAX_COUNT_LINES} denominations"));
    }
    parts
        .iter()
        .map(|p| {
            let bad = || -> ! { fail("invalid_input", &format!("{p:?}: a count is DENOMINATIONxPIECES, e.g. 1000x5 (minor units)")) };
            let (d, n) = p.trim().split_once(['x', 'X']).unwrap_or_else(|| bad());
            let denomination_minor = d.trim().parse().unwrap_or_else(|_| bad());
            let count = n.trim().parse().unwrap_or_else(|_| bad());
            DenominationCount { denomination_minor, count }
        })
        .collect()
}

/// Signs `by` in at the register with their PIN (the ledger lets only the person signed
/// in act), checks the approver's PIN when one is named, and returns who acts. Every
/// PIN check is audited by the ledger, right or wrong; `by` stays signed in afterwards,
/// so the sales that follow are theirs.
fn actor(engine: &Engine, by: &str, approver: Option<&str>) -> Result<Actor, Error> {
    let input = stdin_lines();
    let mut lines = input.iter();
    let by_pin = read_pin(&mut lines, "the --by member's");
    let approver_pin = approver.map(|_| read_pin(&mut lines, "the --approver's"));
    engine.staff().act_as(by, &by_pin, approver.zip(approver_pin.as_ref()))
}

fn print<T: serde::Serialize>(v: &T) -> i32 {
    out!("{}", serde_json::to_string(v).expect("a shift record serializes"));
    0
}

pub(crate) fn shift(engine: &Engine, cmd: &ShiftCmd) -> i32 {
    let shifts = engine.shifts();
    let done = (|| -> Result<serde_json::Value, Error> {
        Ok(match cmd {
            ShiftCmd::Open { by, float } => {
                let float = parse_count(float);
                let a = actor(engine, by, None)?;
                serde_json::to_value(shifts.open(a, &float)?.shift)?
            }
            ShiftCmd::PaidIn(p) | ShiftCmd::PaidOut(p) => {
                let kind = if matches!(cmd, ShiftCmd::PaidIn(_)) { PaidKind::PaidIn } else { PaidKind::PaidOut };
                let a = actor(engine, &p.by, p.approver.as_deref())?;
                serde_json::to_value(shifts.paid_in_out(a, kind, p.amount, &p.reason)?)?
            }
            ShiftCmd::X { by } => {
                let a = actor(engine, by, None)?;
                serde_json::to_value(shifts.x_report(a)?.report)?
            }
            ShiftCmd::Close { by, counted, approver } => {
                let counted = parse_count(counted);
                let a = actor(engine, by, approver.as_deref())?;
                z_json(&shifts.close(a, &counted)?.report)?
            }
            ShiftCmd::Z { number } => {
                let n = match number {
                    Some(n) => *n,
                    None => shifts.last_z_number()?,
                };
                match shifts.z_report(n)? {
                    Some(z) => z_json(&z.report)?,
                    None => return Err(Error::InvalidInput(format!("there is no Z report {n}"))),
                }
            }
            ShiftCmd::Status => serde_json::to_value(shifts.current()?)?,
        })
    })();
    match done {
        Ok(v) => print(&v),
        Err(e) => ledger_fail(&e),
    }
}

/// A Z report with its audit head as `SEQ:HEX`, the form `audit verify --head` takes.
fn z_json(z: &paydesk_ledger::ZReport) -> Result<serde_json::Value, Error> {
    let mut v = serde_json::to_value(z)?;
    v["audit_head"] = serde_json::json!(format!("{}:{}", z.audit_head.seq, hex::encode(z.audit_head.hash)));
    Ok(v)
}
