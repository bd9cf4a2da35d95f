use std::collections::BTreeSet;

use spindle_core::declare_rule;
use spindle_core::finding::Quantity;
use spindle_core::rule::Ctx;
use spindle_core::units;

use super::spaces::{self, Resiliency};
use crate::gain;

declare_rule! {
    /// ## What it checks
    /// Every Storage Spaces virtual disk stripes over as many columns as its pool's physical
    /// disks allow: `NumberOfColumns` = the pool's disks for a Simple space; the pool's disks ÷
    /// the data copies for a Mirror space (`mirror_data_copies`, 2 for a two-way mirror: 16 disks
    /// give 8 columns; set 3 for three-way mirrors, since the snapshot does not record
    /// `NumberOfDataCopies`). A Parity space is held to the same bar as a Simple one: its parity
    /// strip rotates over all its columns, so every disk in the pool can be a column (a parity
    /// space is a poor home for write-heavy SQL Server files anyway, which this rule does not
    /// judge). Only too few columns is a finding. A virtual disk whose columns, resiliency or pool
    /// disks were not collected is reported "not evaluated".
    ///
    /// ## Example
    /// A Simple space made with the Server Manager wizard, which stops at 8 columns, in a pool of
    /// 16 disks:
    ///
    /// ```json
    /// {
    ///   "schema_version": 1,
    ///   "host": { "name": "azsql01", "os_family": "windows" },
    ///   "storage_pools": [
    ///     { "id": "pool1", "name": "Storage Pool",
    ///       "physical_disk_ids": ["d01", "d02", "d03", "d04", "d05", "d06", "d07", "d08",
    ///                             "d09", "d10", "d11", "d12", "d13", "d14", "d15", "d16"] }
    ///   ],
    ///   "virtual_disks": [
    ///     { "id": "vd1", "name": "vDisk", "pool_id": "pool1", "columns": 8,
    ///       "resiliency": "Simple" }
    ///   ]
    /// }
    /// ```
    ///
    /// ```text
    /// warning STR001 azsql01 › virtual disk vDisk [/virtual_disks/0/columns]
    ///   virtual disk vDisk (Simple) stripes over 8 columns, but pool Storage Pool has 16 physical disks: each stripe spans 8 of the 16 disks (half the pool); 8 is the most columns the Server Manager wizard creates, so only New-VirtualDisk -NumberOfColumns 16 uses the whole pool
    ///   measured: 8 columns; expected: 16 columns
    /// ```
    ///
    /// ## Why it matters
    /// `NumberOfColumns` is how many disks one stripe spans, so it caps the IOPS and throughput
    /// one stream of I/O can draw from the pool. The Server Manager wizard creates at most 8
    /// columns, so a 16-disk pool built in the GUI stripes over half its disks. A published SQLIO
    /// test measured it on an Azure VM with 16 data disks of about 500 IOPS each (SQLIO, 8 KiB random reads):
    /// 611 IOPS with 1 column, 3,512 with 8, 5,976 with 16; 64 KiB sequential writes: 34 MB/s,
    /// 125 MB/s and 231 MB/s.
    ///
    /// ## How to fix
    /// The column count of a virtual disk cannot be changed: create a new virtual disk with
    /// PowerShell, format it, move the files, then remove the old one:
    /// `New-VirtualDisk -StoragePoolFriendlyName "SQLPool" -FriendlyName "SQLData2"
    /// -ResiliencySettingName Simple -NumberOfColumns 16 -Interleave 64KB -UseMaximumSize`
    /// (`-Interleave 256KB` for a data warehouse), then
    /// `Get-VirtualDisk SQLData2 | Get-Disk | Initialize-Disk -PassThru | New-Partition -UseMaximumSize -AssignDriveLetter | Format-Volume -FileSystem NTFS -AllocationUnitSize 65536`.
    /// Pools that later grow must grow by a multiple of the column count (columns × copies for a
    /// mirror). If the pool counts hot-spare or journal disks, which hold no columns, waive the
    /// finding with that reason.
    ///
    /// ## Expected gain
    /// For a Simple or Mirror space, scaled from the same Azure measurement: going from 8 to 16
    /// columns kept 85 % of the doubling for 8 KiB random reads (3,512 → 5,976 IOPS) and 92 % for
    /// 64 KiB sequential writes (125 → 231 MB/s), so the estimate is (new ÷ old columns) × that
    /// share: +70 % to +85 % from 8 to 16 columns. It assumes every disk of the pool gives the
    /// same IOPS and a workload that saturates today's columns. A Parity space gets no estimate:
    /// its writes do not scale with columns that way.
    ///
    /// ## References
    /// - Azure, "Storage configuration for SQL Server VMs": `NumberOfColumns` = physical disks,
    ///   interleave 64 KiB (OLTP) or 256 KiB (data warehouse):
    ///   <https://learn.microsoft.com/azure/azure-sql/virtual-machines/windows/storage-configuration>
    /// - Azure, "Performance guidelines for SQL Server on Azure VMs — storage":
    ///   <https://learn.microsoft.com/azure/azure-sql/virtual-machines/windows/performance-guidelines-best-practices-storage>
    /// - Microsoft Learn, "New-VirtualDisk" (`-NumberOfColumns`, `-Interleave`):
    ///   <https://learn.microsoft.com/powershell/module/storage/new-virtualdisk>
    pub static COLUMNS_MATCH_DISKS = {
        code: "STR001",
        name: "columns-match-disks",
        severity: Warning,
        summary: "Storage Spaces virtual disks stripe over every disk of their pool",
        since: "0.1.0",
        impact: Layout,
        remedy: [Rebuild(Columns)],
        needs: [VirtualDisks, StoragePools],
        params: ColumnsMatchDisksParams {
            mirror_data_copies: { kind: Count, default: Num(2.0), doc: "Data copies assumed for a Mirror space (2 two-way, 3 three-way): its columns can be at most the pool's disks divided by this." },
        },
        check: check,
    }
}

