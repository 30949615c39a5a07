//! The app on Tauri's mock runtime for command tests: the real wiring (`app_builder`),
//! the real config and capabilities (`generate_context!`), and one call helper.

use serde_json::Value;
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{get_ipc_response, INVOKE_KEY};
use tauri::webview::InvokeRequest;
use tauri::Manager;

pub type App = tauri::App<tauri::test::MockRuntime>;
pub type Window = tauri::WebviewWindow<tauri::test::MockRuntime>;

/// The app over data folder `dir` with `opts` (its data dir and "none" faults set here).
pub fn app_with(dir: &std::path::Path, opts: paydesk_app::Options) -> (App, Window) {
    let opts = paydesk_app::Options { data_dir: Some(dir.to_path_buf()), fault_profile: "none".into(), ..opts };
    let mut app = paydesk_app::app_builder(tauri::test::mock_builder(), opts)
        .build(paydesk_app::context())
        .expect("build app");
    // Runs setup once: the config's "main" window is created and the state managed.
    #[allow(deprecated)]
    app.run_iteration(|_, _| {});
    let w = app.get_webview_window("main").expect("the main window from tauri.conf.json");
    (app, w)
}

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
