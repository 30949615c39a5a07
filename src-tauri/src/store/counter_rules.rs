//! Settings → Counter rules (issue #30, record 0136): the store's in-store label rules (which
//! GS1 prefixes its scale or label printer uses, how many digits name the item, price or
//! weight), the open-price limit above which a typed price needs a manager, and whether the
//! store takes tax-exempt sales. Store settings: [`Action::Settings`] checked HERE (the
//! screen hiding nothing is fine, a cashier's call is refused or asks for the owner) and the
//! values checked again by the ledger, which audits each change. The scan path's cached
//! rules are replaced as soon as new ones are stored.

use paydesk_access::Action;
use paydesk_domain::Money;
use paydesk_tax::{Embedded, InStoreRule};
use serde::{Deserialize, Serialize};
use tauri::State;

use crate::error::{AppError, AppResult};
use crate::i18n::{active, tr};
use crate::money;
use crate::ops::Operation;
use crate::staff::Approval;
use crate::state::AppState;

/// One label rule as the screen shows and sends it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleRow {
    /// Two digits: 02 or 20 to 29.
    pub prefix: String,
    pub item_digits: u8,
    /// price | grams
    pub value: String,
}

#[derive(Debug, Serialize)]
pub struct CounterRulesView {
    pub rules: Vec<RuleRow>,
    /// False: the built-in rules, the store set none.
    pub own: bool,
    /// As the owner types it back ("10000", "250.00").
    pub open_price_limit: String,
    /// The same, formatted ("¥10,000").
    pub open_price_limit_display: String,
    pub currency: String,
    pub tax_exemptions: bool,
    /// The store follows its locale's default for exemptions.
    pub tax_exemptions_default: bool,
}

/// The section as typed: the whole list of rules, the limit and the switch.
#[derive(Debug, Clone, Deserialize)]
pub struct CounterRulesForm {
    pub rules: Vec<RuleRow>,
    pub open_price_limit: String,
    pub tax_exemptions: bool,
}

/// More rows than this is a tampered call (the ledger keeps at most 10).
const MAX_ROWS: usize = 64;
/// The longest limit typed ("99999999.99").
const MAX_LIMIT_CHARS: usize = 16;

fn row(r: &InStoreRule) -> RuleRow {
    let value = match r.value {
        Embedded::Price => "price",
        Embedded::WeightGrams => "grams",
    };
    RuleRow { prefix: r.prefix.clone(), item_digits: r.item_digits, value: value.into() }
}

fn rule(r: &RuleRow) -> AppResult<InStoreRule> {
    let value = match r.value.as_str() {
        "price" => Embedded::Price,
        "grams" => Embedded::WeightGrams,
        // Picked from a list: anything else is a tampered call.
        other => return Err(AppError::InvalidInput(tr!(active(), "input-label-rule-value", value = other.chars().take(16).collect::<String>()))),
    };
    // Two characters at most are kept; the ledger names a bad prefix by what it was sent.
    Ok(InStoreRule { prefix: r.prefix.trim().chars().take(8).collect(), item_digits: r.item_digits, value })
}

fn view(state: &AppState) -> AppResult<CounterRulesView> {
    let r = state.engine().counter_rules().get()?;
    Ok(CounterRulesView {
        rules: r.labels.rules.iter().map(row).collect(),
        own: r.labels.own,
        open_price_limit: money::plain(r.open_price_limit, r.currency),
        open_price_limit_display: money::format(r.open_price_limit, r.currency),
        currency: r.currency.code().to_ascii_uppercase(),
        tax_exemptions: r.tax_exemptions,
        tax_exemptions_default: r.tax_exemptions_setting.is_none(),
    })
}

#[tauri::command]
pub fn get_counter_rules(state: State<'_, AppState>) -> AppResult<CounterRulesView> {
    view(&state)
}

/// Saves the section in one transaction: each of the three is written only when it changed (an untouched
/// switch leaves the store on its locale's default; untouched default rules stay the
/// defaults). The owner, or anyone with the owner's approval.
#[tauri::command]
pub fn save_counter_rules(state: State<'_, AppState>, form: CounterRulesForm, approval: Option<Approval>) -> AppResult<CounterRulesView> {
    let op = Operation::new(Action::Settings, approval.as_ref()).authorize(&state)?;
    if form.rules.len() > MAX_ROWS {
        return Err(AppError::InvalidInput(tr!(active(), "input-label-rule-many", max = paydesk_ledger::MAX_LABEL_RULES)));
    }
    let rules = form.rules.iter().map(rule).collect::<AppResult<Vec<_>>>()?;
    paydesk_ledger::check_label_rules(&rules)?;
    let engine = state.engine();
    let now = engine.counter_rules().get()?;
    let limit_text = form.open_price_limit.trim();
    if limit_text.chars().count() > MAX_LIMIT_CHARS || limit_text.starts_with('-') {
        return Err(AppError::InvalidInput(tr!(active(), "input-open-price-limit", currency = now.currency.code().to_ascii_uppercase())));
    }
    let limit = Money::parse(limit_text, now.currency)
        .map_err(|_| AppError::InvalidInput(tr!(active(), "input-open-price-limit", currency = now.currency.code().to_ascii_uppercase())))?;
    // Checked before the approval is recorded: nothing is approved that cannot be stored.
    if !(1..=paydesk_ledger::MAX_OPEN_PRICE_LIMIT).contains(&limit.amount_minor) {
        return Err(AppError::InvalidInput(tr!(active(), "input-open-price-limit", currency = now.currency.code().to_ascii_uppercase())));
    }
    let granted = op.audit_approval("counter_rules").permit(&state)?;
    // Unchanged rules are not written: saving the built-in list keeps the store on the
    // defaults. One transaction: a failure saves none of the three (record 0136).
    let change = paydesk_ledger::CounterRulesChange {
        label_rules: (rules != now.labels.rules).then_some(Some(rules.as_slice())),
        open_price_limit_minor: Some(limit.amount_minor),
        tax_exemptions: (form.tax_exemptions != now.tax_exemptions).then_some(Some(form.tax_exemptions)),
    };
    let stored = engine.counter_rules().save(change, granted.actor_id(), granted.approver_id())?;
    state.barcodes.set(stored.rules);
    view(&state)
}

/// Back to the built-in label rules (02 price, 21 weight). Same gate as saving.
#[tauri::command]
pub fn reset_label_rules(state: State<'_, AppState>, approval: Option<Approval>) -> AppResult<CounterRulesView> {
    let granted = Operation::new(Action::Settings, approval.as_ref()).approval_audited("counter_rules").permit(&state)?;
    let stored = state.engine().counter_rules().set_label_rules(None, granted.actor_id())?;
    state.barcodes.set(stored.rules);
    view(&state)
}
