use spindle_core::declare_rule;
use spindle_core::facts::DatabaseRole;
use spindle_core::fast_hash::{FastMap, FastSet};
use spindle_core::finding::Quantity;
use spindle_core::params::NoParams;
use spindle_core::rule::Ctx;
use spindle_core::view::{DatabaseView, HostView};

use super::files::{and_list, file_kind, location_field, plural, tempdb_of, volume_of};
use crate::commands::{move_file, relocated};

declare_rule! {
    /// ## What it checks
    /// No tempdb file (data or log) is on a volume that also holds a file of a user database, of
    /// this instance or of another instance on the same host. Volumes are compared by identity
    /// (`volume_id`, else the longest mount point prefixing the path), never by drive letter: a
    /// user database on the folder-mounted volume `T:\UserData\` does not share the volume `T:\`
    /// with tempdb. master, model and msdb may share tempdb's volume: they are small and quiet.
    ///
    /// A tempdb file whose volume cannot be determined is reported "not evaluated", and so is a
    /// user database file whose volume cannot be determined while tempdb's volumes are known
    /// (it might be on one of them). An instance whose tempdb was not collected is reported "not
    /// evaluated" too.
    ///
    /// ## Example
    /// tempdb on D:\ beside a user database's data file:
    ///
    /// ```json
    /// {
    ///   "schema_version": 1,
    ///   "host": { "name": "sql01", "os_family": "windows" },
    ///   "volumes": [{ "id": "vol-d", "mount_points": ["D:\\"], "filesystem": "NTFS" }],
    ///   "sql_instances": [
    ///     { "name": "MSSQLSERVER", "databases": [
    ///       { "name": "tempdb", "files": [
    ///         { "type": "rows", "logical_name": "tempdev",
    ///           "physical_name": "D:\\TempDB\\tempdb.mdf" }
    ///       ] },
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
    /// warning PLC004 sql01 › MSSQLSERVER › tempdb › tempdev (D:\TempDB\tempdb.mdf) [/sql_instances/0/databases/0/files/0/physical_name]
    ///   tempdb data file shares volume D:\ with the user database Sales
    ///   measured: volume D:\, also holding 1 user database; expected: a volume holding no user database files
    /// ```
    ///
    /// ## Why it matters
    /// tempdb serves every database of the instance: sorts and hashes that spill, version store
    /// for snapshot isolation and online index builds, temporary tables, DBCC CHECKDB. Its I/O
    /// comes in bursts of extent-sized writes and reads. On the same volume as user data and
    /// logs, a tempdb burst queues every other database's reads and log writes behind it, and a
    /// runaway tempdb growth fills the volume the user databases need to grow. SQL Server's own
    /// assessment (SQL Assessment API rule `TempDbSameVolume`) flags the shared volume; on Azure
    /// VMs the recommendation is tempdb on the local ephemeral disk, away from the data disks.
    ///
    /// ## How to fix
    /// Give tempdb a volume of its own (on Azure, the local temporary disk `D:\` for a VM size
    /// that has one), point every tempdb file at it, and restart the service (tempdb is created
    /// anew at start-up; delete the old files afterwards):
    ///
    /// ```sql
    /// ALTER DATABASE tempdb MODIFY FILE (NAME = tempdev, FILENAME = 'T:\TempDB\tempdb.mdf');
    /// ALTER DATABASE tempdb MODIFY FILE (NAME = temp2,   FILENAME = 'T:\TempDB\tempdb_mssql_2.ndf');
    /// ALTER DATABASE tempdb MODIFY FILE (NAME = templog, FILENAME = 'T:\TempDB\templog.ldf');
    /// ```
    ///
    /// Format the new volume with 64 KiB clusters (`Format-Volume -DriveLetter T -FileSystem
    /// NTFS -AllocationUnitSize 65536`; on Linux `mkfs.xfs` and a mount at `/var/opt/mssql/tempdb`
    /// owned by `mssql`). Alternatively move the user databases' files off tempdb's volume.
    ///
    /// ## References
    /// - SQL Server Assessment API (rule `TempDbSameVolume`: tempdb files on the same volume as
    ///   user database files):
    ///   <https://learn.microsoft.com/sql/tools/sql-assessment-api/sql-assessment-api-overview>
    /// - Azure, "Performance guidelines for SQL Server on Azure VMs — storage": tempdb on the
    ///   local ephemeral SSD, data and log on separate data disks:
    ///   <https://learn.microsoft.com/azure/azure-sql/virtual-machines/windows/performance-guidelines-best-practices-storage>
    /// - Microsoft Learn, "tempdb database" (moving tempdb's files):
    ///   <https://learn.microsoft.com/sql/relational-databases/databases/tempdb-database>
    pub static TEMPDB_OWN_VOLUME = {
        code: "PLC004",
        name: "tempdb-own-volume",
        severity: Warning,
        summary: "tempdb's files share no volume with user database files",
        since: "0.1.0",
        impact: Configuration,
        remedy: [MoveFiles(Placement)],
        needs: [DatabaseFiles],
        params: [],
        check: check,
    }
}

