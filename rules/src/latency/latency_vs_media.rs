use std::collections::{BTreeMap, BTreeSet};

use spindle_core::declare_rule;
use spindle_core::facts::{DbFile, Disk, FileType, Media, Volume};
use spindle_core::fast_hash::FastMap;
use spindle_core::finding::Quantity;
use spindle_core::rule::Ctx;
use spindle_core::units;
use spindle_core::view::Located;

use super::{fixes, stall};
use crate::service_time::{TRANSFER_MS, half_revolution_ms};

declare_rule! {
    /// ## What it checks
    /// Whether a database file's average stall is far above what the media under it can do at
    /// best: the average read stall of data and log files, and the average write stall of log
    /// files, against the physical floor of one random I/O on the disks under the file's volume
    /// (file → volume → physical disks, through partitions, Storage Spaces pools and RAID
    /// members). It warns when the average is more than `factor` (4) times the floor.
    ///
    /// Floors, per I/O (seek + rotational latency + transfer, as published for enterprise
    /// drives):
    /// - 10,000 rpm HDD: 4.6 + 3 + 0.1 = 7.7 ms (`floor_10k_ms`);
    /// - 15,000 rpm HDD: 3.3 + 2 + 0.1 = 5.4 ms (`floor_15k_ms`);
    /// - SSD: about 0.075 ms, taken as 0.1 ms (`floor_ssd_ms`); NVMe and storage-class memory
    ///   use the same floor (theirs is no higher, so the check stays conservative);
    /// - any other rotation speed: derived as half a revolution (30,000 / rpm ms: 4.2 ms at
    ///   7,200 rpm) + an assumed average seek of 8.5 ms (`other_seek_ms`: a typical datasheet figure for 7,200 rpm 3.5-inch drives; set it from your drive's
    ///   datasheet) + 0.1 ms transfer. The message shows the derivation.
    ///
    /// When a volume spans several media (a tiered pool), the slowest floor is used, so the
    /// average is never blamed on queueing when the slow tier could explain it.
    ///
    /// Why 4: if a disk were a single queue with random arrivals (M/M/1), the average response
    /// time would be the service time divided by (1 − utilisation); 4 times the floor means
    /// the disks are at least 75 % busy, where latency climbs steeply, or that something else
    /// adds time (contention, a throttled path). Controller overhead, 64 KiB read-ahead I/O and
    /// short queues stay well inside that margin. A sequential log write or a cached read is
    /// faster than the random floor, so the floor overstates them: the check errs toward
    /// silence.
    ///
    /// Not judged: averages below `min_stall_ms` (5 ms: the "excellent" band and the "very
    /// good" one up to its last millisecond; 5 ms itself is judged, as LAT002 starts to warn about
    /// log writes there). On flash, 4 times a 0.1 ms floor is
    /// 0.4 ms, which a busy SSD exceeds without anyone waiting too long (a 512 KiB read-ahead
    /// takes about 1 ms just to transfer over SATA), so the media multiple only matters once
    /// the average itself does. Also not judged, and reported as not applicable: files with
    /// fewer than `min_ios` (1,000) reads or writes (one outlier could dominate the average),
    /// and virtual machines, whose disks are virtual: the physical media's floor does not
    /// include the hypervisor and the storage network. Files whose media or HDD rotation speed
    /// is unknown are not evaluated: that fact is missing.
    ///
    /// ## Example
    /// A data file averaging 149.4 ms per read on a RAID 5 of four 10,000 rpm disks, whose floor is
    /// 7.7 ms:
    ///
    /// ```json
    /// {
    ///   "schema_version": 1,
    ///   "host": { "name": "erp-srv1", "os_family": "windows" },
    ///   "disks": [
    ///     { "id": "disk1", "backed_by": { "raid_set": "array-a" } },
    ///     { "id": "hdd0", "media": "hdd", "rpm": 10000 },
    ///     { "id": "hdd1", "media": "hdd", "rpm": 10000 },
    ///     { "id": "hdd2", "media": "hdd", "rpm": 10000 },
    ///     { "id": "hdd3", "media": "hdd", "rpm": 10000 }
    ///   ],
    ///   "raid_sets": [
    ///     { "id": "array-a", "kind": "hardware", "level": "raid5",
    ///       "member_ids": ["hdd0", "hdd1", "hdd2", "hdd3"] }
    ///   ],
    ///   "partitions": [{ "id": "disk1-p1", "disk_id": "disk1" }],
    ///   "volumes": [
    ///     { "id": "vol-e", "mount_points": ["E:\\"], "filesystem": "NTFS",
    ///       "backed_by": { "partitions": ["disk1-p1"] } }
    ///   ],
    ///   "sql_instances": [
    ///     { "name": "MSSQLSERVER", "databases": [
    ///       { "name": "ERP", "files": [
    ///         { "type": "rows", "logical_name": "ERP_Data", "physical_name": "E:\\Data\\ERP.mdf",
    ///           "io": { "num_of_reads": 10000, "io_stall_read_ms": 1494000,
    ///                   "num_of_writes": 4000, "io_stall_write_ms": 12000,
    ///                   "num_of_bytes_read": 81920000, "num_of_bytes_written": 32768000 } }
    ///       ] }
    ///     ] }
    ///   ]
    /// }
    /// ```
    ///
    /// ```text
    /// warning LAT003 erp-srv1 › MSSQLSERVER › ERP › ERP_Data (E:\Data\ERP.mdf) [/sql_instances/0/databases/0/files/0/io/io_stall_read_ms]
    ///   average read stall 149.4 ms is 19.4 × the 7.7 ms floor of the media under E:\ (4 × 10,000 rpm HDD; floor_10k_ms): more than 4 × the floor (30.8 ms) means the I/Os queued or contended, not that the media is slow
    ///   measured: 149.4 ms (19.4 × the floor); expected: at most 30.8 ms (4 × 7.7 ms)
    /// ```
    ///
    /// ## Why it matters
    /// The media sets a floor on latency; it cannot set a ceiling. An average read far above
    /// the floor means the I/Os waited in a queue or fought over the spindles (data and log
    /// on the same disks, checkpoint bursts), or a misconfiguration multiplied the physical
    /// I/Os: faster disks are not the first thing to change. On two identical ERP servers, six
    /// 10K SAS disks in RAID 5 (floor 7.7 ms) averaged 149.4 ms per read on the misaligned
    /// server: 19.4 times the floor; the aligned twin, 74 ms, was still 9.6 times above it. What
    /// the disks can give instead: in a published IOMeter test, short-stroking a 10K disk to 5 %
    /// of its surface raised its IOPS by 77.5 %.
    ///
    /// ## How to fix
    /// Find where the time goes between SQL Server and the disks:
    /// 1. Queue length on the volume: `Get-Counter '\LogicalDisk(E:)\Avg. Disk Queue Length',
    ///    '\LogicalDisk(E:)\Avg. Disk sec/Read' -SampleInterval 5 -MaxSamples 12`. A queue
    ///    much longer than the number of spindles means more I/O than the disks can serve:
    ///    spread it over more spindles (more columns: `New-VirtualDisk -NumberOfColumns 8
    ///    -Interleave 64KB`), or cut it (indexes, memory).
    /// 2. Contention: move the log and tempdb off the data spindles (a separate volume on
    ///    separate disks, not just another drive letter on the same array).
    /// 3. Amplification: misaligned partitions (ALN001) and small clusters turn one I/O into
    ///    two.
    /// 4. The path: SAN cache, HBA queue depth, multipath policy; compare with the storage
    ///    array's own latency counters.
    /// 5. If the disks really are saturated by a workload that cannot shrink, faster media
    ///    (SSD: floor under 0.1 ms) or short-stroked disks raise the ceiling.
    ///
    /// ## References
    /// - Microsoft, "Troubleshoot slow SQL Server performance caused by I/O issues": the bands
    ///   (< 2 ms excellent, 2–5 ms very good) below which no average is reported:
    ///   <https://learn.microsoft.com/troubleshoot/sql/database-engine/performance/troubleshoot-sql-io-performance>
    /// - Microsoft Learn, "sys.dm_io_virtual_file_stats": the stall counters the averages come from:
    ///   <https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-io-virtual-file-stats-transact-sql>
    /// - Random I/O service time of enterprise drives, seek + rotation + transfer: 10K rpm
    ///   4.6 + 3 + 0.1 = 7.7 ms, 15K rpm 3.3 + 2 + 0.1 = 5.4 ms, SSD about 0.075 ms; short-stroking
    ///   gains of +55.9 % to +81.6 % IOPS (a published IOMeter test of 10K and 15K drives).
    pub static LATENCY_VS_MEDIA = {
        code: "LAT003",
        name: "latency-vs-media",
        severity: Warning,
        summary: "File latency is within a few times the floor of the media under it",
        since: "0.1.0",
        impact: Measured,
        remedy: [Manual(MeasureAgain)],
        needs: [DatabaseFiles, Volumes, Disks],
        params: LatencyVsMediaParams {
            factor: { kind: Factor, default: Num(4.0), doc: "How many times the media's floor an average may reach before it means queueing or contention." },
            floor_10k_ms: { kind: Ms, default: Num(7.7), doc: "Random I/O floor of a 10,000 rpm HDD (seek 4.6 + rotation 3 + transfer 0.1 ms)." },
            floor_15k_ms: { kind: Ms, default: Num(5.4), doc: "Random I/O floor of a 15,000 rpm HDD (seek 3.3 + rotation 2 + transfer 0.1 ms)." },
            floor_ssd_ms: { kind: Ms, default: Num(0.1), doc: "I/O floor of SSD, NVMe and storage-class memory." },
            other_seek_ms: { kind: Ms, default: Num(8.5), doc: "Average seek assumed for HDDs of other rotation speeds (their floor is half a revolution + this + 0.1 ms)." },
            min_stall_ms: { kind: Ms, default: Num(5.0), doc: "Averages below this are never reported, whatever the media (the \"excellent\" and \"very good\" bands)." },
            min_ios: { kind: Count, default: Num(1000.0), doc: "Fewest reads (or writes) a file must have had for its average to be judged." },
        },
        check: check,
    }
}

