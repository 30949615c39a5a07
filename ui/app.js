// PayDesk cashier UI. Plain ES module, no framework, no inline code (strict CSP).
// Everything goes through Tauri commands; live progress arrives as Tauri events.

const T = window.__TAURI__;
const invoke = (cmd, args) => T.core.invoke(cmd, args);
const listen = (ev, fn) => T.event.listen(ev, (e) => fn(e.payload));

const $ = (id) => document.getElementById(id);
const SVG_NS = 'http://www.w3.org/2000/svg';

/** Builds an element. attrs: props/attributes (on*: listeners); children: nodes/strings. */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else if (k in el && typeof v !== 'string') el[k] = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}
function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) el.setAttribute(k, String(v));
  for (const c of children.flat()) if (c !== null && c !== undefined) el.append(c);
  return el;
}

// ---------------------------------------------------------------- announcements
function announce(msg, tone = '') {
  const a = $('announce');
  a.textContent = msg;
  a.title = msg;   // the bar may cut a long message short; the whole of it stays here
  a.className = 'announce' + (tone ? ' ' + tone : '');
}
function alertLoud(msg) {
  $('alert').textContent = '';
  requestAnimationFrame(() => { $('alert').textContent = msg; });
  announce(msg, 'bad');
}
/** Errors from commands are {code, message}; the message is written for the cashier. */
function errText(e) {
  if (e && typeof e === 'object' && 'message' in e) return e.message;
  return String(e);
}

// ---------------------------------------------------------------- views
const views = ['register', 'payments', 'report', 'settings'];
let currentView = 'register';
function show(view) {
  currentView = view;
  for (const v of views) $('view-' + v).hidden = v !== view;
  for (const b of document.querySelectorAll('.tab')) {
    if (b.dataset.view === view) b.setAttribute('aria-current', 'page');
    else b.removeAttribute('aria-current');
  }
  if (view === 'register') focusScan();
  if (view === 'payments') loadPayments();
  if (view === 'report') loadReport();
  if (view === 'settings') loadSettings();
}

// ---------------------------------------------------------------- register
let catalog = [];
let cart = null;
let checkoutOpen = false;   // the checkout panel covers the cart
let charging = false;       // a charge call is in flight (the engine guards too)
let resultShownAt = 0;      // when the checkout result was last drawn (ms)

function focusScan() {
  if (currentView === 'register' && !checkoutOpen) $('scan').focus();
}

function renderCatalog() {
  const box = $('catalog');
  box.replaceChildren(...catalog.map((it) =>
    h('button', {
      class: 'item', type: 'button', role: 'listitem', 'data-sku': it.sku,
      'aria-label': `${it.name}, ${it.price_display}, code ${it.sku}`,
      onclick: () => scan(it.sku, true),
    },
      h('span', { class: 'name', text: it.name }),
      h('span', { class: 'sku', text: `${it.sku} · ${it.barcode}` }),
      h('span', { class: 'price', text: it.price_display }))));
}

function renderCart(c) {
  cart = c;
  const lines = $('cart-lines');
  lines.replaceChildren(...c.lines.map((l) => {
    const qty = h('input', {
      type: 'number', min: '0', max: '999', value: String(l.quantity), inputmode: 'numeric',
      'aria-label': `Quantity of ${l.name}`, disabled: c.locked,
      onchange: (e) => setQty(l.sku, e.target.value),
    });
    return h('li', { class: 'cart-line', 'data-sku': l.sku },
      h('div', { class: 'what' }, h('div', { class: 'name', text: l.name, title: l.name }), h('div', { class: 'unit', text: `${l.unit_price_display} each` })),
      h('div', { class: 'qty' },
        h('button', { type: 'button', 'aria-label': `One less ${l.name}`, text: '−', disabled: c.locked, onclick: () => setQty(l.sku, l.quantity - 1) }),
        qty,
        h('button', { type: 'button', 'aria-label': `One more ${l.name}`, text: '+', disabled: c.locked, onclick: () => setQty(l.sku, l.quantity + 1) })),
      h('div', { class: 'line-total', text: l.line_total_display }));
  }));
  $('cart-empty').hidden = c.lines.length > 0;
  $('cart-total').textContent = c.total_display;
  $('cart-total').dataset.minor = String(c.total);
  $('clear-cart').disabled = c.locked || c.lines.length === 0;
  $('charge').disabled = c.lines.length === 0 || charging;
  $('charge').textContent = c.lines.length ? `Charge ${c.total_display}` : 'Charge';
}

