// The tender panel (record 0035): a sale paid by cash and cards, one tender at a time,
// over the cart. The amount due is always in view; each tender is listed with its kind,
// amount, state and change. Keys: F6 cash, F7 card, F8 cancel sale, Enter confirms,
// Esc goes back. "Paid" is said only when the register says the sale is complete.
//
// Every tender call carries seenTenders (how many tenders this screen shows): the
// command refuses a press made on an out-of-date view (sale_changed), so a double
// press never takes money twice, whatever the webview does.

import { withApproval } from './approval.js';
import { receiptPanel } from './receipt.js';
import { invoke } from './bridge.js';
import { CANCEL_LINE_KIND, CHECKOUT_OUTCOME, ERROR, READER_OUTCOME, SALE_STATE, TENDER_KIND, TENDER_STATE, TONE } from './contract.js';
import { knownReaders, readerPanel, stillOpen } from './reader.js';
import { openShiftOffer } from './shift.js';
import { $, h, announce, alertLoud, errText, fmtMoney, toMinor } from './dom.js';
import { refreshStatus } from './status.js';
import { offeredTypes, storeButtons, storeForm, storeResultBox } from './store_tender.js';
import { t } from './i18n.js';

let sale = null;          // the SaleScreen on show
let open = false;         // the panel covers the cart
let mode = 'menu';        // menu | cash | card | reader | cancel | store | done
let storeTypes = [];      // the store's active tender types: one button each (record 0122)
let storeType = null;     // the type whose form is on show, in mode 'store'
let busy = false;         // a tender call is running (the command guards too)
let hooks = { cart: () => {}, closed: () => {} };
let readers = [];         // the card readers the card form offers (reader.js)
let keyedCards = false;   // test mode: the keyed test tokens are offered beside the readers
let reader = null;        // the reader payment on show (its ReaderView), in mode 'reader'
let readerTimer = null;   // the next automatic Check status while the reader waits
let readerGen = 0;        // bumped by every press: an older automatic check is dropped

export const isTenderOpen = () => open;

/** The New sale button of a paid or canceled sale on show, else null. */
export const tenderDoneButton = () => (open && mode === 'done' ? $('tender-new-sale') : null);

/** Closes the panel when it shows a finished sale (the next sale began elsewhere). */
export function closeTenderDone() {
  if (open && mode === 'done') close();
}

/** hooks.cart(cartView): the cart changed; hooks.closed(): the panel closed. */
export function initTender(h0) {
  hooks = h0;
  $('tender-cash').addEventListener('click', () => startMode('cash'));
  $('tender-card').addEventListener('click', () => startMode('card'));
  $('tender-cancel').addEventListener('click', () => startMode('cancel'));
  $('tender-back').addEventListener('click', back);
}

/** Opens the panel on the cart's sale, in `m` (menu, cash or card). */
export async function openTender(m = 'menu') {
  if (!(await refresh())) return;
  ({ readers, testMode: keyedCards } = await knownReaders());
  storeTypes = await offeredTypes();
  $('tender-store-buttons').replaceChildren(...storeButtons(storeTypes, (ty) => { storeType = ty; startMode('store'); }));
  render();
  open = true;
  $('tender').hidden = false;
  $('tender-notice').replaceChildren();
  if (sale.complete || sale.canceled) showDone();
  else startMode(m);
}

/** Opens the panel by itself when the sale on screen is part-paid (after a restart). */
export async function resumeTender() {
  try {
    const s = await invoke('get_sale');
    if ((s.tenders.length || s.exchange_credit) && !s.complete && s.state !== SALE_STATE.CANCELED) await openTender('menu');
  } catch (_) { /* the cart screen stays */ }
}

/** The sale on the register paid while the panel was closed (an exchange pressed in
 * Payments whose credit covers it all, record 0123) is shown paid, with its receipt and
 * New sale: left as a cart it showed "Charge" for money nobody owes. */
