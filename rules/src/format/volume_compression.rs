use spindle_core::declare_rule;
use spindle_core::facts::FsKind;
use spindle_core::params::NoParams;
use spindle_core::rule::Ctx;

use super::db_volumes::{any_file, volumes_holding};
use crate::commands::{cmd_path, drive_letter};

declare_rule! {
    /// ## What it checks
    /// No volume that holds database files (data, log, tempdb, FILESTREAM, full-text) has
    /// filesystem compression turned on (`compressed`) or files encrypted with EFS
    /// (`encrypted`; BitLocker does not count and is fine). Each of the two facts is judged on its
    /// own: one that was not collected is "not evaluated" for that fact only.
    ///
    /// On xfs and ext4 volumes a missing `compressed` fact is not needed: neither filesystem has
    /// transparent compression. A missing `encrypted` fact is not needed on xfs, which has no
    /// file-level encryption; ext4 has one (fscrypt), so there it is still asked for. A value a
    /// collector did report is always judged.
    ///
    /// ## Example
    /// A compressed NTFS volume holding a read-only archive's data file:
    ///
    /// ```json
    /// {
    ///   "schema_version": 1,
    ///   "host": { "name": "sql05", "os_family": "windows" },
    ///   "volumes": [
    ///     { "id": "vol-d", "mount_points": ["D:\\"], "filesystem": "NTFS", "compressed": true,
    ///       "encrypted": false }
    ///   ],
    ///   "sql_instances": [
    ///     { "name": "MSSQLSERVER", "databases": [
    ///       { "name": "Archive", "files": [
    ///         { "type": "rows", "logical_name": "Archive_RO",
    ///           "physical_name": "D:\\Data\\Archive_ro.ndf" }
    ///       ] }
    ///     ] }
    ///   ]
    /// }
    /// ```
    ///
    /// ```text
    /// error FMT002 sql05 › volume D:\ [/volumes/0/compressed]
    ///   volume D:\ has filesystem compression on: I/O to its compressed files is synchronous; it holds 1 database file: Archive_RO (Archive)
    ///   measured: compression on; expected: compression off
    /// ```
    ///
    /// ## Why it matters
    /// Windows performs I/O to NTFS-compressed and EFS-encrypted files synchronously. SQL Server
    /// issues asynchronous I/O and counts on it for read-ahead, checkpoint and log writes: on
    /// such a file every I/O stalls the worker that issued it, and compression adds CPU work to
    /// every read and write. SQL Server accepts NTFS-compressed files only in read-only
    /// databases and read-only secondary filegroups; a compressed file in a read/write database
    /// fails with error 5118.
    ///
    /// ## How to fix
    /// - Compression: with the databases offline, `compact /U /S:E:\SQLData\ /I /Q`
    ///   decompresses the files and clears the folder's compress attribute so new files are not
    ///   compressed (for the whole volume: `compact /U /S:E:\ /I /Q`); check with
    ///   `compact /S:E:\SQLData\` and `fsutil fsinfo volumeinfo E:`.
    /// - EFS: `cipher /D /S:E:\SQLData\` decrypts in place (databases offline); check with
    ///   `cipher /S:E:\SQLData\`. To encrypt data at rest use Transparent Data Encryption or
    ///   BitLocker instead, which keep I/O asynchronous.
    ///
    /// ## References
    /// - Microsoft, "Troubleshoot slow SQL Server performance caused by I/O issues": compression
    ///   and EFS make SQL Server's asynchronous I/O synchronous:
    ///   <https://learn.microsoft.com/troubleshoot/sql/database-engine/performance/troubleshoot-sql-io-performance>
    /// - Microsoft, "Description of support for SQL Server databases on compressed volumes":
    ///   read-only databases and filegroups only:
    ///   <https://learn.microsoft.com/troubleshoot/sql/database-engine/database-file-operations/support-databases-compressed-volumes>
    /// - Microsoft, "Asynchronous disk I/O appears as synchronous on Windows" (KB 156932): NTFS
    ///   compression and encryption are among the causes.
    pub static VOLUME_COMPRESSION = {
        code: "FMT002",
        name: "volume-compression",
        severity: Error,
        summary: "No filesystem compression or EFS on volumes holding database files",
        since: "0.1.0",
        impact: Layout,
        needs: [Volumes, DatabaseFiles],
        params: [],
        check: check,
    }
}

fn check(cx: &mut Ctx<'_, NoParams>) {
    for dv in volumes_holding(cx, any_file) {
        let v = dv.volume;
        cx.judged(v);
        let kind = v.fs_kind();
        // xfs and ext4 have no transparent compression; xfs has no file-level encryption.
        let no_compression = matches!(kind, Some(FsKind::Xfs | FsKind::Ext4));
        let no_encryption = matches!(kind, Some(FsKind::Xfs));
        let compressed = if no_compression && v.compressed.is_none() {
            Some(false)
        } else {
            cx.need(v, "compressed", v.compressed)
        };
        if compressed == Some(true) {
            let message = format!(
                "volume {} has filesystem compression on: I/O to its compressed files is \
                 synchronous; it holds {}",
                v.display_name(),
                dv.describe_files()
            );
            let dir = cmd_path(v.mount_points.first().unwrap_or(&v.id));
            let letter =
                drive_letter(v).map(|l| format!(" and `fsutil fsinfo volumeinfo {l}:`")).unwrap_or_default();
            cx.report(v, "compressed", message).values("compression on", "compression off").fix(format!(
                "With the databases offline, `compact /U /S:{dir} /I /Q` decompresses the files on {} and \
                 clears the folders' compress attribute so new files are not compressed; check with \
                 `compact /S:{dir}`{letter}.",
                v.display_name()
            ));
        }
        let encrypted = if no_encryption && v.encrypted.is_none() {
            Some(false)
        } else {
            cx.need(v, "encrypted", v.encrypted)
        };
        if encrypted == Some(true) {
            let message = format!(
                "volume {} has EFS-encrypted files: I/O to them is synchronous; it holds {}",
                v.display_name(),
                dv.describe_files()
            );
            let dir = cmd_path(v.mount_points.first().unwrap_or(&v.id));
            cx.report(v, "encrypted", message).values("EFS in use", "no EFS").fix(format!(
                "With the databases offline, `cipher /D /S:{dir}` decrypts the files on {} in place; check \
                 with `cipher /S:{dir}`. To encrypt data at rest use Transparent Data Encryption or \
                 BitLocker instead, which keep I/O asynchronous.",
                v.display_name()
            ));
        }
    }
}