/// The floor parameters.
#[derive(Debug, Clone, Copy)]
struct Floors {
    hdd_10k: f64,
    hdd_15k: f64,
    ssd: f64,
    other_seek: f64,
}

/// One disk's floor: milliseconds, what kind of media (for grouping in messages), and where the
/// number comes from.
#[derive(Debug, Clone, PartialEq)]
struct DiskFloor {
    ms: f64,
    kind: String,
    how: String,
}

/// Why a disk has no floor: the missing field and a reason.
#[derive(Debug, Clone, PartialEq)]
struct NoFloor {
    missing: &'static str,
    reason: String,
}

fn disk_floor(d: &Disk, fl: &Floors) -> Result<DiskFloor, NoFloor> {
    let media = d.media.ok_or_else(|| NoFloor {
        missing: "media",
        reason: "media type not collected (MSFT_PhysicalDisk.MediaType; Linux queue/rotational)".into(),
    })?;
    let named = |kind: &str, ms: f64, param: &str| DiskFloor { ms, kind: kind.into(), how: param.into() };
    match media {
        Media::Ssd | Media::Nvme | Media::Scm => Ok(named(media.name(), fl.ssd, "floor_ssd_ms")),
        Media::Unknown => Err(NoFloor {
            missing: "media",
            reason:
                "the platform could not tell the media type (SAN LUNs and virtual disks often report none)"
                    .into(),
        }),
        Media::Hdd => {
            // MSFT_PhysicalDisk.SpindleSpeed reports 0 for non-rotational and 0xFFFFFFFF for
            // unknown: neither is a rotation speed.
            let rpm = d.rpm.filter(|&r| r != 0 && r != u32::MAX).ok_or_else(|| NoFloor {
                missing: "rpm",
                reason: "an HDD whose rotation speed (MSFT_PhysicalDisk.SpindleSpeed) is unknown, so its floor is too"
                    .into(),
            })?;
            let kind = format!("{} rpm HDD", units::thousands(u64::from(rpm)));
            Ok(match rpm {
                10_000 => named(&kind, fl.hdd_10k, "floor_10k_ms"),
                15_000 => named(&kind, fl.hdd_15k, "floor_15k_ms"),
                _ => {
                    let rotation = half_revolution_ms(rpm);
                    DiskFloor {
                        ms: rotation + fl.other_seek + TRANSFER_MS,
                        how: format!(
                            "derived: {} half revolution + {} assumed seek (other_seek_ms) + {} transfer",
                            units::ms(rotation),
                            units::ms(fl.other_seek),
                            units::ms(TRANSFER_MS)
                        ),
                        kind,
                    }
                }
            })
        }
    }
}

