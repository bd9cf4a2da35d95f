//! A pack's TOML into a [`PackFile`], with every shape error rather than serde's first.
//!
//! serde stops at the first unknown key or mistyped value. To find the others, a pack that fails
//! is taken apart: each top-level key, each `[rules.X]`, `[plugins.X]`, `[[waivers]]` and
//! `[[declare.stripe_unit]]` entry is deserialized on its own, so a mistake in one hides none in
//! another. What is left once the failing pieces are dropped is still a pack, and the rule-level
//! checks run on it too.

use std::collections::BTreeMap;
use std::ops::Range;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use toml::Spanned;
use toml::de::{DeArray, DeTable, DeValue, ValueDeserializer};

use super::error::{MAX_ERRORS_PER_PACK, PackError, did_you_mean, more_errors};
use super::file::{DeclareSection, DeclaredStripeEntry, PackFile, PluginEntry, SourceText, WaiverEntry};

/// The value of one `[rules.X]` table, as [`PackFile::rules`] holds it.
type RuleTable = BTreeMap<Spanned<String>, Spanned<toml::Value>>;

type Cow<'i> = std::borrow::Cow<'i, str>;

/// The pack, or as much of it as is well formed, and what is wrong with the rest. A syntax error
/// is the only error and leaves no pack: after it there is nothing left to read.
pub(super) fn parse_pack(src: &SourceText) -> (Option<PackFile>, Vec<PackError>) {
    // The whole file first: a good pack (nearly every pack) is read once, as before.
    let whole = match toml::from_str::<PackFile>(&src.text) {
        Ok(pack) => return (Some(pack), vec![]),
        Err(e) => e,
    };
    let Ok(root) = DeTable::parse(&src.text) else {
        return (None, vec![toml_error(src, &whole)]);
    };
    let span = root.span();
    let mut errors = vec![];
    let kept = prune_pack(root.into_inner(), &span, &mut errors);
    let rest = Spanned::new(span, DeValue::Table(kept));
    let pack = match PackFile::deserialize(ValueDeserializer::from(rest)) {
        Ok(pack) => Some(pack),
        Err(e) => {
            errors.push(e);
            None
        }
    };
    // A piece fails alone whenever it fails in the whole; should that ever not hold, serde's own
    // error still gets reported.
    if errors.is_empty() {
        errors.push(whole);
    }
    let mut shown: Vec<PackError> =
        errors.iter().take(MAX_ERRORS_PER_PACK).map(|e| toml_error(src, e)).collect();
    shown.extend(more_errors(src, errors.len()));
    (pack, shown)
}

/// Keeps the top-level keys that deserialize and, in the tables of entries (`rules`, `plugins`,
/// `declare`, `waivers`), the entries that do.
fn prune_pack<'i>(table: DeTable<'i>, span: &Range<usize>, errors: &mut Vec<toml::de::Error>) -> DeTable<'i> {
    table
        .into_iter()
        .filter_map(|(key, mut value)| {
            let value_span = value.span();
            let keep = match (key.get_ref().as_ref(), value.get_mut()) {
                ("waivers", DeValue::Array(items)) => {
                    prune_items::<WaiverEntry>(items, errors);
                    true
                }
                ("rules", DeValue::Table(rules)) => {
                    prune_entries::<RuleTable>(rules, errors);
                    true
                }
                ("plugins", DeValue::Table(plugins)) => {
                    prune_entries::<PluginEntry>(plugins, errors);
                    true
                }
                ("declare", DeValue::Table(declare)) => {
                    prune_declare(declare, &value_span, errors);
                    true
                }
                _ => fits::<PackFile>(alone(&key, &value, span), errors),
            };
            keep.then_some((key, value))
        })
        .collect()
}

fn prune_declare(table: &mut DeTable<'_>, span: &Range<usize>, errors: &mut Vec<toml::de::Error>) {
    *table = std::mem::take(table)
        .into_iter()
        .filter_map(|(key, mut value)| {
            let keep = match (key.get_ref().as_ref(), value.get_mut()) {
                ("stripe_unit", DeValue::Array(items)) => {
                    prune_items::<DeclaredStripeEntry>(items, errors);
                    true
                }
                _ => fits::<DeclareSection>(alone(&key, &value, span), errors),
            };
            keep.then_some((key, value))
        })
        .collect();
}

/// Keeps the elements of an array that deserialize as `T`.
fn prune_items<'i, T: DeserializeOwned>(items: &mut DeArray<'i>, errors: &mut Vec<toml::de::Error>) {
    *items = std::mem::replace(items, DeArray::new())
        .into_iter()
        .filter(|item| fits::<T>(item.clone(), errors))
        .collect();
}

/// Keeps the entries of a table whose values deserialize as `T`.
fn prune_entries<T: DeserializeOwned>(table: &mut DeTable<'_>, errors: &mut Vec<toml::de::Error>) {
    *table =
        std::mem::take(table).into_iter().filter(|(_, value)| fits::<T>(value.clone(), errors)).collect();
}

/// A table of one key, spanning its parent so errors about it point where the parent's would.
fn alone<'i>(
    key: &Spanned<Cow<'i>>,
    value: &Spanned<DeValue<'i>>,
    span: &Range<usize>,
) -> Spanned<DeValue<'i>> {
    let mut table = DeTable::new();
    table.insert(key.clone(), value.clone());
    Spanned::new(span.clone(), DeValue::Table(table))
}

fn fits<T: DeserializeOwned>(value: Spanned<DeValue<'_>>, errors: &mut Vec<toml::de::Error>) -> bool {
    match T::deserialize(ValueDeserializer::from(value)) {
        Ok(_) => true,
        Err(e) => {
            errors.push(e);
            false
        }
    }
}

/// A TOML or shape error, with a "did you mean" for a misspelt key.
pub(super) fn toml_error(src: &SourceText, e: &toml::de::Error) -> PackError {
    let msg = e.message().trim().to_string();
    let help = unknown_field_hint(&msg).or_else(|| placeholder_hint(&src.text, e.span()));
    PackError::new(&src.path, &src.text, e.span(), msg).with_help(help)
}

/// The placeholder `spindle init` writes for a stripe unit is no TOML value: on its line, an
/// error says what to put there rather than what TOML expected.
fn placeholder_hint(text: &str, span: Option<std::ops::Range<usize>>) -> Option<String> {
    let at = text.floor_char_boundary(span?.start);
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    text[start..end].contains(PLACEHOLDER).then(|| {
        format!(
            "replace {PLACEHOLDER} with the stripe unit in bytes (65536 is 64 KiB), as the RAID \
             controller's CLI or the SAN's console shows it"
        )
    })
}

/// The placeholder `spindle init` writes where a stripe unit goes.
const PLACEHOLDER: &str = "STRIPE_UNIT_BYTES";

/// Reads serde's "unknown field `x`, expected one of `a`, `b`" and suggests the closest.
fn unknown_field_hint(msg: &str) -> Option<String> {
    let rest = msg.strip_prefix("unknown field `")?;
    let (given, rest) = rest.split_once('`')?;
    let expected: Vec<&str> = rest.split('`').skip(1).step_by(2).collect();
    did_you_mean(given, expected.iter().copied())
}
