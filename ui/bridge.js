// The one way to the Rust side: Tauri commands (invoke) and Tauri events (listen).
// withGlobalTauri puts the API on window; nothing is fetched or inlined (strict CSP).

import { ERROR } from './contract.js';

const T = window.__TAURI__;

/**
 * Runs a Tauri command; rejects with {code, message} (see errText in dom.js). A refusal
 * for want of a session (`not_signed_in`, or `locked`: Rust's idle lock signed the person
 * out, staff/guard.rs) is also told to the sign-in screen (signin.js), which covers the
 * register again.
 */
export const invoke = (cmd, args) => T.core.invoke(cmd, args).catch((e) => {
  if (e && (e.code === ERROR.LOCKED || e.code === ERROR.NOT_SIGNED_IN)) {
    document.dispatchEvent(new CustomEvent('paydesk:signed-out', { detail: e }));
  }
  throw e;
});

/** Calls fn with each event's payload. */
export const listen = (ev, fn) => T.event.listen(ev, (e) => fn(e.payload));

// Every `code` a command may reject with, generated from the Rust enum (contract.js);
// re-exported here, where the screens have always found it.
export { ERROR_CODES } from './contract.js';
