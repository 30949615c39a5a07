// The catalog screen (F5): every item of the store with its fields, an item form
// (add, edit, deactivate) with the register's problem per field, CSV import (a file
// read here, or pasted text) that lists every bad line and imports nothing from a bad
// file, CSV export saved in the data folder; and the store's settings with the
// receipt printer. The commands check everything again: this screen only draws.

import { withApproval } from './approval.js';
import { invoke } from './bridge.js';
import { ERROR } from './contract.js';
import { $, h, announce, alertLoud, errText } from './dom.js';
import { msgId, setTimeZone, t } from './i18n.js';

const MAX_CSV_BYTES = 4 * 1024 * 1024;
const CLASSES = { standard: msgId('catalog-class-standard'), reduced: msgId('catalog-class-reduced'), exempt: msgId('catalog-class-exempt') };
const PRICE_KINDS = { fixed: msgId('catalog-price-kind-fixed'), open: msgId('catalog-price-kind-open'), department: msgId('catalog-price-kind-department') };
const UNITS = { piece: msgId('catalog-unit-piece'), kilogram: msgId('catalog-unit-kilogram'), hundred_grams: msgId('catalog-unit-hundred_grams') };
const PRICE_MODES = { inclusive: msgId('store-prices-inclusive'), exclusive: msgId('store-prices-exclusive') };
const ROUNDINGS = { down: msgId('store-rounding-down'), half_up: msgId('store-rounding-half_up'), up: msgId('store-rounding-up') };
let screen = null;
let onChange = () => {};

/** `changed` is called after the catalog changed (the register reloads its items). */
export function initCatalog(changed) {
  onChange = changed;
  $('catalog-add').addEventListener('click', () => editItem(null));
  $('catalog-export').addEventListener('click', exportCsv);
  $('csv-file').addEventListener('change', readFile);
  $('csv-form').addEventListener('submit', (e) => { e.preventDefault(); importCsv($('csv-text').value); });
}

export async function loadCatalog() {
  try { screen = await invoke('list_catalog'); } catch (e) { $('catalog-msg').textContent = errText(e); return; }
  $('catalog-rows').replaceChildren(...screen.items.map((it) => h('tr', { 'data-sku': it.sku, class: it.active ? '' : 'inactive' },
    h('td', { class: 'mono', text: it.sku }),
    h('td', { class: 'mono', text: it.barcode }),
    h('td', { text: it.name }),
    h('td', { class: 'num', text: it.price_display }),
    h('td', { text: className(it.tax_class) }),
    h('td', { text: t(it.active ? 'catalog-yes' : 'catalog-no') }),
    // An item the back office publishes is changed there (record 0049); the command
    // refuses an edit of it too, this only spares the cashier a form that cannot save.
    h('td', {}, it.published
      ? h('span', { class: 'badge', 'data-published': it.sku, title: t('catalog-published-help'), text: t('catalog-published') })
      : h('button', { class: 'link', type: 'button', text: t('catalog-edit'), 'data-edit': it.sku, onclick: () => editItem(it) })))));
  $('catalog-rows').dataset.count = String(screen.items.length);
  await loadStore();
}

/** A tax class named with this store's rate today ("standard (8.875%)"), not Japan's. */
function className(c) {
  return t(CLASSES[c], { rate: (screen && screen.class_rates && screen.class_rates[c]) || '' });
}

/** A drop-down of `choices` ({value: message id}) named `name`, `current` chosen. */
function choice(name, choices, current, label) {
  const sel = h('select', { name, id: 'item-' + name },
    ...Object.entries(choices).map(([value, id]) => h('option', { value, text: t(id), selected: value === current })));
  return h('label', { 'data-field': name }, label, sel, h('span', { class: 'field-error', id: 'item-err-' + name }));
}

