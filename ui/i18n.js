// The screen's words and formats in the active language (record 0070).
// Rust owns the catalogs (crates/i18n/locales/<lang>/<area>.ftl); get_messages hands this
// module each message's pattern text, and t() fills its {$name} placeables. A message with
// a selector (plurals, a choice) is formatted in Rust and arrives as finished text.

import { invoke } from './bridge.js';

let messages = {};
let current = 'en';
let tag = 'en-US';
let chosen = '';
let zone;   // the store's time zone (IANA); undefined: the computer's, until Rust says
let languages = [{ code: 'en', name: 'English' }];
const listeners = [];
const PLACEABLE = /\{\$([A-Za-z][A-Za-z0-9_-]*)\}/g;

/** The message `id` in the active language, `{$name}` filled from `args`.
 *  A missing id (or argument) is shown as is and logged, never thrown. */
export function t(id, args) {
  const pattern = messages[id];
  if (pattern === undefined) {
    console.error(`i18n: no message "${id}" in ${current}`);
    return id;
  }
  if (!args) return pattern;
  return pattern.replace(PLACEABLE, (whole, name) => {
    if (!Object.prototype.hasOwnProperty.call(args, name)) {
      console.error(`i18n: message "${id}" needs argument "${name}"`);
      return whole;
    }
    return String(args[name]);
  });
}

/** Marks an id chosen in code (a table of states) so the catalogs test checks it exists. */
export const msgId = (id) => id;

/** 'en' or 'ja'. */
export const lang = () => current;
/** 'en-US' or 'ja-JP'. */
export const langTag = () => tag;
/** The store's time zone: every time on screen is told in it, as on its receipts. */
export const timeZone = () => zone;
/** The store's time zone changed (Catalog → Store): the clock is told at once. */
export function setTimeZone(name) {
  if (!name || name === zone) return;
  zone = name;
  document.dispatchEvent(new CustomEvent('paydesk:time-zone'));
}
/** What Settings saved: '' (automatic), 'en' or 'ja'. */
export const chosenLanguage = () => chosen;
/** [{code, name}] of the languages to choose from, each named in its own words. */
export const languageOptions = () => languages.slice();

/** fn(lang) runs after every switch of language, once the new messages are in. */
export function onLanguageChange(fn) { listeners.push(fn); }

function install(view) {
  messages = view.messages || {};
  current = view.lang;
  tag = view.tag;
  chosen = view.chosen || '';
  setTimeZone(view.time_zone);
  languages = view.languages || languages;
  document.documentElement.lang = current;
}

/** Fetches the active language's messages from Rust (at start; setLanguage refreshes). */
export async function loadMessages() {
  install(await invoke('get_messages'));
}

/** Switches the whole screen to `code` ('en', 'ja', or '' for automatic) at once: saved
 *  by Rust, the static text refilled, every listener redraws its part. */
export async function setLanguage(code) {
  install(await invoke('set_language', { lang: code }));
  applyStatic(document);
  for (const fn of listeners) {
    try { fn(current); } catch (e) { console.error('i18n: a language listener failed', e); }
  }
}

const ATTRS = new Set(['title', 'placeholder', 'aria-label']);

/** Fills every element under `root` (and root itself) with data-i18n="id" (its text)
 *  and data-i18n-attr="attr:id;attr2:id2" (title, placeholder, aria-label). */
export function applyStatic(root) {
  const pick = (sel) => {
    const found = Array.from(root.querySelectorAll ? root.querySelectorAll(sel) : []);
    if (root.matches && root.matches(sel)) found.unshift(root);
    return found;
  };
  for (const el of pick('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const el of pick('[data-i18n-attr]')) {
    for (const pair of el.dataset.i18nAttr.split(';')) {
      const [attr, id] = pair.split(':').map((s) => s.trim());
      if (!attr || !id) continue;
      if (!ATTRS.has(attr)) { console.error(`i18n: data-i18n-attr cannot set "${attr}"`); continue; }
      el.setAttribute(attr, t(id));
    }
  }
}

// ---------------------------------------------------------------- money and time
const CURRENCIES = {
  JPY: { symbol: '¥', digits: 0 }, KRW: { symbol: '₩', digits: 0 },
  USD: { symbol: '$', digits: 2 }, EUR: { symbol: '€', digits: 2 }, GBP: { symbol: '£', digits: 2 },
};

/** Integer minor units as money: 1200,'JPY' → ¥1,200; 1200,'USD' → $12.00; −$0.50 for a negative amount (the sign Rust's money::format uses).
 *  BigInt arithmetic only: an amount never passes through a float. */
export function formatMoney(minor, currency) {
  const code = String(currency || '').toUpperCase();
  const c = CURRENCIES[code] || { symbol: null, digits: 2 };
  let n;
  try { n = BigInt(minor); } catch (e) {
    console.error(`i18n: ${minor} is not an amount in minor units`);
    return String(minor);
  }
  const neg = n < 0n;
  if (neg) n = -n;
  const unit = 10n ** BigInt(c.digits);
  const whole = (n / unit).toString().replace(/\B(?=(\d{3})+$)/g, ',');
  const frac = c.digits > 0 ? '.' + (n % unit).toString().padStart(c.digits, '0') : '';
  const body = c.symbol ? `${c.symbol}${whole}${frac}` : `${whole}${frac} ${code}`;
  return neg ? `−${body}` : body;
}

/** Date and time of `ms` (milliseconds since the epoch) as the active language writes it:
 *  2026/12/02 14:05 in Japanese, Dec 2, 2026, 2:05 PM in English. */
export function formatDateTime(ms) {
  return new Intl.DateTimeFormat(tag, { year: 'numeric', month: current === 'ja' ? '2-digit' : 'short', day: '2-digit', hour: '2-digit', minute: '2-digit', timeZone: zone }).format(new Date(ms));
}

/** Time of day of `ms` in the store's zone: 14:05 in Japanese, 02:05 PM in English. */
export function formatTime(ms) {
  return new Intl.DateTimeFormat(tag, { hour: '2-digit', minute: '2-digit', timeZone: zone }).format(new Date(ms));
}
