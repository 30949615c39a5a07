//! `paydesk-cli catalog …` and `paydesk-cli store …` (record 0059): the
//! store's catalog and settings. JSON out, one object (or one per line for lists).
//!
//! ```text
//! catalog import FILE      all or nothing; exit 1 with {"error":{"code":"invalid_csv","problems":[{line,field,message}…]}}
//! catalog export           the catalog as CSV on stdout (what import reads)
//! catalog list [--category KEY]  one JSON object per item (only those in category KEY)
//! catalog search QUERY [--category KEY] [--limit N] [--json]
//!                          active items matching QUERY, best first (record 0133): a line each,
//!                          or one JSON object each {"item":…,"category":…,"matched":…};
//!                          exit 1 with invalid_query for an empty, long or control query
//! catalog categories       one JSON object per category, in tab order
//! catalog scan CODE        what a scan of CODE rings up (by the store's label rules): {"sku":…} or exit 1 with unknown_item /
//!                          {"sku","grams"} for a weight label to ring with `cart add --grams` (record 0134),
//!                          or {"sku","label_price","catalog_price"} for a
//!                          price label to ring with `cart add-label` (the app's scan path, records 0115, 0126)
//! store show | store seed --locale en-US|ja-JP
//! store set [--name N] [--address A] [--phone P] [--locale L] [--currency C] [--prices inclusive|exclusive]
//!           [--registration-number T…|--no-registration-number] [--rounding down|half_up|up] [--header H] [--footer F]
//!           [--time-zone Area/City]   ("" = the locale's own zone; receipts, End of day and Z use it)
//! store rules | label-rules set|reset | open-price-limit | tax-exemptions   (counter_rules.rs, record 0136)
//! ```

use std::io::Read as _;

use clap::Subcommand;
use paydesk_tax::{PriceMode, Rounding};
use paydesk_ledger::{DemoLocale, Error};
use paydesk_domain::Locale;
use paydesk_register::usecases::Scanned;
use paydesk_register::Engine;
use serde_json::json;

use crate::outcome::fail;

#[derive(Subcommand, Debug)]
pub(crate) enum CatalogCmd {
    /// Import a CSV file (sku,barcode,name_en,name_ja,price_minor,tax_class,active[,category]).
    Import { file: std::path::PathBuf },
    /// The catalog as CSV on stdout.
    Export,
    /// One JSON object per item.
    List {
        /// Only the items in this category (its key).
        #[arg(long)]
        category: Option<String>,
    },
    /// Active items matching QUERY (SKU, barcode digits, names; any case, width or kana).
    Search {
        query: String,
        /// Only the items in this category (its key).
        #[arg(long)]
        category: Option<String>,
        /// At most this many (1..=50).
        #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u16).range(1..=50))]
        limit: u16,
        /// One JSON object per item instead of a line.
        #[arg(long)]
        json: bool,
    },
    /// The store's categories, one JSON object each, in tab order.
    Categories,
    /// What a scan of CODE (a barcode, an in-store label or a SKU) rings up.
    Scan { code: String },
}

#[derive(Subcommand, Debug)]
pub(crate) enum StoreCmd {
    /// The store's settings.
    Show,
    /// Change some settings (validated; audited).
    Set(Box<StoreSetArgs>),
    /// Write the demo store (settings and its 14 items) for a locale.
    Seed {
        #[arg(long)]
        locale: String,
    },
    /// The counter rules: label rules, open-price limit, tax exemptions (record 0136).
    Rules,
    /// The store's in-store label rules (GS1 prefixes 02, 20 to 29).
    #[command(name = "label-rules")]
    LabelRules {
        #[command(subcommand)]
        cmd: crate::counter_rules::LabelRulesCmd,
    },
    /// Above this typed price a manager must approve, in the store's currency.
    #[command(name = "open-price-limit")]
    OpenPriceLimit {
        #[arg(allow_hyphen_values = true)]
        amount: String,
    },
    /// Whether the store takes tax-exempt sales: on, off or default (the locale's).
    #[command(name = "tax-exemptions")]
    TaxExemptions { setting: String },
}

