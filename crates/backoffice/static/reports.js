// PayDesk back office reports (record 0140): asks GET /admin/reports and draws the rows.
// Every value goes into the page as text (never as HTML).
"use strict";

const storeNames = {};

function el(tag, text) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}

// What "count" counts depends on the grouping (reports/mod.rs): units for goods, tenders
// for money; the totals count tenders.
function table(id, rows, keyTitle, countTitle) {
  const t = document.getElementById(id);
  t.replaceChildren();
  const head = el("tr");
  ["Store", keyTitle, countTitle, "Sales", "Sold", "Returned", "Net"].forEach((h) => head.appendChild(el("th", h)));
  t.appendChild(el("thead")).appendChild(head);
  const body = t.appendChild(el("tbody"));
  if (rows.length === 0) {
    const td = el("td", "nothing in these days");
    td.colSpan = 7;
    td.className = "empty";
    body.appendChild(el("tr")).appendChild(td);
  }
  for (const r of rows) {
    const tr = body.appendChild(el("tr"));
    const store = r.store_id === null ? "all stores" : storeNames[r.store_id] ?? r.store_id;
    [store, r.label, r.count, r.sales, money(r.sold, r.currency), money(r.returned, r.currency), money(r.net, r.currency)].forEach((v) => tr.appendChild(el("td", v)));
  }
}

function query() {
  const q = new URLSearchParams();
  for (const name of ["by", "from", "to", "store"]) {
    const v = document.getElementById(name).value;
    if (v !== "") q.set(name, v);
  }
  return q;
}

function linkCsv() {
  const q = query();
  q.set("format", "csv");
  document.getElementById("csv").href = "/admin/reports?" + q.toString();
}

async function show() {
  const message = document.getElementById("message");
  document.body.dataset.loaded = "false";
  message.textContent = "";
  const r = await fetch("/admin/reports?" + query().toString(), { credentials: "same-origin" });
  if (r.status === 401) {
    window.location.assign("/login");
    return;
  }
  const body = await r.json();
  if (!r.ok) {
    message.textContent = body.error ? body.error.message : "the back office refused";
    table("totals", [], "", "Tenders");
    table("report", [], "", "Count");
  } else {
    const title = { item: "Item", category: "Category", tender: "Tender", hour: "Hour" }[body.by];
    const counted = body.by === "item" || body.by === "category" ? "Units" : "Tenders";
    table("totals", body.totals, "", "Tenders");
    table("report", body.rows, title, counted);
    if (body.truncated) message.textContent = "Only the first rows are shown: ask for fewer days or one store.";
  }
  document.body.dataset.loaded = "true";
}

async function start() {
  const r = await fetch("/admin/dashboard", { credentials: "same-origin" });
  if (r.status === 401) {
    window.location.assign("/login");
    return;
  }
  const d = await r.json();
  learnCurrencies(d.currencies);
  const select = document.getElementById("store");
  for (const s of d.stores) {
    storeNames[s.store_id] = s.name;
    const o = el("option", s.name + " (" + s.time_zone + ")");
    o.value = s.store_id;
    select.appendChild(o);
  }
  const today = new Date().toISOString().slice(0, 10);
  for (const id of ["from", "to"]) if (!document.getElementById(id).value) document.getElementById(id).value = today;
  for (const id of ["by", "from", "to", "store"]) document.getElementById(id).addEventListener("change", linkCsv);
  document.getElementById("ask").addEventListener("submit", (e) => {
    e.preventDefault();
    linkCsv();
    show();
  });
  linkCsv();
  document.body.dataset.ready = "true";
}

start();
