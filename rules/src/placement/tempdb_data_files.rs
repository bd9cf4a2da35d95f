use std::collections::BTreeMap;

use spindle_core::declare_rule;
use spindle_core::facts::{DbFile, FileType, Growth, SqlInstance};
use spindle_core::finding::Quantity;
use spindle_core::rule::Ctx;
use spindle_core::units;
use spindle_core::view::{DatabaseView, Located};

use super::files::{and_list, plural, tempdb_of};
use super::tempdb_tsql as tsql_fix;

declare_rule! {
    /// ## What it checks
    /// For each instance, tempdb's data (ROWS) files:
    ///
    /// - **Count.** With `start_files` (8) logical CPUs or fewer, one data file per logical CPU:
    ///   exactly as many files as CPUs, so 4 CPUs want 4 files and 8 files there is a finding
    ///   too. With more than 8 logical CPUs, 8 files to start with; more only in steps of
    ///   `step_files` (4) when allocation contention persists, so 12, 16 or 20 files pass and
    ///   fewer than 8, or 10, is a finding. The CPU count is the instance's
    ///   (`sys.dm_os_sys_info.cpu_count`, which reflects affinity and licensing limits), else the
    ///   host's; when neither was collected, the count is "not evaluated".
    /// - **Equal size.** Every data file has the same `size_bytes`; the finding lists the sizes.
    /// - **Equal growth.** Every data file has the same autogrowth setting.
    ///
    /// A file whose size or growth was not collected makes that comparison "not evaluated".
    /// Sizes read from `sys.master_files` are tempdb's *startup* sizes (what tempdb is recreated
    /// with at each restart), not its current sizes, which are in `tempdb.sys.database_files`:
    /// files can be configured equal and have grown apart since start-up, or the reverse. The
    /// startup sizes are the configuration to fix; compare the current ones with the query in
    /// How to fix.
    ///
    /// ## Example
    /// Four equal tempdb data files on an instance with 16 logical CPUs:
    ///
    /// ```json
    /// {
    ///   "schema_version": 1,
    ///   "host": { "name": "sql01", "os_family": "windows" },
    ///   "sql_instances": [
    ///     { "name": "MSSQLSERVER", "cpu_count": 16, "databases": [
    ///       { "name": "tempdb", "files": [
    ///         { "type": "rows", "logical_name": "tempdev",
    ///           "physical_name": "T:\\TempDB\\tempdb.mdf",
    ///           "size_bytes": 8589934592, "growth": { "increment_bytes": 536870912 } },
    ///         { "type": "rows", "logical_name": "temp2",
    ///           "physical_name": "T:\\TempDB\\tempdb_mssql_2.ndf",
    ///           "size_bytes": 8589934592, "growth": { "increment_bytes": 536870912 } },
    ///         { "type": "rows", "logical_name": "temp3",
    ///           "physical_name": "T:\\TempDB\\tempdb_mssql_3.ndf",
    ///           "size_bytes": 8589934592, "growth": { "increment_bytes": 536870912 } },
    ///         { "type": "rows", "logical_name": "temp4",
    ///           "physical_name": "T:\\TempDB\\tempdb_mssql_4.ndf",
    ///           "size_bytes": 8589934592, "growth": { "increment_bytes": 536870912 } }
    ///       ] }
    ///     ] }
    ///   ]
    /// }
    /// ```
    ///
    /// ```text
    /// warning PLC005 sql01 › MSSQLSERVER › tempdb [/sql_instances/0/databases/0/files]
    ///   tempdb has 4 data files for 16 logical CPUs (instance cpu_count); expected 8 data files, or 12, 16, ... only while allocation contention persists
    ///   measured: 4 data files; expected: 8 data files, or 12, 16, ... only while allocation contention persists
    /// ```
    ///
    /// ## Why it matters
    /// Every object created in tempdb allocates pages, and each allocation touches the file's
    /// PFS, GAM and SGAM pages. With one data file, concurrent sessions queue on those few pages
    /// (PAGELATCH_UP / PAGELATCH_EX waits on `2:1:1`, `2:1:2`, `2:1:3`). Several data files give
    /// each its own allocation pages, and SQL Server spreads allocations over them with
    /// proportional fill: each file receives allocations in proportion to its free space. That
    /// spreading works only if the files are equal; a larger file (or one that autogrew alone)
    /// takes most allocations and becomes the single hot file again. Hence equal sizes and equal
    /// growth, so they stay equal.
    ///
    /// ## How to fix
    /// Add or remove files until the count is right, all with the same size and growth (a larger
    /// SIZE applies at once; a smaller one becomes the startup size, applied at the next
    /// restart):
    ///
    /// ```sql
    /// ALTER DATABASE tempdb MODIFY FILE (NAME = tempdev, SIZE = 8GB, FILEGROWTH = 512MB);
    /// ALTER DATABASE tempdb ADD FILE (NAME = temp2, FILENAME = 'T:\TempDB\tempdb_mssql_2.ndf',
    ///     SIZE = 8GB, FILEGROWTH = 512MB);
    /// -- current sizes, which may differ from the startup sizes in sys.master_files:
    /// SELECT name, size * 8 / 1024 AS size_mb, growth, is_percent_growth
    /// FROM tempdb.sys.database_files WHERE type_desc = 'ROWS';
    /// ```
    ///
    /// To remove surplus files: `USE tempdb; DBCC SHRINKFILE (temp9, EMPTYFILE); ALTER DATABASE
    /// tempdb REMOVE FILE temp9;`. On SQL Server 2014 and older, trace flag 1117 makes all files
    /// of a filegroup grow together (tempdb does so by default since SQL Server 2016). The same
    /// T-SQL works on Linux, with paths such as `/var/opt/mssql/tempdb/tempdb_mssql_2.ndf`.
    ///
    /// ## References
    /// - KB 2154845, "Recommendations to reduce allocation contention in SQL Server tempdb
    ///   database": one data file per logical processor up to eight; above eight, eight files,
    ///   then increase by multiples of four if contention continues; equally sized files:
    ///   <https://learn.microsoft.com/troubleshoot/sql/database-engine/performance/recommendations-reduce-allocation-contention>
    /// - Microsoft Learn, "tempdb database" (equal-sized data files, proportional fill):
    ///   <https://learn.microsoft.com/sql/relational-databases/databases/tempdb-database>
    /// - Microsoft Learn, "sys.master_files" (for tempdb, `size` is the startup size, not the
    ///   current one):
    ///   <https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-master-files-transact-sql>
    pub static TEMPDB_DATA_FILES = {
        code: "PLC005",
        name: "tempdb-data-files",
        severity: Warning,
        summary: "tempdb has one data file per logical CPU up to 8, all of equal size and growth",
        since: "0.1.0",
        impact: Configuration,
        remedy: [AddTempdbDataFiles],
        needs: [DatabaseFiles],
        params: TempdbDataFilesParams {
            start_files: { kind: Count, default: Num(8.0), doc: "Data files up to which there is one per logical CPU; the starting count above that many CPUs." },
            step_files: { kind: Count, default: Num(4.0), doc: "Above start_files, data files are added in multiples of this." },
        },
        check: check,
    }
}

