// The status bar: processor reachability, the offline queue, last sync, the fault
// profile and settings waiting to apply. Pushed as `status` events, also polled.

import { invoke } from './bridge.js';
import { $, timeOf } from './dom.js';

export function renderStatus(st) {
  const p = $('psp-status');
  if (st.psp_refusing) {
    // It answers, but refuses this register's key or URL: a Settings problem, not the network.
    p.dataset.online = 'refusing';
    p.textContent = 'PSP refuses this register';
    p.title = `${st.psp_url || ''}: ${st.psp_refusing}`;
  } else {
    p.dataset.online = st.psp_online === null ? 'unknown' : String(st.psp_online);
    p.textContent = st.psp_online === null ? 'PSP: checking…' : (st.psp_online ? 'PSP online' : 'PSP offline');
    p.title = st.psp_url || '';
  }
  $('pending-forward').textContent = `Waiting to be forwarded: ${st.pending_forward}`;
  $('pending-forward').dataset.count = String(st.pending_forward);
  $('last-sync').textContent = `Last sync: ${st.last_sync ? timeOf(Number(st.last_sync)) : 'never'}`;
  $('fault-profile').textContent = st.psp_embedded ? `Embedded test PSP · faults: ${st.fault_profile}` : `PSP: ${st.psp_url}`;
  $('fault-profile').title = $('fault-profile').textContent;   // the bar may cut it short
  const w = $('settings-waiting');
  w.hidden = !st.settings_waiting;
  w.textContent = st.settings_waiting ? 'New settings waiting' : '';
  w.title = st.settings_waiting || '';
}

export async function refreshStatus() {
  try { renderStatus(await invoke('get_status')); } catch (e) { /* the bar keeps its last state */ }
}
