// Return items of a sale restored from a replaced register (issue #29, record 0144): opened
// from Payments → Receipts by a receipt number only a predecessor's sale has, or from the
// restored payments list. The form says which register made the sale; Return goes through
// the approval dialog (Refund permission, enforced by the command). The answer says what to
// hand back from the drawer and shows the return document. When the register has a sale that
// can take an exchange's credit, "Exchange" sits beside Return (record 0153): the goods pay
// that sale, and the answer is a normal exchange's (`exchangeDone`). Text nodes only.

import { withApproval } from './approval.js';
import { invoke } from './bridge.js';
import { h, announce, alertLoud, errText } from './dom.js';
import { formatDateTime, t } from './i18n.js';
import { exchangeDone, exchangeHelp, returnDone } from './returns.js';

/** The Return items form of restored sale `sale` of predecessor `source`, loaded now. */
export function restoredReturnPanel(source, sale) {
  const box = h('section', { class: 'return-panel restored-return', id: 'restored-return', 'data-source': source, 'data-sale': String(sale) });
  (async () => {
    try {
      const f = await invoke('restored_return_form', { source, sale });
      // The register's sale, when it can take an exchange (record 0153): the form offers it.
      const target = await invoke('exchange_target').catch(() => null);
      box.replaceChildren(restoredForm(f, box, target));
      box.scrollIntoView({ block: 'start' });
      const first = box.querySelector('input[type=number]:not([disabled])');
      if (first) first.focus({ preventScroll: true });
    } catch (e) {
      box.replaceChildren(h('p', { class: 'bad', id: 'return-msg', 'data-code': (e && e.code) || 'error', text: errText(e) }));
    }
  })();
  return box;
}

function restoredForm(f, box, target) {
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
  const nothingLeft = f.lines.every((l) => l.sold - l.returned <= 0);
  const exchange = target && !nothingLeft
    ? h('button', { class: 'primary', id: 'exchange-submit', type: 'button', 'data-into': String(target.cart),
      text: t('exchange-submit', { total: target.open_display }) })
    : null;
  const msg = h('div', { id: 'return-msg', role: 'status' });
  const form = h('form', { class: 'refund-form return-form', id: 'return-form', autocomplete: 'off' },
    h('h3', { id: 'restored-return-title', text: t('restored-return-title', { number: f.receipt_no, name: f.register_name }) }),
    h('p', { class: 'help', text: t('restored-return-sale', { sale: f.sale, time: formatDateTime(f.completed_at_ms), total: f.total_display }) }),
    h('p', { class: 'help', text: nothingLeft ? t('return-nothing-left') : t('restored-return-help', { name: f.register_name }) }),
    h('div', { class: 'table-wrap' }, h('table', { class: 'return-lines' },
      h('thead', {}, h('tr', {}, h('th', { text: t('return-col-item') }), h('th', { class: 'num', text: t('return-col-sold') }),
        h('th', { class: 'num', text: t('return-col-returned') }), h('th', { class: 'num', text: t('return-col-quantity') }))),
      h('tbody', {}, ...rows))),
    h('label', { for: 'return-reason' }, t('return-reason'), reason),
    exchangeHelp('restored-exchange-help', exchange, nothingLeft,
      target && t('restored-exchange-help', { name: f.register_name, total: target.open_display })),
    h('div', { class: 'actions' }, submit, exchange), msg);
  const print = (id) => invoke('print_restored_return', { returnId: id });
  // One return or exchange per press: a second would give the money back twice.
  let returning = false;
  const send = async (into) => {
    if (returning) return;
    // The quantities as typed: the command checks them again (and the ledger what is left).
    const lines = f.lines.map((l, i) => ({ line: l.line, quantity: Number(qtys[i].value || '0') })).filter((x) => x.quantity !== 0);
    returning = true; submit.disabled = true; if (exchange) exchange.disabled = true;
    const args = { source: f.source, sale: f.sale, lines, reason: reason.value };
    try {
      const r = into === null
        ? await withApproval((approval) => invoke('return_restored_lines', { ...args, approval }))
        : await withApproval((approval) => invoke('exchange_restored_lines', { ...args, into, approval }));
      box.replaceChildren(into === null ? returnDone(r, print) : exchangeDone(r, print));
      box.scrollIntoView({ block: 'start' });
      announce(r.message);
    } catch (err) {
      msg.replaceChildren(h('p', { class: 'bad', 'data-code': (err && err.code) || '', text: errText(err) }));
      alertLoud(errText(err));
    } finally { returning = false; submit.disabled = false; if (exchange) exchange.disabled = false; }
  };
  form.addEventListener('submit', (e) => { e.preventDefault(); send(null); });
  if (exchange) exchange.addEventListener('click', () => send(target.cart));
  return form;
}
