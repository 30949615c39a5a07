//! PayDesk, the cashier's desktop app: thin Tauri commands and events over the
//! register engine (record 0001, 0021).
//!
//! Shape follows Tauri's examples/api: [`run`] is the binary's entry point and
//! [`app_builder`] wires commands, state and event forwarding into any
//! `tauri::Builder<R>`, so the same wiring runs in the real window (Wry) and in
//! `tauri::test::mock_builder()` command tests.

pub mod about;
pub mod base;
pub mod backoffice;
pub mod backups;
pub mod checkout;
pub mod config;
pub mod contract;
pub mod customer;
pub mod error;
pub mod i18n;
pub mod input;
pub mod language;
#[cfg(test)]
mod i18n_coverage;
#[cfg(test)]
mod layers;
pub mod money;
pub mod pin_locks;
pub mod ops;
pub mod payments;
pub mod reader;
pub mod register_settings;
pub mod report;
pub mod sale;
pub mod secrets;
pub mod settings_file;
pub mod settings_offline;
pub mod shift;
pub mod sign_in;
pub mod staff;
pub mod staff_admin;
pub mod state;
pub mod status;
pub mod store;
pub mod views;
pub mod window_size;
pub mod wording;

use std::time::Duration;

use tauri::{AppHandle, Emitter, Manager, Runtime};

pub use config::{FaultProfile, Options};
pub use state::AppState;

/// Tauri events the UI listens to.
pub mod events {
    /// [`crate::views::ProgressView`]: one line of live progress of a checkout.
    pub const CHECKOUT_PROGRESS: &str = "checkout-progress";
    /// [`crate::state::StatusView`]: PSP online/offline, waiting to be forwarded, last sync.
    pub const STATUS: &str = "status";
    /// [`crate::views::PaymentUpdate`]: a payment changed in the background.
    pub const PAYMENT_UPDATED: &str = "payment-updated";
    /// A message: settings saved earlier (while something was in flight) are now in use.
    pub const SETTINGS_APPLIED: &str = "settings-applied";
}

/// How often the background pass (recovery, forwarding, events) runs.
pub const BACKGROUND_INTERVAL: Duration = Duration::from_secs(2);

