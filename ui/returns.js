// The Returns form of a paid sale (issue #29, record 0117): under the sale's receipt,
// "Return items" opens a table of the sale's lines (sold, already returned, a quantity
// 0..left), a reason and, when the customer holds the sale's 領収書, the box saying it came
// back. Return goes through the approval dialog (Refund permission). The answer says
// what to hand back from the drawer and shows the return document, with Print. Text
// nodes only: item names are catalog text.

import { withApproval } from './approval.js';
import { invoke } from './bridge.js';
import { h, announce, alertLoud, errText } from './dom.js';
import { t } from './i18n.js';
import { resumeTender } from './tender.js';

/** The "Return items" button and its form for sale `cartId`; `onDone` after a return. */
export function returnPanel(cartId, onDone) {
  const open = h('button', { class: 'secondary', id: 'return-open', type: 'button', text: t('return-open') });
  const holder = h('div', { class: 'return-holder' });
  const box = h('section', { class: 'return-panel', 'data-cart': String(cartId) }, h('div', { class: 'actions' }, open), holder);
  open.addEventListener('click', async () => {
    if (holder.firstChild && !holder.dataset.done) { holder.replaceChildren(); return; }
    open.disabled = true;
    try {
      const f = await invoke('return_form', { cart: cartId });
      // The register's sale, when it can take an exchange (record 0123): the form offers it.
      const target = await invoke('exchange_target').catch(() => null);
      holder.dataset.done = '';
      const form = returnForm(cartId, f, holder, onDone, target && target.cart !== cartId ? target : null);
      holder.replaceChildren(form);
      // The form opens under a long receipt: brought into view, its first quantity focused.
      form.scrollIntoView({ block: 'start' });
      const first = holder.querySelector('input[type=number]:not([disabled])');
      if (first) first.focus({ preventScroll: true });
    } catch (e) {
      holder.replaceChildren(h('p', { class: 'bad', id: 'return-msg', 'data-code': (e && e.code) || 'error', text: errText(e) }));
    } finally { open.disabled = false; }
  });
  return box;
}

function returnForm(cartId, f, holder, onDone, target) {
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
  const ryoshusho = f.ryoshusho_outstanding ? h('input', { id: 'return-ryoshusho', type: 'checkbox' }) : null;
  const submit = h('button', { class: 'danger', id: 'return-submit', type: 'submit', text: t('return-submit') });
  const exchange = target && !f.lines.every((l) => l.sold - l.returned <= 0)
    ? h('button', { class: 'primary', id: 'exchange-submit', type: 'button', 'data-into': String(target.cart),
      text: t('exchange-submit', { total: target.open_display }) })
    : null;
  const msg = h('div', { id: 'return-msg', role: 'status' });
  const nothingLeft = f.lines.every((l) => l.sold - l.returned <= 0);
  const form = h('form', { class: 'refund-form return-form', id: 'return-form', autocomplete: 'off' },
    h('h3', { text: t('return-title') }),
    h('p', { class: 'help', text: nothingLeft ? t('return-nothing-left') : t('return-help') }),
    h('div', { class: 'table-wrap' }, h('table', { class: 'return-lines' },
      h('thead', {}, h('tr', {}, h('th', { text: t('return-col-item') }), h('th', { class: 'num', text: t('return-col-sold') }),
        h('th', { class: 'num', text: t('return-col-returned') }), h('th', { class: 'num', text: t('return-col-quantity') }))),
      h('tbody', {}, ...rows))),
    h('label', { for: 'return-reason' }, t('return-reason'), reason),
    ryoshusho ? h('label', { for: 'return-ryoshusho', class: 'check' }, ryoshusho, t('return-ryoshusho', { number: f.ryoshusho_outstanding })) : null,
    exchangeHelp('exchange-help', exchange, nothingLeft, target && t('exchange-help', { total: target.open_display })),
    h('div', { class: 'actions' }, submit, exchange), msg);
  let returning = false;   // one return per press: a second would give the money back twice
  const send = async (into) => {
    if (returning) return;
    // The quantities as typed: the command checks them again (and the ledger what is left).
    const lines = f.lines.map((l, i) => ({ line: l.line, quantity: Number(qtys[i].value || '0') }))
      .filter((x) => x.quantity !== 0);
    returning = true; submit.disabled = true; if (exchange) exchange.disabled = true;
    const args = { cart: cartId, lines, reason: reason.value, ryoshushoTakenBack: ryoshusho ? ryoshusho.checked : false };
    try {
      const r = into === null
        ? await withApproval((approval) => invoke('return_lines', { ...args, approval }))
        : await withApproval((approval) => invoke('exchange_lines', { ...args, into, approval }));
      holder.dataset.done = 'true';
      holder.replaceChildren(into === null ? returnDone(r) : exchangeDone(r));
      // What to hand back and the document are what the cashier reads next.
      holder.scrollIntoView({ block: 'start' });
      announce(r.message);
      if (onDone) onDone(r);
    } catch (err) {
      msg.replaceChildren(h('p', { class: 'bad', 'data-code': (err && err.code) || '', text: errText(err) }));
      alertLoud(errText(err));
    } finally { returning = false; submit.disabled = false; if (exchange) exchange.disabled = false; }
  };
  form.addEventListener('submit', (e) => { e.preventDefault(); send(null); });
  if (exchange) exchange.addEventListener('click', () => send(target.cart));
  return form;
}

