use spindle_core::declare_rule;
use spindle_core::facts::{FsKind, OsFamily};
use spindle_core::finding::Severity;
use spindle_core::params::NoParams;
use spindle_core::rule::Ctx;

use super::db_volumes::{any_file, fs_name, volumes_holding};
use crate::commands::{format_volume, fstab_path, linux_device, linux_mount, sh_word};
use crate::volume_os::os_of_volume;

declare_rule! {
    /// ## What it checks
    /// Every volume that holds database files uses a filesystem SQL Server supports and
    /// recommends for them:
    ///
    /// | OS | passes | note | warning |
    /// |---|---|---|---|
    /// | Windows | NTFS, ReFS (and CSVFS over either) | — | anything else: FAT32, exFAT, ... |
    /// | Linux | XFS | ext4 (supported; XFS is recommended) | anything else: ext3, btrfs, ... |
    ///
    /// ext4 gets a note rather than a pass because Microsoft's Linux guidance names XFS as the
    /// filesystem to use, and rather than a warning because ext4 is supported and moving a
    /// database to a new filesystem is a rebuild for a modest gain.
    ///
    /// The OS is the host's `os_family`. When it is not collected (or is `other`), it is read off
    /// the volume: Linux mount options, a `/…` mount point or a `/dev/…` id mean Linux; a drive
    /// letter or a `\\?\Volume{…}` id mean Windows. A filesystem that neither OS supports
    /// (FAT32, ext3, btrfs, ...) is a finding even when the OS stays unknown; an NTFS, ReFS,
    /// XFS or ext4 volume whose OS cannot be told is not evaluated. A volume whose filesystem was
    /// not collected is not evaluated.
    ///
    /// ## Example
    /// On Linux, tempdb on btrfs and a log on ext4:
    ///
    /// ```json
    /// {
    ///   "schema_version": 1,
    ///   "host": { "name": "sqllnx2", "os_family": "linux" },
    ///   "volumes": [
    ///     { "id": "/dev/sdc1", "mount_points": ["/var/opt/mssql/log"], "filesystem": "ext4" },
    ///     { "id": "/dev/sdd1", "mount_points": ["/var/opt/mssql/tempdb"], "filesystem": "btrfs" }
    ///   ],
    ///   "sql_instances": [
    ///     { "name": "MSSQLSERVER", "databases": [
    ///       { "name": "Sales", "files": [
    ///         { "type": "log", "logical_name": "Sales_Log",
    ///           "physical_name": "/var/opt/mssql/log/Sales_log.ldf" }
    ///       ] },
    ///       { "name": "tempdb", "files": [
    ///         { "type": "rows", "logical_name": "tempdev",
    ///           "physical_name": "/var/opt/mssql/tempdb/tempdb.mdf" }
    ///       ] }
    ///     ] }
    ///   ]
    /// }
    /// ```
    ///
    /// ```text
    /// note FMT003 sqllnx2 › volume /var/opt/mssql/log [/volumes/0/filesystem]
    ///   volume /var/opt/mssql/log is formatted ext4: supported, but Microsoft recommends XFS for SQL Server data and log files on Linux; it holds 1 database file: Sales_Log (Sales)
    ///   measured: ext4; expected: XFS
    /// warning FMT003 sqllnx2 › volume /var/opt/mssql/tempdb [/volumes/1/filesystem]
    ///   volume /var/opt/mssql/tempdb is formatted btrfs on Linux, where SQL Server files belong on XFS (ext4 supported); it holds 1 database file: tempdev (tempdb)
    ///   measured: btrfs; expected: XFS (ext4 supported)
    /// ```
    ///
    /// ## Why it matters
    /// On Windows, NTFS and ReFS are the filesystems for SQL Server files: FAT32 caps a file at
    /// 4 GiB, and neither FAT32 nor exFAT journals its metadata or supports the sparse files that
    /// database snapshots and `DBCC CHECKDB`'s internal snapshot use. SQL Server on Linux
    /// supports XFS and ext4 only; Microsoft recommends XFS for data and log files, and the Linux
    /// tuning it documents (`sunit`/`swidth` matching the RAID stripe, `noatime`) is written
    /// for it.
    ///
    /// ## How to fix
    /// Move the files to a volume with the right filesystem, or empty this one and reformat it:
    /// - Windows: `Format-Volume -DriveLetter E -FileSystem NTFS -AllocationUnitSize 65536`
    ///   (or `-FileSystem ReFS`).
    /// - Linux: `mkfs.xfs -f -L sqldata /dev/md0` (with `-d su=<stripe unit>,sw=<data disks>`
    ///   on a RAID set), then mount it with `noatime` in `/etc/fstab`:
    ///   `UUID=… /var/opt/mssql/data xfs rw,attr2,noatime 0 0`.
    ///
    /// Move the database files with `ALTER DATABASE … MODIFY FILE (NAME = …, FILENAME = '…')`,
    /// taking the database offline while the files are copied.
    ///
    /// ## References
    /// - Microsoft, "Performance best practices and configuration guidelines for SQL Server on
    ///   Linux": "SQL Server supports both ext4 and XFS filesystems ... Microsoft recommends
    ///   using XFS filesystem for hosting the SQL Server data and transaction log files":
    ///   <https://learn.microsoft.com/sql/linux/sql-server-linux-performance-best-practices>
    /// - Microsoft, "Installation guidance for SQL Server on Linux", system requirements: "XFS or
    ///   EXT4 (other file systems, such as BTRFS, are unsupported)":
    ///   <https://learn.microsoft.com/sql/linux/sql-server-linux-setup>
    /// - Microsoft, "Disk Partition Alignment Best Practices for SQL Server" (2009): data volumes
    ///   formatted NTFS with 64 KiB clusters:
    ///   <https://learn.microsoft.com/previous-versions/sql/sql-server-2008/dd758814(v=sql.100)>
    pub static FILESYSTEM_TYPE = {
        code: "FMT003",
        name: "filesystem-type",
        severity: Warning,
        summary: "Database volumes use NTFS or ReFS on Windows, XFS (or ext4) on Linux",
        since: "0.1.0",
        impact: Layout,
        remedy: [Rebuild(Filesystem)],
        needs: [Volumes, DatabaseFiles],
        params: [],
        check: check,
    }
}

