// The payments screen: today's payments, one payment's detail with its refund form,
// and its timeline drawn as a picture. Each row's and event's tone comes from the
// register (views::state_tone); here a tone only picks a colour.

import { withApproval } from './approval.js';
import { receiptPanel } from './receipt.js';
import { returnPanel } from './returns.js';
import { restoredReturnPanel } from './restored_returns.js';
import { invoke } from './bridge.js';
import { TIMELINE_KIND, TONE } from './contract.js';
import { $, h, s, announce, alertLoud, errText, timeOf } from './dom.js';
import { formatDateTime, t } from './i18n.js';

/** The timeline's colours for the tones (the same as --ok, --warn, --bad, --info in style.css). */
const TONE_COLOR = { [TONE.OK]: '#15803d', [TONE.WARN]: '#b45309', [TONE.BAD]: '#b91c1c', [TONE.INFO]: '#1d4ed8' };

let selectedPayment = null;
/** The sale whose receipt the detail pane shows (from the Receipts list), if any. */
let selectedSale = null;
/** The restored sale (`{source, sale}`) whose Return items the detail pane shows, if any:
 *  like a selected sale, it is not replaced when the payments list refreshes (a return's own
 *  refund refreshes it, and would otherwise take the result and its document off the screen). */
let restoredShown = null;
/** The picker of the sales a receipt number is on (record 0159) is on show: kept, like a
 *  selected sale, when the payments list refreshes, until the cashier picks one. */
let pickShown = false;

/** Lists the payments (newest first) and shows the selected one, or the first. */
export async function loadPayments() {
  let list;
  try { list = await invoke('list_payments'); } catch (e) { announce(errText(e), 'bad'); return; }
  const rows = $('payments-rows');
  rows.replaceChildren(...list.map((p) => {
    const open = h('button', { type: 'button', text: timeOf(p.created_at), 'aria-label': t('payments-row-label', { amount: p.amount_display, time: timeOf(p.created_at), state: p.state_label }),
      onclick: () => selectPayment(p.id) });
    return h('tr', { 'data-id': p.id, 'aria-selected': String(p.id === selectedPayment), onclick: () => selectPayment(p.id) },
      h('td', {}, open), h('td', { class: 'num', text: p.amount_display }),
      h('td', {}, h('span', { class: 'state ' + p.tone, text: p.state_label })),
      h('td', { class: 'num', text: String(p.attempts) }));
  }));
  $('payments-empty').hidden = list.length > 0;
  loadSales(null);
  if (selectedSale !== null || restoredShown !== null || pickShown) return;
  if (selectedPayment === null && list.length) selectPayment(list[0].id);
  else if (selectedPayment !== null) selectPayment(selectedPayment);
}

/** The Receipts list: every paid sale (cash, card or split), newest first, a page at a
 *  time; `before` continues after the last page shown. */
async function loadSales(before) {
  let page;
  try { page = await invoke('list_sales', { before }); } catch (e) { announce(errText(e), 'bad'); return; }
  const rows = page.sales.map((s) => {
    const show = h('button', { type: 'button', class: 'sale-show', id: `sale-show-${s.cart_id}`, text: t('sales-show'),
      'aria-label': t('sales-row-label', { no: s.receipt_no, total: s.total_display, time: s.issued_at }),
      onclick: () => selectSale(s.cart_id) });
    return h('tr', { 'data-cart': String(s.cart_id), 'aria-selected': String(s.cart_id === selectedSale) },
      h('td', { text: s.issued_at }), h('td', { class: 'num', text: s.receipt_no }),
      h('td', { class: 'num', text: s.total_display }), h('td', { text: s.tenders }), h('td', {}, show));
  });
  if (before === null) $('sales-rows').replaceChildren(...rows); else $('sales-rows').append(...rows);
  $('sales-empty').hidden = $('sales-rows').children.length > 0;
  const more = $('sales-more');
  more.hidden = page.next_before === null || page.next_before === undefined;
  more.onclick = () => loadSales(page.next_before);
}

/** Payments → Receipts' number field: a receipt number typed or scanned (its barcode)
 *  opens that sale with its Return items form, as a return starts at the counter. The
 *  number can be on this register's own sale and on replaced registers' restored sales
 *  (record 0159): then the cashier picks the one on the customer's paper. */
export function initReceiptFind() {
  $('sales-find-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const msg = $('sales-find-msg');
    const field = $('sales-find');
    try {
      const found = await invoke('find_receipt_candidates', { number: field.value });
      msg.hidden = true; msg.textContent = ''; field.value = '';
      openReceiptCandidates(found);
    } catch (err) {
      msg.textContent = errText(err); msg.dataset.code = (err && err.code) || 'error'; msg.hidden = false;
      field.select();
      alertLoud(errText(err));
    }
  });
}

