//! Plain text: the receipt as lines of exactly the paper's columns (for the screen, logs,
//! and a printer that takes text).

use crate::document::Receipt;
use crate::layout::{layout, Paper};

pub fn render_text(receipt: &Receipt, paper: Paper) -> Vec<String> {
    layout(receipt, paper).iter().map(|row| row.fill(paper.columns(), receipt.language)).collect()
}
