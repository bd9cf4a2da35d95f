//! Why the volume of a database file is not known, in the one wording every rule gives it.

use std::fmt;

use crate::facts::DbFile;
use crate::view::HostView;
use crate::view::collector_reason;

/// What [`HostView::volume_of_file`] returns when no collected volume holds the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownVolume {
    /// The file's logical name.
    pub file: String,
    pub cause: UnknownVolumeCause,
    /// Why a collector did not collect the fact that would have told (`sql: VIEW SERVER STATE
    /// permission denied`), when it said.
    pub collector_reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UnknownVolumeCause {
    /// The file's `volume_id` names a volume that is not among the collected ones (none are,
    /// when `volumes_collected` is false: SQL Server facts without the host's).
    NoVolumeWithId { id: String, volumes_collected: bool },
    /// No `volume_id` (`empty_id`: SQL Server reported an empty one, as `sys.dm_os_volume_stats`
    /// does for a file on a UNC share), and no collected volume is mounted at a prefix of the
    /// file's path.
    NoMountAbove { path: String, empty_id: bool, volumes_collected: bool },
    /// Neither a `volume_id` nor the file's path was collected.
    NoIdNorPath { empty_id: bool },
}

impl UnknownVolume {
    pub(crate) fn of(view: &HostView, f: &DbFile) -> UnknownVolume {
        let volumes_collected = view.volumes.is_some();
        let empty_id = f.volume_id.is_some();
        let cause = match (file_volume_id(f), &f.physical_name) {
            (Some(id), _) => UnknownVolumeCause::NoVolumeWithId { id: id.to_string(), volumes_collected },
            (None, Some(path)) => {
                UnknownVolumeCause::NoMountAbove { path: path.clone(), empty_id, volumes_collected }
            }
            (None, None) => UnknownVolumeCause::NoIdNorPath { empty_id },
        };
        let mut unknown = UnknownVolume { file: f.logical_name.clone(), cause, collector_reason: None };
        let mut reason = collector_reason(view, unknown.missing());
        if reason.is_none() && !volumes_collected {
            reason = collector_reason(view, "volumes");
        }
        unknown.collector_reason = reason;
        unknown
    }

    /// The fact that would have placed the file, as a not-evaluated entry names it: `volumes`
    /// when the file says which volume but that volume's facts are missing, else the file's own
    /// `volume_id` (the join that works even where no mount point can place the path).
    pub fn missing(&self) -> &'static str {
        match self.cause {
            UnknownVolumeCause::NoVolumeWithId { .. } => "volumes",
            UnknownVolumeCause::NoMountAbove { .. } | UnknownVolumeCause::NoIdNorPath { .. } => "volume_id",
        }
    }

    /// The volume id the file names, when it names one: it still tells which files share a
    /// volume when the volume's own facts were not collected.
    pub fn volume_id(&self) -> Option<&str> {
        match &self.cause {
            UnknownVolumeCause::NoVolumeWithId { id, .. } => Some(id),
            _ => None,
        }
    }
}

/// The file's `volume_id`, an empty one counting as none.
pub(crate) fn file_volume_id(f: &DbFile) -> Option<&str> {
    f.volume_id.as_deref().map(str::trim).filter(|id| !id.is_empty())
}

impl fmt::Display for UnknownVolume {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(out, "the volume of {} is unknown: ", self.file)?;
        let no_id = |empty_id: bool| {
            if empty_id {
                "SQL Server reported an empty volume_id (as for a file on a UNC share)"
            } else {
                "no volume_id (sys.dm_os_volume_stats) was collected"
            }
        };
        match &self.cause {
            UnknownVolumeCause::NoVolumeWithId { id, volumes_collected: true } => {
                write!(out, "no collected volume has its volume_id {id}")?
            }
            UnknownVolumeCause::NoVolumeWithId { id, volumes_collected: false } => {
                write!(out, "its volume_id is {id}, but the host's volumes were not collected")?
            }
            UnknownVolumeCause::NoMountAbove { path, empty_id, volumes_collected: true } => {
                write!(out, "{}, and no collected volume is mounted at a prefix of {path}", no_id(*empty_id))?
            }
            UnknownVolumeCause::NoMountAbove { path, empty_id, volumes_collected: false } => write!(
                out,
                "{}, and the host's volumes were not collected to match {path} against their mount points",
                no_id(*empty_id)
            )?,
            UnknownVolumeCause::NoIdNorPath { empty_id: true } => write!(
                out,
                "SQL Server reported an empty volume_id (as for a file on a UNC share), and the file's \
                 physical_name was not collected"
            )?,
            UnknownVolumeCause::NoIdNorPath { empty_id: false } => write!(
                out,
                "neither its volume_id (sys.dm_os_volume_stats) nor its physical_name was collected"
            )?,
        }
        match &self.collector_reason {
            Some(reason) => write!(out, "; {reason}"),
            None => Ok(()),
        }
    }
}

