// Weighed goods (issue #30, record 0134): an item sold by weight, tapped in the item list,
// asks for the grams the scale shows; they go to `add_weighed`, which checks them again
// (1 to 100000 g) whatever this field allowed. A scale's weight label needs no prompt: it
// is rung by the scan field. Each weighing is a line of its own.

import { invoke } from './bridge.js';
import { $, announce, alertLoud, errText } from './dom.js';
import { t } from './i18n.js';

const MIN_GRAMS = 1;
const MAX_GRAMS = 100000;

let shown = null;   // the cart view callback of the register
let item = null;    // the item the prompt is for ({sku, name, price_display})

/** Opens the grams prompt for `it`; `render(cart)` draws the cart after the ring. */
export function openWeigh(it, render) {
  item = it;
  shown = render;
  $('weigh-title').textContent = t('weigh-title', { name: it.name });
  $('weigh-help').textContent = t('weigh-help', { price: it.price_display });
  $('weigh-grams').value = '';
  $('weigh-msg').textContent = '';
  $('weigh').hidden = false;
  $('weigh-grams').focus();
}

function closeWeigh() {
  $('weigh').hidden = true;
  item = null;
  $('scan').focus();
}

async function ring(e) {
  e.preventDefault();
  if (!item) return;
  const text = $('weigh-grams').value.trim();
  const grams = Number(text);
  if (!/^[0-9]+$/.test(text) || grams < MIN_GRAMS || grams > MAX_GRAMS) {
    $('weigh-msg').textContent = t('input-grams', { min: MIN_GRAMS, max: MAX_GRAMS });
    return;
  }
  $('weigh-ok').disabled = true;
  try {
    const c = await invoke('add_weighed', { sku: item.sku, grams });
    const name = item.name;
    closeWeigh();
    if (shown) shown(c);
    announce(t('scan-added', { name, total: c.total_display }));
  } catch (err) {
    $('weigh-msg').textContent = errText(err);
    alertLoud(errText(err));
  } finally {
    $('weigh-ok').disabled = false;
  }
}

/** Wires the prompt's form once. */
export function initWeigh() {
  $('weigh-form').addEventListener('submit', ring);
  $('weigh-cancel').addEventListener('click', closeWeigh);
  $('weigh').addEventListener('keydown', (e) => { if (e.key === 'Escape') { e.stopPropagation(); closeWeigh(); } });
}
