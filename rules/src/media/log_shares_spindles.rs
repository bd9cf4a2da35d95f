use std::borrow::Cow;
use std::collections::BTreeSet;

use spindle_core::declare_rule;
use spindle_core::facts::{Backing, DatabaseRole, DbFile, Disk, FileType, Media, Volume};
use spindle_core::finding::Quantity;
use spindle_core::rule::Ctx;
use spindle_core::units;
use spindle_core::view::{DatabaseView, HostView, Located};

use crate::commands::{get_volume, is_linux, linux_device, move_user_file, sh_word, tsql_name};
use crate::format::db_volumes::describe_files;
use crate::gain;
use crate::service_time::published_random_io_ms;

declare_rule! {
    /// ## What it checks
    /// On rotational media, a database's log file does not share physical disks with that
    /// database's data files. For each log file, spindle follows the log's volume and each data
    /// file's volume down to the physical disks that serve them (a RAID set's members, a
    /// Storage Spaces pool's disks, the disks of its partitions) and intersects the two sets.
    /// Different volumes carved from one RAID set share every spindle, whatever their drive
    /// letters. A shared disk counts as rotational when its `media` is `hdd` or its `rpm` is
    /// above 0; when the shared members are not listed as disks, the media the OS reports for
    /// the RAID logical drive or virtual disk under the log's volume stands for them.
    ///
    /// - Reported on the log file, naming the data files and the shared disks.
    /// - SSD, NVMe and SCM: no finding. Flash has no head to move (about 0.075 ms per random
    ///   read), so sequential log writes lose nothing by sharing it with random data I/O.
    /// - Not evaluated: the media of the shared disks is unknown (neither `media` nor `rpm`, as
    ///   on most SAN LUNs), a volume's backing cannot be followed to physical disks, or a file's
    ///   volume is unknown.
    /// - Data and log on one and the same volume are left to PLC001 (data-log-separate-volumes);
    ///   this rule finds what that rule cannot see: separate volumes on the same disks.
    /// - User databases are judged; master, model and msdb only with
    ///   `include_system_databases = "yes"` (their log traffic is small). tempdb is not judged:
    ///   its commits do not wait for a log flush, so its log writes are not on the commit path.
    ///
    /// ## Example
    /// Data on D:\ and the log on L:\, two partitions of one RAID 5 logical drive of 10,000 rpm
    /// disks:
    ///
    /// ```json
    /// {
    ///   "schema_version": 1,
    ///   "host": { "name": "sql01", "os_family": "windows" },
    ///   "disks": [
    ///     { "id": "disk1", "rpm": 10000, "backed_by": { "raid_set": "array-a" } }
    ///   ],
    ///   "raid_sets": [
    ///     { "id": "array-a", "kind": "hardware", "level": "raid5",
    ///       "member_ids": ["hdd0", "hdd1", "hdd2", "hdd3", "hdd4", "hdd5"] }
    ///   ],
    ///   "partitions": [
    ///     { "id": "disk1-p1", "disk_id": "disk1" },
    ///     { "id": "disk1-p2", "disk_id": "disk1" }
    ///   ],
    ///   "volumes": [
    ///     { "id": "vol-d", "mount_points": ["D:\\"], "filesystem": "NTFS",
    ///       "backed_by": { "partitions": ["disk1-p1"] } },
    ///     { "id": "vol-l", "mount_points": ["L:\\"], "filesystem": "NTFS",
    ///       "backed_by": { "partitions": ["disk1-p2"] } }
    ///   ],
    ///   "sql_instances": [
    ///     { "name": "MSSQLSERVER", "databases": [
    ///       { "name": "ERP", "files": [
    ///         { "type": "rows", "logical_name": "ERP_Data",
    ///           "physical_name": "D:\\Data\\ERP.mdf" },
    ///         { "type": "log", "logical_name": "ERP_Log",
    ///           "physical_name": "L:\\Logs\\ERP_log.ldf" }
    ///       ] }
    ///     ] }
    ///   ]
    /// }
    /// ```
    ///
    /// ```text
    /// warning MED001 sql01 › MSSQLSERVER › ERP › ERP_Log (L:\Logs\ERP_log.ldf) [/sql_instances/0/databases/0/files/1/physical_name]
    ///   log file ERP_Log on volume L:\ shares 6 of its 6 physical disks (10,000 rpm HDD: hdd0, hdd1, hdd2 and 3 more) with 1 database file: ERP_Data (ERP) on volume D:\: different volumes, same spindles, so the log's sequential writes wait behind the data files' random I/O (seek plus rotation: about 7.7 ms per random I/O)
    ///   measured: 6 physical disks (10,000 rpm HDD) shared with data files; expected: no physical disk shared between the log and the data files
    /// ```
    ///
    /// ## Why it matters
    /// SQL Server writes the log sequentially and waits for each log write before a transaction
    /// commits; data files see random 8 KiB reads and checkpoint bursts of random writes. On a
    /// disk with heads, every data I/O between two log writes moves the head away, and the next
    /// log write pays a seek and rotational latency instead of streaming: 7.7 ms per random I/O
    /// on a 10K rpm disk (4.6 ms seek + 3 ms rotation + 0.1 ms transfer), 5.4 ms at 15K, where a
    /// log write target is 3 ms or less. Separate drive letters do not help when both volumes are
    /// carved from the same array: a RAID 5 of six 10K disks split into D: and L: puts data and
    /// log on the same six spindles. A large SAN cache can absorb part of this interference, a
    /// small one cannot.
    ///
    /// ## How to fix
    /// Put the log on its own spindles: a separate RAID 1 or RAID 10 set (or a separate
    /// Storage Spaces pool) for the log files, or move the log to SSD. Then move the log file:
    ///
    /// ```sql
    /// ALTER DATABASE Sales MODIFY FILE (NAME = Sales_Log, FILENAME = 'L:\SQLLogs\Sales_Log.ldf');
    /// ALTER DATABASE Sales SET OFFLINE;  -- copy the .ldf to the new path, then:
    /// ALTER DATABASE Sales SET ONLINE;
    /// ```
    ///
    /// Check what disks a volume really sits on with `Get-Volume -DriveLetter L | Get-Partition |
    /// Get-Disk` and, for Storage Spaces, `Get-VirtualDisk | Get-PhysicalDisk`; for a hardware
    /// RAID controller, its own tool (`ssacli ctrl all show config`, `storcli /c0 show`).
    ///
    /// ## Expected gain
    /// When the rotation speed of the shared disks is known: the log's write service time once
    /// it has spindles of its own at the same speed. Its sequential writes then keep the heads on
    /// its tracks, so no seek: at best the next sector is under the head (0.1 ms transfer), at
    /// worst it waits half a revolution (3.1 ms at 10,000 rpm, 2.1 ms at 15,000 rpm; at other
    /// speeds half a revolution and an assumed 8.5 ms seek). The cut is measured from the log's
    /// own average write stall when it counted at least 1,000 writes, else from the random I/O
    /// it pays today (7.7 ms at 10,000 rpm: −60 % to −99 %). No estimate when the speed is
    /// unknown, or when the log already writes within half a revolution (a controller cache
    /// absorbs the seeks). Queueing behind a saturated controller or path is not removed by the
    /// move.
    ///
    /// ## References
    /// - Microsoft, "Troubleshoot slow SQL Server performance caused by I/O issues": log writes
    ///   should take 3 ms or less:
    ///   <https://learn.microsoft.com/troubleshoot/sql/database-engine/performance/troubleshoot-sql-io-performance>
    /// - Microsoft, "SQL Server transaction log architecture and management guide": the log is
    ///   written sequentially and a commit waits for it:
    ///   <https://learn.microsoft.com/sql/relational-databases/sql-server-transaction-log-architecture-and-management-guide>
    /// - Microsoft Learn, "Move user databases" (`ALTER DATABASE … MODIFY FILE`, offline copy):
    ///   <https://learn.microsoft.com/sql/relational-databases/databases/move-database-files>
    /// - Random I/O service time of enterprise drives (10K: 7.7 ms, 15K: 5.4 ms, SSD < 0.1 ms),
    ///   and the interference between data reads, log writes and checkpoints on shared disks,
    ///   which only a generous array cache attenuates.
    /// - Seek time and rotational latency (half a revolution: 3 ms at 10,000 rpm, 2 ms at
    ///   15,000 rpm), "Hard disk drive performance characteristics":
    ///   <https://en.wikipedia.org/wiki/Hard_disk_drive_performance_characteristics>
    pub static LOG_SHARES_SPINDLES = {
        code: "MED001",
        name: "log-shares-spindles",
        severity: Warning,
        summary: "On HDDs, a database's log does not share physical disks with its data files",
        since: "0.1.0",
        impact: Layout,
        remedy: [MoveFiles(SharedSpindles)],
        needs: [Volumes, DatabaseFiles, Disks],
        params: LogSharesSpindlesParams {
            include_system_databases: { kind: Choice(bool), default: Text("no"), doc: "Also judge master, model and msdb (\"yes\"), or user databases only (\"no\")." },
        },
        check: check,
    }
}

