//! `paydesk-cli receipt --cart N --format text|html|escpos [--paper 58|80] [--print HOST:PORT]`
//! (record 0058): a paid sale's receipt from the ledger. Without `--print` the rendering
//! goes to stdout (text, HTML, or raw ESC/POS bytes) and nothing is recorded: a view is
//! not paper. With `--print` (escpos only) the bytes go to the printer and the attempt is
//! recorded in `receipt_prints`, then one JSON object {cart_id, print_no, reprint,
//! outcome, target} is printed; every print after a copy that may have come out is marked
//! as a reprint (record 0058: an attempt that reached no printer leaves the next the original).
//! A printer that is off: exit 1 `{"error":{"code":"print_failed","message",
//! "may_have_printed"}}` — the sale is committed already and is not touched.
//! `--ryoshusho --to NAME --for TEXT [--json]`: the sale's ryōshūsho instead (`ryoshusho.rs`);
//! with `--kept`, a new one for what the customer kept after a return (record 0145).

use std::io::Write as _;

use clap::Args;
use paydesk_receipt::{build_receipt, render_html, render_text, Paper, PrintJob, Printer, PrinterTarget};
use paydesk_ledger::{CartId, PrintOutcome};
use paydesk_register::usecases::PrintRecord;
use paydesk_register::Engine;
use serde_json::json;

use crate::outcome::fail;

/// `--ryoshusho`: the description is required (the document refuses an empty one, say
/// so before anything is read); `--print` takes the printer's address as for a receipt.
fn ryoshusho(engine: &Engine, a: &ReceiptArgs, paper: Paper) -> i32 {
    let Some(what_for) = a.what_for.as_deref() else { fail("invalid_input", "--ryoshusho needs --for TEXT (但し書き)") };
    let print = a.print.as_deref().map(|t| t.parse().unwrap_or_else(|e: paydesk_receipt::PrintError| fail("invalid_input", &e.to_string())));
    let args = crate::ryoshusho::RyoshushoArgs { cart: CartId(a.cart), to: &a.to, what_for, paper, json: a.json, print, kept: a.kept };
    crate::ryoshusho::run(engine, &args)
}

#[derive(Args, Debug)]
pub(crate) struct ReceiptArgs {
    #[arg(long)]
    cart: i64,
    /// text | html | escpos
    #[arg(long, default_value = "text")]
    format: String,
    /// Paper width in mm: 58 or 80.
    #[arg(long, default_value_t = 80)]
    paper: u16,
    /// A thermal printer's HOST:PORT (usually port 9100); needs --format escpos.
    #[arg(long)]
    print: Option<String>,
    /// Issue the sale's ryōshūsho (領収書) instead: recorded, one per sale (record 0112).
    #[arg(long)]
    ryoshusho: bool,
    /// The ryōshūsho's addressee (宛名); empty leaves the line for the pen.
    #[arg(long, requires = "ryoshusho", default_value = "")]
    to: String,
    /// The ryōshūsho's description (但し書き), e.g. "お品代として".
    #[arg(long = "for", requires = "ryoshusho")]
    what_for: Option<String>,
    /// With --ryoshusho: one JSON object instead of the document's text.
    #[arg(long, requires = "ryoshusho")]
    json: bool,
    /// With --ryoshusho: a NEW ryōshūsho for what the customer kept after a return, in
    /// place of the one they handed back (record 0145).
    #[arg(long, requires = "ryoshusho")]
    kept: bool,
}

pub(crate) fn run(engine: &Engine, a: &ReceiptArgs) -> i32 {
    let paper = match a.paper {
        58 => Paper::Mm58,
        80 => Paper::Mm80,
        other => fail("invalid_input", &format!("--paper {other}: 58 or 80")),
    };
    if a.ryoshusho {
        return ryoshusho(engine, a, paper);
    }
    if !matches!(a.format.as_str(), "text" | "html" | "escpos") {
        fail("invalid_input", &format!("--format {:?}: text, html or escpos", a.format));
    }
    let target: Option<PrinterTarget> = a.print.as_deref().map(|t| {
        if a.format != "escpos" {
            fail("invalid_input", "--print sends ESC/POS: use --format escpos");
        }
        t.parse().unwrap_or_else(|e: paydesk_receipt::PrintError| fail("invalid_input", &e.to_string()))
    });
    let cart = CartId(a.cart);
    let built = engine.receipts().source(cart).map(|s| build_receipt(&s.data, &s.tax, s.next_print_reprint));
    let receipt = match built {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => fail("invalid_receipt", &e.to_string()),
        Err(paydesk_ledger::Error::InvalidInput(m)) => fail("invalid_input", &m),
        Err(paydesk_ledger::Error::UnknownCart(c)) => fail("unknown_cart", &format!("no sale {c}")),
        Err(e) => fail("ledger", &e.to_string()),
    };
    let Some(target) = target else {
        let mut stdout = std::io::stdout();
        let _ = match a.format.as_str() {
            "text" => writeln!(stdout, "{}", render_text(&receipt, paper).join("\n")),
            "html" => writeln!(stdout, "{}", render_html(&receipt)),
            _ => stdout.write_all(&PrintJob::new(format!("sale-{}", cart.0), receipt, paper).bytes()),
        };
        return 0;
    };
    let job = PrintJob::new(format!("sale-{}", cart.0), receipt, paper);
    let reprint = job.reprint();
    let result = Printer::new(target.clone()).print(&job);
    let (outcome, error) = match &result {
        Ok(()) => (PrintOutcome::Printed, None),
        Err(e) => (PrintOutcome::Failed { may_have_printed: e.may_have_printed() }, Some(e.to_string())),
    };
    let shown = target.to_string();
    let text = job.text();
    let print = PrintRecord { format: "escpos", target: &shown, outcome, error: error.as_deref(), text: Some(&text) };
    let recorded = engine.receipts().record_print(cart, print);
    let rec = recorded.unwrap_or_else(|e| fail("ledger", &e.to_string()));
    debug_assert_eq!(rec.reprint, reprint, "the printed mark and the record agree");
    match result {
        Ok(()) => {
            out!("{}", json!({"cart_id": cart.0, "print_no": rec.print_no, "reprint": rec.reprint, "outcome": rec.outcome, "target": rec.target}));
            0
        }
        Err(e) => {
            let message = format!("{e}; the sale is not affected");
            out!("{}", json!({"error": {"code": "print_failed", "message": message, "may_have_printed": e.may_have_printed(),
                "print_no": rec.print_no}}));
            eprintln!("paydesk-cli: {message}");
            1
        }
    }
}