/// The floor of a set of disks: the slowest one's, and a description of the set
/// (`6 × 10,000 rpm HDD`, or `2 × SSD, 4 × 7,200 rpm HDD`).
fn slowest(floors: &[DiskFloor]) -> Option<(DiskFloor, String)> {
    let worst = floors.iter().max_by(|a, b| a.ms.total_cmp(&b.ms))?.clone();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for f in floors {
        *counts.entry(f.kind.as_str()).or_default() += 1;
    }
    let set = counts.iter().map(|(k, n)| format!("{n} × {k}")).collect::<Vec<_>>().join(", ");
    let set = if counts.len() > 1 { format!("slowest of {set}") } else { set };
    Some((worst, set))
}

/// What stopped the rule from finding a floor, and on which entity to record it.
#[derive(Clone)]
enum Miss<'a> {
    File(&'static str, String),
    Volume(&'a Located<Volume>, &'static str, String),
    Disk(&'a Located<Disk>, &'static str, String),
}

/// A volume's floor and the description of its disks, or why there is none.
type Floor<'a> = Result<(DiskFloor, String), Miss<'a>>;

fn floor_of_volume<'a, P>(cx: &Ctx<'a, P>, v: &'a Located<Volume>, fl: &Floors) -> Floor<'a> {
    let view = cx.view;
    let ids = view.physical_disks_of_volume(v).filter(|ids| !ids.is_empty()).ok_or_else(|| {
        Miss::Volume(
            v,
            "backed_by",
            "the disks under this volume are not known (its partitions, virtual disk, pool or RAID members were not collected)"
                .into(),
        )
    })?;
    let mut floors = Vec::with_capacity(ids.len());
    for id in ids.iter() {
        let Some(d) = view.disk(id) else {
            return Err(Miss::Volume(
                v,
                "disks",
                format!("disk {id} under this volume is not among the collected disks"),
            ));
        };
        match disk_floor(d, fl) {
            Ok(f) => floors.push(f),
            Err(NoFloor { missing, reason }) => {
                let reason = match cx.collector_reason(missing) {
                    Some(c) => format!("{reason}; {c}"),
                    None => reason,
                };
                return Err(Miss::Disk(d, missing, reason));
            }
        }
    }
    Ok(slowest(&floors).expect("at least one disk"))
}

