// The back office (design §9.12): the "Back office" part of Settings (URL + one-time
// pairing code → pair; then the paired store and register) and the sync state in the
// status bar. The rules live in the commands; this only shows and asks.

import { withApproval } from './approval.js';
import { invoke } from './bridge.js';
import { $, h, errText } from './dom.js';

function ago(ms) {
  const s = Math.max(0, Math.round((Date.now() - Number(ms)) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  return `${Math.round(s / 3600)} h ago`;
}

/** The status bar's sync pill: hidden until the register is paired. */
export function renderBackofficeStatus(v) {
  const el = $('backoffice-status');
  el.hidden = !v.paired;
  if (!v.paired) return;
  el.dataset.state = v.state;
  let text;
  if (v.state === 'unreachable') text = `Back office unreachable · ${v.queued} queued`;
  else if (v.state === 'error') text = `Back office sync failed · ${v.queued} queued`;
  else if (v.state === 'sending') text = `Back office: ${v.queued} queued`;
  else text = v.last_sync_ms ? `Back office: synced ${ago(v.last_sync_ms)}` : 'Back office: not synced yet';
  el.textContent = text;
  el.title = v.last_error || text;
}

export async function refreshBackoffice() {
  try { renderBackofficeStatus(await invoke('get_backoffice')); } catch (e) { /* the bar keeps its last state */ }
}

function pairedView(v) {
  return h('p', { id: 'backoffice-paired', text: `Paired as “${v.register_name}” of store ${v.store_id} at ${v.url}.` });
}

/** Settings: the pairing form, or who this register is at the back office. */
export async function loadBackofficeSettings() {
  const box = $('backoffice-settings-body');
  box.replaceChildren();
  let v;
  try { v = await invoke('get_backoffice'); } catch (e) { box.append(h('p', { class: 'error', text: errText(e) })); return; }
  if (v.paired) { box.append(pairedView(v)); return; }
  const url = h('input', { id: 'backoffice-url', type: 'url', maxlength: '2000', placeholder: 'http://127.0.0.1:8800', required: true });
  const code = h('input', { id: 'backoffice-code', type: 'text', maxlength: '40', autocomplete: 'off', spellcheck: 'false', required: true });
  const msg = h('p', { id: 'backoffice-message', role: 'status' });
  const button = h('button', { id: 'backoffice-pair', type: 'submit', text: 'Pair' });
  const form = h('form', { id: 'backoffice-form', class: 'settings-form', autocomplete: 'off' },
    h('label', { for: 'backoffice-url', text: 'Back office address' }), url,
    h('label', { for: 'backoffice-code', text: 'Pairing code (from the store owner)' }), code,
    button, msg);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    button.disabled = true;
    msg.textContent = 'Pairing…';
    try {
      const paired = await withApproval((approval) => invoke('pair_backoffice', { url: url.value, code: code.value, approval }));
      box.replaceChildren(pairedView(paired));
      renderBackofficeStatus(paired);
    } catch (err) {
      msg.textContent = errText(err);
      button.disabled = false;
    }
  });
  box.append(form);
}
