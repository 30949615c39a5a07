// The register screen: catalog, barcode field and cart on the left and right, and
// the checkout panel over the cart (live progress, then the receipt, the decline or
// the unknown outcome with its override).

import { withApproval } from './approval.js';
import { invoke } from './bridge.js';
import { ERROR, OUTCOME_KIND, PRICE_KIND, PROGRESS_KIND, SALE_UNIT, TAX_CLASS, TONE } from './contract.js';
import { $, h, announce, alertLoud, errText, timeOf } from './dom.js';
import { t } from './i18n.js';
import { refreshStatus } from './status.js';
import { closeTenderDone, initTender, isTenderOpen, openTender, refreshTender, resumeTender, showIfPaidElsewhere, tenderDoneButton, tenderKey } from './tender.js';
import { receiptPanel } from './receipt.js';
import { initHeld, refreshHeld, syncHoldButton } from './held.js';
import { exemptRows, initExempt, syncExempt } from './exempt.js';
import { openShiftOffer } from './shift.js';
import { initOpenPrice, loadDepartments, openPrice } from './open_price.js';
import { emptyText, initSearch, loadTabs, shownItems } from './search.js';
import { initWeigh, openWeigh } from './weighed.js';

let catalog = [];
let cart = null;
let checkoutOpen = false;   // the checkout panel covers the cart
let charging = false;       // a charge call is in flight (the engine guards too)
let resultShownAt = 0;      // when the checkout result was last drawn (ms)

let visible = true;          // the register is the screen on show

/** Puts the cursor in the barcode field when the register is on show and the cart in view. */
export function focusScan() {
  if (visible && !checkoutOpen && !isTenderOpen()) $('scan').focus();
}

/** The "New sale" button of a sale that is over (paid, or canceled), when one is on
 *  show; null otherwise (no panel, or a payment still open, declined or unknown). */
export function nextSaleButton() {
  if (checkoutOpen) {
    const kind = $('checkout').dataset.kind;
    const done = kind === OUTCOME_KIND.APPROVED || kind === OUTCOME_KIND.ACCEPTED_OFFLINE || kind === OUTCOME_KIND.AUTHORIZED;
    return done ? $('new-sale') : null;
  }
  return tenderDoneButton();
}

/** Called when the screens switch: whether the register is the one on show. Back on
 *  the register over a finished sale, the cursor is on its New sale button again (the
 *  focus was lost with the screen that hid it), so Enter starts the next sale. */
export function setVisible(on) {
  visible = on;
  if (!on) return;
  const next = nextSaleButton();
  if (next) next.focus(); else focusScan();
  if (!isTenderOpen()) {
    showIfPaidElsewhere().then(() => {
      const n = nextSaleButton();
      if (visible && n) n.focus();
    });
  }
}

/** Whether the checkout or tender panel covers the cart (F12 and stray keys wait then). */
export const isCheckoutOpen = () => checkoutOpen || isTenderOpen();

/** The tender keys (F6 cash, F7 card/split, F8 cancel, Esc back); true when handled. */
export function registerTenderKey(e) {
  if (checkoutOpen) return false;
  if (isTenderOpen()) return tenderKey(e);
  if ((e.key === 'F6' || e.key === 'F7') && cart && cart.lines.length && !charging) {
    openTender(e.key === 'F6' ? 'cash' : 'card');
    return true;
  }
  return false;
}

function renderCatalog() {
  const box = $('catalog');
  const shown = shownItems(catalog);
  if (!shown.length && emptyText()) { box.replaceChildren(h('p', { class: 'empty', text: emptyText() })); return; }
  box.replaceChildren(...shown.map((it) =>
    h('button', {
      class: 'item', type: 'button', role: 'listitem', 'data-sku': it.sku,
      'aria-label': t('catalog-item-label', { name: it.name, price: it.price_display, sku: it.sku }),
      // An open-price item asks for its price (record 0126), a weighed one its grams (0134).
      onclick: () => {
        if (it.price_kind === PRICE_KIND.OPEN) openPrice({ sku: it.sku, name: it.name });
        else if (it.unit !== SALE_UNIT.PIECE) openWeigh(it, renderCart);
        else scan(it.sku, true);
      },
    },
      h('span', { class: 'name', text: it.name }),
      h('span', { class: 'sku', text: it.barcode ? `${it.sku} · ${it.barcode}` : it.sku }),
      h('span', { class: 'price', text: it.price_display }))));
}

