// GENERATED from the Rust enums by src-tauri/src/contract.rs (contract::render): do not edit.
// Regenerate after changing an enum:
//   PAYDESK_WRITE_CONTRACT=1 cargo nextest run --workspace -E 'test(contract)'
// (a unit test fails while this file differs from what Rust would write).

/** Every `code` a command may reject with (ErrorCode, src-tauri/src/error/code.rs; the engine's and the reader's codes included). The screens match on these, never on the message. */
export const ERROR_CODES = Object.freeze([
  'invalid_input',
  'unknown_item',
  'cart_locked',
  'cart_empty',
  'no_checkout',
  'internal',
  'sale_changed',
  'tender_in_flight',
  'tender_exceeds_due',
  'tender_unknown_outstanding',
  'sale_complete',
  'sale_canceled',
  'sale_refund_exceeds',
  'unknown_payment',
  'refund_exceeds_captured',
  'wrong_state',
  'previous_outcome_unknown',
  'already_paid',
  'later_payment_exists',
  'offline_refused',
  'psp_config',
  'psp_rejected',
  'alarm',
  'ledger',
  'outcome_unknown',
  'backoffice_unreachable',
  'backoffice_refused',
  'already_paired',
  'not_paired',
  'restore_unknown_register',
  'restore_ambiguous_name',
  'restore_in_service',
  'restore_from_itself',
  'managed_by_back_office',
  'tax_locked',
  'invalid_discount',
  'printer_not_set',
  'invalid_printer',
  'printer_port_unconfirmed',
  'printer_unreachable',
  'receipt_unavailable',
  'invalid_item',
  'in_store_label',
  'csv_rejected',
  'not_signed_in',
  'locked',
  'approval_required',
  'not_allowed',
  'wrong_pin',
  'staff_locked',
  'owner_exists',
  'unknown_staff',
  'last_owner',
  'staff_retired',
  'staff_name_retired',
  'same_role',
  'no_open_shift',
  'shift_already_open',
  'shift_has_open_sale',
  'invalid_count',
  'invalid_paid_in_out',
  'no_z_report',
  'reader_not_test_mode',
  'reader_needs_embedded_psp',
  'unknown_reader',
  'keyed_card_not_test_mode',
  'unknown_tender_type',
  'tender_type_inactive',
  'tender_type_name_taken',
  'hold_empty',
  'hold_tendered',
  'hold_limit',
  'not_held',
  'cart_held',
  'exempt_not_allowed',
  'exempt_tendered',
  'exempt_paid',
  'exempt_reason',
  'recall_screen_busy',
  'unknown_restore_source',
  'restore_not_finished',
  'unknown_restored_sale',
  'ambiguous_restored_receipt',
  'restored_sale_canceled',
  'restored_sale_not_valued',
  'restored_payment_unsettled',
  'restored_store_tender',
  'restored_exchanged_there',
  'restored_credit_not_given_back',
]);

