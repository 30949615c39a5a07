// The About panel on the Settings screen: version, data folder, ledger schema, the
// PSP in use, and how to back the data up (from the `about` command).

import { invoke } from './bridge.js';
import { COPY_SEND_STATE, PSP_KIND } from './contract.js';
import { $, h, errText } from './dom.js';
import { formatDateTime, t } from './i18n.js';

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
  const sent = sentText(a.copy_send);
  const row = (id, term, value) => [h('dt', { text: term }), h('dd', { id: 'about-' + id, text: value })];
  list.replaceChildren(
    ...row('version', t('about-version'), `PayDesk ${a.version}`),
    ...row('data-dir', t('about-data-dir'), a.data_dir),
    ...row('ledger', t('about-ledger'), t('about-ledger-value', { path: a.ledger_path, schema: a.ledger_schema })),
    ...row('psp', t('about-psp'), psp),
    ...row('copies', t('about-copies-title'), copies),
    ...row('copies-sent', t('about-sent-title'), sent),
    ...row('backups', t('about-backups-title'), backups),
    ...row('backup-how', t('about-backup-how-title'), t('about-backup-how')),
  );
  list.dataset.version = a.version;
  // A send runs on its own thread: while one is under way and Settings is on screen, look
  // again shortly, so "sending" turns into what happened without a click.
  if (a.copy_send && a.copy_send.state === COPY_SEND_STATE.SENDING && !$('view-settings').hidden) setTimeout(loadAbout, 3000);
}

/** Bytes as a person reads them (1 decimal from KB on). */
function size(bytes) {
  const units = ['B', 'KB', 'MB', 'GB'];
  let n = Number(bytes); let u = 0;
  while (n >= 1024 && u < units.length - 1) { n /= 1024; u += 1; }
  return u === 0 ? `${n} B` : `${n.toFixed(1)} ${units[u]}`;
}

/** The copies at the back office (record 0150): how sending stands, by its word from
 *  the register, and the last copy the back office holds whole (when, size). */
function sentText(v) {
  if (!v) return '';
  const last = v.last_sent
    ? t('about-sent', { when: formatDateTime(v.last_sent.sent_ms), taken: formatDateTime(v.last_sent.taken_ms), size: size(v.last_sent.bytes) })
    : t('about-sent-none');
  const when = v.at_ms ? formatDateTime(v.at_ms) : '';
  const code = v.code || '';
  const detail = v.detail || '';
  let state;
  if (v.state === COPY_SEND_STATE.OFF) state = t('about-send-off');
  else if (v.state === COPY_SEND_STATE.NOT_PAIRED) state = t('about-send-not-paired');
  else if (v.state === COPY_SEND_STATE.NOT_YET) state = t('about-send-not-yet');
  else if (v.state === COPY_SEND_STATE.SENDING) state = t('about-send-sending');
  else if (v.state === COPY_SEND_STATE.UNREACHABLE) state = t('about-send-unreachable', { when });
  else if (v.state === COPY_SEND_STATE.REFUSED) state = t('about-send-refused', { code, detail });
  else if (v.state === COPY_SEND_STATE.FAILED) state = t('about-send-failed', { code, detail });
  else state = '';
  return v.state === COPY_SEND_STATE.SENT ? last : `${state} · ${last}`;
}
