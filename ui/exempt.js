// A tax-exempt sale (record 0135): "Tax exempt…" on the cart opens a small form for the
// reason (a resale certificate, a diplomat's card, a non-profit's exemption number). The
// command holds every rule — a manager's (a cashier's press asks a manager's PIN inline),
// the store's setting, nothing tendered yet, 3 to 200 characters — and this screen only
// shows its answers. The button is shown where the store takes exemptions.

import { invoke } from './bridge.js';
import { withApproval } from './approval.js';
import { $, announce, alertLoud, errText } from './dom.js';
import { t } from './i18n.js';

let showCart = () => {};
let onClosed = () => {};
let current = null;

/** The button and the summary rows of the cart on screen. */
export function syncExempt(c) {
  current = c;
  const b = $('tax-exempt');
  b.hidden = !c.tax_exempt_allowed && !c.tax_exempt_reason;
  b.disabled = c.tax_locked || c.lines.length === 0;
  b.dataset.exempt = String(!!c.tax_exempt_reason);
  if (c.tax_locked) closeExempt();
}

/** The cart summary's rows of an exempt sale: its tax, nothing, and why. */
export function exemptRows(c, row) {
  if (!c.tax_exempt_reason) return;
  row('sum-tax', t('exempt-tax'), c.tax_total_display, { id: 'sum-exempt-tax', 'data-tax': String(c.tax_total) });
  row('sum-exempt', t('exempt-badge', { reason: c.tax_exempt_reason }), '', { id: 'sum-exempt', 'data-reason': c.tax_exempt_reason });
}

function openExempt() {
  if (!current || current.tax_locked) return;
  $('exempt-form').hidden = false;
  $('exempt-reason').value = current.tax_exempt_reason || '';
  $('exempt-clear').hidden = !current.tax_exempt_reason;
  $('exempt-msg').textContent = '';
  $('exempt-reason').focus();
}

function closeExempt() {
  $('exempt-form').hidden = true;
}

async function apply(reason) {
  try {
    const c = await withApproval((approval) => invoke('set_tax_exempt', approval ? { reason, approval } : { reason }));
    closeExempt();
    showCart(c);
    announce(t(reason === null ? 'exempt-done-clear' : 'exempt-done-set', { total: c.total_display }));
    onClosed();
  } catch (e) {
    $('exempt-msg').textContent = errText(e);
    $('exempt-form').dataset.code = (e && e.code) || 'error';
    alertLoud(errText(e));
  }
}

/** Wires the form: `cart` draws a cart view, `closed` returns focus to the scan field. */
export function initExempt({ cart, closed }) {
  showCart = cart;
  onClosed = closed;
  $('tax-exempt').addEventListener('click', openExempt);
  $('exempt-form').addEventListener('submit', (e) => { e.preventDefault(); apply($('exempt-reason').value); });
  $('exempt-clear').addEventListener('click', () => apply(null));
  $('exempt-cancel').addEventListener('click', () => { closeExempt(); onClosed(); });
}
