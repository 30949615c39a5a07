// A paid sale's receipt on screen: the text the printer prints (80 mm, from the
// ledger through paydesk-receipt), drawn with text nodes only, and its Print /
// Reprint button. Printing never changes the sale; a printer that is off is said
// in words (printer_unreachable) and the sale stays paid.

import { invoke } from './bridge.js';
import { h, announce, alertLoud, errText } from './dom.js';
import { t } from './i18n.js';

// A printer saved (catalog.js) answers "No receipt printer is set" wherever a receipt
// panel still says it: the message goes, and Print is pressed again with the new one.
document.addEventListener('paydesk:printer-saved', (e) => {
  for (const msg of document.querySelectorAll('.receipt-panel #receipt-msg[data-code="printer_not_set"]')) {
    if (!e.detail) continue;   // the printer was removed: "not set" is still true
    msg.textContent = ''; msg.dataset.code = ''; msg.classList.remove('bad');
  }
});

/** A box that loads and shows the receipt of sale `cartId`, with its print button. */
export function receiptPanel(cartId) {
  const body = h('pre', { class: 'receipt receipt-text', id: 'sale-receipt', 'aria-label': t('receipt-screen-title') });
  const msg = h('p', { class: 'help', id: 'receipt-msg', role: 'status' });
  const print = h('button', { class: 'secondary', id: 'print-receipt', type: 'button', text: t('receipt-screen-print') });
  // An A4 page for an office printer, in a window of its own (record 0057).
  const page = h('button', { class: 'secondary', id: 'receipt-page', type: 'button', text: t('receipt-page-open'),
    onclick: async () => {
      try {
        const label = await invoke('open_receipt_page', { cart: cartId });
        box.dataset.page = label;
      } catch (e) { msg.textContent = errText(e); msg.dataset.code = (e && e.code) || 'error'; msg.classList.add('bad'); }
    } });
  // A formal receipt (領収書) on request: its form opens under the buttons.
  const formal = h('button', { class: 'secondary', id: 'ryoshusho-open', type: 'button', text: t('ryoshusho-screen-open'), disabled: true });
  let ryoshusho = null;
  // The buttons and their message above the paper: in view however long the receipt is.
  const box = h('div', { class: 'receipt-panel', 'data-cart': String(cartId) }, h('div', { class: 'actions' }, print, page, formal), msg, body);
  formal.addEventListener('click', () => {
    if (!ryoshusho) return;
    ryoshusho.form.hidden = !ryoshusho.form.hidden;
    if (ryoshusho.form.hidden) return;
    // The whole form in view, its issue button included: on a small screen the panel
    // scrolls, and a form whose button is below the fold looks like it has none.
    ryoshusho.form.querySelector('#ryoshusho-issue').scrollIntoView({ block: 'nearest' });
    ryoshusho.form.querySelector('#ryoshusho-addressee').focus({ preventScroll: true });
  });
  let printing = false;
  const load = async () => {
    try {
      const r = await invoke('get_receipt', { cart: cartId });
      body.textContent = r.text.join('\n');
      body.dataset.total = String(r.receipt.total);
      box.dataset.prints = String(r.prints);
      print.textContent = r.next_print_reprint ? t('receipt-screen-reprint') : t('receipt-screen-print');
      if (!ryoshusho) {
        ryoshusho = ryoshushoForm(cartId, r);
        box.insertBefore(ryoshusho.form, body);
      }
      formal.disabled = false;
      box.dataset.loaded = 'true';
    } catch (e) {
      body.textContent = t('receipt-screen-none', { why: errText(e) });
      body.classList.add('receipt-error');
      print.disabled = true; page.disabled = true;
      box.dataset.loaded = 'error';
    }
  };
  print.addEventListener('click', async () => {
    if (printing) return;
    printing = true; print.disabled = true;
    msg.textContent = t('receipt-screen-printing'); msg.dataset.code = ''; msg.classList.remove('bad');
    try {
      const r = await invoke('print_receipt', { cart: cartId });
      msg.textContent = r.message; msg.dataset.code = 'printed';
      announce(r.message);
    } catch (e) {
      msg.textContent = errText(e); msg.dataset.code = (e && e.code) || 'error'; msg.classList.add('bad');
      alertLoud(errText(e));
    } finally {
      printing = false; print.disabled = false;
      await load();
    }
  });
  load();
  return box;
}

/** The ryōshūsho (領収書, record 0112) of sale `cartId`: a small form (addressee, the
 *  description filled in the store's language) whose Issue records it — once per sale,
 *  every later issue a reissue of the first — prints it when a printer is set, and shows
 *  its text. `panel` is the receipt panel's data (get_receipt). */
function ryoshushoForm(cartId, panel) {
  const addressee = h('input', { id: 'ryoshusho-addressee', type: 'text', maxlength: '64', autocomplete: 'off' });
  const description = h('input', { id: 'ryoshusho-description', type: 'text', maxlength: '64', autocomplete: 'off' });
  const issue = h('button', { class: 'primary', id: 'ryoshusho-issue', type: 'submit', text: t('ryoshusho-screen-issue') });
  const msg = h('p', { class: 'help', id: 'ryoshusho-msg', role: 'status' });
  const doc = h('pre', { class: 'receipt receipt-text', id: 'ryoshusho-text', 'aria-label': t('ryoshusho-screen-title'), hidden: true });
  const form = h('form', { class: 'ryoshusho-form', id: 'ryoshusho-form', autocomplete: 'off', hidden: true },
    h('h3', { text: t('ryoshusho-screen-title') }),
    h('label', { for: 'ryoshusho-addressee' }, t('ryoshusho-screen-addressee'), addressee),
    h('label', { for: 'ryoshusho-description' }, t('ryoshusho-screen-description'), description),
    h('div', { class: 'actions' }, issue), msg, doc);
  // Filled from the sale: its ryōshūsho's own words when it has one (a reissue must
  // match them), else the store's usual description.
  const fill = (r) => {
    addressee.value = r.ryoshusho ? r.ryoshusho.addressee : '';
    description.value = r.ryoshusho ? r.ryoshusho.description : r.ryoshusho_description;
    issue.textContent = r.ryoshusho ? t('ryoshusho-screen-reissue') : t('ryoshusho-screen-issue');
  };
  fill(panel);
  let issuing = false;   // one issue per press: two would be an original and a reissue
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (issuing) return;
    issuing = true; issue.disabled = true;
    msg.classList.remove('bad'); msg.dataset.code = '';
    try {
      const r = await invoke('issue_ryoshusho', { cart: cartId, addressee: addressee.value, description: description.value });
      doc.textContent = r.text.join('\n'); doc.hidden = false;
      doc.dataset.number = r.number;
      doc.dataset.reprint = String(r.reprint);
      msg.textContent = r.message; msg.dataset.code = r.printed ? 'printed' : 'not_printed';
      issue.textContent = t('ryoshusho-screen-reissue');
      announce(r.message);
      // The document is what the cashier checks (the stamp box, the addressee): in view.
      doc.scrollIntoView({ block: 'start' });
    } catch (err) {
      msg.textContent = errText(err); msg.dataset.code = (err && err.code) || 'error'; msg.classList.add('bad');
    } finally {
      issuing = false; issue.disabled = false;
    }
  });
  return { form, fill };
}