/// Adds PayDesk's commands, state and engine-event forwarding to `builder`.
pub fn app_builder<R: Runtime>(builder: tauri::Builder<R>, opts: Options) -> tauri::Builder<R> {
    builder
        .register_uri_scheme_protocol(store::page::SCHEME, store::page::serve)
        // One check in front of every command: a session once the store has staff, and
        // the idle lock (staff/guard.rs).
        .invoke_handler(staff::guard::guarded(tauri::generate_handler![
            store::catalog::get_catalog,
            store::search::search_items,
            store::search::get_categories,
            store::lines::get_cart,
            store::lines::scan,
            store::lines::add_weighed,
            store::lines::set_quantity,
            store::lines::clear_cart,
            store::open_price::department_keys,
            store::open_price::add_open_price,
            store::open_price::set_line_quantity,
            status::get_status,
            checkout::charge::charge,
            checkout::charge::try_another_card,
            checkout::current_checkout,
            checkout::new_sale::new_sale,
            payments::list_payments,
            payments::get_payment,
            payments::refund::refund,
            report::get_report,
            sale::day::get_sale,
            sale::cash::pay_cash,
            sale::store_tender::list_tender_types,
            sale::store_tender::pay_store_tender,
            store::tender_types::list_all_tender_types,
            store::tender_types::add_tender_type,
            store::tender_types::set_tender_type_active,
            sale::card::pay_card,
            sale::cancel::cancel_sale,
            sale::held::hold_sale,
            sale::held::held_sales,
            sale::held::recall_sale,
            sale::held::discard_held,
            sale::day::get_tender_day,
            store::cart::set_dining,
            store::cart::set_line_discount,
            store::cart::set_sale_discount,
            store::exempt::set_tax_exempt,
            store::receipt::get_receipt,
            store::sales::list_sales,
            store::page::open_receipt_page,
            store::print::print_receipt,
            store::ryoshusho::issue_ryoshusho,
            store::print::save_printer,
            store::catalog::list_catalog,
            store::catalog::save_item,
            store::catalog::import_catalog,
            store::catalog::export_catalog,
            store::settings::get_store,
            store::settings::save_store,
            store::counter_rules::get_counter_rules,
            store::counter_rules::save_counter_rules,
            store::counter_rules::reset_label_rules,
            shift::open::shift_status,
            shift::open::shift_open,
            shift::cash::paid_in,
            shift::cash::paid_out,
            shift::report::x_report,
            shift::report::shift_close,
            shift::report::z_report,
            shift::print::print_shift_report,
            shift::audit::audit_verify,
            shift::audit::audit_page,
            sale::refund::refund_sale,
            sale::returns::return_form,
            sale::returns::return_lines,
            sale::restored_returns::find_restored_receipt,
            sale::restored_returns::restored_return_form,
            sale::restored_returns::return_restored_lines,
            sale::restored_exchange::exchange_restored_lines,
            sale::exchange::exchange_target,
            sale::exchange::exchange_lines,
            store::sales::find_receipt,
            store::sales::find_receipt_candidates,
            store::return_print::print_return,
            store::return_print::print_restored_return,
            register_settings::get_settings,
            register_settings::save::save_settings,
            about::about,
            backups::get_copy_settings,
            backups::set_backup_send,
            backups::key::backup_key,
            language::get_messages,
            language::set_language,
            backoffice::get_backoffice,
            backoffice::pair_backoffice,
            backoffice::restore::restore_backoffice,
            backoffice::restore::restored_history,
            sign_in::whoami,
            sign_in::staff_list,
            sign_in::sign_in,
            sign_in::sign_out,
            sign_in::change_pin,
            sign_in::create_owner,
            staff_admin::staff_admin_list,
            staff_admin::staff_add,
            staff_admin::staff_set_role,
            staff_admin::staff_reset_pin,
            staff_admin::staff_retire,
            shift::no_sale::open_drawer_no_sale,
            reader::setup::reader_list,
            reader::setup::reader_register,
            reader::charge::reader_charge,
            reader::charge::reader_try_again,
            reader::status::reader_check,
            reader::cancel::reader_cancel,
            reader::cancel::reader_abandon,
            reader::simulate::reader_simulate,
            reader::simulate::reader_arm_fault,
            customer::customer_view,
            customer::window::open_customer_display,
            customer::window::customer_display_settings,
            customer::window::save_customer_display,
        ]))
        .setup(move |app| {
            let data_dir = match &opts.data_dir {
                Some(d) => d.clone(),
                None => app.path().app_data_dir()?,
            };
            if let Some(w) = app.get_webview_window("main") {
                // Not fatal: a window a bit too large is still a register.
                if let Err(e) = window_size::fit_to_screen(&w) {
                    eprintln!("paydesk: could not fit the window to the screen: {e}");
                }
            }
            let state = tauri::async_runtime::block_on(AppState::start(data_dir.clone(), &opts))?;
            let secrets = state.stored.secrets.clone();
            app.manage(state);
            app.manage(staff::guard::Idle::default());
            app.manage(backups::CopyStatus::default());
            app.manage(customer::window::Display::load(&data_dir));
            backoffice::start(app.handle(), data_dir, secrets);
            let handle = app.handle().clone();
            tauri::async_runtime::spawn(forward_notifications(handle.clone()));
            tauri::async_runtime::spawn(backups::run(handle.clone()));
            tauri::async_runtime::spawn(customer::emit::run(handle.clone()));
            customer::window::open_at_start(&handle);
            tauri::async_runtime::spawn(background(handle));
            Ok(())
        })
}