/** A refused code under the barcode field ('' clears it), in place of the help line. */
function scanError(msg) {
  $('scan-error').textContent = msg;
  $('scan-error').hidden = !msg;
  $('scan-help').hidden = !!msg;
}

async function scan(code, fromCatalog = false) {
  try {
    const c = await invoke('scan', { code });
    scanError('');
    renderCart(c);
    const line = c.lines.find((l) => l.sku.toLowerCase() === code.toLowerCase()) ||
      c.lines.find((l) => catalog.find((i) => i.barcode === code && i.sku === l.sku));
    if (line) announce(`${line.name} added. Total ${c.total_display}.`);
    if (fromCatalog) {
      const btn = document.querySelector(`.item[data-sku="${CSS.escape(line ? line.sku : code)}"]`);
      if (btn) { btn.classList.add('flash'); setTimeout(() => btn.classList.remove('flash'), 250); }
    }
    return true;
  } catch (e) {
    alertLoud(errText(e));
    if (!fromCatalog) scanError(errText(e));
    return false;
  }
}

async function setQty(sku, q) {
  const n = Number.parseInt(q, 10);
  if (!Number.isInteger(n) || n < 0 || n > 999) { alertLoud('Quantity must be a whole number from 0 to 999.'); renderCart(cart); return; }
  try { renderCart(await invoke('set_quantity', { sku, quantity: n })); }
  catch (e) { alertLoud(errText(e)); renderCart(cart); }
}

// ---------------------------------------------------------------- checkout
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
function timeOf(iso) {
  const d = iso ? new Date(iso) : new Date();
  return d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}
function addProgress(p) {
  if (!checkoutOpen) return;
  // While an offline payment waits, background forwarding attempts are not news;
  // only the final word is (late events of the charge itself still show).
  if ($('checkout').dataset.kind === 'accepted_offline' && p.kind !== 'resolved' && p.at > resultShownAt + 500) return;
  const li = h('li', { class: p.tone || 'info', 'data-kind': p.kind || '' },
    h('span', { class: 'when', text: timeOf(p.at) }), ' ',
    h('span', { text: p.message }));
  // newest first: the latest step stays in view however long the retries go on
  $('progress').prepend(li);
  announce(p.message, p.tone === 'bad' ? 'bad' : '');
}

function receiptNode(r) {
  return h('div', { class: 'receipt', id: 'receipt', 'aria-label': 'Receipt' },
    h('div', { class: 'row' }, h('span', { text: 'PayDesk demo store' }), h('span', { text: timeOf(r.at) })),
    ...r.lines.map((l) => h('div', { class: 'row' }, h('span', { class: 'what', text: `${l.quantity} × ${l.name}` }), h('span', { text: l.line_total_display }))),
    h('div', { class: 'row total' }, h('span', { text: 'TOTAL' }), h('span', { text: r.total_display })),
    h('div', { class: 'row' }, h('span', { text: r.card_label || 'Card' }), h('span', { text: r.status_label })),
    r.psp_payment_id ? h('div', { class: 'row' }, h('span', { text: 'Ref' }), h('span', { text: r.psp_payment_id })) : null,
    h('div', { class: 'row' }, h('span', { text: 'Key' }), h('span', { text: r.checkout_key.slice(0, 8) + '…' })));
}

function cardSelect(id) {
  const sel = $('card').cloneNode(true);
  sel.id = id;
  sel.value = 'pm_card_visa';
  return h('label', { class: 'override' }, 'Next card', sel);
}

