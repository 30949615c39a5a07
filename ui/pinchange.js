// Change my PIN (record 0068): a small dialog from the status bar for the person signed
// in — current PIN, new PIN, new PIN again. The command decides (the current PIN under
// the lockout, the two new ones equal, the new one different and well formed); this
// module only sends the three fields and shows its answer or its typed error.

import { invoke } from './bridge.js';
import { ERROR } from './contract.js';
import { $, errText } from './dom.js';
import { formatTime, t } from './i18n.js';

const FIELDS = ['pinchange-old', 'pinchange-new', 'pinchange-again'];

function setMsg(text, tone, code) {
  const m = $('pinchange-msg');
  m.textContent = text || '';
  m.className = 'signin-msg' + (tone ? ' ' + tone : '');
  m.dataset.code = code || '';
}

function clearFields() {
  for (const id of FIELDS) $(id).value = '';
}

/** Whether the dialog is on show (the register's keys stay out of it). */
export const isPinChangeOpen = () => !$('pinchange').hidden;

/** Opens the dialog, empty, the current PIN field focused. */
export function openPinChange() {
  clearFields();
  setMsg('');
  $('pinchange-fields').hidden = false;
  $('pinchange-ok').hidden = false;
  $('pinchange-cancel').hidden = false;
  $('pinchange-close').hidden = true;
  $('pinchange').hidden = false;
  $('pinchange-old').focus();
}

/** Closes the dialog and forgets what was typed (a lock closes it too). */
export function closePinChange() {
  clearFields();
  setMsg('');
  $('pinchange').hidden = true;
}

async function submit(e) {
  e.preventDefault();
  const oldPin = $('pinchange-old').value;
  const newPin = $('pinchange-new').value;
  const newPinAgain = $('pinchange-again').value;
  // Said at once here; the command checks it again whoever calls it.
  if (newPin !== newPinAgain) {
    setMsg(t('pin-change-pins-differ'), 'bad', 'invalid_input');
    $('pinchange-again').value = '';
    $('pinchange-again').focus();
    return;
  }
  $('pinchange-ok').disabled = true;
  try {
    await invoke('change_pin', { oldPin, newPin, newPinAgain });
    clearFields();
    $('pinchange-fields').hidden = true;
    $('pinchange-ok').hidden = true;
    $('pinchange-cancel').hidden = true;
    $('pinchange-close').hidden = false;
    setMsg(t('pin-change-done'), 'ok', 'done');
    $('pinchange-close').focus();
  } catch (err) {
    let text = errText(err);
    if (err && err.code === ERROR.STAFF_LOCKED && err.until_ms) text += ' ' + t('signin-locked-until', { time: formatTime(err.until_ms) });
    setMsg(text, 'bad', (err && err.code) || '');
    // A wrong current PIN is typed again; the new ones stay.
    if (err && (err.code === ERROR.WRONG_PIN || err.code === ERROR.STAFF_LOCKED)) $('pinchange-old').value = '';
    $('pinchange-old').focus();
  } finally {
    $('pinchange-ok').disabled = false;
  }
}

/** Wires the dialog and its status-bar button (shown by signin.js to whoever is signed in). */
export function initPinChange() {
  $('change-pin').addEventListener('click', openPinChange);
  $('pinchange-form').addEventListener('submit', submit);
  $('pinchange-cancel').addEventListener('click', closePinChange);
  $('pinchange-close').addEventListener('click', closePinChange);
  $('pinchange').addEventListener('keydown', (e) => {
    if (e.key === 'Escape') { e.preventDefault(); closePinChange(); }
  });
}
