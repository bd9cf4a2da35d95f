use spindle_core::declare_rule;
use spindle_core::finding::Quantity;
use spindle_core::rule::Ctx;
use spindle_core::units;

use spindle_core::view::HostView;

use crate::commands::{drive_letter, get_volume, is_linux, linux_mount, sh_word, tsql_string};
use crate::format::db_volumes::{DbVolume, any_file, volumes_holding};

declare_rule! {
    /// ## What it checks
    /// Every volume that holds database files (data, log, tempdb, FILESTREAM, full-text) has at
    /// least `min_free_percent` (20 % by default) of its size free: `free_bytes / size_bytes ≥
    /// 20 %`. Exactly 20 % passes. Volumes are found through the database files, by volume
    /// identity, so a folder-mounted volume (`E:\SQLData\`) is judged on its own free space, not
    /// on that of `E:\`. A volume whose size or free space was not collected is not evaluated.
    ///
    /// ## Example
    /// A data volume with 80 GiB free of 1 TiB:
    ///
    /// ```json
    /// {
    ///   "schema_version": 1,
    ///   "host": { "name": "sql11", "os_family": "windows" },
    ///   "volumes": [
    ///     { "id": "vol-d", "mount_points": ["D:\\"], "filesystem": "NTFS",
    ///       "size_bytes": 1099511627776,
    ///       "free_bytes": 85899345920 }
    ///   ],
    ///   "sql_instances": [
    ///     { "name": "MSSQLSERVER", "databases": [
    ///       { "name": "Sales", "files": [
    ///         { "type": "rows", "logical_name": "Sales_Data",
    ///           "physical_name": "D:\\Data\\Sales.mdf" }
    ///       ] }
    ///     ] }
    ///   ]
    /// }
    /// ```
    ///
    /// ```text
    /// warning CAP001 sql11 › volume D:\ [/volumes/0/free_bytes]
    ///   volume D:\ has 80 GiB free of 1 TiB (7.8 %), below the 20 % it should keep free; it holds 1 database file: Sales_Data (Sales)
    ///   measured: 85,899,345,920 B (80 GiB) free of 1,099,511,627,776 B (1 TiB) (7.8 %); expected: at least 20 % free
    /// ```
    ///
    /// ## Why it matters
    /// Data and log files grow into the free space of their volume. When it runs out, autogrowth
    /// fails: a full log stops every write to the database (error 9002), a full data file fails
    /// the inserts that needed the space (error 1105), and a full tempdb volume fails queries
    /// across the instance. Below 20 % free there is little room for a growth burst, an index
    /// rebuild or a long-running transaction's log, and an NTFS volume that is nearly full
    /// fragments the files that do grow.
    ///
    /// ## How to fix
    /// - See what takes the space: `Get-Volume | Select DriveLetter, Size, SizeRemaining`
    ///   (`Get-CimInstance Win32_Volume | Select Name, Capacity, FreeSpace` for mounted folders),
    ///   `df -h /var/opt/mssql/data` on Linux, and in SQL Server
    ///   `SELECT * FROM sys.dm_os_volume_stats(DB_ID(), 1)`.
    /// - Extend the volume (`Resize-Partition -DriveLetter E -Size (Get-PartitionSupportedSize
    ///   -DriveLetter E).SizeMax` after growing the LUN or virtual disk; `xfs_growfs` on Linux),
    ///   or move a database to another volume.
    /// - Reclaim space that is not the database's: old backups, dumps, copies of files.
    ///   Shrinking data files is a last resort: it fragments indexes.
    ///
    /// ## References
    /// - dbachecks `DiskCapacity` check: 20 % free space on volumes holding database files:
    ///   <https://github.com/dataplat/dbachecks>
    /// - Microsoft, "Troubleshoot a full transaction log (SQL Server Error 9002)":
    ///   <https://learn.microsoft.com/sql/relational-databases/logs/troubleshoot-a-full-transaction-log-sql-server-error-9002>
    pub static VOLUME_FREE_SPACE = {
        code: "CAP001",
        name: "volume-free-space",
        severity: Warning,
        summary: "Volumes holding database files keep at least 20 % free",
        since: "0.1.0",
        impact: Measured,
        remedy: [Manual(AskPlatformTeam)],
        needs: [Volumes, DatabaseFiles],
        params: VolumeFreeSpaceParams {
            min_free_percent: { kind: Percent, default: Num(20.0), doc: "Least share of a volume's size that must be free." },
        },
        check: check,
    }
}

