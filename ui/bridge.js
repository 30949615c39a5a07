// The one way to the Rust side: Tauri commands (invoke) and Tauri events (listen).
// withGlobalTauri puts the API on window; nothing is fetched or inlined (strict CSP).

const T = window.__TAURI__;

/**
 * Runs a Tauri command; rejects with {code, message} (see errText in dom.js). A refusal
 * for want of a session (`not_signed_in`, or `locked`: Rust's idle lock signed the person
 * out, staff/guard.rs) is also told to the sign-in screen (signin.js), which covers the
 * register again.
 */
export const invoke = (cmd, args) => T.core.invoke(cmd, args).catch((e) => {
  if (e && (e.code === 'locked' || e.code === 'not_signed_in')) {
    document.dispatchEvent(new CustomEvent('paydesk:signed-out', { detail: e }));
  }
  throw e;
});

/** Calls fn with each event's payload. */
export const listen = (ev, fn) => T.event.listen(ev, (e) => fn(e.payload));

/**
 * Every `code` a command may reject with (src-tauri/src/error.rs, the engine's codes
 * included). The screens match on these, never on the message text.
 */
export const ERROR_CODES = Object.freeze([
  'invalid_input', 'unknown_item', 'cart_locked', 'cart_empty', 'no_checkout', 'internal',
  // tenders: a press on an out-of-date view, another tender running
  'sale_changed', 'tender_in_flight',
  'tender_exceeds_due', 'tender_unknown_outstanding', 'sale_complete', 'sale_canceled', 'sale_refund_exceeds',
  'unknown_payment', 'refund_exceeds_captured', 'wrong_state', 'previous_outcome_unknown', 'already_paid',
  'later_payment_exists', 'offline_refused', 'psp_config', 'psp_rejected', 'alarm', 'ledger', 'outcome_unknown',
  // the back office (backoffice.js)
  'backoffice_unreachable', 'backoffice_refused', 'already_paired',
  // restore from a replaced register (design §9.15)
  'not_paired', 'restore_unknown_register', 'restore_ambiguous_name', 'restore_in_service', 'restore_from_itself',
  // the store: tax fixed at the first tender, discounts, receipts and the printer, the catalog
  'tax_locked', 'invalid_discount', 'printer_not_set', 'invalid_printer', 'printer_port_unconfirmed', 'printer_unreachable', 'receipt_unavailable',
  'invalid_item', 'csv_rejected',
  // staff (signin.js, approval.js): sign-in, the lock, the role table and approvals
  'not_signed_in', 'locked', 'approval_required', 'not_allowed', 'wrong_pin', 'staff_locked', 'owner_exists',
  // shifts (shift.js): no sale without an open shift, the counts, paid in/out, Z reports
  'no_open_shift', 'shift_already_open', 'shift_has_open_sale', 'invalid_count', 'invalid_paid_in_out', 'no_z_report',
  // card readers (reader.js): the simulated customer only in test mode, a reader of this register
  'reader_not_test_mode', 'reader_needs_embedded_psp', 'unknown_reader', 'keyed_card_not_test_mode',
]);