/// The Server Manager wizard's column cap (8, whatever the pool's disks).
const GUI_MAX_COLUMNS: u32 = 8;

fn check(cx: &mut Ctx<'_, ColumnsMatchDisksParams>) {
    let view = cx.view;
    let copies = cx.params.mirror_data_copies.max(1);
    let mut pools_reported = BTreeSet::new();
    for vd in view.virtual_disks.iter().flatten() {
        let columns = cx.need(vd, "columns", vd.columns);
        let Some(pool) = view.pool(&vd.pool_id) else {
            cx.not_evaluated_because(
                vd,
                "storage_pools",
                format!("pool {} is not in the snapshot, so its physical disks are unknown", vd.pool_id),
            );
            continue;
        };
        let disks = match &pool.physical_disk_ids {
            Some(ids) => Some(ids.iter().collect::<BTreeSet<_>>().len() as u32),
            None => {
                if pools_reported.insert(pool.key.clone()) {
                    cx.not_evaluated(pool, "physical_disk_ids");
                }
                None
            }
        };
        let Some(text) = cx.need(vd, "resiliency", vd.resiliency.as_deref()) else { continue };
        let Some(resiliency) = Resiliency::parse(text) else {
            cx.not_evaluated_because(
                vd,
                "resiliency",
                format!("resiliency \"{text}\" is not one of Simple, Mirror or Parity"),
            );
            continue;
        };
        let (Some(columns), Some(disks)) = (columns, disks) else { continue };
        cx.judged(vd);
        let expected = spaces::max_columns(resiliency, disks, copies);
        if columns >= expected {
            continue;
        }
        let used = spaces::disks_per_stripe(resiliency, columns, copies);
        let share = if used * 2 == disks {
            "half the pool".to_string()
        } else {
            units::percent(f64::from(used) / f64::from(disks))
        };
        let pool_name = spaces::pool_name(pool);
        let mut message = match resiliency {
            Resiliency::Mirror => format!(
                "virtual disk {} (Mirror, {copies} data copies assumed) has {columns} columns, but pool \
                 {pool_name}'s {disks} physical disks allow {expected} ({disks} ÷ {copies} copies): each \
                 stripe spans {used} of the {disks} disks ({share})",
                spaces::vd_name(vd)
            ),
            r => format!(
                "virtual disk {} ({}) stripes over {columns} columns, but pool {pool_name} has {disks} \
                 physical disks: each stripe spans {columns} of the {disks} disks ({share})",
                spaces::vd_name(vd),
                r.as_str()
            ),
        };
        if columns == GUI_MAX_COLUMNS {
            message.push_str(&format!(
                "; {GUI_MAX_COLUMNS} is the most columns the Server Manager wizard creates, so only \
                 New-VirtualDisk -NumberOfColumns {expected} uses the whole pool"
            ));
        }
        let command = spaces::new_virtual_disk(
            pool_name,
            &format!("{}-new", spaces::vd_name(vd)),
            resiliency,
            expected,
            copies,
            spaces::interleave_arg(view),
        );
        // Measured on striped disks: parity's writes do not scale with columns so.
        let gain = match resiliency {
            Resiliency::Parity => None,
            _ => gain::columns(columns, expected),
        };
        cx.report(vd, "columns", message)
            .values(format!("{columns} columns"), format!("{expected} columns"))
            .quantities(Quantity::count(columns.into()), Quantity::count(expected.into()))
            .gain(gain)
            .fix(format!(
                "NumberOfColumns cannot be changed in place: create a new virtual disk with {expected} columns \
                 ({command}), format it with 64 KiB clusters (Format-Volume -AllocationUnitSize 65536), move \
                 the files to it and remove the old virtual disk."
            ));
    }
}