/** The same, by name: `ERROR.INVALID_INPUT` is 'invalid_input'. */
export const ERROR = Object.freeze({
  INVALID_INPUT: 'invalid_input',
  UNKNOWN_ITEM: 'unknown_item',
  CART_LOCKED: 'cart_locked',
  CART_EMPTY: 'cart_empty',
  NO_CHECKOUT: 'no_checkout',
  INTERNAL: 'internal',
  SALE_CHANGED: 'sale_changed',
  TENDER_IN_FLIGHT: 'tender_in_flight',
  TENDER_EXCEEDS_DUE: 'tender_exceeds_due',
  TENDER_UNKNOWN_OUTSTANDING: 'tender_unknown_outstanding',
  SALE_COMPLETE: 'sale_complete',
  SALE_CANCELED: 'sale_canceled',
  SALE_REFUND_EXCEEDS: 'sale_refund_exceeds',
  UNKNOWN_PAYMENT: 'unknown_payment',
  REFUND_EXCEEDS_CAPTURED: 'refund_exceeds_captured',
  WRONG_STATE: 'wrong_state',
  PREVIOUS_OUTCOME_UNKNOWN: 'previous_outcome_unknown',
  ALREADY_PAID: 'already_paid',
  LATER_PAYMENT_EXISTS: 'later_payment_exists',
  OFFLINE_REFUSED: 'offline_refused',
  PSP_CONFIG: 'psp_config',
  PSP_REJECTED: 'psp_rejected',
  ALARM: 'alarm',
  LEDGER: 'ledger',
  OUTCOME_UNKNOWN: 'outcome_unknown',
  BACKOFFICE_UNREACHABLE: 'backoffice_unreachable',
  BACKOFFICE_REFUSED: 'backoffice_refused',
  ALREADY_PAIRED: 'already_paired',
  NOT_PAIRED: 'not_paired',
  RESTORE_UNKNOWN_REGISTER: 'restore_unknown_register',
  RESTORE_AMBIGUOUS_NAME: 'restore_ambiguous_name',
  RESTORE_IN_SERVICE: 'restore_in_service',
  RESTORE_FROM_ITSELF: 'restore_from_itself',
  MANAGED_BY_BACK_OFFICE: 'managed_by_back_office',
  TAX_LOCKED: 'tax_locked',
  INVALID_DISCOUNT: 'invalid_discount',
  PRINTER_NOT_SET: 'printer_not_set',
  INVALID_PRINTER: 'invalid_printer',
  PRINTER_PORT_UNCONFIRMED: 'printer_port_unconfirmed',
  PRINTER_UNREACHABLE: 'printer_unreachable',
  RECEIPT_UNAVAILABLE: 'receipt_unavailable',
  INVALID_ITEM: 'invalid_item',
  IN_STORE_LABEL: 'in_store_label',
  CSV_REJECTED: 'csv_rejected',
  NOT_SIGNED_IN: 'not_signed_in',
  LOCKED: 'locked',
  APPROVAL_REQUIRED: 'approval_required',
  NOT_ALLOWED: 'not_allowed',
  WRONG_PIN: 'wrong_pin',
  STAFF_LOCKED: 'staff_locked',
  OWNER_EXISTS: 'owner_exists',
  UNKNOWN_STAFF: 'unknown_staff',
  LAST_OWNER: 'last_owner',
  STAFF_RETIRED: 'staff_retired',
  STAFF_NAME_RETIRED: 'staff_name_retired',
  SAME_ROLE: 'same_role',
  NO_OPEN_SHIFT: 'no_open_shift',
  SHIFT_ALREADY_OPEN: 'shift_already_open',
  SHIFT_HAS_OPEN_SALE: 'shift_has_open_sale',
  INVALID_COUNT: 'invalid_count',
  INVALID_PAID_IN_OUT: 'invalid_paid_in_out',
  NO_Z_REPORT: 'no_z_report',
  READER_NOT_TEST_MODE: 'reader_not_test_mode',
  READER_NEEDS_EMBEDDED_PSP: 'reader_needs_embedded_psp',
  UNKNOWN_READER: 'unknown_reader',
  KEYED_CARD_NOT_TEST_MODE: 'keyed_card_not_test_mode',
  UNKNOWN_TENDER_TYPE: 'unknown_tender_type',
  TENDER_TYPE_INACTIVE: 'tender_type_inactive',
  TENDER_TYPE_NAME_TAKEN: 'tender_type_name_taken',
  HOLD_EMPTY: 'hold_empty',
  HOLD_TENDERED: 'hold_tendered',
  HOLD_LIMIT: 'hold_limit',
  NOT_HELD: 'not_held',
  CART_HELD: 'cart_held',
  EXEMPT_NOT_ALLOWED: 'exempt_not_allowed',
  EXEMPT_TENDERED: 'exempt_tendered',
  EXEMPT_PAID: 'exempt_paid',
  EXEMPT_REASON: 'exempt_reason',
  RECALL_SCREEN_BUSY: 'recall_screen_busy',
  UNKNOWN_RESTORE_SOURCE: 'unknown_restore_source',
  RESTORE_NOT_FINISHED: 'restore_not_finished',
  UNKNOWN_RESTORED_SALE: 'unknown_restored_sale',
  AMBIGUOUS_RESTORED_RECEIPT: 'ambiguous_restored_receipt',
  RESTORED_SALE_CANCELED: 'restored_sale_canceled',
  RESTORED_SALE_NOT_VALUED: 'restored_sale_not_valued',
  RESTORED_PAYMENT_UNSETTLED: 'restored_payment_unsettled',
  RESTORED_STORE_TENDER: 'restored_store_tender',
  RESTORED_EXCHANGED_THERE: 'restored_exchanged_there',
  RESTORED_CREDIT_NOT_GIVEN_BACK: 'restored_credit_not_given_back',
});

