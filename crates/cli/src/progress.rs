//! `--progress`: the engine's notifications (attempts, outcomes, alarms) as JSON lines
//! on stderr while a command runs.

use paydesk_register::Engine;

/// Prints the engine's notifications as JSON lines on stderr while the command runs;
/// on `stop`, prints what is still queued and ends.
pub(crate) fn progress_printer(engine: &Engine) -> (tokio::sync::oneshot::Sender<()>, tokio::task::JoinHandle<()>) {
    use tokio::sync::broadcast::error::{RecvError, TryRecvError};
    let mut rx = engine.subscribe();
    let (stop_tx, mut stop_rx) = tokio::sync::oneshot::channel::<()>();
    let print = |n: &paydesk_register::Notification| eprintln!("{}", serde_json::to_string(n).unwrap_or_default());
    let task = tokio::spawn(async move {
        loop {
            tokio::select! {
                n = rx.recv() => match n {
                    Ok(n) => print(&n),
                    Err(RecvError::Lagged(_)) => continue,
                    Err(RecvError::Closed) => return,
                },
                _ = &mut stop_rx => loop {
                    match rx.try_recv() {
                        Ok(n) => print(&n),
                        Err(TryRecvError::Lagged(_)) => continue,
                        Err(_) => return,
                    }
                },
            }
        }
    });
    (stop_tx, task)
}
