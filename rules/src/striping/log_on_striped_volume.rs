use std::collections::{BTreeMap, BTreeSet};

use spindle_core::declare_rule;
use spindle_core::facts::{Backing, FileType, VirtualDisk, Volume};
use spindle_core::finding::Quantity;
use spindle_core::rule::Ctx;
use spindle_core::view::{HostView, Located};

use super::spaces::{self, Resiliency};
use crate::commands::move_user_file;

declare_rule! {
    /// ## What it checks
    /// Every transaction log file sits on a volume striped over at least `min_stripe_disks`
    /// disks (2) whenever the disks under it allow that:
    /// - on a Storage Spaces virtual disk, its columns, when its pool's disks allow more columns
    ///   (all the disks for Simple and Parity, the disks ÷ `mirror_data_copies` for Mirror): a
    ///   log on a 1-column space in a 16-disk pool is a finding, a 1-column two-way mirror in a
    ///   2-disk pool is not (it cannot be wider);
    /// - on an LVM volume, its stripes, when its devices span more disks (a linear volume over
    ///   several disks writes to one at a time);
    /// - on partitions of plain disks, a volume spanned over several disks without striping is a
    ///   finding; a single plain disk passes, since the snapshot shows no other disk it could be
    ///   striped with (a SAN LUN or a hardware RAID logical drive is striped inside the array, out
    ///   of view);
    /// - on a RAID set, the set's width is what its members make it, so it passes (a dedicated
    ///   RAID 1 pair or RAID 10 set for the log is the classic layout).
    ///
    /// A log whose volume, backing, columns, resiliency or pool disks were not collected is
    /// reported "not evaluated".
    ///
    /// ## Example
    /// A log on a 1-column space carved from a pool of 4 disks:
    ///
    /// ```json
    /// {
    ///   "schema_version": 1,
    ///   "host": { "name": "azsql02", "os_family": "windows" },
    ///   "disks": [
    ///     { "id": "vdisk3", "backed_by": { "virtual_disk": "vd-log" } }
    ///   ],
    ///   "storage_pools": [
    ///     { "id": "pool1", "name": "Storage Pool", "physical_disk_ids": ["d01", "d02", "d03",
    ///       "d04"] }
    ///   ],
    ///   "virtual_disks": [
    ///     { "id": "vd-log", "name": "SQLLog", "pool_id": "pool1", "columns": 1,
    ///       "resiliency": "Simple" }
    ///   ],
    ///   "partitions": [{ "id": "vdisk3-p2", "disk_id": "vdisk3" }],
    ///   "volumes": [
    ///     { "id": "vol-l", "mount_points": ["L:\\"], "filesystem": "NTFS",
    ///       "backed_by": { "partitions": ["vdisk3-p2"] } }
    ///   ],
    ///   "sql_instances": [
    ///     { "name": "MSSQLSERVER", "databases": [
    ///       { "name": "Sales", "files": [
    ///         { "type": "log", "logical_name": "Sales_log",
    ///           "physical_name": "L:\\SQLLog\\Sales_log.ldf" }
    ///       ] }
    ///     ] }
    ///   ]
    /// }
    /// ```
    ///
    /// ```text
    /// warning STR003 azsql02 › MSSQLSERVER › Sales › Sales_log (L:\SQLLog\Sales_log.ldf) [/sql_instances/0/databases/0/files/0/physical_name]
    ///   log file on L:\, which is virtual disk SQLLog (Simple, 1 column) in pool Storage Pool of 4 physical disks: log writes go to 1 disk where 4 disks were possible. SQL Server writes the log sequentially and fills one log file before the next, so only a volume striped over several disks speeds up log writes; adding log files does not
    ///   measured: striped over 1 disk; expected: striped over 4 disks
    /// ```
    ///
    /// ## Why it matters
    /// SQL Server writes the transaction log sequentially and fills one log file before moving to
    /// the next, so adding log files does not spread log I/O over more disks. Log writes, which
    /// every commit waits on, get more throughput only from the volume under the (single) log
    /// file being striped over several disks. On an Azure VM with 16 data disks, a published
    /// SQLIO test measured 64 KiB sequential writes at 34 MB/s with 1 column, 125 MB/s with 8 and 231 MB/s
    /// with 16.
    ///
    /// ## How to fix
    /// Put the log on a multi-column space and move it there:
    /// `New-VirtualDisk -StoragePoolFriendlyName "SQLPool" -FriendlyName "SQLLog"
    /// -ResiliencySettingName Simple -NumberOfColumns 16 -Interleave 64KB -UseMaximumSize`, format
    /// it with 64 KiB clusters (`Format-Volume -AllocationUnitSize 65536`), then
    /// `ALTER DATABASE [db] MODIFY FILE (NAME = [db_log], FILENAME = 'L:\SQLLog\db_log.ldf');`,
    /// take the database offline, copy the file, and bring it online. Several databases can share
    /// one wide log space, or each get a space of a few columns. On Linux, rebuild the logical
    /// volume striped: `lvcreate -i <disks> -I 64k -n sqllog <vg>`.
    ///
    /// ## References
    /// - Azure, "Performance guidelines for SQL Server on Azure VMs — storage": stripe data
    ///   disks with Storage Spaces, columns = disks:
    ///   <https://learn.microsoft.com/azure/azure-sql/virtual-machines/windows/performance-guidelines-best-practices-storage>
    /// - Microsoft, "SQL Server transaction log architecture and management guide": the log is
    ///   written sequentially, one file at a time:
    ///   <https://learn.microsoft.com/sql/relational-databases/sql-server-transaction-log-architecture-and-management-guide>
    /// - `lvcreate(8)` (`-i` stripes, `-I` stripe size):
    ///   <https://man7.org/linux/man-pages/man8/lvcreate.8.html>
    pub static LOG_ON_STRIPED_VOLUME = {
        code: "STR003",
        name: "log-on-striped-volume",
        severity: Warning,
        summary: "Transaction logs sit on volumes striped over several disks when the disks allow it",
        since: "0.1.0",
        impact: Layout,
        remedy: [MoveFiles(Placement)],
        needs: [DatabaseFiles, Volumes],
        params: LogOnStripedVolumeParams {
            min_stripe_disks: { kind: Count, default: Num(2.0), doc: "Disks (columns, stripes) a log volume must be striped over, when the disks under it allow as many." },
            mirror_data_copies: { kind: Count, default: Num(2.0), doc: "Data copies assumed for a Mirror space (2 two-way, 3 three-way)." },
        },
        check: check,
    }
}

