use spindle_core::declare_rule;
use spindle_core::facts::{FsKind, OsFamily, Volume};
use spindle_core::params::NoParams;
use spindle_core::rule::Ctx;

use super::db_volumes::{data_or_log, fs_name, is_linux_fs, volumes_holding};
use crate::commands::{fstab_path, linux_device, linux_mount, sh_word};
use crate::volume_os::os_of_volume;

declare_rule! {
    /// ## What it checks
    /// Every Linux volume that holds data or log files (tempdb's included) is mounted with
    /// `noatime`. A volume counts as Linux when its filesystem is xfs or ext4, or when the host
    /// (or, if the host's OS is unknown, the volume's mount points, id or mount options) says
    /// Linux. `relatime`, the kernel's default, is not enough: Microsoft's guidance asks for
    /// `noatime` by name, and `relatime` still writes the access time whenever a file is read
    /// after it was modified, which a database file always is. `lazytime` only delays those
    /// writes. A volume whose mount options were not collected is not evaluated; Windows
    /// volumes are out of scope.
    ///
    /// ## Example
    /// An XFS data volume mounted with the kernel's default, `relatime`:
    ///
    /// ```json
    /// {
    ///   "schema_version": 1,
    ///   "host": { "name": "sqllnx3", "os_family": "linux" },
    ///   "volumes": [
    ///     { "id": "/dev/md0", "mount_points": ["/var/opt/mssql/data"], "filesystem": "xfs",
    ///       "mount_options": ["rw", "relatime", "attr2", "inode64", "noquota"] }
    ///   ],
    ///   "sql_instances": [
    ///     { "name": "MSSQLSERVER", "databases": [
    ///       { "name": "Sales", "files": [
    ///         { "type": "rows", "logical_name": "Sales_Data",
    ///           "physical_name": "/var/opt/mssql/data/Sales.mdf" }
    ///       ] }
    ///     ] }
    ///   ]
    /// }
    /// ```
    ///
    /// ```text
    /// warning FMT004 sqllnx3 › volume /var/opt/mssql/data [/volumes/0/mount_options]
    ///   xfs volume /var/opt/mssql/data is mounted with relatime, which still writes the access time on the first read after each write to the file, and on a read a day after the last update; noatime expected; it holds 1 database file: Sales_Data (Sales)
    ///   measured: rw,relatime,attr2,inode64,noquota; expected: noatime
    /// ```
    ///
    /// ## Why it matters
    /// Without `noatime` the filesystem updates the file's last-access time on reads, a small
    /// metadata write the log and data files do not need. Microsoft's Linux guidance says: "Use
    /// the `noatime` attribute with any filesystem that stores SQL Server data and log files."
    /// The gain per I/O is small; it grows with the number of database files.
    ///
    /// ## How to fix
    /// Add `noatime` to the volume's options in `/etc/fstab` (refer to the device by UUID, from
    /// `blkid`), for example:
    ///
    /// `UUID=xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx /var/opt/mssql/data xfs rw,attr2,noatime 0 0`
    ///
    /// then apply it without a restart: `mount -o remount,noatime /var/opt/mssql/data`, and
    /// check with `findmnt -no OPTIONS /var/opt/mssql/data`.
    ///
    /// ## References
    /// - Microsoft, "Performance best practices and configuration guidelines for SQL Server on
    ///   Linux", section "Disable last accessed date and time on filesystems for SQL Server data
    ///   and log files" (`noatime`; fstab example `rw,attr2,noatime`):
    ///   <https://learn.microsoft.com/sql/linux/sql-server-linux-performance-best-practices>
    /// - `mount(8)`, the `noatime`, `relatime` and `lazytime` options:
    ///   <https://man7.org/linux/man-pages/man8/mount.8.html>
    pub static LINUX_MOUNT_OPTIONS = {
        code: "FMT004",
        name: "linux-mount-options",
        severity: Warning,
        summary: "Linux volumes holding data and log files are mounted with noatime",
        since: "0.1.0",
        impact: Layout,
        remedy: [MountOptions],
        needs: [Volumes, DatabaseFiles],
        params: [],
        check: check,
    }
}