export async function showIfPaidElsewhere() {
  if (open) return;
  try {
    const s = await invoke('get_sale');
    if (s.complete && s.exchange_credit && s.state !== SALE_STATE.CANCELED) await openTender('menu');
  } catch (_) { /* the cart screen stays */ }
}

/** The panel's keys; true when the key was for it. */
export function tenderKey(e) {
  if (!open) return false;
  if (e.key === 'Escape') { back(); return true; }
  if (busy || mode === 'done') return ['F6', 'F7', 'F8'].includes(e.key) || storeKeyIndex(e) !== null;
  if (e.key === 'F6') { startMode('cash'); return true; }
  if (e.key === 'F7') { startMode('card'); return true; }
  if (e.key === 'F8') { startMode('cancel'); return true; }
  // The store's own tenders in the order shown: Alt+1 to Alt+9 (record 0122), as F6/F7
  // take cash and card. The press is the button's: a disabled one does nothing.
  const n = storeKeyIndex(e);
  if (n !== null) {
    const b = document.querySelectorAll('#tender-store-buttons button')[n];
    if (b && !b.disabled && !$('tender-store-buttons').hidden) b.click();
    return true;
  }
  return false;
}

/** Alt+1…Alt+9 as the index of a store tender button (by the key's code, so a keyboard
 *  layout that types another character with Alt still works), or null. */
function storeKeyIndex(e) {
  if (!e.altKey || e.ctrlKey || e.metaKey) return null;
  const m = /^Digit([1-9])$/.exec(e.code || '') || /^([1-9])$/.exec(e.key || '');
  return m ? Number(m[1]) - 1 : null;
}

/** A card of this sale was resolved in the background: show the sale as it is now.
 * A paid sale on show can reopen too: a card accepted offline and declined when forwarded
 * (record 0028) leaves a balance, and the panel must stop saying "paid" — the cashier
 * collects the rest or cancels while the customer is still at the counter (record 0148). */
export async function refreshTender() {
  if (!open || busy) return;
  if (mode === 'done') {
    if (!sale || !sale.complete) return;
    if (!(await refresh(true))) return;
    if (sale.complete || sale.canceled) return;
    notice('bad', t('tender-reopened', { due: sale.due_display }));
    startMode('menu');
    return;
  }
  const was = sale && sale.unknown_tender;
  if (!(await refresh(true))) return;
  if (sale.complete || sale.canceled) showDone(null, sale.state_label);
  else if (was && !sale.unknown_tender) notice('ok', t('tender-pending-resolved'));
}

/** The sale again from the register. `quiet`: a refresh nobody asked for (a background
 * update) says nothing when it fails — e.g. the screen is locked; the next one will do. */
async function refresh(quiet = false) {
  try { sale = await invoke('get_sale'); render(); return true; }
  catch (e) { if (!quiet) alertLoud(errText(e)); return false; }
}

function close() {
  open = false; mode = 'menu';
  stopReaderChecks();
  $('tender').hidden = true;
  hooks.closed();
}

/** Esc: from a form back to the buttons; from the buttons back to the cart, but only
 * while nothing is paid (a part-paid sale stays on screen until paid or canceled). */
function back() {
  if (busy) return;
  if (mode === 'done') return;
  if (mode !== 'menu') { startMode('menu'); return; }
  if (sale && (sale.tenders.length || sale.exchange_credit)) { notice('warn', t('tender-part-paid-back')); return; }
  close();
}

const fmt = (minor) => fmtMoney(minor, sale.money);

