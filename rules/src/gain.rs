//! The expected gain of a fix, where a public measurement supports one: a range with its
//! assumptions, never a promise. The rules attach these to their findings and `spindle plan`
//! carries them to the steps that fix those findings. Each rule's docs state the same evidence
//! under "Expected gain". Cluster size alone has none (a SAN backup test found no difference), so
//! a format-only change gets no estimate.

use spindle_core::finding::Quantity;
use spindle_core::gain::{Better, Gain};
use spindle_core::units;

use crate::service_time::{ASSUMED_SEEK_MS, TRANSFER_MS, half_revolution_ms, published_seek_ms};

pub(crate) const ALIGNMENT_PAPER: &str =
    "https://learn.microsoft.com/previous-versions/sql/sql-server-2008/dd758814(v=sql.100)";
pub(crate) const SPACES_GUIDE: &str =
    "https://learn.microsoft.com/azure/azure-sql/virtual-machines/windows/storage-configuration";
pub(crate) const DISK_PERFORMANCE: &str =
    "https://en.wikipedia.org/wiki/Hard_disk_drive_performance_characteristics";

/// Realigning a partition that starts at a sector-63 style offset on spinning disks. `straddle`:
/// the share (0 to 1) of 8 KiB and of 64 KiB I/Os that cross a stripe-unit boundary today, when
/// the stripe unit is known.
pub(crate) fn realign(straddle: Option<(f64, f64)>) -> Gain {
    let today = match straddle {
        Some((page, extent)) => format!(
            " On this partition today, {} of 8 KiB page I/Os and {} of 64 KiB extent I/Os cross a \
             stripe-unit boundary and cost two physical I/Os; aligned, none do.",
            units::percent(page),
            units::percent(extent)
        ),
        None => String::new(),
    };
    Gain {
        metric: "throughput: sequential writes (low end) to random 8 KiB reads (high end)".into(),
        better: Better::Higher,
        low_percent: 13.0,
        high_percent: 21.0,
        after: None,
        assumptions: format!(
            "a partition at a sector-63 style offset on a striped array of spinning disks, as measured \
             with SQLIO on the same array before and after aligning (random 8 KiB reads +21 %, \
             sequential reads +18 %, sequential writes +13 %, random writes +1.5 %); on identical ERP \
             servers, aligned with 64 KiB clusters, the average read stall was 74 ms against 149.4 ms. \
             Random writes barely change.{today}"
        ),
        evidence: "Microsoft, \"Disk Partition Alignment Best Practices for SQL Server\" (2009)".into(),
        url: ALIGNMENT_PAPER.into(),
    }
}

/// 8 KiB random-read IOPS with 16 columns over 8, and 64 KiB sequential-write MB/s, on the same
/// 16 Azure data disks: how much of a doubling of columns the measurement kept.
const COLUMN_EFFICIENCY_READS: f64 = 5976.0 / 3512.0 / 2.0;
const COLUMN_EFFICIENCY_WRITES: f64 = 231.0 / 125.0 / 2.0;

/// A Storage Spaces virtual disk rebuilt from `from` to `to` columns (simple or mirror: the
/// measurement was of striping; parity's writes do not scale so, and get no estimate).
pub(crate) fn columns(from: u32, to: u32) -> Option<Gain> {
    if from == 0 || from >= to {
        return None;
    }
    let ratio = f64::from(to) / f64::from(from);
    let low = ((ratio * COLUMN_EFFICIENCY_READS - 1.0) * 100.0).max(0.0);
    let high = ((ratio * COLUMN_EFFICIENCY_WRITES - 1.0) * 100.0).max(low);
    Some(Gain {
        metric: "random 8 KiB read IOPS (low end) to 64 KiB sequential write throughput (high end)".into(),
        better: Better::Higher,
        low_percent: low.round(),
        high_percent: high.round(),
        after: None,
        assumptions: format!(
            "I/O spread over all {to} columns and every disk of the pool giving the same IOPS; scaled from \
             SQLIO on an Azure VM with 16 data disks: 8 KiB random reads 3,512 IOPS with 8 columns and \
             5,976 with 16, 64 KiB sequential writes 125 and 231 MB/s (about 500 IOPS per disk of that \
             generation). A workload that does not saturate {from} columns gains less."
        ),
        evidence: "Azure, \"Storage configuration for SQL Server VMs\": NumberOfColumns = number of disks"
            .into(),
        url: SPACES_GUIDE.into(),
    })
}

