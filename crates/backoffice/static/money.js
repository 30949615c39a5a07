// PayDesk back office: amounts in minor units as the owner reads them, for the dashboard
// and the reports page (loaded before each page's own script). No floating point: the
// digits are placed, never divided.
"use strict";

// Decimals per currency code, as the back office's answers list them.
const exponents = {};

function learnCurrencies(list) {
  list.forEach((c) => (exponents[c.code] = c.exponent));
}

function money(amount, currency) {
  const e = exponents[currency] ?? 2;
  const neg = amount < 0;
  const digits = String(Math.abs(amount)).padStart(e + 1, "0");
  const whole = e ? digits.slice(0, -e) : digits;
  const frac = e ? "." + digits.slice(-e) : "";
  return (neg ? "-" : "") + whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",") + frac + " " + currency.toUpperCase();
}
