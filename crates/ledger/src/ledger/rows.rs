//! Rows to values: the column lists' mappers and the single-row lookups every
//! operation shares (inside a transaction or on a plain connection).

use rusqlite::{Connection, OptionalExtension, Row};

use super::{Cached, PAYMENT_COLS, REFUND_COLS};
use crate::error::{Error, Result};
use paydesk_domain::money::Money;
use paydesk_domain::state::CaptureMethod;
use crate::types::*;

pub(super) fn payment_from_row(r: &Row<'_>) -> rusqlite::Result<Result<Payment>> {
    let currency: String = r.get(4)?;
    let state: String = r.get(5)?;
    let capture: String = r.get(6)?;
    let params: String = r.get(7)?;
    let amount_minor: i64 = r.get(3)?;
    let id = PaymentId(r.get(0)?);
    let idempotency_key: String = r.get(1)?;
    let psp_payment_id: Option<String> = r.get(2)?;
    let cart_id = r.get::<_, Option<i64>>(8)?.map(CartId);
    let offline = r.get::<_, i64>(9)? != 0;
    let created_at_ms = r.get(10)?;
    let first_attempt_at_ms = r.get(11)?;
    let updated_at_ms = r.get(12)?;
    let refunded_minor = r.get(13)?;
    let last_error = r.get(14)?;
    Ok((|| {
        Ok(Payment {
            id,
            idempotency_key,
            psp_payment_id,
            amount: Money::new(amount_minor, currency.parse()?),
            state: state.parse()?,
            capture_method: capture.parse::<CaptureMethod>()?,
            request_params: serde_json::from_str(&params)?,
            cart_id,
            offline,
            created_at_ms,
            first_attempt_at_ms,
            updated_at_ms,
            refunded_minor,
            last_error,
        })
    })())
}

pub(super) fn refund_from_row(r: &Row<'_>) -> rusqlite::Result<Result<Refund>> {
    let currency: String = r.get(4)?;
    let state: String = r.get(5)?;
    let params: String = r.get(8)?;
    let amount_minor: i64 = r.get(3)?;
    let id = RefundId(r.get(0)?);
    let idempotency_key: String = r.get(1)?;
    let payment_id = PaymentId(r.get(2)?);
    let psp_refund_id = r.get(6)?;
    let reason = r.get(7)?;
    let created_at_ms = r.get(9)?;
    let first_attempt_at_ms = r.get(10)?;
    let updated_at_ms = r.get(11)?;
    Ok((|| {
        Ok(Refund {
            id,
            idempotency_key,
            payment_id,
            amount: Money::new(amount_minor, currency.parse()?),
            state: state.parse()?,
            psp_refund_id,
            reason,
            request_params: serde_json::from_str(&params)?,
            created_at_ms,
            first_attempt_at_ms,
            updated_at_ms,
        })
    })())
}

pub(super) fn product_from_row(r: &Row<'_>) -> rusqlite::Result<Result<Product>> {
    let id = ProductId(r.get(0)?);
    let sku: String = r.get(1)?;
    let name: String = r.get(2)?;
    let price_minor: i64 = r.get(3)?;
    let currency: String = r.get(4)?;
    Ok(currency.parse().map(|c| Product { id, sku, name, price: Money::new(price_minor, c) }).map_err(Into::into))
}

pub(super) fn payment_by_id_tx(conn: &Connection, id: PaymentId) -> Result<Payment> {
    let sql = format!("SELECT {PAYMENT_COLS} FROM payments WHERE id = ?1");
    conn.row_cached(&sql, [id.0], payment_from_row)
        .optional()?
        .transpose()?
        .ok_or_else(|| Error::UnknownPayment(id.to_string()))
}

pub(super) fn payment_by_key_tx(conn: &Connection, key: &str) -> Result<Option<Payment>> {
    let sql = format!("SELECT {PAYMENT_COLS} FROM payments WHERE idempotency_key = ?1");
    conn.row_cached(&sql, [key], payment_from_row).optional()?.transpose()
}

pub(super) fn payment_by_psp_tx(conn: &Connection, psp: &str) -> Result<Option<Payment>> {
    let sql = format!("SELECT {PAYMENT_COLS} FROM payments WHERE psp_payment_id = ?1");
    conn.row_cached(&sql, [psp], payment_from_row).optional()?.transpose()
}

pub(crate) fn refund_by_id_tx(conn: &Connection, id: RefundId) -> Result<Refund> {
    let sql = format!("SELECT {REFUND_COLS} FROM refunds WHERE id = ?1");
    conn.row_cached(&sql, [id.0], refund_from_row)
        .optional()?
        .transpose()?
        .ok_or_else(|| Error::UnknownRefund(id.to_string()))
}

pub(super) fn refund_by_psp_tx(conn: &Connection, psp: &str) -> Result<Option<Refund>> {
    let sql = format!("SELECT {REFUND_COLS} FROM refunds WHERE psp_refund_id = ?1");
    conn.row_cached(&sql, [psp], refund_from_row).optional()?.transpose()
}
