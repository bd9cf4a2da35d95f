use spindle_core::declare_rule;
use spindle_core::facts::{DbFile, FileType};
use spindle_core::finding::Quantity;
use spindle_core::rule::Ctx;

use super::files::{and_list, file_name, plural};
use crate::commands::{tsql_name, tsql_string};

declare_rule! {
    /// ## What it checks
    /// Every database (user, system and tempdb) has at most `max_log_files` log files: one by
    /// default. A database whose collected file list holds no log file at all is reported "not
    /// evaluated" (every database has one, so the list is incomplete).
    ///
    /// ## Example
    /// A database with a second log file, added on D:\ when L:\ filled up:
    ///
    /// ```json
    /// {
    ///   "schema_version": 1,
    ///   "host": { "name": "sql01", "os_family": "windows" },
    ///   "sql_instances": [
    ///     { "name": "MSSQLSERVER", "databases": [
    ///       { "name": "Sales", "files": [
    ///         { "type": "rows", "logical_name": "Sales_Data",
    ///           "physical_name": "D:\\SQLData\\Sales.mdf" },
    ///         { "type": "log", "logical_name": "Sales_log",
    ///           "physical_name": "L:\\SQLLogs\\Sales_log.ldf" },
    ///         { "type": "log", "logical_name": "Sales_log2",
    ///           "physical_name": "D:\\SQLLogs\\Sales_log2.ldf" }
    ///       ] }
    ///     ] }
    ///   ]
    /// }
    /// ```
    ///
    /// ```text
    /// warning PLC003 sql01 › MSSQLSERVER › Sales [/sql_instances/0/databases/0/files]
    ///   2 log files: Sales_log (L:\SQLLogs\Sales_log.ldf) and Sales_log2 (D:\SQLLogs\Sales_log2.ldf); the log is written sequentially, filling one file before the next, so files beyond the first add no throughput
    ///   measured: 2 log files; expected: at most 1 log file
    /// ```
    ///
    /// ## Why it matters
    /// SQL Server writes the transaction log sequentially and fills one log file before it moves
    /// on to the next: with two log files, the first takes every write until it is full, then
    /// the second does. Extra log files therefore spread no I/O and add no throughput, whatever
    /// volumes they are on. They only add a file to size,
    /// grow, watch and place on every restore. Log throughput comes only from the volume under the single log file: put it on a
    /// volume striped over several disks (a Storage Spaces virtual disk with several columns, an
    /// md RAID 10, a striped LVM volume).
    ///
    /// A second log file is sometimes added in an emergency, when the first filled its volume;
    /// it should go once the emergency is over.
    ///
    /// ## How to fix
    /// Remove the extra log file once no active log is in it. Take a log backup (FULL or
    /// BULK_LOGGED recovery) or a CHECKPOINT (SIMPLE) so the active part of the log moves to the
    /// first file, then:
    ///
    /// ```sql
    /// USE [Sales];
    /// DBCC SHRINKFILE (Sales_log2, EMPTYFILE);
    /// ALTER DATABASE [Sales] REMOVE FILE Sales_log2;
    /// ```
    ///
    /// If `REMOVE FILE` reports the file is not empty, repeat the log backup and retry. Size the
    /// remaining log file for the workload (`ALTER DATABASE [Sales] MODIFY FILE (NAME =
    /// Sales_log, SIZE = 16GB, FILEGROWTH = 1GB)`) and, if it needs more throughput, move it to
    /// a striped volume (for example `New-VirtualDisk -NumberOfColumns 8 -Interleave 64KB`,
    /// formatted with `Format-Volume -AllocationUnitSize 65536`).
    ///
    /// ## References
    /// - Microsoft, "SQL Server transaction log architecture and management guide": the logical
    ///   log moves through the physical log files in turn, wrapping back to the first:
    ///   <https://learn.microsoft.com/sql/relational-databases/sql-server-transaction-log-architecture-and-management-guide>
    /// - Microsoft Learn, "ALTER DATABASE File and Filegroup options" (`REMOVE FILE`):
    ///   <https://learn.microsoft.com/sql/t-sql/statements/alter-database-transact-sql-file-and-filegroup-options>
    /// - Azure, "Performance guidelines for SQL Server on Azure VMs — storage": log throughput
    ///   from a volume striped over several disks:
    ///   <https://learn.microsoft.com/azure/azure-sql/virtual-machines/windows/performance-guidelines-best-practices-storage>
    pub static SINGLE_LOG_FILE = {
        code: "PLC003",
        name: "single-log-file",
        severity: Warning,
        summary: "Each database has a single log file",
        since: "0.1.0",
        impact: Configuration,
        remedy: [RemoveExtraLogFiles],
        needs: [DatabaseFiles],
        params: SingleLogFileParams {
            max_log_files: { kind: Count, default: Num(1.0), doc: "Log files a database may have." },
        },
        check: check,
    }
}

fn check(cx: &mut Ctx<'_, SingleLogFileParams>) {
    let max = cx.params.max_log_files as usize;
    let view = cx.view;
    for dv in &view.databases {
        let Some(files) = cx.need(&dv.db, "files", dv.files.as_ref()) else { continue };
        let log_files: Vec<&DbFile> =
            files.iter().filter(|f| f.file_type == FileType::Log).map(|f| &f.item).collect();
        let logs: Vec<String> = log_files.iter().map(|f| file_name(f)).collect();
        if logs.is_empty() {
            cx.not_evaluated_because(
                &dv.db,
                "files",
                "no log file among the collected files; every database has one, so the list is incomplete",
            );
            continue;
        }
        cx.judged(&dv.db);
        if logs.len() <= max {
            continue;
        }
        cx.report(
            &dv.db,
            "files",
            format!(
                "{}: {}; the log is written sequentially, filling one file before the next, so files beyond the first add no throughput",
                plural(logs.len(), "log file"),
                and_list(&logs)
            ),
        )
        .values(plural(logs.len(), "log file"), format!("at most {}", plural(max, "log file")))
        .quantities(Quantity::count(logs.len() as u64), Quantity::count(max as u64))
        .fix(remove_logs_fix(&dv.db.name, &log_files, max.max(1)));
    }
}

/// Empty and remove the log files past the first `keep`, by name, and size the ones kept.
fn remove_logs_fix(database: &str, logs: &[&DbFile], keep: usize) -> String {
    let db = tsql_name(database);
    let mut sql = format!("USE {db};\n");
    for f in logs.iter().skip(keep) {
        // DBCC takes the file's id, or its name as a string.
        let target = f.file_id.map_or_else(|| tsql_string(&f.logical_name), |id| id.to_string());
        sql.push_str(&format!(
            "DBCC SHRINKFILE ({target}, EMPTYFILE);\nALTER DATABASE {db} REMOVE FILE {};\n",
            tsql_name(&f.logical_name)
        ));
    }
    let first_name = logs.first().map_or("", |f| f.logical_name.as_str());
    let first = tsql_string(first_name);
    format!(
        "Remove the extra log files once no active log is in them. Take a log backup (FULL or \
         BULK_LOGGED recovery) or a CHECKPOINT (SIMPLE) so the active part of the log moves to {first_name}, \
         then:\n\n```sql\n{sql}```\n\nIf `REMOVE FILE` reports the file is not empty, repeat the log backup \
         and retry. Size the remaining log file for the workload (`ALTER DATABASE {db} MODIFY FILE (NAME = \
         {first}, SIZE = <size>, FILEGROWTH = 1GB)`) and, if it needs more throughput, move it to a striped \
         volume (STR003)."
    )
}