/// What a volume is striped over, as far as the snapshot tells.
enum Layer<'a> {
    Space(&'a Located<VirtualDisk>),
    /// A RAID set: as wide as its members make it.
    Raid,
    Lvm {
        name: &'a str,
        stripes: Option<u32>,
        devices: &'a [String],
    },
    /// Partitions of disks with no virtual disk or RAID set under them.
    Plain(BTreeSet<String>),
}

/// A log volume striped narrower than its disks allow.
struct Narrow {
    /// Disks a log write is spread over.
    width: u32,
    /// Disks (columns) it could be spread over.
    possible: u32,
    /// What the volume is built on, for the message.
    layout: String,
    /// The PowerShell for a wider space, when it is a Storage Spaces virtual disk.
    command: Option<String>,
}

/// A volume's verdict, computed once however many log files it holds.
enum Verdict {
    Fine,
    Narrow(Narrow),
    /// Not evaluated (already recorded against the entity that lacks the fact).
    Unknown,
}

fn check(cx: &mut Ctx<'_, LogOnStripedVolumeParams>) {
    let view = cx.view;
    let min = cx.params.min_stripe_disks.max(1);
    let copies = cx.params.mirror_data_copies.max(1);
    let mut verdicts: BTreeMap<String, Verdict> = BTreeMap::new();
    for (db, f) in view.files() {
        if f.file_type != FileType::Log {
            continue;
        }
        let Some(v) = cx.volume_of_file(f) else { continue };
        if !verdicts.contains_key(&v.key) {
            let verdict = judge(cx, v, min, copies);
            verdicts.insert(v.key.clone(), verdict);
        }
        if !matches!(verdicts[&v.key], Verdict::Unknown) {
            cx.judged(f);
        }
        let Verdict::Narrow(n) = &verdicts[&v.key] else { continue };
        let message = format!(
            "log file on {}, which is {}: log writes go to {} where {} were possible. SQL Server writes \
             the log sequentially and fills one log file before the next, so only a volume striped over \
             several disks speeds up log writes; adding log files does not",
            v.display_name(),
            n.layout,
            disks(n.width),
            disks(n.possible),
        );
        let target = match &n.command {
            Some(c) => format!(
                "a new multi-column space ({c}, formatted with Format-Volume -AllocationUnitSize 65536)"
            ),
            None => format!("a volume striped over {}", disks(n.possible)),
        };
        let fix = format!(
            "Move the log to {target}:\n\n```sql\n{}\n```",
            move_user_file(&db.db.name, f, "the striped volume")
        );
        let field = if f.physical_name.is_some() { "physical_name" } else { "volume_id" };
        cx.report(f, field, message)
            .values(format!("striped over {}", disks(n.width)), format!("striped over {}", disks(n.possible)))
            .quantities(Quantity::count(n.width.into()), Quantity::count(n.possible.into()))
            .fix(fix);
    }
}

