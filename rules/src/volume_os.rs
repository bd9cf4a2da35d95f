//! What a volume says about the system it serves: which operating system it belongs to, and
//! whether it holds the running one. Fixes, the plan and the rules that judge filesystems all
//! ask; keeping it here, under none of them, lets each use it without using the others.

use spindle_core::facts::{OsFamily, Volume};
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
/// here would copy off and delete the system.
pub(crate) fn is_os_volume(view: &HostView, v: &Volume) -> bool {
    match v.os_volume {
        Some(known) => known,
        None => {
            v.mount_points
                .iter()
                .any(|m| m.eq_ignore_ascii_case("C:\\") || m.eq_ignore_ascii_case("C:") || m == "/")
                || view.files().any(|(_, f)| {
                    f.physical_name.as_deref().is_some_and(|p| p.to_ascii_lowercase().contains("\\windows\\"))
                        && view.volume_of_file(f).is_ok_and(|fv| fv.id == v.id)
                })
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
}
