// Held sales (保留, issue #30, record 0128): Hold parks the sale on screen (items, nothing
// paid) and shows a new one; the Held list shows when each was parked, its items and
// total, with Recall and Discard. The commands hold every rule (nothing tendered, the
// limit, an empty screen to recall onto); this screen only shows their answers.

import { invoke } from './bridge.js';
import { $, h, announce, alertLoud, errText } from './dom.js';
import { formatTime, t } from './i18n.js';

let showCart = () => {};
let onClosed = () => {};

/** Enables Hold for the cart on screen: lines, and no checkout holding it. */
export function syncHoldButton(c, charging) {
  $('hold-sale').disabled = c.locked || c.lines.length === 0 || charging;
}

function renderCount(n) {
  const open = $('held-open');
  open.hidden = n === 0;
  open.textContent = t('held-open', { count: n });
  open.dataset.count = String(n);
}

/** The number of held sales, asked again (after a restart, a sign-in). */
export async function refreshHeld() {
  try { renderCount((await invoke('held_sales')).length); } catch (_) { /* before sign-in: nothing to show */ }
}

function closeHeld() {
  $('held').hidden = true;
  onClosed();
}

function renderList(rows) {
  renderCount(rows.length);
  $('held-none').hidden = rows.length > 0;
  $('held-table').hidden = rows.length === 0;
  $('held-list').replaceChildren(...rows.map((r) => h('tr', { 'data-cart': String(r.cart) },
    h('td', { class: 'when', text: formatTime(r.held_at_ms) }),
    h('td', { class: 'num', text: String(r.items) }),
    h('td', { class: 'num', text: r.total_display }),
    h('td', {}, h('div', { class: 'acts' },
      h('button', { class: 'primary', type: 'button', id: `held-recall-${r.cart}`, text: t('held-recall'), onclick: () => recall(r) }),
      h('button', { class: 'link', type: 'button', id: `held-discard-${r.cart}`, text: t('held-discard'), onclick: () => discard(r) }))))));
}

async function openHeld() {
  try { renderList(await invoke('held_sales')); } catch (e) { alertLoud(errText(e)); return; }
  $('held').hidden = false;
  $('held-close').focus();
}

async function hold() {
  try {
    const r = await invoke('hold_sale');
    showCart(await invoke('get_cart'));
    announce(t('held-done-hold', { items: r.items, total: r.total_display }));
    await refreshHeld();
  } catch (e) { alertLoud(errText(e)); }
}

async function recall(row) {
  try {
    await invoke('recall_sale', { cart: row.cart });
    showCart(await invoke('get_cart'));
    announce(t('held-done-recall', { total: row.total_display }));
    await refreshHeld();
    closeHeld();
  } catch (e) { alertLoud(errText(e)); }
}

async function discard(row) {
  if (!window.confirm(t('held-discard-confirm'))) return;
  try {
    renderList(await invoke('discard_held', { cart: row.cart }));
    announce(t('held-done-discard'));
  } catch (e) { alertLoud(errText(e)); }
}

/** Wires Hold, the Held list and its Close; `cart` shows a cart, `closed` returns focus. */
export function initHeld({ cart, closed }) {
  showCart = cart;
  onClosed = closed;
  $('hold-sale').addEventListener('click', hold);
  $('held-open').addEventListener('click', openHeld);
  $('held-close').addEventListener('click', closeHeld);
}
