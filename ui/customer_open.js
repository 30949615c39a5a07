// Settings → Customer display (record 0132): opens the second window facing the customer
// (or brings it forward), and keeps the display's language and whether it opens at start.
// The display draws itself; nothing more here.

import { invoke } from './bridge.js';
import { $, alertLoud, errText } from './dom.js';

function fill(s) {
  const sel = $('customer-display-lang');
  // the first option is "the store's language" (data-i18n); the rest from the register
  while (sel.options.length > 1) sel.remove(1);
  for (const l of s.languages) sel.add(new Option(l.name, l.code));
  sel.value = s.language;
  $('customer-display-at-start').checked = s.open_at_start;
}

function save() {
  invoke('save_customer_display', { language: $('customer-display-lang').value, openAtStart: $('customer-display-at-start').checked })
    .then(fill)
    .catch((e) => alertLoud(errText(e)));
}

export function initCustomerDisplay() {
  $('customer-display-open').addEventListener('click', () => {
    invoke('open_customer_display').catch((e) => alertLoud(errText(e)));
  });
  $('customer-display-lang').addEventListener('change', save);
  $('customer-display-at-start').addEventListener('change', save);
}

/** Settings shown: the display's settings as saved. */
export function loadCustomerDisplay() {
  invoke('customer_display_settings').then(fill).catch((e) => alertLoud(errText(e)));
}
