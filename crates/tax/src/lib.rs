//! Consumption tax for a store in Japan (record 0056) and sales tax for one in the US (record
//! 0131: rates in parts per million, several named taxes stacked in one class): tax classes whose rates are data, eat-in
//! and take-out, tax per rate on that rate's total with the store's rounding rule, prices
//! tax-inclusive or tax-exclusive, discounts per line and per sale, weighed lines' amounts
//! (record 0134), and the identifiers a
//! receipt carries (JAN/EAN barcodes, the qualified-invoice registration number).
//!
//! Everything here is pure: no I/O, no clock, no floating point. Money is `i64` minor units
//! (yen have none, so 1 = ¥1; cents for USD); products are taken in `i128` so no limit-sized
//! input can overflow.
//!
//! The entry point is [`compute`]: a [`Cart`] and the store's [`TaxSettings`] in, a
//! [`SaleTax`] (per-rate taxable total and tax, sale total) out. A return of some of a sale's
//! lines is valued by [`return_tax`] from the same cart and settings (record 0113).

mod allocate;
mod class;
mod codes;
mod compute;
mod error;
mod gtin;
mod rates;
mod returns;
mod weight;

pub use allocate::allocate_proportionally;
pub use class::{Dining, TaxClass};
pub use codes::{ean_check_digit, CodeError, RegistrationNumber};
pub use compute::{compute, Cart, Discount, Line, LineResult, RateResult, SaleTax, TaxPart, MAX_LINES,
    MAX_QUANTITY, MAX_UNIT_PRICE};
pub use error::TaxError;
pub use gtin::{default_in_store_rules, read_in_store, Embedded, Gtin13, InStoreLabel, InStoreRule};
pub use returns::{return_tax, RateReturn, ReturnTax, Returned, ReturnedLine};
pub use weight::{kilograms_text, weighed_amount, SaleUnit, WeightError, MAX_GRAMS, MIN_GRAMS};
pub use rates::{percent_text, round_div, AppliedRate, PriceMode, RateEntry, RateTable, Rounding, TaxSettings,
    YearMonthDay, BASIS_POINTS_100_PERCENT, MAX_RATE_NAME_CHARS, PPM_100_PERCENT};