function render() {
  const s = sale;
  // The cart under the panel follows the sale: after the first tender its tax is fixed.
  invoke('get_cart').then(hooks.cart, () => {});
  $('tender-title').textContent = s.complete ? t('outcome-paid-title') : (s.canceled ? s.state_label : t('tender-title'));
  const pill = $('tender-state');
  pill.textContent = s.state_label;
  pill.className = 'state ' + (s.complete ? 'ok' : s.canceled ? 'info' : s.tenders.length ? 'warn' : '');
  $('tender-total').textContent = s.total_display;
  $('tender-paid').textContent = s.settled_display;
  // a canceled sale owes nothing: its money went back
  $('tender-due').textContent = s.canceled ? t('tender-due-nothing') : s.due_display;
  $('tender-due').dataset.minor = String(s.due);
  $('tender').dataset.state = s.state;
  $('tender').dataset.tenders = String(s.tenders.length);
  // An exchange's credit (record 0123) pays like a tender and is listed first.
  const credit = s.exchange_credit ? [creditRow(s.exchange_credit)] : [];
  $('tender-list').replaceChildren(...credit, ...s.tenders.map(tenderRow));
  $('tender-list-empty').hidden = s.tenders.length > 0 || credit.length > 0;
  const finished = s.complete || s.canceled;
  for (const id of ['tender-cash', 'tender-card', 'tender-cancel']) $(id).disabled = finished || busy;
  for (const b of document.querySelectorAll('#tender-store-buttons button')) b.disabled = finished || busy;
  // A sale holding an exchange's credit is completed, not canceled (the command refuses too).
  if (s.exchange_credit) $('tender-cancel').disabled = true;
  $('tender-back').disabled = finished || busy;
  $('tender-actions').hidden = finished;
  $('tender-store-buttons').hidden = finished || !storeTypes.length;
  if (s.unknown_tender && !finished) pendingNotice();
  else $('tender-pending-slot').replaceChildren();
}

function creditRow(c) {
  const what = t('tender-exchange-credit', { number: c.number });
  return h('li', { class: 'tender-row ok', id: 'tender-credit', 'data-kind': 'exchange', 'data-amount': String(c.amount) },
    h('span', { class: 'seq', text: '↺' }),
    h('span', { class: 'what', text: what, title: what }),
    h('span', { class: 'amount', text: c.amount_display }),
    h('span', { class: 'state ok', text: t('state-captured') }));
}

function tenderRow(tn) {
  const what = tn.kind === TENDER_KIND.CASH ? t('tender-cash') : (tn.card_label || (tn.kind === TENDER_KIND.STORE ? t('tender-store') : t('tender-card')));
  const extra = [];
  if (tn.reference) extra.push(t('tender-row-slip', { reference: tn.reference }));
  if (tn.forfeited) extra.push(t('tender-row-no-change', { amount: tn.forfeited_display }));
  if (tn.kind === TENDER_KIND.CASH && tn.tendered_display) extra.push(t('tender-row-handed', { amount: tn.tendered_display }));
  if (tn.change) extra.push(t('tender-row-change', { amount: tn.change_display }));
  if (tn.checkout_key) extra.push(t('tender-row-key', { key: tn.checkout_key.slice(0, 8) + '…' }));
  if (tn.message) extra.push(tn.message);
  return h('li', { class: 'tender-row ' + tn.tone, 'data-kind': tn.kind, 'data-state': tn.state, 'data-key': tn.checkout_key || '' },
    h('span', { class: 'seq', text: `#${tn.seq}` }),
    h('span', { class: 'what', text: what, title: what }),
    h('span', { class: 'amount', text: tn.amount_display }),
    h('span', { class: 'state ' + tn.tone, text: tn.state_label }),
    extra.length ? h('span', { class: 'extra', text: extra.join(' · '), title: extra.join(' · ') }) : null);
}

/** A message in the panel (tone ok | warn | bad), said aloud when bad. */
function notice(tone, text, ...more) {
  $('tender-notice').replaceChildren(h('div', { class: `result ${tone}`, id: 'tender-msg', 'data-tone': tone }, h('p', { class: 'msg', text }), ...more));
  if (tone === TONE.BAD) alertLoud(text); else announce(text, tone === TONE.WARN ? 'warn' : '');
}

/** A card whose outcome is unknown: shown loudly with its key; it can be checked again
 * with the same key, and other tenders need a reason. */
