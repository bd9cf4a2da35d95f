//! Reading snapshot files: every error names the file, line and column.

use std::fmt;

use serde::Deserialize;

use crate::locate::locate;
use crate::model::{Backing, SCHEMA_VERSION, Snapshot};
use crate::tolerant::{self, Unknown};
use spindle_text::names::did_you_mean;

/// A loaded snapshot file: its path and text (kept to locate facts for reports) and its facts.
#[derive(Debug, Clone)]
pub struct Document {
    pub path: String,
    pub text: String,
    pub snapshot: Snapshot,
}

/// Why a snapshot could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    pub path: String,
    /// 1-based; 0 when the error is about the file as a whole.
    pub line: usize,
    pub column: usize,
    pub message: String,
    /// A hint, such as "did you mean `cpu_count`?" for a misspelt field.
    pub help: Option<String>,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "{}:{}:{}: {}", self.path, self.line, self.column, self.message)?;
        } else {
            write!(f, "{}: {}", self.path, self.message)?;
        }
        if let Some(h) = &self.help {
            write!(f, " ({h})")?;
        }
        Ok(())
    }
}

impl std::error::Error for LoadError {}

/// Parses a snapshot file, strictly: a field this build does not know is an error naming its
/// line, column and JSON pointer (a typo, or a file for another spindle). Checks the schema
/// version before blaming any field, so a file from a newer spindle says so instead of listing
/// fields this build does not know.
pub fn parse_snapshot(path: &str, text: String) -> Result<Document, LoadError> {
    parse(path, text, false).map(|t| t.document)
}

/// A snapshot read by [`parse_snapshot_tolerant`], and the members it skipped.
#[derive(Debug, Clone)]
pub struct Tolerated {
    pub document: Document,
    /// JSON pointers of the object members this build does not know, in document order
    /// (`/volumes/0/fs_stripe_unit_bytes`). Their values were skipped.
    pub ignored: Vec<String>,
}

/// Parses facts from a spindle that may be newer than this build (what a plugin receives):
/// object members this build does not know are skipped and listed instead of refused. Anything
/// else that [`parse_snapshot`] refuses is still refused, the schema version first.
///
/// Costs what [`parse_snapshot`] costs when every field is known; otherwise a second, tolerant
/// parse follows the strict one.
pub fn parse_snapshot_tolerant(path: &str, text: String) -> Result<Tolerated, LoadError> {
    parse(path, text, true)
}

fn parse(path: &str, mut text: String, tolerate: bool) -> Result<Tolerated, LoadError> {
    // PowerShell's Out-File and Set-Content write a byte-order mark; JSON parsers refuse it.
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    // The strict parse first: the facts types deny unknown fields, so this is the one parse
    // when every field is known, in either mode.
    let e = match serde_json::from_str::<Snapshot>(&text) {
        Ok(snapshot) => return accept(path, text, snapshot, vec![]),
        Err(e) => e,
    };
    // Only for an unknown field: the tolerant parse walks the text in the same order, so the
    // first member it skips is the one the strict parse stopped at.
    let mut unknown: Vec<Unknown> = vec![];
    if e.to_string().starts_with("unknown field `") {
        let tolerant = tolerant::from_str::<Snapshot>(&text, |u| unknown.push(u));
        if tolerate && let Ok(snapshot) = tolerant {
            let ignored = unknown.into_iter().map(|u| u.pointer).collect();
            return accept(path, text, snapshot, ignored);
        }
    }
    #[derive(Deserialize)]
    struct VersionOnly {
        schema_version: u32,
    }
    if let Ok(v) = serde_json::from_str::<VersionOnly>(&text)
        && v.schema_version != SCHEMA_VERSION
    {
        return Err(version_error(path, &text, v.schema_version));
    }
    let position = format!(" at line {} column {}", e.line(), e.column());
    let message = e.to_string().replace(&position, "");
    match unknown.into_iter().next() {
        Some(u) => Err(unknown_field_error(path, &text, &e, message, u)),
        None => {
            Err(LoadError { path: path.to_string(), line: e.line(), column: e.column(), message, help: None })
        }
    }
}