// ---------------------------------------------------------------- one item
function editItem(it) {
  const f = $('item-form');
  const v = it || { sku: '', barcode: '', name_en: '', name_ja: '', price_plain: '', tax_class: 'reduced', active: true, price_kind: 'fixed', unit: 'piece' };
  const input = (name, label, value, attrs = {}) => h('label', { 'data-field': name }, label,
    h('input', { name, id: 'item-' + name, value: value ?? '', ...attrs }), h('span', { class: 'field-error', id: 'item-err-' + name }));
  const cls = h('select', { name: 'tax_class', id: 'item-tax_class' },
    ...Object.keys(CLASSES).map((c) => h('option', { value: c, text: className(c), selected: c === v.tax_class })));
  const active = h('input', { type: 'checkbox', name: 'active', id: 'item-active', checked: v.active });
  // The register's tabs (record 0133): a category of the store's, or none.
  const category = h('select', { name: 'category', id: 'item-category' },
    h('option', { value: '', text: t('search-category-none'), selected: !v.category }),
    ...((screen && screen.categories) || []).map((c) => h('option', { value: c.key, text: c.name, selected: c.key === v.category })));
  f.hidden = false;
  f.replaceChildren(
    h('h2', { text: it ? `${t('catalog-edit')} ${it.sku}` : t('catalog-add') }),
    input('sku', t('catalog-col-sku'), v.sku, { maxlength: '64', readonly: !!it }),
    input('barcode', t('catalog-col-barcode'), v.barcode, { inputmode: 'numeric', maxlength: '13' }),
    input('name_en', t('catalog-name-en'), v.name_en, { maxlength: '120' }),
    input('name_ja', t('catalog-name-ja'), v.name_ja, { maxlength: '120' }),
    input('price_minor', t('catalog-price', { currency: screen ? screen.currency : '' }), v.price_plain, { inputmode: 'decimal', maxlength: '16' }),
    h('label', { 'data-field': 'tax_class' }, t('catalog-col-class'), cls, h('span', { class: 'field-error', id: 'item-err-tax_class' })),
    // How it is priced and sold (records 0126, 0134): the price above is per kg or per
    // 100 g for a weighed item, the most a department key's typed price may be without
    // approval is the store's open-price limit.
    choice('price_kind', PRICE_KINDS, v.price_kind || 'fixed', t('catalog-price-kind')),
    choice('unit', UNITS, v.unit || 'piece', t('catalog-unit')),
    h('label', { 'data-field': 'category' }, t('search-category-field'), category, h('span', { class: 'field-error', id: 'item-err-category' })),
    h('label', { class: 'check' }, active, t('catalog-col-active')),
    h('div', { class: 'actions' },
      h('button', { class: 'primary', type: 'submit', id: 'item-save', text: t('catalog-save') }),
      h('button', { class: 'link', type: 'button', text: t('discount-cancel'), onclick: () => { f.hidden = true; } })),
    h('p', { class: 'help', id: 'item-msg', role: 'status' }));
  f.onsubmit = async (e) => {
    e.preventDefault();
    for (const el of f.querySelectorAll('.field-error')) el.textContent = '';
    const d = new FormData(f);
    const item = { sku: d.get('sku'), barcode: d.get('barcode'), name_en: d.get('name_en'), name_ja: d.get('name_ja'),
      price: d.get('price_minor'), tax_class: d.get('tax_class'), active: active.checked, category: d.get('category'),
      price_kind: d.get('price_kind'), unit: d.get('unit') };
    try {
      const saved = await withApproval((approval) => invoke('save_item', { item, approval }));
      $('item-msg').textContent = t('catalog-saved', { sku: saved.sku });
      f.hidden = true;
      announce(t('catalog-saved', { sku: saved.sku }));
      await loadCatalog();
      onChange();
    } catch (err) {
      $('item-msg').textContent = errText(err);
      f.dataset.code = (err && err.code) || 'error';
      for (const p of (err && err.problems) || []) {
        const slot = $('item-err-' + p.field);
        if (slot) slot.textContent = p.message;
      }
      alertLoud(errText(err));
    }
  };
  f.querySelector(it ? '#item-name_en' : '#item-sku').focus();
}

// ---------------------------------------------------------------- CSV
function readFile() {
  const file = $('csv-file').files[0];
  if (!file) return;
  if (file.size > MAX_CSV_BYTES) { $('csv-msg').textContent = t('catalog-file-too-big'); return; }
  const r = new FileReader();
  // data-file says which file the box now holds (what a test waits for).
  r.onload = () => { $('csv-text').value = String(r.result); $('csv-text').dataset.file = file.name; };
  r.readAsText(file);
}

async function importCsv(text) {
  const msg = $('csv-msg');
  const list = $('csv-problems');
  list.replaceChildren();
  try {
    const r = await withApproval((approval) => invoke('import_catalog', { csv: text, approval }));
    msg.textContent = r.message; msg.dataset.outcome = 'imported'; msg.classList.remove('bad');
    announce(r.message);
    await loadCatalog();
    onChange();
  } catch (e) {
    msg.textContent = errText(e); msg.dataset.outcome = (e && e.code) || 'error'; msg.classList.add('bad');
    list.replaceChildren(...((e && e.problems) || []).map((p) =>
      h('li', { 'data-line': String(p.line), 'data-field': p.field, text: t('catalog-import-line', { line: p.line, field: p.field, message: p.message }) })));
    alertLoud(errText(e));
  }
}

async function exportCsv() {
  try {
    const r = await invoke('export_catalog');
    const box = $('csv-export-text');
    box.hidden = false; box.value = r.csv;
    $('catalog-msg').textContent = t('catalog-export-done', { rows: r.rows, path: r.path });
  } catch (e) { alertLoud(errText(e)); }
}

