// Who uses the register (record 0068): the sign-in screen (staff tiles, a PIN pad,
// keyboard digits too), the first-start screen of a store without staff, the status
// bar's name, its Change my PIN (pinchange.js) and Lock (Ctrl+L) buttons, and the idle
// lock. The screens cover the register without touching it, so a sale on screen is still
// there after a lock and a sign-in.
// The commands decide; this module only asks them and shows their answers.

import { invoke } from './bridge.js';
import { ERROR } from './contract.js';
import { $, h, errText } from './dom.js';
import { formatTime, msgId, t } from './i18n.js';
import { closePinChange, initPinChange } from './pinchange.js';

let me = null;            // { name, role } of the person signed in, or null
let hasStaff = false;
let idleMs = 300000;
let idleTimer = null;
let chosen = null;        // the tile picked on the sign-in screen
let onSignedIn = () => {};

/** The person signed in ({ name, role }) or null (a register without staff: null too). */
export const signedIn = () => me;
/** Whether the sign-in or first-start screen covers the register. */
export const isLocked = () => !$('signin').hidden || !$('owner').hidden;

const ROLES = { cashier: msgId('role-cashier'), manager: msgId('role-manager'), owner: msgId('role-owner') };
/** A role's name in the screen's language. */
export const roleWords = (role) => t(ROLES[role] || role);

function renderWho() {
  const who = $('whoami');
  const lock = $('lock');
  who.hidden = !me;
  lock.hidden = !me;
  $('change-pin').hidden = !me;
  // The Staff screen is the owner's (its commands refuse anyone else anyway).
  $('tab-staff').hidden = !me || me.role !== 'owner';
  who.textContent = me ? t('status-signed-in', { name: me.name, role: roleWords(me.role) }) : '';
  who.dataset.name = me ? me.name : '';
  who.dataset.role = me ? me.role : '';
}

function showScreen(which) {
  $('signin').hidden = which !== 'signin';
  $('owner').hidden = which !== 'owner';
  document.body.dataset.screen = which || 'register';
}

function setMsg(id, text, tone) {
  const m = $(id);
  m.textContent = text || '';
  m.className = 'signin-msg' + (tone ? ' ' + tone : '');
}

// ---------------------------------------------------------------- sign-in screen
async function drawTiles() {
  const tiles = $('signin-tiles');
  let staff = [];
  try { staff = await invoke('staff_list'); } catch (e) { setMsg('signin-msg', errText(e), 'bad'); }
  tiles.replaceChildren(...staff.map((s) => h('button', {
    type: 'button', class: 'staff-tile', 'data-name': s.name, 'data-role': s.role,
    onclick: () => pick(s),
  }, h('span', { class: 'staff-name', text: s.name }), h('span', { class: 'staff-role', text: roleWords(s.role) }))));
}

function pick(s) {
  chosen = s;
  $('signin-tiles').hidden = true;
  $('signin-pin-form').hidden = false;
  $('signin-who').textContent = s.name;
  $('signin-pin').value = '';
  setMsg('signin-msg', s.locked_until_ms ? t('signin-locked-until', { time: formatTime(s.locked_until_ms) }) : '', s.locked_until_ms ? 'bad' : '');
  $('signin-pin').focus();
}

function backToTiles() {
  chosen = null;
  $('signin-pin-form').hidden = true;
  $('signin-tiles').hidden = false;
  $('signin-pin').value = '';
  setMsg('signin-msg', '');
}

async function submitPin(e) {
  e.preventDefault();
  if (!chosen) return;
  const pin = $('signin-pin').value;
  $('signin-submit').disabled = true;
  try {
    const who = await invoke('sign_in', { name: chosen.name, pin });
    $('signin-pin').value = '';
    signedInAs(who);
  } catch (err) {
    $('signin-pin').value = '';
    let text = errText(err);
    if (err && err.code === ERROR.STAFF_LOCKED && err.until_ms) text += ' ' + t('signin-locked-until', { time: formatTime(err.until_ms) });
    setMsg('signin-msg', text, 'bad');
    $('signin-msg').dataset.code = (err && err.code) || '';
    $('signin-pin').focus();
  } finally {
    $('signin-submit').disabled = false;
  }
}

function padKey(k) {
  const f = $('signin-pin');
  if (k === 'clear') f.value = '';
  else if (k === 'delete') f.value = f.value.slice(0, -1);
  else if (f.value.length < 8) f.value += k;
  f.focus();
}

// ---------------------------------------------------------------- first owner
async function createOwner(e) {
  e.preventDefault();
  try {
    const who = await invoke('create_owner', { name: $('owner-name').value, pin: $('owner-pin').value, pinAgain: $('owner-pin-again').value });
    $('owner-pin').value = ''; $('owner-pin-again').value = '';
    hasStaff = true;
    signedInAs(who);
  } catch (err) {
    setMsg('owner-msg', errText(err), 'bad');
  }
}

// ---------------------------------------------------------------- lock
function signedInAs(who) {
  me = who;
  renderWho();
  showScreen(null);
  armIdle();
  onSignedIn(who);
}

/** Signs out and shows the sign-in screen; `why` is shown there (the idle lock says so). */
export async function lock(why) {
  closePinChange();
  try { await invoke('sign_out'); } catch (e) { /* the screen locks anyway */ }
  me = null;
  renderWho();
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = null;
  await drawTiles();
  backToTiles();
  setMsg('signin-msg', why || '');
  showScreen('signin');
}

function armIdle() {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = me ? setTimeout(() => lock(t('signin-idle-locked', { seconds: Math.round(idleMs / 1000) })), idleMs) : null;
}

/** Redraws the words after a language switch. */
export function redrawStaff() {
  renderWho();
  if (!$('signin').hidden) drawTiles();
}

/** Sets up the screens; resolves once it is known who (if anyone) uses the register. */
export async function initStaff(whenSignedIn) {
  onSignedIn = whenSignedIn || (() => {});
  $('signin-pin-form').addEventListener('submit', submitPin);
  $('signin-back').addEventListener('click', backToTiles);
  for (const b of document.querySelectorAll('.pin-key')) b.addEventListener('click', () => padKey(b.dataset.key));
  $('owner-form').addEventListener('submit', createOwner);
  $('lock').addEventListener('click', () => lock());
  // Rust refused a command for want of a session (its idle lock, or a session ended
  // elsewhere): the screen follows, with Rust's words.
  document.addEventListener('paydesk:signed-out', (e) => { if (me) lock(e.detail.message); });
  initPinChange();
  // Any input counts as activity: the idle lock starts again.
  for (const ev of ['keydown', 'pointerdown', 'wheel']) document.addEventListener(ev, () => { if (me) armIdle(); }, { capture: true, passive: true });
  document.addEventListener('keydown', (e) => {
    if (e.ctrlKey && !e.altKey && !e.metaKey && (e.key === 'l' || e.key === 'L')) {
      e.preventDefault();
      if (me) lock();
      return;
    }
    // On the PIN pad, digits go to the PIN field wherever the focus is.
    if (!$('signin').hidden && !$('signin-pin-form').hidden && document.activeElement !== $('signin-pin') && /^[0-9]$/.test(e.key)) {
      e.preventDefault();
      padKey(e.key);
    }
  });
  const w = await invoke('whoami');
  hasStaff = w.has_staff;
  idleMs = w.idle_lock_s * 1000;
  if (!hasStaff) { showScreen('owner'); renderWho(); return; }
  if (w.signed_in) { signedInAs(w.signed_in); return; }
  await drawTiles();
  showScreen('signin');
  renderWho();
}
