// The Shift tab (F9): open a shift on a float counted by denomination, the X report, paid
// in / paid out with a reason, the close on a blind count (the expected amount appears
// only on the Z report, after the count), and earlier Z reports. Every rule is the
// register's (the commands check again); this screen draws and adds up counts in
// integer minor units. Paid in / out and the close are a manager's: a cashier's opens the
// same approval dialog as a refund (approval.js), and the command is sent again with it.

import { invoke } from './bridge.js';
import { REPORT_KIND, TONE } from './contract.js';
import { withApproval } from './approval.js';
import { $, h, announce, alertLoud, errText } from './dom.js';
import { formatDateTime, formatMoney, t } from './i18n.js';

const MAX_PIECES = 999999;
/** Z reports listed for a look-up (the newest). */
const Z_LISTED = 10;
let status = null;
let busy = false;

/** A button that takes the cashier to the open-shift form (a sale refused with no_open_shift). */
export function openShiftOffer() {
  return h('button', { class: 'primary', id: 'offer-open-shift', type: 'button', text: t('shift-open-offer'),
    onclick: () => document.dispatchEvent(new CustomEvent('paydesk:show', { detail: 'shift' })) });
}

function msg(text, tone = '', code = '') {
  const m = $('shift-msg');
  m.textContent = text;
  m.className = 'help ' + tone;
  m.dataset.code = code;
  if (tone === TONE.BAD) alertLoud(text); else if (text) announce(text);
}

function fail(e) { msg(errText(e), 'bad', (e && e.code) || ''); }

async function run(fn) {
  if (busy) return;
  busy = true;
  $('view-shift').dataset.busy = 'true';
  try { await fn(); } catch (e) { fail(e); } finally { busy = false; $('view-shift').dataset.busy = 'false'; }
}

export async function loadShift() {
  try { status = await invoke('shift_status'); } catch (e) { fail(e); return; }
  msg('');
  draw();
}

function draw() {
  drawHeader();
  if (status.open) drawOpen(); else drawOpenForm();
  drawZList();
}

function drawHeader() {
  const s = status;
  $('view-shift').dataset.open = String(s.open);
  $('shift-who').textContent = s.signed_in ? t('shift-signed-in-as', { name: s.signed_in }) : (s.required ? t('shift-nobody-signed-in') : t('shift-not-required'));
  $('shift-state').textContent = s.open
    ? t('shift-open-since', { time: formatDateTime(s.opened_at_ms), name: s.opened_by, float: formatMoney(s.float_minor, s.currency) })
    : t('shift-none-open');
}

/** A table with a row per denomination: count → line total → total, in minor units. */
function countForm(id) {
  const cur = status.currency;
  const total = h('output', { id: `${id}-total`, class: 'num', 'data-minor': '0', text: formatMoney(0, cur) });
  const rows = status.denominations.map((d) => {
    const line = h('td', { class: 'num', text: formatMoney(0, cur) });
    const input = h('input', { type: 'text', inputmode: 'numeric', maxlength: '6', size: '6', class: 'count', 'data-denomination': String(d),
      'aria-label': formatMoney(d, cur), autocomplete: 'off' });
    input.addEventListener('input', () => {
      const n = pieces(input.value);
      input.classList.toggle('bad', n === null);
      line.textContent = formatMoney(n === null ? 0 : d * n, cur);
      let sum = 0;
      for (const x of document.querySelectorAll(`#${id} input.count`)) sum += Number(x.dataset.denomination) * (pieces(x.value) || 0);
      total.dataset.minor = String(sum);
      total.textContent = formatMoney(sum, cur);
    });
    return h('tr', {}, h('th', { scope: 'row', text: formatMoney(d, cur) }), h('td', {}, input), line);
  });
  const table = h('table', { id, class: 'count-form' },
    h('thead', {}, h('tr', {}, h('th', { text: t('shift-col-denomination') }), h('th', { text: t('shift-col-count') }), h('th', { class: 'num', text: t('shift-col-total') }))),
    h('tbody', {}, ...rows),
    h('tfoot', {}, h('tr', {}, h('th', { colspan: '2', text: t('shift-count-total') }), h('td', {}, total))));
  return table;
}

/** Pieces typed: '' is 0; digits only, at most MAX_PIECES; null when not a count. */
function pieces(text) {
  const v = String(text).trim();
  if (v === '') return 0;
  if (!/^\d{1,6}$/.test(v)) return null;
  const n = Number(v);
  return n <= MAX_PIECES ? n : null;
}

function countOf(id) {
  const out = [];
  for (const x of document.querySelectorAll(`#${id} input.count`)) {
    const n = pieces(x.value);
    if (n === null) return null;
    if (n > 0) out.push({ denomination_minor: Number(x.dataset.denomination), count: n });
  }
  return out;
}

function drawOpenForm() {
  const form = countForm('float-count');
  const open = h('button', { class: 'primary', id: 'shift-open', type: 'button', text: t('shift-open-button'),
    onclick: () => run(async () => {
      const float = countOf('float-count');
      if (float === null) { msg(t('shift-error-count', { detail: '' }), 'bad', 'invalid_count'); return; }
      status = await invoke('shift_open', { float });
      draw();
      msg(t('shift-opened', { float: formatMoney(status.float_minor, status.currency) }), 'ok', 'opened');
    }) });
  $('shift-work').replaceChildren(h('h2', { text: t('shift-open-title') }), form, h('div', { class: 'actions' }, open));
  const first = form.querySelector('input');
  if (first) first.focus();
}