/** Shows what the engine concluded for this checkout. */
function renderOutcome(o) {
  const box = $('checkout-result');
  const nextSale = async (overrideReason) => {
    try {
      renderCart(await invoke('new_sale', overrideReason ? { overrideReason } : {}));
      closeCheckout(); refreshStatus();
      if (overrideReason) announce('New sale started. The reason was recorded in the audit log.');
    } catch (e) { alertLoud(errText(e)); }
  };
  const forwarded = $('checkout').dataset.kind === 'accepted_offline' && $('checkout').dataset.key === o.checkout_key && o.kind !== 'accepted_offline';
  $('checkout').dataset.key = o.checkout_key;
  $('checkout').dataset.kind = o.kind;
  resultShownAt = Date.now();
  if (o.kind === 'approved' || o.kind === 'accepted_offline' || o.kind === 'authorized') {
    const offline = o.kind === 'accepted_offline';
    $('checkout-title').textContent = offline ? 'Accepted offline' : (forwarded ? 'Paid (forwarded)' : 'Paid');
    const btn = h('button', { class: 'primary', id: 'new-sale', type: 'button', text: 'New sale (Enter)', onclick: () => nextSale() });
    box.replaceChildren(h('div', { class: 'result ok', id: 'result', 'data-kind': o.kind, 'data-key': o.checkout_key },
      h('h3', { text: offline ? `Accepted offline: ${o.receipt.total_display}` : `Paid ${o.receipt.total_display}` }),
      h('p', { text: offline
        ? 'The processor cannot be reached. This payment is stored safely and will be forwarded, with the same key, when the processor is back.'
        : (forwarded ? 'The stored payment was forwarded to the processor with the key it got at the sale, and the card was charged once.' : (o.note || 'The card was charged once.')) }),
      receiptNode(o.receipt),
      h('div', { class: 'actions' }, btn)));
    announce(offline ? `Accepted offline, ${o.receipt.total_display}. It will be forwarded.`
      : (forwarded ? `Offline payment forwarded: paid ${o.receipt.total_display}.` : `Paid ${o.receipt.total_display}. Receipt ready.`));
    btn.focus();
  } else if (o.kind === 'declined' || o.kind === 'failed') {
    // failed: the processor refused the request before running it (wrong key or URL,
    // a rejected parameter). Like a decline, nothing was charged and never will be.
    const failed = o.kind === 'failed';
    $('checkout-title').textContent = failed ? 'Not charged' : 'Declined';
    const sel = cardSelect('retry-card');
    const again = h('button', { class: 'primary', id: 'try-another-card', type: 'button', text: failed ? 'Start a new payment' : 'Try another card',
      onclick: () => runCharge('try_another_card', { paymentMethod: sel.querySelector('select').value }, 'Charging another card') });
    const cancel = h('button', { class: 'secondary', id: 'cancel-sale', type: 'button', text: 'Cancel sale', onclick: () => nextSale() });
    box.replaceChildren(h('div', { class: 'result bad', id: 'result', 'data-kind': o.kind, 'data-key': o.checkout_key },
      h('h3', { text: failed ? 'Not charged — the processor refused this request' : 'Declined — the card was not charged' }),
      h('p', { class: 'reason', text: failed ? o.message : `Processor's reason: ${o.message}` }),
      h('p', { text: failed ? 'Nothing was charged. Fix the cause (a manager may need to check Settings), then start a new payment; it gets a new key.'
        : 'Ask for another card; it gets a new payment key.' }),
      sel, h('div', { class: 'actions' }, again, cancel)));
    alertLoud(failed ? `Not charged: ${o.message}` : `Card declined: ${o.message}`);
    // Not the "Try another card" button: an Enter still held or repeated from before
    // the decline would charge a card again at once, under a new key.
    sel.querySelector('select').focus();
  } else { // unknown outcome: the engine keeps resolving it with the same key
    $('checkout-title').textContent = 'Outcome not known yet';
    const reason = h('input', { id: 'override-reason', type: 'text', maxlength: '200',
      placeholder: 'e.g. customer paid cash instead', 'aria-describedby': 'override-help' });
    const sel = cardSelect('override-card');
    const newKey = h('button', { class: 'danger', id: 'override-new-card', type: 'button', text: 'Charge a card anyway (new key)', disabled: true,
      onclick: () => runCharge('try_another_card', { paymentMethod: sel.querySelector('select').value, overrideReason: reason.value }, 'Charging with a new key') });
    const next = h('button', { class: 'secondary', id: 'override-next-sale', type: 'button', text: 'Next customer', disabled: true,
      onclick: () => nextSale(reason.value) });
    reason.addEventListener('input', () => { const ok = reason.value.trim().length >= 3; newKey.disabled = !ok; next.disabled = !ok; });
    const retry = h('button', { class: 'primary', id: 'retry-charge', type: 'button', text: 'Check again (same key)',
      onclick: () => runCharge('charge', { paymentMethod: $('card').value }, 'Checking with the same key') });
    box.replaceChildren(h('div', { class: 'result warn', id: 'result', 'data-kind': 'unknown', 'data-key': o.checkout_key },
      h('h3', { text: 'We do not know yet whether the card was charged' }),
      h('p', { text: o.message }),
      h('p', { text: 'Do not charge this customer again. The register keeps checking with the same key in the background.' }),
      h('div', { class: 'actions' }, retry),
      h('label', { class: 'override', for: 'override-reason', id: 'override-help' }, 'To continue anyway, give a reason (kept in the audit log):'),
      reason, sel, h('div', { class: 'actions' }, newKey, next)));
    alertLoud('Outcome not known yet. Do not charge again.');
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
    const o = await invoke(cmd, args);
    if (o.cart) renderCart(o.cart);
    renderOutcome(o);
  } catch (e) {
    const box = $('checkout-result');
    const back = h('button', { class: 'secondary', type: 'button', text: 'Back to the cart',
      onclick: async () => { try { renderCart(await invoke('get_cart')); } catch (_) { /* keep */ } closeCheckout(); } });
    box.replaceChildren(h('div', { class: 'result bad', id: 'result', 'data-kind': 'error', 'data-code': e && e.code },
      h('h3', { text: 'Could not charge' }), h('p', { text: errText(e) }), h('div', { class: 'actions' }, back)));
    alertLoud(errText(e));
    back.focus();
  } finally {
    charging = false;
    if (cart) $('charge').disabled = cart.lines.length === 0;
    refreshStatus();
  }
}