function pendingNotice() {
  const tn = sale.tenders.find((x) => x.checkout_key === sale.unknown_tender);
  // A payment on the reader is driven by the reader panel (its own key, never a token
  // charged again); shown here only when the panel is not (after a restart, Esc).
  if (tn && tn.on_reader) {
    if (mode === 'reader') { $('tender-pending-slot').replaceChildren(); return; }
    const resume = h('button', { class: 'primary', id: 'tender-reader-resume', type: 'button', text: t('reader-check'),
      onclick: () => readerCommand('reader_check', { checkoutKey: tn.checkout_key }, 'tender-reader-resume') });
    $('tender-pending-slot').replaceChildren(h('div', { class: 'result warn', id: 'tender-pending', 'data-key': tn.checkout_key, 'data-reader': 'true' },
      h('p', { class: 'msg', text: t('reader-pending-tender', { amount: tn.amount_display }) }),
      h('p', { class: 'key', text: t('tender-pending-key', { key: tn.checkout_key }) }),
      h('div', { class: 'actions' }, resume)));
    return;
  }
  const again = h('button', { class: 'primary', id: 'tender-recheck', type: 'button', text: t('check-again'),
    onclick: () => runCard(tn ? tn.amount_plain : '', tn ? tn.amount_display : '', null, true) });
  $('tender-pending-slot').replaceChildren(h('div', { class: 'result warn', id: 'tender-pending', 'data-key': sale.unknown_tender },
    h('p', { class: 'msg', text: t('tender-pending-card', { amount: tn ? tn.amount_display : '' }) }),
    h('p', { class: 'key', text: t('tender-pending-key', { key: sale.unknown_tender }) }),
    h('p', { class: 'help', text: t('tender-pending-reason') }),
    h('div', { class: 'actions' }, again)));
}

function reasonField(id, label) {
  return h('label', { class: 'field' }, label,
    h('input', { id, type: 'text', maxlength: '200', autocomplete: 'off', placeholder: t('tender-reason-placeholder') }));
}

function startMode(m) {
  if (busy || !sale || sale.complete || sale.canceled) return;
  if (m !== 'reader') stopReaderChecks();
  mode = m;
  const work = $('tender-work');
  for (const [id, on] of [['tender-cash', 'cash'], ['tender-card', 'card'], ['tender-cancel', 'cancel']]) {
    $(id).setAttribute('aria-pressed', String(m === on));
  }
  for (const b of document.querySelectorAll('#tender-store-buttons button')) {
    b.setAttribute('aria-pressed', String(m === 'store' && storeType && b.dataset.type === String(storeType.id)));
  }
  // leaving the reader panel: its payment, if still open, goes back to the pending box
  if (m === 'menu') { work.replaceChildren(); if (sale.unknown_tender) pendingNotice(); $('tender-cash').focus(); return; }
  if (m === 'cash') cashForm(work);
  if (m === 'card') cardForm(work);
  if (m === 'cancel') cancelForm(work);
  if (m === 'store') {
    const f = storeForm(storeType, sale, (amount, reference) => runStore(storeType, amount, reference));
    work.replaceChildren(f.form);
    f.focus();
  }
}

// ---------------------------------------------------------------- store tenders
async function runStore(ty, amount, reference) {
  if (busy) return;
  setBusy(true, 'store-confirm', t('store-tender-taking', { name: ty.name }));
  try {
    const args = { tenderType: ty.id, amount, reference, seenTenders: sale.tenders.length };
    const r = await withApproval((approval) => invoke('pay_store_tender', { ...args, approval }));
    sale = r.sale;
    busy = false;
    render();
    if (sale.complete) showDone(storeResultBox(r), r.message);
    else { notice('ok', r.message); startMode('menu'); }
  } catch (e) { await failed(e); }
  finally { setBusy(false); }
}