fn check(cx: &mut Ctx<'_, NoParams>) {
    let view = cx.view;
    let user: Vec<_> = view
        .databases
        .iter()
        .filter(|d| d.db.effective_role() == DatabaseRole::User)
        .flat_map(|d| d.files.iter().flatten().map(move |f| (d, f, volume_of(view, f))))
        .collect();
    // The user databases on each volume, each once, in file order: looked up for each tempdb
    // file rather than walked.
    let mut users_on: FastMap<&str, Vec<&DatabaseView>> = FastMap::default();
    let mut seen: FastSet<(&str, &str)> = FastSet::default();
    for (d, _, uv) in &user {
        if let Ok(uv) = uv
            && seen.insert((uv.key.as_str(), d.db.key.as_str()))
        {
            users_on.entry(uv.key.as_str()).or_default().push(*d);
        }
    }
    // A tempdb file passes only when every user file's volume is known (see the end).
    let users_known = user.iter().all(|(_, _, uv)| uv.is_ok())
        && view.databases.iter().all(|d| d.db.effective_role() != DatabaseRole::User || d.files.is_some());
    let mut any_tempdb_volume = false;
    for (i, inst) in view.instances.iter().flatten().enumerate() {
        let Some(tempdb) = tempdb_of(cx, view, i, inst) else { continue };
        let Some(files) = cx.need(&tempdb.db, "files", tempdb.files.as_ref()) else { continue };
        for f in files {
            let tv = match volume_of(view, f) {
                Ok(tv) => tv,
                Err(why) => {
                    cx.unknown_volume(f, &why);
                    continue;
                }
            };
            any_tempdb_volume = true;
            if users_known {
                cx.judged(f);
            }
            let Some(sharing) = users_on.get(tv.key.as_str()) else { continue };
            let names: Vec<String> = sharing.iter().map(|d| db_name(view, d, i)).collect();
            let which = if names.len() == 1 { "user database" } else { "user databases" };
            let moves: Vec<String> = files
                .iter()
                .map(|t| move_file(&tempdb.db.name, t, &relocated(t, "tempdb's own volume")))
                .collect();
            let fix = format!(
                "Give tempdb a volume of its own (on Azure, the local temporary disk for a VM size that has \
                 one), point every tempdb file at it, and restart the service (tempdb is created anew at \
                 start-up; delete the old files afterwards):\n\n```sql\n{}\n```\n\nFormat the new volume with \
                 64 KiB clusters (`Format-Volume -FileSystem NTFS -AllocationUnitSize 65536`; on Linux \
                 `mkfs.xfs` and a mount owned by `mssql`). Alternatively move {}'s files off {}.",
                moves.join("\n"),
                and_list(&names),
                tv.name
            );
            cx.report(
                f,
                location_field(f),
                format!(
                    "tempdb {} shares volume {} with the {which} {}",
                    file_kind(f),
                    tv.name,
                    and_list(&names)
                ),
            )
            .values(
                format!("volume {}, also holding {}", tv.name, plural(names.len(), "user database")),
                "a volume holding no user database files",
            )
            .quantities(Quantity::count(names.len() as u64), Quantity::count(0))
            .fix(fix);
        }
    }
    // A user file whose volume is unknown may be on tempdb's volume: not a pass.
    if any_tempdb_volume {
        for d in view.databases.iter().filter(|d| d.db.effective_role() == DatabaseRole::User) {
            if d.files.is_none() {
                cx.not_evaluated(&d.db, "files");
            }
        }
        for (_, f, uv) in &user {
            if let Err(why) = uv {
                cx.unknown_volume(f, why);
            }
        }
    }
}

/// `Sales`, or `REPORTING › Sales` for a database of another instance than tempdb's.
fn db_name(view: &HostView, d: &DatabaseView, tempdb_instance: usize) -> String {
    if d.instance == tempdb_instance {
        return d.db.name.clone();
    }
    let inst = view.instances.as_ref().and_then(|i| i.get(d.instance)).map_or("?", |i| i.name.as_str());
    format!("{inst} › {}", d.db.name)
}
