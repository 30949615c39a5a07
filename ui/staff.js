// Staff (record 0127): the owner's screen of every member — role, active or retired,
// locked, from the back office — with Add, Change role, Reset PIN and Retire. Members the
// back office publishes are shown read-only with a mark. The commands check the role
// themselves (src-tauri/src/staff/admin.rs); this screen only hides its tab from others.
// Also "No sale" on the Shift screen: the drawer opened without a sale, with a manager's
// approval when a cashier presses it, and the register's truthful answer shown.

import { invoke } from './bridge.js';
import { $, h, announce, alertLoud, errText } from './dom.js';
import { t } from './i18n.js';
import { roleWords } from './signin.js';
import { withApproval } from './approval.js';

const ROLES = ['cashier', 'manager', 'owner'];

function say(text, bad) {
  const msg = $('staff-msg');
  msg.textContent = text;
  msg.classList.toggle('bad', Boolean(bad));
  if (bad) alertLoud(text); else announce(text);
}

/** Runs a command from a button: the list is drawn again and the answer said. */
async function act(button, run, done) {
  button.disabled = true;
  try {
    const r = await run();
    await loadStaff();
    say(done(r));
  } catch (e) { button.disabled = false; say(errText(e), true); }
}

function roleSelect(id, value) {
  return h('select', { id, 'aria-label': t('staff-col-role') }, ...ROLES.map((r) => {
    const o = h('option', { value: r, text: roleWords(r) });
    if (r === value) o.selected = true;
    return o;
  }));
}

function pinInput(id, label) {
  return h('input', { id, type: 'password', inputmode: 'numeric', autocomplete: 'off', maxlength: '8', 'aria-label': label, placeholder: label });
}

function stateWords(s) {
  if (!s.active) return t('staff-state-retired');
  if (s.locked_until_ms) return t('staff-state-locked');
  return t('staff-state-active');
}

/** The buttons of one member the register may change (active, its own). */
function changes(s, key) {
  const role = roleSelect(`staff-role-${key}`, s.role);
  const setRole = h('button', { type: 'button', class: 'secondary', id: `staff-role-set-${key}`, text: t('staff-role-submit') });
  setRole.addEventListener('click', () => act(setRole, () => invoke('staff_set_role', { name: s.name, role: role.value }),
    (r) => t('staff-role-changed', { name: r.name, role: roleWords(r.role) })));

  const pin = pinInput(`staff-pin-${key}`, t('pin-change-new'));
  const again = pinInput(`staff-pin-again-${key}`, t('pin-change-new-again'));
  const setPin = h('button', { type: 'submit', class: 'primary', id: `staff-pin-set-${key}`, text: t('staff-reset-submit') });
  const pinForm = h('form', { class: 'staff-pin-form', hidden: true, autocomplete: 'off' }, pin, again, setPin);
  pinForm.addEventListener('submit', (e) => {
    e.preventDefault();
    act(setPin, () => invoke('staff_reset_pin', { name: s.name, pin: pin.value, pinAgain: again.value }), (r) => t('staff-pin-reset', { name: r.name }));
  });
  const reset = h('button', { type: 'button', class: 'secondary', id: `staff-reset-${key}`, text: t('staff-reset-pin') });
  reset.addEventListener('click', () => { pinForm.hidden = !pinForm.hidden; if (!pinForm.hidden) pin.focus(); });

  // Retire asks once more on the same button's place: a slip of the finger retires nobody.
  const confirm = h('button', { type: 'button', class: 'danger', id: `staff-retire-yes-${key}`, hidden: true, text: t('staff-retire-confirm', { name: s.name }) });
  confirm.addEventListener('click', () => act(confirm, () => invoke('staff_retire', { name: s.name }), (r) => t('staff-retired', { name: r.name })));
  const retire = h('button', { type: 'button', class: 'secondary', id: `staff-retire-${key}`, text: t('staff-retire') });
  retire.addEventListener('click', () => { retire.hidden = true; confirm.hidden = false; confirm.focus(); });
  return h('div', { class: 'staff-changes' }, role, setRole, reset, retire, confirm, pinForm);
}

function memberRow(s, i) {
  const key = String(i);
  const name = h('td', {}, h('strong', { text: s.name }),
    s.published ? h('span', { class: 'pill staff-published', title: t('staff-published-title'), text: ' ' + t('staff-published') }) : null);
  const editable = s.active && !s.published;
  return h('tr', { class: 'staff-row' + (s.active ? '' : ' inactive'), 'data-name': s.name, 'data-role': s.role,
    'data-active': String(s.active), 'data-published': String(s.published) },
  name, h('td', { text: roleWords(s.role) }), h('td', { text: stateWords(s) }),
  h('td', {}, editable ? changes(s, key) : h('span', { class: 'help', text: s.published ? t('staff-published-title') : '' })));
}

function addForm() {
  const name = h('input', { id: 'staff-add-name', type: 'text', maxlength: '60', autocomplete: 'off', required: true });
  const role = roleSelect('staff-add-role', 'cashier');
  const pin = pinInput('staff-add-pin', t('owner-pin'));
  const again = pinInput('staff-add-pin-again', t('owner-pin-again'));
  const add = h('button', { type: 'submit', class: 'primary', id: 'staff-add', text: t('staff-add-submit') });
  const form = h('form', { id: 'staff-add-form', class: 'staff-add-form', autocomplete: 'off' },
    h('h2', { text: t('staff-add-title') }),
    h('label', {}, t('owner-name'), name), h('label', {}, t('staff-col-role'), role),
    h('label', {}, t('owner-pin'), pin), h('label', {}, t('owner-pin-again'), again), add);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    act(add, () => invoke('staff_add', { name: name.value, role: role.value, pin: pin.value, pinAgain: again.value }),
      (r) => t('staff-added', { name: r.name, role: roleWords(r.role) }));
  });
  return form;
}

/** Draws the Staff screen from the register's answer (a refusal is shown as such). */
export async function loadStaff() {
  let staff;
  try { staff = await invoke('staff_admin_list'); } catch (e) {
    $('staff-body').replaceChildren();
    say(errText(e), true);
    return;
  }
  const head = h('tr', {}, ...['staff-col-name', 'staff-col-role', 'staff-col-state', 'staff-col-actions'].map((k) => h('th', { text: t(k) })));
  $('staff-body').replaceChildren(
    h('div', { class: 'table-wrap' }, h('table', { id: 'staff-table', class: 'staff-table' }, h('thead', {}, head), h('tbody', {}, ...staff.map(memberRow)))),
    addForm());
}

/** "No sale" on the Shift screen: asks for a manager's approval when the role needs it. */
export function initNoSale() {
  const b = $('no-sale');
  b.addEventListener('click', async () => {
    b.disabled = true;
    try {
      const r = await withApproval((approval) => invoke('open_drawer_no_sale', approval ? { approval } : {}));
      if (r) { $('no-sale-msg').textContent = r.message; if (r.kicked) announce(r.message); else alertLoud(r.message); }
    } catch (e) { $('no-sale-msg').textContent = errText(e); alertLoud(errText(e)); } finally { b.disabled = false; }
  });
}