fn disks(n: u32) -> String {
    if n == 1 { "1 disk".into() } else { format!("{n} disks") }
}

/// Judges one log volume, recording "not evaluated" for any fact it lacks.
fn judge<P>(cx: &mut Ctx<'_, P>, v: &Located<Volume>, min: u32, copies: u32) -> Verdict {
    let view = cx.view;
    let layer = match layer_of(view, v) {
        Ok(l) => l,
        Err((missing, reason)) => {
            cx.not_evaluated_because(v, missing, reason);
            return Verdict::Unknown;
        }
    };
    match layer {
        Layer::Raid => Verdict::Fine,
        Layer::Space(vd) => judge_space(cx, vd, min, copies),
        Layer::Lvm { name, stripes, devices } => judge_lvm(cx, v, name, stripes, devices, min),
        Layer::Plain(ids) => {
            let n = ids.len() as u32;
            if n <= 1 || min <= 1 {
                return Verdict::Fine;
            }
            Verdict::Narrow(Narrow {
                width: 1,
                possible: n,
                layout: format!("spanned over {n} disks without striping"),
                command: None,
            })
        }
    }
}

/// [`judge`] for a volume on a Storage Spaces virtual disk: narrow when it has fewer columns
/// than `min` and its pool has disks for more.
fn judge_space<P>(cx: &mut Ctx<'_, P>, vd: &Located<VirtualDisk>, min: u32, copies: u32) -> Verdict {
    let view = cx.view;
    let columns = cx.need(vd, "columns", vd.columns);
    let Some(pool) = view.pool(&vd.pool_id) else {
        cx.not_evaluated_because(vd, "storage_pools", format!("pool {} is not in the snapshot", vd.pool_id));
        return Verdict::Unknown;
    };
    let pool_disks =
        pool.physical_disk_ids.as_ref().map(|ids| ids.iter().collect::<BTreeSet<_>>().len() as u32);
    let pool_disks = cx.need(pool, "physical_disk_ids", pool_disks);
    let Some(text) = cx.need(vd, "resiliency", vd.resiliency.as_deref()) else {
        return Verdict::Unknown;
    };
    let Some(resiliency) = Resiliency::parse(text) else {
        cx.not_evaluated_because(
            vd,
            "resiliency",
            format!("resiliency \"{text}\" is not one of Simple, Mirror or Parity"),
        );
        return Verdict::Unknown;
    };
    let (Some(columns), Some(pool_disks)) = (columns, pool_disks) else { return Verdict::Unknown };
    let possible = spaces::max_columns(resiliency, pool_disks, copies);
    if columns >= min || possible <= columns {
        return Verdict::Fine;
    }
    let pool_name = spaces::pool_name(pool);
    let copies_note = match resiliency {
        Resiliency::Mirror => format!(", {copies} data copies assumed"),
        _ => String::new(),
    };
    Verdict::Narrow(Narrow {
        width: columns,
        possible,
        layout: format!(
            "virtual disk {} ({}{copies_note}, {columns} column{}) in pool {pool_name} of {pool_disks} \
             physical disks",
            spaces::vd_name(vd),
            resiliency.as_str(),
            if columns == 1 { "" } else { "s" },
        ),
        command: Some(spaces::new_virtual_disk(
            pool_name,
            &format!("{}-new", spaces::vd_name(vd)),
            resiliency,
            possible,
            copies,
            spaces::interleave_arg(view),
        )),
    })
}

