//! The Tauri commands: each validates its input, then makes one call into the
//! register engine (or the ledger through it). Business rules live in the engine.

pub mod language;

use paydesk_ledger::CheckoutOptions;
use paydesk_domain::{Money, RefundState};
use paydesk_register::CheckoutOutcome;
use serde::Serialize;
use tauri::State;

use crate::catalog::{self, Item};
use crate::store::cart::CartView;
use crate::config::FAULT_PROFILES;
use crate::error::{AppError, AppResult};
use crate::i18n::{active, id, t, tr};
use crate::money;
use crate::settings::{Settings, SettingsForm};
use crate::ops::{Locks, Operation};
use crate::staff::Approval;
use paydesk_access::Action;
use crate::state::{lock, now_ms, AppState, Applied, StatusView};
use crate::views::{self, AppliedWhen, KeyStorage, OutcomeView, PaymentDetail, PaymentRow, ReportView};

pub(crate) use crate::input::{keyed_test_card, report_start, validate_key, validate_reason};

// ---------------------------------------------------------------- catalog and cart

/// The register's catalog: the store's active items, names in its language.
#[tauri::command]
pub fn get_catalog(state: State<'_, AppState>) -> AppResult<Vec<Item>> {
    let items = state.engine().catalog().list()?;
    Ok(items.iter().filter(|i| i.active).map(|i| Item::of(i, state.lang)).collect())
}

fn cart_view(state: &AppState) -> AppResult<CartView> {
    crate::store::cart::cart_view(state)
}

#[tauri::command]
pub fn get_cart(state: State<'_, AppState>) -> AppResult<CartView> {
    cart_view(&state)
}

/// A scanner (or the cashier) typed a barcode or SKU and pressed Enter.
#[tauri::command]
pub fn scan(state: State<'_, AppState>, code: String) -> AppResult<CartView> {
    let code = catalog::validate_code(&code)?;
    let sku = state.sku_for(&code)?.ok_or_else(|| AppError::UnknownItem(code.clone()))?;
    let id = cart_for_next_item(&state)?;
    let cart = state.engine().carts().add(id, &sku, 1)?;
    crate::store::cart::view_of(&state, &cart)
}

/// The cart an item scanned now goes into (record 0035).
///
/// A sale that is paid or canceled is over: scanning the next customer's first item
/// says "next customer" as plainly as the New sale button, so the next sale begins
/// (refusing it as "cart is locked" told a cashier a paid sale was still open). Never
/// while a charge runs: its outcome belongs to the sale on screen.
///
/// The first item of a sale needs a shift where shifts are required: asked for now,
/// not after the cashier has rung up the sale and typed the cash (record 0069).
pub(crate) fn cart_for_next_item(state: &AppState) -> AppResult<paydesk_ledger::CartId> {
    use paydesk_ledger::SaleState;
    let id = state.cart_id();
    let sale = state.engine().carts().sale(id)?;
    let finished = match sale.state {
        SaleState::Paid | SaleState::Canceled => true,
        SaleState::Open | SaleState::PartiallyPaid | SaleState::UnpaidBalance | SaleState::Canceling => false,
    };
    let id = if finished {
        match state.screen.try_charge_turn() {
            Some(_no_charge_running) => state.new_cart()?,
            None => return Err(AppError::CartLocked),
        }
    } else {
        id
    };
    if finished || sale.cart.lines.is_empty() {
        if state.engine().shifts().needs_opening()? {
            return Err(AppError::NoOpenShift);
        }
    }
    Ok(id)
}

