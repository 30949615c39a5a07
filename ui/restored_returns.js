// Return items of a sale restored from a replaced register (issue #29, record 0144): opened
// from Payments → Receipts by a receipt number only a predecessor's sale has, or from the
// restored payments list. The form says which register made the sale; Return goes through
// the approval dialog (Refund permission, enforced by the command). The answer says what to
// hand back from the drawer and shows the return document. Text nodes only.

import { withApproval } from './approval.js';
import { invoke } from './bridge.js';
import { h, announce, alertLoud, errText } from './dom.js';
import { formatDateTime, t } from './i18n.js';
import { returnDone } from './returns.js';

/** The Return items form of restored sale `sale` of predecessor `source`, loaded now. */
export function restoredReturnPanel(source, sale) {
  const box = h('section', { class: 'return-panel restored-return', id: 'restored-return', 'data-source': source, 'data-sale': String(sale) });
  (async () => {
    try {
      const f = await invoke('restored_return_form', { source, sale });
      box.replaceChildren(restoredForm(f, box));
      box.scrollIntoView({ block: 'start' });
      const first = box.querySelector('input[type=number]:not([disabled])');
      if (first) first.focus({ preventScroll: true });
    } catch (e) {
      box.replaceChildren(h('p', { class: 'bad', id: 'return-msg', 'data-code': (e && e.code) || 'error', text: errText(e) }));
    }
  })();
  return box;
}

function restoredForm(f, box) {
  const qtys = f.lines.map((l) => {
    const left = Math.max(0, l.sold - l.returned);
    return h('input', { id: `return-qty-${l.line}`, type: 'number', min: '0', max: String(left), step: '1', value: '0',
      inputmode: 'numeric', class: 'return-qty', disabled: left === 0,
      'aria-label': t('return-qty-label', { name: l.name, max: left }) });
  });
  const rows = f.lines.map((l, i) => h('tr', { 'data-line': String(l.line) },
    h('td', { text: l.name }), h('td', { class: 'num', text: String(l.sold) }),
    h('td', { class: 'num', id: `return-returned-${l.line}`, text: String(l.returned) }), h('td', { class: 'num' }, qtys[i])));
  const reason = h('input', { id: 'return-reason', type: 'text', maxlength: '200', autocomplete: 'off' });
  const submit = h('button', { class: 'danger', id: 'return-submit', type: 'submit', text: t('return-submit') });
  const msg = h('div', { id: 'return-msg', role: 'status' });
  const nothingLeft = f.lines.every((l) => l.sold - l.returned <= 0);
  const form = h('form', { class: 'refund-form return-form', id: 'return-form', autocomplete: 'off' },
    h('h3', { id: 'restored-return-title', text: t('restored-return-title', { number: f.receipt_no, name: f.register_name }) }),
    h('p', { class: 'help', text: t('restored-return-sale', { sale: f.sale, time: formatDateTime(f.completed_at_ms), total: f.total_display }) }),
    h('p', { class: 'help', text: nothingLeft ? t('return-nothing-left') : t('restored-return-help', { name: f.register_name }) }),
    h('div', { class: 'table-wrap' }, h('table', { class: 'return-lines' },
      h('thead', {}, h('tr', {}, h('th', { text: t('return-col-item') }), h('th', { class: 'num', text: t('return-col-sold') }),
        h('th', { class: 'num', text: t('return-col-returned') }), h('th', { class: 'num', text: t('return-col-quantity') }))),
      h('tbody', {}, ...rows))),
    h('label', { for: 'return-reason' }, t('return-reason'), reason),
    h('div', { class: 'actions' }, submit), msg);
  let returning = false;   // one return per press: a second would give the money back twice
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (returning) return;
    // The quantities as typed: the command checks them again (and the ledger what is left).
    const lines = f.lines.map((l, i) => ({ line: l.line, quantity: Number(qtys[i].value || '0') })).filter((x) => x.quantity !== 0);
    returning = true; submit.disabled = true;
    try {
      const r = await withApproval((approval) => invoke('return_restored_lines',
        { source: f.source, sale: f.sale, lines, reason: reason.value, approval }));
      box.replaceChildren(returnDone(r, (id) => invoke('print_restored_return', { returnId: id })));
      box.scrollIntoView({ block: 'start' });
      announce(r.message);
    } catch (err) {
      msg.replaceChildren(h('p', { class: 'bad', 'data-code': (err && err.code) || '', text: errText(err) }));
      alertLoud(errText(err));
    } finally { returning = false; submit.disabled = false; }
  });
  return form;
}