fn check(cx: &mut Ctx<'_, TempdbDataFilesParams>) {
    let view = cx.view;
    for (i, inst) in view.instances.iter().flatten().enumerate() {
        let Some(tempdb) = tempdb_of(cx, view, i, inst) else { continue };
        let Some(files) = cx.need(&tempdb.db, "files", tempdb.files.as_ref()) else { continue };
        let data: Vec<_> = files.iter().filter(|f| f.file_type == FileType::Rows).collect();
        if data.is_empty() {
            cx.not_evaluated_because(
                &tempdb.db,
                "files",
                "no tempdb data file among the collected files; tempdb always has one, so the list is incomplete",
            );
            continue;
        }
        // Judged only when all three checks could be made: a missing cpu_count, size or growth
        // is recorded on the instance or a file, not on tempdb. Each check runs even when an
        // earlier one could not, so every missing fact is recorded.
        let count_complete = check_count(cx, inst, tempdb, &data);
        let sizes_complete = check_sizes(cx, tempdb, &data);
        let growths_complete = check_growths(cx, tempdb, &data);
        if count_complete && sizes_complete && growths_complete {
            cx.judged(&tempdb.db);
        }
    }
}

/// As many data files as the CPUs call for. False when no cpu_count was collected.
fn check_count(
    cx: &mut Ctx<'_, TempdbDataFilesParams>,
    inst: &Located<SqlInstance>,
    tempdb: &DatabaseView,
    data: &[&Located<DbFile>],
) -> bool {
    let start = cx.params.start_files;
    let step = cx.params.step_files;
    let cpus = match (inst.cpu_count.filter(|&c| c > 0), cx.view.host.cpu_count.filter(|&c| c > 0)) {
        (Some(c), _) => Some((c, "instance")),
        (None, Some(c)) => Some((c, "host")),
        (None, None) => None,
    };
    let Some((cpus, source)) = cpus else {
        let reason = cx.collector_reason("cpu_count").unwrap_or_else(|| {
            "neither the instance's cpu_count (sys.dm_os_sys_info) nor the host's cpu_count was collected"
                .to_string()
        });
        cx.not_evaluated_because(inst, "cpu_count", reason);
        return false;
    };
    let n = data.len() as u32;
    if !count_ok(n, cpus, start, step) {
        cx.report(
            &tempdb.db,
            "files",
            format!(
                "tempdb has {} for {} logical CPUs ({source} cpu_count); expected {}",
                plural(n as usize, "data file"),
                cpus,
                expected_count(cpus, start, step)
            ),
        )
        .values(plural(n as usize, "data file"), expected_count(cpus, start, step))
        .quantities(Quantity::count(n.into()), Quantity::count(cpus.min(start).into()))
        .fix(tsql_fix::count(&tempdb.db.name, data, target_count(n, cpus, start, step)));
    }
    true
}