/// The mount options as single words: collectors may report `["rw", "noatime"]` or the
/// `/proc/mounts` field `["rw,noatime"]`.
fn options(v: &Volume) -> Option<Vec<&str>> {
    let opts = v.mount_options.as_ref()?;
    Some(opts.iter().flat_map(|o| o.split(',')).map(str::trim).filter(|o| !o.is_empty()).collect())
}

/// How the volume handles access times, and what that costs, for the message.
fn atime_mode(opts: &[&str]) -> String {
    let has = |o: &str| opts.contains(&o);
    if has("strictatime") || has("atime") {
        let o = if has("strictatime") { "strictatime" } else { "atime" };
        return format!("with {o}: every read writes the file's access time");
    }
    let relatime = "still writes the access time on the first read after each write to the file, \
                    and on a read a day after the last update";
    let lazy = if has("lazytime") { " (lazytime only delays those writes)" } else { "" };
    if has("relatime") {
        format!("with relatime, which {relatime}{lazy}")
    } else {
        format!("without an atime option, so with the kernel default relatime, which {relatime}{lazy}")
    }
}

fn check(cx: &mut Ctx<'_, NoParams>) {
    let view = cx.view;
    for dv in volumes_holding(cx, data_or_log) {
        let v = dv.volume;
        let linux = is_linux_fs(v) || os_of_volume(view, v) == Some(OsFamily::Linux);
        if !linux {
            // A known Windows volume is out of scope; one whose OS cannot be told either way
            // is not evaluated.
            let windows = os_of_volume(view, v) == Some(OsFamily::Windows)
                || matches!(v.fs_kind(), Some(FsKind::Ntfs | FsKind::Refs));
            if !windows {
                cx.not_evaluated_because(
                    v,
                    "os_family",
                    "neither the host's os_family nor the volume's filesystem, mount points or id \
                     show whether it is a Linux volume; set host.os_family",
                );
            }
            continue;
        }
        cx.judged(v);
        let Some(opts) = options(v) else {
            cx.not_evaluated(v, "mount_options");
            continue;
        };
        if opts.contains(&"noatime") {
            continue;
        }
        let message = format!(
            "{} volume {} is mounted {}; noatime expected; it holds {}",
            fs_name(v),
            v.display_name(),
            atime_mode(&opts),
            dv.describe_files()
        );
        let at = linux_mount(v).unwrap_or(&v.id);
        let mount = sh_word(at);
        let fs = v.filesystem.as_deref().unwrap_or("xfs");
        let uuid =
            linux_device(v).map(|d| format!(" (`blkid {}` gives the UUID)", sh_word(d))).unwrap_or_default();
        let fix = format!(
            "Add `noatime` to the options of {mount} in `/etc/fstab`, referring to the device by UUID{uuid}:\n\n\
             `UUID=<uuid> {} {fs} {},noatime 0 0`\n\n\
             then apply it without a restart: `mount -o remount,noatime {mount}`, and check with \
             `findmnt -no OPTIONS {mount}`.",
            fstab_path(at),
            opts.iter()
                .filter(|o| !matches!(**o, "relatime" | "strictatime" | "atime"))
                .copied()
                .collect::<Vec<_>>()
                .join(","),
        );
        cx.report(v, "mount_options", message).values(opts.join(","), "noatime").fix(fix);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vol(opts: &[&str]) -> Volume {
        Volume { mount_options: Some(opts.iter().map(|s| s.to_string()).collect()), ..Default::default() }
    }

    #[test]
    fn splits_proc_mounts_field() {
        let v = vol(&["rw,noatime,attr2", "inode64"]);
        assert_eq!(options(&v).unwrap(), ["rw", "noatime", "attr2", "inode64"]);
    }

    #[test]
    fn names_the_atime_mode() {
        assert!(atime_mode(&["rw", "relatime"]).starts_with("with relatime, which still writes"));
        assert!(atime_mode(&["rw"]).starts_with("without an atime option, so with the kernel default"));
        assert!(atime_mode(&["rw", "relatime", "lazytime"]).ends_with("(lazytime only delays those writes)"));
        assert_eq!(
            atime_mode(&["strictatime"]),
            "with strictatime: every read writes the file's access time"
        );
    }
}
