//! PayDesk's words in English and Japanese (record 0070): Fluent message catalogs
//! (`locales/<lang>/<area>.ftl`, compiled in), looked up by message id.
//!
//! Rust formats its own messages here ([`format`], [`tr!`]). The UI gets each message's
//! pattern text from [`ui_patterns`] and fills `{$name}` placeables itself, so a message the
//! UI uses may hold only text and variables; a message with a selector (plurals, a choice on
//! a value) is formatted in Rust.

mod catalog;

pub use catalog::{area_ids, areas, format, has, ids, message, parse_errors, ui_patterns, UiPattern};
pub use fluent_bundle::{FluentArgs, FluentValue};

/// A message formatted in `locale`: `tr!(locale, "id")` or `tr!(locale, "id", name = value, ...)`.
/// Values are anything a [`FluentValue`] is made from (strings, integers); money is passed
/// already formatted. The catalogs test finds every id written this way.
#[macro_export]
macro_rules! tr {
    ($locale:expr, $id:literal) => {
        $crate::message($locale, $id)
    };
    ($locale:expr, $id:literal, $($name:ident = $value:expr),+ $(,)?) => {{
        let mut args = $crate::FluentArgs::new();
        $( args.set(stringify!($name), $crate::FluentValue::from($value)); )+
        $crate::format($locale, $id, &args)
    }};
}

/// A message id chosen in code (a table, a match) and formatted later: `id!("state-captured")`.
/// It is only the string; the macro marks it so the catalogs test checks it exists.
#[macro_export]
macro_rules! id {
    ($id:literal) => {
        $id
    };
}