// ---------------------------------------------------------------- cash
function cashForm(work) {
  const input = h('input', { id: 'cash-tendered', type: 'text', inputmode: 'decimal', maxlength: '16', autocomplete: 'off',
    'aria-describedby': 'cash-preview', value: '' });
  const preview = h('p', { id: 'cash-preview', class: 'preview', 'aria-live': 'polite' });
  const update = () => {
    const m = toMinor(input.value, sale.money.exponent);
    if (!input.value.trim()) { preview.textContent = t('cash-due', { amount: sale.cash_due_display }); preview.dataset.change = ''; }
    else if (m === null || m <= 0) { preview.textContent = t('cash-type-amount', { example: sale.quick_cash[0] ? sale.quick_cash[0].plain : '10.00' }); preview.dataset.change = ''; }
    else if (m >= sale.cash_due) { preview.textContent = t('cash-change-to-give', { amount: fmt(m - sale.cash_due) }); preview.dataset.change = String(m - sale.cash_due); }
    else { preview.textContent = t('cash-part-payment', { amount: fmt(sale.cash_due - m) }); preview.dataset.change = '0'; }
  };
  input.addEventListener('input', update);
  const quick = h('div', { class: 'quick', role: 'group', 'aria-label': t('cash-quick-label') },
    ...sale.quick_cash.map((q, i) => h('button', { type: 'button', class: 'quick-cash' + (i === 0 ? ' exact' : ''), 'data-minor': String(q.minor),
      text: i === 0 ? t('cash-exact', { amount: q.display }) : q.display,
      onclick: () => { input.value = q.plain; update(); input.focus(); } })));
  const reason = sale.unknown_tender ? reasonField('cash-reason', t('cash-reason')) : null;
  const ok = h('button', { type: 'submit', class: 'primary', id: 'cash-confirm' }, t('cash-confirm') + ' ', h('kbd', { text: 'Enter' }));
  const form = h('form', { class: 'tender-form', id: 'cash-form', autocomplete: 'off' },
    h('label', { class: 'field', for: 'cash-tendered' }, t('cash-received')), input, quick, preview, reason, h('div', { class: 'actions' }, ok));
  form.addEventListener('submit', (e) => { e.preventDefault(); runCash(input.value, reason && reason.querySelector('input').value); });
  work.replaceChildren(form);
  update();
  input.focus();
}

async function runCash(text, overrideReason) {
  if (busy) return;
  setBusy(true, 'cash-confirm', t('cash-taking'));
  try {
    const args = { tendered: text, seenTenders: sale.tenders.length };
    if (overrideReason) args.overrideReason = overrideReason;
    const r = await withApproval((approval) => invoke('pay_cash', { ...args, approval }));
    sale = r.sale;
    busy = false;
    render();
    if (sale.complete) {
      showDone(h('div', { class: 'change-box', id: 'cash-change', 'data-minor': String(r.change) },
        h('span', { text: t('cash-change') }), h('strong', { text: r.change_display })), r.message);
    } else {
      notice('ok', r.message);
      startMode('menu');
    }
  } catch (e) { await failed(e); }
  finally { setBusy(false); }
}

// ---------------------------------------------------------------- card
function cardForm(work) {
  const amount = h('input', { id: 'card-amount', type: 'text', inputmode: 'decimal', maxlength: '16', autocomplete: 'off', value: sale.open_plain });
  const sel = $('card').cloneNode(true);
  sel.id = 'tender-card-method';
  sel.value = $('card').value;
  // Outside test mode a card is only ever taken on a reader: no keyed test tokens.
  if (!keyedCards) sel.replaceChildren();
  // A registered reader comes first and is chosen: the customer's own card on the reader.
  for (const r of [...readers].reverse()) {
    sel.prepend(h('option', { value: 'reader:' + r.id, 'data-reader': r.id, text: t('reader-option', { label: r.label }) }));
  }
  if (readers.length) sel.value = 'reader:' + readers[0].id;
  const reason = sale.unknown_tender ? reasonField('card-reason', t('card-reason')) : null;
  const ok = h('button', { type: 'submit', class: 'primary', id: 'card-confirm' }, t('card-confirm') + ' ', h('kbd', { text: 'Enter' }));
  const form = h('form', { class: 'tender-form', id: 'card-form', autocomplete: 'off' },
    h('div', { class: 'pair' },
      h('label', { class: 'field' }, t('card-amount'), amount),
      h('label', { class: 'field' }, t('card-label'), sel)),
    reason, h('div', { class: 'actions' }, ok));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const why = reason && reason.querySelector('input').value;
    if (sel.value.startsWith('reader:')) runReader(amount.value, sel.value.slice('reader:'.length), why);
    else runCard(amount.value, amount.value, sel.value, false, why);
  });
  work.replaceChildren(form);
  amount.focus();
  amount.select();
}

