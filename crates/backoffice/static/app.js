// PayDesk back office dashboard: reads /admin/dashboard and draws it. Every value goes
// into the page as text (never as HTML); the only writes are resolutions of exceptions.
"use strict";

let storeNames = {};

function when(ms) {
  if (ms === null || ms === undefined) return "never";
  const s = Math.round((Date.now() - ms) / 1000);
  if (s < 60) return s + " s ago";
  if (s < 3600) return Math.round(s / 60) + " min ago";
  if (s < 86400) return Math.round(s / 3600) + " h ago";
  return new Date(ms).toISOString().slice(0, 16).replace("T", " ");
}

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

function table(id, headers, rows, empty) {
  const t = document.getElementById(id);
  t.replaceChildren();
  const head = el("tr");
  headers.forEach((h) => head.appendChild(el("th", h)));
  t.appendChild(el("thead")).appendChild(head);
  const body = t.appendChild(el("tbody"));
  if (rows.length === 0) {
    const tr = body.appendChild(el("tr"));
    const td = tr.appendChild(el("td", empty, "empty"));
    td.colSpan = headers.length;
  }
  rows.forEach((cells) => {
    const tr = body.appendChild(el("tr"));
    cells.forEach((c) => tr.appendChild(c instanceof Node ? wrap(c) : el("td", c)));
  });
}

function wrap(node) {
  const td = el("td");
  td.appendChild(node);
  return td;
}

function resolveForm(x) {
  const f = el("form", null, "resolve");
  const by = el("input");
  by.name = "by"; by.placeholder = "your name"; by.required = true; by.maxLength = 100;
  by.setAttribute("aria-label", "resolved by");
  const reason = el("input");
  reason.name = "reason"; reason.placeholder = "reason"; reason.required = true; reason.minLength = 3; reason.maxLength = 1000;
  reason.setAttribute("aria-label", "reason");
  const b = el("button", "Resolve");
  b.type = "submit";
  const msg = el("span", "", "message");
  f.append(by, reason, b, msg);
  f.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    b.disabled = true;
    const r = await fetch(`/admin/stores/${x.store_id}/exceptions/${x.exception_id}/resolve`, {
      method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ by: by.value, reason: reason.value }),
    });
    if (r.ok) { await load(); return; }
    const e = await r.json().catch(() => ({}));
    msg.textContent = (e.error && e.error.message) || ("failed: " + r.status);
    b.disabled = false;
  });
  return f;
}

