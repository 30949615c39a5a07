//! The X report (the open shift so far), the close on a blind count that shows its Z
//! report, and any earlier Z report. Each is the ledger's figures built into the printed
//! document by paydesk-receipt's pure `build_drawer_report` and sent with its 80 mm text.

use paydesk_receipt::shift::{build_drawer_report, render_report_text, CloseData, CountLine, DrawerReport, DrawerReportData, PaidKind as RPaid, PaidLine, ReportKind, TakingsLines, TaxRateLine, TenderLine};
use paydesk_domain::Currency as RCurrency;
use paydesk_domain::TenderKind;
use paydesk_receipt::{Paper, MAX_TEXT_CHARS};
use paydesk_access::Action;
use paydesk_ledger::{store_time, Actor, DenominationCount, PaidKind, ShiftReport, StoreSettings, ZReport};
use paydesk_register::Engine;
use serde::Serialize;
use tauri::State;

use super::{actor, count_of, CountInput, StaffNames};
use crate::staff::Approval;
use crate::backoffice::BackOfficeState;
use crate::error::{AppError, AppResult};
use crate::money;
use crate::state::AppState;
use crate::views::DrawerReportKind;

/// Z reports one look-up may name (far above a register's lifetime of closes).
const MAX_Z_NUMBER: i64 = 10_000_000;

#[derive(Debug, Serialize)]
pub struct ReportView {
    pub kind: DrawerReportKind,
    pub z_number: Option<i64>,
    pub report: DrawerReport,
    /// As printed on 80 mm paper (48 columns), in the store's language.
    pub text: Vec<String>,
    pub expected_display: String,
    pub counted_display: Option<String>,
    pub over_short_display: Option<String>,
    /// `SEQ:HEX`, what `paydesk-cli audit verify --checkpoint` takes (Z only).
    pub checkpoint: Option<String>,
}

/// The audit head a Z report recorded, as `SEQ:HEX`.
pub fn checkpoint(z: &ZReport) -> String {
    let hex: String = z.audit_head.hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("{}:{hex}", z.audit_head.seq)
}

fn counts(lines: &[DenominationCount]) -> Vec<CountLine> {
    lines.iter().map(|c| CountLine { denomination: c.denomination_minor, count: c.count }).collect()
}

/// A name or a store name as a report line takes it (cut with "…", never refused).
fn fit(s: &str) -> String {
    if s.chars().count() <= MAX_TEXT_CHARS {
        return s.to_string();
    }
    s.chars().take(MAX_TEXT_CHARS - 1).chain(['…']).collect()
}

/// The ledger's report (and close) with names and the store's local times filled in.
pub fn report_data(
    store: &StoreSettings,
    names: &StaffNames,
    r: &ShiftReport,
    z: Option<&ZReport>,
    register: &str,
    now: i64,
) -> AppResult<DrawerReportData> {
    let language = store.locale;
    let currency = match r.shift.currency {
        paydesk_domain::Currency::Jpy => RCurrency::Jpy,
        paydesk_domain::Currency::Usd => RCurrency::Usd,
        other => return Err(AppError::ReceiptUnavailable(crate::i18n::tr!(crate::i18n::active(), "input-report-currency", currency = other.to_string()))),
    };
    let name = |id: i64| fit(&names.name(id));
    let paid = r
        .paid_in_out
        .iter()
        .map(|p| {
            let kind = match p.kind {
                PaidKind::PaidIn => RPaid::PaidIn,
                PaidKind::PaidOut => RPaid::PaidOut,
            };
            PaidLine { kind, amount: p.amount_minor, reason: p.reason.clone(), by: name(p.staff_id) }
        })
        .collect();
    let tenders = tender_lines(r);
    let close = z.map(|z| CloseData {
            closed_by: name(z.closed_by),
            approved_by: z.approver_id.map(name),
            closed_at: store_time(r.shift.closed_at_ms.unwrap_or(r.at_ms), store),
            counted: counts(&z.counted_counts),
            checkpoint: checkpoint(z),
        });
    Ok(DrawerReportData {
        language,
        currency,
        kind: match z {
            Some(z) => ReportKind::Z { number: z.z_number },
            None => ReportKind::X,
        },
        store_name: fit(&store.name),
        register: fit(register),
        opened_by: name(r.shift.opened_by),
        opened_at: store_time(r.shift.opened_at_ms, store),
        printed_at: store_time(now, store),
        float: counts(&r.shift.float_counts),
        cash_received: r.cash_received_minor,
        change_given: r.change_given_minor,
        cash_cancel_returns: r.cash_cancel_returns_minor,
        cash_refunds: r.cash_refunds_minor,
        paid,
        tenders,
        sales: r.sales,
        takings: r.takings.as_ref().map(|k| TakingsLines {
            card_refunds: k.card_refunds_minor,
            cash_refunds: k.cash_refunds_minor,
            store_refunds: k.store_refunds_minor,
            canceled_sales: k.canceled_sales,
            canceled_amount: k.canceled_minor,
        }),
        close,
        // The sales' tax by rate and the exempt sales (record 0135); none on a Z report
        // written before they were kept.
        tax_rates: r.takings.iter().flat_map(|k| &k.tax_rates).map(|t| TaxRateLine {
            class: t.class,
            ppm: t.ppm,
            base: t.base_minor,
            tax: t.tax_minor,
            gross: t.gross_minor,
            parts: t.parts.clone(),
        }).collect(),
        exempt_sales: r.takings.as_ref().map_or(0, |k| k.exempt_sale_count),
        exempt_amount: r.takings.as_ref().map_or(0, |k| k.exempt_minor),
    })
}