/** A payment's state (paydesk_domain::PaymentState). */
export const PAYMENT_STATES = Object.freeze([
  'created',
  'queued_offline',
  'authorizing',
  'authorized',
  'capturing',
  'captured',
  'failed',
  'canceled',
  'refunding',
  'partially_refunded',
  'refunded',
  'on_reader',
]);

/** The same, by name: `PAYMENT_STATE.CREATED` is 'created'. */
export const PAYMENT_STATE = Object.freeze({
  CREATED: 'created',
  QUEUED_OFFLINE: 'queued_offline',
  AUTHORIZING: 'authorizing',
  AUTHORIZED: 'authorized',
  CAPTURING: 'capturing',
  CAPTURED: 'captured',
  FAILED: 'failed',
  CANCELED: 'canceled',
  REFUNDING: 'refunding',
  PARTIALLY_REFUNDED: 'partially_refunded',
  REFUNDED: 'refunded',
  ON_READER: 'on_reader',
});

/** How one attempt ended (paydesk_register::AttemptKind), as the timeline stores it. */
export const ATTEMPT_KINDS = Object.freeze([
  'ok',
  'replayed',
  'declined',
  'connection_refused',
  'connect_timeout',
  'timeout',
  'connection_lost',
  'answer_too_large',
  'transport_error',
  'in_progress_409',
  'rate_limited_429',
  'unavailable_5xx',
  'server_error_500',
  'replayed_500',
  'psp_bad_request',
  'psp_auth',
  'idempotency_error',
  'psp_not_found',
  'psp_config',
  'psp_unexpected',
  'not_a_psp',
]);

/** The same, by name: `ATTEMPT_KIND.OK` is 'ok'. */
export const ATTEMPT_KIND = Object.freeze({
  OK: 'ok',
  REPLAYED: 'replayed',
  DECLINED: 'declined',
  CONNECTION_REFUSED: 'connection_refused',
  CONNECT_TIMEOUT: 'connect_timeout',
  TIMEOUT: 'timeout',
  CONNECTION_LOST: 'connection_lost',
  ANSWER_TOO_LARGE: 'answer_too_large',
  TRANSPORT_ERROR: 'transport_error',
  IN_PROGRESS_409: 'in_progress_409',
  RATE_LIMITED_429: 'rate_limited_429',
  UNAVAILABLE_5XX: 'unavailable_5xx',
  SERVER_ERROR_500: 'server_error_500',
  REPLAYED_500: 'replayed_500',
  PSP_BAD_REQUEST: 'psp_bad_request',
  PSP_AUTH: 'psp_auth',
  IDEMPOTENCY_ERROR: 'idempotency_error',
  PSP_NOT_FOUND: 'psp_not_found',
  PSP_CONFIG: 'psp_config',
  PSP_UNEXPECTED: 'psp_unexpected',
  NOT_A_PSP: 'not_a_psp',
});

/** How a charge ended, for the checkout panel (views::OutcomeKind). */
export const OUTCOME_KINDS = Object.freeze([
  'approved',
  'authorized',
  'accepted_offline',
  'declined',
  'failed',
  'unknown',
]);

/** The same, by name: `OUTCOME_KIND.APPROVED` is 'approved'. */
export const OUTCOME_KIND = Object.freeze({
  APPROVED: 'approved',
  AUTHORIZED: 'authorized',
  ACCEPTED_OFFLINE: 'accepted_offline',
  DECLINED: 'declined',
  FAILED: 'failed',
  UNKNOWN: 'unknown',
});

