//! ESC/POS bytes for an Epson-compatible thermal printer, Japanese models included.
//!
//! Written here rather than with the `escpos` crate: that crate selects single-byte code pages
//! only (ESC t) and has no kanji mode (FS &, FS C), which a Japanese receipt needs, and our
//! test printer must know every byte we send. The command set is small and listed below; the
//! test printer (`test_printer`) parses exactly this set and nothing else.

use serde::{Deserialize, Serialize};

use crate::document::Receipt;
use paydesk_domain::Locale;
use crate::layout::{layout, Align, Paper, Row};

pub const ESC: u8 = 0x1B;
pub const GS: u8 = 0x1D;
pub const FS: u8 = 0x1C;
pub const LF: u8 = 0x0A;

/// ESC @: clear the buffer and reset every mode.
pub const INIT: [u8; 2] = [ESC, b'@'];
/// ESC R 8: international character set Japan (0x5C prints as ¥).
pub const CHARSET_JAPAN: [u8; 3] = [ESC, b'R', 8];
/// ESC R 0: international character set USA.
pub const CHARSET_USA: [u8; 3] = [ESC, b'R', 0];
/// ESC t 16: code page WPC1252 for Latin text.
pub const CODEPAGE_1252: [u8; 3] = [ESC, b't', 16];
/// FS C 1: two-byte characters are Shift_JIS.
pub const KANJI_SHIFT_JIS: [u8; 3] = [FS, b'C', 1];
/// FS &: kanji mode on; FS .: off.
pub const KANJI_ON: [u8; 2] = [FS, b'&'];
pub const KANJI_OFF: [u8; 2] = [FS, b'.'];
/// ESC d n: print and feed n lines (so the cut does not slice the footer).
pub const FEED_BEFORE_CUT: [u8; 3] = [ESC, b'd', 4];
/// GS V 66 0: feed to the cutter and cut (partial cut, function B).
pub const CUT: [u8; 4] = [GS, b'V', 66, 0];
/// ESC p 0 25 250: drawer kick on pin 2, 50 ms on, 500 ms off (units of 2 ms).
pub const DRAWER_KICK: [u8; 5] = [ESC, b'p', 0, 25, 250];
/// Barcode height 80 dots (GS h), module width 2 (GS w), its digits printed under it (GS H 2).
pub const BARCODE_SETUP: [u8; 9] = [GS, b'h', 80, GS, b'w', 2, GS, b'H', 2];
/// Most characters a receipt's barcode carries (a receipt number is 6 to 12 digits).
pub const MAX_BARCODE_CHARS: usize = 20;

/// The receipt number as a CODE128 barcode (GS k 73, code set B), centred, so a scanner at
/// Payments → Receipts opens the sale to return from (record 0123). Only printable ASCII
/// (code set B) is encoded, never `{` (its escape); anything else prints no barcode rather
/// than a wrong one.
pub fn barcode_code128(data: &str) -> Vec<u8> {
    if data.is_empty() || data.len() > MAX_BARCODE_CHARS || !data.bytes().all(|b| b.is_ascii_graphic() && b != b'{') {
        return Vec::new();
    }
    let mut out = Vec::with_capacity(20 + data.len());
    out.extend_from_slice(&align(Align::Center));
    out.extend_from_slice(&BARCODE_SETUP);
    out.extend_from_slice(&[GS, b'k', 73, (data.len() + 2) as u8, b'{', b'B']);
    // Printed as it arrives; the feed before the cut moves it clear of the blade.
    out.extend_from_slice(data.as_bytes());
    out
}

pub fn align(a: Align) -> [u8; 3] {
    let n = match a {
        Align::Left => 0,
        Align::Center => 1,
        Align::Right => 2,
    };
    [ESC, b'a', n]
}

/// ESC E n: emphasis (bold).
pub fn bold(on: bool) -> [u8; 3] {
    [ESC, b'E', u8::from(on)]
}

/// GS ! n: 0x11 = double width and height, 0x00 = normal. Applies to kanji too.
pub fn size(double: bool) -> [u8; 3] {
    [GS, b'!', if double { 0x11 } else { 0x00 }]
}

