//! Databases and their files: added, removed, moved between volumes, given other growth settings.

use serde_json::Value;
use spindle_core::facts::{DbFile, Growth, MaxSize};
use spindle_core::units;
use spindle_core::view::{DatabaseView, HostView, Located};

use super::change::{Change, ChangeKind, change, differs};
use super::pairing::{Paired, pair, volume_key};

fn instance_name<'v>(view: &'v HostView, d: &DatabaseView) -> &'v str {
    view.instances.as_deref().and_then(|i| i.get(d.instance)).map_or("", |i| i.name.as_str())
}

pub(super) fn databases(before: &HostView, after: &HostView, out: &mut Vec<Change>) {
    let key = |view: &HostView, d: &DatabaseView| {
        format!("{}\u{0}{}", instance_name(view, d).to_lowercase(), d.db.name.to_lowercase())
    };
    let name = |view: &HostView, d: &DatabaseView| format!("{} › {}", instance_name(view, d), d.db.name);
    let count =
        |d: &DatabaseView| d.files.as_ref().map(|f| (Value::from(f.len()), units::plural(f.len(), "file")));
    // Databases are collected per instance: one an instance did not list was not looked at.
    let listed = |view: &HostView, d: &DatabaseView| {
        view.instances.as_deref().and_then(|i| i.get(d.instance)).is_some_and(|i| i.databases.is_some())
    };
    let collected_on = |view: &HostView| -> Vec<String> {
        view.instances
            .iter()
            .flatten()
            .filter(|i| i.databases.is_some())
            .map(|i| i.name.to_lowercase())
            .collect()
    };
    let (on_b, on_a) = (collected_on(before), collected_on(after));
    let b: Vec<&DatabaseView> = before
        .databases
        .iter()
        .filter(|d| listed(before, d) && on_a.contains(&instance_name(before, d).to_lowercase()))
        .collect();
    let a: Vec<&DatabaseView> = after
        .databases
        .iter()
        .filter(|d| listed(after, d) && on_b.contains(&instance_name(after, d).to_lowercase()))
        .collect();
    for p in pair(&b, &a, |d| key(before, d), |d| key(after, d)) {
        match p {
            Paired::Both(db, da) => files(before, after, (db, da), &name(after, da), out),
            Paired::Added(da) => {
                out.push(change(ChangeKind::DatabaseAdded, (&name(after, da), &da.db.key), None, count(da)))
            }
            Paired::Removed(db) => out.push(change(
                ChangeKind::DatabaseRemoved,
                (&name(before, db), &db.db.key),
                count(db),
                None,
            )),
        }
    }
}

/// Where a file is, for people: its volume (and that it is the OS volume) and its path.
fn placed(view: &HostView, f: &DbFile) -> (Value, String) {
    let path = f.physical_name.clone().unwrap_or_default();
    let shown = match view.volume_of_file(f) {
        Ok(v) if v.os_volume == Some(true) => format!("on {}, the OS volume ({path})", v.display_name()),
        Ok(v) => format!("on {} ({path})", v.display_name()),
        Err(_) => format!("on an unknown volume ({path})"),
    };
    (Value::from(path), shown)
}

fn growth_text(g: Growth) -> String {
    match g {
        Growth::Disabled => "no growth".into(),
        Growth::IncrementBytes(n) => units::binary(n),
        Growth::Percent(p) => format!("{p} %"),
    }
}

fn max_size_text(m: MaxSize) -> String {
    match m {
        MaxSize::Unlimited => "unlimited".into(),
        MaxSize::Bytes(n) => units::binary(n),
    }
}

/// The file changes of one database both sides have, named under `dname`.
fn files(
    before: &HostView,
    after: &HostView,
    (db, da): (&DatabaseView, &DatabaseView),
    dname: &str,
    out: &mut Vec<Change>,
) {
    let (Some(fb), Some(fa)) = (&db.files, &da.files) else { return };
    let key = |f: &Located<DbFile>| f.logical_name.to_lowercase();
    let name = |f: &DbFile| format!("{dname} › {}", f.logical_name);
    for p in pair(fb, fa, key, key) {
        match p {
            Paired::Both(b, a) => {
                if let (Ok(vb), Ok(va)) = (before.volume_of_file(b), after.volume_of_file(a))
                    && volume_key(vb) != volume_key(va)
                {
                    let (pb, pa) = (placed(before, b), placed(after, a));
                    out.push(change(ChangeKind::FileMoved, (&name(a), &a.key), Some(pb), Some(pa)));
                }
                if let Some((gb, ga)) = differs(b.growth, a.growth) {
                    let g = |g: Growth| (serde_json::to_value(g).unwrap_or(Value::Null), growth_text(g));
                    out.push(change(ChangeKind::Growth, (&name(a), &a.key), Some(g(gb)), Some(g(ga))));
                }
                if let Some((mb, ma)) = differs(b.max_size, a.max_size) {
                    let m = |m: MaxSize| (serde_json::to_value(m).unwrap_or(Value::Null), max_size_text(m));
                    out.push(change(ChangeKind::MaxSize, (&name(a), &a.key), Some(m(mb)), Some(m(ma))));
                }
            }
            Paired::Added(a) => {
                out.push(change(ChangeKind::FileAdded, (&name(a), &a.key), None, Some(placed(after, a))))
            }
            Paired::Removed(b) => {
                out.push(change(ChangeKind::FileRemoved, (&name(b), &b.key), Some(placed(before, b)), None))
            }
        }
    }
}