function charge() {
  if (!cart || cart.lines.length === 0) { alertLoud('The cart is empty. Scan an item first.'); return; }
  runCharge('charge', { paymentMethod: $('card').value }, `Charging ${cart.total_display}`);
}

// ---------------------------------------------------------------- status bar
function renderStatus(st) {
  const p = $('psp-status');
  p.dataset.online = st.psp_online === null ? 'unknown' : String(st.psp_online);
  p.textContent = st.psp_online === null ? 'PSP: checking…' : (st.psp_online ? 'PSP online' : 'PSP offline');
  p.title = st.psp_url || '';
  $('pending-forward').textContent = `Waiting to be forwarded: ${st.pending_forward}`;
  $('pending-forward').dataset.count = String(st.pending_forward);
  $('last-sync').textContent = `Last sync: ${st.last_sync ? timeOf(Number(st.last_sync)) : 'never'}`;
  $('fault-profile').textContent = st.psp_embedded ? `Embedded test PSP · faults: ${st.fault_profile}` : `PSP: ${st.psp_url}`;
  $('fault-profile').title = $('fault-profile').textContent;   // the bar may cut it short
  const w = $('settings-waiting');
  w.hidden = !st.settings_waiting;
  w.textContent = st.settings_waiting ? 'New settings waiting' : '';
  w.title = st.settings_waiting || '';
}
async function refreshStatus() {
  try { renderStatus(await invoke('get_status')); } catch (e) { /* the bar keeps its last state */ }
}

// ---------------------------------------------------------------- payments
let selectedPayment = null;
const TONE = { captured: 'ok', authorized: 'ok', succeeded: 'ok', refunded: 'info', partially_refunded: 'info',
  failed: 'bad', declined: 'bad', canceled: 'bad', queued_offline: 'warn', created: 'warn', authorizing: 'warn',
  capturing: 'warn', refunding: 'warn', unknown: 'warn' };