export function renderCart(c) {
  // Another sale: what was refused in the last one (an unknown code, still in the
  // field) is not news.
  if (cart && cart.id !== c.id && !$('scan-error').hidden) { scanError(''); $('scan').value = ''; }
  cart = c;
  const fixed = c.tax_locked;
  const lines = $('cart-lines');
  lines.replaceChildren(...c.lines.map((l) => {
    // A typed or label price shares its SKU with other lines: it is changed by its number.
    const own = l.by_number;
    const setQty = (q) => (own ? setLineQty(l.line_no, q) : setQtyOf(l.sku, q));
    const qty = h('input', {
      type: 'number', min: '0', max: '999', value: String(l.quantity), inputmode: 'numeric',
      'aria-label': t('cart-qty-label', { name: l.name }), disabled: c.locked,
      onchange: (e) => setQty(e.target.value),
    });
    const name = (l.reduced ? '※ ' : '') + l.name;
    // A weighed line shows its weight and price per unit, as the receipt prints it (record 0134).
    const unit = (l.weight_display || t('cart-unit-price', { price: l.unit_price_display }))
      + (l.discount ? ' · ' + t('cart-line-discounted', { amount: l.discount_display, how: l.discount_label }) : '');
    return h('li', { class: 'cart-line', 'data-sku': l.sku, 'data-line-no': String(l.line_no), 'data-price-source': l.price_source,
      'data-weighed': String(Boolean(l.weight_display)),
      'data-unit-price': String(l.unit_price), 'data-reduced': String(l.reduced), 'data-discount': String(l.discount) },
      h('div', { class: 'what' }, h('div', { class: 'name', text: name, title: l.name }), h('div', { class: 'unit', text: unit })),
      h('div', { class: 'qty' },
        // A weighed line is its weight: it has no count to step, only a way to take it off
        // (record 0134); another weighing is another line.
        ...(l.weight_display
          ? [h('button', { type: 'button', class: 'line-remove', 'aria-label': t('cart-remove-line', { name: l.name }), title: t('cart-remove-line', { name: l.name }),
              text: '×', disabled: c.locked, onclick: () => setQty(0) })]
          : [h('button', { type: 'button', 'aria-label': t('cart-one-less', { name: l.name }), text: '−', disabled: c.locked, onclick: () => setQty(l.quantity - 1) }),
            qty,
            h('button', { type: 'button', 'aria-label': t('cart-one-more', { name: l.name }), text: '+', disabled: c.locked, onclick: () => setQty(l.quantity + 1) })]),
        h('button', { type: 'button', class: 'line-discount', 'aria-label': t('cart-line-discount', { name: l.name }), title: t('cart-line-discount', { name: l.name }),
          text: '%', disabled: fixed || own, hidden: own, onclick: () => openDiscount({ sku: l.sku, name: l.name }) })),
      h('div', { class: 'line-total', text: l.discount ? l.net_display : l.line_total_display }));
  }));
  $('cart-empty').hidden = c.lines.length > 0;
  renderSums(c);
  $('cart-total').textContent = c.total_display;
  $('cart-total').dataset.minor = String(c.total);
  $('clear-cart').disabled = c.locked || c.lines.length === 0;
  $('charge').disabled = c.lines.length === 0 || charging;
  $('pay-cash').disabled = c.lines.length === 0 || charging;
  $('pay-split').disabled = c.lines.length === 0 || charging;
  syncHoldButton(c, charging);
  syncExempt(c);
  $('charge').textContent = c.lines.length ? t('charge-amount', { amount: c.total_display }) : t('charge');
}