/** A card tender. `again`: the pending card pressed again (its amount in minor units,
 * the same key is driven). */
async function runCard(amountText, shown, method, again, overrideReason) {
  if (busy) return;
  setBusy(true, again ? 'tender-recheck' : 'card-confirm', again ? t('card-checking') : t('card-charging', { amount: shown }));
  try {
    const args = { paymentMethod: method || $('card').value, seenTenders: sale.tenders.length, amount: amountText };
    if (overrideReason) args.overrideReason = overrideReason;
    const r = await withApproval((approval) => invoke('pay_card', { ...args, approval }));
    sale = r.sale;
    busy = false;
    render();
    if (sale.complete) { showDone(null, r.message); return; }
    if (r.outcome === CHECKOUT_OUTCOME.DECLINED || r.outcome === CHECKOUT_OUTCOME.FAILED) {
      notice('bad', r.message, h('p', { class: 'due-again', text: t('tender-still-due', { amount: sale.due_display }) }));
      $('tender-notice').firstChild.dataset.outcome = r.outcome;
      startMode('card');
    } else if (r.outcome === CHECKOUT_OUTCOME.PENDING) {
      // the pending box above says it with the key; read it out as well
      startMode('menu');
      $('tender-notice').replaceChildren();
      alertLoud(r.message);
    } else {
      notice(r.outcome === CHECKOUT_OUTCOME.QUEUED_OFFLINE ? 'warn' : 'ok', r.message);
      startMode('menu');
    }
  } catch (e) { await failed(e); }
  finally { setBusy(false); }
}

// ---------------------------------------------------------------- card reader
/** Hands the amount to the reader (reader_charge): the panel then follows the payment. */
async function runReader(amountText, readerId, overrideReason) {
  if (busy) return;
  readerGen += 1;
  setBusy(true, 'card-confirm', t('reader-sending'));
  try {
    const args = { readerId, amount: amountText, seenTenders: sale.tenders.length };
    if (overrideReason) args.overrideReason = overrideReason;
    const r = await withApproval((approval) => invoke('reader_charge', { ...args, approval }));
    busy = false;
    showReader(r);
  } catch (e) { await failed(e); }
  finally { setBusy(false); }
}

/** One reader button (try again, cancel on reader, check status, cash instead, the
 * simulated customer): the answer is the payment as it stands after it. */
async function readerCommand(cmd, args, btnId) {
  if (busy) return;
  readerGen += 1;
  stopReaderChecks();
  setBusy(true, btnId, t('reader-working'));
  try {
    const r = cmd === 'reader_try_again'
      ? await withApproval((approval) => invoke(cmd, { ...args, approval }))
      : await invoke(cmd, args);
    busy = false;
    showReader(r);
  } catch (e) { await failed(e); }
  finally { setBusy(false); }
}

/** The reader panel for `r` (a ReaderView), or the finished sale when it paid the rest. */
function showReader(r, auto = false) {
  // An automatic check that changed nothing leaves the panel alone: no redraw under the
  // cashier's pointer, no second announcement.
  const same = auto && mode === 'reader' && reader && $('reader-panel') && reader.checkout_key === r.checkout_key
    && reader.message === r.message && reader.attempt_no === r.attempt_no && reader.outcome.kind === r.outcome.kind;
  sale = r.sale;
  reader = r;
  mode = 'reader';
  if (same) { scheduleReaderCheck(); return; }
  render();
  if (sale.complete) { showDone(null, r.message); return; }
  $('tender-notice').replaceChildren();
  $('tender-work').replaceChildren(readerPanel(r, readerCommand));
  if (r.outcome.kind === READER_OUTCOME.NOT_CHARGED || r.outcome.kind === READER_OUTCOME.READER_UNAVAILABLE) alertLoud(r.message);
  else announce(r.message, r.outcome.kind === READER_OUTCOME.PENDING ? 'warn' : '');
  scheduleReaderCheck();
}