async function loadPayments() {
  let list;
  try { list = await invoke('list_payments'); } catch (e) { announce(errText(e), 'bad'); return; }
  const rows = $('payments-rows');
  rows.replaceChildren(...list.map((p) => {
    const open = h('button', { type: 'button', text: timeOf(p.created_at), 'aria-label': `Payment of ${p.amount_display} at ${timeOf(p.created_at)}, ${p.state_label}` ,
      onclick: () => selectPayment(p.id) });
    return h('tr', { 'data-id': p.id, 'aria-selected': String(p.id === selectedPayment), onclick: () => selectPayment(p.id) },
      h('td', {}, open), h('td', { class: 'num', text: p.amount_display }),
      h('td', {}, h('span', { class: 'state ' + (TONE[p.state] || ''), text: p.state_label })),
      h('td', { class: 'num', text: String(p.attempts) }));
  }));
  $('payments-empty').hidden = list.length > 0;
  if (selectedPayment === null && list.length) selectPayment(list[0].id);
  else if (selectedPayment !== null) selectPayment(selectedPayment);
}

async function selectPayment(id) {
  selectedPayment = id;
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
      const r = await invoke('refund', { paymentId: id, amount: full ? null : amount.value });
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
      h('dt', { text: 'Time' }), h('dd', { text: new Date(p.created_at).toLocaleString() }),
      h('dt', { text: 'Checkout key' }), h('dd', { text: p.checkout_key }),
      h('dt', { text: 'Processor ref' }), h('dd', { text: p.psp_payment_id || '—' }),
      h('dt', { text: 'Card' }), h('dd', { text: p.card_label || '—' }),
      h('dt', { text: 'Refunded' }), h('dd', { text: p.refunded_display })),
    h('h3', { text: 'Timeline' }),
    h('div', { class: 'timeline', id: 'timeline' }, timelineSvg(p.timeline)),
    refundable > 0 ? h('form', { class: 'refund-form', onsubmit: (e) => { e.preventDefault(); refund(false); } },
      h('label', { for: 'refund-amount' }, `Refund amount (up to ${p.refundable_display})`, amount),
      h('button', { class: 'secondary', id: 'refund-partial', type: 'submit', text: 'Refund this amount' }),
      h('button', { class: 'danger', id: 'refund-full', type: 'button', text: 'Refund all', onclick: () => refund(true) }),
      h('p', { id: 'refund-help', class: 'help', text: 'A refund is sent once: the buttons wait for the processor\'s answer, and a refund still being confirmed must finish before another.' }))
      : h('p', { class: 'help', text: p.refund_note || 'Nothing left to refund.' }));
}

