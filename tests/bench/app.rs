//! `cargo bench -p paydesk-e2e --bench app`: PayDesk against a bare Tauri 2 app built
//! the same way (same tauri, same profile), in one run, as ratios:
//! start to interactive (WebDriver session asked → UI ready), idle memory (PSS of
//! the app and its WebKit processes, 3 s after ready), binary size; and the size of the
//! `.deb` that `make package` built, when there is one.
//! Both run under the same Xvfb + tauri-driver harness as the WebDriver tests.

use std::time::Duration;

use paydesk_e2e::{build_binary, App, Launch, StaffStart};

const RUNS: usize = 3;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

async fn measure(name: &str, binary: std::path::PathBuf) -> (f64, f64, u64, usize) {
    let (mut t, mut m, mut procs) = (Vec::new(), Vec::new(), 0);
    for i in 0..RUNS {
        // Signed out: start to interactive is the UI's ready signal; the bare app has no
        // staff screens, so the harness must not wait for one (it did, and panicked).
        let launch = Launch { binary: Some(binary.clone()), staff: StaffStart::SignedOut, ..Launch::default() };
        let app = App::start(&format!("bench-{name}-{i}"), launch).await;
        t.push(app.start_to_interactive.as_secs_f64() * 1000.0);
        // idle: let start-up work (and PayDesk's first background pass) settle
        tokio::time::sleep(Duration::from_secs(3)).await;
        let (kb, n) = app.app_pss_kb();
        m.push(kb as f64 / 1024.0);
        procs = n;
        app.close().await;
    }
    let size = std::fs::metadata(&binary).map(|m| m.len()).unwrap_or(0);
    (median(t), median(m), size, procs)
}

fn main() {
    // `cargo bench` passes --bench; any filter argument is ignored.
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async {
        let bare = build_binary("paydesk-bare", "paydesk-bare");
        let app = paydesk_e2e::app_binary();
        let b = measure("bare", bare).await;
        let p = measure("paydesk", app).await;
        let mib = |x: u64| x as f64 / (1024.0 * 1024.0);
        println!("PayDesk vs a bare Tauri 2 app, same build (median of {RUNS} runs each)");
        println!("{:<28} {:>12} {:>12} {:>8}", "", "bare", "PayDesk", "ratio");
        println!("{:<28} {:>10.0}ms {:>10.0}ms {:>7.2}x", "start to interactive", b.0, p.0, p.0 / b.0);
        println!(
            "{:<28} {:>9.1}MiB {:>9.1}MiB {:>7.2}x   ({} vs {} processes)",
            "idle memory (PSS, all procs)", b.1, p.1, p.1 / b.1, b.3, p.3
        );
        println!("{:<28} {:>9.1}MiB {:>9.1}MiB {:>7.2}x", "binary size", mib(b.2), mib(p.2), p.2 as f64 / b.2 as f64);
        // What a store downloads: the package `make package` built (release profile:
        // stripped, thin LTO; docs/packaging.md).
        match paydesk_e2e::package::newest_deb() {
            Some(deb) => {
                let size = std::fs::metadata(&deb).map(|m| m.len()).unwrap_or(0);
                println!("{:<28} {:>22.1}MiB   ({})", "package (.deb)", mib(size), deb.display());
            }
            None => println!("{:<28} {:>25}", "package (.deb)", "not built: make package"),
        }
    });
}
