// The settings screen: the screen's language, processor URL and key, fault profile of
// the embedded test PSP, idempotency key retention and offline limits. Saved through
// `save_settings`, which says whether they apply now or wait for payments in progress;
// the language switches at once through `set_language` (record 0070).

import { withApproval } from './approval.js';
import { invoke } from './bridge.js';
import { APPLIED, KEY_STORAGE } from './contract.js';
import { $, h, announce, alertLoud, errText } from './dom.js';
import { refreshStatus } from './status.js';
import { loadAbout } from './about.js';
import { chosenLanguage, lang, languageOptions, setLanguage, t } from './i18n.js';

/** The Language select: changing it switches the whole screen at once. Below the
 *  processor form (whose Save button must stay in view at 1024x768), above About. */
function languageSection() {
  const current = chosenLanguage() || lang();
  const select = h('select', { id: 'set-language', 'aria-describedby': 'language-help' },
    ...languageOptions().map((l) => h('option', { value: l.code, text: l.name, lang: l.code, selected: l.code === current })));
  select.addEventListener('change', async () => {
    select.disabled = true;
    try {
      await setLanguage(select.value);
      announce(t('language-changed'));
    } catch (err) { alertLoud(errText(err)); } finally { select.disabled = false; }
  });
  return h('section', { class: 'language', id: 'language-settings', 'aria-labelledby': 'language-title' },
    h('h2', { id: 'language-title', text: t('language-label') }),
    h('label', { for: 'set-language', class: 'visually-hidden', text: t('language-label') }), select,
    h('p', { class: 'help', id: 'language-help', text: t('language-help') }));
}

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
    'data-applied': st.waiting ? 'waiting' : '', text: st.waiting ? t('settings-waiting', { reason: st.waiting }) : '' });
  const currency = st.offline_currency;
  const old = $('language-settings');
  if (old) old.replaceWith(languageSection()); else f.after(languageSection());
  f.replaceChildren(
    h('fieldset', {}, h('legend', { text: t('settings-psp') }),
      field('psp_url', t('settings-psp-url'), st.psp_url, { type: 'url', placeholder: st.psp_url_in_use }),
      h('p', { class: 'help', id: 'psp-in-use', text: st.psp_embedded ? t('settings-in-use-embedded') : t('settings-in-use', { url: st.psp_url_in_use }) }),
      field('psp_key', t('settings-psp-key'), st.psp_key, { type: 'password', autocomplete: 'off' }),
      // Short on screen (the form must fit 1024x768); the whole reason is in its title.
      h('p', { class: st.key_storage === KEY_STORAGE.KEYCHAIN ? 'help' : 'help key-in-file', id: 'key-storage',
        title: st.key_storage_note || '',
        text: st.key_storage === KEY_STORAGE.KEYCHAIN ? t('settings-key-keychain') : t('settings-key-file') }),
      h('label', {}, st.psp_embedded ? t('settings-fault-profile') : t('settings-fault-profile-unused'), profile),
      h('p', { class: 'help', text: t('settings-fault-help') })),
    h('fieldset', {}, h('legend', { text: t('settings-keys') }),
      field('retention_hours', t('settings-retention'), st.retention_hours, { type: 'number', min: '1', max: '720' }),
      field('safety_margin_minutes', t('settings-margin'), st.safety_margin_minutes, { type: 'number', min: '0', max: '1440' })),
    h('fieldset', {}, h('legend', { text: t('settings-offline') }),
      field('offline_max_amount', t('settings-offline-max-amount', { currency }), st.offline_max_amount_display_plain, { inputmode: 'decimal' }),
      field('offline_max_total', t('settings-offline-max-total', { currency }), st.offline_max_total_display_plain, { inputmode: 'decimal' }),
      field('offline_max_count', t('settings-offline-max-count'), st.offline_max_count, { type: 'number', min: '0', max: '10000' }),
      field('offline_max_age_hours', t('settings-offline-max-age'), st.offline_max_age_hours, { type: 'number', min: '1', max: '168' }),
      // The store's caps bound this register's (record 0139): said, so a higher figure typed
      // here is not believed to be in force.
      st.offline_store_caps ? h('p', { class: 'help', id: 'offline-store-caps', text: st.offline_store_caps }) : null),
    h('div', { class: 'actions' }, h('button', { class: 'primary', type: 'submit', id: 'save-settings', text: t('settings-save') }),
      h('p', { class: 'help', text: t('settings-save-help') })),
    msg);
  f.onsubmit = async (e) => {
    e.preventDefault();
    const data = Object.fromEntries(new FormData(f).entries());
    if (profile.disabled) data.fault_profile = st.fault_profile;
    try {
      const res = await withApproval((approval) => invoke('save_settings', { settings: data, approval }));
      msg.textContent = res.message; msg.dataset.applied = res.applied; msg.classList.remove('bad');
      announce(res.message, res.applied === APPLIED.WAITING ? 'warn' : ''); refreshStatus();
      if (res.applied === APPLIED.NOW) showApplied(res.message); else loadAbout();
    } catch (err) { msg.textContent = errText(err); msg.dataset.applied = 'error'; msg.classList.add('bad'); alertLoud(errText(err)); }
  };
}

/** The settings form redrawn as now in use, with the register's message; About (the
 *  fault profile and processor in use) follows the settings now in use too. */
export function showApplied(message) {
  loadAbout();
  return loadSettings().then(() => { $('settings-msg').textContent = message; $('settings-msg').dataset.applied = 'now'; });
}