/// What a filesystem is worth for SQL Server files on an OS.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    Good,
    /// Supported but not the recommended one.
    Supported,
    Wrong,
}

fn verdict(os: OsFamily, fs: FsKind) -> Verdict {
    match (os, fs) {
        (OsFamily::Windows, FsKind::Ntfs | FsKind::Refs) => Verdict::Good,
        (OsFamily::Linux, FsKind::Xfs) => Verdict::Good,
        (OsFamily::Linux, FsKind::Ext4) => Verdict::Supported,
        _ => Verdict::Wrong,
    }
}

fn check(cx: &mut Ctx<'_, NoParams>) {
    let view = cx.view;
    for dv in volumes_holding(cx, any_file) {
        let v = dv.volume;
        cx.judged(v);
        let Some(kind) = cx.need(v, "filesystem", v.fs_kind()) else { continue };
        let os = match os_of_volume(view, v) {
            Some(os @ (OsFamily::Windows | OsFamily::Linux)) => os,
            _ if kind == FsKind::Other => {
                // Supported on neither Windows nor Linux: the OS does not matter.
                let message = format!(
                    "volume {} is formatted {}, a filesystem SQL Server supports on neither \
                     Windows (NTFS, ReFS) nor Linux (XFS, ext4); it holds {}",
                    v.display_name(),
                    fs_name(v),
                    dv.describe_files()
                );
                let fix = format!(
                    "Move the files to a volume formatted NTFS or ReFS (Windows) or XFS (Linux), or empty {} \
                     and reformat it; move database files by pointing them at their new paths (`MODIFY FILE`) \
                     and copying them while the database is offline.",
                    v.display_name()
                );
                cx.report(v, "filesystem", message)
                    .values(fs_name(v).to_string(), "NTFS or ReFS (Windows), XFS (Linux)")
                    .fix(fix);
                continue;
            }
            _ => {
                cx.not_evaluated_because(
                    v,
                    "os_family",
                    "the host's os_family was not collected and the volume's mount points and id \
                     do not show its OS; set host.os_family",
                );
                continue;
            }
        };
        let expected = match os {
            OsFamily::Linux => "XFS (ext4 supported)",
            _ => "NTFS or ReFS",
        };
        let os_name = if os == OsFamily::Linux { "Linux" } else { "Windows" };
        match verdict(os, kind) {
            Verdict::Good => {}
            Verdict::Supported => {
                let message = format!(
                    "volume {} is formatted {}: supported, but Microsoft recommends XFS for SQL \
                     Server data and log files on Linux; it holds {}",
                    v.display_name(),
                    fs_name(v),
                    dv.describe_files()
                );
                cx.report(v, "filesystem", message)
                    .values(fs_name(v).to_string(), "XFS")
                    .severity(Severity::Note)
                    .fix(format!(
                        "Nothing is urgent: when {} is next rebuilt or replaced, format it XFS \
                         ({}) and mount it with `noatime`.",
                        v.display_name(),
                        mkfs_xfs(v)
                    ));
            }
            Verdict::Wrong => {
                let message = format!(
                    "volume {} is formatted {} on {os_name}, where SQL Server files belong on \
                     {expected}; it holds {}",
                    v.display_name(),
                    fs_name(v),
                    dv.describe_files()
                );
                let fix = match os {
                    OsFamily::Linux => format!(
                        "Move the files to an XFS volume, or empty {name} and reformat it: {}, then mount it \
                         with `noatime` in `/etc/fstab` (`UUID=<uuid> {} xfs rw,attr2,noatime 0 0`).",
                        mkfs_xfs(v),
                        fstab_path(linux_mount(v).unwrap_or("<mount point>")),
                        name = v.display_name(),
                    ),
                    _ => format!(
                        "Move the files to an NTFS or ReFS volume, or empty {} and reformat it: `{}` (or \
                         `-FileSystem ReFS`). Move the database files by pointing them at their new paths \
                         (`MODIFY FILE`) and copying them while the database is offline.",
                        v.display_name(),
                        format_volume(v, "NTFS", 65536)
                    ),
                };
                cx.report(v, "filesystem", message).values(fs_name(v).to_string(), expected).fix(fix);
            }
        }
    }
}