/// Whether a disk spins: its media when known, else a rotation speed above 0.
fn rotational(d: &Disk) -> Option<bool> {
    match d.media {
        Some(m) if m != Media::Unknown => m.is_rotational(),
        _ => d.rpm.filter(|r| *r > 0).map(|_| true),
    }
}

/// The disks the OS shows under a volume that are themselves built on other disks (a hardware
/// RAID logical drive, a Storage Spaces virtual disk): their reported media stands for members
/// that are not listed.
fn fronting_disks<'v>(view: &'v HostView, v: &Volume) -> Vec<&'v Located<Disk>> {
    view.partitions_of_volume(v)
        .into_iter()
        .filter_map(|p| view.disk(&p.disk_id))
        .filter(|d| d.backed_by.is_some())
        .collect()
}

/// What the shared disks are made of.
#[derive(Debug, PartialEq, Eq)]
enum Spin {
    /// At least one shared disk spins; the rpm when all the spinning ones agree.
    Yes(Option<u32>),
    /// Every shared disk is flash.
    No,
    /// Some shared disks are of unknown media (listed ids).
    Unknown(Vec<String>),
}

fn spin_of(view: &HostView, shared: &BTreeSet<String>, log_volume: &Volume) -> Spin {
    let front: Vec<&Located<Disk>> = fronting_disks(view, log_volume);
    let front_answer = front.iter().find_map(|d| rotational(d).map(|r| (r, d.rpm)));
    let mut rpms = BTreeSet::new();
    let mut any = false;
    let mut unknown = vec![];
    for id in shared {
        let direct = view.disk(id).and_then(|d| rotational(d).map(|r| (r, d.rpm)));
        match direct.or(front_answer) {
            Some((true, rpm)) => {
                any = true;
                rpms.insert(rpm);
            }
            Some((false, _)) => {}
            None => unknown.push(id.clone()),
        }
    }
    if any {
        let rpm = if rpms.len() == 1 { rpms.into_iter().next().flatten() } else { None };
        Spin::Yes(rpm)
    } else if unknown.is_empty() {
        Spin::No
    } else {
        Spin::Unknown(unknown)
    }
}

