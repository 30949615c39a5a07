// The payments screen: today's payments, one payment's detail with its refund form,
// and its timeline drawn as a picture. Each row's and event's tone comes from the
// register (views::state_tone); here a tone only picks a colour.

import { withApproval } from './approval.js';
import { receiptPanel } from './receipt.js';
import { invoke } from './bridge.js';
import { $, h, s, announce, alertLoud, errText, timeOf } from './dom.js';
import { formatDateTime, t } from './i18n.js';

/** The timeline's colours for the tones (the same as --ok, --warn, --bad, --info in style.css). */
const TONE_COLOR = { ok: '#15803d', warn: '#b45309', bad: '#b91c1c', info: '#1d4ed8' };

let selectedPayment = null;
/** The sale whose receipt the detail pane shows (from the Receipts list), if any. */
let selectedSale = null;

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
  if (selectedSale !== null) return;
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

/** Shows sale `cartId`'s receipt with its Print / Reprint and printable-page buttons. */
function selectSale(cartId) {
  selectedSale = cartId; selectedPayment = null;
  for (const tr of $('payments-rows').children) tr.setAttribute('aria-selected', 'false');
  for (const tr of $('sales-rows').children) tr.setAttribute('aria-selected', String(tr.dataset.cart === String(cartId)));
  $('payment-detail').replaceChildren(h('h2', { text: t('receipt-screen-of-sale', { id: cartId }) }), receiptPanel(cartId));
}

async function selectPayment(id) {
  selectedPayment = id; selectedSale = null;
  for (const tr of $('sales-rows').children) tr.setAttribute('aria-selected', 'false');
  for (const tr of $('payments-rows').children) tr.setAttribute('aria-selected', String(tr.dataset.id === String(id)));
  let p;
  try { p = await invoke('get_payment', { id }); } catch (e) { announce(errText(e), 'bad'); return; }
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
  box.replaceChildren(
    h('h2', { text: `${p.amount_display} · ${p.state_label}` }),
    h('dl', {},
      h('dt', { text: t('payments-col-time') }), h('dd', { text: formatDateTime(Number(new Date(p.created_at))) }),
      h('dt', { text: t('payment-checkout-key') }), h('dd', { text: p.checkout_key }),
      h('dt', { text: t('payment-psp-ref') }), h('dd', { text: p.psp_payment_id || '—' }),
      h('dt', { text: t('card-label') }), h('dd', { text: p.card_label || '—' }),
      h('dt', { text: t('payment-refunded') }), h('dd', { text: p.refunded_display })),
    p.cart_id ? receiptSlot(p.cart_id) : null,
    h('h3', { text: t('payment-timeline') }),
    h('div', { class: 'timeline', id: 'timeline' }, timelineSvg(p.timeline)),
    refundable > 0 ? h('form', { class: 'refund-form', onsubmit: (e) => { e.preventDefault(); refund(false); } },
      h('label', { for: 'refund-amount' }, t('refund-amount', { amount: p.refundable_display }), amount),
      h('button', { class: 'secondary', id: 'refund-partial', type: 'submit', text: t('refund-partial') }),
      h('button', { class: 'danger', id: 'refund-full', type: 'button', text: t('refund-full'), onclick: () => refund(true) }),
      h('p', { id: 'refund-help', class: 'help', text: t('refund-help') }))
      : h('p', { class: 'help', text: p.refund_note || t('refund-nothing-left') }));
}

/** "Print receipt / Reprint" of the payment's sale: the receipt and its button, on demand. */
function receiptSlot(cartId) {
  const slot = h('div', { class: 'receipt-slot', id: 'payment-receipt-slot' });
  const show = h('button', { class: 'secondary', id: 'payment-receipt', type: 'button', text: t('receipt-screen-of-sale', { id: cartId }),
    onclick: () => slot.replaceChildren(receiptPanel(cartId)) });
  slot.append(show);
  return slot;
}

/** The payment's timeline as a picture: one node per event, attempt latencies as bars. */
function timelineSvg(events) {
  const W = 640, rowH = 27, top = 10, left = 86, barX = 360, barMax = 260;
  const H = top * 2 + Math.max(1, events.length) * rowH;
  const t0 = events.length ? Number(events[0].at) : 0;
  const maxLat = Math.max(1, ...events.map((e) => e.latency_ms || 0));
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': t('timeline-label', { events: events.map((e) => e.label).join(t('timeline-then')) }) });
  svg.append(s('line', { x1: left, y1: top, x2: left, y2: H - top, stroke: '#cbd5e1', 'stroke-width': 3 }));
  events.forEach((e, i) => {
    const y = top + i * rowH + rowH / 2;
    const c = TONE_COLOR[e.tone] || '#475569';
    const dt = ((Number(e.at) - t0) / 1000).toFixed(2);
    svg.append(
      s('text', { x: left - 14, y: y + 4, 'text-anchor': 'end', 'font-size': 12, fill: '#475569' }, `+${dt} s`),
      e.kind === 'attempt' || e.attempt
        ? s('rect', { x: left - 7, y: y - 7, width: 14, height: 14, rx: 3, fill: c })
        : s('circle', { cx: left, cy: y, r: 7, fill: c }),
      s('text', { x: left + 16, y: y + 4, 'font-size': 13, fill: '#0f172a' }, e.label));
    if (e.latency_ms) {
      const w = Math.max(2, Math.round((e.latency_ms / maxLat) * (barMax - 60)));
      svg.append(
        s('rect', { x: barX, y: y - 6, width: w, height: 12, rx: 2, fill: c, 'fill-opacity': 0.35 }),
        s('text', { x: barX + w + 6, y: y + 4, 'font-size': 11, fill: '#475569' }, `${e.latency_ms} ms`));
    }
  });
  return svg;
}