#[tauri::command]
/// Sets a line's quantity (0 removes it). A change that leaves a discount above the
/// cashier's limit on its new base needs a manager (`approval`), as giving it did.
pub fn set_quantity(state: State<'_, AppState>, sku: String, quantity: u32, approval: Option<Approval>) -> AppResult<CartView> {
    let sku = catalog::validate_code(&sku)?;
    if quantity > catalog::MAX_QUANTITY {
        return Err(AppError::InvalidInput(tr!(active(), "input-quantity", max = catalog::MAX_QUANTITY)));
    }
    // A line already in the cart can be changed even if its item was deactivated since.
    let in_cart = cart_view(&state)?.lines.into_iter().find(|l| l.sku.eq_ignore_ascii_case(&sku)).map(|l| l.sku);
    let (sku, id) = match in_cart {
        Some(s) => (s, state.cart_id()),
        None => (state.sku_for(&sku)?.ok_or_else(|| AppError::UnknownItem(sku.clone()))?, cart_for_next_item(&state)?),
    };
    let cart = crate::sale::discount::set_quantity(&state, id, &sku, i64::from(quantity), approval.as_ref())?;
    crate::store::cart::view_of(&state, &cart)
}

/// Empties the cart on screen (only while no payment holds it).
#[tauri::command]
pub fn clear_cart(state: State<'_, AppState>) -> AppResult<CartView> {
    if cart_view(&state)?.locked {
        return Err(AppError::CartLocked);
    }
    state.new_cart()?;
    cart_view(&state)
}

#[tauri::command]
pub fn get_status(state: State<'_, AppState>) -> AppResult<StatusView> {
    state.status()
}

// ---------------------------------------------------------------- checkout

fn outcome(state: &AppState, key: &str) -> AppResult<OutcomeView> {
    let report = state.engine().status_of(key)?;
    outcome_of(state, &report)
}

fn outcome_of(state: &AppState, r: &paydesk_register::CheckoutReport) -> AppResult<OutcomeView> {
    let payment = state
        .engine()
        .payments()
        .by_key_now(&r.checkout_key)?
        .ok_or_else(|| AppError::Internal(tr!(active(), "internal-payment-missing")))?;
    let cart_id = payment.cart_id.unwrap_or_else(|| state.cart_id());
    let cart = crate::store::cart::view_of(state, &state.engine().carts().cart_now(cart_id)?)?;
    Ok(OutcomeView::build(r, &payment, cart))
}

/// The Charge button (and F12). Pressing it again while a payment is open reuses
/// that payment's key: after a decline or a success it shows the same result; while
/// the outcome is unknown it asks the processor again with the same key.
#[tauri::command]
pub async fn charge(state: State<'_, AppState>, payment_method: String, approval: Option<Approval>) -> AppResult<OutcomeView> {
    let pm = keyed_test_card(&state, &payment_method)?;
    let _pass = Operation::sell().run(&state, Locks::Charge).await?;
    let current = state.screen.checkout();
    if let Some(key) = current {
        let r = state.engine().status_of(&key)?;
        if r.outcome == CheckoutOutcome::Pending {
            let r = state.engine().retry_checkout(&key).await?;
            return outcome_of(&state, &r);
        }
        return outcome_of(&state, &r);
    }
    let cart = state.cart_id();
    // The first tender: the discounts on the bases the customer pays on (record 0068).
    crate::sale::discount::check_first_tender(&state, cart, approval.as_ref())?;
    let res = state.engine().charge_cart(cart, CheckoutOptions::card(pm)).await;
    // Even on an error the cart's checkout (if one is open) is the one on screen.
    let key = match &res {
        Ok(r) => Some(r.checkout_key.clone()),
        Err(_) => open_checkout_key(&state, cart),
    };
    state.screen.set_checkout(key.clone());
    match res {
        Ok(r) => outcome_of(&state, &r),
        Err(e) => {
            // An error while the cart's payment is still open (e.g. the PSP became
            // unreachable after an attempt that may have reached it, and offline was
            // refused): the outcome is unknown. The cashier must see that panel ("do
            // not charge again"), not a bare error that invites charging again.
            if let Some(k) = key {
                if let Ok(r) = state.engine().status_of(&k) {
                    if r.outcome == CheckoutOutcome::Pending {
                        return outcome_of(&state, &r);
                    }
                }
            }
            Err(e.into())
        }
    }
}

