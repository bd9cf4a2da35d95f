use spindle_core::declare_rule;
use spindle_core::facts::FileType;
use spindle_core::rule::Ctx;

use super::{fixes, stall};

declare_rule! {
    /// ## What it checks
    /// For every transaction log file with I/O counters from `sys.dm_io_virtual_file_stats`,
    /// the average write stall `io_stall_write_ms / num_of_writes`: a warning from 5 ms
    /// (`warn_ms`, the end of the "very good" band), an error from 20 ms (`error_ms`, the
    /// ceiling Microsoft gives even for data reads). The message gives the average, the raw
    /// counters, the window they cover (`sample_ms`) and the reference band: < 2 ms excellent,
    /// 2–5 very good, 6–15 good, 16–100 poor, 100–500 bad, > 500 deplorable. Those bands are for
    /// file latency in general and a log write is held to more (3 ms or less is the target), so a
    /// warned average in one of the better bands is given with the band's range only ("in the
    /// 6–15 ms band"), never called good.
    ///
    /// A log file with no writes has no average (no data, not 0 ms), and one with fewer than
    /// `min_writes` writes (1,000) is not judged: one slow write of `t` ms moves an average over
    /// `n` writes by `t / n`, so 1,000 writes keep a 1-second outlier to 1 ms. A busy log writes
    /// at least once per commit and passes 1,000 writes in seconds. Both cases are reported as
    /// not applicable, with the count: the counters were read and judged too few, which is
    /// neither a pass nor a missing fact (a file without counters at all is not evaluated).
    ///
    /// The counters are cumulative since the instance started; the difference between two
    /// samples a few minutes apart shows the present (a sampling collector records the window in
    /// `sample_ms`).
    ///
    /// ## Example
    /// A log file that averaged 19.9 ms per write over a 5-minute sample:
    ///
    /// ```json
    /// {
    ///   "schema_version": 1,
    ///   "host": { "name": "sql20", "os_family": "windows" },
    ///   "sql_instances": [
    ///     { "name": "MSSQLSERVER", "databases": [
    ///       { "name": "Billing", "files": [
    ///         { "type": "log", "logical_name": "Billing_log",
    ///           "physical_name": "L:\\Logs\\Billing_log.ldf",
    ///           "io": { "num_of_reads": 0, "io_stall_read_ms": 0,
    ///                   "num_of_writes": 10000, "io_stall_write_ms": 199000,
    ///                   "num_of_bytes_read": 0, "num_of_bytes_written": 81920000,
    ///                   "sample_ms": 300000 } }
    ///       ] }
    ///     ] }
    ///   ]
    /// }
    /// ```
    ///
    /// ```text
    /// warning LAT002 sql20 › MSSQLSERVER › Billing › Billing_log (L:\Logs\Billing_log.ldf) [/sql_instances/0/databases/0/files/0/io/io_stall_write_ms]
    ///   average log write stall 19.9 ms (199,000 ms of stall over 10,000 writes, over 5 min of counters): poor (16–100 ms), at or above the 5 ms warning threshold; every commit waits for a log write
    ///   measured: 19.9 ms; expected: below 5 ms
    /// ```
    ///
    /// ## Why it matters
    /// A transaction commits only once its log records are on disk: every commit waits
    /// (`WRITELOG`) for a log write, so log write latency is added to every transaction's
    /// response time, and one log file serves the whole database. The target is 3 ms or less.
    /// On two identical ERP servers (six 10K SAS disks in RAID 5), both servers' log writes
    /// stayed at 3 ms while their data reads averaged 149.4 ms and 74 ms: a controller write cache absorbs sequential log writes even on 10K
    /// RAID 5 disks, so a slow log is rarely the disks alone.
    ///
    /// ## How to fix
    /// 1. Confirm now: sample `sys.dm_io_virtual_file_stats` twice a few minutes apart and
    ///    divide the differences, and look at the commit waits:
    ///    ```sql
    ///    SELECT DB_NAME(database_id) AS db, file_id, num_of_writes, io_stall_write_ms
    ///    FROM sys.dm_io_virtual_file_stats(NULL, NULL);
    ///    SELECT waiting_tasks_count, wait_time_ms FROM sys.dm_os_wait_stats WHERE wait_type = 'WRITELOG';
    ///    ```
    ///    and compare with `Get-Counter '\LogicalDisk(L:)\Avg. Disk sec/Write' -SampleInterval 5 -MaxSamples 12`.
    /// 2. Give the log its own volume on its own spindles (data-file reads and checkpoint bursts
    ///    break the log's sequential pattern), behind a battery- or flash-backed write cache.
    /// 3. For throughput, stripe the log's one volume over several disks (a Storage Spaces
    ///    virtual disk with several columns: `New-VirtualDisk -NumberOfColumns 4 -Interleave 64KB`):
    ///    adding log files does not spread log writes, SQL Server fills one log file at a time.
    /// 4. Fewer, larger commits (batching row-by-row loops) cut the number of log flushes.
    ///
    /// ## References
    /// - Microsoft, "Troubleshoot slow SQL Server performance caused by I/O issues": the bands
    ///   above; log writes ≤ 3 ms as the target:
    ///   <https://learn.microsoft.com/troubleshoot/sql/database-engine/performance/troubleshoot-sql-io-performance>
    /// - Microsoft, "SQL Server transaction log architecture and management guide": the log is
    ///   written sequentially, one file at a time, and a commit waits for its log records:
    ///   <https://learn.microsoft.com/sql/relational-databases/sql-server-transaction-log-architecture-and-management-guide>
    /// - sp_BlitzFirst checks 11/12 (slow reads and writes per file):
    ///   <https://github.com/BrentOzarULTD/SQL-Server-First-Responder-Kit/blob/main/Documentation/sp_BlitzFirst_Checks_by_Priority.md>
    pub static LOG_WRITE_LATENCY = {
        code: "LAT002",
        name: "log-write-latency",
        severity: Warning,
        summary: "Log files average less than 5 ms per write",
        since: "0.1.0",
        impact: Measured,
        remedy: [Manual(MeasureAgain)],
        needs: [DatabaseFiles],
        params: LogWriteLatencyParams {
            warn_ms: { kind: Ms, default: Num(5.0), doc: "Average write stall of a log file that earns a warning." },
            error_ms: { kind: Ms, default: Num(20.0), doc: "Average write stall of a log file that earns an error." },
            min_writes: { kind: Count, default: Num(1000.0), doc: "Fewest writes a log file must have had for its average to be judged." },
        },
        check: check,
    }
}

fn check(cx: &mut Ctx<'_, LogWriteLatencyParams>) {
    let warn = cx.params.warn_ms;
    let error = cx.params.error_ms;
    let min_writes = u64::from(cx.params.min_writes);
    let view = cx.view;
    for (db, f) in view.files() {
        if f.file_type != FileType::Log {
            continue;
        }
        let Some(io) = cx.need(f, "io", f.io) else { continue };
        let avg = match stall::average(
            io.io_stall_write_ms,
            io.num_of_writes,
            min_writes,
            "writes",
            "min_writes",
        ) {
            Ok(avg) => avg,
            Err(why) => {
                cx.not_applicable(f, "io/num_of_writes", why);
                continue;
            }
        };
        let reported = stall::report_average(
            cx,
            f,
            "io/io_stall_write_ms",
            "log write stall",
            (avg, io.io_stall_write_ms, io.num_of_writes, io.sample_ms),
            ((warn, stall::WarnAt::Threshold), error),
            "writes",
            "; every commit waits for a log write",
        );
        if let Some(finding) = reported {
            finding.fix(fixes::slow_log_writes(view, &db.db.name, f));
        }
    }
}