/** The sales a receipt number is on (`find_receipt_candidates`): one opens at once, several
 *  are listed for the cashier to pick from — never one picked for them. */
export function openReceiptCandidates(found) {
  if (found.candidates.length === 1 && found.found === 1) openCandidate(found.candidates[0]);
  else showReceiptPick(found);
}

function openCandidate(c) {
  pickShown = false;
  if (c.kind === 'own') openSaleReturn(c.cart); else openRestoredReturn(c.source, c.sale);
}

/** Where a candidate was sold, in the cashier's words. */
function whereSold(c) {
  return c.kind === 'own' ? t('receipt-pick-this-register') : t('receipt-pick-from', { name: c.register_name });
}

/** "This number is on 2 receipts. Pick the one the customer has:" and one button per sale
 *  (where, when, how much); Up/Down move between them, Enter picks. */
function showReceiptPick(found) {
  selectedSale = null; selectedPayment = null; restoredShown = null; pickShown = true;
  for (const tr of $('payments-rows').children) tr.setAttribute('aria-selected', 'false');
  for (const tr of $('sales-rows').children) tr.setAttribute('aria-selected', 'false');
  const number = found.candidates[0].receipt_no;
  const buttons = found.candidates.map((c, i) => h('button', {
    type: 'button', class: 'receipt-pick-choice', id: `receipt-pick-${i}`, 'data-kind': c.kind, 'data-sale': String(c.sale),
    'data-source': c.source || '',
    'aria-label': t('receipt-pick-choice-label', { register: whereSold(c), time: c.issued_at, total: c.total_display }),
    onclick: () => openCandidate(c),
  }, h('span', { class: 'pick-where', text: whereSold(c) }), h('span', { class: 'pick-when', text: c.issued_at }),
  h('span', { class: 'pick-total', text: c.total_display })));
  const list = h('ul', { class: 'receipt-pick-list', role: 'group', 'aria-labelledby': 'receipt-pick-title' }, ...buttons.map((b) => h('li', {}, b)));
  list.addEventListener('keydown', (e) => {
    const at = buttons.indexOf(document.activeElement);
    if (at < 0 || (e.key !== 'ArrowDown' && e.key !== 'ArrowUp')) return;
    e.preventDefault();
    buttons[(at + (e.key === 'ArrowDown' ? 1 : buttons.length - 1)) % buttons.length].focus();
  });
  const more = found.found > found.candidates.length
    ? h('p', { class: 'help', id: 'receipt-pick-more', text: t('receipt-pick-more', { found: found.found, shown: found.candidates.length }) }) : '';
  $('payment-detail').replaceChildren(h('section', { class: 'receipt-pick', id: 'receipt-pick', 'data-number': number },
    h('h2', { id: 'receipt-pick-title', text: t('receipt-pick-title', { number, count: found.found }) }),
    h('p', { class: 'help', text: t('receipt-pick-help') }),
    list, more));
  // The focus enters the list, whose label (the title) a screen reader reads with it.
  buttons[0].focus();
}

/** Shows restored sale `sale` of replaced register `source` with its Return items form. */
export function openRestoredReturn(source, sale) {
  selectedSale = null; selectedPayment = null; restoredShown = { source, sale }; pickShown = false;
  for (const tr of $('payments-rows').children) tr.setAttribute('aria-selected', 'false');
  for (const tr of $('sales-rows').children) tr.setAttribute('aria-selected', 'false');
  $('payment-detail').replaceChildren(restoredReturnPanel(source, sale));
}

/** Shows paid sale `cart` with its Return items form open (a receipt's number typed or
 *  scanned, here or at the register's scan field). */
export function openSaleReturn(cart) {
  selectSale(cart);
  const open = document.querySelector('#payment-detail #return-open');
  if (open) open.click();
}

/** Shows sale `cartId`'s receipt with its Print / Reprint and printable-page buttons. */
function selectSale(cartId) {
  selectedSale = cartId; selectedPayment = null; restoredShown = null; pickShown = false;
  for (const tr of $('payments-rows').children) tr.setAttribute('aria-selected', 'false');
  for (const tr of $('sales-rows').children) tr.setAttribute('aria-selected', String(tr.dataset.cart === String(cartId)));
  $('payment-detail').replaceChildren(h('h2', { text: t('receipt-screen-of-sale', { id: cartId }) }), receiptPanel(cartId), returnPanel(cartId, () => loadPayments()), saleRefundForm(cartId));
}

