// Typed prices (issue #30, record 0126): the row of department keys (部門, "Food 8%")
// over the items, and the price prompt an open-price item or department key opens. The
// price goes to `add_open_price`; above the store's limit the command answers
// approval_required and the manager's approval dialog (approval.js) takes over, then the
// same price is sent again with the approval. Each typed price is a line of its own.

import { withApproval } from './approval.js';
import { invoke } from './bridge.js';
import { $, h, announce, alertLoud, errText } from './dom.js';
import { t } from './i18n.js';

let shown = null;      // the cart view callback of the register
let limitText = '';    // "¥10,000": above it a manager approves
let item = null;       // the item the prompt is for

/** Loads and draws the department keys; `render(cart)` draws the cart after a ring. */
export async function loadDepartments(render) {
  shown = render;
  let d;
  try { d = await invoke('department_keys'); } catch (_) { return; }
  limitText = d.limit_display;
  const row = $('departments');
  row.hidden = d.keys.length === 0;
  $('departments-keys').replaceChildren(...d.keys.map((k) =>
    h('button', {
      class: 'dept-key', type: 'button', role: 'listitem', 'data-sku': k.sku, 'data-tax-class': k.tax_class,
      onclick: () => openPrice({ sku: k.sku, name: k.name }),
    }, h('span', { class: 'name', text: k.name }))));
}

/** Opens the price prompt for `it` ({sku, name}). */
export function openPrice(it) {
  item = it;
  $('open-price-title').textContent = t('open-price-title', { name: it.name });
  $('open-price-limit').textContent = limitText ? t('open-price-limit', { limit: limitText }) : '';
  $('open-price-amount').value = '';
  $('open-price-msg').textContent = '';
  $('open-price').hidden = false;
  $('open-price-amount').focus();
}

function closePrice() {
  $('open-price').hidden = true;
  item = null;
  $('scan').focus();
}

async function ring(e) {
  e.preventDefault();
  if (!item) return;
  const sku = item.sku;
  const price = $('open-price-amount').value.trim();
  $('open-price-ok').disabled = true;
  try {
    const c = await withApproval((approval) => invoke('add_open_price', approval ? { sku, price, approval } : { sku, price }));
    const name = item.name;
    closePrice();
    if (shown) shown(c);
    announce(t('scan-added', { name, total: c.total_display }));
  } catch (err) {
    $('open-price-msg').textContent = errText(err);
    alertLoud(errText(err));
  } finally {
    $('open-price-ok').disabled = false;
  }
}

/** Wires the prompt's form once. */
export function initOpenPrice() {
  $('open-price-form').addEventListener('submit', ring);
  $('open-price-cancel').addEventListener('click', closePrice);
  $('open-price').addEventListener('keydown', (e) => { if (e.key === 'Escape') { e.stopPropagation(); closePrice(); } });
}