/** What a line of live progress says happened (views::ProgressKind). */
export const PROGRESS_KINDS = Object.freeze([
  'attempt',
  'outcome',
  'backoff',
  'replayed',
  'background',
  'offline',
  'resolved',
]);

/** The same, by name: `PROGRESS_KIND.ATTEMPT` is 'attempt'. */
export const PROGRESS_KIND = Object.freeze({
  ATTEMPT: 'attempt',
  OUTCOME: 'outcome',
  BACKOFF: 'backoff',
  REPLAYED: 'replayed',
  BACKGROUND: 'background',
  OFFLINE: 'offline',
  RESOLVED: 'resolved',
});

/** How a state or a line is shown: a CSS class, nothing else (views::Tone). */
export const TONES = Object.freeze([
  'ok',
  'warn',
  'bad',
  'info',
]);

/** The same, by name: `TONE.OK` is 'ok'. */
export const TONE = Object.freeze({
  OK: 'ok',
  WARN: 'warn',
  BAD: 'bad',
  INFO: 'info',
});

/** What an alarm is about (paydesk_register::AlarmCode); its words come from Rust. */
export const ALARM_CODES = Object.freeze([
  'declined_after_forwarding',
  'sale_balance_reopened',
  'exists_with_different',
  'amount_mismatch',
  'needs_attention',
  'refund_not_made',
  'offline_payment_not_collected',
  'psp_auth',
  'psp_config',
  'idempotency_error',
  'not_a_psp',
]);

/** The same, by name: `ALARM.DECLINED_AFTER_FORWARDING` is 'declined_after_forwarding'. */
export const ALARM = Object.freeze({
  DECLINED_AFTER_FORWARDING: 'declined_after_forwarding',
  SALE_BALANCE_REOPENED: 'sale_balance_reopened',
  EXISTS_WITH_DIFFERENT: 'exists_with_different',
  AMOUNT_MISMATCH: 'amount_mismatch',
  NEEDS_ATTENTION: 'needs_attention',
  REFUND_NOT_MADE: 'refund_not_made',
  OFFLINE_PAYMENT_NOT_COLLECTED: 'offline_payment_not_collected',
  PSP_AUTH: 'psp_auth',
  PSP_CONFIG: 'psp_config',
  IDEMPOTENCY_ERROR: 'idempotency_error',
  NOT_A_PSP: 'not_a_psp',
});

/** What a row of a payment's timeline describes (paydesk_ledger::TimelineKind). */
export const TIMELINE_KINDS = Object.freeze([
  'created',
  'attempt',
  'transition',
  'psp_result',
  'event',
  'refund',
  'note',
]);

/** The same, by name: `TIMELINE_KIND.CREATED` is 'created'. */
export const TIMELINE_KIND = Object.freeze({
  CREATED: 'created',
  ATTEMPT: 'attempt',
  TRANSITION: 'transition',
  PSP_RESULT: 'psp_result',
  EVENT: 'event',
  REFUND: 'refund',
  NOTE: 'note',
});

/** How a catalog item is priced at the till (paydesk_ledger::PriceKind, record 0126). */
export const PRICE_KINDS = Object.freeze([
  'fixed',
  'open',
  'department',
]);

/** The same, by name: `PRICE_KIND.FIXED` is 'fixed'. */
export const PRICE_KIND = Object.freeze({
  FIXED: 'fixed',
  OPEN: 'open',
  DEPARTMENT: 'department',
});

/** How a catalog item is sold: by the piece or by weight (paydesk_tax::SaleUnit, record 0134). */
export const SALE_UNITS = Object.freeze([
  'piece',
  'kilogram',
  'hundred_grams',
]);

/** The same, by name: `SALE_UNIT.PIECE` is 'piece'. */
export const SALE_UNIT = Object.freeze({
  PIECE: 'piece',
  KILOGRAM: 'kilogram',
  HUNDRED_GRAMS: 'hundred_grams',
});

/** The currencies PayDesk takes (paydesk_domain::Currency), lowercase ISO codes. */
export const CURRENCIES = Object.freeze([
  'jpy',
  'usd',
  'eur',
  'gbp',
  'krw',
]);