fn accept(
    path: &str,
    text: String,
    snapshot: Snapshot,
    ignored: Vec<String>,
) -> Result<Tolerated, LoadError> {
    if snapshot.schema_version != SCHEMA_VERSION {
        return Err(version_error(path, &text, snapshot.schema_version));
    }
    if let Some(o) = oversized(&snapshot) {
        let (line, column) =
            locate(&text, &o.pointer).map_or((0, 0), |span| line_col(&text, span.value.start));
        return Err(LoadError { path: path.to_string(), line, column, message: o.to_string(), help: None });
    }
    Ok(Tolerated { document: Document { path: path.to_string(), text, snapshot }, ignored })
}

/// serde's "unknown field `cpus`, expected one of ..." with the member's pointer, positioned at
/// its key (serde_json's position is after it), and the closest known field as a hint.
fn unknown_field_error(
    path: &str,
    text: &str,
    e: &serde_json::Error,
    message: String,
    u: Unknown,
) -> LoadError {
    let (line, column) = locate(text, &u.pointer)
        .and_then(|span| span.key)
        .map_or((e.line(), e.column()), |key| line_col(text, key.start));
    let named = format!("unknown field `{}`", u.key);
    let message = match message.strip_prefix(&named) {
        Some(rest) => format!("{named} at {}{rest}", u.pointer),
        None => format!("{message} (at {})", u.pointer),
    };
    LoadError {
        path: path.to_string(),
        line,
        column,
        message,
        help: did_you_mean(&u.key, u.fields.iter().copied()),
    }
}

/// The longest name, id, path, label or version a snapshot may hold, in bytes. Names are
/// echoed in every key, label and location of a host's entities: a host name of 10 MB made a
/// report of 990 MB. No real name comes near (a Windows path is at most 32,767 UTF-16 units, but
/// SQL Server's `physical_name` is `nvarchar(260)`).
pub const NAME_MAX_BYTES: usize = 4 * 1024;
/// The longest free text a snapshot may hold (why a fact was not collected), in bytes.
pub const TEXT_MAX_BYTES: usize = 64 * 1024;

/// A string of a snapshot longer than its bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Oversized {
    /// Where it is: `/host/name`.
    pub pointer: String,
    pub bytes: usize,
    pub max: usize,
}

impl fmt::Display for Oversized {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} is {} bytes long, more than the {} bytes a snapshot may hold there",
            self.pointer,
            spindle_text::units::thousands(self.bytes as u64),
            spindle_text::units::thousands(self.max as u64)
        )
    }
}

