//! The fixes of the latency rules, written for the file and the volume in question: sample this
//! file's counters now, watch this volume's latency from the operating system, then where to
//! look.

use spindle_core::facts::{DbFile, Volume};
use spindle_core::view::HostView;

use crate::commands::{is_linux, tsql_string, watch_latency};

/// The T-SQL that reads this file's counters (`reads` or `writes`), to run twice and subtract.
fn sample_query(database: &str, f: &DbFile, reads: bool) -> String {
    let (count, stall) =
        if reads { ("num_of_reads", "io_stall_read_ms") } else { ("num_of_writes", "io_stall_write_ms") };
    let db = format!("DB_ID({})", tsql_string(database));
    let file = f.file_id.map_or_else(
        || {
            format!(
                "(SELECT file_id FROM sys.master_files WHERE database_id = {db} AND name = {})",
                tsql_string(&f.logical_name)
            )
        },
        |id| id.to_string(),
    );
    format!("SELECT {count}, {stall}\nFROM sys.dm_io_virtual_file_stats({db}, {file});")
}

/// Watching the latency of the volume holding `f`, and that volume's name; a generic counter
/// when its volume is unknown.
fn watch_file_volume(view: &HostView, f: &DbFile, sec: &str) -> (String, String) {
    match view.volume_of_file(f) {
        Ok(v) if is_linux(view, v) => (watch_latency(view, v, sec), v.display_name().to_string()),
        Ok(v) => (
            format!("{} (Windows counts in seconds: 0.020 is 20 ms)", watch_latency(view, v, sec)),
            v.display_name().to_string(),
        ),
        Err(_) => (
            format!("`Get-Counter '\\LogicalDisk(*)\\Avg. Disk sec/{sec}' -SampleInterval 5 -MaxSamples 12`"),
            format!("the volume holding {}", f.physical_name.as_deref().unwrap_or(&f.logical_name)),
        ),
    }
}

/// LAT001's fix for data file `f` of `database`.
pub(super) fn slow_reads(view: &HostView, database: &str, f: &DbFile) -> String {
    let (watch, volume) = watch_file_volume(view, f, "Read");
    format!(
        "1. Measure now rather than since start-up: run this twice, five minutes apart, and divide the \
         differences (`io_stall_read_ms` over `num_of_reads`):\n```sql\n{}\n```\n\
         2. Compare with what the operating system sees on {volume}: {watch}. The same latency there means the storage is slow; much less means the time is \
         spent above it (filter drivers such as antivirus scanning the data files).\n\
         3. Storage: check partition alignment (ALN001) and 64 KiB clusters (FMT001) on {volume}, how far \
         the average is above what the media can do (LAT003), whether data and log files share the same \
         spindles (MED001), and the SAN path and cache.\n\
         4. Workload: pages that stay in memory are never read. Missing indexes and scans cause read \
         volume; more memory cuts reads.",
        sample_query(database, f, true)
    )
}

/// LAT002's fix for log file `f` of `database`.
pub(super) fn slow_log_writes(view: &HostView, database: &str, f: &DbFile) -> String {
    let (watch, volume) = watch_file_volume(view, f, "Write");
    format!(
        "1. Confirm now: run this twice a few minutes apart and divide the differences, and look at the \
         commit waits:\n```sql\n{}\nSELECT waiting_tasks_count, wait_time_ms FROM sys.dm_os_wait_stats \
         WHERE wait_type = N'WRITELOG';\n```\nand compare with {watch} on {volume}.\n\
         2. Give the log its own volume on its own spindles (data-file reads and checkpoint bursts break \
         the log's sequential pattern), behind a battery- or flash-backed write cache.\n\
         3. For throughput, stripe the log's one volume over several disks (STR003): adding log files \
         does not spread log writes, SQL Server fills one log file at a time.\n\
         4. Fewer, larger commits (batching row-by-row loops) cut the number of log flushes.",
        sample_query(database, f, false)
    )
}

/// LAT003's fix for a file on `v`, whose disks are `disks` (`6 × 10,000 rpm HDD`).
pub(super) fn far_above_media(view: &HostView, v: &Volume, disks: &str, reads: bool) -> String {
    let name = v.display_name();
    format!(
        "Find where the time goes between SQL Server and the disks under {name}:\n\
         1. Queue length and latency on {name}: {}. A queue much longer than the number of spindles \
         ({disks}) means more I/O than the disks can serve: spread it over more spindles (a wider stripe: \
         more Storage Spaces columns, more RAID members or LVM stripes), or cut it (indexes, memory).\n\
         2. Contention: move the log and tempdb off the data spindles (a separate volume on separate \
         disks, not just another drive letter on the same array).\n\
         3. Amplification: misaligned partitions (ALN001) and small clusters (FMT001) turn one I/O into two.\n\
         4. The path: SAN cache, HBA queue depth, multipath policy; compare with the storage array's own \
         latency counters.\n\
         5. If the disks really are saturated by a workload that cannot shrink, faster media (SSD: floor \
         under 0.1 ms) or short-stroked disks raise the ceiling.",
        watch_latency(view, v, if reads { "Read" } else { "Write" })
    )
}

#[cfg(test)]
mod tests {
    use super::sample_query;
    use spindle_core::facts::DbFile;

    #[test]
    fn samples_this_file() {
        let f = DbFile { file_id: Some(3), logical_name: "x".into(), ..DbFile::default() };
        assert_eq!(
            sample_query("O'Neil", &f, true),
            "SELECT num_of_reads, io_stall_read_ms\nFROM sys.dm_io_virtual_file_stats(DB_ID(N'O''Neil'), 3);"
        );
        let f = DbFile { logical_name: "it's".into(), ..DbFile::default() };
        assert!(sample_query("db", &f, false).contains(
            "(SELECT file_id FROM sys.master_files WHERE database_id = DB_ID(N'db') AND name = N'it''s')"
        ));
    }
}
