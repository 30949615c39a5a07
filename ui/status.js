// The status bar: processor reachability, the offline queue, last sync, the fault
// profile and settings waiting to apply. Pushed as `status` events, also polled.

import { invoke } from './bridge.js';
import { $ } from './dom.js';
import { formatTime, t } from './i18n.js';

export function renderStatus(st) {
  const p = $('psp-status');
  if (st.psp_refusing) {
    // It answers, but refuses this register's key or URL: a Settings problem, not the network.
    p.dataset.online = 'refusing';
    p.textContent = t('status-psp-refusing');
    p.title = `${st.psp_url || ''}: ${st.psp_refusing}`;
  } else {
    p.dataset.online = st.psp_online === null ? 'unknown' : String(st.psp_online);
    p.textContent = st.psp_online === null ? t('status-psp-checking') : (st.psp_online ? t('status-psp-online') : t('status-psp-offline'));
    p.title = st.psp_url || '';
  }
  $('pending-forward').textContent = t('status-pending-forward', { count: st.pending_forward });
  $('pending-forward').dataset.count = String(st.pending_forward);
  $('last-sync').textContent = st.last_sync ? t('status-last-sync', { time: formatTime(Number(st.last_sync)) }) : t('status-last-sync-never');
  $('fault-profile').textContent = st.psp_embedded ? t('status-embedded', { profile: st.fault_profile }) : t('status-psp-url', { url: st.psp_url });
  $('fault-profile').title = $('fault-profile').textContent;   // the bar may cut it short
  const w = $('settings-waiting');
  w.hidden = !st.settings_waiting;
  w.textContent = st.settings_waiting ? t('status-settings-waiting') : '';
  w.title = st.settings_waiting || '';
}

export async function refreshStatus() {
  try { renderStatus(await invoke('get_status')); } catch (e) { /* the bar keeps its last state */ }
}
