use std::collections::BTreeSet;

use spindle_core::declare_rule;
use spindle_core::facts::{DatabaseRole, DbFile};
use spindle_core::rule::Ctx;

use super::files::{file_kind, location_field};
use crate::commands::{move_file, move_user_file, relocated};

declare_rule! {
    /// ## What it checks
    /// No file of a user database or of tempdb (data, log, FILESTREAM container) is on the
    /// operating system volume: the volume the collector marked `os_volume` (the one holding the
    /// Windows directory, or the Linux root file system `/`). The file's volume is found by
    /// `volume_id`, else by the longest mount point prefixing its path, so a volume mounted as
    /// the folder `C:\SQLData\` is not the OS volume even though its path starts with `C:\`. A
    /// volume whose `os_volume` was not collected, or a file whose volume cannot be determined,
    /// is reported "not evaluated".
    ///
    /// master, model and msdb are judged only with `include_system_databases = "yes"`: a default
    /// install puts them under `C:\Program Files\Microsoft SQL Server\...\DATA` (or
    /// `/var/opt/mssql/data` on the root file system), they are small and rarely busy, and
    /// moving master means changing the service's startup parameters. tempdb is always judged:
    /// it is often the busiest database of the instance.
    ///
    /// ## Example
    /// tempdb left where setup put it, under `C:\Program Files`:
    ///
    /// ```json
    /// {
    ///   "schema_version": 1,
    ///   "host": { "name": "sql01", "os_family": "windows" },
    ///   "volumes": [{ "id": "vol-c", "mount_points": ["C:\\"], "filesystem": "NTFS",
    ///                 "os_volume": true }],
    ///   "sql_instances": [
    ///     { "name": "MSSQLSERVER", "databases": [
    ///       { "name": "tempdb", "files": [
    ///         { "type": "rows", "logical_name": "tempdev",
    ///           "physical_name": "C:\\Program Files\\Microsoft SQL Server\\MSSQL16.MSSQLSERVER\\MSSQL\\DATA\\tempdb.mdf" }
    ///       ] }
    ///     ] }
    ///   ]
    /// }
    /// ```
    ///
    /// ```text
    /// warning PLC002 sql01 › MSSQLSERVER › tempdb › tempdev (C:\Program Files\Microsoft SQL Server\MSSQL16.MSSQLSERVER\MSSQL\DATA\tempdb.mdf) [/sql_instances/0/databases/0/files/0/physical_name]
    ///   tempdb data file is on the operating system volume C:\
    ///   measured: volume C:\ (the OS volume); expected: a volume other than the OS volume
    /// ```
    ///
    /// ## Why it matters
    /// The OS volume carries the page file, the operating system's own I/O, SQL Server's error
    /// log and dumps, and whatever gets installed there; it is usually a small disk with the
    /// default 4 KiB allocation unit (on Azure, a disk sized and cached for booting, not for a
    /// database). A growing database or tempdb file that fills it can stop Windows and SQL
    /// Server together, and the database's I/O competes with the system's. The Azure
    /// performance guidelines keep data, log and tempdb files off the OS disk for these reasons.
    ///
    /// ## How to fix
    /// Move the files to a data volume. For a user database:
    ///
    /// ```sql
    /// ALTER DATABASE [Sales] MODIFY FILE (NAME = Sales_Data, FILENAME = 'D:\SQLData\Sales.mdf');
    /// ALTER DATABASE [Sales] SET OFFLINE WITH ROLLBACK IMMEDIATE;
    /// -- move the file, then:
    /// ALTER DATABASE [Sales] SET ONLINE;
    /// ```
    ///
    /// For tempdb, point every file at the new volume and restart the service (tempdb is created
    /// anew at start-up; delete the old files afterwards):
    /// `ALTER DATABASE tempdb MODIFY FILE (NAME = tempdev, FILENAME = 'T:\TempDB\tempdb.mdf');`.
    /// Set the instance defaults so new databases land there too (Server Properties › Database
    /// Settings, or on Linux `mssql-conf set filelocation.defaultdatadir /var/opt/mssql/data`
    /// with that directory on its own mounted volume).
    ///
    /// ## References
    /// - Azure, "Performance guidelines for SQL Server on Azure VMs — storage": data, log and
    ///   tempdb files on data disks (or tempdb on the local ephemeral disk), not on the OS disk:
    ///   <https://learn.microsoft.com/azure/azure-sql/virtual-machines/windows/performance-guidelines-best-practices-storage>
    /// - Azure, "Checklist: Best practices for SQL Server on Azure VMs":
    ///   <https://learn.microsoft.com/azure/azure-sql/virtual-machines/windows/performance-guidelines-best-practices-checklist>
    /// - Microsoft Learn, "Move user databases" and "Move system databases" (tempdb):
    ///   <https://learn.microsoft.com/sql/relational-databases/databases/move-database-files>,
    ///   <https://learn.microsoft.com/sql/relational-databases/databases/move-system-databases>
    pub static NO_DATABASE_FILES_ON_SYSTEM_VOLUME = {
        code: "PLC002",
        name: "no-database-files-on-system-volume",
        severity: Warning,
        summary: "No user database or tempdb file is on the operating system volume",
        since: "0.1.0",
        impact: Configuration,
        remedy: [MoveFiles(Placement)],
        needs: [DatabaseFiles, Volumes],
        params: NoDatabaseFilesOnSystemVolumeParams {
            include_system_databases: { kind: Choice(bool), default: Text("no"), doc: "Also judge master, model and msdb (\"yes\"), or user databases and tempdb only (\"no\")." },
        },
        check: check,
    }
}