/// `mkfs.xfs` for this volume's device (with the RAID geometry left for the user to add).
fn mkfs_xfs(v: &spindle_core::facts::Volume) -> String {
    match linux_device(v) {
        Some(d) => {
            format!("`mkfs.xfs -f {}` (add `-d su=<stripe unit>,sw=<data disks>` on a RAID set)", sh_word(d))
        }
        None => {
            "`mkfs.xfs -f <device>` (add `-d su=<stripe unit>,sw=<data disks>` on a RAID set)".to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts() {
        assert_eq!(verdict(OsFamily::Windows, FsKind::Ntfs), Verdict::Good);
        assert_eq!(verdict(OsFamily::Windows, FsKind::Refs), Verdict::Good);
        assert_eq!(verdict(OsFamily::Windows, FsKind::Xfs), Verdict::Wrong);
        assert_eq!(verdict(OsFamily::Windows, FsKind::Other), Verdict::Wrong);
        assert_eq!(verdict(OsFamily::Linux, FsKind::Xfs), Verdict::Good);
        assert_eq!(verdict(OsFamily::Linux, FsKind::Ext4), Verdict::Supported);
        assert_eq!(verdict(OsFamily::Linux, FsKind::Ntfs), Verdict::Wrong);
        assert_eq!(verdict(OsFamily::Linux, FsKind::Other), Verdict::Wrong);
    }
}