/// `store set`: only the settings given change.
#[derive(clap::Args, Debug)]
pub(crate) struct StoreSetArgs {
    #[arg(long)]
    name: Option<String>,
    #[arg(long)]
    address: Option<String>,
    #[arg(long)]
    phone: Option<String>,
    #[arg(long)]
    locale: Option<String>,
    #[arg(long)]
    currency: Option<String>,
    /// inclusive | exclusive
    #[arg(long)]
    prices: Option<String>,
    #[arg(long = "registration-number")]
    registration_number: Option<String>,
    #[arg(long = "no-registration-number", conflicts_with = "registration_number")]
    no_registration_number: bool,
    /// down | half_up | up
    #[arg(long)]
    rounding: Option<String>,
    #[arg(long)]
    header: Option<String>,
    #[arg(long)]
    footer: Option<String>,
    /// An IANA zone name such as Asia/Tokyo; "" for the locale's own zone.
    #[arg(long = "time-zone")]
    time_zone: Option<String>,
}

fn ledger_fail(e: &Error) -> ! {
    let code = match e {
        Error::InvalidInput(_) | Error::InvalidItem { .. } => "invalid_input",
        _ => "ledger",
    };
    fail(code, &e.to_string())
}

fn print(v: &impl serde::Serialize) {
    out!("{}", serde_json::to_string(v).unwrap_or_default());
}

pub(crate) fn catalog(engine: &Engine, cmd: &CatalogCmd) -> i32 {
    match cmd {
        CatalogCmd::Import { file } => {
            let limit = paydesk_ledger::ledger::catalog::MAX_CSV_BYTES;
            let f = std::fs::File::open(file)
                .unwrap_or_else(|e| fail("invalid_input", &format!("cannot read {}: {e}", file.display())));
            let mut bytes = Vec::new();
            // One byte over the limit is enough to refuse the file without reading it all.
            if let Err(e) = f.take(limit as u64 + 1).read_to_end(&mut bytes) {
                fail("invalid_input", &format!("cannot read {}: {e}", file.display()));
            }
            match engine.catalog().import_csv(&bytes, None) {
                Ok(Ok(report)) => {
                    print(&report);
                    0
                }
                Ok(Err(problems)) => {
                    let message = format!("{} problem(s) in {}; nothing was imported", problems.len(), file.display());
                    out!("{}", json!({"error": {"code": "invalid_csv", "message": message, "problems": problems}}));
                    for p in &problems {
                        eprintln!("paydesk-cli: line {} field {}: {}", p.line, p.field, p.message);
                    }
                    1
                }
                Err(e) => ledger_fail(&e),
            }
        }
        CatalogCmd::Export => match engine.catalog().export_csv() {
            Ok(csv) => {
                out!("{}", csv.trim_end_matches('\n'));
                0
            }
            Err(e) => ledger_fail(&e),
        },
        CatalogCmd::Scan { code } => scan(engine, code),
        CatalogCmd::List { category } => list(engine, category.as_deref()),
        CatalogCmd::Search { query, category, limit, json } => search(engine, query, category.as_deref(), usize::from(*limit), *json),
        CatalogCmd::Categories => match engine.catalog().categories() {
            Ok((categories, _)) => {
                for c in categories {
                    print(&c);
                }
                0
            }
            Err(e) => ledger_fail(&e),
        },
    }
}

/// Every item, or only those in `category` (an unknown key is refused by name).
fn list(engine: &Engine, category: Option<&str>) -> i32 {
    let listed = engine.catalog().list().and_then(|items| Ok((items, engine.catalog().categories()?)));
    let (items, (categories, in_category)) = listed.unwrap_or_else(|e| ledger_fail(&e));
    if let Some(k) = category {
        if !categories.iter().any(|c| c.key == k) {
            fail("invalid_input", &format!("there is no category {k:?}"));
        }
    }
    let wanted: std::collections::HashSet<&str> =
        in_category.iter().filter(|(_, c)| Some(c.as_str()) == category).map(|(sku, _)| sku.as_str()).collect();
    for i in items.iter().filter(|i| category.is_none() || wanted.contains(i.sku.as_str())) {
        print(i);
    }
    0
}

/// `catalog search`: the app's search (record 0133).
fn search(engine: &Engine, query: &str, category: Option<&str>, limit: usize, json: bool) -> i32 {
    let q = paydesk_ledger::SearchQuery::parse(query).unwrap_or_else(|p| fail("invalid_query", &p.to_string()));
    match engine.catalog().search(&q, category, limit) {
        Ok(found) => {
            for f in &found {
                if json {
                    print(f);
                } else {
                    let ja = f.item.name_ja.as_deref().map(|n| format!(" / {n}")).unwrap_or_default();
                    out!("{}\t{}{ja}\t{}\t{:?}", f.item.sku, f.item.name_en, f.category.as_deref().unwrap_or("-"), f.matched);
                }
            }
            0
        }
        Err(e) => ledger_fail(&e),
    }
}