#[cfg(test)]
mod tests {
    use spindle_core::declare::{Declarations, Workload};
    use spindle_core::params::ParamValue;

    use super::COLUMNS_MATCH_DISKS;
    use crate::striping::spaces::testing::{declared_workload, run_rule};

    fn pool16(columns: u32, resiliency: &str) -> String {
        let disks: Vec<String> = (1..=16).map(|i| format!("\"d{i}\"")).collect();
        format!(
            r#"{{ "schema_version": 1, "host": {{ "name": "az" }},
                "storage_pools": [ {{ "id": "p", "name": "Storage Pool", "physical_disk_ids": [{}] }} ],
                "virtual_disks": [ {{ "id": "v", "name": "vDisk", "pool_id": "p", "columns": {columns},
                                      "resiliency": "{resiliency}" }} ] }}"#,
            disks.join(", ")
        )
    }

    #[test]
    fn fix_is_the_new_virtual_disk_command() {
        let r = run_rule(&COLUMNS_MATCH_DISKS, &pool16(8, "Simple"), Declarations::default(), &[]);
        assert_eq!(r.findings.len(), 1);
        assert!(
            r.findings[0].fix.contains(
                "New-VirtualDisk -StoragePoolFriendlyName 'Storage Pool' -FriendlyName 'vDisk-new' \
                 -ResiliencySettingName Simple -NumberOfColumns 16 -Interleave 64KB -UseMaximumSize"
            ),
            "{}",
            r.findings[0].fix
        );
        let dw = declared_workload(Workload::DataWarehouse, "dw.toml");
        let r = run_rule(&COLUMNS_MATCH_DISKS, &pool16(8, "Simple"), dw, &[]);
        assert!(r.findings[0].fix.contains("-Interleave 256KB"), "{}", r.findings[0].fix);
    }

    #[test]
    fn three_way_mirrors_need_the_parameter() {
        // Two data copies assumed: 16 disks allow 8 columns, so 5 is too few.
        let r = run_rule(&COLUMNS_MATCH_DISKS, &pool16(5, "Mirror"), Declarations::default(), &[]);
        assert_eq!(r.findings.len(), 1);
        assert!(
            r.findings[0].fix.contains("-NumberOfDataCopies 2 -NumberOfColumns 8"),
            "{}",
            r.findings[0].fix
        );
        // Three copies: 16 ÷ 3 = 5 columns is the most there can be.
        let three = [("mirror_data_copies", ParamValue::Num(3.0))];
        let r = run_rule(&COLUMNS_MATCH_DISKS, &pool16(5, "Mirror"), Declarations::default(), &three);
        assert!(r.findings.is_empty(), "{:?}", r.findings);
    }

    #[test]
    fn unknown_resiliency_is_not_evaluated() {
        let r = run_rule(&COLUMNS_MATCH_DISKS, &pool16(8, "Tiered"), Declarations::default(), &[]);
        assert!(r.findings.is_empty());
        assert_eq!(r.not_evaluated.len(), 1);
        assert_eq!(r.not_evaluated[0].missing, "resiliency");
    }
}