function draw(d) {
  learnCurrencies(d.currencies);
  storeNames = Object.fromEntries(d.stores.map((s) => [s.store_id, s.name]));
  const store = (id) => storeNames[id] || id;
  const sales = {};
  d.sales_by_store.forEach((s) => { (sales[s.store_id] ||= []).push(money(s.amount, s.currency) + " (" + s.sales + ")"); });
  const refunded = {};
  d.sales_by_store.forEach((s) => { if (s.refunded) (refunded[s.store_id] ||= []).push(money(s.refunded, s.currency)); });
  table("stores", ["store", "time zone", "registers", "sales", "refunded", "open exceptions", "last reconciled"],
    d.stores.map((s) => [s.name, s.time_zone, s.registers, (sales[s.store_id] || ["—"]).join(", "), (refunded[s.store_id] || ["—"]).join(", "),
      s.open_exceptions, when(s.last_reconciled_ms)]), "No stores yet.");
  // a replaced register's "queued" is what it never delivered: lost with its disk
  // the audit chain as the register reported it (record 0053): a broken one says how
  const audit = Object.fromEntries((d.audit || []).map((a) => [a.register_id, a]));
  const chain = (a) => !a || a.status === "not_reported" ? "not reported"
    : a.status === "broken" ? "BROKEN (" + a.broken_kind.replace(/_/g, " ") + " at row " + a.broken_seq + ", " + when(a.broken_ms) + "): " + a.broken_detail
    : "intact through row " + a.confirmed_seq + " (confirmed " + when(a.confirmed_ms) + ")";
  table("registers", ["store", "register", "app version", "last sync", "acked through", "queued", "offline waiting", "held batches", "replaced", "audit chain"],
    d.registers.map((r) => [store(r.store_id), r.name, r.app_version || "—", when(r.last_sync_ms), r.acked_through, r.queued, r.offline_waiting, r.held_batches,
      r.replaced_ms ? when(r.replaced_ms) + " (" + r.queued + " rows never received)" : "—", chain(audit[r.register_id])]),
    "No registers paired yet.");
  table("sales-by-register", ["store", "register", "sales", "amount"],
    d.sales_by_register.map((r) => [store(r.store_id), r.register, r.sales, money(r.amount, r.currency)]), "No sales yet.");
  // each store's own hours (record 0137): the local hour with its UTC offset, so the
  // hour a summer-time change repeats shows as two true rows
  const hour = (h) => h.hour + " (UTC" + h.utc_offset + ")";
  table("sales-by-hour", ["hour", "time zone", "store", "sales", "amount"],
    d.sales_by_hour.map((h) => [hour(h), h.time_zone, store(h.store_id), h.sales, money(h.amount, h.currency)]), "No sales yet.");
  const chart = document.getElementById("hour-chart");
  chart.replaceChildren();
  const max = Math.max(1, ...d.sales_by_hour.map((h) => h.sales));
  d.sales_by_hour.slice(0, 24).reverse().forEach((h) => {
    const bar = el("div", null, "bar");
    bar.style.height = Math.max(4, Math.round((h.sales / max) * 100)) + "%";
    bar.title = hour(h) + " " + h.time_zone + " " + store(h.store_id) + ": " + h.sales + " sales";
    chart.appendChild(bar);
  });
  table("sales-net", ["store", "sales", "sold", "returns", "returned", "net", "cash refunded"],
    d.sales_net.map((r) => [store(r.store_id), r.sales, money(r.sold, r.currency), r.returns, money(r.returned, r.currency),
      money(r.net, r.currency), money(r.cash_refunded, r.currency)]), "No sales yet.");
  table("tax-net", ["store", "rate", "sold", "tax sold", "returned", "tax returned", "net", "net tax"],
    d.tax_net.map((r) => [store(r.store_id), r.class + " " + (r.ppm / 10000) + " %", money(r.sold_gross, r.currency),
      money(r.sold_tax, r.currency), money(r.returned_gross, r.currency), money(r.returned_tax, r.currency),
      money(r.net_gross, r.currency), money(r.net_tax, r.currency)]), "No taxed sales yet.");
  table("tenders", ["store", "method", "tenders", "amount", "change given"],
    d.tenders_by_store.map((t) => [store(t.store_id), t.method, t.tenders, money(t.amount, t.currency),
      t.method === "cash" ? money(t.change_given, t.currency) : "—"]), "No tenders yet.");
  table("store-tenders", ["store", "tender type", "kind", "tenders", "amount", "no change given", "refunds", "refunded", "net"],
    (d.store_tenders || []).map((t) => [store(t.store_id), t.name, t.kind.replace("_", " "), t.tenders, money(t.amount, t.currency),
      money(t.forfeited, t.currency), t.refunds, money(t.refunded, t.currency), money(t.amount - t.refunded, t.currency)]),
    "No store tenders (vouchers, QR, e-money, store account) yet.");
  table("exchanges", ["store", "register", "sale", "return", "exchanged for", "credit", "when"],
    (d.exchanges || []).map((x) => [store(x.store_id), x.register,
      "sale " + x.old_sale_id + (x.old_register ? " of " + x.old_register : ""), x.return_no,
      "exchanged for sale " + x.new_sale_id + (x.new_sale_completed ? "" : " (not paid yet)"), money(x.credit, x.currency),
      when(x.exchanged_at_ms)]), "No exchanges yet.");
  table("shifts", ["store", "register", "shift", "float", "opened", "Z", "counted", "expected", "over/short"],
    d.shifts.map((s) => [store(s.store_id), s.register, s.shift_id, money(s.float_amount, s.currency), when(s.opened_at_ms),
      s.z_number ?? "open", s.counted === null ? "—" : money(s.counted, s.currency),
      s.expected === null ? "—" : money(s.expected, s.currency), s.over_short === null ? "—" : money(s.over_short, s.currency)]),
    "No shifts yet.");
  table("refunds", ["store", "register", "refund key", "amount", "state"],
    d.refunds.map((r) => [store(r.store_id), r.register, r.refund_key, money(r.amount, r.currency), r.state]), "No refunds.");
  // refunds owed back (record 0142): what is still owed per state, what was paid back
  table("owed-back", ["store", "still owed", "proposed", "approved", "executing", "paid back", "failed"],
    (d.owed_back || []).map((o) => [store(o.store_id), money(o.owed, o.currency) + " (" + o.owed_count + ")", money(o.proposed, o.currency),
      money(o.approved, o.currency), money(o.executing, o.currency), money(o.paid_back, o.currency) + " (" + o.paid_back_count + ")", o.failed_count]),
    "Nothing owed back to customers.");
  table("owed-refunds", ["store", "charge", "amount", "state", "proposed by", "approved by", "PSP refund", "last error"],
    (d.owed_refunds || []).map((o) => [store(o.store_id), o.psp_charge_id, money(o.amount, o.currency), o.state, o.proposed_by,
      o.approved_by || "—", o.psp_refund_id || "—", o.last_error || "—"]), "No refunds proposed.");
  table("exceptions", ["store", "what", "subject", "detail", "first seen", "resolution"],
    d.exceptions.map((x) => [store(x.store_id), x.description, x.subject, JSON.stringify(x.detail), when(x.first_seen_ms),
      x.resolved_ms ? el("span", "resolved by " + x.resolved_by + ": " + x.resolution, "resolved") : resolveForm(x)]),
    "No exceptions: every charge and refund matched.");
  document.getElementById("updated").textContent = "updated " + new Date().toLocaleTimeString();
  document.body.dataset.loaded = "true";
}

async function load() {
  const r = await fetch("/admin/dashboard");
  if (r.status === 401) { window.location = "/login"; return; }
  if (!r.ok) { document.getElementById("updated").textContent = "could not load: " + r.status; return; }
  draw(await r.json());
}

document.addEventListener("DOMContentLoaded", () => {
  load();
  // no refresh while someone is writing a resolution: it would redraw the form away
  const writing = () => [...document.querySelectorAll("form.resolve input")].some((i) => i.value !== "" || i === document.activeElement);
  setInterval(() => { if (!writing()) load(); }, 10000);
});
