use spindle_core::declare_rule;
use spindle_core::facts::FileType;
use spindle_core::rule::Ctx;

use super::{fixes, stall};

declare_rule! {
    /// ## What it checks
    /// For every data (rows) file with I/O counters from `sys.dm_io_virtual_file_stats`, the
    /// average read stall `io_stall_read_ms / num_of_reads`: a warning above 20 ms (`warn_ms`: a
    /// data read should take 20 ms or less, so 20 ms itself passes), an error from 100 ms
    /// (`error_ms`, where the "bad" band starts, so 100 ms itself is an error). The message gives the
    /// average, the raw counters, the window they cover (`sample_ms`) and the reference band:
    /// < 2 ms excellent, 2–5 very good, 6–15 good, 16–100 poor, 100–500 bad, > 500 deplorable.
    ///
    /// A file with no reads has no average (no data, not 0 ms), and a file with fewer than
    /// `min_reads` reads (1,000) is not judged: one slow read of `t` ms moves an average over
    /// `n` reads by `t / n`, so at 1,000 reads a 5-second outlier (a path failover, a disk
    /// spinning up) moves it by 5 ms, while at 10 reads it would move it by 500 ms. A file that
    /// matters to the workload passes 1,000 reads in minutes. Both cases are reported as not
    /// applicable, with the count: the counters were read and judged too few, which is neither a
    /// pass nor a missing fact (a file without counters at all is not evaluated).
    ///
    /// The counters are cumulative since the instance started: an average over weeks mixes last
    /// night's index rebuild with this morning's quiet hour, and a recent restart hides the
    /// history. The difference between two samples a few minutes apart shows the present; a
    /// collector that samples records the window in `sample_ms`.
    ///
    /// ## Example
    /// A data file that averaged 149.4 ms per read over a working day (10,000 reads, 8 hours of
    /// counters):
    ///
    /// ```json
    /// {
    ///   "schema_version": 1,
    ///   "host": { "name": "erp-srv1", "os_family": "windows" },
    ///   "sql_instances": [
    ///     { "name": "MSSQLSERVER", "databases": [
    ///       { "name": "ERP", "files": [
    ///         { "type": "rows", "logical_name": "ERP_Data", "physical_name": "E:\\Data\\ERP.mdf",
    ///           "io": { "num_of_reads": 10000, "io_stall_read_ms": 1494000,
    ///                   "num_of_writes": 4000, "io_stall_write_ms": 12000,
    ///                   "num_of_bytes_read": 655360000, "num_of_bytes_written": 32768000,
    ///                   "sample_ms": 28800000 } }
    ///       ] }
    ///     ] }
    ///   ]
    /// }
    /// ```
    ///
    /// ```text
    /// error LAT001 erp-srv1 › MSSQLSERVER › ERP › ERP_Data (E:\Data\ERP.mdf) [/sql_instances/0/databases/0/files/0/io/io_stall_read_ms]
    ///   average read stall 149.4 ms (1,494,000 ms of stall over 10,000 reads, over 8 h of counters): bad (100–500 ms), at or above the 100 ms error threshold
    ///   measured: 149.4 ms; expected: at most 20 ms
    /// ```
    ///
    /// ## Why it matters
    /// A query waits (`PAGEIOLATCH_SH`, `PAGEIOLATCH_EX`) for every data page it must read from
    /// disk. Microsoft calls waits consistently above 10–15 ms an I/O bottleneck and gives
    /// 20 ms as the ceiling for data reads. On two identical HP DL380s (6 × 146 GB 10K SAS in
    /// RAID 5, the same ERP workload), the server with misaligned partitions and 4 KiB clusters
    /// averaged 149.4 ms per read (bad, an error here) and the aligned one with 64 KiB clusters
    /// 74 ms (poor, a warning): halved, and still far above the target.
    ///
    /// ## How to fix
    /// 1. Measure now rather than since start-up: run this twice, five minutes apart, and divide
    ///    the differences (`io_stall_read_ms` over `num_of_reads`):
    ///    ```sql
    ///    SELECT DB_NAME(database_id) AS db, file_id, num_of_reads, io_stall_read_ms
    ///    FROM sys.dm_io_virtual_file_stats(NULL, NULL);
    ///    ```
    /// 2. Compare with what Windows sees on the volume:
    ///    `Get-Counter '\LogicalDisk(E:)\Avg. Disk sec/Read' -SampleInterval 5 -MaxSamples 12`
    ///    (seconds: 0.020 is 20 ms). The same latency in Windows means the storage is slow;
    ///    much less means the time is spent above it (filter drivers such as antivirus scanning
    ///    the data files).
    /// 3. Storage: check partition alignment (ALN001) and 64 KiB clusters, how far the average
    ///    is above what the media can do (LAT003), whether data and log files share the same
    ///    spindles, and the SAN path and cache.
    /// 4. Workload: pages that stay in memory are never read. Missing indexes and scans cause
    ///    read volume (in the ERP case above, the slow queries were part of the 149.4 ms too);
    ///    more memory cuts reads.
    ///
    /// ## References
    /// - Microsoft, "Troubleshoot slow SQL Server performance caused by I/O issues": waits above
    ///   10–15 ms mean an I/O bottleneck; the bands above; data reads ≤ 20 ms:
    ///   <https://learn.microsoft.com/troubleshoot/sql/database-engine/performance/troubleshoot-sql-io-performance>
    /// - Microsoft Learn, "sys.dm_io_virtual_file_stats": `io_stall_read_ms` and `num_of_reads`,
    ///   cumulative since the instance started:
    ///   <https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-io-virtual-file-stats-transact-sql>
    /// - sp_BlitzFirst checks 11/12 (slow reads and writes per file):
    ///   <https://github.com/BrentOzarULTD/SQL-Server-First-Responder-Kit/blob/main/Documentation/sp_BlitzFirst_Checks_by_Priority.md>
    /// - Paul Randal, "How to examine IO subsystem latencies from within SQL Server":
    ///   <https://www.sqlskills.com/blogs/paul/how-to-examine-io-subsystem-latencies-from-within-sql-server/>
    pub static DATA_READ_LATENCY = {
        code: "LAT001",
        name: "data-read-latency",
        severity: Warning,
        summary: "Data files average at most 20 ms per read",
        since: "0.1.0",
        impact: Measured,
        remedy: [Manual(MeasureAgain)],
        needs: [DatabaseFiles],
        params: DataReadLatencyParams {
            warn_ms: { kind: Ms, default: Num(20.0), doc: "Most a data file's average read stall may be; above it earns a warning." },
            error_ms: { kind: Ms, default: Num(100.0), doc: "Average read stall of a data file that earns an error (the start of the \"bad\" band)." },
            min_reads: { kind: Count, default: Num(1000.0), doc: "Fewest reads a data file must have had for its average to be judged." },
        },
        check: check,
    }
}

fn check(cx: &mut Ctx<'_, DataReadLatencyParams>) {
    let warn = cx.params.warn_ms;
    let error = cx.params.error_ms;
    let min_reads = u64::from(cx.params.min_reads);
    let view = cx.view;
    for (db, f) in view.files() {
        if f.file_type != FileType::Rows {
            continue;
        }
        let Some(io) = cx.need(f, "io", f.io) else { continue };
        let avg = match stall::average(io.io_stall_read_ms, io.num_of_reads, min_reads, "reads", "min_reads")
        {
            Ok(avg) => avg,
            Err(why) => {
                cx.not_applicable(f, "io/num_of_reads", why);
                continue;
            }
        };
        let reported = stall::report_average(
            cx,
            f,
            "io/io_stall_read_ms",
            "read stall",
            (avg, io.io_stall_read_ms, io.num_of_reads, io.sample_ms),
            ((warn, stall::WarnAt::Above), error),
            "reads",
            "",
        );
        if let Some(finding) = reported {
            finding.fix(fixes::slow_reads(view, &db.db.name, f));
        }
    }
}
