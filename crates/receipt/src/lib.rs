//! The receipt (record 0057–0058): one document built by a pure function from a sale, its
//! renderings (plain text for 58/80 mm paper, ESC/POS bytes with kanji, a printable HTML page)
//! and printing to a thermal printer over TCP (port 9100) or a device file.
//!
//! A Japanese receipt with the store's registration number is a simplified qualified invoice
//! (適格簡易請求書): see [`Receipt::missing_invoice_elements`]. The shift's X and Z reports
//! are printed the same way ([`shift`], record 0069), and so is the ryōshūsho a customer
//! asks for, with its revenue stamp box when the cash part needs one ([`ryoshusho`],
//! record 0112).

mod document;
pub mod escpos;
mod html;
mod labels;
mod layout;
mod printer;
pub mod return_doc;
pub mod ryoshusho;
pub mod shift;
#[cfg(feature = "test-printer")]
pub mod test_printer;
mod text;
mod weighed;

pub use document::{
    brand_name, build_receipt, CardReceipt, LineInput, LocalDateTime, Receipt, ReceiptError, ReceiptLine, ReceiptRate,
    SaleData, StoreInfo, StoreTenderLine, Tender, MAX_TENDERS, MAX_TEXT_CHARS, MAX_TEXT_LINES,
};
pub use escpos::{render_escpos, EscPosOptions};
pub use html::render_html;
pub use labels::{exchange_credit_name, format_money};
pub use layout::{Align, Paper, Row};
pub use printer::{device_path_allowed, send_device_within, PrintError, PrintJob, Printer, PrinterTarget, RAW_PRINT_PORTS};
pub use text::render_text;
pub use weighed::Weighed;