/// The register's name on a report: its name at the back office, once paired.
pub fn register_name(bo: &BackOfficeState) -> String {
    bo.view().register_name.unwrap_or_else(|| "PayDesk".into())
}

pub fn view_of(data: &DrawerReportData) -> AppResult<ReportView> {
    let report = build_drawer_report(data).map_err(|e| AppError::ReceiptUnavailable(e.to_string()))?;
    let code = data.currency;
    let z_number = match data.kind {
        ReportKind::X => None,
        ReportKind::Z { number } => Some(number),
    };
    Ok(ReportView {
        kind: if z_number.is_some() { DrawerReportKind::Z } else { DrawerReportKind::X },
        z_number,
        text: render_report_text(&report, Paper::Mm80),
        expected_display: money::format(report.expected, code),
        counted_display: report.counted.map(|c| money::format(c, code)),
        over_short_display: report.over_short.map(|c| money::format(c, code)),
        checkpoint: data.close.as_ref().map(|c| c.checkpoint.clone()),
        report,
    })
}

/// The open shift's X report (audited: who looked at the expected amount, and when).
pub fn x_data(engine: &Engine, who: Actor, register: &str) -> AppResult<DrawerReportData> {
    let x = engine.shifts().x_report(who)?;
    report_data(&x.store, &x.names, &x.report, None, register, x.at_ms)
}

/// Z report `number` as written at its close.
pub fn z_data(engine: &Engine, number: i64, register: &str) -> AppResult<DrawerReportData> {
    if !(1..=MAX_Z_NUMBER).contains(&number) {
        return Err(AppError::NoZReport(number));
    }
    let z = engine.shifts().z_report(number)?.ok_or(AppError::NoZReport(number))?;
    report_data(&z.store, &z.names, &z.report.report, Some(&z.report), register, z.at_ms)
}

#[tauri::command]
pub fn x_report(state: State<'_, AppState>, bo: State<'_, BackOfficeState>, approval: Option<Approval>) -> AppResult<ReportView> {
    let register = register_name(&bo);
    let who = actor(&state, Action::XReport, approval.as_ref())?;
    let data = x_data(&state.engine(), who, &register)?;
    view_of(&data)
}

/// Closes the open shift on a blind count by denomination (the screen never had the
/// expected amount) and answers with its Z report: expected, counted, over/short.
#[tauri::command]
pub fn shift_close(
    state: State<'_, AppState>,
    bo: State<'_, BackOfficeState>,
    counted: Vec<CountInput>,
    approval: Option<Approval>,
) -> AppResult<ReportView> {
    let counted = count_of(&counted)?;
    let register = register_name(&bo);
    let who = actor(&state, Action::CloseShift, approval.as_ref())?;
    let z = state.engine().shifts().close(who, &counted)?;
    let data = report_data(&z.store, &z.names, &z.report.report, Some(&z.report), &register, z.at_ms)?;
    view_of(&data)
}

/// Z report `number` (the newest when none is given).
#[tauri::command]
pub fn z_report(state: State<'_, AppState>, bo: State<'_, BackOfficeState>, number: Option<i64>) -> AppResult<ReportView> {
    let register = register_name(&bo);
    let engine = state.engine();
    let n = match number {
        Some(n) => n,
        None => engine.shifts().last_z_number()?,
    };
    let data = z_data(&engine, n, &register)?;
    view_of(&data)
}

/// The report's tender lines: cash and card by kind, the store's own tenders one line per
/// tender type with its name (record 0122). A Z report written before the takings kept
/// the types (no `by_store_type`) prints the kind's one line, as it did then.
fn tender_lines(r: &ShiftReport) -> Vec<TenderLine> {
    let by_type = r.takings.as_ref().map(|k| k.by_store_type.as_slice()).unwrap_or_default();
    let mut lines = Vec::new();
    for t in &r.tenders {
        match t.kind {
            TenderKind::Store if !by_type.is_empty() => lines.extend(
                by_type.iter().map(|s| TenderLine { kind: TenderKind::Store, name: Some(fit(&s.name)), count: s.count, amount: s.amount_minor }),
            ),
            TenderKind::Cash | TenderKind::Card | TenderKind::Store => {
                lines.push(TenderLine { kind: t.kind, name: None, count: t.count, amount: t.amount_minor })
            }
        }
    }
    lines
}