/** The line above the form's buttons: with a sale open on the register (`exchange` is its
 * button), what the exchange does with that sale's total; with none, how to get the button.
 * Nothing when every line is already back (there is nothing to exchange). */
export function exchangeHelp(id, exchange, nothingLeft, text) {
  if (exchange) return h('p', { class: 'help', id, text });
  return nothingLeft ? null : h('p', { class: 'help', id: 'exchange-how', text: t('exchange-how') });
}

/** After an exchange: what is left to pay on the register (with the way there) or what
 * to hand back, the card refunds of the difference, and the return document. `print` as
 * `returnDone`'s: a restored sale's exchange (record 0153) passes `print_restored_return`. */
export function exchangeDone(r, print = (id) => invoke('print_return', { returnId: id })) {
  const done = returnDone(r, print);
  const first = done.querySelector('#return-done');
  first.id = 'exchange-done';
  first.dataset.credit = String(r.credit); first.dataset.due = String(r.due);
  if (r.due > 0) {
    const go = h('button', { class: 'primary', id: 'exchange-to-register', type: 'button', text: t('exchange-to-register') });
    go.addEventListener('click', async () => {
      const tab = document.querySelector('.tab[data-view="register"]');
      if (tab) tab.click();
      await resumeTender();
    });
    first.after(h('div', { class: 'actions' }, go));
  }
  return done;
}

/** After a return: the message (what to hand back), the card refunds, the document and Print.
 * `print` sends the document to the printer: a normal return's (`print_return`) unless a
 * restored sale's return passes its own (`print_restored_return`, record 0144); either way
 * the original until a copy may have come out, then REPRINT. */
export function returnDone(r, print = (id) => invoke('print_return', { returnId: id })) {
  const doc = h('pre', { class: 'receipt receipt-text', id: 'return-doc', 'aria-label': t('return-doc-title'),
    'data-number': r.number, 'data-reprint': String(r.next_print_reprint) });
  doc.textContent = r.document.join('\n');
  const button = h('button', { class: 'secondary', id: 'return-print', type: 'button',
    text: r.next_print_reprint ? t('return-reprint') : t('return-print') });
  const msg = h('p', { class: 'help', id: 'return-print-msg', role: 'status' });
  let printing = false;   // one press, one print: a second would be a reprint
  button.addEventListener('click', async () => {
    if (printing) return;
    printing = true; button.disabled = true;
    msg.textContent = t('return-printing'); msg.dataset.code = ''; msg.classList.remove('bad');
    try {
      const p = await print(r.return_id);
      msg.textContent = p.message; msg.dataset.code = 'printed';
      msg.dataset.printNo = String(p.print_no); msg.dataset.reprint = String(p.reprint);
      doc.textContent = p.document.join('\n'); doc.dataset.reprint = String(p.next_print_reprint);
      button.textContent = p.next_print_reprint ? t('return-reprint') : t('return-print');
      announce(p.message);
    } catch (e) {
      msg.textContent = errText(e); msg.dataset.code = (e && e.code) || 'error'; msg.classList.add('bad');
      alertLoud(errText(e));
    } finally { printing = false; button.disabled = false; }
  });
  return h('div', { class: 'return-result' },
    h('p', { class: 'ok', id: 'return-done', 'data-cash': String(r.cash_out), 'data-total': String(r.total), 'data-number': r.number, text: r.message }),
    ...r.lines.map((l) => h('p', { class: l.tone, 'data-key': l.checkout_key, text: `${l.amount_display} · ${l.state_label}` })),
    ...r.errors.map((x) => h('p', { class: 'bad', text: x })),
    ...(r.ryoshusho_kept ? [keptRyoshusho(r.ryoshusho_kept)] : []),
    h('h3', { text: t('return-doc-title') }),
    h('div', { class: 'actions' }, button), msg, doc);
}

/** The 領収書 came back at this return and the customer kept something (record 0145):
 * "Issue new 領収書 for ¥X", with the words of the one handed back; the document shown. */
function keptRyoshusho(k) {
  const issue = h('button', { class: 'secondary', id: 'ryoshusho-kept-issue', type: 'button',
    'data-total': String(k.total), 'data-replaces': k.replaces, text: t('return-ryoshusho-kept', { amount: k.total_display }) });
  const msg = h('p', { class: 'help', id: 'ryoshusho-kept-msg', role: 'status' });
  const doc = h('pre', { class: 'receipt receipt-text', id: 'ryoshusho-kept-text', hidden: true });
  let issuing = false;   // one press, one document: a second would be a reprint
  issue.addEventListener('click', async () => {
    if (issuing) return;
    issuing = true; issue.disabled = true;
    msg.classList.remove('bad'); msg.dataset.code = '';
    try {
      const r = await withApproval((approval) => invoke('issue_ryoshusho',
        { cart: k.cart_id, addressee: k.addressee, description: k.description, kept: true, approval }));
      doc.textContent = r.text.join('\n'); doc.hidden = false; doc.dataset.number = r.number;
      msg.textContent = r.message; msg.dataset.code = r.printed ? 'printed' : 'not_printed';
      announce(r.message);
    } catch (err) {
      msg.textContent = errText(err); msg.dataset.code = (err && err.code) || 'error'; msg.classList.add('bad');
      issue.disabled = false;
    } finally { issuing = false; }
  });
  return h('div', { class: 'ryoshusho-kept' }, h('div', { class: 'actions' }, issue), msg, doc);
}
