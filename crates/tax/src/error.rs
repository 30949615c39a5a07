//! Why a cart cannot be taxed. Each variant names the line (0-based index) or the amount at
//! fault so the caller can point the cashier at it; nothing is clamped silently.

use serde::Serialize;

use crate::class::TaxClass;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum TaxError {
    #[error("the cart has {lines} lines; at most {max} are allowed")]
    TooManyLines { lines: usize, max: usize },
    #[error("line {line}: quantity {quantity} is not between 1 and {max}")]
    QuantityOutOfRange { line: usize, quantity: u32, max: u32 },
    #[error("line {line}: unit price {price} is not between 0 and {max}")]
    PriceOutOfRange { line: usize, price: i64, max: i64 },
    #[error("line {line}: a discount of {percent_bp} basis points is not between 0 and 10000")]
    LinePercentOutOfRange { line: usize, percent_bp: u32 },
    #[error("line {line}: discount {discount} is negative or larger than the line's {gross}")]
    LineDiscountTooLarge { line: usize, discount: i64, gross: i64 },
    #[error("a sale discount of {percent_bp} basis points is not between 0 and 10000")]
    SalePercentOutOfRange { percent_bp: u32 },
    #[error("sale discount {discount} is negative or larger than the subtotal {subtotal}")]
    SaleDiscountTooLarge { discount: i64, subtotal: i64 },
    #[error("no rate for tax class {class:?} on {date}")]
    NoRate { class: TaxClass, date: String },
    #[error("the rate table is invalid: {reason}")]
    BadRateTable { reason: String },
    #[error("line {line}: {sold} sold, {returned} already returned; {asked} more cannot be returned")]
    ReturnBeyondSold { line: usize, sold: u32, returned: u32, asked: u32 },
    #[error("the sale has {lines} lines; there is no line {line} to return")]
    ReturnUnknownLine { line: usize, lines: usize },
    #[error("line {line} is named twice in one return")]
    ReturnLineTwice { line: usize },
    #[error("earlier returns are given for {given} lines; the sale has {lines}")]
    ReturnLinesMismatch { lines: usize, given: usize },
}
