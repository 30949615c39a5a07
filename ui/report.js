// The end-of-day screen: the register's totals for today as tiles, and sales per
// local hour as a chart. Amounts arrive as integer minor units and stay integers. The
// figures are the ledger's takings (the X and Z reports' definitions): every tender once,
// canceled sales apart; the drawer's expected cash stays hidden while a shift is open.

import { invoke } from './bridge.js';
import { TENDER_KIND } from './contract.js';
import { $, h, s, announce, errText, fmtMoney } from './dom.js';
import { t } from './i18n.js';

/** Today's totals (the store's day, in its time zone) as tiles, and sales per hour as a bar chart. */
export async function loadReport() {
  let r;
  try { r = await invoke('get_report', {}); } catch (e) { announce(errText(e), 'bad'); return; }
  const tile = (id, label, value, hl) => h('div', { class: 'tile' + (hl ? ' highlight' : ''), id },
    h('div', { class: 'label', text: label }), h('div', { class: 'value', text: value }));
  $('report-tiles').replaceChildren(
    tile('r-gross', t('report-sales'), r.gross_display, true),
    tile('r-refunds', t('report-refunds'), r.refunds_display),
    tile('r-net', t('report-net'), r.net_display, true),
    tile('r-count', t('tab-payments'), String(r.payment_count)),
    tile('r-card-refunds', t('report-card-refunds'), r.card_refunds_display),
    tile('r-cash-refunds', t('report-cash-refunds'), r.cash_refunds_display),
    tile('r-canceled', t('report-canceled'), `${r.canceled_count} · ${r.canceled_display}`),
    tile('r-offline', t('report-offline'), `${r.offline_count} · ${r.offline_display}`),
    tile('r-pending', t('report-pending'), `${r.pending_count} · ${r.pending_display}`),
    tile('r-declined', t('report-declined'), String(r.declined_count)),
    tile('r-dupes', t('report-dupes'), String(r.duplicates_prevented), true));
  for (const [id, v] of [['r-gross', r.gross], ['r-refunds', r.refunds], ['r-net', r.net], ['r-count', r.payment_count],
    ['r-card-refunds', r.card_refunds], ['r-cash-refunds', r.cash_refunds], ['r-canceled', r.canceled_count],
    ['r-offline', r.offline_count], ['r-pending', r.pending_count], ['r-declined', r.declined_count],
    ['r-dupes', r.duplicates_prevented]]) $(id).dataset.value = String(v);
  $('r-canceled').dataset.amount = String(r.canceled);
  // The day's tax per rate with its named parts, and the tax-exempt sales (record 0135).
  const rateTiles = r.tax_rates.flatMap((x) => {
    const main = tile(`r-rate-${x.class}-${x.ppm}`, t('report-tax-rate', { rate: x.rate }), `${x.base_display} · ${x.tax_display}`);
    main.dataset.value = String(x.tax); main.dataset.base = String(x.base);
    const parts = x.parts.map((p, i) => {
      const pt = tile(`r-rate-${x.class}-${x.ppm}-${i}`, `${p.name} ${p.rate}%`, p.tax_display);
      pt.dataset.value = String(p.tax);
      return pt;
    });
    return [main, ...parts];
  });
  const exempt = tile('r-exempt', t('report-exempt'), `${r.exempt_count} · ${r.exempt_display}`);
  exempt.dataset.value = String(r.exempt_count); exempt.dataset.amount = String(r.exempt);
  $('report-tiles').append(...rateTiles, exempt);
  await loadTenders(tile, r.by_store_type);
  // Sales per hour of the store's day (its time zone, from the backend), from the
  // opening hour (or 8:00) to now.
  const bins = new Map();
  for (const sale of r.sales) {
    const hr = sale.hour;
    const b = bins.get(hr) || { amount: 0, count: 0 };
    b.amount += sale.amount; b.count += 1; bins.set(hr, b);
  }
  const nowH = r.now_hour;
  const first = Math.min(8, ...bins.keys(), nowH);
  const last = Math.max(18, ...bins.keys(), nowH);
  const perHour = [];
  for (let hr = first; hr <= last; hr++) {
    const b = bins.get(hr) || { amount: 0, count: 0 };
    perHour.push({ hour: hr, amount: b.amount, count: b.count, amount_display: fmtMoney(b.amount, r.money) });
  }
  $('report-chart').replaceChildren(hourChart(perHour, r.money));
}

/** Tenders today: totals per kind (the store's own tenders one tile per tender type,
 *  record 0122), the cash the drawer should hold, sales still owing. */
