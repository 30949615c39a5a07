// Card-present payments on a server-driven reader (issue #27): the checkout's reader
// panel and Settings → Card reader. The words come from Rust (`headline`, `message`:
// src-tauri/src/reader/mod.rs), so "Paid" is said only when the PSP's intent succeeded
// and "not charged" only when a read proved it; anything unsure is pending, with its key.
//
// The panel is drawn by tender.js (which owns the sale and the busy flag) through
// readerPanel(view, act): `act(cmd, args, buttonId)` runs one reader command on this
// payment and draws its answer.

import { withApproval } from './approval.js';
import { invoke } from './bridge.js';
import { NOT_CHARGED_WHY, READER_OUTCOME } from './contract.js';
import { $, h, announce, alertLoud, errText } from './dom.js';
import { t } from './i18n.js';

/** The readers this register knows, without asking the PSP for their status (the card
 * form offers them; an unreachable PSP must not slow the form down), and whether keyed
 * test cards are offered (test mode only; the commands refuse them outside it). */
export async function knownReaders() {
  try {
    const v = await invoke('reader_list', { withStatus: false });
    return { readers: v.readers, testMode: v.test_mode };
  } catch (_) { return { readers: [], testMode: false }; }
}

/** Outcomes the panel keeps checking by itself (nothing decided yet at the PSP). */
export const stillOpen = (v) => v.outcome.kind === READER_OUTCOME.WAITING_FOR_CARD || v.outcome.kind === READER_OUTCOME.PENDING;

/** The reader panel of one payment: the state in words, the key while unsure, the buttons
 * that apply (from the register's view, never guessed here) and, in test mode while the
 * reader waits for a card, the simulated customer. */
export function readerPanel(v, act) {
  const kind = v.outcome.kind;
  const why = v.outcome.why || '';
  const key = { checkoutKey: v.checkout_key };
  const button = (id, text, cmd, cls = 'secondary', extra = {}) =>
    h('button', { id, type: 'button', class: cls, text, onclick: () => act(cmd, { ...key, ...extra }, id) });
  const unsure = kind === READER_OUTCOME.PENDING || kind === READER_OUTCOME.WAITING_FOR_CARD;
  const finished = kind === READER_OUTCOME.PAID || kind === READER_OUTCOME.AUTHORIZED
    || (kind === READER_OUTCOME.NOT_CHARGED && why === NOT_CHARGED_WHY.INTENT_CANCELED);
  const buttons = [];
  if (v.can_try_again) {
    // One intent, the next attempt: after a decline it is another card; else the same again.
    const label = why === NOT_CHARGED_WHY.DECLINED ? t('reader-try-again') : t('reader-present-again');
    buttons.push(button('reader-again', label, 'reader_try_again', 'primary'));
  }
  if (v.can_cancel) buttons.push(button('reader-cancel', t('reader-cancel'), 'reader_cancel'));
  if (!finished) {
    buttons.push(button('reader-check', t('reader-check'), 'reader_check'));
  }
  if (v.can_abandon) buttons.push(button('reader-abandon', t('reader-cash'), 'reader_abandon', 'link'));
  // Test mode only (the command refuses it otherwise): the customer's tap while the reader
  // waits, and a fault of the embedded PSP armed for the next card handed to the reader.
  const sim = v.test_mode && !finished
    ? h('div', { class: 'reader-sim', id: 'reader-sim', role: 'group', 'aria-labelledby': 'reader-sim-title' },
      h('h4', { id: 'reader-sim-title', text: t('reader-sim-title') }),
      kind === READER_OUTCOME.WAITING_FOR_CARD ? h('div', { class: 'actions' },
        button('reader-sim-approved', t('reader-sim-approved'), 'reader_simulate', 'secondary', { customer: 'approved' }),
        button('reader-sim-declined', t('reader-sim-declined'), 'reader_simulate', 'secondary', { customer: 'declined' }),
        button('reader-sim-insufficient', t('reader-sim-insufficient'), 'reader_simulate', 'secondary', { customer: 'insufficient_funds' })) : null,
      h('div', { class: 'actions' }, armButton('customer_cancels', t('reader-sim-cancels')), armButton('timeout_charges', t('reader-sim-timeout'))))
    : null;
  return h('div', { class: `result reader-panel ${v.tone}`, id: 'reader-panel', 'data-outcome': kind, 'data-why': why,
    'data-key': v.checkout_key, 'data-attempt': String(v.attempt_no || '') },
  h('h3', { id: 'reader-head', text: v.headline }),
  h('p', { class: 'reader-on', text: t('reader-on', { reader: v.reader_label, amount: v.amount_display }) }),
  h('p', { class: 'msg', id: 'reader-msg', text: v.message }),
  // The key while unsure, once: a pending message already says it.
  unsure && !v.message.includes(v.checkout_key) ? h('p', { class: 'key', id: 'reader-key', text: t('reader-key', { key: v.checkout_key }) }) : null,
  h('div', { class: 'actions', id: 'reader-actions' }, ...buttons),
  sim);
}

