// PayDesk back office publishing (record 0147): the catalog (with a CSV upload), the tax
// setup and the staff, each previewed before it is published. The publish sends exactly
// the body the preview saw, with the version the preview was computed against: a publish
// by someone else in between is refused (stale_preview) and nothing is written.
// Every value goes into the page as text (never as HTML). A PIN stays in this page's
// memory until it is published or the list of staff changes is cleared, and is never drawn.
"use strict";

let current = null; // the store's publishing state, as GET …/publishing answered
const pending = {}; // per section: the body previewed and its version
// The owner's staff changes not yet published, PINs included: this page's memory only.
let staffList = [];

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
  if (field === "ppm") return percent(v);
  if (typeof v === "boolean") return v ? "yes" : "no";
  return String(v);
}

// Rates travel in parts per million (8.875 % is 88,750); the owner reads and types
// percentages. Both ways are exact integer work on the digits, never floating point.
const PPM_PER_PERCENT = 10000;
const MAX_PPM = 1000000;

// The digits of a rate in percent, as the owner types them: 88,750 ppm is "8.875".
function percentDigits(ppm) {
  const whole = Math.floor(ppm / PPM_PER_PERCENT);
  const frac = String(ppm % PPM_PER_PERCENT).padStart(4, "0").replace(/0+$/, "");
  return whole + (frac ? "." + frac : "");
}

function percent(ppm) {
  return percentDigits(ppm) + " %";
}

// A typed percentage as ppm, or a sentence saying what is wrong with it.
function ppmOf(typed) {
  const m = /^(\d{1,3})(?:\.(\d{1,4}))?$/.exec(typed.trim().replace(/\s*%$/, ""));
  if (!m) return { error: "must be a percentage with at most four decimals, like 10 or 8.875 (got \"" + typed + "\")" };
  const ppm = Number(m[1]) * PPM_PER_PERCENT + Number((m[2] || "").padEnd(4, "0"));
  if (ppm > MAX_PPM) return { error: "must be at most 100 % (got " + typed.trim() + ")" };
  return { ppm };
}

const TAX_CLASSES = [["standard", "standard"], ["reduced", "reduced (food, taken out)"], ["exempt", "exempt"]];

function rateRow(r) {
  const tr = el("tr");
  tr.className = "rate";
  const cell = (child) => tr.appendChild(el("td")).appendChild(child);
  const cls = el("select");
  cls.className = "rate-class";
  cls.setAttribute("aria-label", "Class");
  for (const [v, text] of TAX_CLASSES) {
    const o = cls.appendChild(el("option", text));
    o.value = v;
  }
  cls.value = r.class;
  cell(cls);
  const input = (name, value, label, max) => {
    const i = el("input");
    i.className = "rate-" + name;
    i.value = value;
    i.maxLength = max;
    i.autocomplete = "off";
    i.setAttribute("aria-label", label);
    return cell(i);
  };
  input("name", r.name || "", "Name on the receipt", 40);
  input("percent", r.ppm === undefined ? "" : percentDigits(r.ppm), "Rate in percent", 12).inputMode = "decimal";
  input("from", r.effective_from || "", "From (YYYY-MM-DD)", 10).placeholder = "YYYY-MM-DD";
  const remove = cell(el("button", "Remove"));
  remove.type = "button";
  remove.className = "rate-remove";
  remove.addEventListener("click", () => {
    tr.remove();
    clearPreview("tax");
  });
  return tr;
}

function drawTaxForm(doc) {
  document.getElementById("tax-price-mode").value = doc.price_mode;
  document.getElementById("tax-rounding").value = doc.rounding;
  document.getElementById("tax-registration").value = doc.registration_number || "";
  table("tax-rates", ["Class", "Name", "Rate (%)", "From", ""], [], "");
  const body = document.querySelector("#tax-rates tbody");
  body.replaceChildren();
  for (const r of doc.rates) body.appendChild(rateRow(r));
}