/// The first string of `snapshot` longer than [`NAME_MAX_BYTES`] (or [`TEXT_MAX_BYTES`] for a
/// reason), section by section: refused where facts are read, from files and servers alike, so
/// nothing downstream echoes it.
pub fn oversized(snapshot: &Snapshot) -> Option<Oversized> {
    // The pointer is formatted only for the string refused: most snapshots have none.
    macro_rules! check {
        ($s:expr, $max:expr, $($pointer:tt)+) => {
            if let Some(s) = $s
                && s.len() > $max
            {
                return Some(Oversized { pointer: format!($($pointer)+), bytes: s.len(), max: $max });
            }
        };
    }
    const NAME: usize = NAME_MAX_BYTES;
    let sn = snapshot;
    check!(sn.collected_at.as_deref(), NAME, "/collected_at");
    check!(Some(&sn.host.name), NAME, "/host/name");
    check!(sn.host.os_version.as_deref(), NAME, "/host/os_version");
    for (i, c) in sn.collectors.iter().enumerate() {
        check!(Some(&c.name), NAME, "/collectors/{i}/name");
        check!(c.version.as_deref(), NAME, "/collectors/{i}/version");
        for (j, n) in c.not_collected.iter().enumerate() {
            check!(Some(&n.fact), NAME, "/collectors/{i}/not_collected/{j}/fact");
            check!(Some(&n.reason), TEXT_MAX_BYTES, "/collectors/{i}/not_collected/{j}/reason");
        }
    }
    for (i, d) in sn.disks.iter().flatten().enumerate() {
        check!(Some(&d.id), NAME, "/disks/{i}/id");
        check!(d.model.as_deref(), NAME, "/disks/{i}/model");
        check!(d.bus.as_deref(), NAME, "/disks/{i}/bus");
        if let Some((rest, bytes)) = oversized_backing(d.backed_by.as_ref()) {
            return Some(Oversized { pointer: format!("/disks/{i}/backed_by{rest}"), bytes, max: NAME });
        }
    }
    for (i, p) in sn.partitions.iter().flatten().enumerate() {
        check!(Some(&p.id), NAME, "/partitions/{i}/id");
        check!(Some(&p.disk_id), NAME, "/partitions/{i}/disk_id");
    }
    for (i, v) in sn.volumes.iter().flatten().enumerate() {
        check!(Some(&v.id), NAME, "/volumes/{i}/id");
        for (j, m) in v.mount_points.iter().enumerate() {
            check!(Some(m), NAME, "/volumes/{i}/mount_points/{j}");
        }
        check!(v.label.as_deref(), NAME, "/volumes/{i}/label");
        check!(v.filesystem.as_deref(), NAME, "/volumes/{i}/filesystem");
        for (j, o) in v.mount_options.iter().flatten().enumerate() {
            check!(Some(o), NAME, "/volumes/{i}/mount_options/{j}");
        }
        if let Some((rest, bytes)) = oversized_backing(v.backed_by.as_ref()) {
            return Some(Oversized { pointer: format!("/volumes/{i}/backed_by{rest}"), bytes, max: NAME });
        }
    }
    for (i, p) in sn.storage_pools.iter().flatten().enumerate() {
        check!(Some(&p.id), NAME, "/storage_pools/{i}/id");
        check!(p.name.as_deref(), NAME, "/storage_pools/{i}/name");
        for (j, d) in p.physical_disk_ids.iter().flatten().enumerate() {
            check!(Some(d), NAME, "/storage_pools/{i}/physical_disk_ids/{j}");
        }
    }
    for (i, v) in sn.virtual_disks.iter().flatten().enumerate() {
        check!(Some(&v.id), NAME, "/virtual_disks/{i}/id");
        check!(v.name.as_deref(), NAME, "/virtual_disks/{i}/name");
        check!(Some(&v.pool_id), NAME, "/virtual_disks/{i}/pool_id");
        check!(v.resiliency.as_deref(), NAME, "/virtual_disks/{i}/resiliency");
    }
    for (i, r) in sn.raid_sets.iter().flatten().enumerate() {
        check!(Some(&r.id), NAME, "/raid_sets/{i}/id");
        check!(r.level.as_deref(), NAME, "/raid_sets/{i}/level");
        for (j, m) in r.member_ids.iter().flatten().enumerate() {
            check!(Some(m), NAME, "/raid_sets/{i}/member_ids/{j}");
        }
    }
    for (i, inst) in sn.sql_instances.iter().flatten().enumerate() {
        check!(Some(&inst.name), NAME, "/sql_instances/{i}/name");
        check!(inst.version.as_deref(), NAME, "/sql_instances/{i}/version");
        check!(inst.product_level.as_deref(), NAME, "/sql_instances/{i}/product_level");
        check!(inst.edition.as_deref(), NAME, "/sql_instances/{i}/edition");
        check!(inst.service_account.as_deref(), NAME, "/sql_instances/{i}/service_account");
        for (j, db) in inst.databases.iter().flatten().enumerate() {
            let at = || format!("/sql_instances/{i}/databases/{j}");
            check!(Some(&db.name), NAME, "{}/name", at());
            check!(db.recovery_model.as_deref(), NAME, "{}/recovery_model", at());
            check!(db.state.as_deref(), NAME, "{}/state", at());
            for (k, f) in db.files.iter().flatten().enumerate() {
                check!(Some(&f.logical_name), NAME, "{}/files/{k}/logical_name", at());
                check!(f.physical_name.as_deref(), NAME, "{}/files/{k}/physical_name", at());
                check!(f.volume_id.as_deref(), NAME, "{}/files/{k}/volume_id", at());
            }
        }
    }
    None
}

