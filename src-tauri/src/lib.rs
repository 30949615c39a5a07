//! PayDesk, the cashier's desktop app: thin Tauri commands and events over the
//! register engine (SPEC §2, §6).
//!
//! Shape follows Tauri's examples/api: [`run`] is the binary's entry point and
//! [`app_builder`] wires commands, state and event forwarding into any
//! `tauri::Builder<R>`, so the same wiring runs in the real window (Wry) and in
//! `tauri::test::mock_builder()` command tests.

pub mod catalog;
pub mod commands;
pub mod config;
pub mod error;
pub mod money;
pub mod state;

use tauri::{Manager, Runtime};

pub use config::Options;
pub use state::AppState;

/// Adds PayDesk's commands, state and engine-event forwarding to `builder`.
pub fn app_builder<R: Runtime>(builder: tauri::Builder<R>, opts: Options) -> tauri::Builder<R> {
    builder
        .invoke_handler(tauri::generate_handler![
            commands::get_catalog,
            commands::get_cart,
            commands::scan,
            commands::set_quantity,
            commands::clear_cart,
            commands::get_status,
        ])
        .setup(move |app| {
            let data_dir = match &opts.data_dir {
                Some(d) => d.clone(),
                None => app.path().app_data_dir()?,
            };
            let state = AppState::start(data_dir, &opts)?;
            app.manage(state);
            Ok(())
        })
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

/// The app's context (config, embedded `ui/`, capabilities), for any runtime.
pub fn context<R: Runtime>() -> tauri::Context<R> {
    tauri::generate_context!()
}