/// The app's scan path under the store's in-store label rules (records 0115, 0136).
fn scan(engine: &Engine, code: &str) -> i32 {
    if code.chars().count() > 64 {
        fail("invalid_input", "a scanned code has at most 64 characters");
    }
    let rules = engine.counter_rules().label_rules().unwrap_or_else(|e| ledger_fail(&e));
    match engine.catalog().scan(code, &rules) {
        Ok(Scanned::Item { sku }) => {
            print(&json!({"sku": sku}));
            0
        }
        Ok(Scanned::Unknown) => fail("unknown_item", &format!("no active item has the code {code:?}")),
        Ok(Scanned::Label { sku, label_minor, catalog_minor }) => {
            // Rung with `cart add-label` at the printed price (record 0126).
            print(&json!({"sku": sku, "label_price": label_minor, "catalog_price": catalog_minor}));
            0
        }
        Ok(Scanned::WeightLabel { sku, grams }) => {
            // Rung with `cart add --grams` at the item's price per unit (record 0134).
            print(&json!({"sku": sku, "grams": grams}));
            0
        }
        Err(e) => ledger_fail(&e),
    }
}

fn parse_locale(s: &str) -> Locale {
    paydesk_ledger::parse_locale(s).unwrap_or_else(|e| fail("invalid_input", &e.to_string()))
}

pub(crate) fn store(engine: &Engine, cmd: &StoreCmd) -> i32 {
    let settings = match cmd {
        StoreCmd::Rules => return crate::counter_rules::show(engine),
        StoreCmd::LabelRules { cmd } => return crate::counter_rules::label_rules(engine, cmd),
        StoreCmd::OpenPriceLimit { amount } => return crate::counter_rules::open_price_limit(engine, amount),
        StoreCmd::TaxExemptions { setting } => return crate::counter_rules::tax_exemptions(engine, setting),
        StoreCmd::Show => engine.store().settings(),
        StoreCmd::Seed { locale } => {
            let demo = match parse_locale(locale) {
                Locale::En => DemoLocale::EnUs,
                Locale::Ja => DemoLocale::JaJp,
            };
            engine.store().seed_demo(demo, None)
        }
        StoreCmd::Set(set) => {
            let StoreSetArgs {
                name,
                address,
                phone,
                locale,
                currency,
                prices,
                registration_number,
                no_registration_number,
                rounding,
                header,
                footer,
                time_zone,
            } = set.as_ref();
            let locale = locale.as_deref().map(parse_locale);
            let currency = currency.as_deref().map(|c| {
                c.parse().unwrap_or_else(|_| fail("invalid_input", &format!("unknown currency {c:?}")))
            });
            let prices = prices.as_deref().map(|p| match p {
                "inclusive" => PriceMode::Inclusive,
                "exclusive" => PriceMode::Exclusive,
                other => fail("invalid_input", &format!("--prices {other:?}: inclusive or exclusive")),
            });
            let rounding = rounding.as_deref().map(|r| match r {
                "down" => Rounding::Down,
                "half_up" => Rounding::HalfUp,
                "up" => Rounding::Up,
                other => fail("invalid_input", &format!("--rounding {other:?}: down, half_up or up")),
            });
            engine.store().update(None, |stored| {
                let mut s = stored.clone();
                s.name = name.clone().unwrap_or(s.name);
                s.address = address.clone().unwrap_or(s.address);
                s.phone = phone.clone().unwrap_or(s.phone);
                s.locale = locale.unwrap_or(s.locale);
                s.currency = currency.unwrap_or(s.currency);
                s.price_mode = prices.unwrap_or(s.price_mode);
                s.rounding = rounding.unwrap_or(s.rounding);
                s.receipt_header = header.clone().unwrap_or(s.receipt_header);
                s.receipt_footer = footer.clone().unwrap_or(s.receipt_footer);
                // Checked by the ledger (a zone its database knows, or "").
                s.time_zone = time_zone.clone().unwrap_or(s.time_zone);
                if *no_registration_number {
                    s.registration_number = None;
                } else if let Some(r) = registration_number {
                    s.registration_number = Some(r.clone());
                }
                *stored = s;
            })
        }
    };
    match settings {
        Ok(s) => {
            print(&s);
            0
        }
        Err(e) => ledger_fail(&e),
    }
}