/** The same, by name: `CURRENCY.JPY` is 'jpy'. */
export const CURRENCY = Object.freeze({
  JPY: 'jpy',
  USD: 'usd',
  EUR: 'eur',
  GBP: 'gbp',
  KRW: 'krw',
});

/** How a card tender stands after pay_card (paydesk_register::CheckoutOutcome). */
export const CHECKOUT_OUTCOMES = Object.freeze([
  'paid',
  'authorized',
  'declined',
  'failed',
  'pending',
  'queued_offline',
  'canceled',
  'refunded',
]);

/** The same, by name: `CHECKOUT_OUTCOME.PAID` is 'paid'. */
export const CHECKOUT_OUTCOME = Object.freeze({
  PAID: 'paid',
  AUTHORIZED: 'authorized',
  DECLINED: 'declined',
  FAILED: 'failed',
  PENDING: 'pending',
  QUEUED_OFFLINE: 'queued_offline',
  CANCELED: 'canceled',
  REFUNDED: 'refunded',
});

/** How a tender pays (paydesk_domain::TenderKind). */
export const TENDER_KINDS = Object.freeze([
  'cash',
  'card',
  'store',
]);

/** The same, by name: `TENDER_KIND.CASH` is 'cash'. */
export const TENDER_KIND = Object.freeze({
  CASH: 'cash',
  CARD: 'card',
  STORE: 'store',
});

/** A tender as the sale sees it (paydesk_ledger::TenderState). */
export const TENDER_STATES = Object.freeze([
  'settled',
  'offline',
  'held',
  'pending',
  'void',
  'superseded',
]);

/** The same, by name: `TENDER_STATE.SETTLED` is 'settled'. */
export const TENDER_STATE = Object.freeze({
  SETTLED: 'settled',
  OFFLINE: 'offline',
  HELD: 'held',
  PENDING: 'pending',
  VOID: 'void',
  SUPERSEDED: 'superseded',
});

/** Where a sale stands (paydesk_ledger::SaleState). */
export const SALE_STATES = Object.freeze([
  'open',
  'partially_paid',
  'paid',
  'unpaid_balance',
  'canceling',
  'canceled',
]);

/** The same, by name: `SALE_STATE.OPEN` is 'open'. */
export const SALE_STATE = Object.freeze({
  OPEN: 'open',
  PARTIALLY_PAID: 'partially_paid',
  PAID: 'paid',
  UNPAID_BALANCE: 'unpaid_balance',
  CANCELING: 'canceling',
  CANCELED: 'canceled',
});

/** What an item is, for tax (paydesk_tax::TaxClass). */
export const TAX_CLASSES = Object.freeze([
  'standard',
  'reduced',
  'exempt',
]);

/** The same, by name: `TAX_CLASS.STANDARD` is 'standard'. */
export const TAX_CLASS = Object.freeze({
  STANDARD: 'standard',
  REDUCED: 'reduced',
  EXEMPT: 'exempt',
});

/** What canceling a sale does to one card tender (views::CancelLineKind). */
export const CANCEL_LINE_KINDS = Object.freeze([
  'refund',
  'void',
]);

/** The same, by name: `CANCEL_LINE_KIND.REFUND` is 'refund'. */
export const CANCEL_LINE_KIND = Object.freeze({
  REFUND: 'refund',
  VOID: 'void',
});

/** A reader payment's `outcome.kind` (views::ReaderKind, the tag of paydesk_register::ReaderOutcome). */
export const READER_OUTCOMES = Object.freeze([
  'paid',
  'authorized',
  'waiting_for_card',
  'not_charged',
  'pending',
  'reader_busy',
  'reader_unavailable',
]);

/** The same, by name: `READER_OUTCOME.PAID` is 'paid'. */
export const READER_OUTCOME = Object.freeze({
  PAID: 'paid',
  AUTHORIZED: 'authorized',
  WAITING_FOR_CARD: 'waiting_for_card',
  NOT_CHARGED: 'not_charged',
  PENDING: 'pending',
  READER_BUSY: 'reader_busy',
  READER_UNAVAILABLE: 'reader_unavailable',
});

