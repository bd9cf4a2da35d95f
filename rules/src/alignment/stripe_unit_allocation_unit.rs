use spindle_core::declare_rule;
use spindle_core::facts::{Backing, RaidKind, Volume};
use spindle_core::finding::Quantity;
use spindle_core::params::NoParams;
use spindle_core::rule::Ctx;
use spindle_core::units;
use spindle_core::view::{HostView, Stripe, StripeSource};

use crate::commands::{dev_path, format_volume, is_linux, linux_device, ps_string, sh_word};

use super::recreate::gcd;
use super::stripe_facts::{self, ratio};
use crate::straddle::straddle_share;

declare_rule! {
    /// ## What it checks
    /// For every volume whose stripe unit is known, `stripe_unit ÷ allocation_unit` is an
    /// integer: a whole number of clusters fits in each stripe unit. The stripe unit is the
    /// interleave of the Storage Spaces virtual disk under the volume, the stripe unit of its RAID
    /// set or LVM volume, or one declared in a rule pack. A 64 KiB cluster on a 64 KiB or 256 KiB
    /// stripe unit passes; a 64 KiB cluster on a 16 KiB or 96 KiB stripe unit fails. A volume
    /// whose stripe unit or allocation unit is unknown is reported "not evaluated"; one with
    /// nothing striped under it (a RAID 1 mirror, a drive attached directly on SATA, NVMe or USB)
    /// has no stripe unit to divide and is not judged.
    ///
    /// ## Example
    /// A ReFS volume with 64 KiB clusters on a RAID 10 whose stripe unit is 32 KiB:
    ///
    /// ```json
    /// {
    ///   "schema_version": 1,
    ///   "host": { "name": "sql21", "os_family": "windows" },
    ///   "raid_sets": [
    ///     { "id": "array-c", "kind": "hardware", "level": "raid10", "stripe_unit_bytes": 32768 }
    ///   ],
    ///   "volumes": [
    ///     { "id": "vol-g", "mount_points": ["G:\\"], "filesystem": "ReFS",
    ///       "allocation_unit_bytes": 65536, "backed_by": { "raid_set": "array-c" } }
    ///   ]
    /// }
    /// ```
    ///
    /// ```text
    /// error ALN003 sql21 › volume G:\ [/volumes/0/allocation_unit_bytes]
    ///   The 32 KiB stripe unit of RAID set array-c ÷ the 64 KiB allocation unit = 0.5, not a whole number: every 64 KiB cluster spans 2 stripe units, so each cluster I/O touches as many disks
    ///   measured: 32 KiB ÷ 64 KiB = 0.5; expected: a whole number
    /// ```
    ///
    /// ## Why it matters
    /// This is the second of the two correlations Microsoft's alignment guidance asks to hold
    /// (the first, offset ÷ stripe unit, is ALN002). When the stripe unit is not a whole multiple
    /// of the cluster, clusters straddle stripe-unit boundaries even on an aligned partition, and
    /// a single-cluster I/O costs two physical I/Os on two disks; when the cluster is larger than
    /// the stripe unit, every cluster I/O touches several disks. SQL Server reads in 64 KiB
    /// extents and the recommended cluster for data, log and tempdb volumes is 64 KiB, so the
    /// stripe unit should be 64 KiB or a larger multiple of it (64 KiB for OLTP, 256 KiB for a
    /// data warehouse).
    ///
    /// ## How to fix
    /// Keep 64 KiB clusters and rebuild the striping with a stripe unit that is a multiple of
    /// 64 KiB: Storage Spaces `New-VirtualDisk -NumberOfColumns <disks> -Interleave 64KB`
    /// (256KB for a data warehouse), a RAID logical drive with a 64 KiB stripe unit, or
    /// `mdadm --create ... --chunk=64`. Otherwise reformat with a cluster that divides the stripe
    /// unit (`Format-Volume -DriveLetter E -FileSystem NTFS -AllocationUnitSize 16384` on a
    /// 16 KiB stripe unit). Both mean moving the data off the volume first.
    ///
    /// ## References
    /// - Microsoft, "Disk Partition Alignment Best Practices for SQL Server" (2009):
    ///   `stripe_unit_size / file_allocation_unit_size` must be an integer; 64 KiB clusters for
    ///   volumes holding data, log and tempdb files:
    ///   <https://learn.microsoft.com/previous-versions/sql/sql-server-2008/dd758814(v=sql.100)>
    /// - Azure, "Storage configuration for SQL Server VMs": 64 KiB interleave for OLTP, 256 KiB for
    ///   data warehousing, volumes formatted with 64 KiB allocation units:
    ///   <https://learn.microsoft.com/azure/azure-sql/virtual-machines/windows/storage-configuration>
    pub static STRIPE_UNIT_ALLOCATION_UNIT = {
        code: "ALN003",
        name: "stripe-unit-allocation-unit",
        severity: Error,
        summary: "The stripe unit under a volume is a whole multiple of its allocation unit",
        since: "0.1.0",
        impact: Layout,
        remedy: [Manual(AskStorageTeam)],
        needs: [Volumes],
        params: [],
        check: check,
    }
}