/// Engine notifications → Tauri events, as they happen. When settings replace the
/// engine, the forwarder follows the new one.
async fn forward_notifications<R: Runtime>(app: AppHandle<R>) {
    let state = app.state::<AppState>();
    let mut lives = state.watch_live();
    loop {
        let mut rx = lives.borrow_and_update().engine.subscribe();
        loop {
            let n = tokio::select! {
                n = rx.recv() => n,
                changed = lives.changed() => {
                    if changed.is_err() {
                        return;
                    }
                    break;
                }
            };
            let n = match n {
                Ok(n) => n,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
            };
            forward_one(&app, &state, &n);
        }
    }
}

fn forward_one<R: Runtime>(app: &AppHandle<R>, state: &AppState, n: &paydesk_register::Notification) {
    // a payment moved in the background: the customer display looks again (record 0132)
    state.screen.changed();
    match views::forward(n, base::now_ms()) {
        views::Forward::Progress(p) => {
            // Only the cart on screen: background passes over other payments
            // are not this customer's progress.
            let cart = state.cart_id();
            let on_screen = state
                .engine()
                .payments()
                .by_key_now(&p.key)
                .ok()
                .flatten()
                .is_some_and(|pay| pay.cart_id == Some(cart));
            if on_screen {
                let _ = app.emit(events::CHECKOUT_PROGRESS, p);
            }
        }
        views::Forward::Update(u) => {
            let _ = app.emit(events::PAYMENT_UPDATED, u);
            emit_status(app);
        }
        views::Forward::Connectivity(online) => {
            state.connectivity.set_online(online);
            emit_status(app);
        }
        views::Forward::Nothing => {}
    }
}

fn emit_status<R: Runtime>(app: &AppHandle<R>) {
    if let Ok(st) = app.state::<AppState>().status() {
        let _ = app.emit(events::STATUS, st);
    }
}

/// record 0009–0011 without a cashier: resolve in-flight payments, forward the
/// offline queue, consume PSP events; also tracks whether the PSP answers, and puts
/// saved settings in use once that is safe.
async fn background<R: Runtime>(app: AppHandle<R>) {
    let state = app.state::<AppState>();
    loop {
        let waiting_before = state.status().ok().and_then(|s| s.settings_waiting);
        if state.apply_settings(Duration::ZERO).await == state::Applied::Now {
            let _ = app.emit(events::SETTINGS_APPLIED, i18n::t(i18n::id!("settings-now-in-use")));
        }
        let before = state.status().ok().map(|s| (s.pending_forward, s.in_flight));
        let changed = {
            // a pass never overlaps an engine swap
            let _pass = state.engines.no_swap().await;
            let engine = state.engine();
            if let Err(e) = engine.recover().await {
                eprintln!("paydesk: recovery pass: {e}");
            }
            // An answer that refuses the register (401, 404, not a PSP) proves the PSP
            // is reachable: "offline" would send the cashier after the network cable.
            let polled = engine.consume_events().await;
            let refusing = match &polled {
                Err(paydesk_register::EngineError::PspConfig(why)) => Some(why.clone()),
                _ => None,
            };
            let online = polled.is_ok() || refusing.is_some();
            let refusing_changed = state.connectivity.set_psp_refusing(refusing);
            state.connectivity.set_online(online) || refusing_changed || online
        };
        let after = state.status().ok();
        let waiting_after = after.as_ref().and_then(|s| s.settings_waiting.clone());
        if changed || before != after.map(|s| (s.pending_forward, s.in_flight)) || waiting_before != waiting_after {
            emit_status(&app);
        }
        tokio::time::sleep(BACKGROUND_INTERVAL).await;
    }
}

/// The app's context (config, embedded `ui/`, capabilities), for any runtime.
pub fn context<R: Runtime>() -> tauri::Context<R> {
    tauri::generate_context!()
}

/// The binary's entry point. Returns the process exit code.
pub fn run() -> i32 {
    let opts = match config::Options::from_env_and_args() {
        Ok(o) => o,
        Err(code) => return code,
    };
    if let Err(msg) = config::check_display() {
        eprintln!("{msg}");
        return 2;
    }
    let result = app_builder(tauri::Builder::default(), opts).run(context());
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("PayDesk could not start: {e}");
            1
        }
    }
}
