// The cashier's "Customer display" button (record 0132): opens the second window facing
// the customer (or brings it forward). The display draws itself; nothing more here.

import { invoke } from './bridge.js';
import { $, alertLoud, errText } from './dom.js';

export function initCustomerDisplay() {
  $('customer-display-open').addEventListener('click', () => {
    invoke('open_customer_display').catch((e) => alertLoud(errText(e)));
  });
}