/// [`judge`] for an LVM volume: narrow when it has fewer stripes than `min` and more disks
/// under its devices.
fn judge_lvm<P>(
    cx: &mut Ctx<'_, P>,
    v: &Located<Volume>,
    name: &str,
    stripes: Option<u32>,
    devices: &[String],
    min: u32,
) -> Verdict {
    let view = cx.view;
    let Some(stripes) = cx.need(v, "backed_by/lvm/stripes", stripes) else { return Verdict::Unknown };
    if devices.is_empty() {
        cx.not_evaluated(v, "backed_by/lvm/devices");
        return Verdict::Unknown;
    }
    let under: BTreeSet<&str> =
        devices.iter().map(|d| view.partition(d).map_or(d.as_str(), |p| p.disk_id.as_str())).collect();
    let n = under.len() as u32;
    if stripes >= min || n <= stripes {
        return Verdict::Fine;
    }
    Verdict::Narrow(Narrow {
        width: stripes.max(1),
        possible: n,
        layout: format!(
            "LVM volume {name} ({stripes} stripe{}) over {n} disks",
            if stripes == 1 { "" } else { "s" }
        ),
        command: None,
    })
}

/// What the volume is striped over: its own backing, or the one under the disks of its
/// partitions (the usual Windows chain: volume, partition, disk, virtual disk).
fn layer_of<'a>(view: &'a HostView, v: &'a Located<Volume>) -> Result<Layer<'a>, (&'static str, String)> {
    let space = |id: &str| {
        view.virtual_disk_index(id).and_then(|i| view.virtual_disks.as_ref()?.get(i)).ok_or_else(|| {
            ("virtual_disks", format!("virtual disk {id} under the volume is not in the snapshot"))
        })
    };
    let raid = |id: &str| {
        view.raid_set_index(id)
            .and_then(|i| view.raid_sets.as_ref()?.get(i))
            .ok_or_else(|| ("raid_sets", format!("RAID set {id} under the volume is not in the snapshot")))
    };
    match &v.backed_by {
        None => Err(("backed_by", "what the volume is built on was not collected".into())),
        Some(Backing::VirtualDisk(id)) => space(id).map(Layer::Space),
        Some(Backing::RaidSet(id)) => raid(id).map(|_| Layer::Raid),
        Some(Backing::Lvm { name, stripes, devices, .. }) => {
            Ok(Layer::Lvm { name: name.as_str(), stripes: *stripes, devices: devices.as_slice() })
        }
        Some(Backing::Partitions(ids)) => {
            if ids.is_empty() {
                return Err(("backed_by", "the volume lists no partitions".into()));
            }
            let mut backings: Vec<&Backing> = vec![];
            let mut plain = BTreeSet::new();
            for id in ids {
                let p = view.partition(id).ok_or_else(|| {
                    ("partitions", format!("partition {id} under the volume is not in the snapshot"))
                })?;
                let d = view.disk(&p.disk_id).ok_or_else(|| {
                    ("disks", format!("disk {} under the volume is not in the snapshot", p.disk_id))
                })?;
                match &d.backed_by {
                    Some(b) => {
                        if !backings.contains(&b) {
                            backings.push(b);
                        }
                    }
                    None if d.bus.as_deref().is_some_and(|b| b.eq_ignore_ascii_case("storage spaces")) => {
                        return Err((
                            "backed_by",
                            format!(
                                "{} is a Storage Spaces disk, but the snapshot does not say which virtual disk \
                                 backs it",
                                d.label
                            ),
                        ));
                    }
                    None => {
                        plain.insert(d.id.clone());
                    }
                }
            }
            match (backings.len(), plain.is_empty()) {
                (0, _) => Ok(Layer::Plain(plain)),
                (1, true) => match backings.into_iter().next() {
                    Some(Backing::VirtualDisk(id)) => space(id).map(Layer::Space),
                    Some(Backing::RaidSet(id)) => raid(id).map(|_| Layer::Raid),
                    _ => Err((
                        "backed_by",
                        "the disk under the volume has a backing this rule cannot read".into(),
                    )),
                },
                _ => Err((
                    "backed_by",
                    "the volume spans disks built on different virtual disks or RAID sets".into(),
                )),
            }
        }
    }
}