/// The id of `backing` over [`NAME_MAX_BYTES`]: the rest of its pointer and its length.
fn oversized_backing(backing: Option<&Backing>) -> Option<(String, usize)> {
    let over = |s: &String| s.len() > NAME_MAX_BYTES;
    match backing? {
        Backing::Partitions(ids) => {
            ids.iter().position(over).map(|j| (format!("/partitions/{j}"), ids[j].len()))
        }
        Backing::VirtualDisk(id) => over(id).then(|| ("/virtual_disk".into(), id.len())),
        Backing::RaidSet(id) => over(id).then(|| ("/raid_set".into(), id.len())),
        Backing::Lvm { name, devices, .. } => {
            over(name).then(|| ("/lvm/name".into(), name.len())).or_else(|| {
                devices.iter().position(over).map(|j| (format!("/lvm/devices/{j}"), devices[j].len()))
            })
        }
    }
}

fn version_error(path: &str, text: &str, found: u32) -> LoadError {
    let (line, column) = text.find("\"schema_version\"").map(|i| line_col(text, i)).unwrap_or((0, 0));
    LoadError {
        path: path.to_string(),
        line,
        column,
        message: format!("unsupported schema_version {found}: this spindle reads version {SCHEMA_VERSION}"),
        help: None,
    }
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(text: &str, byte: usize) -> (usize, usize) {
    let before = &text[..byte.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_position_of_bad_field() {
        let text =
            "{\n  \"schema_version\": 1,\n  \"host\": {\"name\": \"a\", \"cpu_count\": -4}\n}".to_string();
        let e = parse_snapshot("f.json", text).unwrap_err();
        assert_eq!((e.line, e.path.as_str()), (3, "f.json"));
        assert!(e.message.contains("-4"), "{e}");
    }

    #[test]
    fn newer_version_is_named() {
        let text = "{\"schema_version\": 7, \"host\": {\"name\": \"a\"}, \"future\": 1}".to_string();
        let e = parse_snapshot("f.json", text).unwrap_err();
        assert!(e.message.contains("unsupported schema_version 7"), "{e}");
    }

    #[test]
    fn byte_order_mark_is_accepted() {
        let text = "\u{feff}{\"schema_version\": 1, \"host\": {\"name\": \"a\"}}".to_string();
        assert_eq!(parse_snapshot("f.json", text).unwrap().snapshot.host.name, "a");
    }

    #[test]
    fn an_absurd_name_is_refused_at_its_position() {
        let big = "n".repeat(NAME_MAX_BYTES + 1);
        let text = format!("{{\n  \"schema_version\": 1,\n  \"host\": {{ \"name\": \"{big}\" }}\n}}");
        let e = parse_snapshot("f.json", text).unwrap_err();
        assert_eq!((e.line, e.column), (3, 21), "{e}");
        assert_eq!(
            e.message,
            "/host/name is 4,097 bytes long, more than the 4,096 bytes a snapshot may hold there"
        );

        // Deep in a section, and in a backing's ids.
        let text = format!(
            "{{\"schema_version\": 1, \"host\": {{\"name\": \"a\"}}, \"sql_instances\": [{{\"name\": \"i\", \
             \"databases\": [{{\"name\": \"d\", \"files\": [{{\"type\": \"log\", \"logical_name\": \"l\", \
             \"physical_name\": \"{big}\"}}]}}]}}]}}"
        );
        let e = parse_snapshot("f.json", text).unwrap_err();
        assert!(
            e.message.starts_with("/sql_instances/0/databases/0/files/0/physical_name is 4,097 bytes"),
            "{e}"
        );
        assert_eq!(e.line, 1);
        let text = format!(
            "{{\"schema_version\": 1, \"host\": {{\"name\": \"a\"}}, \"volumes\": [{{\"id\": \"v\", \
             \"backed_by\": {{\"partitions\": [\"p\", \"{big}\"]}}}}]}}"
        );
        let e = parse_snapshot("f.json", text).unwrap_err();
        assert!(e.message.starts_with("/volumes/0/backed_by/partitions/1 is "), "{e}");
        assert!(e.column > 60, "{e}");

        // At the bound, and a long reason, are fine.
        let at_bound = "n".repeat(NAME_MAX_BYTES);
        let reason = "r".repeat(TEXT_MAX_BYTES);
        let text = format!(
            "{{\"schema_version\": 1, \"host\": {{\"name\": \"{at_bound}\"}}, \"collectors\": [{{\"name\": \"c\", \
             \"not_collected\": [{{\"fact\": \"disks\", \"reason\": \"{reason}\"}}]}}]}}"
        );
        assert!(parse_snapshot("f.json", text).is_ok());
    }

    #[test]
    fn unknown_field_is_an_error() {
        let text = "{\"schema_version\": 1, \"host\": {\"name\": \"a\", \"cpus\": 4}}".to_string();
        let e = parse_snapshot("f.json", text).unwrap_err();
        assert!(e.message.contains("unknown field `cpus`"), "{e}");
    }

    /// A snapshot with a field this build does not know at the top level and in a volume (after
    /// one that is fine), and the same without them.
    const NEWER: &str = "{\n  \"schema_version\": 1,\n  \"host\": {\"name\": \"a\"},\n  \"volumes\": [\n    {\"id\": \"v0\"},\n    {\"id\": \"v1\", \"fs_stripe_unit\": 65536}\n  ],\n  \"collector_build\": \"9.9\"\n}";
    const KNOWN: &str = "{\n  \"schema_version\": 1,\n  \"host\": {\"name\": \"a\"},\n  \"volumes\": [\n    {\"id\": \"v0\"},\n    {\"id\": \"v1\"}\n  ]\n}";

    #[test]
    fn unknown_field_names_its_key_position_pointer_and_closest_field() {
        let e = parse_snapshot("f.json", NEWER.to_string()).unwrap_err();
        // Line 6, at the key's opening quote.
        assert_eq!((e.line, e.column), (6, 18), "{e}");
        assert!(
            e.message.starts_with(
                "unknown field `fs_stripe_unit` at /volumes/1/fs_stripe_unit, expected one of `id`"
            ),
            "{e}"
        );
        assert_eq!(e.help.as_deref(), Some("did you mean `fs_stripe_unit_bytes`?"));
        assert!(e.to_string().starts_with("f.json:6:18: unknown field `fs_stripe_unit` at "), "{e}");
        assert!(e.to_string().ends_with(" (did you mean `fs_stripe_unit_bytes`?)"), "{e}");

        // Nothing close: no hint. Escaped keys are found too.
        let text = "{\"schema_version\": 1, \"host\": {\"name\": \"a\", \"zz\\u0031\": 4}}".to_string();
        let e = parse_snapshot("f.json", text).unwrap_err();
        assert_eq!((e.line, e.column, e.help), (1, 45, None), "{}", e.message);
        assert!(e.message.starts_with("unknown field `zz1` at /host/zz1, expected one of"), "{}", e.message);
    }

    #[test]
    fn tolerant_parse_skips_and_lists_unknown_fields() {
        let t = parse_snapshot_tolerant("facts-json", NEWER.to_string()).unwrap();
        assert_eq!(t.ignored, ["/volumes/1/fs_stripe_unit", "/collector_build"]);
        let known = parse_snapshot("facts-json", KNOWN.to_string()).unwrap();
        assert_eq!(t.document.snapshot, known.snapshot);
        // The text is kept as given, for locating facts in reports.
        assert_eq!(t.document.text, NEWER);

        let t = parse_snapshot_tolerant("facts-json", KNOWN.to_string()).unwrap();
        assert!(t.ignored.is_empty());
    }

    #[test]
    fn tolerant_parse_refuses_what_is_not_an_unknown_field() {
        let newer_version = NEWER.replace("\"schema_version\": 1", "\"schema_version\": 2");
        let e = parse_snapshot_tolerant("facts-json", newer_version).unwrap_err();
        assert!(e.message.contains("unsupported schema_version 2"), "{e}");
        assert_eq!(e.line, 2);

        let bad_value = NEWER.replace("\"v0\"}", "\"v0\", \"size_bytes\": -1}");
        let e = parse_snapshot_tolerant("facts-json", bad_value).unwrap_err();
        assert!(e.message.contains("-1"), "{e}");
        assert_eq!(e.line, 5);
    }
}