/// Every data file the same size. False when a size was not collected.
fn check_sizes(
    cx: &mut Ctx<'_, TempdbDataFilesParams>,
    tempdb: &DatabaseView,
    data: &[&Located<DbFile>],
) -> bool {
    let sizes: Vec<_> = data.iter().map(|f| cx.need(*f, "size_bytes", f.size_bytes)).collect();
    let Some(sizes) = sizes.into_iter().collect::<Option<Vec<u64>>>() else { return false };
    let groups = group(data.iter().map(|f| f.logical_name.clone()).zip(sizes));
    if let (Some((&min, _)), Some((&max, largest))) = (groups.first_key_value(), groups.last_key_value())
        && groups.len() > 1
    {
        let list: Vec<String> =
            groups.iter().rev().map(|(s, names)| format!("{} {}", is_are(names), units::bytes(*s))).collect();
        cx.report(
            &tempdb.db,
            "files",
            format!(
                "tempdb data files differ in size: {}; proportional fill allocates in proportion to free space, so {} take{} most allocations",
                list.join(", "),
                and_list(largest),
                if largest.len() == 1 { "s" } else { "" }
            ),
        )
        .values(
            format!("sizes from {} to {}", units::bytes(min), units::bytes(max)),
            "all data files the same size",
        )
        .fix(tsql_fix::sizes(&tempdb.db.name, data, max));
    }
    true
}

/// Every data file growing alike. False when a growth was not collected.
fn check_growths(
    cx: &mut Ctx<'_, TempdbDataFilesParams>,
    tempdb: &DatabaseView,
    data: &[&Located<DbFile>],
) -> bool {
    let growths: Vec<_> = data.iter().map(|f| cx.need(*f, "growth", f.growth)).collect();
    let Some(growths) = growths.into_iter().collect::<Option<Vec<Growth>>>() else { return false };
    let groups = group(data.iter().map(|f| f.logical_name.clone()).zip(growths.into_iter().map(growth_key)));
    if groups.len() > 1 {
        let list: Vec<String> =
            groups.iter().map(|(g, names)| format!("{} {}", and_list(names), describe_growth(*g))).collect();
        cx.report(
            &tempdb.db,
            "files",
            format!(
                "tempdb data files grow differently: {}; after one grows, the sizes differ",
                list.join(", ")
            ),
        )
        .values(plural(groups.len(), "growth setting"), "the same growth on every data file")
        .quantities(Quantity::count(groups.len() as u64), None)
        .fix(tsql_fix::growths(&tempdb.db.name, data));
    }
    true
}

