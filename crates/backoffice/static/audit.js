// PayDesk back office audit search (record 0146): asks GET /admin/audit/search and
// GET /admin/audit/sales/ID, and draws the sales, the receipt as issued, its prints and the
// proof step by step. Every value goes into the page as text (never as HTML).
"use strict";

function el(tag, text) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}

function table(id, titles, rows, empty) {
  const t = document.getElementById(id);
  t.replaceChildren();
  const head = el("tr");
  titles.forEach((h) => head.appendChild(el("th", h)));
  t.appendChild(el("thead")).appendChild(head);
  const body = t.appendChild(el("tbody"));
  if (rows.length === 0 && empty) {
    const td = el("td", empty);
    td.colSpan = titles.length;
    td.className = "empty";
    body.appendChild(el("tr")).appendChild(td);
  }
  return body;
}

async function ask(url) {
  const r = await fetch(url, { credentials: "same-origin" });
  if (r.status === 401) {
    window.location.assign("/login");
    return null;
  }
  const body = await r.json();
  if (!r.ok) {
    document.getElementById("message").textContent = body.error ? body.error.message : "the back office refused";
    return null;
  }
  return body;
}

function query() {
  const q = new URLSearchParams();
  for (const name of ["from", "to", "min", "max", "receipt", "store"]) {
    const v = document.getElementById(name).value.trim();
    if (v !== "") q.set(name, v);
  }
  // Amounts are typed as on a receipt ("16.50", "1650"): in the chosen currency's own
  // units, which the back office converts (never rounding) and searches that currency only.
  if (q.has("min") || q.has("max")) q.set("currency", document.getElementById("currency").value);
  return q;
}

async function search() {
  document.body.dataset.loaded = "false";
  document.getElementById("message").textContent = "";
  const body = await ask("/admin/audit/search?" + query().toString());
  const tbody = table("sales", ["Date", "Store", "Register", "Receipt no.", "Amount", "Prints", ""], body ? body.sales : [], "no sale matches");
  if (body) {
    for (const s of body.sales) {
      const tr = tbody.appendChild(el("tr"));
      const amount = money(s.total, s.currency) + (s.canceled ? " (canceled)" : "");
      [s.completed_local, s.store, s.register, s.receipt_no, amount, s.prints].forEach((v) => tr.appendChild(el("td", v)));
      const b = el("button", "Show");
      b.type = "button";
      b.className = "show-sale";
      b.dataset.id = s.id;
      b.addEventListener("click", () => show(s.id));
      tr.appendChild(el("td")).appendChild(b);
    }
    if (body.truncated) document.getElementById("message").textContent = "Only the first sales are shown: narrow the search.";
  }
  document.body.dataset.loaded = "true";
}

async function show(id) {
  document.body.dataset.shown = "false";
  document.getElementById("message").textContent = "";
  const d = await ask("/admin/audit/sales/" + encodeURIComponent(id));
  if (!d) {
    document.body.dataset.shown = "true";
    return;
  }
  document.getElementById("sale-section").hidden = false;
  const s = d.sale;
  document.getElementById("sale-head").textContent =
    "Receipt " + s.receipt_no + " — " + s.store + ", " + s.register + ", " + s.completed_local + ", " + money(s.total, s.currency) + (s.canceled ? " (canceled)" : "");
  const issued = d.issued;
  document.getElementById("receipt-text").textContent =
    issued === null ? "No receipt reached paper." : issued.text === null ? "The receipt's text was not kept." : issued.text;
  const pb = table("prints", ["Print", "Kind", "Outcome", "When", "By", "Audit row", "Text as recorded"], d.prints, "no print recorded");
  for (const p of d.prints) {
    const tr = pb.appendChild(el("tr"));
    const text = p.text_matches_chain === true ? "matches the chain" : p.text_matches_chain === false ? "DIFFERS from the chain" : "not compared";
    [p.print_no, p.reprint ? "reprint" : "original", p.outcome, p.printed_local, p.staff_name ?? "—", p.audit_seq, text].forEach((v) => tr.appendChild(el("td", v)));
  }
  const proof = d.proof;
  const verdicts = { verified: "VERIFIED", broken: "BROKEN", incomplete: "NOT YET PROVABLE", no_receipt: "NO RECEIPT" };
  const verdict = document.getElementById("verdict");
  verdict.textContent = verdicts[proof.verdict] + ": " + proof.message;
  verdict.dataset.verdict = proof.verdict;
  const bb = table("breaks", ["Break", "Row"], proof.breaks, null);
  for (const b of proof.breaks) {
    const tr = bb.appendChild(el("tr"));
    [b.message, b.seq ?? b.from ?? b.last].forEach((v) => tr.appendChild(el("td", v)));
  }
  const sb = table("steps", ["Row", "Action", "Subject", "Link (previous hash)", "Hash held", "Hash recomputed", "Step"], proof.steps, null);
  for (const st of proof.steps) {
    const tr = sb.appendChild(el("tr"));
    [st.seq, st.action, st.subject, st.prev_hash, st.hash, st.computed, st.ok ? "ok" : "FAILS"].forEach((v) => tr.appendChild(el("td", v)));
  }
  if (proof.steps_not_listed > 0) {
    const tr = sb.appendChild(el("tr"));
    const td = el("td", proof.steps_not_listed + " more steps checked, not listed");
    td.colSpan = 7;
    tr.appendChild(td);
  }
  if (proof.head) {
    const tr = sb.appendChild(el("tr"));
    const td = el("td", "confirmed head: row " + proof.head.seq + ", " + proof.head.hash);
    td.colSpan = 7;
    tr.appendChild(td);
  }
  document.body.dataset.shown = "true";
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
    const o = el("option", s.name + " (" + s.time_zone + ")");
    o.value = s.store_id;
    select.appendChild(o);
  }
  // The stores' own currencies come first; the first of them is chosen.
  const used = [...new Set(d.stores.map((x) => x.currency).filter((c) => c))];
  const codes = [...used, ...d.currencies.map((c) => c.code).filter((c) => !used.includes(c))];
  document.getElementById("currency").replaceChildren(...codes.map((c) => {
    const o = el("option", c.toUpperCase());
    o.value = c;
    return o;
  }));
  const today = new Date().toISOString().slice(0, 10);
  for (const id of ["from", "to"]) if (!document.getElementById(id).value) document.getElementById(id).value = today;
  document.getElementById("ask").addEventListener("submit", (e) => {
    e.preventDefault();
    search();
  });
  document.body.dataset.ready = "true";
}

start();