// The form as the tax setup document the back office checks, or the first thing wrong
// with it (the back office checks everything again and names what it refuses).
function readTaxForm() {
  const rates = [];
  const rows = document.querySelectorAll("#tax-rates tr.rate");
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    const v = (c) => row.querySelector(".rate-" + c).value.trim();
    const p = ppmOf(v("percent"));
    if (p.error) return { error: "Rate " + (i + 1) + ": " + p.error + "." };
    const rate = { class: v("class"), name: v("name"), ppm: p.ppm };
    if (v("from") !== "") rate.effective_from = v("from");
    rates.push(rate);
  }
  if (rates.length === 0) return { error: "Add at least one rate." };
  const reg = document.getElementById("tax-registration").value.trim();
  return {
    tax: {
      price_mode: document.getElementById("tax-price-mode").value,
      rounding: document.getElementById("tax-rounding").value,
      registration_number: reg === "" ? null : reg,
      rates,
    },
  };
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
    for (const e of list) for (const f of e.fields) rows.push([e.key, f.field === "ppm" ? "rate" : f.field, shown(f.field, f.old), shown(f.field, f.new)]);
    t.id = section + "-preview-" + title.split(" ")[0].toLowerCase();
    box.appendChild(t);
    table(t.id, [{ catalog: "SKU", staff: "Name" }[section] || "Key", "Field", "Now", "After publishing"], rows, "");
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

// Also the section's message: a refusal or "Published" said about what the form held
// before stays on screen only until the form changes or is previewed again.
function clearPreview(section) {
  delete pending[section];
  document.getElementById(section + "-message").textContent = "";
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
  await load();
  message.textContent = "Published: version " + a.body.version + ".";
  document.body.dataset.published = section;
}

// The published staff, each with Change: it puts the member in the form to edit.
function drawStaff(staff) {
  table("staff", ["Name", "Role", "Active", "Version", ""], staff.map((m) => [m.name, m.role, m.active ? "yes" : "no", m.version, ""]), "nothing published yet");
  const rows = document.querySelectorAll("#staff tbody tr");
  staff.forEach((m, i) => {
    const b = rows[i].lastChild.appendChild(el("button", "Change"));
    b.type = "button";
    b.className = "secondary staff-change";
    b.addEventListener("click", () => {
      document.getElementById("staff-name").value = m.name;
      document.getElementById("staff-role").value = m.role;
      document.getElementById("staff-active").checked = m.active;
      document.getElementById("staff-pin").value = "";
      document.getElementById("staff-role").focus();
    });
  });
}

function staffLimit() {
  return current ? current.limits.staff_per_publish : 0;
}

function isPublished(name) {
  return current !== null && current.staff.some((m) => m.name === name);
}

// The list of changes as the owner sees it: a PIN only as "set" or "unchanged".
function drawStaffList() {
  table("staff-pending", ["Name", "What", "Role", "Active", "PIN", ""],
    staffList.map((m) => [m.name, isPublished(m.name) ? "change" : "new member", m.role, m.active ? "yes" : "no", m.pin === undefined ? "unchanged" : "set", ""]),
    "No changes yet: add a member above, or press Change beside one.");
  const rows = document.querySelectorAll("#staff-pending tbody tr");
  staffList.forEach((m, i) => {
    const b = rows[i].lastChild.appendChild(el("button", "Remove"));
    b.type = "button";
    b.className = "secondary staff-remove";
    b.addEventListener("click", () => {
      staffList.splice(i, 1);
      drawStaffList();
      clearPreview("staff");
    });
  });
  document.getElementById("staff-count").textContent = staffList.length + " of at most " + staffLimit() + " in one publish";
}

function clearStaffList() {
  staffList = [];
  document.getElementById("staff-pin").value = "";
  drawStaffList();
}

