// PayDesk back office publishing (record 0147): the catalog (with a CSV upload), the tax
// setup and the staff, each previewed before it is published. The publish sends exactly
// the body the preview saw, with the version the preview was computed against: a publish
// by someone else in between is refused (stale_preview) and nothing is written.
// Every value goes into the page as text (never as HTML). A PIN stays in this page's
// memory until it is published, and is never drawn.
"use strict";

let current = null; // the store's publishing state, as GET …/publishing answered
const pending = {}; // per section: the body previewed and its version

function el(tag, text) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}

function table(id, heads, rows, empty) {
  const t = document.getElementById(id);
  t.replaceChildren();
  const head = el("tr");
  heads.forEach((h) => head.appendChild(el("th", h)));
  t.appendChild(el("thead")).appendChild(head);
  const body = t.appendChild(el("tbody"));
  if (rows.length === 0) {
    const td = el("td", empty);
    td.colSpan = heads.length;
    td.className = "empty";
    body.appendChild(el("tr")).appendChild(td);
  }
  for (const r of rows) {
    const tr = body.appendChild(el("tr"));
    r.forEach((v) => tr.appendChild(el("td", v)));
  }
}

function when(ms) {
  return new Date(ms).toISOString().replace("T", " ").slice(0, 16) + " UTC";
}

function storeId() {
  return document.getElementById("store").value;
}