/// What to do after the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct EscPosOptions {
    pub paper: Paper,
    pub cut: bool,
    pub kick_drawer: bool,
}

impl EscPosOptions {
    /// Cut always; open the drawer only as [`Receipt::opens_drawer`] says (first print of a
    /// cash sale).
    pub fn for_receipt(receipt: &Receipt, paper: Paper) -> Self {
        EscPosOptions { paper, cut: true, kick_drawer: receipt.opens_drawer() }
    }
}

/// Encodes text for the printer's character set: Shift_JIS for Japanese (in kanji mode),
/// WPC1252 for English. A character the set lacks prints as "?" (or "〓", the Japanese
/// placeholder, for a full-width one) rather than failing the receipt.
pub fn encode_text(s: &str, language: Locale) -> Vec<u8> {
    let encoding = match language {
        Locale::Ja => encoding_rs::SHIFT_JIS,
        Locale::En => encoding_rs::WINDOWS_1252,
    };
    let mut out = Vec::with_capacity(s.len());
    let mut buf = [0u8; 4];
    for c in s.chars() {
        let (bytes, _, unmappable) = encoding.encode(c.encode_utf8(&mut buf));
        if !unmappable {
            out.extend_from_slice(&bytes);
        } else if language == Locale::Ja && crate::layout::char_width(c, language) == 2 {
            out.extend_from_slice(&encoding.encode("〓").0);
        } else {
            out.push(b'?');
        }
    }
    out
}

/// The receipt as ESC/POS bytes: init, character set (kanji mode for Japanese), each row with
/// its alignment, emphasis and size, then feed, cut and drawer kick as `options` say.
pub fn render_escpos(receipt: &Receipt, options: EscPosOptions) -> Vec<u8> {
    rows_escpos_with(&layout(receipt, options.paper), receipt.language, options, &barcode_code128(&receipt.receipt_no))
}

/// Rows laid out for `options.paper` as ESC/POS bytes (the receipt's and the shift reports').
pub(crate) fn rows_escpos(rows: &[Row], language: Locale, options: EscPosOptions) -> Vec<u8> {
    rows_escpos_with(rows, language, options, &[])
}

/// [`rows_escpos`] with `tail` (a barcode's bytes) after the last row, before the cut.
fn rows_escpos_with(rows: &[Row], language: Locale, options: EscPosOptions, tail: &[u8]) -> Vec<u8> {
    let columns = options.paper.columns();
    let mut out = Vec::with_capacity(2048);
    out.extend_from_slice(&INIT);
    match language {
        Locale::Ja => {
            out.extend_from_slice(&CHARSET_JAPAN);
            out.extend_from_slice(&KANJI_SHIFT_JIS);
            out.extend_from_slice(&KANJI_ON);
        }
        Locale::En => {
            out.extend_from_slice(&CHARSET_USA);
            out.extend_from_slice(&CODEPAGE_1252);
        }
    }
    let (mut cur_align, mut cur_bold, mut cur_double) = (Align::Left, false, false);
    for row in rows {
        // A label/amount pair is padded here; a single text is aligned by the printer.
        let (text, a) = if row.right.is_empty() {
            (row.left.clone(), row.align)
        } else {
            (row.fill(columns, language), Align::Left)
        };
        if a != cur_align {
            out.extend_from_slice(&align(a));
            cur_align = a;
        }
        if row.bold != cur_bold {
            out.extend_from_slice(&bold(row.bold));
            cur_bold = row.bold;
        }
        if row.double != cur_double {
            out.extend_from_slice(&size(row.double));
            cur_double = row.double;
        }
        out.extend_from_slice(&encode_text(&text, language));
        out.push(LF);
    }
    if language == Locale::Ja {
        out.extend_from_slice(&KANJI_OFF);
    }
    out.extend_from_slice(tail);
    out.extend_from_slice(&FEED_BEFORE_CUT);
    if options.cut {
        out.extend_from_slice(&CUT);
    }
    if options.kick_drawer {
        out.extend_from_slice(&DRAWER_KICK);
    }
    out
}