fn check(cx: &mut Ctx<'_, LatencyVsMediaParams>) {
    let view = cx.view;
    if view.host.is_virtual == Some(true) {
        cx.not_applicable(
            &view.host,
            "is_virtual",
            "a virtual machine's disks are virtual: the physical media's floor leaves out the hypervisor and the storage network, so a ratio to it would mislead",
        );
        return;
    }
    let fl = Floors {
        hdd_10k: cx.params.floor_10k_ms,
        hdd_15k: cx.params.floor_15k_ms,
        ssd: cx.params.floor_ssd_ms,
        other_seek: cx.params.other_seek_ms,
    };
    let factor = cx.params.factor;
    let min_stall = cx.params.min_stall_ms;
    let min_ios = u64::from(cx.params.min_ios);
    // Entities already recorded as not evaluated, so a volume with twenty files says it once.
    let mut missed: BTreeSet<String> = BTreeSet::new();
    // The floor of each volume, worked out for its first slow file only: it names and formats
    // every disk under the volume, and a volume holds many files.
    let mut floors: FastMap<usize, Floor<'_>> = FastMap::default();

    for (_, f) in view.files() {
        let directions: &[Direction] = match f.file_type {
            FileType::Rows => &[Direction::Read],
            FileType::Log => &[Direction::Read, Direction::Write],
            _ => continue,
        };
        let Some(io) = cx.need(f, "io", f.io) else { continue };
        let mut floor: Option<(DiskFloor, String, &Located<Volume>)> = None;
        // A file whose media floor is unknown is not judged: the gap is recorded on its volume
        // or disk, so the file must not read as passed.
        let mut judged = true;
        for &dir in directions {
            let (stall_ms, count) = match dir {
                Direction::Read => (io.io_stall_read_ms, io.num_of_reads),
                Direction::Write => (io.io_stall_write_ms, io.num_of_writes),
            };
            let avg = match stall::average(stall_ms, count, min_ios, dir.plural(), "min_ios") {
                Ok(avg) => avg,
                Err(why) => {
                    cx.not_applicable(f, dir.count_field(), why);
                    continue;
                }
            };
            if avg < min_stall {
                continue;
            }
            if floor.is_none() {
                let found = floor_of_file(cx, f, &fl, &mut floors);
                match found {
                    Ok(found) => floor = Some(found),
                    Err(miss) => {
                        record(cx, f, miss, &mut missed);
                        judged = false;
                        break;
                    }
                }
            }
            let Some((disk, set, volume)) = &floor else { break };
            if stall::at_least(factor * disk.ms, avg) {
                continue;
            }
            report_far_above(cx, f, dir, avg, disk, set, volume);
        }
        if judged {
            cx.judged(f);
        }
    }
}

