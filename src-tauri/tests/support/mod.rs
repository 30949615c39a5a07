//! The app on Tauri's mock runtime for command tests: the real wiring (`app_builder`),
//! the real config and capabilities (`generate_context!`), and one call helper.

use serde_json::Value;
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{get_ipc_response, INVOKE_KEY};
use tauri::webview::InvokeRequest;
use tauri::Manager;

pub type App = tauri::App<tauri::test::MockRuntime>;
pub type Window = tauri::WebviewWindow<tauri::test::MockRuntime>;

/// The app over data folder `dir` with `opts`, the demo owner signed in and a shift open.
pub fn app_with(dir: &std::path::Path, opts: paydesk_app::Options) -> (App, Window) {
    let (app, w) = app_signed_out(dir, opts);
    owner_with_shift(dir, &w);
    (app, w)
}

/// The app over data folder `dir` with `opts` (its data dir and "none" faults set here)
/// as it starts: nobody signed in (record 0068).
pub fn app_signed_out(dir: &std::path::Path, opts: paydesk_app::Options) -> (App, Window) {
    let opts = paydesk_app::Options { data_dir: Some(dir.to_path_buf()), fault_profile: paydesk_app::FaultProfile::NoFaults, ..opts };
    let mut app = paydesk_app::app_builder(tauri::test::mock_builder(), opts)
        .build(paydesk_app::context())
        .expect("build app");
    // Runs setup once: the config's "main" window is created and the state managed.
    #[allow(deprecated)]
    app.run_iteration(|_, _| {});
    let w = app.get_webview_window("main").expect("the main window from tauri.conf.json");
    (app, w)
}

/// The demo owner signed in (through the command, as the sign-in screen does) and a
/// shift open (through the ledger, as the shift screen does): what a test that sells
/// needs once the store has staff (record 0068). A store without staff is left alone.
pub fn owner_with_shift(dir: &std::path::Path, w: &Window) {
    let staff = call(w, "staff_list", serde_json::json!({})).expect("staff_list");
    let Some(owner) = staff.as_array().unwrap().iter().find(|s| s["role"] == "owner") else { return };
    let name = owner["name"].as_str().unwrap();
    call(w, "sign_in", serde_json::json!({ "name": name, "pin": OWNER_PIN })).expect("the owner signs in");
    let mut l = paydesk_ledger::Ledger::open(dir.join("ledger.db")).unwrap();
    if l.shifts().current().unwrap().is_none() {
        let me = l.roster().signed_in().unwrap().expect("signed in");
        l.shifts_mut().open(paydesk_ledger::Actor::alone(me.id), &[], paydesk_app::base::now_ms()).unwrap();
    }
}

/// The demo owner's PIN (README: Demo staff).
pub const OWNER_PIN: &str = "1111";

#[allow(dead_code)] // not every test file starts the default store
pub fn app(dir: &std::path::Path) -> (App, Window) {
    app_with(dir, paydesk_app::Options::default())
}

pub fn call(w: &Window, cmd: &str, args: Value) -> Result<Value, Value> {
    get_ipc_response(
        w,
        InvokeRequest {
            cmd: cmd.into(),
            callback: CallbackFn(0),
            error: CallbackFn(1),
            url: "tauri://localhost".parse().unwrap(),
            body: InvokeBody::Json(args),
            headers: Default::default(),
            invoke_key: INVOKE_KEY.to_string(),
        },
    )
    .map(|b| b.deserialize::<Value>().unwrap())
}