// ---------------------------------------------------------------- store settings
async function loadStore() {
  let st;
  try { st = await invoke('get_store'); } catch (e) { $('catalog-msg').textContent = errText(e); return; }
  const f = $('store-form');
  const field = (name, label, value, attrs = {}) => h('label', {}, label, h('input', { name, id: 'store-' + name, value: value ?? '', ...attrs }));
  const area = (name, label, value) => h('label', {}, label, h('textarea', { name, id: 'store-' + name, rows: '2', maxlength: '500', text: value }));
  const choice = (name, label, value, opts) => h('label', {}, label, h('select', { name, id: 'store-' + name },
    ...Object.entries(opts).map(([o, id]) => h('option', { value: o, text: t(id), selected: o === value }))));
  const printer = h('input', { id: 'store-printer', name: 'printer', value: st.printer, maxlength: '255', placeholder: '192.168.1.50:9100' });
  const msg = h('p', { class: 'help', id: 'store-msg', role: 'status' });
  f.replaceChildren(
    h('h2', { text: t('store-title') }),
    field('name', t('store-name'), st.name, { maxlength: '120' }),
    field('address', t('store-address'), st.address, { maxlength: '300' }),
    field('phone', t('store-phone'), st.phone, { maxlength: '40' }),
    h('p', { class: 'help', id: 'store-currency', text: `${t('store-currency')}: ${st.currency} · ${st.locale}` }),
    choice('price_mode', t('store-prices'), st.price_mode, PRICE_MODES),
    field('registration_number', t('store-registration'), st.registration_number, { maxlength: '14', placeholder: 'T1234567890123' }),
    choice('rounding', t('store-rounding'), st.rounding, ROUNDINGS),
    st.tax_published ? h('p', { class: 'help', id: 'store-tax-published', text: t('store-tax-published') }) : '',
    area('receipt_header', t('store-header'), st.receipt_header),
    area('receipt_footer', t('store-footer'), st.receipt_footer),
    // Receipts and every time on screen are told in it (an IANA name, checked by Rust).
    field('time_zone', t('store-time-zone'), st.time_zone, { maxlength: '64', placeholder: 'America/Los_Angeles', spellcheck: 'false' }),
    h('div', { class: 'actions' }, h('button', { class: 'primary', type: 'submit', id: 'store-save', text: t('store-save') })),
    h('label', {}, t('store-printer'), printer),
    h('div', { class: 'actions' }, h('button', { class: 'secondary', type: 'button', id: 'printer-save', text: t('store-printer-save'),
      onclick: async () => {
        try {
          // A port off 9100-9109 is saved once the owner confirms it (store/print.rs).
          const save = (confirmPort) => withApproval((approval) => invoke('save_printer', { printer: printer.value, confirmPort, approval }));
          let r;
          try { r = await save(false); } catch (e) {
            if (!(e && e.code === ERROR.PRINTER_PORT_UNCONFIRMED && window.confirm(e.message))) throw e;
            r = await save(true);
          }
          msg.textContent = r.printer ? t('store-printer-saved', { printer: r.printer }) : t('store-printer-none');
          msg.dataset.outcome = 'printer-saved'; msg.classList.remove('bad');
          // A receipt on screen that said "no printer is set" is told it is now (receipt.js).
          document.dispatchEvent(new CustomEvent('paydesk:printer-saved', { detail: r.printer }));
        } catch (e) { msg.textContent = errText(e); msg.dataset.outcome = (e && e.code) || 'error'; msg.classList.add('bad'); }
      } })),
    msg);
  if (st.tax_published) {
    // The tax setup is the back office's (record 0049): shown, not edited here.
    $('store-price_mode').disabled = true;
    $('store-rounding').disabled = true;
    $('store-registration_number').readOnly = true;
  }
  // Each visit draws the form again once its data loads: a count of draws lets a test (and
  // anything else) wait for THIS draw rather than type into the last one's fields.
  f.dataset.draws = String(Number(f.dataset.draws || 0) + 1);
  f.onsubmit = async (e) => {
    e.preventDefault();
    const d = Object.fromEntries(new FormData(f).entries());
    // Disabled fields are not in the form's data: they go as they are, unchanged.
    if (st.tax_published) Object.assign(d, { price_mode: st.price_mode, rounding: st.rounding });
    delete d.printer;
    try {
      const saved = await withApproval((approval) => invoke('save_store', { store: d, approval }));
      setTimeZone(saved.time_zone);
      msg.textContent = t('store-saved'); msg.dataset.outcome = 'saved'; msg.classList.remove('bad');
      announce(t('store-saved'));
    } catch (err) { msg.textContent = errText(err); msg.dataset.outcome = (err && err.code) || 'error'; msg.classList.add('bad'); alertLoud(errText(err)); }
  };
}