// The form as one change for the list, or what is wrong with it. The PIN's digits are
// named in no message. The back office checks everything again.
function readMember() {
  const name = document.getElementById("staff-name").value.trim();
  const pin = document.getElementById("staff-pin").value;
  if (staffList.length >= staffLimit()) return { error: "One publish takes at most " + staffLimit() + " changes. Publish these first, then add more." };
  if (name === "") return { error: "Type the member's name." };
  // One change per member: the back office refuses a name listed twice.
  if (staffList.some((m) => m.name === name)) return { error: name + " is already in the list. Remove that row first to change it again." };
  if (pin === "" && !isPublished(name)) return { error: name + " is new: give a PIN of 4 to 8 digits." };
  if (pin !== "" && !/^[0-9]{4,8}$/.test(pin)) return { error: "A PIN is 4 to 8 digits (0 to 9 only)." };
  const member = { name, role: document.getElementById("staff-role").value, active: document.getElementById("staff-active").checked };
  if (pin !== "") member.pin = pin;
  return { member };
}

function addMember() {
  const read = readMember();
  if (read.error) {
    document.getElementById("staff-message").textContent = read.error;
    return;
  }
  staffList.push(read.member);
  document.getElementById("staff-form").reset();
  drawStaffList();
  clearPreview("staff");
  document.getElementById("staff-name").focus();
}

async function previewStaff() {
  const message = document.getElementById("staff-message");
  if (staffList.length === 0) {
    clearPreview("staff");
    message.textContent = "The list is empty: add a change first.";
    return;
  }
  const names = new Set(staffList.map((m) => m.name));
  if (names.size !== staffList.length) {
    clearPreview("staff");
    message.textContent = "A member is in the list twice: remove one of the rows.";
    return;
  }
  // A copy: the body previewed is the body published, whatever happens to the list.
  await preview("staff", "/staff/preview", { staff: staffList.map((m) => Object.assign({}, m)) });
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
  drawStaff(s.staff);
  drawStaffList();
  table("own-staff", ["Register", "Name", "Role", "Active", "Saved"],
    s.own.staff.map((m) => [m.register, m.name, m.role, m.active ? "yes" : "no", when(m.updated_at_ms)]), "no register has sent staff of its own");
  table("own-tax", ["Register", "Price mode", "Rounding", "Registration number", "Rates", "Saved"],
    s.own.tax.map((t) => [t.register, t.price_mode, t.rounding, t.registration_number ?? "", rateList(t.rates), when(t.updated_at_ms)]),
    "no register has sent a tax setup of its own");
  const doc = s.tax ? s.tax.tax : { price_mode: "inclusive", rounding: "down", registration_number: null, rates: [
    { class: "standard", ppm: 100000 }, { class: "reduced", ppm: 80000 }, { class: "exempt", ppm: 0 }] };
  drawTaxForm(doc);
}

// A register's own rate rows as one line: "standard 10 %, reduced 8 %".
function rateList(rates) {
  return (rates || []).map((r) => [r.class, r.name, percent(r.ppm !== undefined ? r.ppm : (r.basis_points || 0) * 100),
    r.effective_from ? "from " + r.effective_from : ""].filter((x) => x).join(" ")).join(", ");
}

async function load() {
  document.body.dataset.loaded = "false";
  for (const s of ["catalog", "tax", "staff"]) clearPreview(s);
  // The list is one store's, and is done with once published: its PINs are forgotten.
  clearStaffList();
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
    const read = readTaxForm();
    if (read.error) {
      clearPreview("tax");
      document.getElementById("tax-message").textContent = read.error;
      return;
    }
    const tax = read.tax;
    await preview("tax", "/tax/preview", { tax });
  });
  document.getElementById("tax-add-rate").addEventListener("click", () => {
    document.querySelector("#tax-rates tbody").appendChild(rateRow({ class: "standard", name: "" }));
    clearPreview("tax");
  });
  document.getElementById("tax-form").addEventListener("input", () => clearPreview("tax"));
  document.getElementById("staff-form").addEventListener("submit", (e) => {
    e.preventDefault();
    addMember();
  });
  document.getElementById("staff-preview-button").addEventListener("click", previewStaff);
  document.getElementById("staff-clear").addEventListener("click", () => {
    clearStaffList();
    clearPreview("staff");
  });
  for (const s of ["catalog", "tax", "staff"]) document.getElementById(s + "-publish").addEventListener("click", () => publish(s));
  if (select.value) await load();
  document.body.dataset.ready = "true";
}

start();
