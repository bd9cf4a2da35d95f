use spindle_core::declare_rule;
use spindle_core::finding::Quantity;
use spindle_core::params::NoParams;
use spindle_core::rule::Ctx;
use spindle_core::units;

use super::recreate::recreate_partition;
use super::stripe_facts::{self, ratio};
use crate::straddle::straddle_share;

declare_rule! {
    /// ## What it checks
    /// Every partition starts at a whole multiple of the stripe unit under it:
    /// `partition_offset ÷ stripe_unit` is an integer. The stripe unit is the interleave of the
    /// Storage Spaces virtual disk, the stripe unit (chunk) of the RAID set or LVM volume that
    /// exposes the partition's disk, or one declared in a rule pack for a SAN LUN or a hardware
    /// RAID logical drive whose stripe the operating system cannot see. An offset of 2 MiB on a
    /// 256 KiB interleave passes (8 stripe units); 64 KiB on a 256 KiB interleave fails even
    /// though it passes ALN001's 64 KiB test. When no stripe unit is known the partition is
    /// reported "not evaluated" with the declaration that would provide one, unless nothing under
    /// it is striped: a RAID 1 mirror, or a drive attached directly on SATA, NVMe or USB.
    ///
    /// ## Example
    /// A partition at 64 KiB, which passes ALN001, on a Storage Spaces virtual disk with a 256 KiB
    /// interleave:
    ///
    /// ```json
    /// {
    ///   "schema_version": 1,
    ///   "host": { "name": "sql10", "os_family": "windows" },
    ///   "disks": [
    ///     { "id": "vdisk5", "number": 5, "backed_by": { "virtual_disk": "vd-data" } }
    ///   ],
    ///   "virtual_disks": [
    ///     { "id": "vd-data", "name": "SQLData", "pool_id": "pool1", "interleave_bytes": 262144 }
    ///   ],
    ///   "partitions": [
    ///     { "id": "vdisk5-p2", "disk_id": "vdisk5", "number": 2, "offset_bytes": 65536 }
    ///   ],
    ///   "volumes": [
    ///     { "id": "vol-f", "mount_points": ["F:\\"], "filesystem": "NTFS",
    ///       "backed_by": { "partitions": ["vdisk5-p2"] } }
    ///   ]
    /// }
    /// ```
    ///
    /// ```text
    /// error ALN002 sql10 › disk 5 › partition 2 (F:\) [/partitions/0/offset_bytes]
    ///   partition starts at 65,536 B (64 KiB), 65,536 B (64 KiB) past a boundary of the 256 KiB interleave of virtual disk SQLData (offset ÷ stripe unit = 0.25); straddling two stripe units: 0 % of 8 KiB I/Os, 0 % of 64 KiB I/Os, 100 % of 256 KiB I/Os
    ///   measured: 65,536 B (64 KiB); expected: a multiple of 256 KiB (the stripe unit)
    /// ```
    ///
    /// ## Why it matters
    /// A partition that does not start on a stripe-unit boundary shifts every cluster and every
    /// extent against the stripes: I/Os that would fit in one stripe unit straddle two and cost
    /// two physical I/Os on two disks. The sector-63 offset of Windows Server 2003 (32,256 bytes,
    /// 31.5 KiB) splits one 8 KiB page I/O in eight and every 64 KiB extent I/O on a 64 KiB stripe
    /// unit; in a published SQLIO test of one array before and after aligning, random 8 KiB
    /// reads gained 21 %, sequential reads 18 % and sequential writes 13 %. A 64 KiB offset on a 256 KiB interleave (the Storage Spaces default)
    /// leaves 8 KiB and 64 KiB I/Os whole but splits every 256 KiB read-ahead, reindex and bulk
    /// I/O. The message lists the share of 8, 64 and 256 KiB I/Os that straddle.
    ///
    /// ## How to fix
    /// Recreate the partition at an offset that is a multiple of the stripe unit: 1,024 KiB (the
    /// default since Windows Server 2008) is a multiple of every power-of-two stripe unit up to
    /// 1 MiB. `diskpart`: `select disk 3`, `create partition primary align=1024`; PowerShell:
    /// `New-Partition -DiskNumber 3 -UseMaximumSize -Alignment 1048576`; Linux:
    /// `parted /dev/sdb mkpart primary 1MiB 100%`. Then `format E: /FS:NTFS /A:64K /Q` (or
    /// `Format-Volume -AllocationUnitSize 65536`) and move the data back; a partition cannot be
    /// moved in place. Check the offset in bytes (`Get-Partition | Select Offset`), not with
    /// `diskpart`, which rounds to KiB.
    ///
    /// ## References
    /// - Microsoft, "Disk Partition Alignment Best Practices for SQL Server" (2009): the "essential
    ///   correlation" `partition_offset / stripe_unit_size`, which must be an integer:
    ///   <https://learn.microsoft.com/previous-versions/sql/sql-server-2008/dd758814(v=sql.100)>
    /// - Microsoft Learn, "New-VirtualDisk": Storage Spaces' default interleave is 256 KiB:
    ///   <https://learn.microsoft.com/powershell/module/storage/new-virtualdisk>
    /// - Microsoft Learn, "New-Partition" (`-Alignment`):
    ///   <https://learn.microsoft.com/powershell/module/storage/new-partition>
    pub static OFFSET_STRIPE_UNIT = {
        code: "ALN002",
        name: "offset-stripe-unit",
        severity: Error,
        summary: "Partition offsets are a whole multiple of the stripe unit under them",
        since: "0.1.0",
        impact: Layout,
        remedy: [Rebuild(Alignment), Manual(AskStorageTeam)],
        needs: [Partitions],
        params: [],
        check: check,
    }
}