/** Eat-in/take-out, the sale discount, and subtotal / discount / tax per rate. */
function renderSums(c) {
  const fixed = c.tax_locked;
  for (const b of document.querySelectorAll('#dining .seg')) {
    b.setAttribute('aria-pressed', String(b.dataset.dining === c.dining));
    b.disabled = fixed;
  }
  $('dining').dataset.dining = c.dining;
  $('dining').title = fixed ? t('tax-locked') : '';
  $('sale-discount').disabled = fixed || c.lines.length === 0;
  $('sale-discount').textContent = c.sale_discount_label
    ? t('cart-sale-discount-set', { how: c.sale_discount_label }) : t('cart-sale-discount-add');
  if (fixed) closeDiscount();
  const rows = [];
  const row = (cls, label, value, attrs = {}) => rows.push(h('div', { class: cls, ...attrs }, h('dt', { text: label }), h('dd', { text: value })));
  if (c.lines.length && (c.rates.length || c.sale_discount)) {
    row('sum-subtotal', t('cart-subtotal'), c.subtotal_display);
    if (c.sale_discount) row('sum-discount', t('cart-sale-discount-set', { how: c.sale_discount_label }), `−${c.sale_discount_display}`, { id: 'sum-discount' });
    for (const r of c.rates) {
      if (r.class === TAX_CLASS.EXEMPT && !r.tax) continue;
      // A class taxed at nothing here (New York's grocery food taken out): "Not taxed",
      // as the receipt says, not "0% taxable" and a $0.00 part.
      if (!r.ppm) {
        row('sum-rate', t('cart-untaxed'), r.gross_display, { 'data-rate': '0', 'data-gross': String(r.gross), 'data-tax': String(r.tax) });
        continue;
      }
      row('sum-rate', (r.reduced ? '※' : '') + t('cart-tax-rate', { rate: r.rate_label }), t('cart-tax-amount', { gross: r.gross_display, tax: r.tax_display }),
        { 'data-rate': String(r.ppm), 'data-gross': String(r.gross), 'data-tax': String(r.tax) });
      // The taxes stacked in the rate (NY State, New York City, MCTD: record 0131), each with its share.
      for (const p of r.parts) row('sum-rate-part', `${p.name} ${p.rate_label}`, p.tax_display, { 'data-part': p.name });
    }
    if (c.lines.some((l) => l.reduced)) rows.push(h('p', { class: 'sum-note', text: t('cart-reduced-note') }));
  }
  if (c.lines.length) exemptRows(c, row);
  $('cart-sums').replaceChildren(...rows);
}

// ---------------------------------------------------------------- discounts
let discountTarget = null;   // { sku, name } for a line, {} for the whole sale
function openDiscount(target) {
  if (!cart || cart.tax_locked) return;
  discountTarget = target;
  $('discount-form').hidden = false;
  $('discount-target').textContent = target.sku ? target.name : t('cart-sale-discount-add');
  $('discount-value').value = '';
  $('discount-value').focus();
}
function closeDiscount() {
  discountTarget = null;
  $('discount-form').hidden = true;
}
async function applyDiscount(remove) {
  if (!discountTarget) return;
  const discount = remove ? null : { kind: $('discount-kind').value, value: $('discount-value').value };
  const target = discountTarget;
  try {
    const c = target.sku
      ? await withApproval((approval) => invoke('set_line_discount', { sku: target.sku, discount, approval }))
      : await withApproval((approval) => invoke('set_sale_discount', { discount, approval }));
    closeDiscount();
    renderCart(c);
    announce(t('cart-total-now', { total: c.total_display }));
    focusScan();
  } catch (e) {
    alertLoud(errText(e));
    $('discount-form').dataset.code = (e && e.code) || 'error';
  }
}

async function setDining(dining) {
  try {
    renderCart(await invoke('set_dining', { dining }));
    announce(t('cart-total-now', { total: cart.total_display }));
  } catch (e) { alertLoud(errText(e)); }
}

/** A refused code under the barcode field ('' clears it), in place of the help line.
 *  A sale refused for want of a shift offers to open one right there. */
function scanError(msg, code = '') {
  const box = $('scan-error');
  box.replaceChildren(msg);
  if (code === ERROR.NO_OPEN_SHIFT) box.append(' ', openShiftOffer());
  box.dataset.code = msg ? code : '';
  box.hidden = !msg;
  $('scan-help').hidden = !!msg;
}