/** Refund from a sale (cash, card or split): cards back to their card, the rest in cash. */
function saleRefundForm(cartId) {
  const amount = h('input', { id: 'sale-refund-amount', type: 'text', inputmode: 'decimal', maxlength: '24', autocomplete: 'off' });
  const reason = h('input', { id: 'sale-refund-reason', type: 'text', maxlength: '200', autocomplete: 'off' });
  const msg = h('div', { id: 'sale-refund-msg', role: 'status' });
  const ryoshusho = h('input', { id: 'sale-refund-ryoshusho', type: 'checkbox' });
  const button = h('button', { class: 'danger', id: 'sale-refund', type: 'submit', text: t('sale-refund-button') });
  let refunding = false;   // one refund per press: a second would take money again
  const form = h('form', { class: 'refund-form', id: 'sale-refund-form', autocomplete: 'off' },
    h('h3', { text: t('sale-refund-title') }),
    h('p', { class: 'help', text: t('sale-refund-help') }),
    h('label', { for: 'sale-refund-amount' }, t('sale-refund-amount'), amount),
    h('label', { for: 'sale-refund-reason' }, t('sale-refund-reason'), reason),
    h('label', { for: 'sale-refund-ryoshusho', class: 'check' }, ryoshusho, t('sale-refund-ryoshusho')),
    button, msg);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (refunding) return;
    refunding = true; button.disabled = true;
    try {
      const r = await withApproval((approval) => invoke('refund_sale', { cart: cartId, amount: amount.value, reason: reason.value, approval, ryoshushoTakenBack: ryoshusho.checked }));
      msg.replaceChildren(h('p', { class: 'ok', id: 'sale-refund-done', 'data-cash': String(r.cash_out), text: r.message }),
        ...r.lines.map((l) => h('p', { class: l.tone, 'data-key': l.checkout_key, text: `${l.amount_display} · ${l.state_label}` })),
        ...r.errors.map((x) => h('p', { class: 'bad', text: x })));
      announce(r.message);
      loadPayments();
    } catch (err) {
      msg.replaceChildren(h('p', { class: 'bad', 'data-code': (err && err.code) || '', text: errText(err) }));
      alertLoud(errText(err));
    } finally { refunding = false; button.disabled = false; }
  });
  return form;
}

async function selectPayment(id) {
  selectedPayment = id; selectedSale = null; restoredShown = null; pickShown = false;
  for (const tr of $('sales-rows').children) tr.setAttribute('aria-selected', 'false');
  for (const tr of $('payments-rows').children) tr.setAttribute('aria-selected', String(tr.dataset.id === String(id)));
  let p;
  try { p = await invoke('get_payment', { id }); } catch (e) { announce(errText(e), 'bad'); return; }
  // Something else was put on show meanwhile (a receipt number's sale or its picker): keep it.
  if (selectedPayment !== id) return;
  const box = $('payment-detail');
  const refundable = p.refundable;
  const amount = h('input', { id: 'refund-amount', type: 'text', inputmode: 'decimal', value: p.refundable_display_plain,
    'aria-describedby': 'refund-help' });
  // One refund at a time from this form: a double click or a repeated Enter must not
  // send a second refund (each would get its own key, so the PSP would pay both).
  let refunding = false;
  const refund = async (full) => {
    if (refunding) return;
    refunding = true;
    const buttons = [...box.querySelectorAll('.refund-form button')];
    for (const b of buttons) b.disabled = true;
    try {
      const r = await withApproval((approval) => invoke('refund', { paymentId: id, amount: full ? null : amount.value, approval }));
      announce(r.message);
      selectPayment(id); loadPayments();
    } catch (e) { alertLoud(errText(e)); } finally {
      refunding = false;
      for (const b of buttons) b.disabled = false;
    }
  };
  const svg = timelineSvg(p.timeline);
  box.replaceChildren(
    h('h2', { text: `${p.amount_display} · ${p.state_label}` }),
    h('dl', {},
      h('dt', { text: t('payments-col-time') }), h('dd', { text: formatDateTime(Number(new Date(p.created_at))) }),
      h('dt', { text: t('payment-checkout-key') }), h('dd', { text: p.checkout_key }),
      h('dt', { text: t('payment-psp-ref') }), h('dd', { text: p.psp_payment_id || '—' }),
      h('dt', { text: t('card-label') }), h('dd', { text: p.card_label || '—' }),
      h('dt', { text: t('payment-refunded') }), h('dd', { text: p.refunded_display })),
    p.cart_id ? receiptSlot(p.cart_id) : '',   // not null: replaceChildren would write "null"
    h('h3', { text: t('payment-timeline') }),
    h('div', { class: 'timeline', id: 'timeline' }, svg),
    refundable > 0 ? h('form', { class: 'refund-form', onsubmit: (e) => { e.preventDefault(); refund(false); } },
      h('label', { for: 'refund-amount' }, t('refund-amount', { amount: p.refundable_display }), amount),
      h('button', { class: 'secondary', id: 'refund-partial', type: 'submit', text: t('refund-partial') }),
      h('button', { class: 'danger', id: 'refund-full', type: 'button', text: t('refund-full'), onclick: () => refund(true) }),
      h('p', { id: 'refund-help', class: 'help', text: t('refund-help') }))
      : h('p', { class: 'help', text: p.refund_note || t('refund-nothing-left') }),
    // Why "up to" is less than what is left: an exchange's new sale is paid by that part.
    p.held_note ? h('p', { class: 'help', id: 'refund-held', text: p.held_note }) : '');
  fitTimeline(svg);
}