/// The key of the cart's open checkout, if any (e.g. after a charge that errored).
fn open_checkout_key(state: &AppState, cart: paydesk_ledger::CartId) -> Option<String> {
    state.engine().payments().open_for_cart(cart).ok().flatten().map(|p| p.idempotency_key)
}

/// "Try another card" after a decline: an explicit new payment, so a new key.
/// While the previous outcome is unknown the engine refuses unless a reason is given.
#[tauri::command]
pub async fn try_another_card(
    state: State<'_, AppState>,
    payment_method: String,
    override_reason: Option<String>,
    approval: Option<Approval>,
) -> AppResult<OutcomeView> {
    let pm = keyed_test_card(&state, &payment_method)?;
    let reason = validate_reason(override_reason)?;
    // A reason is sent only to go past an unknown outcome: that is a manager's call.
    let action = if reason.is_some() { Action::OverrideUnknownOutcome } else { Action::Sell };
    let op = Operation::new(action, approval.as_ref()).approval_audited("try_another_card");
    let _pass = op.run(&state, Locks::Charge).await?;
    let mut prev = state.screen.checkout().ok_or(AppError::NoCheckout)?;
    // The engine makes at most one new payment after a given one. If the payment on
    // screen already has a later one that ended (a call that failed after creating it
    // left the screen on the earlier one), continue from that later one: each step moves
    // to a strictly newer payment, so this ends.
    let r = loop {
        match state.engine().new_payment_after(&prev, CheckoutOptions::card(pm.clone()), reason.as_deref()).await {
            Err(paydesk_register::EngineError::LaterPaymentExists { later, .. }) => prev = later,
            other => break other?,
        }
    };
    state.screen.set_checkout(Some(r.checkout_key.clone()));
    outcome_of(&state, &r)
}

/// The result of the checkout on screen (e.g. after a background update).
#[tauri::command]
pub fn current_checkout(state: State<'_, AppState>) -> AppResult<Option<OutcomeView>> {
    let key = state.screen.checkout();
    key.map(|k| outcome(&state, &k)).transpose()
}

/// Next customer: a fresh cart. Refused while the payment on screen has an unknown
/// outcome, unless the cashier gives a reason (kept in the audit log).
#[tauri::command]
pub async fn new_sale(state: State<'_, AppState>, override_reason: Option<String>, approval: Option<Approval>) -> AppResult<CartView> {
    let reason = validate_reason(override_reason)?;
    let _one_at_a_time = state.screen.charge_turn().await;
    let current = state.screen.checkout().or_else(|| open_checkout_key(&state, state.cart_id()));
    if let Some(key) = current {
        let r = state.engine().status_of(&key)?;
        if r.outcome == CheckoutOutcome::Pending {
            let Some(reason) = reason else {
                return Err(paydesk_register::EngineError::PreviousOutcomeUnknown { key, state: r.state }.into());
            };
            let detail = format!("left checkout {key} ({}) for a new sale", r.state);
            // The charge lock is held already: the outcome above is read under it.
            let op = Operation::new(Action::OverrideUnknownOutcome, approval.as_ref());
            op.audited("new_sale_override", detail, Some(reason)).permit(&state)?;
        }
    }
    let cart = cart_view(&state)?;
    if !cart.lines.is_empty() || cart.locked {
        state.new_cart()?;
    } else {
        state.screen.set_checkout(None);
    }
    cart_view(&state)
}

// ---------------------------------------------------------------- payments and refunds

#[tauri::command]
pub fn list_payments(state: State<'_, AppState>) -> AppResult<Vec<PaymentRow>> {
    let payments = state.engine().list_payments(500, 0)?;
    let attempts = state.engine().payments().attempt_counts(&payments)?;
    Ok(payments.iter().zip(attempts).map(|(p, n)| PaymentRow::of(p, n)).collect())
}

