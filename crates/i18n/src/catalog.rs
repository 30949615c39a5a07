//! The compiled-in catalogs: one Fluent bundle per language, built once, plus each
//! message's pattern text for the UI (record 0070).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource};
use fluent_syntax::ast::{Entry, Expression, InlineExpression, Pattern, PatternElement};

use paydesk_domain::Locale;

include!(concat!(env!("OUT_DIR"), "/catalog_files.rs"));

/// A message's text for the UI: literal text and `{$name}` placeables, which the UI
/// fills from its arguments.
pub type UiPattern = String;

struct Catalog {
    bundle: FluentBundle<FluentResource>,
    /// Every message id with its area (the file it is in).
    ids: BTreeMap<String, String>,
    /// Messages the UI can fill itself (text and variables only).
    ui: BTreeMap<String, UiPattern>,
    /// What did not parse or clashed, as "area: error" (empty when the catalogs are sound).
    errors: Vec<String>,
}

fn files(locale: Locale) -> &'static [(&'static str, &'static str)] {
    match locale {
        Locale::En => FILES_EN,
        Locale::Ja => FILES_JA,
    }
}

fn catalog(locale: Locale) -> &'static Catalog {
    static EN: OnceLock<Catalog> = OnceLock::new();
    static JA: OnceLock<Catalog> = OnceLock::new();
    let cell = match locale {
        Locale::En => &EN,
        Locale::Ja => &JA,
    };
    cell.get_or_init(|| build(locale))
}

fn build(locale: Locale) -> Catalog {
    let lang = locale.tag().parse().expect("a valid language tag");
    let mut bundle = FluentBundle::new_concurrent(vec![lang]);
    // Isolation marks around placeables would end up on receipts and in tests' text.
    bundle.set_use_isolating(false);
    let mut cat = Catalog { bundle, ids: BTreeMap::new(), ui: BTreeMap::new(), errors: Vec::new() };
    for (area, source) in files(locale) {
        let res = match FluentResource::try_new((*source).to_string()) {
            Ok(r) => r,
            Err((r, errs)) => {
                for e in errs {
                    cat.errors.push(format!("{}/{area}.ftl: {e:?}", locale.code()));
                }
                r
            }
        };
        for entry in res.entries() {
            if let Entry::Message(m) = entry {
                let id = m.id.name.to_string();
                if let Some(first) = cat.ids.insert(id.clone(), area.to_string()) {
                    cat.errors.push(format!("{}: message {id} is in both {first}.ftl and {area}.ftl", locale.code()));
                }
                if let Some(p) = m.value.as_ref().and_then(ui_pattern) {
                    cat.ui.insert(id, p);
                }
            }
        }
        if let Err(errs) = cat.bundle.add_resource(res) {
            for e in errs {
                cat.errors.push(format!("{}/{area}.ftl: {e:?}", locale.code()));
            }
        }
    }
    cat
}

/// The pattern as the UI fills it, or `None` when it needs Fluent (a selector, a function,
/// a reference to another message).
fn ui_pattern(p: &Pattern<&str>) -> Option<UiPattern> {
    let mut out = String::new();
    for el in &p.elements {
        match el {
            PatternElement::TextElement { value } => out.push_str(value),
            PatternElement::Placeable { expression: Expression::Inline(e) } => match e {
                InlineExpression::VariableReference { id } => {
                    out.push_str("{$");
                    out.push_str(id.name);
                    out.push('}');
                }
                InlineExpression::StringLiteral { value } => out.push_str(value),
                InlineExpression::NumberLiteral { value } => out.push_str(value),
                InlineExpression::FunctionReference { .. }
                | InlineExpression::MessageReference { .. }
                | InlineExpression::TermReference { .. }
                | InlineExpression::Placeable { .. } => return None,
            },
            PatternElement::Placeable { expression: Expression::Select { .. } } => return None,
        }
    }
    Some(out)
}

/// The message `id` with no arguments. A missing id gives the id itself (and a line on
/// stderr): a screen with a raw id is a bug to fix, never a crash.
pub fn message(locale: Locale, id: &str) -> String {
    format(locale, id, &FluentArgs::new())
}

/// The message `id` formatted with `args`.
pub fn format(locale: Locale, id: &str, args: &FluentArgs) -> String {
    let cat = catalog(locale);
    let Some(pattern) = cat.bundle.get_message(id).and_then(|m| m.value()) else {
        eprintln!("paydesk-i18n: no message {id} in {}", locale.code());
        return id.to_string();
    };
    let mut errors = Vec::new();
    let text = cat.bundle.format_pattern(pattern, Some(args), &mut errors).into_owned();
    if !errors.is_empty() {
        eprintln!("paydesk-i18n: {id} in {}: {errors:?}", locale.code());
    }
    text
}

/// Whether `locale` has a message `id`.
pub fn has(locale: Locale, id: &str) -> bool {
    catalog(locale).ids.contains_key(id)
}

/// Every message id of `locale`.
pub fn ids(locale: Locale) -> impl Iterator<Item = &'static str> {
    catalog(locale).ids.keys().map(String::as_str)
}

/// Every message id of `locale` with the area it is in.
pub fn area_ids(locale: Locale) -> impl Iterator<Item = (&'static str, &'static str)> {
    catalog(locale).ids.iter().map(|(id, area)| (id.as_str(), area.as_str()))
}

/// The areas (file names without `.ftl`) of `locale`.
pub fn areas(locale: Locale) -> impl Iterator<Item = &'static str> {
    files(locale).iter().map(|(area, _)| *area)
}

/// What the UI gets: every message it can fill itself, by id.
pub fn ui_patterns(locale: Locale) -> &'static BTreeMap<String, UiPattern> {
    &catalog(locale).ui
}

/// Parse errors and duplicate ids of `locale`'s files (empty when sound).
pub fn parse_errors(locale: Locale) -> &'static [String] {
    &catalog(locale).errors
}
