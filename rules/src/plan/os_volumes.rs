//! Which volumes hold the running operating system, decided once per host.
//!
//! [`crate::volume_os::is_os_volume`] walks every file of the host for each volume it is asked
//! about; the plan asks for every volume it rebuilds and every volume it considers as a move's
//! target, which made a host with many volumes and files quadratic (issue 27). The one walk here
//! answers the same for all of them.

use spindle_core::facts::Volume;
use spindle_core::fast_hash::FastSet;
use spindle_core::view::HostView;

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

    /// The answer of [`crate::volume_os::is_os_volume`] for `v`.
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
    use spindle_core::declare::Declarations;
    use spindle_core::view::HostView;

    use super::OsVolumes;

    /// Each way a volume can be the system's, and volumes that are not: the one walk answers as
    /// the per-volume walk does.
    #[test]
    fn answers_as_is_os_volume() {
        let json = r#"{"schema_version": 1, "host": {"name": "h"},
            "volumes": [{"id": "vc", "mount_points": ["c:"]}, {"id": "vroot", "mount_points": ["/"]},
                        {"id": "vw", "mount_points": ["W:\\"]}, {"id": "vd", "mount_points": ["D:\\"]},
                        {"id": "vknown", "mount_points": ["C:\\"], "os_volume": false},
                        {"id": "vsaid", "mount_points": ["S:\\"], "os_volume": true}],
            "sql_instances": [{"name": "MSSQLSERVER", "databases": [{"name": "Sales", "files": [
                {"type": "rows", "logical_name": "a", "physical_name": "W:\\WINDOWS\\a.mdf", "volume_id": "vw"},
                {"type": "rows", "logical_name": "b", "physical_name": "D:\\Data\\b.mdf", "volume_id": "vd"}]}]}]}"#;
        let doc = spindle_core::load::parse_snapshot("h.json", json.to_string()).unwrap();
        let view = HostView::build(vec![doc], Declarations::default());
        let os = OsVolumes::of_view(&view);
        let answers: Vec<(&str, bool)> =
            view.volumes.iter().flatten().map(|v| (v.id.as_str(), os.holds_os(v))).collect();
        for v in view.volumes.iter().flatten() {
            assert_eq!(os.holds_os(v), crate::volume_os::is_os_volume(&view, v), "{}", v.id);
        }
        assert_eq!(
            answers,
            [("vc", true), ("vroot", true), ("vw", true), ("vd", false), ("vknown", false), ("vsaid", true)]
        );
    }
}