#[cfg(test)]
mod rule_tests {
    use spindle_core::declare::Declarations;
    use spindle_core::params::ParamValue;

    use super::LOG_ON_STRIPED_VOLUME;
    use crate::striping::spaces::testing::run_rule;

    fn log_on_space(columns: u32, resiliency: &str, disks: u32) -> String {
        let ids: Vec<String> = (1..=disks).map(|i| format!("\"d{i}\"")).collect();
        format!(
            r#"{{ "schema_version": 1, "host": {{ "name": "h" }},
                "disks": [ {{ "id": "vdisk3", "number": 3, "backed_by": {{ "virtual_disk": "vd" }} }} ],
                "storage_pools": [ {{ "id": "p", "name": "LogPool", "physical_disk_ids": [{}] }} ],
                "virtual_disks": [ {{ "id": "vd", "name": "SQLLog", "pool_id": "p", "columns": {columns},
                                      "resiliency": "{resiliency}" }} ],
                "partitions": [ {{ "id": "p3", "disk_id": "vdisk3", "number": 2 }} ],
                "volumes": [ {{ "id": "vol-l", "mount_points": ["L:\\"], "backed_by": {{ "partitions": ["p3"] }} }} ],
                "sql_instances": [ {{ "name": "MSSQLSERVER", "databases": [ {{ "name": "Sales", "files": [
                    {{ "type": "rows", "logical_name": "Sales", "physical_name": "L:\\Sales.mdf" }},
                    {{ "type": "log", "logical_name": "Sales_log", "physical_name": "L:\\SQLLog\\Sales_log.ldf" }} ] }} ] }} ] }}"#,
            ids.join(", ")
        )
    }

    #[test]
    fn only_log_files_are_judged_and_the_fix_names_the_file() {
        let r =
            run_rule(&LOG_ON_STRIPED_VOLUME, &log_on_space(1, "Simple", 16), Declarations::default(), &[]);
        assert_eq!(r.findings.len(), 1, "{:?}", r.findings);
        let f = &r.findings[0];
        assert!(f.entity.label.ends_with("Sales_log (L:\\SQLLog\\Sales_log.ldf)"), "{}", f.entity.label);
        assert!(
            f.fix.contains(
                "ALTER DATABASE [Sales] MODIFY FILE (NAME = N'Sales_log', \
                 FILENAME = N'<new folder on the striped volume>\\Sales_log.ldf');"
            ),
            "{}",
            f.fix
        );
        assert!(f.fix.contains("-NumberOfColumns 16 -Interleave 64KB"), "{}", f.fix);
    }

    #[test]
    fn mirrors_are_judged_by_the_columns_their_disks_allow() {
        // Two-way mirror over 4 disks: 2 columns were possible.
        let r = run_rule(&LOG_ON_STRIPED_VOLUME, &log_on_space(1, "Mirror", 4), Declarations::default(), &[]);
        assert_eq!(r.findings.len(), 1);
        assert!(
            r.findings[0].message.contains("go to 1 disk where 2 disks were possible"),
            "{}",
            r.findings[0].message
        );
        // Three-way mirror over 4 disks: 1 column is all there can be.
        let three = [("mirror_data_copies", ParamValue::Num(3.0))];
        let r =
            run_rule(&LOG_ON_STRIPED_VOLUME, &log_on_space(1, "Mirror", 4), Declarations::default(), &three);
        assert!(r.findings.is_empty(), "{:?}", r.findings);
    }

    #[test]
    fn min_stripe_disks_raises_the_bar() {
        let four = [("min_stripe_disks", ParamValue::Num(4.0))];
        let r =
            run_rule(&LOG_ON_STRIPED_VOLUME, &log_on_space(2, "Simple", 16), Declarations::default(), &four);
        assert_eq!(r.findings.len(), 1);
        let r =
            run_rule(&LOG_ON_STRIPED_VOLUME, &log_on_space(2, "Simple", 16), Declarations::default(), &[]);
        assert!(r.findings.is_empty());
    }
}