async function loadTenders(tile, storeTypes) {
  let d;
  try { d = await invoke('get_tender_day', {}); } catch (e) { announce(errText(e), 'bad'); return; }
  const label = { cash: t('tender-cash'), card: t('tender-card'), store: t('tender-store') };
  const perType = storeTypes.map((st) => {
    const tl = tile(`r-store-type-${st.id}`, t('report-tender-kind', { kind: st.name, count: st.count }), st.amount_display);
    tl.dataset.value = String(st.amount); tl.dataset.count = String(st.count);
    return tl;
  });
  const perKind = d.by_kind.flatMap((k) => {
    if (k.kind === TENDER_KIND.STORE && perType.length) return perType;
    const tl = tile(`r-tender-${k.kind}-${k.settled.currency.toLowerCase()}`, t('report-tender-kind', { kind: label[k.kind] || k.kind, count: k.count }), k.settled.display);
    tl.dataset.value = String(k.settled.minor); tl.dataset.count = String(k.count);
    return tl;
  });
  // null while a shift is open: the close is blind, the X report (audited) shows it.
  let drawerTiles;
  if (d.expected_drawer === null) {
    const tl = tile('r-drawer', t('report-drawer'), t('report-drawer-blind'));
    tl.dataset.hidden = 'true';
    drawerTiles = [tl];
  } else {
    const drawer = d.expected_drawer.length ? d.expected_drawer : [{ currency: '', minor: 0, display: '—' }];
    drawerTiles = drawer.map((a, i) => {
      const tl = tile(i ? `r-drawer-${a.currency.toLowerCase()}` : 'r-drawer', t('report-drawer'), a.display, true);
      tl.dataset.value = String(a.minor);
      return tl;
    });
  }
  const unpaidCount = d.unpaid_balances.length + d.unpaid_balances_not_listed;
  const unpaid = tile('r-unpaid', t('report-unpaid'), String(unpaidCount));
  unpaid.dataset.value = String(unpaidCount);
  $('report-tenders').replaceChildren(...perKind, ...drawerTiles, unpaid);
  $('report-unpaid').replaceChildren(...d.unpaid_balances.map((u) =>
    h('li', { 'data-cart': String(u.cart_id), text: t('report-unpaid-line', { cart: u.cart_id, due: u.due.display, total: u.total.display, state: u.state_label }) })),
  ...(d.unpaid_balances_not_listed ? [h('li', { text: t('report-unpaid-more', { count: d.unpaid_balances_not_listed }) })] : []),
  ...(d.superseded_charged.length ? [h('li', { text: t('report-overridden', { keys: d.superseded_charged.join(', ') })
    + (d.superseded_charged_not_listed ? t('report-overridden-more', { count: d.superseded_charged_not_listed }) : '') })] : []));
}

/**
 * Chart scale: the step (integer minor units) between the 4 grid lines above zero,
 * a round 1, 2, 2.5 or 5 × 10^n so every tick label is an exact, round amount.
 */
function axisStep(maxMinor, fmt) {
  const unit = 10 ** fmt.exponent;
  if (maxMinor <= 0) return 25 * unit;                   // an empty day: 0 to 100 units
  const need = Math.ceil(maxMinor / 4);                  // integer minor units per step
  let p = 1;
  while (p * 10 <= need) p *= 10;
  // 1, 2, 2.5 (when it stays whole) or 5 × 10^n
  return [p, 2 * p, 5 * p / 2, 5 * p, 10 * p].find((x) => Number.isInteger(x) && x >= need);
}

function hourChart(perHour, fmt) {
  const W = 900, H = 250, padL = 84, padB = 30, padT = 24;
  const hours = perHour;
  const step = axisStep(Math.max(0, ...hours.map((x) => x.amount)), fmt);
  const max = step * 4;
  const bw = (W - padL - 10) / Math.max(1, hours.length);
  const total = hours.reduce((a, x) => a + x.count, 0);
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img',
    'aria-label': total ? t('report-chart-label', { hours: hours.filter((x) => x.amount).map((x) => t('report-hour-sum', { hour: x.hour, amount: x.amount_display, count: x.count })).join(', ') }) : t('report-no-sales') });
  for (let g = 0; g <= 4; g++) {
    const y = padT + (H - padT - padB) * (1 - g / 4);
    svg.append(s('line', { x1: padL, y1: y, x2: W - 10, y2: y, stroke: '#e2e8f0' }),
      s('text', { x: padL - 8, y: y + 4, 'text-anchor': 'end', 'font-size': 12, fill: '#334155', class: 'axis-label' }, fmtMoney(step * g, fmt)));
  }
  hours.forEach((x, i) => {
    const bh = (H - padT - padB) * (x.amount / max);
    const bx = padL + i * bw + 3;
    const cx = bx + (bw - 6) / 2;
    svg.append(s('rect', { x: bx, y: H - padB - bh, width: Math.max(1, bw - 6), height: bh, rx: 3, fill: '#0f766e' },
      s('title', {}, t('report-hour-title', { from: x.hour, to: x.hour + 1, amount: x.amount_display, count: x.count }))));
    svg.append(s('text', { x: cx, y: H - padB + 18, 'text-anchor': 'middle', 'font-size': 12, fill: '#475569' }, `${x.hour}:00`));
    if (x.amount) svg.append(s('text', { x: cx, y: H - padB - bh - 6, 'text-anchor': 'middle', 'font-size': 12, 'font-weight': 700, fill: '#0f172a' }, x.amount_display));
  });
  if (!total) svg.append(s('text', { x: W / 2, y: H / 2, 'text-anchor': 'middle', 'font-size': 16, fill: '#475569' }, t('report-no-sales')));
  return svg;
}
