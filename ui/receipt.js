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
  // The buttons and their message above the paper: in view however long the receipt is.
  const box = h('div', { class: 'receipt-panel', 'data-cart': String(cartId) }, h('div', { class: 'actions' }, print, page), msg, body);
  let printing = false;
  const load = async () => {
    try {
      const r = await invoke('get_receipt', { cart: cartId });
      body.textContent = r.text.join('\n');
      body.dataset.total = String(r.receipt.total);
      box.dataset.prints = String(r.prints);
      print.textContent = r.next_print_reprint ? t('receipt-screen-reprint') : t('receipt-screen-print');
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
