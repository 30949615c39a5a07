//! Schema migration 6, frozen history: never edited once shipped (a new migration
//! is appended to `MIGRATIONS` in `schema/mod.rs` instead).

/// v6 (record 0059): the store's catalog (barcode, names per language, tax
/// class, active flag), its settings (one row), tax rates as data, a sale's dining and
/// discounts, its tax figures locked at the first tender, and every receipt printed.
/// Rows from before keep their totals: old products and lines are 'exempt', old carts
/// have no discount, and exempt-only carts without a discount are totalled as before.
pub(crate) const V6_STORE: &str = r#"
ALTER TABLE products ADD COLUMN barcode TEXT
    CHECK (barcode IS NULL OR (length(barcode) = 13 AND barcode NOT GLOB '*[^0-9]*'));
ALTER TABLE products ADD COLUMN tax_class TEXT NOT NULL DEFAULT 'exempt'
    CHECK (tax_class IN ('standard','reduced','exempt'));
ALTER TABLE products ADD COLUMN active INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0,1));
CREATE UNIQUE INDEX products_barcode ON products(barcode) WHERE barcode IS NOT NULL;

-- The name a receipt or screen shows in a language; products.name stays the fallback.
CREATE TABLE product_names (
    product_id INTEGER NOT NULL REFERENCES products(id),
    lang       TEXT NOT NULL CHECK (lang IN ('en','ja')),
    name       TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 120),
    PRIMARY KEY (product_id, lang)
) STRICT;

-- Exactly one row (id = 1). Defaults are those of a store upgraded from before v6.
CREATE TABLE store_settings (
    id                  INTEGER PRIMARY KEY CHECK (id = 1),
    name                TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 120),
    address             TEXT NOT NULL DEFAULT '' CHECK (length(address) <= 300),
    phone               TEXT NOT NULL DEFAULT '' CHECK (length(phone) <= 40),
    currency            TEXT NOT NULL CHECK (currency IN ('jpy','usd','eur','gbp','krw')),
    locale              TEXT NOT NULL CHECK (locale IN ('en-US','ja-JP')),
    price_mode          TEXT NOT NULL CHECK (price_mode IN ('inclusive','exclusive')),
    registration_number TEXT CHECK (registration_number IS NULL OR length(registration_number) = 14),
    rounding            TEXT NOT NULL CHECK (rounding IN ('down','half_up','up')),
    receipt_header      TEXT NOT NULL DEFAULT '' CHECK (length(receipt_header) <= 500),
    receipt_footer      TEXT NOT NULL DEFAULT '' CHECK (length(receipt_footer) <= 500),
    updated_at_ms       INTEGER NOT NULL
) STRICT;
INSERT INTO store_settings (id, name, currency, locale, price_mode, rounding, updated_at_ms)
VALUES (1, 'PayDesk', 'usd', 'en-US', 'inclusive', 'down', 0);

-- Rates are data: a change of law is a new row with its first day.
CREATE TABLE tax_rates (
    id             INTEGER PRIMARY KEY,
    class          TEXT NOT NULL CHECK (class IN ('standard','reduced','exempt')),
    basis_points   INTEGER NOT NULL CHECK (basis_points BETWEEN 0 AND 10000),
    effective_from TEXT CHECK (effective_from IS NULL OR effective_from GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
    UNIQUE (class, effective_from),
    CHECK (class <> 'exempt' OR basis_points = 0)
) STRICT;
INSERT INTO tax_rates (class, basis_points, effective_from) VALUES
    ('standard', 1000, '2019-10-01'), ('reduced', 800, '2019-10-01'), ('exempt', 0, NULL);

ALTER TABLE carts ADD COLUMN dining TEXT NOT NULL DEFAULT 'take_out' CHECK (dining IN ('eat_in','take_out'));
ALTER TABLE carts ADD COLUMN discount_kind TEXT CHECK (discount_kind IS NULL OR discount_kind IN ('percent','amount'));
ALTER TABLE carts ADD COLUMN discount_value INTEGER CHECK (discount_value IS NULL OR discount_value >= 0);
-- The sale's tax as computed when its first tender was taken (JSON of paydesk_tax's
-- SaleTax with the settings used): from then on the sale's total is this, whatever
-- later happens to prices, rates or settings.
ALTER TABLE carts ADD COLUMN tax_locked TEXT CHECK (tax_locked IS NULL OR json_valid(tax_locked));

-- The class is captured with the price when the line is added.
ALTER TABLE cart_lines ADD COLUMN tax_class TEXT NOT NULL DEFAULT 'exempt'
    CHECK (tax_class IN ('standard','reduced','exempt'));
ALTER TABLE cart_lines ADD COLUMN discount_kind TEXT CHECK (discount_kind IS NULL OR discount_kind IN ('percent','amount'));
ALTER TABLE cart_lines ADD COLUMN discount_value INTEGER CHECK (discount_value IS NULL OR discount_value >= 0);

-- Each print of a sale's receipt. print_no 1 is the original; every later one
-- (including a retry after a failure: paper may have come out) is a reprint.
CREATE TABLE receipt_prints (
    id         INTEGER PRIMARY KEY,
    cart_id    INTEGER NOT NULL REFERENCES carts(id),
    print_no   INTEGER NOT NULL CHECK (print_no BETWEEN 1 AND 10000),
    reprint    INTEGER NOT NULL CHECK (reprint IN (0,1)),
    format     TEXT NOT NULL CHECK (format IN ('text','html','escpos')),
    target     TEXT NOT NULL CHECK (length(target) BETWEEN 1 AND 300),
    outcome    TEXT NOT NULL CHECK (outcome IN ('printed','failed','rendered')),
    error      TEXT CHECK (error IS NULL OR length(error) <= 1000),
    at_ms      INTEGER NOT NULL,
    UNIQUE (cart_id, print_no),
    CHECK ((print_no = 1) = (reprint = 0))
) STRICT;
"#;
