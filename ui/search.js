// Finding items on the sale screen (record 0133): a search field over the item buttons
// and the category tabs ("All" + the store's categories). A query asks the app's
// `search_items` (SKU, barcode digits, names in both languages; any case, width or
// kana; best match first, at most 50) inside the open tab; no query shows the tab's
// items. The register draws the buttons (their click adds the item); this file only
// says which items are on show. The cart's lines are never re-sorted here.

import { invoke } from './bridge.js';
import { $, h, errText } from './dom.js';
import { t } from './i18n.js';

let tabs = [];            // [{ key, name }]
let tab = '';             // '' = All
let results = null;       // the last answer for the field's text; null: no query
let asked = 0;            // answers to older keystrokes are dropped
let redraw = () => {};

/** The items on show out of the register's `catalog`. */
export function shownItems(catalog) {
  if (results) return results;
  return tab ? catalog.filter((it) => it.category === tab) : catalog;
}

/** What the catalog shows when nothing is (a query that matched nothing), or ''. */
export function emptyText() {
  const q = $('item-search').value.trim();
  return results && !results.length ? t('search-none', { query: q }) : '';
}

function drawTabs() {
  const all = [{ key: '', name: t('search-all') }, ...tabs];
  $('catalog-tabs').replaceChildren(...all.map((c) =>
    h('button', {
      type: 'button', role: 'tab', class: 'cat-tab', 'data-category': c.key,
      'aria-selected': String(c.key === tab), text: c.name,
      onclick: () => { tab = c.key; drawTabs(); find(); },
    })));
}

async function find() {
  const query = $('item-search').value;
  const mine = ++asked;
  $('search-error').hidden = true;
  if (!query.trim()) { results = null; redraw(); return; }
  try {
    const found = await invoke('search_items', tab ? { query, category: tab } : { query });
    if (mine !== asked) return;
    results = found;
  } catch (e) {
    if (mine !== asked) return;
    results = [];
    $('search-error').textContent = errText(e);
    $('search-error').hidden = false;
  }
  redraw();
}

/** The tabs again (the store's categories may have changed). */
export async function loadTabs() {
  tabs = await invoke('get_categories');
  if (tab && !tabs.some((c) => c.key === tab)) tab = '';
  drawTabs();
  if (results) await find();
}

/** Wires the field; `draw` redraws the item buttons from `shownItems`. */
export function initSearch(draw) {
  redraw = draw;
  $('item-search').addEventListener('input', () => { find(); });
  $('item-search').addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && $('item-search').value) { e.stopPropagation(); $('item-search').value = ''; find(); }
  });
}
