// DOM helpers shared by the screens: element builders, the status-bar announcement
// and the screen reader alert, command error text, times of day.

import { langTag, timeZone } from './i18n.js';

export const $ = (id) => document.getElementById(id);
const SVG_NS = 'http://www.w3.org/2000/svg';

/** Builds an element. attrs: props/attributes (on*: listeners); children: nodes/strings. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else if (k in el && typeof v !== 'string') el[k] = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

/** Builds an SVG element (attributes only). */
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) el.setAttribute(k, String(v));
  for (const c of children.flat()) if (c !== null && c !== undefined) el.append(c);
  return el;
}

/** A message in the status bar (tone: '' | 'warn' | 'bad'), read out politely. */
export function announce(msg, tone = '') {
  const a = $('announce');
  a.textContent = msg;
  a.title = msg;   // the bar may cut a long message short; the whole of it stays here
  a.className = 'announce' + (tone ? ' ' + tone : '');
}

/** A message read out at once (role=alert), and shown in the status bar. */
export function alertLoud(msg) {
  $('alert').textContent = '';
  requestAnimationFrame(() => { $('alert').textContent = msg; });
  announce(msg, 'bad');
}

/** Errors from commands are {code, message}; the message is written for the cashier. */
export function errText(e) {
  if (e && typeof e === 'object' && 'message' in e) return e.message;
  return String(e);
}

/** Time of day of a timestamp (ms or ISO text) in the store's zone; now when absent. */
export function timeOf(iso) {
  const d = iso ? new Date(iso) : new Date();
  return d.toLocaleTimeString(langTag(), { hour: '2-digit', minute: '2-digit', second: '2-digit', timeZone: timeZone() });
}

/**
 * Integer minor units → "$1,234.50" / "¥1,200" / "1.000 KWD", with the currency's
 * symbol and exponent as the register sent them (fmt = report.money). Integer
 * arithmetic only: amounts never become fractions of a unit in floating point.
 */
export function fmtMoney(minor, fmt) {
  if (!Number.isSafeInteger(minor)) throw new Error(`not an amount in minor units: ${minor}`);
  const scale = 10 ** fmt.exponent;           // an exact integer (exponent 0..3)
  const a = Math.abs(minor);
  const frac = a % scale;
  const major = (a - frac) / scale;           // exact: a - frac is a multiple of scale
  const grouped = String(major).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const number = fmt.exponent ? `${grouped}.${String(frac).padStart(fmt.exponent, '0')}` : grouped;
  const body = fmt.symbol ? fmt.symbol + number : `${number} ${fmt.code}`;
  return (minor < 0 ? '−' : '') + body;
}

/**
 * What the cashier typed ("12.5", "20", "1200") → integer minor units, or null when it
 * is not an amount of this currency (no sign, at most `exponent` decimals). Integer
 * arithmetic only. The register parses it again and decides; this is for the preview.
 */
export function toMinor(text, exponent) {
  const t = String(text).trim();
  const m = /^(\d{1,12})(?:\.(\d*))?$/.exec(t);
  if (!m) return null;
  const frac = m[2] || '';
  if (frac.length > exponent || (m[2] !== undefined && frac.length === 0)) return null;
  return Number(m[1]) * 10 ** exponent + Number(frac.padEnd(exponent, '0') || '0');
}
