use spindle_core::declare::Workload;
use spindle_core::declare_rule;
use spindle_core::finding::Quantity;
use spindle_core::rule::Ctx;
use spindle_core::units;

use super::spaces::{self, Resiliency};
use crate::commands::ps_string;

declare_rule! {
    /// ## What it checks
    /// Every Storage Spaces virtual disk's interleave (the stripe unit written to one column) is
    /// the one recommended for the workload: `oltp_interleave_bytes` (64 KiB) for OLTP,
    /// `data_warehouse_interleave_bytes` (256 KiB) for a data warehouse. The workload is the one
    /// a rule pack declares (`[declare] workload = "data-warehouse"`, as the `data-warehouse`
    /// pack does), else the rule's `workload` parameter (`oltp` by default); the message says
    /// which. A virtual disk whose interleave was not collected is reported "not evaluated".
    ///
    /// ## Example
    /// A space created without `-Interleave`, which gets 256 KiB, on a server with no workload
    /// declared (OLTP by default):
    ///
    /// ```json
    /// {
    ///   "schema_version": 1,
    ///   "host": { "name": "azsql01", "os_family": "windows" },
    ///   "virtual_disks": [
    ///     { "id": "vd1", "name": "vDisk", "pool_id": "pool1", "interleave_bytes": 262144 }
    ///   ]
    /// }
    /// ```
    ///
    /// ```text
    /// warning STR002 azsql01 › virtual disk vDisk [/virtual_disks/0/interleave_bytes]
    ///   interleave is 262,144 B (256 KiB); an OLTP workload (the rule's `workload` parameter; no pack declares one) calls for 65,536 B (64 KiB); 256 KiB is what Storage Spaces uses when no -Interleave is given
    ///   measured: 262,144 B (256 KiB); expected: 65,536 B (64 KiB)
    /// ```
    ///
    /// ## Why it matters
    /// OLTP reads and writes 8 KiB pages and 64 KiB extents at random: a 64 KiB interleave keeps
    /// each extent on one disk and spreads concurrent I/Os over the columns. A data warehouse
    /// scans in 64 to 256 KiB I/Os (read-ahead, bulk loads, index rebuilds), which a 256 KiB
    /// interleave serves from one disk per I/O. Storage Spaces uses 256 KiB when no interleave is
    /// given (the Server Manager wizard offers no choice), so an OLTP server built with the
    /// defaults carries the data-warehouse stripe. The interleave cannot be changed once the
    /// virtual disk exists.
    ///
    /// ## How to fix
    /// Create a new virtual disk with the right interleave, format it with 64 KiB clusters, move
    /// the files and remove the old one:
    /// `New-VirtualDisk -StoragePoolFriendlyName "SQLPool" -FriendlyName "SQLData2"
    /// -ResiliencySettingName Simple -NumberOfColumns 16 -Interleave 64KB -UseMaximumSize`
    /// (`-Interleave 256KB` for a data warehouse), then
    /// `Format-Volume -FileSystem NTFS -AllocationUnitSize 65536`. If the server's workload is not
    /// the one assumed, declare it in a pack (`[declare] workload = "data-warehouse"`) instead.
    ///
    /// ## References
    /// - Azure, "Storage configuration for SQL Server VMs": interleave 64 KiB (OLTP), 256 KiB
    ///   (data warehouse):
    ///   <https://learn.microsoft.com/azure/azure-sql/virtual-machines/windows/storage-configuration>
    /// - Microsoft Learn, "New-VirtualDisk": 256 KiB is the default interleave:
    ///   <https://learn.microsoft.com/powershell/module/storage/new-virtualdisk>
    pub static INTERLEAVE_FOR_WORKLOAD = {
        code: "STR002",
        name: "interleave-for-workload",
        severity: Warning,
        summary: "Storage Spaces interleave is 64 KiB for OLTP, 256 KiB for a data warehouse",
        since: "0.1.0",
        impact: Layout,
        remedy: [Rebuild(Interleave)],
        needs: [VirtualDisks],
        params: InterleaveForWorkloadParams {
            workload: { kind: Choice(Workload), default: Text("oltp"), doc: "Workload assumed when no pack declares one." },
            oltp_interleave_bytes: { kind: Bytes, default: Num(65536.0), doc: "Interleave expected for an OLTP workload." },
            data_warehouse_interleave_bytes: { kind: Bytes, default: Num(262144.0), doc: "Interleave expected for a data-warehouse workload." },
        },
        check: check,
    }
}

/// The workload that is not `w`, for the declaration a fix suggests when `w` was assumed wrongly.
fn other_workload(w: Workload) -> Workload {
    match w {
        Workload::Oltp => Workload::DataWarehouse,
        Workload::DataWarehouse => Workload::Oltp,
    }
}

/// What Storage Spaces uses when New-VirtualDisk is given no interleave.
const DEFAULT_INTERLEAVE: u64 = 256 * 1024;

