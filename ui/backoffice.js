// The back office (record 0045, 0048): the "Back office" part of Settings (URL + one-time
// pairing code → pair; then the paired store and register, restoring a replaced register's
// history and reading it) and the sync state in the status bar. The rules live in the
// commands (permission, limits, one restore at a time); this only shows and asks.

import { withApproval } from './approval.js';
import { invoke } from './bridge.js';
import { BACKOFFICE_LINK } from './contract.js';
import { $, h, errText } from './dom.js';
import { formatDateTime, t } from './i18n.js';
import { restoredReturnPanel } from './restored_returns.js';

function ago(ms) {
  const s = Math.max(0, Math.round((Date.now() - Number(ms)) / 1000));
  if (s < 60) return t('backoffice-ago-s', { n: s });
  if (s < 3600) return t('backoffice-ago-min', { n: Math.round(s / 60) });
  return t('backoffice-ago-h', { n: Math.round(s / 3600) });
}

/** The status bar's sync pill: hidden until the register is paired. */
export function renderBackofficeStatus(v) {
  const el = $('backoffice-status');
  el.hidden = !v.paired;
  if (!v.paired) return;
  el.dataset.state = v.state;
  const queued = v.queued;
  let text;
  if (v.state === BACKOFFICE_LINK.UNREACHABLE) text = t('backoffice-pill-unreachable', { queued });
  else if (v.state === BACKOFFICE_LINK.ERROR) text = t('backoffice-pill-error', { queued });
  else if (v.state === BACKOFFICE_LINK.SENDING) text = t('backoffice-pill-sending', { queued });
  else text = v.last_sync_ms ? t('backoffice-pill-synced', { ago: ago(v.last_sync_ms) }) : t('backoffice-pill-never');
  el.textContent = text;
  el.title = v.last_error || text;
}

export async function refreshBackoffice() {
  try { renderBackofficeStatus(await invoke('get_backoffice')); } catch (e) { /* the bar keeps its last state */ }
}

function pairedView(v) {
  return h('p', { id: 'backoffice-paired', text: t('backoffice-paired', { name: v.register_name, store: v.store_id, url: v.url }) });
}

/** One predecessor: its name, how much of its history is here, when; a button lists it. */
function sourceRow(s, shown, onShow) {
  const state = s.complete ? t('backoffice-source-complete') : t('backoffice-source-partial');
  const when = t('backoffice-source-when', { when: formatDateTime(s.finished_at_ms || s.started_at_ms) });
  // The one listed below needs no button.
  const button = shown ? null : h('button', { type: 'button', class: 'link', text: t('backoffice-source-show'), onclick: () => onShow(s.register_id) });
  return h('li', { class: 'restored-source', 'data-id': s.register_id, 'data-complete': String(s.complete) },
    h('strong', { text: t('backoffice-source-name', { name: s.register_name }) }), ' ',
    h('span', { text: `${t('backoffice-source-rows', { held: s.restored_through, total: s.acked_through })} · ${state} · ${when}` }), ' ',
    button);
}

/** The restored history: the predecessors, and one's payments newest first, paged. */
async function loadHistory(box, from, before) {
  let v;
  try { v = await invoke('restored_history', { from: from || null, before: before ?? null }); } catch (e) {
    box.replaceChildren(h('p', { id: 'restored-error', class: 'error', 'data-code': (e && e.code) || '', text: errText(e) }));
    return;
  }
  const title = h('h3', { text: t('backoffice-history-title') });
  if (!v.sources.length) { box.replaceChildren(title, h('p', { id: 'restored-none', class: 'help', text: t('backoffice-history-none') })); return; }
  const show = (id) => loadHistory(box, id, null);
  const list = h('ul', { id: 'restored-sources', class: 'restored-sources' }, ...v.sources.map((s) => sourceRow(s, s.register_id === v.from, show)));
  const src = v.sources.find((s) => s.register_id === v.from);
  const parts = [title, list];
  const returnBox = h('div', { id: 'restored-return-box' });
  if (src) {
    parts.push(h('h4', { text: t('backoffice-payments-of', { name: src.register_name }) }));
    if (!v.payments.length) parts.push(h('p', { class: 'help', text: t('backoffice-payments-none') }));
    else {
      const rows = v.payments.map((p) => h('tr', { 'data-key': p.checkout_key, 'data-amount': String(p.amount), 'data-state': p.state || '' },
        h('td', { class: 'key', text: p.checkout_key }),
        h('td', { class: 'num', text: p.amount_text }),
        h('td', { text: p.state_label }),
        h('td', { text: formatDateTime(p.at_ms) }),
        // The sale this payment paid: its Return items, under the list (record 0144).
        h('td', {}, p.sale == null ? null : h('button', { type: 'button', class: 'link restored-return-open',
          id: `restored-return-open-${p.sale}`, 'data-sale': String(p.sale), text: t('restored-return-open'),
          onclick: () => { returnBox.replaceChildren(restoredReturnPanel(v.from, p.sale)); } }))));
      parts.push(h('div', { class: 'restored-scroll' }, h('table', { id: 'restored-payments', class: 'restored-payments', 'data-from': v.from },
        h('thead', {}, h('tr', {},
          h('th', { text: t('backoffice-col-key') }), h('th', { class: 'num', text: t('backoffice-col-amount') }),
          h('th', { text: t('backoffice-col-state') }), h('th', { text: t('backoffice-col-time') }), h('th', { text: t('restored-col-return') }))),
        h('tbody', {}, ...rows))));
    }
    if (v.next_before != null) {
      const older = h('button', { id: 'restored-older', type: 'button', class: 'secondary', text: t('backoffice-older') });
      older.addEventListener('click', () => loadHistory(box, v.from, v.next_before));
      parts.push(older);
    }
    parts.push(returnBox);
  }
  box.replaceChildren(...parts);
}

