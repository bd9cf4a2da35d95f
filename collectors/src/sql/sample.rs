//! `--sample`: the difference between two reads of the cumulative I/O counters.
//!
//! Counters accumulate from the service's start, so weeks of quiet nights hide a latency problem
//! happening now; the delta over a minute shows it.

use std::collections::HashMap;

use super::rows::FileStatsRow;

/// Per-file deltas of `second − first`, and the milliseconds they cover: the server's own
/// `sample_ms` difference when it is sane (it wraps on 2008–2014, where it is an int), else the
/// interval the client measured. Files present in only one read are left out. Counters that went
/// backwards mean the service restarted in between: the sample is worthless and says so.
pub fn delta(
    first: &[FileStatsRow],
    second: &[FileStatsRow],
    measured_ms: u64,
) -> Result<(Vec<FileStatsRow>, u64), String> {
    let before: HashMap<(i32, i32), &FileStatsRow> =
        first.iter().map(|r| ((r.database_id, r.file_id), r)).collect();
    let mut out = Vec::with_capacity(second.len());
    let mut server_ms = None;
    for b in second {
        let Some(a) = before.get(&(b.database_id, b.file_id)) else { continue };
        let d = |x: i64, y: i64| {
            y.checked_sub(x).filter(|v| *v >= 0).ok_or_else(|| {
                format!(
                    "the I/O counters of database {} file {} went backwards between the two samples \
                     (the service restarted?)",
                    b.database_id, b.file_id
                )
            })
        };
        out.push(FileStatsRow {
            database_id: b.database_id,
            file_id: b.file_id,
            sample_ms: b.sample_ms.wrapping_sub(a.sample_ms),
            num_of_reads: d(a.num_of_reads, b.num_of_reads)?,
            num_of_writes: d(a.num_of_writes, b.num_of_writes)?,
            num_of_bytes_read: d(a.num_of_bytes_read, b.num_of_bytes_read)?,
            num_of_bytes_written: d(a.num_of_bytes_written, b.num_of_bytes_written)?,
            io_stall_read_ms: d(a.io_stall_read_ms, b.io_stall_read_ms)?,
            io_stall_write_ms: d(a.io_stall_write_ms, b.io_stall_write_ms)?,
        });
        server_ms.get_or_insert(b.sample_ms.wrapping_sub(a.sample_ms));
    }
    // The server's clock, unless it wrapped or disagrees wildly with ours.
    let covers = match server_ms.and_then(|ms| u64::try_from(ms).ok()) {
        Some(ms) if ms > 0 && ms <= measured_ms.saturating_mul(2).max(1000) => ms,
        _ => measured_ms,
    };
    Ok((out, covers))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(db: i32, file: i32, sample_ms: i64, reads: i64, stall: i64) -> FileStatsRow {
        FileStatsRow {
            database_id: db,
            file_id: file,
            sample_ms,
            num_of_reads: reads,
            io_stall_read_ms: stall,
            ..FileStatsRow::default()
        }
    }

    #[test]
    fn delta_is_second_minus_first_over_the_servers_interval() {
        let a = [row(5, 1, 1_000_000, 1_000_000, 2_000_000), row(5, 2, 1_000_000, 10, 10)];
        let b = [row(5, 1, 1_060_000, 1_000_600, 2_030_000), row(6, 1, 1_060_000, 1, 1)];
        let (d, covers) = delta(&a, &b, 60_100).unwrap();
        assert_eq!(covers, 60_000);
        assert_eq!(d.len(), 1, "a file in one read only is left out");
        assert_eq!((d[0].num_of_reads, d[0].io_stall_read_ms), (600, 30_000));
        // 50 ms per read now, against 2 ms over the whole uptime.
        assert_eq!(d[0].io_stall_read_ms / d[0].num_of_reads, 50);
    }

    #[test]
    fn a_wrapped_server_clock_falls_back_to_the_measured_interval() {
        let a = [row(5, 1, i32::MAX as i64 - 10, 0, 0)];
        let b = [row(5, 1, 50, 10, 10)];
        assert_eq!(delta(&a, &b, 60_000).unwrap().1, 60_000);
    }

    #[test]
    fn counters_going_backwards_reject_the_sample() {
        let a = [row(5, 1, 1000, 100, 100)];
        let b = [row(5, 1, 2000, 5, 5)];
        let e = delta(&a, &b, 1000).unwrap_err();
        assert!(e.contains("went backwards"), "{e}");
    }
}