/** Arms one reader fault of the embedded PSP for the next card handed to the reader (its
 * answer, in words, goes to the status bar). */
function armButton(fault, text) {
  return h('button', { type: 'button', class: 'link', id: 'reader-arm-' + fault, text,
    onclick: async () => {
      try { announce(await invoke('reader_arm_fault', { fault }), 'warn'); } catch (e) { alertLoud(errText(e)); }
    } });
}

// ---------------------------------------------------------------- Settings → Card reader

/** Draws Settings → Card reader: the readers with their status at the PSP now, the
 * store's location, a form to register one by its code, and in test mode one button that
 * registers the embedded PSP's simulated reader (the demo's reader). */
export async function loadReaderSettings() {
  const body = $('reader-settings-body');
  if (!body) return;
  let v;
  try { v = await invoke('reader_list', { withStatus: true }); } catch (e) {
    body.replaceChildren(h('p', { class: 'help bad', text: errText(e) }));
    return;
  }
  const msg = h('p', { class: 'settings-msg', id: 'reader-settings-msg', role: 'status' });
  const list = v.readers.length
    ? h('ul', { class: 'reader-list', id: 'reader-list' }, ...v.readers.map((r) =>
      h('li', { 'data-id': r.id, 'data-status': r.status || '' },
        h('strong', { text: r.label }), ' · ', h('span', { class: 'state ' + r.status_tone, text: r.status_label }),
        ' · ', h('code', { text: r.id }))))
    : h('p', { class: 'help', id: 'reader-none', text: t('settings-reader-none') });
  const code = h('input', { id: 'reader-code', name: 'code', maxlength: '100', autocomplete: 'off', placeholder: v.test_mode ? v.simulated_code : '' });
  const label = h('input', { id: 'reader-label', name: 'label', maxlength: '100', autocomplete: 'off' });
  const register = async (c, l) => {
    try {
      const res = await withApproval((approval) => invoke('reader_register', { code: c, label: l, approval }));
      await loadReaderSettings();
      const done = t('settings-reader-done', { label: l });
      $('reader-settings-msg').textContent = done;
      announce(done);
      return res;
    } catch (e) { msg.textContent = errText(e); msg.classList.add('bad'); alertLoud(errText(e)); return null; }
  };
  const form = h('form', { class: 'reader-form', id: 'reader-form', autocomplete: 'off' },
    h('label', {}, t('settings-reader-code'), code),
    h('label', {}, t('settings-reader-label'), label),
    h('button', { type: 'submit', class: 'secondary', id: 'reader-register', text: t('settings-reader-register') }));
  form.addEventListener('submit', (e) => { e.preventDefault(); register(code.value, label.value); });
  const demo = v.test_mode
    ? h('p', { class: 'help' }, t('settings-reader-hint') + ' ',
      h('button', { type: 'button', class: 'link', id: 'reader-register-simulated', text: t('settings-reader-demo'),
        onclick: () => register(v.simulated_code, t('settings-reader-demo-label')) }))
    : null;
  // replaceChildren writes a null as the text "null": leave out what is not there.
  body.replaceChildren(...[list,
    v.location ? h('p', { class: 'help', id: 'reader-location', text: t('settings-reader-location', { location: v.location }) }) : null,
    form, demo, msg].filter(Boolean));
}