async function scan(code, fromCatalog = false) {
  try {
    const before = cart && cart.id;
    // A price label marked down past the cashier's limit asks for a manager (record 0126).
    const c = await withApproval((approval) => invoke('scan', approval ? { code, approval } : { code }));
    scanError('');
    // A scan over a finished sale began the next one (the command does): the paid
    // sale's panel gives way to the new cart.
    if (before !== c.id) { if (checkoutOpen) closeCheckout(); closeTenderDone(); }
    renderCart(c);
    const line = c.lines.find((l) => l.sku.toLowerCase() === code.toLowerCase()) ||
      c.lines.find((l) => catalog.find((i) => i.barcode === code && i.sku === l.sku));
    if (line) announce(t('scan-added', { name: line.name, total: c.total_display }));
    if (fromCatalog) {
      const btn = document.querySelector(`.item[data-sku="${CSS.escape(line ? line.sku : code)}"]`);
      if (btn) { btn.classList.add('flash'); setTimeout(() => btn.classList.remove('flash'), 250); }
    }
    return true;
  } catch (e) {
    const why = (e && e.code) || '';
    // A receipt's barcode scanned here (record 0125): its return starts at Payments.
    if (!fromCatalog && why === ERROR.UNKNOWN_ITEM && RECEIPT_NO.test(code.trim()) && await openReceipt(code.trim())) return true;
    alertLoud(errText(e));
    if (!fromCatalog || why === ERROR.NO_OPEN_SHIFT) scanError(errText(e), why);
    return false;
  }
}

/** A receipt number as its barcode carries it: the sale's number, zero-padded to at least
 *  six digits (no item code is tried as one: an item's own code always wins). */
const RECEIPT_NO = /^[0-9]{6,12}$/;

/** Opens the paid sale of receipt number `number` at Payments with its Return items; false
 *  when no paid sale has that number (the scan was an unknown item after all). */
async function openReceipt(number) {
  let detail;
  // Every sale with the number: this register's and replaced registers' restored ones
  // (record 0159); Payments opens the one, or lets the cashier pick among several.
  try { detail = { found: await invoke('find_receipt_candidates', { number }) }; } catch { return false; }
  scanError('');
  announce(t('scan-receipt-opened', { number }));
  document.dispatchEvent(new CustomEvent('paydesk:open-receipt', { detail }));
  return true;
}

async function setLineQty(lineNo, q) {
  const n = Number.parseInt(q, 10);
  if (!Number.isInteger(n) || n < 0 || n > 999) { alertLoud(t('cart-qty-invalid')); renderCart(cart); return; }
  try { renderCart(await invoke('set_line_quantity', { lineNo, quantity: n })); }
  catch (e) { alertLoud(errText(e)); renderCart(cart); }
}

async function setQtyOf(sku, q) {
  const n = Number.parseInt(q, 10);
  if (!Number.isInteger(n) || n < 0 || n > 999) { alertLoud(t('cart-qty-invalid')); renderCart(cart); return; }
  // A quantity that leaves a discount above the cashier's limit asks for a manager.
  try { renderCart(await withApproval((approval) => invoke('set_quantity', approval ? { sku, quantity: n, approval } : { sku, quantity: n }))); }
  catch (e) { alertLoud(errText(e)); renderCart(cart); }
}

// ---------------------------------------------------------------- checkout panel
function openCheckout(title) {
  checkoutOpen = true;
  scanError('');
  $('checkout').hidden = false;
  $('checkout-title').textContent = title;
  $('progress').replaceChildren();
  $('checkout-result').replaceChildren();
}
function closeCheckout() {
  checkoutOpen = false;
  $('checkout').hidden = true;
  focusScan();
}
function addProgress(p) {
  if (!checkoutOpen) return;
  // While an offline payment waits, background forwarding attempts are not news;
  // only the final word is (late events of the charge itself still show).
  if ($('checkout').dataset.kind === OUTCOME_KIND.ACCEPTED_OFFLINE && p.kind !== PROGRESS_KIND.RESOLVED && p.at > resultShownAt + 500) return;
  const li = h('li', { class: p.tone || 'info', 'data-kind': p.kind || '' },
    h('span', { class: 'when', text: timeOf(p.at) }), ' ',
    h('span', { text: p.message }));
  // newest first: the latest step stays in view however long the retries go on
  $('progress').prepend(li);
  announce(p.message, p.tone === TONE.BAD ? TONE.BAD : '');
}