function drawOpen() {
  const amount = h('input', { id: 'paid-amount', type: 'text', inputmode: 'decimal', maxlength: '16', size: '10', autocomplete: 'off' });
  const reason = h('input', { id: 'paid-reason', type: 'text', maxlength: '200', size: '30', autocomplete: 'off' });
  const paid = (cmd) => run(async () => {
    const args = { amount: amount.value, reason: reason.value };
    const r = await withApproval((approval) => invoke(cmd, approval ? { ...args, approval } : args));
    amount.value = ''; reason.value = '';
    msg(r.message, 'ok', cmd);
  });
  $('shift-work').replaceChildren(
    h('div', { class: 'actions' },
      h('button', { class: 'secondary', id: 'shift-x', type: 'button', text: t('shift-x-button'),
        onclick: () => run(async () => showReport(await withApproval((approval) => invoke('x_report', approval ? { approval } : {})))) }),
      h('button', { class: 'danger', id: 'shift-close', type: 'button', text: t('shift-close-button'), onclick: drawCloseForm })),
    h('h2', { text: t('shift-paid-title') }),
    h('div', { class: 'paid-form' },
      h('label', { for: 'paid-amount', text: t('shift-amount') }), amount,
      h('label', { for: 'paid-reason', text: t('shift-reason') }), reason,
      h('button', { class: 'secondary', id: 'paid-in', type: 'button', text: t('shift-paid-in-button'), onclick: () => paid('paid_in') }),
      h('button', { class: 'secondary', id: 'paid-out', type: 'button', text: t('shift-paid-out-button'), onclick: () => paid('paid_out') })),
    h('div', { id: 'shift-report' }));
}

/** The blind count: nothing on screen says what the drawer should hold. */
function drawCloseForm() {
  const form = countForm('close-count');
  const confirm = h('button', { class: 'danger', id: 'shift-close-confirm', type: 'button', text: t('shift-close-confirm'),
    onclick: () => run(async () => {
      const counted = countOf('close-count');
      if (counted === null) { msg(t('shift-error-count', { detail: '' }), 'bad', 'invalid_count'); return; }
      const z = await withApproval((approval) => invoke('shift_close', approval ? { counted, approval } : { counted }));
      status = await invoke('shift_status');
      // The Z first; the next shift's form one press away.
      drawHeader();
      drawZList();
      $('shift-work').replaceChildren(h('div', { id: 'shift-report' }),
        h('div', { class: 'actions' }, h('button', { class: 'secondary', id: 'shift-next', type: 'button', text: t('shift-open-title'), onclick: draw })));
      showReport(z);
      msg('', '', 'closed');
    }) });
  const back = h('button', { class: 'link', id: 'shift-close-back', type: 'button', text: t('shift-cancel'), onclick: draw });
  $('shift-work').replaceChildren(h('h2', { text: t('shift-close-title') }), h('p', { class: 'help', text: t('shift-close-hint') }),
    form, h('div', { class: 'actions' }, confirm, back), h('div', { id: 'shift-report' }));
  form.querySelector('input').focus();
}

/** An X or Z report: its figures, its printed text (text nodes only) and Print. */
function showReport(r) {
  let slot = $('shift-report');
  if (!slot) { slot = h('div', { id: 'shift-report' }); $('shift-work').append(slot); }
  const figs = r.kind === REPORT_KIND.Z
    ? h('dl', { class: 'z-figures' },
      h('dt', { text: t('shift-expected') }), h('dd', { id: 'z-expected', 'data-minor': String(r.report.expected), text: r.expected_display }),
      h('dt', { text: t('shift-counted') }), h('dd', { id: 'z-counted', 'data-minor': String(r.report.counted), text: r.counted_display }),
      h('dt', { text: t('shift-over-short') }), h('dd', { id: 'z-over-short', 'data-minor': String(r.report.over_short),
        class: r.report.over_short < 0 ? 'bad' : (r.report.over_short > 0 ? 'warn' : 'ok'), text: r.over_short_display }))
    : null;
  const print = h('button', { class: 'secondary', id: 'shift-print', type: 'button', text: t('shift-print'),
    onclick: () => run(async () => {
      const args = r.kind === REPORT_KIND.Z ? { kind: REPORT_KIND.Z, number: r.z_number } : { kind: REPORT_KIND.X };
      const p = await withApproval((approval) => invoke('print_shift_report', approval ? { ...args, approval } : args));
      msg(p.message, 'ok', 'printed');
    }) });
  slot.replaceChildren(h('section', { class: 'shift-report', id: 'report-shown', 'data-kind': r.kind, 'data-z': r.z_number == null ? '' : String(r.z_number),
    'data-checkpoint': r.checkpoint || '' },
    h('div', { class: 'actions' }, r.kind === REPORT_KIND.Z ? h('h2', { text: t('shift-z-title', { number: r.z_number }) }) : null, print),
    figs,
    h('pre', { class: 'receipt-text', id: 'report-text', text: r.text.join('\n') })));
  slot.scrollIntoView({ block: 'start' });
}

function drawZList() {
  const last = status.last_z;
  const from = Math.max(1, last - Z_LISTED + 1);
  const buttons = [];
  for (let n = last; n >= from; n--) {
    buttons.push(h('button', { class: 'link', type: 'button', 'data-z': String(n), text: t('shift-z-show', { number: n }),
      onclick: () => run(async () => {
        if (!$('shift-report')) $('shift-work').append(h('div', { id: 'shift-report' }));
        showReport(await invoke('z_report', { number: n }));
      }) }));
  }
  $('shift-z-list').replaceChildren(...buttons);
  $('shift-z-list').dataset.last = String(last);
}
