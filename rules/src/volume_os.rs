//! What a volume says about the system it serves: which operating system it belongs to, and
//! whether it holds the running one. Fixes, the plan and the rules that judge filesystems all
//! ask; keeping it here, under none of them, lets each use it without using the others.

use spindle_core::facts::{OsFamily, Volume};
use spindle_core::fast_hash::FastSet;
use spindle_core::view::HostView;

/// The operating system a volume belongs to: the host's `os_family` when it is Windows or
/// Linux, else what the volume itself shows: Linux mount options, a `/...` mount point or a
/// `/dev/...` id mean Linux; a drive letter, a `\\?\` GUID path or a UNC path mean Windows.
/// The filesystem name is deliberately not used, so a rule judging the filesystem does not
/// judge it against itself. `None` when nothing tells.
pub(crate) fn os_of_volume(view: &HostView, v: &Volume) -> Option<OsFamily> {
    if let Some(os @ (OsFamily::Windows | OsFamily::Linux)) = view.host.os_family {
        return Some(os);
    }
    let posix = |p: &str| p.starts_with('/');
    let windows = |p: &str| {
        let b = p.as_bytes();
        p.starts_with("\\\\") || (b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':')
    };
    if v.mount_options.is_some() || v.mount_points.iter().any(|m| posix(m)) || v.id.starts_with("/dev/") {
        return Some(OsFamily::Linux);
    }
    if v.mount_points.iter().any(|m| windows(m)) || windows(&v.id) {
        return Some(OsFamily::Windows);
    }
    None
}

/// Whether `v` holds the running operating system. Unknown counts as yes for a volume that
/// looks like it (`C:\`, `/`, or one holding files under `\Windows\`): a plan that guesses wrong
/// here would copy off and delete the system. A caller asking about many volumes of one host
/// builds [`OsVolumes`] once instead: this walks every file of the host.
pub(crate) fn is_os_volume(view: &HostView, v: &Volume) -> bool {
    OsVolumes::of_view(view).holds_os(v)
}

/// Which volumes of a host hold the running operating system, from one walk of its files (the
/// plan asks for every volume it rebuilds or moves files to: a walk per volume was quadratic).
pub(crate) struct OsVolumes<'v> {
    /// The ids of the volumes that hold a file under `\Windows\`.
    with_windows_files: FastSet<&'v str>,
}

impl<'v> OsVolumes<'v> {
    pub fn of_view(view: &'v HostView) -> Self {
        let with_windows_files = view
            .files()
            .filter(|(_, f)| {
                f.physical_name.as_deref().is_some_and(|p| p.to_ascii_lowercase().contains("\\windows\\"))
            })
            .filter_map(|(_, f)| view.volume_of_file(f).ok().map(|v| v.id.as_str()))
            .collect();
        OsVolumes { with_windows_files }
    }

    /// Whether `v` holds the running operating system (see [`is_os_volume`]).
    pub fn holds_os(&self, v: &Volume) -> bool {
        match v.os_volume {
            Some(known) => known,
            None => {
                v.mount_points
                    .iter()
                    .any(|m| m.eq_ignore_ascii_case("C:\\") || m.eq_ignore_ascii_case("C:") || m == "/")
                    || self.with_windows_files.contains(v.id.as_str())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::commands::test_volume as vol;

    fn view(os: Option<OsFamily>) -> HostView {
        let mut v = HostView::build(vec![], Default::default());
        v.host.item.os_family = os;
        v
    }

    #[test]
    fn host_os_wins() {
        let v = view(Some(OsFamily::Windows));
        assert_eq!(os_of_volume(&v, &vol("/dev/sdb1", &["/var/opt/mssql"])), Some(OsFamily::Windows));
    }

    #[test]
    fn os_from_volume_shape() {
        let v = view(None);
        assert_eq!(os_of_volume(&v, &vol("/dev/sdb1", &[])), Some(OsFamily::Linux));
        assert_eq!(os_of_volume(&v, &vol("x", &["/data"])), Some(OsFamily::Linux));
        assert_eq!(os_of_volume(&v, &vol("\\\\?\\Volume{1}\\", &[])), Some(OsFamily::Windows));
        assert_eq!(os_of_volume(&v, &vol("x", &["E:\\SQLData\\"])), Some(OsFamily::Windows));
        assert_eq!(os_of_volume(&v, &vol("x", &[])), None);
        let other = view(Some(OsFamily::Other));
        assert_eq!(os_of_volume(&other, &vol("x", &["/data"])), Some(OsFamily::Linux));
    }

    /// Each way a volume can be the system's (said, `c:`, `/`, files under `\WINDOWS\`), and
    /// volumes that are not (a data volume; `C:\` the snapshot says is not).
    #[test]
    fn the_system_volume_by_its_mark_its_mount_or_its_windows_files() {
        let json = r#"{"schema_version": 1, "host": {"name": "h"},
            "volumes": [{"id": "vc", "mount_points": ["c:"]}, {"id": "vroot", "mount_points": ["/"]},
                        {"id": "vw", "mount_points": ["W:\\"]}, {"id": "vd", "mount_points": ["D:\\"]},
                        {"id": "vknown", "mount_points": ["C:\\"], "os_volume": false},
                        {"id": "vsaid", "mount_points": ["S:\\"], "os_volume": true}],
            "sql_instances": [{"name": "MSSQLSERVER", "databases": [{"name": "Sales", "files": [
                {"type": "rows", "logical_name": "a", "physical_name": "W:\\WINDOWS\\a.mdf", "volume_id": "vw"},
                {"type": "rows", "logical_name": "b", "physical_name": "D:\\Data\\b.mdf", "volume_id": "vd"}]}]}]}"#;
        let doc = spindle_core::load::parse_snapshot("h.json", json.to_string()).unwrap();
        let view = HostView::build(vec![doc], spindle_core::declare::Declarations::default());
        let os = OsVolumes::of_view(&view);
        let answers: Vec<(&str, bool)> =
            view.volumes.iter().flatten().map(|v| (v.id.as_str(), os.holds_os(v))).collect();
        assert_eq!(
            answers,
            [("vc", true), ("vroot", true), ("vw", true), ("vd", false), ("vknown", false), ("vsaid", true)]
        );
    }
}