/// The free share as a percentage; with two decimals when one decimal would round it up to the
/// threshold, rounded down ("19.99 %", not "20 %" below a 20 % minimum).
fn free_share(share: f64, min_percent: f64) -> String {
    let one = units::percent(share);
    if one == units::percent(min_percent / 100.0) {
        format!("{} %", spindle_core::units::fixed((share * 10_000.0).floor() / 100.0, 2))
    } else {
        one
    }
}

fn check(cx: &mut Ctx<'_, VolumeFreeSpaceParams>) {
    let min_percent = cx.params.min_free_percent;
    for dv in volumes_holding(cx, any_file) {
        let v = dv.volume;
        cx.judged(v);
        let Some(size) = cx.need(v, "size_bytes", v.size_bytes) else { continue };
        let Some(free) = cx.need(v, "free_bytes", v.free_bytes) else { continue };
        if size == 0 {
            cx.not_evaluated_because(v, "size_bytes", "the collector reported a size of 0 bytes");
            continue;
        }
        if units::at_least_percent(free, size, min_percent) {
            continue;
        }
        let share = free as f64 / size as f64;
        let shown = free_share(share, min_percent);
        let message = format!(
            "volume {} has {} free of {} ({}), below the {} it should keep free; it holds {}",
            v.display_name(),
            units::binary(free),
            units::binary(size),
            shown,
            units::percent(min_percent / 100.0),
            dv.describe_files()
        );
        let fix = make_room_fix(cx.view, &dv);
        cx.report(v, "free_bytes", message)
            .values(
                format!("{} free of {} ({shown})", units::bytes(free), units::bytes(size)),
                format!("at least {} free", units::percent(min_percent / 100.0)),
            )
            .quantities(Quantity::percent(share * 100.0), Quantity::percent(min_percent))
            .fix(fix);
    }
}

/// See what takes the space on this volume, extend it, or move a database off: the commands for
/// this volume and one of its files.
fn make_room_fix(view: &HostView, dv: &DbVolume<'_>) -> String {
    let v = dv.volume;
    let name = v.display_name();
    let (look, extend) = if is_linux(view, v) {
        let at = sh_word(linux_mount(v).unwrap_or(&v.id));
        (
            format!("`df -h {at}`"),
            format!("`xfs_growfs {at}` (ext4: `resize2fs` on the device) after growing the device"),
        )
    } else {
        let extend = match drive_letter(v) {
            Some(l) => format!(
                "`Resize-Partition -DriveLetter {l} -Size (Get-PartitionSupportedSize -DriveLetter {l}).SizeMax`"
            ),
            None => format!(
                "`$p = {} | Get-Partition; $p | Resize-Partition -Size ($p | Get-PartitionSupportedSize).SizeMax`",
                get_volume(v)
            ),
        };
        (
            format!("`{} | Select-Object Size, SizeRemaining`", get_volume(v)),
            format!("{extend} after growing the LUN or virtual disk"),
        )
    };
    let sql = dv
        .files
        .first()
        .map(|(db, f)| {
            let file = f.file_id.map_or_else(|| "1".to_string(), |id| id.to_string());
            format!(
                ", and from SQL Server `SELECT * FROM sys.dm_os_volume_stats(DB_ID({}), {file})`",
                tsql_string(&db.db.name)
            )
        })
        .unwrap_or_default();
    format!(
        "- See what takes the space on {name}: {look}{sql}.\n\
         - Extend {name}: {extend}; or move a database to another volume.\n\
         - Reclaim space that is not the databases': old backups, dumps, copies of files. Shrinking \
         data files is a last resort: it fragments indexes."
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn share_never_displays_as_the_threshold() {
        assert_eq!(super::free_share(0.19996, 20.0), "19.99 %");
        assert_eq!(super::free_share(0.1999, 20.0), "19.99 %");
        assert_eq!(super::free_share(0.078, 20.0), "7.8 %");
    }
}