fn check(cx: &mut Ctx<'_, InterleaveForWorkloadParams>) {
    let view = cx.view;
    let (workload, source) = spaces::workload(view, cx.params.workload);
    let expected = match workload {
        Workload::Oltp => cx.params.oltp_interleave_bytes,
        Workload::DataWarehouse => cx.params.data_warehouse_interleave_bytes,
    };
    for vd in view.virtual_disks.iter().flatten() {
        cx.judged(vd);
        let Some(interleave) = cx.need(vd, "interleave_bytes", vd.interleave_bytes) else { continue };
        if interleave == expected {
            continue;
        }
        let mut message = format!(
            "interleave is {}; {} ({source}) calls for {}",
            units::bytes(interleave),
            spaces::workload_phrase(workload),
            units::bytes(expected)
        );
        if interleave == DEFAULT_INTERLEAVE {
            message.push_str(&format!(
                "; {} is what Storage Spaces uses when no -Interleave is given",
                units::binary(DEFAULT_INTERLEAVE)
            ));
        }
        let pool = view.pool(&vd.pool_id).map_or(vd.pool_id.as_str(), |p| spaces::pool_name(p));
        let resiliency = vd.resiliency.as_deref().and_then(Resiliency::parse).unwrap_or(Resiliency::Simple);
        let columns = vd.columns.map_or("<columns>".to_string(), |c| c.to_string());
        let copies = match resiliency {
            Resiliency::Mirror => "; add -NumberOfDataCopies 3 for a three-way mirror",
            _ => "",
        };
        let fix = format!(
            "The interleave cannot be changed in place: create a new virtual disk with a {} interleave \
             (`New-VirtualDisk -StoragePoolFriendlyName {} -FriendlyName {} \
             -ResiliencySettingName {} -NumberOfColumns {columns} -Interleave {}KB -UseMaximumSize`{copies}), \
             format it with 64 KiB clusters (`Format-Volume -AllocationUnitSize 65536`), move the files and \
             remove the old virtual disk (`Remove-VirtualDisk -FriendlyName {}`). If the workload is not {}, \
             declare it in a pack: `workload = \"{}\"` under `[declare]`.",
            units::binary(expected),
            ps_string(pool),
            ps_string(&format!("{}-new", spaces::vd_name(vd))),
            resiliency.as_str(),
            expected / 1024,
            ps_string(spaces::vd_name(vd)),
            workload.as_str(),
            other_workload(workload).as_str(),
        );
        cx.report(vd, "interleave_bytes", message)
            .values(units::bytes(interleave), units::bytes(expected))
            .quantities(Quantity::bytes(interleave), Quantity::bytes(expected))
            .fix(fix);
    }
}

#[cfg(test)]
mod tests {
    use spindle_core::declare::{Declarations, Workload};
    use spindle_core::params::ParamValue;

    use super::INTERLEAVE_FOR_WORKLOAD;
    use crate::striping::spaces::testing::{declared_workload, run_rule};

    fn snapshot(interleave: u64) -> String {
        format!(
            r#"{{ "schema_version": 1, "host": {{ "name": "dw01" }},
                "storage_pools": [ {{ "id": "p", "name": "DWPool", "physical_disk_ids": ["a", "b", "c", "d"] }} ],
                "virtual_disks": [ {{ "id": "v", "name": "DWData", "pool_id": "p", "columns": 4,
                                      "interleave_bytes": {interleave}, "resiliency": "Simple" }} ] }}"#
        )
    }

    #[test]
    fn declared_data_warehouse_wants_256k_and_says_where_it_was_declared() {
        let dw = || declared_workload(Workload::DataWarehouse, "rule-packs/data-warehouse.toml");
        let r = run_rule(&INTERLEAVE_FOR_WORKLOAD, &snapshot(65_536), dw(), &[]);
        assert_eq!(r.findings.len(), 1);
        let f = &r.findings[0];
        assert!(
            f.message.contains("a data-warehouse workload (declared in rule-packs/data-warehouse.toml) calls for 262,144 B (256 KiB)"),
            "{}",
            f.message
        );
        assert!(f.fix.contains("-NumberOfColumns 4 -Interleave 256KB"), "{}", f.fix);
        assert!(f.fix.contains("-StoragePoolFriendlyName 'DWPool'"), "{}", f.fix);
        assert!(run_rule(&INTERLEAVE_FOR_WORKLOAD, &snapshot(262_144), dw(), &[]).findings.is_empty());
    }

    #[test]
    fn a_declared_workload_beats_the_parameter() {
        let oltp = declared_workload(Workload::Oltp, "rule-packs/oltp.toml");
        let param = [("workload", ParamValue::Text("data-warehouse".into()))];
        let r = run_rule(&INTERLEAVE_FOR_WORKLOAD, &snapshot(65_536), oltp, &param);
        assert!(r.findings.is_empty(), "{:?}", r.findings);
    }

    #[test]
    fn the_parameter_applies_when_nothing_is_declared() {
        let param = [("workload", ParamValue::Text("data-warehouse".into()))];
        let r = run_rule(&INTERLEAVE_FOR_WORKLOAD, &snapshot(65_536), Declarations::default(), &param);
        assert_eq!(r.findings.len(), 1);
        assert!(r.findings[0].message.contains("(the rule's `workload` parameter; no pack declares one)"));
        let custom = [("oltp_interleave_bytes", ParamValue::Num(131_072.0))];
        let r = run_rule(&INTERLEAVE_FOR_WORKLOAD, &snapshot(131_072), Declarations::default(), &custom);
        assert!(r.findings.is_empty());
    }
}
