use spindle_core::declare_rule;
use spindle_core::finding::Quantity;
use spindle_core::params::NoParams;
use spindle_core::rule::Ctx;
use spindle_core::units;

use super::recreate::recreate_partition;

declare_rule! {
    /// ## What it checks
    /// Every partition starts at a multiple of its disk's physical sector size
    /// (`physical_sector_bytes`: 4,096 bytes on Advanced Format drives, both 512e and 4Kn; 512
    /// bytes on older drives). A partition whose disk's physical sector size is unknown, or whose
    /// disk is not in the snapshot, is reported "not evaluated".
    ///
    /// ## Example
    /// A partition at sector 63 on a 512e drive (512-byte logical, 4,096-byte physical sectors):
    ///
    /// ```json
    /// {
    ///   "schema_version": 1,
    ///   "host": { "name": "sql30", "os_family": "windows" },
    ///   "disks": [
    ///     { "id": "disk1", "number": 1, "logical_sector_bytes": 512,
    ///       "physical_sector_bytes": 4096 }
    ///   ],
    ///   "partitions": [
    ///     { "id": "disk1-p1", "disk_id": "disk1", "number": 1, "offset_bytes": 32256 }
    ///   ],
    ///   "volumes": [
    ///     { "id": "vol-e", "mount_points": ["E:\\"], "filesystem": "NTFS",
    ///       "backed_by": { "partitions": ["disk1-p1"] } }
    ///   ]
    /// }
    /// ```
    ///
    /// ```text
    /// error ALN004 sql30 › disk 1 › partition 1 (E:\) [/partitions/0/offset_bytes]
    ///   partition starts at 32,256 B (31.5 KiB), 3,584 B (3.5 KiB) past a physical sector boundary of its disk (512-byte logical sectors emulated on 4096-byte physical ones: 512e): clusters no longer line up with physical sectors, and a write that begins or ends inside a 4,096 B (4 KiB) physical sector makes the drive read, merge and rewrite that sector
    ///   measured: 32,256 B (31.5 KiB); expected: a multiple of the disk's 4,096 B (4 KiB) physical sector
    /// ```
    ///
    /// ## Why it matters
    /// A 512e drive accepts 512-byte logical sectors but writes 4,096-byte physical sectors. On a
    /// partition that starts between two physical sectors (the sector-63 offset of Windows Server
    /// 2003 and older, 32,256 bytes, is 3,584 bytes past a 4 KiB boundary), every cluster, page
    /// and log write begins and ends inside a physical sector: the drive must read both partial
    /// sectors, merge and rewrite them (read-modify-write), which turns each write into a read
    /// plus a write, on top of the stripe-unit straddling that ALN001 and ALN002 describe. A 4Kn
    /// drive cannot address a partition off a 4 KiB boundary at all, so in practice this rule
    /// catches old partitions cloned or migrated onto 512e drives.
    ///
    /// ## How to fix
    /// Recreate the partition at 1,024 KiB (a multiple of every sector size):
    /// `diskpart` `create partition primary align=1024`, or
    /// `New-Partition -DiskNumber 3 -UseMaximumSize -Alignment 1048576`; on Linux
    /// `parted /dev/sdb mkpart primary 1MiB 100%`. Format with 64 KiB clusters
    /// (`Format-Volume -AllocationUnitSize 65536`) and move the data back. Read the sector sizes
    /// with `Get-Disk | Select Number, LogicalSectorSize, PhysicalSectorSize`,
    /// `fsutil fsinfo sectorinfo E:` or `/sys/block/sdb/queue/physical_block_size`.
    ///
    /// ## References
    /// - Microsoft, "Disk Partition Alignment Best Practices for SQL Server" (2009): the 63-sector
    ///   (32,256-byte) default offset of Windows Server 2003 and older, and the 1,024 KiB default
    ///   since Windows Server 2008:
    ///   <https://learn.microsoft.com/previous-versions/sql/sql-server-2008/dd758814(v=sql.100)>
    /// - Microsoft Learn, "Troubleshoot errors related to system disk sector size greater than
    ///   4 KB": logical and physical sector sizes and how SQL Server reads them:
    ///   <https://learn.microsoft.com/troubleshoot/sql/database-engine/database-file-operations/troubleshoot-os-4kb-disk-sector-size>
    /// - Linux kernel, "Queue sysfs files" (`physical_block_size`):
    ///   <https://www.kernel.org/doc/html/latest/block/queue-sysfs.html>
    pub static PHYSICAL_SECTOR_ALIGNMENT = {
        code: "ALN004",
        name: "physical-sector-alignment",
        severity: Error,
        summary: "Partition offsets are a multiple of the disk's physical sector size",
        since: "0.1.0",
        impact: Layout,
        remedy: [Rebuild(Alignment)],
        needs: [Partitions, Disks],
        params: [],
        check: check,
    }
}

fn check(cx: &mut Ctx<'_, NoParams>) {
    let view = cx.view;
    for p in view.data_partitions() {
        let Some(offset) = cx.need(p, "offset_bytes", p.offset_bytes) else { continue };
        let Some(disk) = view.disk(&p.disk_id) else {
            cx.not_evaluated_because(
                p,
                "physical_sector_bytes",
                format!(
                    "disk {} is not in the snapshot's disks, so its physical sector size is unknown",
                    p.disk_id
                ),
            );
            continue;
        };
        let sector = disk.physical_sector_bytes.filter(|&s| s > 0).map(u64::from);
        let Some(sector) = sector else {
            // The missing fact is the disk's; say so against the partition being judged.
            let reason = cx.collector_reason("physical_sector_bytes").unwrap_or_else(|| {
                format!(
                    "the physical sector size of {} was not collected (Get-Disk PhysicalSectorSize, \
                     /sys/block/<disk>/queue/physical_block_size)",
                    disk.label
                )
            });
            cx.not_evaluated_because(p, "physical_sector_bytes", reason);
            continue;
        };
        let remainder = offset % sector;
        cx.judged(p);
        if remainder == 0 {
            continue;
        }
        let kind = match disk.logical_sector_bytes {
            Some(l) if u64::from(l) < sector => {
                format!(" ({l}-byte logical sectors emulated on {sector}-byte physical ones: 512e)")
            }
            _ => String::new(),
        };
        let message = format!(
            "partition starts at {}, {} past a physical sector boundary of its disk{kind}: clusters no \
             longer line up with physical sectors, and a write that begins or ends inside a {} \
             physical sector makes the drive read, merge and rewrite that sector",
            units::bytes(offset),
            units::bytes(remainder),
            units::bytes(sector),
        );
        let fix =
            recreate_partition(view, p, sector, &format!("the {} physical sector", units::bytes(sector)));
        cx.report(p, "offset_bytes", message)
            .values(
                units::bytes(offset),
                format!("a multiple of the disk's {} physical sector", units::bytes(sector)),
            )
            .quantities(Quantity::bytes(offset), Quantity::bytes(sector))
            .fix(fix);
    }
}