/** While nothing is decided, the panel checks the payment every READER_CHECK_MS (the
 * register has no push from the PSP; the engine reads the reader and the intent). A
 * press meanwhile wins: its answer is drawn, an older check's is dropped. */
const READER_CHECK_MS = 2000;
function scheduleReaderCheck() {
  stopReaderChecks();
  if (!reader || !stillOpen(reader)) return;
  const gen = readerGen;
  const key = reader.checkout_key;
  readerTimer = setTimeout(async () => {
    readerTimer = null;
    if (busy || mode !== 'reader' || !open) return;
    try {
      const r = await invoke('reader_check', { checkoutKey: key });
      if (gen === readerGen && !busy && mode === 'reader' && open) showReader(r, true);
    } catch (_) {
      if (gen === readerGen) scheduleReaderCheck();
    }
  }, READER_CHECK_MS);
}

function stopReaderChecks() {
  if (readerTimer) { clearTimeout(readerTimer); readerTimer = null; }
}

// ---------------------------------------------------------------- cancel
function cancelForm(work) {
  const reason = h('input', { id: 'cancel-reason', type: 'text', maxlength: '200', autocomplete: 'off', placeholder: t('cancel-placeholder') });
  const ok = h('button', { type: 'submit', class: 'danger', id: 'cancel-confirm', disabled: true }, t('cancel-confirm') + ' ', h('kbd', { text: 'Enter' }));
  reason.addEventListener('input', () => { ok.disabled = reason.value.trim().length < 3; });
  const cards = sale.tenders.filter((x) => x.kind === TENDER_KIND.CARD && (x.state === TENDER_STATE.SETTLED || x.state === TENDER_STATE.HELD || x.state === TENDER_STATE.OFFLINE)).length;
  const cash = sale.tenders.filter((x) => x.kind === TENDER_KIND.CASH && x.state === TENDER_STATE.SETTLED).length;
  const form = h('form', { class: 'tender-form', id: 'cancel-form', autocomplete: 'off' },
    h('p', { class: 'help', text: t('cancel-help', { cards, cash }) }),
    h('label', { class: 'field', for: 'cancel-reason' }, t('cancel-why')), reason,
    h('div', { class: 'actions' }, ok));
  form.addEventListener('submit', (e) => { e.preventDefault(); if (!ok.disabled) runCancel(reason.value); });
  work.replaceChildren(form);
  reason.focus();
}

async function runCancel(reason) {
  if (busy) return;
  setBusy(true, 'cancel-confirm', t('cancel-running'));
  try {
    const r = await withApproval((approval) => invoke('cancel_sale', { reason, approval }));
    sale = r.sale;
    busy = false;
    render();
    const lines = h('ul', { class: 'cancel-lines', id: 'cancel-lines' },
      ...r.lines.map((l) => h('li', { class: l.tone, 'data-kind': l.kind, 'data-key': l.checkout_key },
        h('span', { text: l.kind === CANCEL_LINE_KIND.REFUND ? t('cancel-card-refund', { amount: l.amount_display }) : t('cancel-card-void', { amount: l.amount_display }) }),
        h('span', { class: 'state ' + l.tone, text: l.state_label }))),
      r.cash_returned > 0 ? h('li', { class: 'ok', 'data-kind': 'cash' }, h('span', { text: t('cancel-cash-back') }), h('strong', { id: 'cash-returned', text: r.cash_returned_display })) : null,
      ...r.store_lines.map((s) => h('li', { class: 'ok', 'data-kind': 'store' },
        h('span', { text: t('cancel-store-back', { name: s.type_name, amount: s.give_back_display }) }),
        s.reference ? h('span', { class: 'state', text: t('cancel-store-ref', { ref: s.reference }) }) : null)),
      r.change_collected > 0 ? h('li', { class: 'warn', 'data-kind': 'change' }, h('span', { text: t('cancel-change-back') }), h('strong', { id: 'change-collected', text: r.change_collected_display })) : null,
      ...r.errors.map((x) => h('li', { class: 'bad', text: x })));
    if (sale.canceled) showDone(lines, r.message);
    else { notice('warn', r.message, lines); startMode('menu'); }
    if (sale.state !== SALE_STATE.CANCELED) $('tender-actions').hidden = false;
  } catch (e) { await failed(e); }
  finally { setBusy(false); }
}

