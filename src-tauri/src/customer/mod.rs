//! The customer display (issue #30, record 0132): a second window facing the customer
//! that shows the sale on screen in the customer's language: the lines (※ on reduced-rate
//! ones, with the legend), the totals per tax rate, what is left to pay, the tenders taken
//! and the change, "present your card" while a card is awaited on the reader, "thank
//! you" once paid, and a welcome with the store's name while the cart is empty.
//!
//! Here: the view, built from the views the cashier's panels use (`CartView`,
//! `SaleScreen`): the display formats no money and adds no amount of its own, so it
//! cannot say something the cashier's screen does not. It is built from the cart on
//! screen and nothing else: no held cart, no other register's, no staff, no card number.
//! `emit.rs` pushes it to the window on every change; `window.rs` opens the window and
//! keeps the display's own settings (its language, whether it opens at start).

pub mod emit;
pub mod window;

use std::collections::HashMap;

use paydesk_domain::{Locale, TenderKind};
use paydesk_ledger::TenderState;
use paydesk_register::{ReaderOutcome, SaleView};
use serde::Serialize;
use tauri::State;

use crate::error::AppResult;
use crate::i18n::tr;
use crate::state::AppState;
use crate::views::{CartView, SaleScreen};

/// What the display is showing, so the page picks its layout from one field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Nothing in the cart: the store's name and a welcome.
    Welcome,
    /// Items rung up, nothing awaited on the reader.
    Sale,
    /// A card payment waits on the reader for the customer's card.
    PresentCard,
    /// Paid in full.
    ThankYou,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CustomerLine {
    pub name: String,
    pub quantity: i64,
    /// After the line's discount, as the cashier's cart shows it.
    pub amount_display: String,
    /// ※ (ja) or * (en): taxed at the reduced rate in this sale; "" otherwise.
    pub mark: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CustomerRate {
    /// "8%対象" / "Taxed at 8%" (with the ※ mark for the reduced rate).
    pub label: String,
    pub gross_display: String,
    /// "消費税等 ¥44" / "tax ¥44".
    pub tax_label: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CustomerTender {
    /// "Cash", "Card", or a store tender's type name (a gift voucher's name).
    pub label: String,
    /// Cash: the amount handed over; others: the amount the tender paid.
    pub amount_display: String,
    /// A card whose outcome is not known yet: "checking…", never "paid".
    pub note: Option<String>,
}

/// The words the page shows around the figures, in the display's language: the page
/// has no catalog of its own and may call nothing but `customer_view`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Words {
    pub lang: &'static str,
    pub title: String,
    pub welcome: String,
    pub welcome_line: String,
    pub item: String,
    pub qty: String,
    pub amount: String,
    pub discount: String,
    pub total: String,
    pub due: String,
    pub paid: String,
    pub change: String,
}

impl Words {
    fn of(l: Locale) -> Words {
        Words {
            lang: l.code(),
            title: tr!(l, "customer-window-title"),
            welcome: tr!(l, "customer-welcome"),
            welcome_line: tr!(l, "customer-welcome-line"),
            item: tr!(l, "customer-item"),
            qty: tr!(l, "customer-qty"),
            amount: tr!(l, "customer-amount"),
            discount: tr!(l, "customer-discount"),
            total: tr!(l, "customer-total"),
            due: tr!(l, "customer-due"),
            paid: tr!(l, "customer-paid-so-far"),
            change: tr!(l, "customer-change"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CustomerView {
    pub phase: Phase,
    pub store_name: String,
    pub words: Words,
    /// The big line under the figures: "Present your card on the reader", "Thank you".
    pub message: Option<String>,
    pub lines: Vec<CustomerLine>,
    /// The ※ legend, when a line carries the mark.
    pub legend: Option<String>,
    pub rates: Vec<CustomerRate>,
    /// The sale discount (minus sign included), when there is one.
    pub sale_discount_display: Option<String>,
    pub total_display: String,
    /// Still to pay; `None` once nothing is.
    pub due_display: Option<String>,
    pub tenders: Vec<CustomerTender>,
    /// The change of the last cash tender that gave any.
    pub change_display: Option<String>,
}

/// The display's view of the sale on screen: its current state, read once by the page
/// when it loads (later ones arrive as events, `emit.rs`).
#[tauri::command]
pub fn customer_view(state: State<'_, AppState>, display: State<'_, window::Display>) -> AppResult<CustomerView> {
    build(&state, display.language(&state))
}

/// The view of the cart on screen in `lang`.
pub fn build(state: &AppState, lang: Locale) -> AppResult<CustomerView> {
    let engine = state.engine();
    // Only ever the cart on screen: a held cart or an older sale is never read here.
    let sale = engine.carts().sale_now(state.cart_id())?;
    let names = item_names(state, &sale.cart, lang)?;
    let cart = CartView::of(&sale.cart, &|sku| names.get(sku).cloned());
    let v = SaleView::of(&sale);
    let screen = SaleScreen::build(&v, |key| engine.payments().by_key(key).ok().flatten());
    // the card tender the reader is waiting on, if any (the ledger's report: no network)
    let awaiting_card = v
        .tenders
        .iter()
        .filter(|t| t.kind == TenderKind::Card && t.payment_state == Some(paydesk_domain::PaymentState::OnReader))
        .filter_map(|t| t.checkout_key.clone())
        .find(|k| engine.reader_status(k).is_ok_and(|r| r.outcome == ReaderOutcome::WaitingForCard));
    let store_name = engine.store().settings().map(|s| s.name).unwrap_or_default();
    Ok(assemble(&cart, &screen, &v, awaiting_card.as_deref(), store_name, lang))
}

/// Item names in the display's language (a line carries the English name already).
fn item_names(state: &AppState, cart: &paydesk_ledger::Cart, lang: Locale) -> AppResult<HashMap<String, String>> {
    match lang {
        Locale::En => return Ok(HashMap::new()),
        Locale::Ja => {}
    }
    let items = state.engine().catalog().items(cart.lines.iter().map(|l| l.sku.as_str()))?;
    Ok(items.into_iter().filter_map(|(sku, item)| item.map(|i| (sku, i.name_in(lang).to_string()))).collect())
}

/// Whether a tender counts as taken for the customer; a pending card is shown as
/// "checking", a declined or superseded one not at all (it took nothing).
fn shown(s: TenderState) -> Option<bool> {
    match s {
        TenderState::Settled | TenderState::Offline | TenderState::Held => Some(true),
        TenderState::Pending => Some(false),
        TenderState::Void | TenderState::Superseded => None,
    }
}

fn phase(cart: &CartView, screen: &SaleScreen, awaiting_card: bool) -> Phase {
    if screen.complete {
        Phase::ThankYou
    } else if cart.lines.is_empty() || screen.canceled {
        // a canceled sale took nothing; the next customer sees the welcome
        Phase::Welcome
    } else if awaiting_card {
        Phase::PresentCard
    } else {
        Phase::Sale
    }
}

/// The view from the cashier's own views of the sale: figures copied, never computed.
/// `awaiting_card`: the checkout key of a card the reader waits for.
fn assemble(cart: &CartView, screen: &SaleScreen, v: &SaleView, awaiting_card: Option<&str>, store_name: String, l: Locale) -> CustomerView {
    let phase = phase(cart, screen, awaiting_card.is_some());
    let mark = tr!(l, "receipt-reduced-mark");
    let welcome = phase == Phase::Welcome;
    let lines: Vec<CustomerLine> = if welcome {
        Vec::new()
    } else {
        cart.lines
            .iter()
            .map(|c| CustomerLine {
                name: c.name.clone(),
                quantity: c.quantity,
                amount_display: c.net_display.clone(),
                mark: if c.reduced { mark.clone() } else { String::new() },
            })
            .collect()
    };
    let legend = lines.iter().any(|c| !c.mark.is_empty()).then(|| tr!(l, "receipt-reduced-legend"));
    let rates = if welcome {
        Vec::new()
    } else {
        cart.rates
            .iter()
            .map(|r| CustomerRate {
                label: format!("{}{}", if r.reduced { mark.as_str() } else { "" }, tr!(l, "customer-rate", rate = r.rate_label.clone())),
                gross_display: r.gross_display.clone(),
                tax_label: tr!(l, "customer-rate-tax", tax = r.tax_display.clone()),
            })
            .collect()
    };
    let tenders = if welcome {
        Vec::new()
    } else {
        screen
            .tenders
            .iter()
            .zip(&v.tenders)
            // the card on the reader is not a tender yet: the message asks for it
            .filter(|(_, t)| awaiting_card.is_none() || t.checkout_key.as_deref() != awaiting_card)
            .filter_map(|(row, t)| {
                let taken = shown(t.state)?;
                let label = match t.kind {
                    TenderKind::Cash => tr!(l, "customer-tender-cash"),
                    TenderKind::Card => tr!(l, "customer-tender-card"),
                    // the store tender's type name, as on the receipt
                    TenderKind::Store => row.card_label.clone().unwrap_or_default(),
                };
                Some(CustomerTender {
                    label,
                    // cash: what the customer handed over (お預かり), as the receipt says
                    amount_display: row.tendered_display.clone().unwrap_or_else(|| row.amount_display.clone()),
                    note: (!taken).then(|| tr!(l, "customer-tender-checking")),
                })
            })
            .collect()
    };
    let change_display = if welcome {
        None
    } else {
        screen.tenders.iter().rev().find(|t| t.change.is_some_and(|c| c > 0)).and_then(|t| t.change_display.clone())
    };
    let message = match phase {
        Phase::PresentCard => Some(tr!(l, "customer-present-card")),
        Phase::ThankYou => Some(tr!(l, "customer-thank-you")),
        Phase::Welcome | Phase::Sale => None,
    };
    CustomerView {
        phase,
        store_name,
        words: Words::of(l),
        message,
        lines,
        legend,
        rates,
        sale_discount_display: (!welcome && cart.sale_discount > 0).then(|| format!("−{}", cart.sale_discount_display)),
        total_display: if welcome { String::new() } else { screen.total_display.clone() },
        due_display: (!welcome && screen.due > 0).then(|| screen.due_display.clone()),
        tenders,
        change_display,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tender_state_is_shown_taken_checking_or_not_at_all() {
        assert_eq!(shown(TenderState::Settled), Some(true));
        assert_eq!(shown(TenderState::Offline), Some(true));
        assert_eq!(shown(TenderState::Held), Some(true));
        // unsure is never "taken"
        assert_eq!(shown(TenderState::Pending), Some(false));
        // a declined card took nothing: not listed as a tender
        assert_eq!(shown(TenderState::Void), None);
        assert_eq!(shown(TenderState::Superseded), None);
    }

    #[test]
    fn the_words_come_in_the_display_language() {
        assert_eq!(Words::of(Locale::Ja).lang, "ja");
        assert_eq!(tr!(Locale::Ja, "customer-present-card"), "カードを読み取り機にかざしてください");
        assert_eq!(tr!(Locale::En, "customer-present-card"), "Present your card on the reader");
        assert_ne!(Words::of(Locale::Ja).total, Words::of(Locale::En).total);
    }
}