/// `temp3 is` / `temp3 and temp4 are`.
fn is_are(names: &[String]) -> String {
    format!("{} {}", and_list(names), if names.len() == 1 { "is" } else { "are" })
}

/// Whether `n` tempdb data files suit `cpus` logical CPUs (KB 2154845): one per CPU up to
/// `start`; above `start` CPUs, `start` files plus any multiple of `step`.
fn count_ok(n: u32, cpus: u32, start: u32, step: u32) -> bool {
    if cpus <= start {
        return n == cpus;
    }
    n == start || (n > start && (n - start).is_multiple_of(step))
}

fn expected_count(cpus: u32, start: u32, step: u32) -> String {
    if cpus <= start {
        format!("{} (one per logical CPU)", plural(cpus as usize, "data file"))
    } else if step == 0 {
        format!("{start} data files")
    } else {
        format!(
            "{start} data files, or {}, {}, ... only while allocation contention persists",
            start + step,
            start + 2 * step
        )
    }
}

/// The file count to reach from `n`: one per CPU up to `start`; above it, `start`, or `n`
/// rounded down to `start` plus a multiple of `step`.
fn target_count(n: u32, cpus: u32, start: u32, step: u32) -> u32 {
    if cpus <= start {
        cpus
    } else if n <= start || step == 0 {
        start
    } else {
        start + (n - start) / step * step
    }
}

/// Logical names grouped by value, in value order; names keep snapshot order.
fn group<K: Ord>(items: impl Iterator<Item = (String, K)>) -> BTreeMap<K, Vec<String>> {
    let mut out: BTreeMap<K, Vec<String>> = BTreeMap::new();
    for (name, k) in items {
        out.entry(k).or_default().push(name);
    }
    out
}

/// A growth setting as a map key (`Growth` has no order): kind, then amount.
fn growth_key(g: Growth) -> (u8, u64) {
    match g {
        Growth::Disabled => (0, 0),
        Growth::IncrementBytes(b) => (1, b),
        Growth::Percent(p) => (2, u64::from(p)),
    }
}

/// How a file grows, after its name: `by 64 MiB`, `by 10 %`, `not at all`.
fn describe_growth(key: (u8, u64)) -> String {
    match key {
        (0, _) => "not at all".into(),
        (1, b) => format!("by {}", units::bytes(b)),
        (_, p) => format!("by {p} %"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn up_to_eight_cpus_one_file_per_cpu() {
        assert!(count_ok(1, 1, 8, 4));
        assert!(count_ok(4, 4, 8, 4));
        assert!(count_ok(8, 8, 8, 4));
        assert!(!count_ok(1, 4, 8, 4));
        assert!(!count_ok(8, 4, 8, 4), "more files than CPUs at or below 8");
        assert!(!count_ok(7, 8, 8, 4));
    }

    #[test]
    fn above_eight_cpus_eight_then_steps_of_four() {
        assert!(count_ok(8, 9, 8, 4));
        assert!(count_ok(8, 64, 8, 4));
        assert!(count_ok(12, 16, 8, 4));
        assert!(count_ok(16, 16, 8, 4));
        assert!(count_ok(20, 64, 8, 4));
        assert!(!count_ok(4, 16, 8, 4));
        assert!(!count_ok(7, 16, 8, 4));
        assert!(!count_ok(10, 16, 8, 4));
        assert!(!count_ok(9, 64, 8, 0));
    }

    #[test]
    fn growth_keys_tell_kinds_apart() {
        assert_ne!(growth_key(Growth::Percent(10)), growth_key(Growth::IncrementBytes(10)));
        assert_eq!(
            describe_growth(growth_key(Growth::IncrementBytes(67_108_864))),
            "by 67,108,864 B (64 MiB)"
        );
        assert_eq!(describe_growth(growth_key(Growth::Percent(10))), "by 10 %");
        assert_eq!(describe_growth(growth_key(Growth::Disabled)), "not at all");
    }
}
