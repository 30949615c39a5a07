//! `paydesk-cli receipt --cart N --ryoshusho --to NAME --for TEXT [--json] [--print HOST:PORT]`
//! (issue #29, record 0112): issues the sale's ryōshūsho (領収書), or reprints the one it
//! has. Unlike a receipt view, an issue is always recorded: one per sale, a second issue
//! is a reprint with the first addressee and description, and another addressee is
//! refused (`ryoshusho_differs`). Out: the document's 80 mm text, or with `--json` one
//! object {cart_id, number, reprint, print_count, total, cash, stamp_duty, addressee,
//! description, text}. With `--print` the ESC/POS document goes to the printer (the issue
//! is recorded either way; `printed` says whether it reached it).
//!
//! `--kept` (record 0145): a NEW ryōshūsho for what the customer kept after a return, in
//! place of the one handed back (`<receipt number>-2`, …; `replaces` in the JSON names
//! the old number). Refused: `ryoshusho_reissue_refused` with `why` (none_issued,
//! still_valid, no_return, nothing_kept, kept_not_stated), `refund_in_progress`.

use std::io::Write as _;

use paydesk_ledger::CartId;
use paydesk_receipt::ryoshusho::{render_ryoshusho_escpos, render_ryoshusho_text};
use paydesk_receipt::{Paper, Printer, PrinterTarget};
use paydesk_register::usecases::{RyoshushoAsk, RyoshushoError};
use paydesk_register::Engine;
use serde_json::json;

use crate::outcome::fail;

/// What `receipt --ryoshusho` was given.
pub(crate) struct RyoshushoArgs<'a> {
    pub cart: CartId,
    pub to: &'a str,
    pub what_for: &'a str,
    pub paper: Paper,
    pub json: bool,
    pub print: Option<PrinterTarget>,
    /// A new ryōshūsho for what was kept after a return (record 0145).
    pub kept: bool,
}

/// The error code of a refused issue: one per reason, for scripts to tell them apart.
fn refused(e: RyoshushoError) -> ! {
    use paydesk_ledger::Error as L;
    match e {
        RyoshushoError::Document(d) => fail("invalid_input", &d.to_string()),
        RyoshushoError::Ledger(l @ L::RyoshushoDiffers { .. }) => fail("ryoshusho_differs", &l.to_string()),
        RyoshushoError::Ledger(l @ L::RyoshushoUnpaid { .. }) => fail("not_paid", &l.to_string()),
        RyoshushoError::Ledger(l @ L::RyoshushoTakenBack { .. }) => fail("ryoshusho_taken_back", &l.to_string()),
        RyoshushoError::Ledger(L::RyoshushoReissueRefused { cart_id, why }) => {
            let message = L::RyoshushoReissueRefused { cart_id, why: why.clone() }.to_string();
            crate::outcome::fail_with("ryoshusho_reissue_refused", &message, json!({ "why": reissue_why(&why) }))
        }
        RyoshushoError::Ledger(l @ L::RefundInProgress { .. }) => fail("refund_in_progress", &l.to_string()),
        RyoshushoError::Ledger(L::UnknownCart(c)) => fail("unknown_cart", &format!("no sale {c}")),
        RyoshushoError::Ledger(L::InvalidInput(m)) => fail("invalid_input", &m),
        RyoshushoError::Ledger(other) => fail("ledger", &other.to_string()),
    }
}

/// The refusal's reason as scripts read it.
fn reissue_why(why: &paydesk_ledger::ReissueRefusal) -> &'static str {
    use paydesk_ledger::ReissueRefusal as R;
    match why {
        R::NoneIssued => "none_issued",
        R::StillValid { .. } => "still_valid",
        R::NoReturn => "no_return",
        R::NothingKept => "nothing_kept",
        R::KeptNotStated { .. } => "kept_not_stated",
    }
}

pub(crate) fn run(engine: &Engine, a: &RyoshushoArgs<'_>) -> i32 {
    let ask = RyoshushoAsk { addressee: a.to, description: a.what_for, issued_by: None };
    let issued = if a.kept { engine.receipts().reissue_ryoshusho(a.cart, ask) } else { engine.receipts().issue_ryoshusho(a.cart, ask) };
    let issued = issued.unwrap_or_else(|e| refused(e));
    let doc = &issued.document;
    let text = render_ryoshusho_text(doc, a.paper);
    // Printed after the issue is recorded: a printer that is off loses no record, and
    // the next issue is a reprint of the same document.
    let printed = a.print.as_ref().map(|t| Printer::new(t.clone()).send(&render_ryoshusho_escpos(doc, a.paper)));
    if a.json {
        let r = &issued.record;
        out!("{}", json!({
            "cart_id": a.cart.0, "number": r.number, "reprint": issued.reprint, "print_count": r.print_count,
            "total": r.total_minor, "cash": r.cash_minor, "stamp_duty": doc.stamp.map(|s| s.duty_minor),
            "addressee": r.addressee, "description": r.description, "text": text, "replaces": r.replaces,
            "printed": printed.as_ref().map(Result::is_ok),
        }));
    } else {
        let _ = writeln!(std::io::stdout(), "{}", text.join("\n"));
    }
    match printed {
        Some(Err(e)) => {
            eprintln!("paydesk-cli: {e}; the ryōshūsho {} is recorded, issue it again to reprint", issued.record.number);
            1
        }
        Some(Ok(())) | None => 0,
    }
}