/** Restore from a replaced register (record 0048): its name or id, then the result. */
function restoreForm(history) {
  const from = h('input', { id: 'restore-from', type: 'text', maxlength: '200', autocomplete: 'off', spellcheck: 'false', required: true });
  const msg = h('p', { id: 'restore-message', role: 'status' });
  const button = h('button', { id: 'restore-run', type: 'submit', text: t('backoffice-restore') });
  const form = h('form', { id: 'restore-form', class: 'restore-form', autocomplete: 'off' },
    h('h3', { text: t('backoffice-restore-title') }),
    h('p', { class: 'help', text: t('backoffice-restore-help') }),
    h('label', { for: 'restore-from', text: t('backoffice-restore-from') }),
    h('div', { class: 'restore-row' }, from, button), msg);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    button.disabled = true;
    msg.textContent = t('backoffice-restoring');
    delete msg.dataset.code;
    delete msg.dataset.added;
    try {
      const r = await withApproval((approval) => invoke('restore_backoffice', { from: from.value, approval }));
      msg.textContent = r.message;
      msg.dataset.added = String(r.rows_restored);
      msg.dataset.complete = String(r.complete);
      await loadHistory(history, r.register_id, null);
    } catch (err) {
      msg.textContent = errText(err);
      msg.dataset.code = (err && err.code) || '';
    } finally {
      button.disabled = false;
    }
  });
  return form;
}

function pairedSection(v) {
  const history = h('div', { id: 'restored-history', class: 'restored-history' });
  loadHistory(history, null, null);
  return [pairedView(v), restoreForm(history), history];
}

/** Settings: the pairing form, or who this register is at the back office. */
export async function loadBackofficeSettings() {
  const box = $('backoffice-settings-body');
  box.replaceChildren();
  let v;
  try { v = await invoke('get_backoffice'); } catch (e) { box.append(h('p', { class: 'error', text: errText(e) })); return; }
  if (v.paired) { box.append(...pairedSection(v)); return; }
  const url = h('input', { id: 'backoffice-url', type: 'url', maxlength: '2000', placeholder: 'http://127.0.0.1:8800', required: true });
  const code = h('input', { id: 'backoffice-code', type: 'text', maxlength: '40', autocomplete: 'off', spellcheck: 'false', required: true });
  const msg = h('p', { id: 'backoffice-message', role: 'status' });
  const button = h('button', { id: 'backoffice-pair', class: 'primary', type: 'submit', text: t('backoffice-pair') });
  // One row: each field under its own label, the button level with the fields.
  const field = (label, input) => h('label', { class: 'field', for: input.id }, h('span', { text: label }), input);
  const form = h('form', { id: 'backoffice-form', class: 'backoffice-form', autocomplete: 'off' },
    field(t('backoffice-url'), url), field(t('backoffice-code'), code), button, msg);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    button.disabled = true;
    msg.textContent = t('backoffice-pairing');
    try {
      const paired = await withApproval((approval) => invoke('pair_backoffice', { url: url.value, code: code.value, approval }));
      box.replaceChildren(...pairedSection(paired));
      renderBackofficeStatus(paired);
    } catch (err) {
      msg.textContent = errText(err);
      button.disabled = false;
    }
  });
  box.append(form);
}