/// A log moved off the spindles it shares with data files onto disks of its own, of the same
/// `rpm`: its writes stop paying a seek. `measured_write_ms`: the log's average write stall
/// today, when enough writes were counted. `None` when the rotation speed is unknown, or the log
/// already writes as fast as its own spindles would let it (a controller cache absorbs it).
pub(crate) fn log_own_spindles(rpm: Option<u32>, measured_write_ms: Option<f64>) -> Option<Gain> {
    let rpm = rpm.filter(|&r| r > 0)?;
    let published = published_seek_ms(rpm);
    let (seek, rotation) = (published.unwrap_or(ASSUMED_SEEK_MS), half_revolution_ms(rpm));
    let floor = seek + rotation + TRANSFER_MS;
    let (best, worst) = (TRANSFER_MS, rotation + TRANSFER_MS);
    let (today, today_text) = match measured_write_ms {
        Some(ms) => (ms, format!("This log's writes averaged {} today", units::ms(ms))),
        None => (
            floor,
            format!(
                "Today every log write pays a random I/O: {} (seek + rotation + transfer)",
                units::ms(floor)
            ),
        ),
    };
    if today <= worst {
        return None;
    }
    // A 100 % cut would say the log writes in no time.
    let cut = |after: f64| ((today - after) / today * 100.0).clamp(0.0, 99.0).round();
    let seek_source = if published.is_some() {
        "the published figure for enterprise drives of this speed"
    } else {
        "an assumed average: set it from the drive's datasheet"
    };
    Some(Gain {
        metric: "log write service time".into(),
        better: Better::Lower,
        low_percent: cut(worst),
        high_percent: cut(best),
        after: Some((Quantity::ms(best), Quantity::ms(worst))),
        assumptions: format!(
            "the log alone on {} rpm disks of its own: its sequential writes keep the heads on the log's \
             tracks, so no seek ({}, {seek_source}); at best the next sector is under the \
             head ({} transfer), at worst it waits half a revolution ({}). {today_text}. Queueing \
             behind a saturated controller or SAN path is not removed by the move.",
            units::thousands(u64::from(rpm)),
            units::ms(seek),
            units::ms(TRANSFER_MS),
            units::ms(rotation),
        ),
        evidence: "Hard disk drive performance characteristics: seek time and rotational latency".into(),
        url: DISK_PERFORMANCE.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubling_columns_keeps_what_the_measurement_kept() {
        let g = columns(8, 16).expect("more columns");
        assert_eq!((g.low_percent, g.high_percent), (70.0, 85.0));
        assert!(columns(16, 16).is_none());
        assert!(columns(0, 16).is_none());
    }

    #[test]
    fn a_log_of_its_own_stops_paying_the_seek() {
        // 10K: 7.7 ms today; 0.1 to 3.1 ms after.
        let g = log_own_spindles(Some(10_000), None).expect("10K");
        assert_eq!((g.low_percent, g.high_percent), (60.0, 99.0));
        assert_eq!(g.after, Some((Quantity::ms(0.1), Quantity::ms(3.1))));
        // Against a measured 20 ms average: 84.5 % to 99.5 %, said as 99 %.
        let g = log_own_spindles(Some(10_000), Some(20.0)).expect("measured");
        assert_eq!((g.low_percent, g.high_percent), (85.0, 99.0));
        // 7,200 rpm: half a revolution is 4.2 ms.
        let g = log_own_spindles(Some(7_200), None).expect("7.2K");
        assert_eq!(g.after.map(|a| a.1.value), Some(30_000.0 / 7_200.0 + 0.1));
    }

    #[test]
    fn no_estimate_without_a_speed_or_with_a_log_already_fast() {
        assert!(log_own_spindles(None, None).is_none());
        assert!(log_own_spindles(Some(0), None).is_none());
        // 2 ms today on 15K disks: a cache absorbs the seeks already.
        assert!(log_own_spindles(Some(15_000), Some(2.0)).is_none());
    }
}