impl std::error::Error for UnknownVolume {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::declare::Declarations;
    use crate::load::parse_snapshot;

    /// Why each file of `files` (JSON) has no volume, on a host with `volumes` (JSON, or none).
    fn why(volumes: Option<&str>, collectors: &str, files: &str) -> Vec<Result<String, UnknownVolume>> {
        let volumes = volumes.map_or(String::new(), |v| format!(r#""volumes": {v},"#));
        let text = format!(
            r#"{{"schema_version": 1, "host": {{"name": "h"}}, {volumes} "collectors": {collectors},
              "sql_instances": [{{"name": "I", "databases": [{{"name": "d", "files": {files}}}]}}]}}"#
        );
        let view = HostView::build(vec![parse_snapshot("t.json", text).unwrap()], Declarations::default());
        view.files().map(|(_, f)| view.volume_of_file(f).map(|v| v.item.id.clone())).collect()
    }

    fn text(r: &Result<String, UnknownVolume>) -> (String, &'static str) {
        let e = r.as_ref().unwrap_err();
        (e.to_string(), e.missing())
    }

    #[test]
    fn each_way_a_volume_is_unknown_is_worded_once() {
        let volumes = r#"[{"id": "\\\\?\\Volume{e}\\", "mount_points": ["E:\\"]}]"#;
        let files = r#"[
            {"type": "rows", "logical_name": "on_e", "physical_name": "E:\\d.mdf"},
            {"type": "rows", "logical_name": "gone", "volume_id": "\\\\?\\Volume{x}\\"},
            {"type": "rows", "logical_name": "on_z", "physical_name": "Z:\\d.mdf"},
            {"type": "log", "logical_name": "unc", "volume_id": "", "physical_name": "\\\\fs\\l.ldf"},
            {"type": "log", "logical_name": "bare"}]"#;
        let got = why(Some(volumes), "[]", files);
        assert_eq!(got[0].as_deref(), Ok(r"\\?\Volume{e}\"));
        let expected = [
            (
                r"the volume of gone is unknown: no collected volume has its volume_id \\?\Volume{x}\",
                "volumes",
            ),
            (
                r"the volume of on_z is unknown: no volume_id (sys.dm_os_volume_stats) was collected, and no collected volume is mounted at a prefix of Z:\d.mdf",
                "volume_id",
            ),
            (
                r"the volume of unc is unknown: SQL Server reported an empty volume_id (as for a file on a UNC share), and no collected volume is mounted at a prefix of \\fs\l.ldf",
                "volume_id",
            ),
            (
                "the volume of bare is unknown: neither its volume_id (sys.dm_os_volume_stats) nor its physical_name was collected",
                "volume_id",
            ),
        ];
        for (got, (message, missing)) in got[1..].iter().zip(expected) {
            assert_eq!(text(got), (message.to_string(), missing));
        }
        assert_eq!(got[1].as_ref().unwrap_err().volume_id(), Some(r"\\?\Volume{x}\"));
        assert_eq!(got[2].as_ref().unwrap_err().volume_id(), None);
    }

    #[test]
    fn without_the_hosts_volumes_and_with_the_collectors_reason() {
        let collectors = r#"[{"name": "sql", "version": "1", "not_collected": [
            {"fact": "volume_id", "reason": "VIEW SERVER STATE denied"}]}]"#;
        let files = r#"[
            {"type": "rows", "logical_name": "a", "volume_id": "\\\\?\\Volume{a}\\"},
            {"type": "rows", "logical_name": "b", "physical_name": "D:\\b.mdf"}]"#;
        let got = why(None, collectors, files);
        assert_eq!(
            text(&got[0]),
            (
                r"the volume of a is unknown: its volume_id is \\?\Volume{a}\, but the host's volumes were not collected"
                    .to_string(),
                "volumes"
            )
        );
        assert_eq!(
            text(&got[1]),
            (
                r"the volume of b is unknown: no volume_id (sys.dm_os_volume_stats) was collected, and the host's volumes were not collected to match D:\b.mdf against their mount points; sql: VIEW SERVER STATE denied"
                    .to_string(),
                "volume_id"
            )
        );
    }
}
