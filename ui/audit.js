// The Audit tab (F10): the chain verified by the register (intact with its head, or each
// broken row named with what is wrong) and the latest rows: when, who, approver, action,
// subject, reason. Text nodes only: a reason is whatever someone typed.

import { invoke } from './bridge.js';
import { AUDIT_CONFIRMATION } from './contract.js';
import { $, h, errText } from './dom.js';
import { formatDateTime, t } from './i18n.js';

const PAGE = 50;

export function initAudit() {
  $('audit-verify').addEventListener('click', verify);
}

export async function loadAudit() {
  await page();
}

async function verify() {
  const out = $('audit-result');
  out.dataset.state = 'checking';
  try {
    const v = await invoke('audit_verify');
    // Only nodes: replaceChildren prints a null (or undefined) child as the text "null".
    const parts = [h('p', { class: v.intact ? 'ok' : 'bad', id: 'audit-verdict', text: v.message })];
    if (!v.intact) {
      parts.push(h('ul', { id: 'audit-breaks' }, ...v.breaks.map((b) =>
        h('li', { class: 'bad', 'data-seq': String(b.seq), 'data-kind': b.kind, text: b.message }))));
    }
    parts.push(h('p', { id: 'audit-confirmed', 'data-confirmation': v.confirmation, text: confirmation(v) }));
    parts.push(h('p', { id: 'audit-meaning', class: 'help', text: v.meaning }));
    out.replaceChildren(...parts);
    out.dataset.rows = String(v.rows);
    out.dataset.state = v.intact ? 'intact' : 'broken';
  } catch (e) {
    out.replaceChildren(h('p', { class: 'bad', text: errText(e) }));
    out.dataset.state = 'error';
  }
  await page();
}

// When the back office last confirmed the chain's head (record 0053), in the screen's
// words and time.
function confirmation(v) {
  if (v.confirmation === AUDIT_CONFIRMATION.CONFIRMED) return t('audit-confirmed', { when: formatDateTime(v.confirmed.at_ms), row: String(v.confirmed.seq) });
  if (v.confirmation === AUDIT_CONFIRMATION.NEVER) return t('audit-confirmed-never');
  return t('audit-confirmed-none'); // AUDIT_CONFIRMATION.NO_BACK_OFFICE
}

async function page() {
  let rows;
  try { rows = await invoke('audit_page', { limit: PAGE }); } catch (e) { $('audit-rows').replaceChildren(h('tr', {}, h('td', { colspan: '7', text: errText(e) }))); return; }
  const none = t('audit-nobody');
  $('audit-rows').replaceChildren(...rows.map((r) => h('tr', { 'data-seq': String(r.seq) },
    h('td', { class: 'num', text: String(r.seq) }),
    h('td', { text: formatDateTime(r.at_ms) }),
    h('td', { text: r.actor || none }),
    h('td', { text: r.approver || none }),
    h('td', { class: 'mono', text: r.action }),
    h('td', { class: 'mono', text: r.subject || '' }),
    h('td', { text: r.reason }))));
}