/// The media floor under the volume holding `f`, with the volume. A volume's floor is worked
/// out for its first slow file only and kept in `floors` by the volume's place in the view.
fn floor_of_file<'a>(
    cx: &Ctx<'a, LatencyVsMediaParams>,
    f: &Located<DbFile>,
    fl: &Floors,
    floors: &mut FastMap<usize, Floor<'a>>,
) -> Result<(DiskFloor, String, &'a Located<Volume>), Miss<'a>> {
    let view = cx.view;
    match view.volume_of_file(f) {
        Err(why) => Err(Miss::File(why.missing(), why.to_string())),
        Ok(v) => {
            // By the volume's place in the view (found by address), not a walk.
            let at = view.volume_index(v);
            let known = at.and_then(|at| floors.get(&at));
            let found = match known {
                Some(found) => found.clone(),
                None => {
                    let found = floor_of_volume(cx, v, fl);
                    if let Some(at) = at {
                        floors.insert(at, found.clone());
                    }
                    found
                }
            };
            found.map(|(d, set)| (d, set, v))
        }
    }
}

/// Reports the `dir` stall of `f`, `avg` ms, as far above the floor of the media under `volume`.
fn report_far_above(
    cx: &mut Ctx<'_, LatencyVsMediaParams>,
    f: &Located<DbFile>,
    dir: Direction,
    avg: f64,
    disk: &DiskFloor,
    set: &str,
    volume: &Located<Volume>,
) {
    let factor = cx.params.factor;
    let limit = factor * disk.ms;
    let ratio = avg / disk.ms;
    let message = format!(
        "average {} stall {} is {} × the {} floor of the media under {} ({set}; {}): more than {} × the floor ({}) means the I/Os queued or contended, not that the media is slow",
        dir.word(),
        units::ms(avg),
        times(ratio),
        units::ms(disk.ms),
        volume.display_name(),
        disk.how,
        factor,
        units::ms(limit),
    );
    let fix = fixes::far_above_media(cx.view, volume, set, matches!(dir, Direction::Read));
    cx.report(f, dir.stall_field(), message)
        .values(
            format!("{} ({} × the floor)", units::ms(avg), times(ratio)),
            format!("at most {} ({} × {})", units::ms(limit), factor, units::ms(disk.ms)),
        )
        .quantities(Quantity::ms(avg), Quantity::ms(limit))
        .fix(fix);
}

/// How many times: `19.4`; two decimals below 10, so 4.01 × does not print as 4.0 ×.
fn times(ratio: f64) -> String {
    if ratio < 10.0 { spindle_core::units::fixed(ratio, 2) } else { spindle_core::units::fixed(ratio, 1) }
}

fn record<P>(
    cx: &mut Ctx<'_, P>,
    f: &Located<spindle_core::facts::DbFile>,
    miss: Miss<'_>,
    missed: &mut BTreeSet<String>,
) {
    match miss {
        Miss::File(missing, reason) => cx.not_evaluated_because(f, missing, reason),
        Miss::Volume(v, missing, reason) => {
            if missed.insert(v.key.clone()) {
                cx.not_evaluated_because(v, missing, format!("no media floor for the files on it: {reason}"));
            }
        }
        Miss::Disk(d, missing, reason) => {
            if missed.insert(d.key.clone()) {
                cx.not_evaluated_because(d, missing, format!("no media floor for the files on it: {reason}"));
            }
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Direction {
    Read,
    Write,
}

impl Direction {
    fn word(self) -> &'static str {
        match self {
            Direction::Read => "read",
            Direction::Write => "write",
        }
    }
    fn plural(self) -> &'static str {
        match self {
            Direction::Read => "reads",
            Direction::Write => "writes",
        }
    }
    fn count_field(self) -> &'static str {
        match self {
            Direction::Read => "io/num_of_reads",
            Direction::Write => "io/num_of_writes",
        }
    }
    fn stall_field(self) -> &'static str {
        match self {
            Direction::Read => "io/io_stall_read_ms",
            Direction::Write => "io/io_stall_write_ms",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FL: Floors = Floors { hdd_10k: 7.7, hdd_15k: 5.4, ssd: 0.1, other_seek: 8.5 };

    fn hdd(rpm: Option<u32>) -> Disk {
        Disk { id: "d".into(), media: Some(Media::Hdd), rpm, ..Default::default() }
    }

    #[test]
    fn published_floors() {
        assert_eq!(disk_floor(&hdd(Some(10_000)), &FL).unwrap().ms, 7.7);
        assert_eq!(disk_floor(&hdd(Some(15_000)), &FL).unwrap().ms, 5.4);
        let ssd = Disk { id: "s".into(), media: Some(Media::Ssd), rpm: Some(0), ..Default::default() };
        assert_eq!(disk_floor(&ssd, &FL).unwrap().ms, 0.1);
    }

    #[test]
    fn other_rpm_is_derived() {
        let f = disk_floor(&hdd(Some(7_200)), &FL).unwrap();
        assert!((f.ms - (30_000.0 / 7_200.0 + 8.5 + 0.1)).abs() < 1e-9);
        assert!(f.how.contains("4.2 ms half revolution"), "{}", f.how);
    }

    #[test]
    fn unknown_rpm_or_media_has_no_floor() {
        assert_eq!(disk_floor(&hdd(None), &FL).unwrap_err().missing, "rpm");
        assert_eq!(disk_floor(&hdd(Some(0)), &FL).unwrap_err().missing, "rpm");
        assert_eq!(disk_floor(&hdd(Some(u32::MAX)), &FL).unwrap_err().missing, "rpm");
        let unknown = Disk { id: "u".into(), media: Some(Media::Unknown), ..Default::default() };
        assert_eq!(disk_floor(&unknown, &FL).unwrap_err().missing, "media");
        let none = Disk { id: "n".into(), ..Default::default() };
        assert_eq!(disk_floor(&none, &FL).unwrap_err().missing, "media");
    }

    #[test]
    fn mixed_media_uses_the_slowest() {
        let floors = [
            disk_floor(&Disk { id: "s".into(), media: Some(Media::Ssd), ..Default::default() }, &FL).unwrap(),
            disk_floor(&hdd(Some(10_000)), &FL).unwrap(),
            disk_floor(&hdd(Some(10_000)), &FL).unwrap(),
        ];
        let (worst, set) = slowest(&floors).unwrap();
        assert_eq!(worst.ms, 7.7);
        assert_eq!(set, "slowest of 2 × 10,000 rpm HDD, 1 × SSD");
    }

    #[test]
    fn erp_case_ratios() {
        // The ERP servers on 10K disks: 149.4 ms is 19.4 × the floor, 74 ms is 9.61 ×.
        assert_eq!(times(149.4 / 7.7), "19.4");
        assert_eq!(times(74.0 / 7.7), "9.61");
        assert_eq!(times(30.9 / 7.7), "4.01");
        // Exactly 4 × the floor is not "more than" it.
        assert!(stall::at_least(4.0 * 7.7, 30.8));
    }
}