fn check(cx: &mut Ctx<'_, NoParams>) {
    let view = cx.view;
    for v in view.volumes.iter().flatten() {
        let au = cx.need(v, "allocation_unit_bytes", v.allocation_unit_bytes.filter(|&a| a > 0));
        let stripe = view.stripe_of_volume(v).filter(|s| s.unit_bytes > 0);
        if stripe.is_none() && view.volume_is_unstriped(v) {
            continue; // a mirror or a directly attached drive: no stripe unit to divide
        }
        if stripe.is_none() {
            // What should have given the stripe unit: the volume's own backing, else the
            // backing of the disk under its first partition, or of the disk it was made on
            // whole. A declaration on that disk also serves ALN002 for the partition, so it is
            // the one to suggest.
            let disk = match &v.backed_by {
                Some(Backing::Partitions(_)) => {
                    view.partitions_of_volume(v).first().and_then(|p| view.disk(&p.disk_id))
                }
                None => view.whole_disk_of_volume(v),
                _ => None,
            };
            if let Some(why) = disk.and_then(|d| stripe_facts::unknowable(view, d)) {
                cx.not_applicable(v, "allocation_unit_bytes", format!("no stripe unit to divide: {why}"));
                continue;
            }
            let (backing, key) = match disk {
                Some(d) => (d.backed_by.as_ref(), d.key.as_str()),
                None => (v.backed_by.as_ref(), v.key.as_str()),
            };
            let (missing, reason) = match (&v.backed_by, disk) {
                (None, None) => (
                    "backed_by".to_string(),
                    format!(
                        "what the volume is built on was not collected, so its stripe unit is unknown; {}",
                        stripe_facts::declare_hint(key, &stripe_facts::reveal(view, None))
                    ),
                ),
                _ => stripe_facts::unknown(view, backing, key),
            };
            cx.not_evaluated_because(v, &missing, reason);
        }
        let (Some(au), Some(stripe)) = (au, stripe) else { continue };
        let unit = stripe.unit_bytes;
        cx.judged(v);
        if unit % au == 0 {
            continue;
        }
        let effect = if au % unit == 0 {
            format!(
                "every {} cluster spans {} stripe units, so each cluster I/O touches as many disks",
                units::binary(au),
                au / unit
            )
        } else if au > unit {
            format!("every {} cluster spans parts of several stripe units", units::binary(au))
        } else {
            format!(
                "{} of {} clusters straddle two stripe units",
                units::percent(straddle_share(0, au, unit)),
                units::binary(au)
            )
        };
        let message = format!(
            "{} ÷ the {} allocation unit = {}, not a whole number: {effect}",
            capitalize(&stripe_facts::describe(view, &stripe)),
            units::binary(au),
            ratio(unit, au),
        );
        let fix = rebuild_fix(view, v, &stripe, au);
        cx.report(v, "allocation_unit_bytes", message)
            .values(
                format!("{} ÷ {} = {}", units::binary(unit), units::binary(au), ratio(unit, au)),
                "a whole number",
            )
            // The allocation unit read, and the stripe unit it must divide.
            .quantities(Quantity::bytes(au), Quantity::bytes(unit))
            .fix(fix);
    }
}