#[tauri::command]
pub fn get_payment(state: State<'_, AppState>, id: String) -> AppResult<PaymentDetail> {
    let key = validate_key(&id)?;
    Ok(PaymentDetail::of(&state.engine().payment_view(&key)?))
}

#[derive(Debug, Serialize)]
pub struct RefundResult {
    pub refund_key: String,
    pub state: RefundState,
    pub amount: i64,
    pub message: String,
}

/// Refund all that is left (`amount` null) or an amount typed like "2.50". Each
/// refund gets its own key, committed before the network.
#[tauri::command]
pub async fn refund(
    state: State<'_, AppState>,
    payment_id: String,
    amount: Option<String>,
    approval: Option<Approval>,
) -> AppResult<RefundResult> {
    let key = validate_key(&payment_id)?;
    let minor = match amount.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(text) => {
            let m = Money::parse(text, state.currency).map_err(|_| {
                AppError::InvalidInput(tr!(active(), "input-refund-amount", text = text.chars().take(24).collect::<String>(), example = money::plain(250 * 10i64.pow(money::exponent(state.currency.code()).saturating_sub(2)), state.currency.code())))
            })?;
            if m.amount_minor <= 0 {
                return Err(AppError::InvalidInput(tr!(active(), "input-refund-positive")));
            }
            Some(m.amount_minor)
        }
    };
    // The approver is checked here (PIN, lockout) and again by the ledger's role table
    // in the refund's own transaction, whose audit row names both people.
    let pass = Operation::new(Action::Refund, approval.as_ref()).run(&state, Locks::Engine).await?;
    let granted = &pass.granted;
    let r = state
        .engine()
        .refund_approved(&key, minor, Some("requested_by_customer"), granted.approver_id())
        .await
        .map_err(AppError::from)?;
    let shown = money::format(r.amount, &r.currency);
    let message = match r.state {
        RefundState::Succeeded => tr!(active(), "refund-done", amount = shown),
        RefundState::Failed => tr!(active(), "refund-failed", amount = shown, reason = r.message.clone().unwrap_or_default()),
        RefundState::Pending | RefundState::InFlight => tr!(active(), "refund-sent", amount = shown),
    };
    Ok(RefundResult { refund_key: r.refund_key, state: r.state, amount: r.amount, message })
}

// ---------------------------------------------------------------- end of day

/// Totals since `since` (ms since the epoch), or, without it, since the start of the
/// store's day: midnight in the store's time zone, not the computer's. The per-hour chart's
/// hours are the store's too.
#[tauri::command]
pub fn get_report(state: State<'_, AppState>, since: Option<i64>) -> AppResult<ReportView> {
    let now = now_ms();
    let store = state.engine().store().settings()?;
    let since = report_start(since, now, &store)?;
    // The ledger's takings (the X and Z reports' definitions) and its payment counts.
    let cur = state.currency;
    let paydesk_register::usecases::StoreDay { takings, taken, stats } = state.engine().payments().day(cur, since)?;
    Ok(views::report(views::ReportInput {
        takings: &takings,
        taken: &taken,
        stats,
        since,
        now_ms: now,
        store: &store,
        currency: state.currency.code(),
    }))
}

// ---------------------------------------------------------------- settings

#[derive(Debug, Serialize)]
pub struct SettingsView {
    pub psp_url: String,
    pub psp_url_in_use: String,
    pub psp_key: String,
    pub psp_embedded: bool,
    pub fault_profile: String,
    pub fault_profiles: Vec<&'static str>,
    pub retention_hours: u32,
    pub safety_margin_minutes: u32,
    pub offline_max_amount_display_plain: String,
    pub offline_max_total_display_plain: String,
    /// The store currency the offline money limits are typed in (e.g. "USD").
    pub offline_currency: String,
    pub offline_max_count: u32,
    pub offline_max_age_hours: u32,
    /// Saved settings not in use yet, and why.
    pub waiting: Option<String>,
    /// Where the secret key is kept.
    pub key_storage: KeyStorage,
    /// Why the key is in the file and not a keychain (shown under the key field).
    pub key_storage_note: Option<String>,
}

