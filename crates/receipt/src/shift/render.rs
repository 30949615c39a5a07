//! The X / Z report as plain text (the screen), ESC/POS (the store's printer) and HTML,
//! through the receipt's renderers. A report is cut and never opens the drawer: counting
//! is done with the drawer open already, and a report is not a sale.

use super::layout::{layout, title};
use super::DrawerReport;
use crate::escpos::{rows_escpos, EscPosOptions};
use crate::html::rows_html;
use crate::layout::Paper;

/// Lines of exactly the paper's columns.
pub fn render_report_text(r: &DrawerReport, paper: Paper) -> Vec<String> {
    layout(r, paper).iter().map(|row| row.fill(paper.columns(), r.data.language)).collect()
}

/// ESC/POS bytes: kanji mode for Japanese, cut, no drawer kick.
pub fn render_report_escpos(r: &DrawerReport, paper: Paper) -> Vec<u8> {
    rows_escpos(&layout(r, paper), r.data.language, EscPosOptions { paper, cut: true, kick_drawer: false })
}

/// A self-contained printable page with the 80 mm rows.
pub fn render_report_html(r: &DrawerReport) -> String {
    rows_html(&layout(r, Paper::Mm80), r.data.language, &format!("{} {}", r.data.store_name, title(r)))
}
