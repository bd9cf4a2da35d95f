//! The helpers that build a layout change (its model is `spindle_report::diff::Change`) from two
//! values.

use serde_json::Value;
use spindle_core::units;
use spindle_core::view::{HostView, Located};
pub use spindle_report::diff::{Change, ChangeKind};

/// A value for JSON and the same value for people.
pub(super) type Shown = (Value, String);

pub(super) fn bytes(n: u64) -> Shown {
    (Value::from(n), units::bytes(n))
}

pub(super) fn change(
    kind: ChangeKind,
    (entity, key): (&str, &str),
    before: Option<Shown>,
    after: Option<Shown>,
) -> Change {
    let detail = match (&before, &after) {
        (Some((_, b)), Some((_, a))) => format!("{b} → {a}"),
        (None, Some((_, a))) => a.clone(),
        (Some((_, b)), None) => b.clone(),
        (None, None) => String::new(),
    };
    Change {
        kind,
        entity: entity.to_string(),
        entity_key: key.to_string(),
        before: before.map(|(v, _)| v),
        after: after.map(|(v, _)| v),
        detail,
    }
}

/// A value both sides read, when it differs.
pub(super) fn differs<T: PartialEq + Copy>(b: Option<T>, a: Option<T>) -> Option<(T, T)> {
    match (b, a) {
        (Some(b), Some(a)) if b != a => Some((b, a)),
        _ => None,
    }
}

/// A label without its host: the diff is already under the host's heading.
pub(super) fn local<'a>(view: &HostView, label: &'a str) -> &'a str {
    label.strip_prefix(view.host_name()).and_then(|l| l.strip_prefix(" › ")).unwrap_or(label)
}

/// An entity of `view` as a change names it: its label without the host, and its key.
pub(super) fn named<'a, T>(view: &HostView, x: &'a Located<T>) -> (&'a str, &'a str) {
    (local(view, &x.label), &x.key)
}

/// An entity only AFTER (`view`) has, described by `shown`.
pub(super) fn added<T>(kind: ChangeKind, view: &HostView, x: &Located<T>, shown: Option<Shown>) -> Change {
    change(kind, named(view, x), None, shown)
}

/// An entity only BEFORE (`view`) has, described by `shown`.
pub(super) fn removed<T>(kind: ChangeKind, view: &HostView, x: &Located<T>, shown: Option<Shown>) -> Change {
    change(kind, named(view, x), shown, None)
}
