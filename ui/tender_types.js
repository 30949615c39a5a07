// Settings → Tender types (record 0122): the store's own tenders — a voucher, a standalone
// terminal, e-money, a QR payment, a store account. A manager or the owner adds one
// (name, kind, whether change is given, whether it counts like cash for the 領収書 stamp
// rule) or switches one off; the commands check the role themselves, so a cashier's
// press is answered with the register's refusal, shown here.

import { invoke } from './bridge.js';
import { $, h, announce, alertLoud, errText } from './dom.js';
import { t } from './i18n.js';

const KINDS = ['voucher', 'external_terminal', 'e_money', 'qr', 'store_account'];
// Each kind's words by literal id (the catalogs test finds every id the UI uses).
const KIND_WORDS = {
  voucher: () => t('tender-kind-voucher'),
  external_terminal: () => t('tender-kind-external_terminal'),
  e_money: () => t('tender-kind-e_money'),
  qr: () => t('tender-kind-qr'),
  store_account: () => t('tender-kind-store_account'),
};
const kindWords = (k) => (KIND_WORDS[k] ? KIND_WORDS[k]() : k);

function say(text, bad) {
  const msg = $('tender-types-msg');
  msg.textContent = text;
  msg.classList.toggle('bad', Boolean(bad));
  if (bad) alertLoud(text); else announce(text);
}

function typeRow(ty) {
  const toggle = h('button', { type: 'button', class: 'secondary', id: `tender-type-toggle-${ty.id}`,
    text: ty.active ? t('tender-types-switch-off') : t('tender-types-switch-on') });
  toggle.addEventListener('click', async () => {
    toggle.disabled = true;
    try {
      const r = await invoke('set_tender_type_active', { id: ty.id, active: !ty.active });
      await loadTenderTypeSettings();
      say(r.active ? t('tender-types-on', { name: r.name }) : t('tender-types-off', { name: r.name }));
    } catch (e) { toggle.disabled = false; say(errText(e), true); }
  });
  const rules = [kindWords(ty.kind), ty.gives_change ? t('tender-types-gives-change') : t('tender-types-no-change')];
  if (ty.counts_for_stamp) rules.push(t('tender-types-stamp'));
  return h('li', { class: 'tender-type' + (ty.active ? '' : ' inactive'), 'data-type': String(ty.id), 'data-active': String(ty.active) },
    h('strong', { text: ty.name }), h('span', { class: 'help', text: ' ' + rules.join(' · ') + ' ' }),
    ty.active ? null : h('span', { class: 'pill', text: t('tender-types-inactive') }), toggle);
}

function addForm() {
  const name = h('input', { id: 'tender-type-name', type: 'text', maxlength: '40', autocomplete: 'off', required: true });
  const kind = h('select', { id: 'tender-type-kind' }, ...KINDS.map((k) => h('option', { value: k, text: kindWords(k) })));
  const change = h('input', { id: 'tender-type-change', type: 'checkbox' });
  const stamp = h('input', { id: 'tender-type-stamp', type: 'checkbox' });
  const add = h('button', { type: 'submit', class: 'primary', id: 'tender-type-add', text: t('tender-types-add') });
  const form = h('form', { id: 'tender-type-form', class: 'tender-type-form', autocomplete: 'off' },
    h('label', {}, t('tender-types-name'), name), h('label', {}, t('tender-types-kind'), kind),
    h('label', { class: 'check' }, change, ' ', t('tender-types-gives-change')),
    h('label', { class: 'check' }, stamp, ' ', t('tender-types-stamp')), add);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    add.disabled = true;
    try {
      const r = await invoke('add_tender_type', { form: { name: name.value, kind: kind.value, gives_change: change.checked, counts_for_stamp: stamp.checked } });
      await loadTenderTypeSettings();
      say(t('tender-types-added', { name: r.name }));
    } catch (err) { say(errText(err), true); } finally { add.disabled = false; }
  });
  return form;
}

/** Draws the section: every tender type with its switch, and the form to add one. */
export async function loadTenderTypeSettings() {
  let types;
  try { types = await invoke('list_all_tender_types'); } catch (e) { announce(errText(e), 'bad'); return; }
  $('tender-types-body').replaceChildren(
    types.length ? h('ul', { id: 'tender-type-list', class: 'tender-type-list' }, ...types.map(typeRow))
      : h('p', { class: 'help', id: 'tender-type-list', text: t('tender-types-none') }),
    addForm(),
    h('p', { class: 'settings-msg', id: 'tender-types-msg', role: 'status' }));
}