/// The physical disks under a volume, or `None` after recording (once per volume) why not.
fn disks_of<'v, P>(
    cx: &mut Ctx<'v, P>,
    v: &'v Located<Volume>,
    reported: &mut BTreeSet<String>,
) -> Option<Cow<'v, BTreeSet<String>>> {
    let disks = cx.view.physical_disks_of_volume(v).filter(|d| !d.is_empty());
    if disks.is_none() && reported.insert(v.key.clone()) {
        match &v.backed_by {
            None => cx.not_evaluated(v, "backed_by"),
            Some(b) => cx.not_evaluated_because(
                v,
                "backed_by",
                format!(
                    "the volume's backing ({}) could not be followed to physical disks: collect the \
                     partitions, RAID sets, virtual disks and pools it names",
                    backing_name(b)
                ),
            ),
        }
    }
    disks
}

fn backing_name(b: &Backing) -> String {
    match b {
        Backing::Partitions(ids) => format!("partitions {}", ids.join(", ")),
        Backing::VirtualDisk(id) => format!("virtual disk {id}"),
        Backing::RaidSet(id) => format!("RAID set {id}"),
        Backing::Lvm { name, .. } => format!("LVM volume {name}"),
    }
}

/// "hdd0, hdd1, hdd2 and 3 more".
fn list_ids(ids: &BTreeSet<String>) -> String {
    let shown: Vec<&str> = ids.iter().take(3).map(String::as_str).collect();
    if ids.len() > 3 { format!("{} and {} more", shown.join(", "), ids.len() - 3) } else { shown.join(", ") }
}

