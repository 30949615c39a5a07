// Settings → Copies of the ledger (record 0116, 0150): the copy schedule (from
// settings.json), whether each good copy is sent sealed to the back office
// (`set_backup_send`), where the backup key is kept, and the key itself for the owner's
// safe (`backup_key`). The commands check the owner's permission, not this screen; the
// key is shown until hidden or the screen is left, and never kept or logged here.

import { withApproval } from './approval.js';
import { invoke } from './bridge.js';
import { KEY_STORAGE } from './contract.js';
import { $, h, announce, alertLoud, errText } from './dom.js';
import { loadAbout } from './about.js';
import { t } from './i18n.js';

/** Draws the part as the register has it now. */
export async function loadCopySettings() {
  const body = $('copies-settings-body');
  if (!body) return;
  let v;
  try { v = await invoke('get_copy_settings'); } catch (e) { body.replaceChildren(h('p', { class: 'bad', text: errText(e) })); return; }
  const schedule = v.every_minutes === 0 ? t('copies-schedule-off') : t('copies-schedule', { minutes: v.every_minutes, keep: v.keep });
  const box = h('input', { type: 'checkbox', id: 'copies-send', checked: v.send });
  const msg = h('p', { class: 'settings-msg', id: 'copies-msg', role: 'status' });
  box.addEventListener('change', async () => {
    box.disabled = true;
    try {
      const now = await withApproval((approval) => invoke('set_backup_send', { on: box.checked, approval }));
      box.checked = now.send;
      msg.textContent = now.send ? t('copies-send-saved-on') : t('copies-send-saved-off');
      announce(msg.textContent, now.send ? '' : 'warn');
      loadAbout();
    } catch (err) { box.checked = !box.checked; alertLoud(errText(err)); } finally { box.disabled = false; }
  });
  const keyBox = h('div', { id: 'copies-key' });
  const show = h('button', { type: 'button', class: 'secondary', id: 'copies-key-show', text: t('copies-key-show') });
  show.addEventListener('click', async () => {
    try {
      const k = await withApproval((approval) => invoke('backup_key', { approval }));
      const hide = h('button', { type: 'button', class: 'link', id: 'copies-key-hide', text: t('copies-key-hide'), onclick: () => keyBox.replaceChildren() });
      keyBox.replaceChildren(
        h('p', { id: 'copies-key-value', class: 'key-shown', text: t('copies-key-shown', { key: k.key }) }),
        h('p', { class: 'help', id: 'copies-key-id', text: t('copies-key-id', { id: k.key_id }) }),
        hide);
    } catch (err) { alertLoud(errText(err)); }
  });
  // replaceChildren would show a null as the word: only the parts that apply.
  body.replaceChildren(...[
    h('p', { id: 'copies-schedule', text: schedule }),
    h('p', {}, h('label', {}, box, ' ', t('copies-send-label'))),
    v.paired ? null : h('p', { class: 'help', id: 'copies-not-paired', text: t('copies-send-not-paired') }),
    // As for the PSP key (record 0065): short on screen, the whole reason in its title.
    h('p', { class: v.key_storage === KEY_STORAGE.KEYCHAIN ? 'help' : 'help key-in-file', id: 'copies-key-storage',
      title: v.key_storage_note || '',
      text: v.key_storage === KEY_STORAGE.KEYCHAIN ? t('copies-key-keychain') : t('copies-key-file') }),
    h('p', {}, show),
    keyBox,
    msg].filter(Boolean));
}