fn check(cx: &mut Ctx<'_, NoDatabaseFilesOnSystemVolumeParams>) {
    let view = cx.view;
    let system = cx.params.include_system_databases;
    // Volumes already reported "not evaluated" for a missing os_volume: once per volume.
    let mut unknown = BTreeSet::new();
    for dv in &view.databases {
        let role = dv.db.effective_role();
        if role == DatabaseRole::System && !system {
            continue;
        }
        let Some(files) = cx.need(&dv.db, "files", dv.files.as_ref()) else { continue };
        for f in files {
            let Some(v) = cx.volume_of_file(f) else { continue };
            match v.os_volume {
                Some(false) => cx.judged(f),
                None => {
                    if unknown.insert(v.key.clone()) {
                        cx.not_evaluated(v, "os_volume");
                    }
                }
                Some(true) => {
                    let kind = match role {
                        DatabaseRole::Tempdb => format!("tempdb {}", file_kind(f)),
                        _ => file_kind(f).to_string(),
                    };
                    let fix = off_os_volume_fix(&dv.db.name, role, f);
                    cx.report(
                        f,
                        location_field(f),
                        format!("{kind} is on the operating system volume {}", v.display_name()),
                    )
                    .values(
                        format!("volume {} (the OS volume)", v.display_name()),
                        "a volume other than the OS volume",
                    )
                    .fix(fix);
                }
            }
        }
    }
}

/// Move file `f` of `database` to a data volume, the way its kind of database moves.
fn off_os_volume_fix(database: &str, role: DatabaseRole, f: &DbFile) -> String {
    match role {
        DatabaseRole::Tempdb => format!(
            "Point the file at a data volume and restart the service (tempdb is created anew at start-up; \
             delete the old file afterwards):\n\n```sql\n{}\n```",
            move_file(database, f, &relocated(f, "tempdb folder on a data volume"))
        ),
        DatabaseRole::System => format!(
            "Move the file as \"Move system databases\" describes: model and msdb with `{}` and a restart; \
             master through the service's startup parameters (`-d`, `-l`) in SQL Server Configuration Manager.",
            move_file(database, f, &relocated(f, "folder on a data volume"))
        ),
        DatabaseRole::User => format!(
            "Move the file to a data volume, and set the instance's default data and log folders there \
             (Server Properties › Database Settings) so new databases land there too:\n\n```sql\n{}\n```",
            move_user_file(database, f, "a data volume")
        ),
    }
}

#[cfg(test)]
mod tests {
    use spindle_core::params::ParamValue;

    use super::NO_DATABASE_FILES_ON_SYSTEM_VOLUME as RULE;
    use crate::placement::files::run_with;

    const OS_VOLUME: &str = include_str!("../../tests/fixtures/PLC002/os-volume.json");

    fn flagged(include: &str) -> Vec<String> {
        let set = [("include_system_databases", ParamValue::Text(include.into()))];
        run_with(&RULE, OS_VOLUME, &set).0.into_iter().map(|f| f.entity.key).collect()
    }

    #[test]
    fn system_databases_only_when_asked() {
        let default = flagged("no");
        assert_eq!(default.len(), 4);
        assert!(default.iter().all(|k| !k.contains("database:master/")));
        let with_system = flagged("yes");
        assert_eq!(with_system.len(), 6);
        assert!(with_system.iter().any(|k| k.ends_with("database:master/file:mastlog")));
    }
}