/// Fewest log writes whose average stall the expected gain is computed from (LAT003's
/// `min_ios`); with fewer, the media's floor is.
const MIN_WRITES_MEASURED: u64 = 1000;

fn check(cx: &mut Ctx<'_, LogSharesSpindlesParams>) {
    let view = cx.view;
    let system = cx.params.include_system_databases;
    let mut reported = BTreeSet::new();
    for db in &view.databases {
        match db.db.effective_role() {
            DatabaseRole::User => {}
            DatabaseRole::System if system => {}
            DatabaseRole::System | DatabaseRole::Tempdb => continue,
        }
        let Some(files) = &db.files else { continue };
        let logs: Vec<&Located<DbFile>> = files.iter().filter(|f| f.file_type == FileType::Log).collect();
        let data: Vec<&Located<DbFile>> = files.iter().filter(|f| f.file_type == FileType::Rows).collect();
        if logs.is_empty() || data.is_empty() {
            continue;
        }
        let mut data_disks = vec![];
        let data_count = data.len();
        for f in data {
            let Some(v) = cx.volume_of_file(f) else { continue };
            let Some(disks) = disks_of(cx, v, &mut reported) else { continue };
            data_disks.push((f, v, disks));
        }
        for log in logs {
            let Some(lv) = cx.volume_of_file(log) else { continue };
            let Some(log_disks) = disks_of(cx, lv, &mut reported) else { continue };
            // Judged only against every data file: one whose disks are unknown leaves it open.
            if data_disks.len() == data_count {
                cx.judged(log);
            }
            let sharing = shared_with_data(db, lv, &log_disks, &data_disks);
            if sharing.files.is_empty() {
                continue;
            }
            let rpm = match spin_of(view, &sharing.disks, lv) {
                Spin::No => continue,
                Spin::Unknown(ids) => {
                    cx.not_evaluated_because(
                        log,
                        "media",
                        format!(
                            "the log shares physical disks with data files, but the media of {} \
                             is unknown (neither media nor rpm collected)",
                            list_ids(&ids.into_iter().collect())
                        ),
                    );
                    continue;
                }
                Spin::Yes(rpm) => rpm,
            };
            report(cx, db, log, lv, log_disks.len(), &sharing, rpm);
        }
    }
}

/// What the log on `lv` shares with the data files on other volumes: the physical disks, the
/// files and their volumes.
struct Sharing<'v> {
    disks: BTreeSet<String>,
    files: Vec<(&'v DatabaseView, &'v Located<DbFile>)>,
    volumes: Vec<&'v str>,
}

/// A data file with its volume and the physical disks under that volume.
type DataOnDisks<'v, 'd> = (&'v Located<DbFile>, &'v Located<Volume>, Cow<'d, BTreeSet<String>>);

/// The physical disks of the log on `lv` (`log_disks`) that data files on other volumes use too.
fn shared_with_data<'v>(
    db: &'v DatabaseView,
    lv: &Located<Volume>,
    log_disks: &BTreeSet<String>,
    data_disks: &[DataOnDisks<'v, '_>],
) -> Sharing<'v> {
    let mut shared = BTreeSet::new();
    let mut files = vec![];
    let mut volumes: Vec<&'v str> = vec![];
    for (f, v, disks) in data_disks {
        if v.key == lv.key {
            continue;
        }
        // Most pairs share nothing: test before copying any id.
        if log_disks.intersection(disks).next().is_none() {
            continue;
        }
        shared.extend(log_disks.intersection(disks).cloned());
        files.push((db, *f));
        if !volumes.contains(&v.display_name()) {
            volumes.push(v.display_name());
        }
    }
    Sharing { disks: shared, files, volumes }
}

