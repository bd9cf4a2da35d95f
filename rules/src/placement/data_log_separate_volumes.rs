use spindle_core::declare_rule;
use spindle_core::facts::FileType;
use spindle_core::finding::Quantity;
use spindle_core::rule::Ctx;

use super::files::{and_list, file_name, location_field, plural, user_scope, volume_of};
use crate::commands::{move_user_file, tsql_name};

declare_rule! {
    /// ## What it checks
    /// No log file of a database is on the same volume as one of that database's data (ROWS)
    /// files. "Same volume" means the same volume identity: the `volume_id` SQL Server reports
    /// for the file (`sys.dm_os_volume_stats`), or, when it is absent (SQL Server on Linux
    /// reports none), the volume whose mount point is the longest prefix of the file's path.
    /// Drive letters are never compared: `E:\SQLData\` and `E:\SQLLogs\` mounted as folders under
    /// `E:\` are three different volumes and pass, and `/var/opt/mssql/data` and
    /// `/var/opt/mssql/log` pass when each is its own mount. A file whose volume cannot be
    /// determined (no `volume_id` and no collected volume whose mount point holds its path, or an
    /// empty `volume_id` for a file on a UNC share) is reported "not evaluated".
    ///
    /// User databases are judged. master, model and msdb are judged only with
    /// `include_system_databases = "yes"`: their log traffic is small and a default install puts
    /// them in one directory. tempdb is left to PLC004 (its own volume) and PLC005 (its data
    /// files): its log is not used for recovery and it is usually placed as a whole.
    ///
    /// ## Example
    /// A database whose data and log files are both on D:\:
    ///
    /// ```json
    /// {
    ///   "schema_version": 1,
    ///   "host": { "name": "sql01", "os_family": "windows" },
    ///   "volumes": [{ "id": "vol-d", "mount_points": ["D:\\"], "filesystem": "NTFS" }],
    ///   "sql_instances": [
    ///     { "name": "MSSQLSERVER", "databases": [
    ///       { "name": "Orders", "files": [
    ///         { "type": "rows", "logical_name": "Orders",
    ///           "physical_name": "D:\\Data\\Orders.mdf" },
    ///         { "type": "log", "logical_name": "Orders_log",
    ///           "physical_name": "D:\\Logs\\Orders_log.ldf" }
    ///       ] }
    ///     ] }
    ///   ]
    /// }
    /// ```
    ///
    /// ```text
    /// warning PLC001 sql01 › MSSQLSERVER › Orders › Orders_log (D:\Logs\Orders_log.ldf) [/sql_instances/0/databases/0/files/1/physical_name]
    ///   log file shares volume D:\ with the data file Orders (D:\Data\Orders.mdf)
    ///   measured: volume D:\, holding 1 data file of the database; expected: a volume holding none of the database's data files
    /// ```
    ///
    /// ## Why it matters
    /// SQL Server writes the log sequentially and waits for each log write before a transaction
    /// commits; data files see random 8 KiB reads and checkpoint writes. On one volume, and so on the same spindles or the same
    /// provisioned-IOPS disk, the random data I/O breaks the log's sequential stream and every
    /// commit waits behind reads and checkpoint bursts. Separate volumes let the two patterns
    /// proceed at the same time and let each be sized and cached for its pattern (on Azure: data
    /// disks with ReadOnly host caching, log disks with none). Volumes carved from the same
    /// disks separate the file systems but not the I/O: they pass this rule, and the latency
    /// and striping rules judge the disks underneath.
    ///
    /// Tools that compare drive letters (sp_Blitz, the Policy-Based Management policy, which
    /// says itself that it "cannot detect separate physical devices through mount points") flag
    /// folder-mounted and Linux layouts that are in fact separate; this rule does not.
    ///
    /// ## How to fix
    /// Move the log file to a volume that holds none of the database's data files (a volume
    /// striped over several disks if log throughput matters, STR003):
    ///
    /// ```sql
    /// ALTER DATABASE [Sales] MODIFY FILE (NAME = Sales_log, FILENAME = 'L:\SQLLogs\Sales_log.ldf');
    /// ALTER DATABASE [Sales] SET OFFLINE WITH ROLLBACK IMMEDIATE;
    /// -- copy the .ldf to L:\SQLLogs\ (keep the service account's permissions), then:
    /// ALTER DATABASE [Sales] SET ONLINE;
    /// ```
    ///
    /// For a new volume mounted as a folder: `Add-PartitionAccessPath -DiskNumber 3
    /// -PartitionNumber 2 -AccessPath 'E:\SQLLogs\'`; on Linux, `mkfs.xfs /dev/sdc1`, mount it
    /// at `/var/opt/mssql/log` with `noatime` in `/etc/fstab`, and set the default with
    /// `mssql-conf set filelocation.defaultlogdir /var/opt/mssql/log`. A database can also be
    /// moved with `RESTORE DATABASE ... WITH MOVE`.
    ///
    /// ## References
    /// - Azure, "Checklist: Best practices for SQL Server on Azure VMs": data and log on
    ///   separate disks:
    ///   <https://learn.microsoft.com/azure/azure-sql/virtual-machines/windows/performance-guidelines-best-practices-checklist>
    /// - Azure, "Performance guidelines for SQL Server on Azure VMs — storage":
    ///   <https://learn.microsoft.com/azure/azure-sql/virtual-machines/windows/performance-guidelines-best-practices-storage>
    /// - Microsoft Learn, "Move user databases":
    ///   <https://learn.microsoft.com/sql/relational-databases/databases/move-database-files>
    /// - Policy-Based Management, "Place Data and Log Files on Separate Drives" (SMO
    ///   `DataAndLogFilesOnSeparateLogicalVolumes`).
    pub static DATA_LOG_SEPARATE_VOLUMES = {
        code: "PLC001",
        name: "data-log-separate-volumes",
        severity: Warning,
        summary: "A database's log files are on a different volume from its data files",
        since: "0.1.0",
        impact: Configuration,
        remedy: [MoveFiles(Placement)],
        needs: [DatabaseFiles],
        params: DataLogSeparateVolumesParams {
            include_system_databases: { kind: Choice(bool), default: Text("no"), doc: "Also judge master, model and msdb (\"yes\"), or user databases only (\"no\")." },
        },
        check: check,
    }
}