/** The payment's timeline as a picture: one node per event, attempt latencies as bars. */
function timelineSvg(events) {
  const W = 640, rowH = 27, top = 10, left = 86, barX = 360, barMax = 260;
  const H = top * 2 + Math.max(1, events.length) * rowH;
  const t0 = events.length ? Number(events[0].at) : 0;
  const maxLat = Math.max(1, ...events.map((e) => e.latency_ms || 0));
  const color = { ok: '#15803d', warn: '#b45309', bad: '#b91c1c', info: '#1d4ed8' };
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': 'Payment timeline: ' + events.map((e) => e.label).join(', then ') });
  svg.append(s('line', { x1: left, y1: top, x2: left, y2: H - top, stroke: '#cbd5e1', 'stroke-width': 3 }));
  events.forEach((e, i) => {
    const y = top + i * rowH + rowH / 2;
    const c = color[e.tone] || '#475569';
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

// ---------------------------------------------------------------- report
function localMidnight() { const d = new Date(); d.setHours(0, 0, 0, 0); return d.getTime(); }

async function loadReport() {
  let r;
  try { r = await invoke('get_report', { since: localMidnight() }); } catch (e) { announce(errText(e), 'bad'); return; }
  const tile = (id, label, value, hl) => h('div', { class: 'tile' + (hl ? ' highlight' : ''), id },
    h('div', { class: 'label', text: label }), h('div', { class: 'value', text: value }));
  $('report-tiles').replaceChildren(
    tile('r-gross', 'Sales', r.gross_display, true),
    tile('r-refunds', 'Refunds', r.refunds_display),
    tile('r-net', 'Net', r.net_display, true),
    tile('r-count', 'Payments', String(r.payment_count)),
    tile('r-pending', 'Pending (offline or unknown)', `${r.pending_count} · ${r.pending_display}`),
    tile('r-declined', 'Declined', String(r.declined_count)),
    tile('r-dupes', 'Duplicate charges prevented', String(r.duplicates_prevented), true));
  for (const [id, v] of [['r-gross', r.gross], ['r-refunds', r.refunds], ['r-net', r.net], ['r-count', r.payment_count],
    ['r-pending', r.pending_count], ['r-declined', r.declined_count], ['r-dupes', r.duplicates_prevented]]) $(id).dataset.value = String(v);
  // Sales per local hour, from the opening hour (or 8:00) to now.
  const bins = new Map();
  for (const sale of r.sales) {
    const hr = new Date(Number(sale.at)).getHours();
    const b = bins.get(hr) || { amount: 0, count: 0 };
    b.amount += sale.amount; b.count += 1; bins.set(hr, b);
  }
  const nowH = new Date().getHours();
  const first = Math.min(8, ...bins.keys(), nowH);
  const last = Math.max(18, ...bins.keys(), nowH);
  const perHour = [];
  for (let hr = first; hr <= last; hr++) {
    const b = bins.get(hr) || { amount: 0, count: 0 };
    perHour.push({ hour: hr, amount: b.amount, count: b.count, amount_display: fmtMoney(b.amount, r.money) });
  }
  $('report-chart').replaceChildren(hourChart(perHour, r.money));
}

/**
 * Integer minor units → "$1,234.50" / "¥1,200" / "1.000 KWD", with the currency's
 * symbol and exponent as the register sent them (fmt = report.money). Integer
 * arithmetic only: amounts never become fractions of a unit in floating point.
 */
function fmtMoney(minor, fmt) {
  if (!Number.isSafeInteger(minor)) throw new Error(`not an amount in minor units: ${minor}`);
  const scale = 10 ** fmt.exponent;           // an exact integer (exponent 0..3)
  const a = Math.abs(minor);
  const frac = a % scale;
  const major = (a - frac) / scale;           // exact: a - frac is a multiple of scale
  const grouped = String(major).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const number = fmt.exponent ? `${grouped}.${String(frac).padStart(fmt.exponent, '0')}` : grouped;
  const body = fmt.symbol ? fmt.symbol + number : `${number} ${fmt.code}`;
  return (minor < 0 ? '−' : '') + body;
}

/**
 * Chart scale: the step (integer minor units) between the 4 grid lines above zero,
 * a round 1, 2, 2.5 or 5 × 10^n so every tick label is an exact, round amount.
 */
function axisStep(maxMinor, fmt) {
  const unit = 10 ** fmt.exponent;
  if (maxMinor <= 0) return 25 * unit;                   // an empty day: 0 to 100 units
  const need = Math.ceil(maxMinor / 4);                  // integer minor units per step
  let p = 1;
  while (p * 10 <= need) p *= 10;
  // 1, 2, 2.5 (when it stays whole) or 5 × 10^n
  return [p, 2 * p, 5 * p / 2, 5 * p, 10 * p].find((x) => Number.isInteger(x) && x >= need);
}

function hourChart(perHour, fmt) {
  const W = 900, H = 250, padL = 84, padB = 30, padT = 24;
  const hours = perHour;
  const step = axisStep(Math.max(0, ...hours.map((x) => x.amount)), fmt);
  const max = step * 4;
  const bw = (W - padL - 10) / Math.max(1, hours.length);
  const total = hours.reduce((a, x) => a + x.count, 0);
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img',
    'aria-label': total ? 'Sales per hour: ' + hours.filter((x) => x.amount).map((x) => `${x.hour}:00 ${x.amount_display} in ${x.count} payments`).join(', ') : 'No sales yet today' });
  for (let g = 0; g <= 4; g++) {
    const y = padT + (H - padT - padB) * (1 - g / 4);
    svg.append(s('line', { x1: padL, y1: y, x2: W - 10, y2: y, stroke: '#e2e8f0' }),
      s('text', { x: padL - 8, y: y + 4, 'text-anchor': 'end', 'font-size': 12, fill: '#334155', class: 'axis-label' }, fmtMoney(step * g, fmt)));
  }
  hours.forEach((x, i) => {
    const bh = (H - padT - padB) * (x.amount / max);
    const bx = padL + i * bw + 3;
    const cx = bx + (bw - 6) / 2;
    svg.append(s('rect', { x: bx, y: H - padB - bh, width: Math.max(1, bw - 6), height: bh, rx: 3, fill: '#0f766e' },
      s('title', {}, `${x.hour}:00–${x.hour + 1}:00: ${x.amount_display} in ${x.count} payments`)));
    svg.append(s('text', { x: cx, y: H - padB + 18, 'text-anchor': 'middle', 'font-size': 12, fill: '#475569' }, `${x.hour}:00`));
    if (x.amount) svg.append(s('text', { x: cx, y: H - padB - bh - 6, 'text-anchor': 'middle', 'font-size': 12, 'font-weight': 700, fill: '#0f172a' }, x.amount_display));
  });
  if (!total) svg.append(s('text', { x: W / 2, y: H / 2, 'text-anchor': 'middle', 'font-size': 16, fill: '#475569' }, 'No sales yet today'));
  return svg;
}

// ---------------------------------------------------------------- settings
async function loadSettings() {
  let st;
  try { st = await invoke('get_settings'); } catch (e) { announce(errText(e), 'bad'); return; }
  const f = $('settings-form');
  const field = (name, label, value, attrs = {}) => h('label', {}, label,
    h('input', { name, id: 'set-' + name, value: value === null || value === undefined ? '' : String(value), ...attrs }));
  const profile = h('select', { name: 'fault_profile', id: 'set-fault_profile', disabled: !st.psp_embedded },
    ...st.fault_profiles.map((p) => h('option', { value: p, text: p, selected: p === st.fault_profile })));
  const msg = h('p', { class: 'settings-msg', id: 'settings-msg', role: 'status',
    'data-applied': st.waiting ? 'waiting' : '', text: st.waiting ? `Saved settings are not in use yet: ${st.waiting}.` : '' });
  f.replaceChildren(
    h('fieldset', {}, h('legend', { text: 'Payment processor' }),
      field('psp_url', 'PSP URL (empty: the embedded test PSP)', st.psp_url, { type: 'url', placeholder: st.psp_url_in_use }),
      h('p', { class: 'help', id: 'psp-in-use', text: `In use now: ${st.psp_embedded ? 'the embedded test PSP' : st.psp_url_in_use}` }),
      field('psp_key', 'Secret key', st.psp_key, { type: 'password', autocomplete: 'off' }),
      h('label', {}, st.psp_embedded ? 'Embedded test PSP fault profile' : 'Embedded test PSP fault profile (not in use: an external PSP is set)', profile),
      h('p', { class: 'help', text: 'flaky: some lost responses and slow requests; chaos: many; offline: cable pulled.' })),
    h('fieldset', {}, h('legend', { text: 'Idempotency keys' }),
      field('retention_hours', 'PSP key retention (hours)', st.retention_hours, { type: 'number', min: '1', max: '720' }),
      field('safety_margin_minutes', 'Safety margin (minutes)', st.safety_margin_minutes, { type: 'number', min: '0', max: '1440' })),
    h('fieldset', {}, h('legend', { text: 'Offline payments' }),
      field('offline_max_amount', `Largest single payment (${st.offline_currency})`, st.offline_max_amount_display_plain, { inputmode: 'decimal' }),
      field('offline_max_total', `Total stored offline (${st.offline_currency})`, st.offline_max_total_display_plain, { inputmode: 'decimal' }),
      field('offline_max_count', 'Number of payments', st.offline_max_count, { type: 'number', min: '0', max: '10000' }),
      field('offline_max_age_hours', 'Oldest stored payment (hours)', st.offline_max_age_hours, { type: 'number', min: '1', max: '168' })),
    h('div', { class: 'actions' }, h('button', { class: 'primary', type: 'submit', id: 'save-settings', text: 'Save settings' }),
      h('p', { class: 'help', text: 'Changes apply at once when no payment is in progress. A new processor is used once every payment sent to the old one is settled there.' })),
    msg);
  f.onsubmit = async (e) => {
    e.preventDefault();
    const data = Object.fromEntries(new FormData(f).entries());
    if (profile.disabled) data.fault_profile = st.fault_profile;
    try {
      const res = await invoke('save_settings', { settings: data });
      msg.textContent = res.message; msg.dataset.applied = res.applied; msg.classList.remove('bad');
      announce(res.message, res.applied === 'waiting' ? 'warn' : ''); refreshStatus();
      if (res.applied === 'now') loadSettings().then(() => { $('settings-msg').textContent = res.message; $('settings-msg').dataset.applied = 'now'; });
    } catch (err) { msg.textContent = errText(err); msg.dataset.applied = 'error'; msg.classList.add('bad'); alertLoud(errText(err)); }
  };
}

// ---------------------------------------------------------------- keyboard
document.addEventListener('keydown', (e) => {
  // A held Enter repeats: on a button it would press it again (charge another card,
  // refund again). Only a fresh key press activates a button.
  if (e.key === 'Enter' && e.repeat && e.target instanceof HTMLButtonElement) { e.preventDefault(); return; }
  const fkeys = { F1: 'register', F2: 'payments', F3: 'report', F4: 'settings' };
  if (fkeys[e.key]) { e.preventDefault(); show(fkeys[e.key]); return; }
  if (e.key === 'F12') { e.preventDefault(); if (currentView === 'register' && !checkoutOpen) charge(); return; }
  if (e.key === 'Escape') { if (currentView !== 'register') show('register'); else focusScan(); return; }
  // A scanner "types" into whatever has focus: send stray keystrokes to the barcode field.
  const t = e.target;
  const typing = t instanceof HTMLInputElement || t instanceof HTMLSelectElement || t instanceof HTMLTextAreaElement;
  if (!typing && currentView === 'register' && !checkoutOpen && e.key.length === 1 && !e.ctrlKey && !e.altKey && !e.metaKey) {
    $('scan').focus();
  }
});

// ---------------------------------------------------------------- start
// Strict CSP: any violation is counted where the WebDriver tests can see it.
document.addEventListener('securitypolicyviolation', (e) => {
  document.body.dataset.cspViolations = String(Number(document.body.dataset.cspViolations || 0) + 1);
  document.body.dataset.cspLast = `${e.violatedDirective} ${e.blockedURI}`;
});

async function start() {
  for (const b of document.querySelectorAll('.tab')) b.addEventListener('click', () => show(b.dataset.view));
  $('scan-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const input = $('scan');
    const code = input.value.trim();
    if (!code) { if (cart && cart.lines.length) announce('Press F12 or the Charge button to take payment.'); return; }
    if (await scan(code)) input.value = ''; else input.select();
  });
  $('scan').addEventListener('input', () => scanError(''));
  $('charge').addEventListener('click', charge);
  $('clear-cart').addEventListener('click', async () => {
    try { renderCart(await invoke('clear_cart')); announce('Cart cleared.'); focusScan(); } catch (e) { alertLoud(errText(e)); }
  });
  const tick = () => { $('clock').textContent = new Date().toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }); };
  tick(); setInterval(tick, 10000);

  await listen('checkout-progress', async (p) => {
    addProgress(p);
    // Resolved in the background while the cashier looks at an unknown outcome.
    if (p.kind === 'resolved' && !charging && checkoutOpen && $('checkout').dataset.key === p.key) {
      try { const o = await invoke('current_checkout'); if (o) { renderCart(o.cart); renderOutcome(o); } } catch (_) { /* keep */ }
    }
  });
  await listen('status', renderStatus);
  await listen('settings-applied', (m) => {
    announce(m);
    if (currentView === 'settings') loadSettings().then(() => { $('settings-msg').textContent = m; $('settings-msg').dataset.applied = 'now'; });
    refreshStatus();
  });
  await listen('payment-updated', (p) => {
    if (p.loud) alertLoud(p.message); else if (p.message) announce(p.message);
    if (currentView === 'payments') loadPayments();
    if (currentView === 'report') loadReport();
    refreshStatus();
  });

  catalog = await invoke('get_catalog');
  renderCatalog();
  renderCart(await invoke('get_cart'));
  await refreshStatus();
  setInterval(refreshStatus, 5000);
  focusScan();
  document.body.dataset.ready = 'true';
}

start().catch((e) => alertLoud('PayDesk could not start: ' + errText(e)));
