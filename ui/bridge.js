// The one way to the Rust side: Tauri commands (invoke) and Tauri events (listen).
// withGlobalTauri puts the API on window; nothing is fetched or inlined (strict CSP).

const T = window.__TAURI__;

/** Runs a Tauri command; rejects with {code, message} (see errText in dom.js). */
export const invoke = (cmd, args) => T.core.invoke(cmd, args);

/** Calls fn with each event's payload. */
export const listen = (ev, fn) => T.event.listen(ev, (e) => fn(e.payload));
