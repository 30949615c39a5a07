// The settings screen: processor URL and key, fault profile of the embedded test
// PSP, idempotency key retention and offline limits. Saved through `save_settings`,
// which says whether they apply now or wait for payments in progress.

import { invoke } from './bridge.js';
import { $, h, announce, alertLoud, errText } from './dom.js';
import { refreshStatus } from './status.js';

/** Draws the settings form as saved, with what is in use now and what still waits. */
export async function loadSettings() {
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
      // Short on screen (the form must fit 1024x768); the whole reason is in its title.
      h('p', { class: st.key_storage === 'keychain' ? 'help' : 'help key-in-file', id: 'key-storage',
        title: st.key_storage_note || '',
        text: st.key_storage === 'keychain' ? 'Kept in the system keychain.' : 'No keychain here: the key is kept in settings.json.' }),
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
      if (res.applied === 'now') showApplied(res.message);
    } catch (err) { msg.textContent = errText(err); msg.dataset.applied = 'error'; msg.classList.add('bad'); alertLoud(errText(err)); }
  };
}

/** The settings form redrawn as now in use, with the register's message. */
export function showApplied(message) {
  return loadSettings().then(() => { $('settings-msg').textContent = message; $('settings-msg').dataset.applied = 'now'; });
}