async function call(method, path, body) {
  const init = { method, credentials: "same-origin", headers: {} };
  if (body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const r = await fetch(path, init);
  if (r.status === 401) {
    window.location.assign("/login");
    throw new Error("signed out");
  }
  const answer = await r.json();
  return { ok: r.ok, status: r.status, body: answer };
}

function refusal(a) {
  const e = a.body && a.body.error;
  return e ? e.message : "the back office refused (" + a.status + ")";
}

function price(v) {
  return typeof v === "number" && current && current.currency ? money(v, current.currency) : v;
}

function shown(field, v) {
  if (v === null || v === undefined) return "—";
  if (field === "price") return price(v);
  return String(v);
}

// What the back office knows a register has applied of this section (never guessed).
function applied(a, kind) {
  switch (a.state) {
    case "through":
      return "has applied every change up to version " + a.through + " (asked " + when(a.asked_ms) + ")";
    case "does_not_take":
      return "does not take " + kind + " changes (asked " + when(a.asked_ms) + ")";
    case "not_asked":
      return "has not asked for changes since the back office began recording it";
    default:
      return "unknown";
  }
}

function drawPreview(section, p) {
  const box = document.getElementById(section + "-preview");
  box.replaceChildren();
  const retired = section === "tax" ? "removed" : "retired";
  box.appendChild(
    el("p", p.added.length + " added, " + p.changed.length + " changed, " + p.removed.length + " " + retired + ", " + p.unchanged + " unchanged" +
      " — computed against version " + p.based_on + "; publishing takes " + p.versions + " version" + (p.versions === 1 ? "" : "s") + ".")
  ).className = "summary";
  for (const [title, list] of [["Added", p.added], ["Changed", p.changed], [section === "tax" ? "Removed" : "Retired (active → not active)", p.removed]]) {
    if (list.length === 0) continue;
    box.appendChild(el("h3", title));
    const t = box.appendChild(el("table"));
    t.className = "preview-" + title.split(" ")[0].toLowerCase();
    const rows = [];
    for (const e of list) for (const f of e.fields) rows.push([e.key, f.field, shown(f.field, f.old), shown(f.field, f.new)]);
    t.id = section + "-preview-" + title.split(" ")[0].toLowerCase();
    box.appendChild(t);
    table(t.id, ["Key", "Field", "Now", "After publishing"], rows, "");
  }
  box.appendChild(el("h3", "At which registers"));
  const regs = box.appendChild(el("table"));
  regs.id = section + "-preview-registers";
  const kind = { catalog: "item", tax: "tax", staff: "staff" }[section];
  table(regs.id, ["Register", "What the back office knows", "This publish"],
    p.registers.map((r) => [r.name, applied(r.applied, kind), r.applied.state === "does_not_take" ? "not received until it takes " + kind : "received at its next sync"]),
    "no register is paired to this store");
  document.getElementById(section + "-publish").hidden = p.versions === 0;
  box.dataset.ready = "true";
}

function clearPreview(section) {
  delete pending[section];
  const box = document.getElementById(section + "-preview");
  box.replaceChildren();
  box.dataset.ready = "false";
  document.getElementById(section + "-publish").hidden = true;
}

async function preview(section, path, body) {
  const message = document.getElementById(section + "-message");
  clearPreview(section);
  const a = await call("POST", "/admin/stores/" + storeId() + path, body);
  if (!a.ok) {
    message.textContent = refusal(a);
    return;
  }
  message.textContent = "";
  pending[section] = { body, based_on: a.body.based_on };
  drawPreview(section, a.body);
}

// Publishes exactly what was previewed; the answer's version goes into the message.
async function publish(section) {
  const p = pending[section];
  if (!p) return;
  const message = document.getElementById(section + "-message");
  const body = Object.assign({}, p.body, { preview_version: p.based_on });
  if (section === "tax") body.expected_version = p.based_on;
  const a = await call("PUT", "/admin/stores/" + storeId() + "/" + section, body);
  clearPreview(section);
  if (!a.ok) {
    message.textContent = refusal(a);
    return;
  }
  if (section === "staff") document.getElementById("staff-pin").value = "";
  await load();
  message.textContent = "Published: version " + a.body.version + ".";
  document.body.dataset.published = section;
}

function draw(s) {
  document.getElementById("version").textContent = "published version " + s.version;
  const more = s.catalog.count - s.catalog.items.length;
  table("catalog", ["SKU", "Name", "Price", "Tax class", "Category", "Active", "Version"],
    s.catalog.items.map((r) => [r.item.sku, r.item.name_en, money(r.item.price, r.item.currency), r.item.tax_class, r.item.category ?? "", r.item.active ? "yes" : "no", r.version]),
    "nothing published yet");
  document.getElementById("catalog-more").textContent = more > 0 ? "and " + more + " more items (the first " + s.catalog.items.length + " by SKU are shown)" : "";
  table("own-items", ["Register", "SKU", "Name", "Price", "Tax class", "Active", "Saved"],
    s.own.items.map((r) => [r.register, r.sku, r.name_en, money(r.price, r.currency), r.tax_class, r.active ? "yes" : "no", when(r.updated_at_ms)]),
    "no register has sent items of its own");
  table("staff", ["Name", "Role", "Active", "Version"], s.staff.map((m) => [m.name, m.role, m.active ? "yes" : "no", m.version]), "nothing published yet");
  table("own-staff", ["Register", "Name", "Role", "Active", "Saved"],
    s.own.staff.map((m) => [m.register, m.name, m.role, m.active ? "yes" : "no", when(m.updated_at_ms)]), "no register has sent staff of its own");
  table("own-tax", ["Register", "Price mode", "Rounding", "Registration number", "Rates", "Saved"],
    s.own.tax.map((t) => [t.register, t.price_mode, t.rounding, t.registration_number ?? "", JSON.stringify(t.rates), when(t.updated_at_ms)]),
    "no register has sent a tax setup of its own");
  const doc = s.tax ? s.tax.tax : { price_mode: "inclusive", rounding: "down", registration_number: null, rates: [
    { class: "standard", ppm: 100000 }, { class: "reduced", ppm: 80000 }, { class: "exempt", ppm: 0 }] };
  document.getElementById("tax-doc").value = JSON.stringify(doc, null, 2);
}

async function load() {
  document.body.dataset.loaded = "false";
  for (const s of ["catalog", "tax", "staff"]) clearPreview(s);
  const a = await call("GET", "/admin/stores/" + storeId() + "/publishing");
  if (!a.ok) {
    document.getElementById("catalog-message").textContent = refusal(a);
    return;
  }
  current = a.body;
  draw(current);
  document.body.dataset.loaded = "true";
}

async function start() {
  const a = await call("GET", "/admin/publish/stores");
  learnCurrencies(a.body.currencies);
  const select = document.getElementById("store");
  for (const s of a.body.stores) {
    const o = el("option", s.name);
    o.value = s.store_id;
    select.appendChild(o);
  }
  select.addEventListener("change", load);
  document.getElementById("catalog-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const message = document.getElementById("catalog-message");
    const file = document.getElementById("csv-file").files[0];
    clearPreview("catalog");
    if (!file) {
      message.textContent = "Choose a CSV file first.";
      return;
    }
    const read = await call("POST", "/admin/stores/" + storeId() + "/catalog/csv", { csv: await file.text() });
    if (!read.ok) {
      message.textContent = refusal(read);
      return;
    }
    await preview("catalog", "/catalog/preview", { items: read.body.items });
  });
  document.getElementById("tax-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    let tax;
    try {
      tax = JSON.parse(document.getElementById("tax-doc").value);
    } catch (err) {
      clearPreview("tax");
      document.getElementById("tax-message").textContent = "The tax setup is not a JSON document: " + err.message;
      return;
    }
    await preview("tax", "/tax/preview", { tax });
  });
  document.getElementById("staff-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const member = {
      name: document.getElementById("staff-name").value,
      role: document.getElementById("staff-role").value,
      active: document.getElementById("staff-active").checked,
    };
    const pin = document.getElementById("staff-pin").value;
    if (pin !== "") member.pin = pin;
    await preview("staff", "/staff/preview", { staff: [member] });
  });
  for (const s of ["catalog", "tax", "staff"]) document.getElementById(s + "-publish").addEventListener("click", () => publish(s));
  if (select.value) await load();
  document.body.dataset.ready = "true";
}

start();
