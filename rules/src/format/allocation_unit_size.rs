use spindle_core::declare_rule;
use spindle_core::facts::FsKind;
use spindle_core::finding::{Quantity, Severity};
use spindle_core::rule::Ctx;
use spindle_core::units;

use super::db_volumes::{data_or_log, fs_name, volumes_holding};

declare_rule! {
    /// ## What it checks
    /// Every NTFS or ReFS volume that holds data, log or tempdb files uses an allocation unit
    /// (cluster) of `allocation_unit_bytes`, 64 KiB by default. Cluster shared volumes (CSVFS)
    /// count as the NTFS or ReFS filesystem beneath them. ReFS is checked like NTFS (dbatools'
    /// `Test-DbaDiskAllocation` skips it; spindle does not). The volumes are found through the
    /// database files, by volume identity: a folder-mounted volume such as `E:\SQLData\` is
    /// judged on its own clusters, not on those of `E:\`.
    ///
    /// - A smaller cluster is a warning; the message names the database files on the volume.
    /// - A larger cluster (NTFS allows up to 2 MiB) is a note: more than 64 KiB brings nothing,
    ///   because SQL Server reads and writes in 8 KiB pages and 64 KiB extents and read-ahead
    ///   works in 64 KiB extents, while a cluster larger than the stripe unit breaks the
    ///   "stripe unit / cluster is an integer" correlation of the alignment guidance.
    /// - Exempt: the OS volume (`os_volume` true) and a cloud VM's temporary disk (`temp_disk`
    ///   true), which keep their 4 KiB default. When these two facts are unknown the volume is
    ///   checked; waive the finding if it is one of them.
    /// - Out of scope: Linux filesystems (xfs, ext4). Their block size has long been capped by
    ///   the memory page size (4 KiB on x86-64; only recent kernels let XFS go beyond it), and
    ///   Microsoft's Linux guidance sets no block-size target. Other filesystems (FAT32, exFAT,
    ///   ...) are the business of `filesystem-type` (FMT003).
    /// - Not evaluated: a volume whose filesystem or allocation unit was not collected.
    ///
    /// ## Why it matters
    /// NTFS defaults to 4 KiB clusters. SQL Server stores 8 KiB pages and reads 64 KiB extents:
    /// on a 4 KiB volume one extent is 16 clusters, on a 64 KiB volume it is one, and the volume
    /// is less fragmented as files grow. On two identical HP DL380 servers (RAID 5 of six 10K
    /// SAS disks) running the same ERP workload, the server whose volumes were aligned and
    /// formatted with 64 KiB clusters averaged 74 ms per read against 149.4 ms for the one left
    /// at 4 KiB clusters, with writes unchanged at 3 ms. Microsoft's partition alignment
    /// whitepaper and the SQL Server Assessment API (`NtfsBlockSizeNotFormatted`) both ask for
    /// 64 KiB on volumes holding data, log and tempdb files.
    ///
    /// ## How to fix
    /// The cluster size is set when the volume is formatted, so the files must move off the
    /// volume while it is reformatted (or move to a new 64 KiB volume):
    ///
    /// 1. Check: `Get-Volume | Select DriveLetter, FileSystem, AllocationUnitSize` or
    ///    `fsutil fsinfo ntfsinfo E:` ("Bytes Per Cluster"); for a folder-mounted volume,
    ///    `Get-CimInstance Win32_Volume | Select Name, BlockSize`.
    /// 2. Move the databases off (`ALTER DATABASE … MODIFY FILE (NAME = …, FILENAME = '…')`
    ///    with the database offline, or backup and restore).
    /// 3. Reformat: `Format-Volume -DriveLetter E -FileSystem NTFS -AllocationUnitSize 65536`
    ///    (ReFS: `-FileSystem ReFS -AllocationUnitSize 65536`), or `format E: /FS:NTFS /A:64K /Q`;
    ///    for a mounted folder, `Format-Volume -Path "\\?\Volume{…}\" -AllocationUnitSize 65536`.
    /// 4. Move the files back and bring the databases online.
    ///
    /// ## References
    /// - Seed `001_db29c6f2a9e66287.txt`: 4 KiB vs 64 KiB clusters on identical servers, 149.4 ms
    ///   vs 74 ms average reads.
    /// - Seed `000_48ca52fdbe0185ea.txt`: 64 KiB clusters recommended for data, log and tempdb
    ///   files; `format /fs:ntfs /A:64K`.
    /// - Microsoft, "Disk Partition Alignment Best Practices for SQL Server" (2009): 64 KiB
    ///   allocation unit; `stripe_unit_size / file_allocation_unit_size` an integer.
    /// - Azure, "Storage configuration for SQL Server VMs": 64 KiB for data and log volumes, the
    ///   temporary disk keeps its default.
    /// - SQL Server Assessment API rule `NtfsBlockSizeNotFormatted`.
    pub static ALLOCATION_UNIT_SIZE = {
        code: "FMT001",
        name: "allocation-unit-size",
        severity: Warning,
        summary: "NTFS and ReFS volumes holding data and log files use 64 KiB clusters",
        needs: [Volumes, DatabaseFiles],
        params: AllocationUnitSizeParams {
            allocation_unit_bytes: { kind: Bytes, default: Num(65536.0), doc: "Cluster size expected on NTFS and ReFS volumes holding data, log and tempdb files." },
        },
        check: check,
    }
}

fn check(cx: &mut Ctx<'_, AllocationUnitSizeParams>) {
    let expected = cx.params.allocation_unit_bytes;
    for dv in volumes_holding(cx, data_or_log) {
        let v = dv.volume;
        if v.os_volume == Some(true) || v.temp_disk == Some(true) {
            continue;
        }
        let Some(kind) = cx.need(v, "filesystem", v.fs_kind()) else { continue };
        if !matches!(kind, FsKind::Ntfs | FsKind::Refs) {
            continue;
        }
        cx.judged(v);
        let Some(au) = cx.need(v, "allocation_unit_bytes", v.allocation_unit_bytes) else { continue };
        if au == expected {
            continue;
        }
        let files = dv.describe_files();
        if au < expected {
            let message = format!(
                "{} volume {} uses {} clusters, smaller than the {} expected for SQL Server data and \
                 log volumes (one 64 KiB extent spans {} clusters); it holds {files}",
                fs_name(v),
                v.display_name(),
                units::binary(au),
                units::binary(expected),
                65_536_u64.div_ceil(au.max(1)),
            );
            cx.report(v, "allocation_unit_bytes", message)
                .values(units::bytes(au), units::bytes(expected))
                .quantities(Quantity::bytes(au), Quantity::bytes(expected));
        } else {
            let message = format!(
                "{} volume {} uses {} clusters; more than {} brings SQL Server nothing, as it \
                 reads and writes in 8 KiB pages and 64 KiB extents; it holds {files}",
                fs_name(v),
                v.display_name(),
                units::binary(au),
                units::binary(expected),
            );
            cx.report(v, "allocation_unit_bytes", message)
                .values(units::bytes(au), units::bytes(expected))
                .quantities(Quantity::bytes(au), Quantity::bytes(expected))
                .severity(Severity::Note)
                .fix(format!(
                    "Nothing is urgent: at the next rebuild of this volume, format it with {} \
                     clusters (`Format-Volume -AllocationUnitSize {expected}`).",
                    units::binary(expected)
                ));
        }
    }
}