// ---------------------------------------------------------------- shared
function setBusy(on, btnId, text) {
  busy = on;
  for (const id of ['tender-cash', 'tender-card', 'tender-cancel', 'tender-back']) if ($(id)) $(id).disabled = on || (sale && (sale.complete || sale.canceled));
  for (const b of document.querySelectorAll('#tender-store-buttons button')) b.disabled = on || (sale && (sale.complete || sale.canceled));
  if (on && btnId && $(btnId)) { $(btnId).disabled = true; $(btnId).textContent = text; }
  for (const b of document.querySelectorAll('#reader-panel button')) if (on) b.disabled = true;
  $('tender').dataset.busy = String(on);
  if (!on) refreshStatus();
}

/** A refused or failed call: say why, show the sale as the register has it now. */
async function failed(e) {
  busy = false;
  const code = e && e.code;
  // What the cashier typed (the cash handed over, a card amount, a reason) survives
  // the refusal: the form is drawn again below, and must not ask for it twice.
  const typed = [...$('tender-work').querySelectorAll('input[id]')].map((i) => [i.id, i.value]);
  await refresh();
  notice('bad', errText(e));
  $('tender-notice').firstChild.dataset.code = code || '';
  if (code === ERROR.NO_OPEN_SHIFT) $('tender-notice').firstChild.append(h('div', { class: 'actions' }, openShiftOffer()));
  if (sale && sale.unknown_tender) startMode('menu');
  // a refused reader press: the payment stays in the pending box, checked from there
  else if (sale && !sale.complete && !sale.canceled) { startMode(mode === 'done' || mode === 'reader' ? 'menu' : mode); restoreTyped(typed); }
  else showDone(null, errText(e));
}

/** Puts typed values back into the form drawn again (its preview follows them). */
function restoreTyped(typed) {
  for (const [id, value] of typed) {
    const input = $(id);
    if (!input || !$('tender-work').contains(input) || !value) continue;
    input.value = value;
    input.dispatchEvent(new Event('input'));
  }
}

/** Paid or canceled: what to tell the customer, and the next sale. */
function showDone(extra, message) {
  mode = 'done';
  const next = h('button', { class: 'primary', id: 'tender-new-sale', type: 'button' }, t('new-sale') + ' ', h('kbd', { text: 'Enter' }));
  next.addEventListener('click', nextSale);
  const tone = sale.complete ? 'ok' : 'warn';
  $('tender-work').replaceChildren(h('div', { class: `result ${tone}`, id: 'tender-done', 'data-state': sale.state },
    h('h3', { text: sale.complete ? t('outcome-paid-heading', { amount: sale.total_display }) : sale.state_label }),
    message ? h('p', { text: message }) : null, extra || null, h('div', { class: 'actions' }, next),
    sale.complete ? receiptPanel(sale.cart_id) : null));
  $('tender-notice').replaceChildren();
  $('tender-pending-slot').replaceChildren();
  announce(message || sale.state_label, '');
  next.focus();
}

async function nextSale() {
  try {
    hooks.cart(await invoke('new_sale', {}));
    close();
    announce(t('next-customer'));
  } catch (e) { alertLoud(errText(e)); }
}