/** "Print receipt / Reprint" of the payment's sale: the receipt and its button, on demand. */
function receiptSlot(cartId) {
  const slot = h('div', { class: 'receipt-slot', id: 'payment-receipt-slot' });
  const show = h('button', { class: 'secondary', id: 'payment-receipt', type: 'button', text: t('receipt-screen-of-sale', { id: cartId }),
    onclick: () => slot.replaceChildren(receiptPanel(cartId)) });
  slot.append(show);
  return slot;
}

/** The payment's timeline as a picture: one node per event, its label on its own line
 *  and its attempt latency as a bar under it, so a label never runs over a bar. A label
 *  longer than the picture is cut short with "…" once drawn (fitTimeline); its whole
 *  wording stays in its title and in the picture's label. */
function timelineSvg(events) {
  const { W, top, left, labelX, right, rowH, barRowH } = TL;
  const rows = [];
  let y = top;
  for (const e of events) { rows.push(y); y += e.latency_ms ? barRowH : rowH; }
  const H = Math.max(y, top + rowH) + top;
  const t0 = events.length ? Number(events[0].at) : 0;
  const maxLat = Math.max(1, ...events.map((e) => e.latency_ms || 0));
  const barMax = right - labelX - 70;   // room for "12345 ms" after the longest bar
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': t('timeline-label', { events: events.map((e) => e.label).join(t('timeline-then')) }) });
  svg.append(s('line', { x1: left, y1: top, x2: left, y2: H - top, stroke: '#cbd5e1', 'stroke-width': 3 }));
  events.forEach((e, i) => {
    const cy = rows[i] + rowH / 2;
    const c = TONE_COLOR[e.tone] || '#475569';
    const dt = ((Number(e.at) - t0) / 1000).toFixed(2);
    svg.append(
      s('text', { x: left - 14, y: cy + 4, 'text-anchor': 'end', 'font-size': 12, fill: '#475569' }, `+${dt} s`),
      e.kind === TIMELINE_KIND.ATTEMPT || e.attempt
        ? s('rect', { x: left - 7, y: cy - 7, width: 14, height: 14, rx: 3, fill: c })
        : s('circle', { cx: left, cy, r: 7, fill: c }),
      s('g', { class: 'tl-label' }, s('title', {}, e.label), s('text', { x: labelX, y: cy + 4, 'font-size': 13, fill: '#0f172a' }, e.label)));
    if (e.latency_ms) {
      const by = rows[i] + rowH;
      const w = Math.max(2, Math.round((e.latency_ms / maxLat) * barMax));
      svg.append(
        s('rect', { class: 'tl-bar', x: labelX, y: by, width: w, height: 10, rx: 2, fill: c, 'fill-opacity': 0.35 }),
        s('text', { x: labelX + w + 6, y: by + 9, 'font-size': 11, fill: '#475569' }, `${e.latency_ms} ms`));
    }
  });
  return svg;
}

/** The timeline's geometry (viewBox units). */
const TL = { W: 640, top: 10, left: 86, labelX: 102, right: 632, rowH: 26, barRowH: 42 };

/** Cuts each label that would run out of the picture short with "…" (measured as
 *  drawn: the picture must be in the page). */
function fitTimeline(svg) {
  const max = TL.right - TL.labelX;
  for (const g of svg.querySelectorAll('.tl-label')) {
    const text = g.querySelector('text');
    const full = g.querySelector('title').textContent;
    if (text.getComputedTextLength() <= max) continue;
    let lo = 0, hi = full.length;
    while (lo < hi) {   // the longest start of the label that fits with its "…"
      const mid = Math.ceil((lo + hi) / 2);
      text.textContent = full.slice(0, mid) + '…';
      if (text.getComputedTextLength() <= max) lo = mid; else hi = mid - 1;
    }
    text.textContent = full.slice(0, lo).trimEnd() + '…';
  }
}