function receiptNode(r) {
  return h('div', { class: 'receipt', id: 'receipt', 'aria-label': t('receipt-label') },
    h('div', { class: 'row' }, h('span', { text: t('receipt-store') }), h('span', { text: timeOf(r.at) })),
    ...r.lines.map((l) => h('div', { class: 'row' }, h('span', { class: 'what', text: `${l.quantity} × ${l.name}` }), h('span', { text: l.line_total_display }))),
    h('div', { class: 'row total' }, h('span', { text: t('receipt-total') }), h('span', { text: r.total_display })),
    h('div', { class: 'row' }, h('span', { text: r.card_label || t('receipt-card') }), h('span', { text: r.status_label })),
    r.psp_payment_id ? h('div', { class: 'row' }, h('span', { text: t('receipt-ref') }), h('span', { text: r.psp_payment_id })) : null,
    h('div', { class: 'row' }, h('span', { text: t('receipt-key') }), h('span', { text: r.checkout_key.slice(0, 8) + '…' })));
}

function cardSelect(id) {
  const sel = $('card').cloneNode(true);
  sel.id = id;
  sel.value = 'pm_card_visa';
  return h('label', { class: 'override' }, t('next-card'), sel);
}

/** Shows what the engine concluded for this checkout. */
function renderOutcome(o) {
  const box = $('checkout-result');
  const nextSale = async (overrideReason) => {
    try {
      renderCart(await withApproval((approval) => invoke('new_sale', overrideReason ? { overrideReason, approval } : {})));
      closeCheckout(); refreshStatus();
      if (overrideReason) announce(t('new-sale-override'));
    } catch (e) { alertLoud(errText(e)); }
  };
  const forwarded = $('checkout').dataset.kind === OUTCOME_KIND.ACCEPTED_OFFLINE && $('checkout').dataset.key === o.checkout_key && o.kind !== OUTCOME_KIND.ACCEPTED_OFFLINE;
  $('checkout').dataset.key = o.checkout_key;
  $('checkout').dataset.kind = o.kind;
  resultShownAt = Date.now();
  if (o.kind === OUTCOME_KIND.APPROVED || o.kind === OUTCOME_KIND.ACCEPTED_OFFLINE || o.kind === OUTCOME_KIND.AUTHORIZED) {
    const offline = o.kind === OUTCOME_KIND.ACCEPTED_OFFLINE;
    $('checkout-title').textContent = offline ? t('outcome-offline-title') : (forwarded ? t('outcome-forwarded-title') : t('outcome-paid-title'));
    const btn = h('button', { class: 'primary', id: 'new-sale', type: 'button', text: t('new-sale-enter'), onclick: () => nextSale() });
    box.replaceChildren(h('div', { class: 'result ok', id: 'result', 'data-kind': o.kind, 'data-key': o.checkout_key },
      h('h3', { text: offline ? t('outcome-offline-heading', { amount: o.receipt.total_display }) : t('outcome-paid-heading', { amount: o.receipt.total_display }) }),
      h('p', { text: offline
        ? t('outcome-offline-text')
        : (forwarded ? t('outcome-forwarded-text') : (o.note || t('outcome-paid-text'))) }),
      receiptNode(o.receipt),
      h('div', { class: 'actions' }, btn),
      // An offline-accepted card is part of a paid sale: the customer gets a receipt now.
      receiptPanel(o.cart.id)));
    const amount = o.receipt.total_display;
    announce(offline ? t('outcome-offline-announce', { amount })
      : (forwarded ? t('outcome-forwarded-announce', { amount }) : t('outcome-paid-announce', { amount })));
    btn.focus();
  } else if (o.kind === OUTCOME_KIND.DECLINED || o.kind === OUTCOME_KIND.FAILED) {
    // failed: the processor refused the request before running it (wrong key or URL,
    // a rejected parameter). Like a decline, nothing was charged and never will be.
    const failed = o.kind === OUTCOME_KIND.FAILED;
    $('checkout-title').textContent = failed ? t('outcome-failed-title') : t('outcome-declined-title');
    const sel = cardSelect('retry-card');
    const again = h('button', { class: 'primary', id: 'try-another-card', type: 'button', text: failed ? t('start-new-payment') : t('try-another-card'),
      onclick: () => runCharge('try_another_card', { paymentMethod: sel.querySelector('select').value }, t('charging-another-card')) });
    const cancel = h('button', { class: 'secondary', id: 'cancel-sale', type: 'button', text: t('tender-cancel'), onclick: () => nextSale() });
    box.replaceChildren(h('div', { class: 'result bad', id: 'result', 'data-kind': o.kind, 'data-key': o.checkout_key },
      h('h3', { text: failed ? t('outcome-failed-heading') : t('outcome-declined-heading') }),
      h('p', { class: 'reason', text: o.message }),
      o.detail ? h('p', { class: 'detail', text: t('outcome-processor-said', { detail: o.detail }) }) : null,
      h('p', { text: failed ? t('outcome-failed-text') : t('outcome-declined-text') }),
      sel, h('div', { class: 'actions' }, again, cancel)));
    alertLoud(failed ? t('outcome-failed-alert', { reason: o.message }) : t('outcome-declined-alert', { reason: o.message }));
    // Not the "Try another card" button: an Enter still held or repeated from before
    // the decline would charge a card again at once, under a new key.
    sel.querySelector('select').focus();
  } else { // unknown outcome: the engine keeps resolving it with the same key
    $('checkout-title').textContent = t('outcome-unknown-title');
    const reason = h('input', { id: 'override-reason', type: 'text', maxlength: '200',
      placeholder: t('override-placeholder'), 'aria-describedby': 'override-help' });
    const sel = cardSelect('override-card');
    const newKey = h('button', { class: 'danger', id: 'override-new-card', type: 'button', text: t('override-new-card'), disabled: true,
      onclick: () => runCharge('try_another_card', { paymentMethod: sel.querySelector('select').value, overrideReason: reason.value }, t('charging-new-key')) });
    const next = h('button', { class: 'secondary', id: 'override-next-sale', type: 'button', text: t('override-next-customer'), disabled: true,
      onclick: () => nextSale(reason.value) });
    reason.addEventListener('input', () => { const ok = reason.value.trim().length >= 3; newKey.disabled = !ok; next.disabled = !ok; });
    const retry = h('button', { class: 'primary', id: 'retry-charge', type: 'button', text: t('check-again'),
      onclick: () => runCharge('charge', { paymentMethod: $('card').value }, t('checking-same-key')) });
    box.replaceChildren(h('div', { class: 'result warn', id: 'result', 'data-kind': 'unknown', 'data-key': o.checkout_key },
      h('h3', { text: t('outcome-unknown-heading') }),
      h('p', { class: 'reason', text: o.message }),
      o.detail ? h('p', { class: 'detail', text: t('outcome-processor-said', { detail: o.detail }) }) : null,
      h('p', { text: t('outcome-unknown-text') }),
      h('div', { class: 'actions' }, retry),
      h('label', { class: 'override', for: 'override-reason', id: 'override-help' }, t('override-help')),
      reason, sel, h('div', { class: 'actions' }, newKey, next)));
    alertLoud(t('outcome-unknown-alert'));
    retry.focus();
  }
}

