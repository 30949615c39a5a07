// The store's own tenders on the tender panel (record 0122): one button per active tender
// type (a voucher, a standalone terminal's slip, a QR payment), named as the owner named
// it; its form asks the amount handed over (what is due, unless changed) and the slip
// number, and says before the press whether change is given or the rest is kept.
// The panel (tender.js) owns the sale, the busy flag and the result; this file draws.

import { invoke } from './bridge.js';
import { h, fmtMoney, toMinor } from './dom.js';
import { t } from './i18n.js';

/** The active tender types, or none when they cannot be read (cash and card still work). */
export async function offeredTypes() {
  try { return await invoke('list_tender_types'); } catch (_) { return []; }
}

/** One button per type; `pick(type)` opens its form. */
export function storeButtons(types, pick) {
  // The first nine have a key, Alt+1 to Alt+9 (tender.js), shown on the button.
  return types.map((ty, i) => h('button', {
    class: 'secondary store-tender', id: `tender-store-${ty.id}`, type: 'button', 'data-type': String(ty.id),
    'data-gives-change': String(ty.gives_change), title: ty.name, onclick: () => pick(ty),
    'aria-keyshortcuts': i < 9 ? `Alt+${i + 1}` : undefined,
  }, ty.name, i < 9 ? h('kbd', { text: `Alt+${i + 1}` }) : null));
}

/** The form of type `ty` for `sale`; `submit(amountText, reference)` takes it. */
export function storeForm(ty, sale, submit) {
  const amount = h('input', { id: 'store-amount', type: 'text', inputmode: 'decimal', maxlength: '16', autocomplete: 'off', value: sale.open_plain });
  const reference = h('input', { id: 'store-reference', type: 'text', maxlength: '40', autocomplete: 'off' });
  const preview = h('p', { id: 'store-preview', class: 'preview', 'aria-live': 'polite' });
  const update = () => {
    const m = toMinor(amount.value, sale.money.exponent);
    const over = m === null ? 0 : m - sale.due;
    preview.dataset.over = String(Math.max(over, 0));
    if (over <= 0) { preview.textContent = ''; return; }
    preview.textContent = ty.gives_change
      ? t('store-tender-change-preview', { amount: fmtMoney(over, sale.money) })
      : t('store-tender-no-change-preview', { amount: fmtMoney(over, sale.money) });
  };
  amount.addEventListener('input', update);
  const ok = h('button', { type: 'submit', class: 'primary', id: 'store-confirm' }, t('store-tender-confirm', { name: ty.name }) + ' ', h('kbd', { text: 'Enter' }));
  const form = h('form', { class: 'tender-form', id: 'store-form', autocomplete: 'off', 'data-type': String(ty.id) },
    h('div', { class: 'pair' },
      h('label', { class: 'field' }, t('store-tender-amount'), amount),
      h('label', { class: 'field' }, t('store-tender-reference'), reference)),
    preview, h('div', { class: 'actions' }, ok));
  form.addEventListener('submit', (e) => { e.preventDefault(); submit(amount.value, reference.value); });
  update();
  return { form, focus: () => { amount.focus(); amount.select(); } };
}

/** What a paid sale shows under "Paid": the change to give, or what was kept. */
export function storeResultBox(r) {
  if (r.change > 0) {
    return h('div', { class: 'change-box', id: 'store-change', 'data-minor': String(r.change) },
      h('span', { text: t('cash-change') }), h('strong', { text: r.change_display }));
  }
  if (r.forfeited > 0) {
    return h('div', { class: 'change-box no-change', id: 'store-no-change', 'data-minor': String(r.forfeited) },
      h('span', { text: t('store-tender-no-change') }), h('strong', { text: r.forfeited_display }));
  }
  return null;
}
