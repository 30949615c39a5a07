// PayDesk cashier UI. Plain ES modules, no framework, no inline code (strict CSP).
// Everything goes through Tauri commands; live progress arrives as Tauri events.
// This module wires the screens together: the tabs, the keys (F1-F4, F12, Esc,
// the Enter rules), the events from the register, and the start.

import { listen } from './bridge.js';
import { $, announce, alertLoud, errText } from './dom.js';
import { charge, focusScan, initRegister, isCheckoutOpen, loadRegister, nextSaleButton, onProgress, registerTenderKey, reloadCatalog, setVisible } from './register.js';
import { initCatalog, loadCatalog } from './catalog.js';
import { initReceiptFind, loadPayments, openReceiptCandidates } from './payments.js';
import { loadReport } from './report.js';
import { loadSettings, showApplied } from './settings.js';
import { loadCounterRules } from './counter_rules.js';
import { loadTenderTypeSettings } from './tender_types.js';
import { loadAbout } from './about.js';
import { loadCopySettings } from './copies.js';
import { loadReaderSettings } from './reader.js';
import { refreshStatus, renderStatus } from './status.js';
import { applyStatic, formatTime, loadMessages, onLanguageChange, t } from './i18n.js';
import { loadBackofficeSettings, refreshBackoffice } from './backoffice.js';
import { initStaff, isLocked, redrawStaff } from './signin.js';
import { isPinChangeOpen } from './pinchange.js';
import { loadShift } from './shift.js';
import { initAudit, loadAudit } from './audit.js';
import { initNoSale, loadStaff } from './staff.js';
import { initCustomerDisplay, loadCustomerDisplay } from './customer_open.js';

// ---------------------------------------------------------------- screens
const views = ['register', 'payments', 'report', 'settings', 'catalog', 'shift', 'audit', 'staff'];
let currentView = 'register';
function show(view) {
  currentView = view;
  for (const v of views) $('view-' + v).hidden = v !== view;
  for (const b of document.querySelectorAll('.tab')) {
    if (b.dataset.view === view) b.setAttribute('aria-current', 'page');
    else b.removeAttribute('aria-current');
  }
  setVisible(view === 'register');
  if (view === 'payments') loadPayments();
  if (view === 'report') loadReport();
  if (view === 'settings') { loadSettings(); loadCounterRules(); loadTenderTypeSettings(); loadReaderSettings(); loadCustomerDisplay(); loadBackofficeSettings(); loadCopySettings(); loadAbout(); }
  if (view === 'catalog') loadCatalog();
  if (view === 'shift') loadShift();
  if (view === 'audit') loadAudit();
  if (view === 'staff') loadStaff();
}

// ---------------------------------------------------------------- keyboard
document.addEventListener('keydown', (e) => {
  // The sign-in screen and the approval and PIN dialogs take the keys: nothing behind them acts.
  if (isLocked() || !$('approval').hidden || isPinChangeOpen()) return;
  // A held Enter repeats: on a button it would press it again (charge another card,
  // refund again). Only a fresh key press activates a button.
  if (e.key === 'Enter' && e.repeat && e.target instanceof HTMLButtonElement) { e.preventDefault(); return; }
  // The tender panel's keys first: F6/F7/F8 and Esc mean payment there.
  if (currentView === 'register' && !e.repeat && registerTenderKey(e)) { e.preventDefault(); return; }
  const fkeys = { F1: 'register', F2: 'payments', F3: 'report', F4: 'settings', F5: 'catalog', F9: 'shift', F10: 'audit' };
  if (fkeys[e.key]) { e.preventDefault(); show(fkeys[e.key]); return; }
  if (e.key === 'F12') { e.preventDefault(); if (currentView === 'register' && !isCheckoutOpen()) charge(); return; }
  if (e.key === 'Escape') { if (currentView !== 'register') show('register'); else focusScan(); return; }
  const t = e.target;
  const typing = t instanceof HTMLInputElement || t instanceof HTMLSelectElement || t instanceof HTMLTextAreaElement;
  // Enter over a finished sale means "New sale" wherever the focus went (a click on
  // the page, a screen switched away and back); a button takes its own Enter.
  const next = currentView === 'register' ? nextSaleButton() : null;
  if (e.key === 'Enter' && next && !typing && !(t instanceof HTMLButtonElement)) { e.preventDefault(); next.click(); return; }
  // A scanner "types" into whatever has focus: send stray keystrokes to the barcode
  // field, also over a finished sale (the scan begins the next sale).
  if (!typing && currentView === 'register' && (!isCheckoutOpen() || next) && e.key.length === 1 && !e.ctrlKey && !e.altKey && !e.metaKey) {
    $('scan').focus();
  }
});

// ---------------------------------------------------------------- start
// Strict CSP: any violation is counted where the WebDriver tests can see it.
document.addEventListener('securitypolicyviolation', (e) => {
  document.body.dataset.cspViolations = String(Number(document.body.dataset.cspViolations || 0) + 1);
  document.body.dataset.cspLast = `${e.violatedDirective} ${e.blockedURI}`;
});

async function start() {
  // The words first: every screen below draws in the active language.
  await loadMessages();
  applyStatic(document);
  for (const b of document.querySelectorAll('.tab')) b.addEventListener('click', () => show(b.dataset.view));
  initRegister();
  initAudit();
  initNoSale();
  initCustomerDisplay();
  initReceiptFind();
  // A receipt's barcode scanned at the register opens its return here (record 0125).
  document.addEventListener('paydesk:open-receipt', (e) => {
    show('payments');
    openReceiptCandidates(e.detail.found);
  });
  // A sale refused for want of a shift offers the open-shift form (shift.js).
  document.addEventListener('paydesk:show', (e) => show(e.detail));
  initCatalog(() => reloadCatalog().catch((e) => alertLoud(errText(e))));
  const tick = () => { $('clock').textContent = formatTime(Date.now()); };
  tick(); setInterval(tick, 10000);
  document.addEventListener('paydesk:time-zone', tick);
  // A switch of language redraws what Rust or the screens wrote (the static text is
  // refilled by i18n.js): the register, the screen on show and the status bar.
  onLanguageChange(() => {
    tick();
    redrawStaff();
    loadRegister();
    if (currentView !== 'register') show(currentView);
    refreshStatus();
    refreshBackoffice();
  });

  await listen('checkout-progress', onProgress);
  await listen('status', renderStatus);
  await listen('settings-applied', (m) => {
    announce(m);
    if (currentView === 'settings') showApplied(m);
    refreshStatus();
  });
  await listen('payment-updated', (p) => {
    if (p.loud) alertLoud(p.message); else if (p.message) announce(p.message);
    if (currentView === 'payments') loadPayments();
    if (currentView === 'report') loadReport();
    refreshStatus();
  });

  // Who uses the register: the sign-in (or first-start) screen covers it until someone
  // is signed in; the sale on screen stays under it. The register is drawn once someone
  // is: its commands need a session (staff/guard.rs).
  await initStaff(() => { loadRegister(); focusScan(); });
  await refreshStatus();
  setInterval(refreshStatus, 5000);
  await refreshBackoffice();
  setInterval(refreshBackoffice, 5000);
  if (!isLocked()) focusScan();
  document.body.dataset.ready = 'true';
}

start().catch((e) => {
  // Said loudly, and where the WebDriver tests read it instead of waiting for "ready".
  document.body.dataset.startError = errText(e);
  alertLoud(t('start-failed', { error: errText(e) }));
});
