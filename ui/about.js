// The About panel on the Settings screen: version, data folder, ledger schema, the
// PSP in use, and how to back the data up (from the `about` command).

import { invoke } from './bridge.js';
import { PSP_KIND } from './contract.js';
import { $, h, errText } from './dom.js';
import { t } from './i18n.js';

/** Fills the About panel. */
export async function loadAbout() {
  const list = $('about-list');
  let a;
  try { a = await invoke('about'); } catch (e) { list.replaceChildren(h('p', { class: 'bad', text: errText(e) })); return; }
  const psp = a.psp_kind === PSP_KIND.EMBEDDED
    ? t('about-psp-embedded', { profile: a.fault_profile, url: a.psp_url })
    : a.psp_url;
  const backups = a.backups.length === 0
    ? t('about-backups-none')
    : t('about-backups', { count: a.backups.length, newest: a.backups[a.backups.length - 1] });
  const copies = a.copy_failure
    ? t('about-copies-failed', { reason: a.copy_failure })
    : a.copies.length === 0
      ? (a.copy_every_minutes === 0 ? t('about-copies-off') : t('about-copies-none', { minutes: a.copy_every_minutes }))
      : t('about-copies', { count: a.copies.length, newest: a.copies[a.copies.length - 1], minutes: a.copy_every_minutes });
  const row = (id, term, value) => [h('dt', { text: term }), h('dd', { id: 'about-' + id, text: value })];
  list.replaceChildren(
    ...row('version', t('about-version'), `PayDesk ${a.version}`),
    ...row('data-dir', t('about-data-dir'), a.data_dir),
    ...row('ledger', t('about-ledger'), t('about-ledger-value', { path: a.ledger_path, schema: a.ledger_schema })),
    ...row('psp', t('about-psp'), psp),
    ...row('copies', t('about-copies-title'), copies),
    ...row('backups', t('about-backups-title'), backups),
    ...row('backup-how', t('about-backup-how-title'), t('about-backup-how')),
  );
  list.dataset.version = a.version;
}
