// The About panel on the Settings screen: version, data folder, ledger schema, the
// PSP in use, and how to back the data up (from the `about` command).

import { invoke } from './bridge.js';
import { $, h, errText } from './dom.js';

/** Fills the About panel. */
export async function loadAbout() {
  const list = $('about-list');
  let a;
  try { a = await invoke('about'); } catch (e) { list.replaceChildren(h('p', { class: 'bad', text: errText(e) })); return; }
  const psp = a.psp_kind === 'embedded'
    ? `The embedded test PSP (fault profile ${a.fault_profile}) at ${a.psp_url}`
    : a.psp_url;
  const backups = a.backups.length === 0
    ? 'None (a copy is written in backups/ before an upgrade changes the ledger)'
    : `${a.backups.length} in backups/, newest ${a.backups[a.backups.length - 1]}`;
  const row = (id, term, value) => [h('dt', { text: term }), h('dd', { id: 'about-' + id, text: value })];
  list.replaceChildren(
    ...row('version', 'Version', `PayDesk ${a.version}`),
    ...row('data-dir', 'Data folder', a.data_dir),
    ...row('ledger', 'Ledger', `${a.ledger_path} (schema ${a.ledger_schema})`),
    ...row('psp', 'PSP in use', psp),
    ...row('backups', 'Copies before upgrades', backups),
    ...row('backup-how', 'Back up', 'Quit PayDesk, then copy the whole data folder.'),
  );
  list.dataset.version = a.version;
}
