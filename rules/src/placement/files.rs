//! What the PLC rules share: the volume a database file lives on (judged by volume identity, never
//! by drive letter), the system-database scope, tempdb lookup and file naming.

use spindle_core::facts::{DatabaseRole, DbFile, FileType, SqlInstance, norm_volume_id};
use spindle_core::rule::Ctx;
use spindle_core::view::{DatabaseView, HostView, Located, UnknownVolume};

/// The volume a file is on, as far as the facts tell.
pub(crate) struct FileVolume {
    /// Volume identity: two files are on the same volume exactly when their keys are equal.
    pub key: String,
    /// How people know the volume: its first mount point, else its id.
    pub name: String,
}

/// The volume of `f` ([`HostView::volume_of_file`]), or, when none of the collected volumes
/// holds it, the volume its `volume_id` names: SQL Server facts without the host's still tell
/// which files share a volume.
pub(crate) fn volume_of(view: &HostView, f: &DbFile) -> Result<FileVolume, UnknownVolume> {
    match view.volume_of_file(f) {
        Ok(v) => Ok(FileVolume { key: v.key.clone(), name: v.display_name().to_string() }),
        Err(why) => match why.volume_id() {
            Some(id) => Ok(FileVolume {
                // The same key the view gives a collected volume, so both kinds compare.
                key: format!("{}/volume:{}", view.host_name(), norm_volume_id(id)),
                name: id.to_string(),
            }),
            None => Err(why),
        },
    }
}

/// Whether a database is in scope for a rule that judges user databases, and system databases
/// only when asked to. tempdb is never in that scope: PLC004 and PLC005 place it.
pub(crate) fn user_scope(dv: &DatabaseView, include_system: bool) -> bool {
    match dv.db.effective_role() {
        DatabaseRole::User => true,
        DatabaseRole::System => include_system,
        DatabaseRole::Tempdb => false,
    }
}

/// The instance's tempdb, or `None` after recording why it cannot be judged.
pub(crate) fn tempdb_of<'v, P>(
    cx: &mut Ctx<'_, P>,
    view: &'v HostView,
    index: usize,
    inst: &Located<SqlInstance>,
) -> Option<&'v DatabaseView> {
    let dbs = view.databases_of(index);
    if dbs.is_empty() {
        cx.not_evaluated(inst, "databases");
        return None;
    }
    let tempdb = dbs.iter().find(|d| d.db.effective_role() == DatabaseRole::Tempdb);
    if tempdb.is_none() {
        cx.not_evaluated_because(inst, "databases", "tempdb is not among the collected databases");
    }
    tempdb
}

/// `Sales_Data (E:\SQLData\Sales.mdf)`, or the logical name alone.
pub(crate) fn file_name(f: &DbFile) -> String {
    match &f.physical_name {
        Some(p) => format!("{} ({p})", f.logical_name),
        None => f.logical_name.clone(),
    }
}

/// What a file is, for messages: `data file`, `log file`, `FILESTREAM container`...
pub(crate) fn file_kind(f: &DbFile) -> &'static str {
    match f.file_type {
        FileType::Rows => "data file",
        FileType::Log => "log file",
        FileType::Filestream => "FILESTREAM container",
        FileType::Fulltext => "full-text catalog",
    }
}

/// The field a placement finding points at: the path when collected (that is what a move
/// changes), else the volume id the placement was read from.
pub(crate) fn location_field(f: &DbFile) -> &'static str {
    if f.physical_name.is_none() && f.volume_id.is_some() { "volume_id" } else { "physical_name" }
}

/// `a`, `a and b`, `a, b and c`.
pub(crate) fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// `1 file`, `2 files`.
pub(crate) fn plural(n: usize, word: &str) -> String {
    if n == 1 { format!("1 {word}") } else { format!("{n} {word}s") }
}

/// Runs one rule over a snapshot with some parameters changed from their defaults: for unit tests
/// of what the fixtures (defaults only) cannot reach.
#[cfg(test)]
pub(crate) fn run_with(
    rule: &spindle_core::rule::BuiltinRule,
    snapshot: &str,
    set: &[(&str, spindle_core::params::ParamValue)],
) -> (Vec<spindle_core::Finding>, Vec<spindle_core::NotEvaluated>) {
    let doc = spindle_core::load::parse_snapshot("test.json", snapshot.to_string()).expect("valid snapshot");
    let view = HostView::build(vec![doc], Default::default());
    let mut params = spindle_core::params::Params::defaults(rule.meta.params);
    for (name, value) in set {
        params.set(name, value.clone());
    }
    let mut cx = Ctx::new(&view, &params, rule.meta.code, &rule.meta, rule.meta.severity);
    (rule.check)(&mut cx);
    cx.into_results()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists() {
        assert_eq!(and_list(&[]), "");
        assert_eq!(and_list(&["a".into()]), "a");
        assert_eq!(and_list(&["a".into(), "b".into()]), "a and b");
        assert_eq!(and_list(&["a".into(), "b".into(), "c".into()]), "a, b and c");
        assert_eq!(plural(1, "file"), "1 file");
        assert_eq!(plural(3, "file"), "3 files");
    }
}