/// Rebuild the striping under `v` with a 64 KiB multiple, or reformat `v` with clusters that
/// divide the stripe unit: both written for this volume and what is under it.
fn rebuild_fix(view: &HostView, v: &Volume, stripe: &Stripe, au: u64) -> String {
    let name = v.display_name();
    let rebuild = match &stripe.source {
        StripeSource::VirtualDisk(i) => {
            let vd = view.virtual_disks.as_ref().and_then(|vds| vds.get(*i));
            let vd_name = vd.map_or("", |vd| vd.name.as_deref().unwrap_or(&vd.id));
            let pool =
                vd.and_then(|vd| view.pool(&vd.pool_id)).map_or("", |p| p.name.as_deref().unwrap_or(&p.id));
            let columns =
                vd.and_then(|vd| vd.columns).map_or_else(|| "<columns>".to_string(), |c| c.to_string());
            format!(
                "a new virtual disk: `New-VirtualDisk -StoragePoolFriendlyName {} -FriendlyName {} \
                 -NumberOfColumns {columns} -Interleave 64KB -UseMaximumSize`",
                ps_string(pool),
                ps_string(&format!("{vd_name}-new"))
            )
        }
        StripeSource::RaidSet(i) => match view.raid_sets.as_ref().and_then(|r| r.get(*i)) {
            Some(r) if r.kind == Some(RaidKind::Md) => {
                format!(
                    "the md array: `mdadm --grow {} --chunk=64` (after a backup)",
                    sh_word(&dev_path(&r.id))
                )
            }
            Some(r) => format!("RAID set {} with a 64 KiB stripe unit in the controller's tool", r.id),
            None => "the RAID set with a 64 KiB stripe unit".to_string(),
        },
        StripeSource::DynamicDisk(i) => {
            let id = view.raid_sets.as_ref().and_then(|r| r.get(*i)).map_or("", |r| r.id.as_str());
            format!(
                "dynamic-disk striped set {id} as a Storage Spaces virtual disk with `-Interleave 64KB` or more \
                 (a dynamic-disk stripe unit is always 64 KiB and cannot be changed)"
            )
        }
        StripeSource::Lvm(lv) => {
            format!("LVM volume {} striped at 64 KiB: `lvcreate -i <stripes> -I 64k`", sh_word(lv))
        }
        StripeSource::Declared(pack) => {
            format!("the array with a 64 KiB stripe unit, and update the declaration in {pack}")
        }
    };
    let fits = gcd(stripe.unit_bytes, 65_536).min(au);
    let reformat = if is_linux(view, v) {
        let dev = linux_device(v).unwrap_or(&v.id);
        format!("`mkfs.xfs -f -b size={fits} {}`", sh_word(dev))
    } else {
        let fs =
            v.filesystem.as_deref().filter(|f| f.eq_ignore_ascii_case("refs")).map_or("NTFS", |_| "ReFS");
        format!("`{}`", format_volume(v, fs, fits))
    };
    format!(
        "Keep 64 KiB clusters and rebuild the striping under {name} with a stripe unit that is a multiple \
         of 64 KiB: {rebuild}; or reformat {name} with {} clusters, which divide the {} stripe unit: \
         {reformat}. Either way, move the data off {name} first.",
        units::binary(fits),
        units::binary(stripe.unit_bytes),
    )
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_96k_unit_splits_one_64k_cluster_in_three() {
        // Clusters start at 0, 64 and 128 (= 32) KiB into a 96 KiB unit: the one at 64 KiB
        // crosses the boundary.
        assert_eq!(units::percent(straddle_share(0, 65_536, 98_304)), "33.3 %");
    }

    #[test]
    fn capitalizes() {
        assert_eq!(capitalize("the 16 KiB"), "The 16 KiB");
    }
}
