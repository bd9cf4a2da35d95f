use spindle_core::declare_rule;
use spindle_core::facts::FsKind;
use spindle_core::finding::{Quantity, Severity};
use spindle_core::rule::Ctx;
use spindle_core::units;

use super::db_volumes::{DbVolume, data_or_log, fs_name, volumes_holding};
use crate::commands::{drive_letter, format_volume, move_file, ps_string, relocated};

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
    /// ## Example
    /// A data volume formatted with NTFS's default 4 KiB clusters:
    ///
    /// ```json
    /// {
    ///   "schema_version": 1,
    ///   "host": { "name": "sql01", "os_family": "windows" },
    ///   "volumes": [{ "id": "vol-e", "mount_points": ["E:\\"], "filesystem": "NTFS",
    ///                 "allocation_unit_bytes": 4096 }],
    ///   "sql_instances": [
    ///     { "name": "MSSQLSERVER", "databases": [
    ///       { "name": "Sales", "files": [
    ///         { "type": "rows", "logical_name": "Sales_Data",
    ///           "physical_name": "E:\\Data\\Sales.mdf" }
    ///       ] }
    ///     ] }
    ///   ]
    /// }
    /// ```
    ///
    /// ```text
    /// warning FMT001 sql01 › volume E:\ [/volumes/0/allocation_unit_bytes]
    ///   NTFS volume E:\ uses 4 KiB clusters, smaller than the 64 KiB expected for SQL Server data and log volumes (one 64 KiB extent spans 16 clusters); it holds 1 database file: Sales_Data (Sales)
    ///   measured: 4,096 B (4 KiB); expected: 65,536 B (64 KiB)
    /// ```
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
    /// - Microsoft, "Disk Partition Alignment Best Practices for SQL Server" (2009): 64 KiB
    ///   allocation unit; `stripe_unit_size / file_allocation_unit_size` an integer:
    ///   <https://learn.microsoft.com/previous-versions/sql/sql-server-2008/dd758814(v=sql.100)>
    /// - Azure, "Storage configuration for SQL Server VMs": 64 KiB for data and log volumes, the
    ///   temporary disk keeps its default:
    ///   <https://learn.microsoft.com/azure/azure-sql/virtual-machines/windows/storage-configuration>
    /// - SQL Server Assessment API (rule `NtfsBlockSizeNotFormatted`):
    ///   <https://learn.microsoft.com/sql/tools/sql-assessment-api/sql-assessment-api-overview>
    /// - The ERP case above: average read stall per file from `sys.dm_io_virtual_file_stats`,
    ///   149.4 ms with 4 KiB clusters and sector-63 partitions, 74 ms aligned with 64 KiB clusters.
    pub static ALLOCATION_UNIT_SIZE = {
        code: "FMT001",
        name: "allocation-unit-size",
        severity: Warning,
        summary: "NTFS and ReFS volumes holding data and log files use 64 KiB clusters",
        since: "0.1.0",
        impact: Layout,
        remedy: [Rebuild(AllocationUnit)],
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
            let fs = if kind == FsKind::Refs { "ReFS" } else { "NTFS" };
            cx.report(v, "allocation_unit_bytes", message)
                .values(units::bytes(au), units::bytes(expected))
                .quantities(Quantity::bytes(au), Quantity::bytes(expected))
                .fix(reformat_fix(&dv, fs, expected));
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
                    "Nothing is urgent: at the next rebuild of {}, format it with {} clusters (`{}`).",
                    v.display_name(),
                    units::binary(expected),
                    format_volume(v, if kind == FsKind::Refs { "ReFS" } else { "NTFS" }, expected)
                ));
        }
    }
}

/// Move the files off this volume, reformat it with `expected`-byte clusters, move them back:
/// each step named for this volume and its files.
fn reformat_fix(dv: &DbVolume<'_>, fs: &str, expected: u64) -> String {
    let v = dv.volume;
    let name = v.display_name();
    let check = match drive_letter(v) {
        Some(l) => format!("`Get-Volume -DriveLetter {l} | Select-Object FileSystem, AllocationUnitSize`"),
        None => format!(
            "`Get-CimInstance Win32_Volume | Where-Object Name -eq {} | Select-Object Name, BlockSize`",
            ps_string(v.mount_points.first().unwrap_or(&v.id))
        ),
    };
    let moves: Vec<String> = dv
        .files
        .iter()
        .take(MOVES_SHOWN)
        .map(|(db, f)| format!("   {}", move_file(&db.db.name, f, &relocated(f, "new folder"))))
        .collect();
    let more = match dv.files.len().saturating_sub(MOVES_SHOWN) {
        0 => String::new(),
        n => format!("\n   -- and the same for the {n} other files on {name}"),
    };
    format!(
        "The cluster size is set when the volume is formatted, so the files must move off {name} while \
         it is reformatted (or move to a new {} volume):\n\n\
         1. Check: {check}.\n\
         2. Take the databases offline and move their files off {name} (tempdb's are recreated at \
         start-up: point them elsewhere and restart), or back up and restore elsewhere:\n{}{more}\n\
         3. Reformat: `{}`.\n\
         4. Move the files back to their folders on {name} and bring the databases online.",
        units::binary(expected),
        moves.join("\n"),
        format_volume(v, fs, expected),
    )
}

/// The files whose move a fix spells out; the rest are counted.
const MOVES_SHOWN: usize = 3;