/** One charge-like command; the panel shows engine progress events while it runs. */
async function runCharge(cmd, args, title) {
  if (charging) return;   // Enter-mashing: the open checkout is already running
  charging = true;
  $('charge').disabled = true;
  if (!checkoutOpen) openCheckout(title);
  else { $('checkout-title').textContent = title; $('checkout-result').replaceChildren(); }
  try {
    const o = await withApproval((approval) => invoke(cmd, approval ? { ...args, approval } : args));
    if (o.cart) renderCart(o.cart);
    renderOutcome(o);
  } catch (e) {
    const box = $('checkout-result');
    const back = h('button', { class: 'secondary', type: 'button', text: t('back-to-cart'),
      onclick: async () => { try { renderCart(await invoke('get_cart')); } catch (_) { /* keep */ } closeCheckout(); } });
    box.replaceChildren(h('div', { class: 'result bad', id: 'result', 'data-kind': 'error', 'data-code': e && e.code },
      h('h3', { text: t('charge-error-heading') }), h('p', { text: errText(e) }),
      h('div', { class: 'actions' }, e && e.code === ERROR.NO_OPEN_SHIFT ? openShiftOffer() : null, back)));
    alertLoud(errText(e));
    back.focus();
  } finally {
    charging = false;
    if (cart) $('charge').disabled = cart.lines.length === 0;
    refreshStatus();
  }
}

