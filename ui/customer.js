// The customer display (record 0132). Reads its view once when it loads, then redraws on
// each `customer-view` event the register sends when the sale on screen changes. It may
// call nothing but customer_view (capabilities/customer.json); every figure and word
// arrives formatted, in the display's language: nothing is computed here.

const T = window.__TAURI__;
const $ = (id) => document.getElementById(id);

function cell(tag, text, cls) {
  const c = document.createElement(tag);
  c.textContent = text;
  if (cls) c.className = cls;
  return c;
}

function pair(dl, term, value, cls) {
  const row = document.createElement('div');
  if (cls) row.className = cls;
  row.append(cell('dt', term), cell('dd', value));
  dl.append(row);
}

function draw(v) {
  const w = v.words;
  document.documentElement.lang = w.lang;
  document.title = w.title;
  $('display').dataset.phase = v.phase;
  const welcome = v.phase === 'welcome';
  $('welcome').hidden = !welcome;
  $('sale').hidden = welcome;
  $('store-name').textContent = v.store_name;
  $('welcome-title').textContent = w.welcome;
  $('welcome-line').textContent = w.welcome_line;
  $('h-item').textContent = w.item;
  $('h-qty').textContent = w.qty;
  $('h-amount').textContent = w.amount;

  $('lines').replaceChildren(...v.lines.map((l) => {
    const tr = document.createElement('tr');
    const name = cell('td', '', 'name');
    if (l.mark) name.append(cell('span', l.mark, 'mark'));
    name.append(l.name);
    tr.append(name, cell('td', String(l.quantity), 'num'), cell('td', l.amount_display, 'num'));
    return tr;
  }));
  // the newest line in view on a long sale
  $('lines').lastElementChild?.scrollIntoView({ block: 'nearest' });
  $('legend').hidden = !v.legend;
  $('legend').textContent = v.legend || '';

  const rates = $('rates');
  rates.replaceChildren();
  const [open, close] = w.lang === 'ja' ? ['（', '）'] : [' (', ')'];
  for (const r of v.rates) pair(rates, r.label, `${r.gross_display}${open}${r.tax_label}${close}`);

  const totals = $('totals');
  totals.replaceChildren();
  if (v.sale_discount_display) pair(totals, w.discount, v.sale_discount_display);
  pair(totals, w.total, v.total_display, 'total');
  for (const t of v.tenders) pair(totals, t.note ? `${t.label} · ${t.note}` : t.label, t.amount_display, 'tender');
  if (v.due_display) pair(totals, w.due, v.due_display, 'due');
  if (v.change_display) pair(totals, w.change, v.change_display, 'change');

  $('message').hidden = !v.message;
  $('message').textContent = v.message || '';
}

T.event.listen('customer-view', (e) => draw(e.payload));
T.core.invoke('customer_view').then(draw).catch((e) => {
  // nothing to show yet (the register still starting): the next change draws the view
  console.error('customer_view', e);
});
