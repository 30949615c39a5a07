//! A printable HTML page of the receipt (A4 or a browser's print dialog), every text escaped.

use crate::document::Receipt;
use paydesk_domain::Locale;
use crate::layout::{layout, Align, Paper, Row};

/// Escapes the five characters that matter in HTML text and attribute values.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A self-contained page (inline CSS, no scripts) with the same rows as the 80 mm receipt.
pub fn render_html(receipt: &Receipt) -> String {
    let title = format!("{} {}", receipt.store.name, receipt.receipt_no);
    rows_html(&layout(receipt, Paper::Mm80), receipt.language, &title)
}

/// Rows laid out for 80 mm paper as a self-contained page (the receipt's and the shift
/// reports').
pub(crate) fn rows_html(rows: &[Row], language: Locale, title: &str) -> String {
    let lang = language.code();
    let mut body = String::new();
    for row in rows {
        let class = match row.align {
            Align::Left => "l",
            Align::Center => "c",
            Align::Right => "r",
        };
        let mut classes = vec![class];
        if row.bold {
            classes.push("b");
        }
        if row.double {
            classes.push("d");
        }
        body.push_str(&format!(
            "<div class=\"row {}\"><span>{}</span><span>{}</span></div>\n",
            classes.join(" "),
            escape(&row.left),
            escape(&row.right)
        ));
    }
    let title = escape(title);
    format!(
        "<!DOCTYPE html>\n<html lang=\"{lang}\"><head><meta charset=\"utf-8\"><title>{title}</title>\n<style>\n\
         body{{font-family:monospace;width:48ch;margin:1em auto}}\n\
         .row{{display:flex;justify-content:space-between;white-space:pre}}\n\
         .c{{justify-content:center}} .r{{justify-content:flex-end}} .b{{font-weight:bold}} .d{{font-size:200%}}\n\
         @media print{{body{{margin:0}}}}\n</style></head>\n<body>\n{body}</body></html>\n"
    )
}