/// I/O sizes SQL Server issues: 8 KiB pages, 64 KiB extents, 256 KiB read-ahead and
/// bulk operations.
const IO_SIZES: [u64; 3] = [8 * 1024, 64 * 1024, 256 * 1024];

fn check(cx: &mut Ctx<'_, NoParams>) {
    let view = cx.view;
    for p in view.data_partitions() {
        let Some(offset) = cx.need(p, "offset_bytes", p.offset_bytes) else { continue };
        let stripe = view.stripe_of_partition(p).filter(|s| s.unit_bytes > 0);
        let Some(stripe) = stripe else {
            let disk = view.disk(&p.disk_id);
            if disk.is_some_and(|d| view.disk_is_unstriped(d)) {
                continue; // a mirror or a directly attached drive: no stripe unit to straddle
            }
            if let Some(why) = disk.and_then(|d| stripe_facts::unknowable(view, d)) {
                cx.not_applicable(
                    p,
                    "offset_bytes",
                    format!("no stripe unit to divide the offset by: {why}"),
                );
                continue;
            }
            let key = disk.map_or(p.key.as_str(), |d| d.key.as_str());
            let (missing, reason) = stripe_facts::unknown(view, disk.and_then(|d| d.backed_by.as_ref()), key);
            cx.not_evaluated_because(p, &missing, reason);
            continue;
        };
        let unit = stripe.unit_bytes;
        let remainder = offset % unit;
        cx.judged(p);
        if remainder == 0 {
            continue;
        }
        let straddles: Vec<String> = IO_SIZES
            .iter()
            .filter(|&&io| io <= unit)
            .map(|&io| {
                format!("{} of {} I/Os", units::percent(straddle_share(offset, io, unit)), units::binary(io))
            })
            .collect();
        let mut message = format!(
            "partition starts at {}, {} past a boundary of {} (offset ÷ stripe unit = {})",
            units::bytes(offset),
            units::bytes(remainder),
            stripe_facts::describe(view, &stripe),
            ratio(offset, unit)
        );
        if !straddles.is_empty() {
            message.push_str(&format!("; straddling two stripe units: {}", straddles.join(", ")));
        }
        let fix = recreate_partition(view, p, unit, &format!("the {} stripe unit", units::binary(unit)));
        cx.report(p, "offset_bytes", message)
            .values(units::bytes(offset), format!("a multiple of {} (the stripe unit)", units::binary(unit)))
            .quantities(Quantity::bytes(offset), Quantity::bytes(unit))
            .fix(fix);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spindle_core::date::Date;
    use spindle_core::declare::{Declarations, DeclaredStripe};
    use spindle_core::digest::digest;
    use spindle_core::engine::{ActiveRule, check_host};
    use spindle_core::glob::Glob;
    use spindle_core::load::parse_snapshot;
    use spindle_core::params::Params;
    use spindle_core::view::HostView;

    fn run(json: &str, declared: Declarations) -> String {
        let doc = parse_snapshot("t.json", json.to_string()).unwrap();
        let view = HostView::build(vec![doc], declared);
        let rule = &OFFSET_STRIPE_UNIT;
        let active = [ActiveRule {
            rule,
            code: "ALN002".into(),
            severity: rule.meta.severity,
            params: Params::defaults(rule.meta.params),
        }];
        digest(&check_host(&active, &view, &[], Date::parse("2026-01-01").unwrap()))
    }

    const SAN_LUN: &str = r#"{
        "schema_version": 1,
        "host": { "name": "sql05" },
        "disks": [ { "id": "lun7", "number": 4, "bus": "Fibre Channel" } ],
        "partitions": [
            { "id": "p1", "disk_id": "lun7", "number": 1, "offset_bytes": 1048576 },
            { "id": "p2", "disk_id": "lun7", "number": 2, "offset_bytes": 1114112 }
        ]
    }"#;

    #[test]
    fn declared_stripe_is_used_and_named() {
        let declared = Declarations {
            workload: None,
            stripes: vec![DeclaredStripe {
                entity: Glob::new("sql05/disk:lun7"),
                stripe_unit_bytes: 262_144,
                data_disks: Some(4),
                source: "packs/san.toml".into(),
            }],
        };
        let out = run(SAN_LUN, declared);
        // p1 at 1 MiB is 4 stripe units: passes. p2 at 1,088 KiB is 64 KiB past a boundary.
        assert_eq!(out.matches("error ALN002").count(), 1, "{out}");
        assert!(out.contains("partition 2"), "{out}");
        assert!(out.contains("the 256 KiB stripe unit (declared in packs/san.toml)"), "{out}");
        assert!(out.contains("offset ÷ stripe unit = 4.25"), "{out}");
        assert!(!out.contains("not-evaluated"), "{out}");
    }

    #[test]
    fn nothing_declared_is_not_evaluated_with_the_declaration_to_write() {
        let out = run(SAN_LUN, Declarations::default());
        assert_eq!(out.matches("not-evaluated ALN002").count(), 2, "{out}");
        assert!(
            out.contains(
                "[[declare.stripe_unit]]\nentity = 'sql05/disk:lun7'\nstripe_unit_bytes = 0  # placeholder"
            ),
            "{out}"
        );
        assert!(out.contains("the SAN array's management console"), "{out}");
        assert!(!out.contains("error"), "{out}");
    }
}