fn plain(minor: i64, currency: paydesk_domain::Currency) -> String {
    money::plain(minor, currency.code())
}

#[tauri::command]
pub fn get_settings(state: State<'_, AppState>) -> SettingsView {
    let s = lock(&state.settings).clone();
    let live = state.live();
    let cur = state.currency;
    SettingsView {
        psp_url: s.psp_url.clone(),
        psp_url_in_use: live.psp_url.clone(),
        // The key is never sent back in full.
        psp_key: crate::settings::key_hint(&s.psp_key),
        psp_embedded: live.embedded,
        fault_profile: s.fault_profile.clone(),
        fault_profiles: FAULT_PROFILES.to_vec(),
        retention_hours: s.retention_hours,
        safety_margin_minutes: s.safety_margin_minutes,
        offline_max_amount_display_plain: plain(s.offline_max_amount, cur),
        offline_max_total_display_plain: plain(s.offline_max_total, cur),
        offline_currency: cur.code().to_ascii_uppercase(),
        offline_max_count: s.offline_max_count,
        offline_max_age_hours: s.offline_max_age_hours,
        waiting: state.connectivity.waiting(),
        key_storage: if state.secrets.in_keychain() { KeyStorage::Keychain } else { KeyStorage::File },
        key_storage_note: state.secrets.note(),
    }
}

#[derive(Debug, Serialize)]
pub struct SaveResult {
    pub message: String,
    pub applied: AppliedWhen,
}

/// How long saving waits for a checkout or background pass in flight before it
/// leaves the change to the background pass.
const SAVE_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// Validates and stores the settings, then puts them in use at once when that is
/// safe: the engine is rebuilt (new PSP connection, retention, offline limits) only
/// while no checkout, refund or background pass is in flight, and a change of PSP
/// waits until every payment sent to the old one is settled there. Otherwise the
/// background pass applies them later; the reply and the status bar say which.
#[tauri::command]
pub async fn save_settings(state: State<'_, AppState>, settings: SettingsForm, approval: Option<Approval>) -> AppResult<SaveResult> {
    let op = Operation::new(Action::Settings, approval.as_ref()).authorize(&state)?;
    let current = lock(&state.settings).clone();
    let mut form = settings;
    // "…1234" is the masked key we showed: unchanged.
    if form.psp_key.starts_with('…') {
        form.psp_key = current.psp_key.clone();
    }
    let new = Settings::validate(&form, &current, state.currency)?;
    op.audit_approval("settings.json").permit(&state)?;
    new.save(&state.data_dir, &state.secrets)?;
    let profile_changed = new.fault_profile != current.fault_profile;
    *lock(&state.settings) = new.clone();
    if let (Some(psp), true) = (state.embedded(), state.live().embedded) {
        psp.apply_profile(&new.fault_profile);
    }
    let before = state.live();
    let applied = state.apply_settings(SAVE_WAIT).await;
    let profile_note = if profile_changed && before.embedded { t(id!("settings-profile-changed")) } else { String::new() };
    let (message, kind) = match applied {
        Applied::Unchanged => (format!("{}{profile_note}", t(id!("settings-saved"))), AppliedWhen::Unchanged),
        Applied::Now => {
            let live = state.live();
            let psp = if live.psp_url != before.psp_url {
                let to = if live.embedded { t(id!("settings-embedded-psp")) } else { live.psp_url.clone() };
                tr!(active(), "settings-new-psp", psp = to)
            } else {
                String::new()
            };
            (format!("{}{psp}{profile_note}", t(id!("settings-saved-now"))), AppliedWhen::Now)
        }
        Applied::Waiting(reason) => (format!("{}{profile_note}", tr!(active(), "settings-saved-waiting", reason = reason)), AppliedWhen::Waiting),
    };
    Ok(SaveResult { message, applied: kind })
}
