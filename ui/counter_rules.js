// Settings → Counter rules (record 0136): the store's in-store label rules as rows (prefix,
// item digits, price or weight) with add / remove / back to the built-in rules, the
// open-price limit as an amount in the store's currency, and tax-exempt sales as a switch.
// The commands check the owner's permission (asking for their approval when a manager
// saves) and every value; their refusal comes back as {code, message} and is shown here.

import { withApproval } from './approval.js';
import { invoke } from './bridge.js';
import { $, h, announce, alertLoud, errText } from './dom.js';
import { t } from './i18n.js';

const PREFIXES = ['02', '20', '21', '22', '23', '24', '25', '26', '27', '28', '29'];
const MAX_RULES = 10;

function say(text, bad) {
  const msg = $('counter-rules-msg');
  msg.textContent = text;
  msg.classList.toggle('bad', Boolean(bad));
  msg.dataset.outcome = bad ? 'error' : 'saved';
  if (bad) alertLoud(text); else announce(text);
}

/** One rule's row; `n` numbers its fields for tests and labels. */
function ruleRow(rule, n) {
  const prefix = h('select', { class: 'rule-prefix', id: `rule-prefix-${n}`, 'aria-label': t('counter-rules-prefix') },
    ...PREFIXES.map((p) => h('option', { value: p, text: p, selected: p === rule.prefix })));
  const digits = h('input', { class: 'rule-digits', id: `rule-digits-${n}`, type: 'number', min: '1', max: '9',
    value: String(rule.item_digits), 'aria-label': t('counter-rules-item-digits') });
  const value = h('select', { class: 'rule-value', id: `rule-value-${n}`, 'aria-label': t('counter-rules-value') },
    h('option', { value: 'price', text: t('counter-rules-value-price'), selected: rule.value === 'price' }),
    h('option', { value: 'grams', text: t('counter-rules-value-grams'), selected: rule.value === 'grams' }));
  // What a label of this layout looks like, so the owner can hold it against a printed one.
  const example = h('span', { class: 'help rule-example', id: `rule-example-${n}` });
  const describe = () => {
    const d = Math.min(Math.max(Number(digits.value) || 0, 0), 10);
    const what = value.value === 'grams' ? t('counter-rules-value-grams') : t('counter-rules-value-price');
    example.textContent = t('counter-rules-example', { prefix: prefix.value, item: 'I'.repeat(d), rest: 'V'.repeat(10 - d), what });
  };
  for (const el of [prefix, digits, value]) el.addEventListener('input', describe);
  for (const el of [prefix, value]) el.addEventListener('change', describe);
  describe();
  const cap = (id) => h('span', { class: 'cap', text: t(id) });
  const row = h('li', { class: 'label-rule', 'data-rule': String(n) },
    h('label', {}, cap('counter-rules-prefix'), prefix),
    h('label', {}, cap('counter-rules-item-digits'), digits),
    h('label', {}, cap('counter-rules-value'), value),
    h('button', { type: 'button', class: 'secondary', id: `rule-remove-${n}`, text: t('counter-rules-remove'),
      onclick: () => { const list = row.parentElement; row.remove(); captions(list); } }),
    example);
  return row;
}

/** The column names are shown once, over the first row; the later rows keep them for
 *  screen readers only (each field also has its aria-label). */
function captions(list) {
  [...list.querySelectorAll('li.label-rule')].forEach((li, i) => {
    for (const c of li.querySelectorAll('.cap')) c.classList.toggle('visually-hidden', i > 0);
  });
}

function formRules() {
  return [...document.querySelectorAll('#label-rule-list li.label-rule')].map((li) => ({
    prefix: li.querySelector('.rule-prefix').value,
    item_digits: Number(li.querySelector('.rule-digits').value),
    value: li.querySelector('.rule-value').value,
  }));
}

function draw(r) {
  let next = r.rules.length;
  const list = h('ul', { id: 'label-rule-list', class: 'label-rule-list' }, ...r.rules.map((x, i) => ruleRow(x, i)));
  captions(list);
  const state = r.own ? (r.rules.length ? '' : t('counter-rules-none')) : t('counter-rules-defaults');
  const limit = h('input', { id: 'open-price-limit', name: 'open_price_limit', inputmode: 'decimal', maxlength: '16',
    value: r.open_price_limit });
  const exempt = h('input', { id: 'tax-exemptions', type: 'checkbox', role: 'switch', checked: r.tax_exemptions });
  const add = h('button', { type: 'button', class: 'secondary', id: 'rule-add', text: t('counter-rules-add'),
    onclick: () => {
      if (list.children.length >= MAX_RULES) return;
      const used = new Set(formRules().map((x) => x.prefix));
      const prefix = PREFIXES.find((p) => !used.has(p)) || '20';
      list.append(ruleRow({ prefix, item_digits: 5, value: 'price' }, next++));
      captions(list);
    } });
  const reset = h('button', { type: 'button', class: 'secondary', id: 'rule-reset', text: t('counter-rules-reset'),
    onclick: async () => {
      try {
        const back = await withApproval((approval) => invoke('reset_label_rules', { approval }));
        draw(back);
        say(t('counter-rules-reset-done'));
      } catch (e) { say(errText(e), true); }
    } });
  const save = h('button', { type: 'submit', class: 'primary', id: 'counter-rules-save', text: t('counter-rules-save') });
  const form = h('form', { id: 'counter-rules-form', class: 'counter-rules-form', autocomplete: 'off' },
    h('h3', { text: t('counter-rules-labels') }),
    h('p', { class: 'help', text: t('counter-rules-labels-help') }),
    state ? h('p', { class: 'help', id: 'label-rules-state', text: state }) : '',
    list,
    h('div', { class: 'actions' }, add, reset),
    h('label', { class: 'limit' }, t('counter-rules-open-price-limit', { currency: r.currency }), limit),
    h('label', { class: 'check' }, exempt, ' ', t('counter-rules-exemptions'),
      r.tax_exemptions_default ? h('span', { class: 'help', text: ' ' + t('counter-rules-exemptions-default') }) : ''),
    h('div', { class: 'actions' }, save));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    save.disabled = true;
    const data = { rules: formRules(), open_price_limit: limit.value, tax_exemptions: exempt.checked };
    try {
      const saved = await withApproval((approval) => invoke('save_counter_rules', { form: data, approval }));
      draw(saved);
      say(t('counter-rules-saved'));
    } catch (err) { say(errText(err), true); } finally { save.disabled = false; }
  });
  const body = $('counter-rules-body');
  body.replaceChildren(form, h('p', { class: 'settings-msg', id: 'counter-rules-msg', role: 'status' }));
  body.dataset.draws = String(Number(body.dataset.draws || 0) + 1);
}

/** Draws the section as stored. */
export async function loadCounterRules() {
  let r;
  try { r = await invoke('get_counter_rules'); } catch (e) { announce(errText(e), 'bad'); return; }
  draw(r);
}