export function charge() {
  if (!cart || cart.lines.length === 0) { alertLoud(t('cart-empty-charge')); return; }
  // No keyed cards outside test mode: the charge key opens the card form (the reader).
  if ($('charge').hidden) { openTender('card'); return; }
  runCharge('charge', { paymentMethod: $('card').value }, t('charging-amount', { amount: cart.total_display }));
}

/** A `checkout-progress` event: a line in the panel, and the final word when it resolves. */
export async function onProgress(p) {
  if (p.kind === PROGRESS_KIND.RESOLVED && isTenderOpen()) refreshTender();
  addProgress(p);
  // Resolved in the background while the cashier looks at an unknown outcome.
  if (p.kind === PROGRESS_KIND.RESOLVED && !charging && checkoutOpen && $('checkout').dataset.key === p.key) {
    try { const o = await invoke('current_checkout'); if (o) { renderCart(o.cart); renderOutcome(o); } } catch (_) { /* keep */ }
  }
}

/** Wires the register's own controls: the barcode form, Charge and Clear. */
export function initRegister() {
  initSearch(renderCatalog);
  $('scan-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const input = $('scan');
    const code = input.value.trim();
    if (!code) { if (cart && cart.lines.length) announce(t('scan-empty-hint')); return; }
    if (await scan(code)) input.value = ''; else input.select();
  });
  $('scan').addEventListener('input', () => scanError(''));
  $('charge').addEventListener('click', charge);
  $('pay-cash').addEventListener('click', () => openTender('cash'));
  $('pay-split').addEventListener('click', () => openTender('card'));
  initTender({ cart: renderCart, closed: focusScan });
  initHeld({ cart: renderCart, closed: focusScan });
  initExempt({ cart: renderCart, closed: focusScan });
  showKeyedCharge();
  for (const b of document.querySelectorAll('#dining .seg')) b.addEventListener('click', () => setDining(b.dataset.dining));
  $('sale-discount').addEventListener('click', () => openDiscount({}));
  initOpenPrice();
  initWeigh();
  $('discount-form').addEventListener('submit', (e) => { e.preventDefault(); applyDiscount(false); });
  $('discount-remove').addEventListener('click', () => applyDiscount(true));
  $('discount-cancel').addEventListener('click', () => { closeDiscount(); focusScan(); });
  $('clear-cart').addEventListener('click', async () => {
    try { renderCart(await invoke('clear_cart')); announce(t('cart-cleared')); focusScan(); } catch (e) { alertLoud(errText(e)); }
  });
}

/** The register's items again (after the catalog screen changed them). */
export async function reloadCatalog() {
  catalog = await invoke('get_catalog');
  await loadTabs();
  renderCatalog();
  await loadDepartments(renderCart);
}

/** Loads the catalog and the cart as the engine has them. */
// Outside test mode the quick keyed-card charge is gone: cards go through Card / split,
// on a reader. (The commands refuse a keyed token there anyway.) Asked again each time the
// register loads: before anyone signs in the command answers not_signed_in, and that says
// nothing about test mode, so the row is left as it is then.
async function showKeyedCharge() {
  let v;
  try { v = await invoke('reader_list', { withStatus: false }); } catch (_) { return; }
  $('card').closest('.pay-row').hidden = !v.test_mode;
  $('charge').hidden = !v.test_mode;
}

export async function loadRegister() {
  await showKeyedCharge();
  await reloadCatalog();
  renderCart(await invoke('get_cart'));
  await refreshHeld();
  await resumeTender();
}