/// Reports the log sharing spindles with data files, `rpm` the shared disks' speed when known.
fn report(
    cx: &mut Ctx<'_, LogSharesSpindlesParams>,
    db: &DatabaseView,
    log: &Located<DbFile>,
    lv: &Located<Volume>,
    log_disk_count: usize,
    sharing: &Sharing<'_>,
    rpm: Option<u32>,
) {
    let media = match rpm {
        Some(r) => format!("{} rpm HDD", units::thousands(r as u64)),
        None => "HDD".to_string(),
    };
    let cost = rpm
        .and_then(published_random_io_ms)
        .map(|ms| format!(" (seek plus rotation: about {} per random I/O)", units::ms(ms)))
        .unwrap_or_default();
    let message = format!(
        "log file {} on volume {} shares {} of its {} physical disks ({media}: {}) with {} on \
         volume {}: different volumes, same spindles, so the log's sequential writes wait \
         behind the data files' random I/O{cost}",
        log.logical_name,
        lv.display_name(),
        sharing.disks.len(),
        log_disk_count,
        list_ids(&sharing.disks),
        describe_files(&sharing.files),
        sharing.volumes.join(", "),
    );
    let field = if log.physical_name.is_some() { "physical_name" } else { "volume_id" };
    let fix = own_spindles_fix(cx.view, &db.db.name, log, lv);
    // An average over a few writes says little: the floor stands in for it then.
    let measured =
        log.io.filter(|io| io.num_of_writes >= MIN_WRITES_MEASURED).and_then(|io| io.avg_write_stall_ms());
    cx.report(log, field, message)
        .values(
            format!("{} physical disks ({media}) shared with data files", sharing.disks.len()),
            "no physical disk shared between the log and the data files",
        )
        .quantities(Quantity::count(sharing.disks.len() as u64), Quantity::count(0))
        .gain(gain::log_own_spindles(rpm, measured))
        .fix(fix);
}

/// Move this log to spindles of its own, and see which disks its volume really sits on.
fn own_spindles_fix(view: &HostView, database: &str, log: &DbFile, lv: &Volume) -> String {
    let disks = if is_linux(view, lv) {
        let dev = linux_device(lv).unwrap_or(&lv.id);
        format!("`lsblk -s {}`", sh_word(dev))
    } else {
        format!(
            "`{} | Get-Partition | Get-Disk` and, for Storage Spaces, `Get-VirtualDisk | Get-PhysicalDisk`; \
             for a hardware RAID controller, its own tool (`ssacli ctrl all show config`, `perccli /c0 show`)",
            get_volume(lv)
        )
    };
    format!(
        "Put the log of {} on its own spindles: a separate RAID 1 or RAID 10 set (or a separate Storage \
         Spaces pool) for the log files, or SSD. Then move the log file there:\n\n```sql\n{}\n```\n\n\
         Check what disks a volume really sits on: for {}, {disks}.",
        tsql_name(database),
        move_user_file(database, log, "the log's volume"),
        lv.display_name(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn disk(media: Option<Media>, rpm: Option<u32>) -> Disk {
        Disk { id: "d".into(), media, rpm, ..Default::default() }
    }

    #[test]
    fn rotation_from_media_then_rpm() {
        assert_eq!(rotational(&disk(Some(Media::Hdd), None)), Some(true));
        assert_eq!(rotational(&disk(Some(Media::Ssd), Some(10_000))), Some(false));
        assert_eq!(rotational(&disk(Some(Media::Unknown), Some(7_200))), Some(true));
        assert_eq!(rotational(&disk(None, Some(15_000))), Some(true));
        assert_eq!(rotational(&disk(None, Some(0))), None);
        assert_eq!(rotational(&disk(None, None)), None);
    }

    #[test]
    fn lists_at_most_three_ids() {
        let ids: BTreeSet<String> = (0..6).map(|i| format!("hdd{i}")).collect();
        assert_eq!(list_ids(&ids), "hdd0, hdd1, hdd2 and 3 more");
    }
}