fn check(cx: &mut Ctx<'_, DataLogSeparateVolumesParams>) {
    let view = cx.view;
    let system = cx.params.include_system_databases;
    for dv in view.databases.iter().filter(|d| user_scope(d, system)) {
        let Some(files) = cx.need(&dv.db, "files", dv.files.as_ref()) else { continue };
        let data: Vec<_> = files.iter().filter(|f| f.file_type == FileType::Rows).collect();
        let logs: Vec<_> = files.iter().filter(|f| f.file_type == FileType::Log).collect();
        if data.is_empty() || logs.is_empty() {
            let listed =
                format!("{} and {}", plural(data.len(), "data file"), plural(logs.len(), "log file"));
            cx.not_evaluated_because(
                &dv.db,
                "files",
                format!(
                    "the collected files list {listed}; every database has both, so the list is incomplete"
                ),
            );
            continue;
        }
        let mut data_volumes = Vec::with_capacity(data.len());
        let data_count = data.len();
        for f in data {
            match volume_of(view, f) {
                Ok(v) => data_volumes.push((f, v)),
                Err(why) => cx.unknown_volume(f, &why),
            }
        }
        for log in logs {
            let lv = match volume_of(view, log) {
                Ok(lv) => lv,
                Err(why) => {
                    cx.unknown_volume(log, &why);
                    continue;
                }
            };
            // Judged only against every data file: one on an unknown volume leaves it open.
            if data_volumes.len() == data_count {
                cx.judged(log);
            }
            let shared: Vec<String> =
                data_volumes.iter().filter(|(_, v)| v.key == lv.key).map(|(f, _)| file_name(f)).collect();
            if shared.is_empty() {
                continue;
            }
            let which = if shared.len() == 1 { "data file" } else { "data files" };
            let fix = format!(
                "Move the log file to a volume that holds none of {}'s data files (a volume striped over \
                 several disks if log throughput matters, STR003):\n\n```sql\n{}\n```",
                tsql_name(&dv.db.name),
                move_user_file(&dv.db.name, log, &format!("a volume other than {}", lv.name)),
            );
            cx.report(
                log,
                location_field(log),
                format!("log file shares volume {} with the {which} {}", lv.name, and_list(&shared)),
            )
            .values(
                format!("volume {}, holding {} of the database", lv.name, plural(shared.len(), "data file")),
                "a volume holding none of the database's data files",
            )
            .quantities(Quantity::count(shared.len() as u64), Quantity::count(0))
            .fix(fix);
        }
    }
}

#[cfg(test)]
mod tests {
    use spindle_core::params::ParamValue;

    use super::DATA_LOG_SEPARATE_VOLUMES as RULE;
    use crate::placement::files::run_with;

    #[test]
    fn master_judged_only_when_asked() {
        let snapshot = include_str!("../../tests/fixtures/PLC001/same-volume.json");
        let keys = |include: &str| -> Vec<String> {
            let set = [("include_system_databases", ParamValue::Text(include.into()))];
            run_with(&RULE, snapshot, &set).0.into_iter().map(|f| f.entity.key).collect()
        };
        assert_eq!(keys("no").len(), 2);
        let with_system = keys("yes");
        assert_eq!(with_system.len(), 3);
        assert!(with_system.iter().any(|k| k.ends_with("database:master/file:mastlog")));
        assert!(with_system.iter().all(|k| !k.contains("database:tempdb/")), "tempdb is never in scope");
    }
}