/** Why a reader payment was not charged: `outcome.why` of a `not_charged` outcome (paydesk_register::NotChargedWhy). */
export const NOT_CHARGED_WHYS = Object.freeze([
  'declined',
  'customer_canceled',
  'action_canceled',
  'not_started',
  'intent_canceled',
]);

/** The same, by name: `NOT_CHARGED_WHY.DECLINED` is 'declined'. */
export const NOT_CHARGED_WHY = Object.freeze({
  DECLINED: 'declined',
  CUSTOMER_CANCELED: 'customer_canceled',
  ACTION_CANCELED: 'action_canceled',
  NOT_STARTED: 'not_started',
  INTENT_CANCELED: 'intent_canceled',
});

/** How the back-office link stands, for its pill (views::BackofficeLink). */
export const BACKOFFICE_LINKS = Object.freeze([
  'not_paired',
  'synced',
  'sending',
  'unreachable',
  'error',
]);

/** The same, by name: `BACKOFFICE_LINK.NOT_PAIRED` is 'not_paired'. */
export const BACKOFFICE_LINK = Object.freeze({
  NOT_PAIRED: 'not_paired',
  SYNCED: 'synced',
  SENDING: 'sending',
  UNREACHABLE: 'unreachable',
  ERROR: 'error',
});

/** Whether the back office confirmed the audit chain's head (views::AuditConfirmation). */
export const AUDIT_CONFIRMATIONS = Object.freeze([
  'confirmed',
  'never',
  'no_back_office',
]);

/** The same, by name: `AUDIT_CONFIRMATION.CONFIRMED` is 'confirmed'. */
export const AUDIT_CONFIRMATION = Object.freeze({
  CONFIRMED: 'confirmed',
  NEVER: 'never',
  NO_BACK_OFFICE: 'no_back_office',
});

/** Which drawer report: X or Z (views::DrawerReportKind). */
export const REPORT_KINDS = Object.freeze([
  'x',
  'z',
]);

/** The same, by name: `REPORT_KIND.X` is 'x'. */
export const REPORT_KIND = Object.freeze({
  X: 'x',
  Z: 'z',
});

/** The PSP in use (views::PspKind). */
export const PSP_KINDS = Object.freeze([
  'embedded',
  'external',
]);

/** The same, by name: `PSP_KIND.EMBEDDED` is 'embedded'. */
export const PSP_KIND = Object.freeze({
  EMBEDDED: 'embedded',
  EXTERNAL: 'external',
});

/** Where the PSP's secret key is kept (views::KeyStorage). */
export const KEY_STORAGES = Object.freeze([
  'keychain',
  'file',
]);

/** The same, by name: `KEY_STORAGE.KEYCHAIN` is 'keychain'. */
export const KEY_STORAGE = Object.freeze({
  KEYCHAIN: 'keychain',
  FILE: 'file',
});

/** How sending the encrypted copies to the back office stands (views::CopySendState). */
export const COPY_SEND_STATES = Object.freeze([
  'off',
  'not_paired',
  'not_yet',
  'sending',
  'sent',
  'unreachable',
  'refused',
  'failed',
]);

/** The same, by name: `COPY_SEND_STATE.OFF` is 'off'. */
export const COPY_SEND_STATE = Object.freeze({
  OFF: 'off',
  NOT_PAIRED: 'not_paired',
  NOT_YET: 'not_yet',
  SENDING: 'sending',
  SENT: 'sent',
  UNREACHABLE: 'unreachable',
  REFUSED: 'refused',
  FAILED: 'failed',
});

/** When saved settings take effect (views::AppliedWhen). */
export const APPLIED_WHENS = Object.freeze([
  'unchanged',
  'now',
  'waiting',
]);

/** The same, by name: `APPLIED.UNCHANGED` is 'unchanged'. */
export const APPLIED = Object.freeze({
  UNCHANGED: 'unchanged',
  NOW: 'now',
  WAITING: 'waiting',
});
