use spindle_core::declare::Workload;
use spindle_core::declare_rule;
use spindle_core::facts::{Backing, Disk, RaidKind, RaidSet};
use spindle_core::fast_hash::{FastMap, FastSet};
use spindle_core::finding::Quantity;
use spindle_core::rule::Ctx;
use spindle_core::units;
use spindle_core::view::{Located, StripeSource};

use super::spaces;
use crate::commands::{dev_path, sh_word};

declare_rule! {
    /// ## What it checks
    /// Every striped RAID set (hardware logical drive, Linux md array, Windows dynamic-disk
    /// striped volume) and every striped LVM logical volume (`lvcreate -i <stripes> -I <size>`)
    /// has a stripe unit (chunk) within the range recommended for the workload:
    /// `oltp_min_stripe_unit_bytes` to `oltp_max_stripe_unit_bytes` for OLTP (both 64 KiB by
    /// default, the classic SQL Server recommendation), `data_warehouse_min_stripe_unit_bytes` to
    /// `data_warehouse_max_stripe_unit_bytes` for a data warehouse (both 256 KiB). Controllers
    /// offer 16 KiB to 1 MiB; widen a range in a pack to accept, say, a 128 KiB controller
    /// default (`oltp_max_stripe_unit_bytes = 131072`). The workload is the one a pack declares
    /// (`[declare] workload`), else the rule's `workload` parameter. RAID 1 sets (mirrors), linear
    /// or spanned sets and linear logical volumes do not stripe and are skipped. An LVM volume is
    /// judged once, on the volume mounted on it (else on its device-mapper disk); one whose
    /// striping could not be read is reported "not evaluated". A dynamic-disk striped volume always uses 64 KiB, so its stripe
    /// unit is taken as 64 KiB when not collected. A hardware controller hides its stripe unit
    /// from the operating system: one declared in a pack for the disks the set exposes
    /// (`[[declare.stripe_unit]]`) is judged and marked declared; any other set whose stripe
    /// unit was not collected is reported "not evaluated".
    ///
    /// ## Example
    /// A hardware RAID 10 with a 256 KiB stripe unit on a server with no workload declared (OLTP by
    /// default):
    ///
    /// ```json
    /// {
    ///   "schema_version": 1,
    ///   "host": { "name": "sql70", "os_family": "windows" },
    ///   "raid_sets": [
    ///     { "id": "array-a", "kind": "hardware", "level": "raid10", "stripe_unit_bytes": 262144 }
    ///   ]
    /// }
    /// ```
    ///
    /// ```text
    /// warning STR004 sql70 › RAID set array-a [/raid_sets/0/stripe_unit_bytes]
    ///   stripe unit is 262,144 B (256 KiB); an OLTP workload (the rule's `workload` parameter; no pack declares one) calls for 65,536 B (64 KiB)
    ///   measured: 262,144 B (256 KiB); expected: 65,536 B (64 KiB)
    /// ```
    ///
    /// ## Why it matters
    /// The stripe unit decides how I/Os spread over the members. OLTP issues 8 KiB page and
    /// 64 KiB extent I/Os at random: a 64 KiB stripe unit keeps each extent on one disk while
    /// concurrent I/Os land on different disks. A data warehouse scans with 64 to 256 KiB
    /// read-ahead, bulk load and index rebuild I/Os, which a 256 KiB stripe unit serves from one
    /// disk each. Units far from these either split I/Os over several disks (too small) or pile
    /// consecutive I/Os on one disk (too large). The stripe unit must also be a multiple of the
    /// 64 KiB cluster (ALN003) and divide the partition offset (ALN002).
    ///
    /// ## How to fix
    /// The stripe unit is set when the set is created. Hardware RAID: back up, re-create the
    /// logical drive with a 64 KiB stripe unit (256 KiB for a data warehouse) in the controller's
    /// tool, restore. Linux md: `mdadm --create /dev/md0 --level=10 --raid-devices=4 --chunk=64
    /// /dev/sd[b-e]`, or reshape a RAID 5/6 in place after a backup with
    /// `mdadm --grow /dev/md0 --chunk=64`, then re-create XFS with matching geometry
    /// (`mkfs.xfs -d su=64k,sw=<data disks>`). Windows dynamic-disk stripes are always 64 KiB
    /// (Windows Server 2008 R2 and older): a data warehouse needing 256 KiB moves to a Storage
    /// Spaces virtual disk (`New-VirtualDisk -Interleave 256KB`) or a hardware RAID set.
    ///
    /// ## References
    /// - Microsoft, "Disk Partition Alignment Best Practices for SQL Server" (2009): stripe units
    ///   of 64 KiB and the correlations with offset and cluster:
    ///   <https://learn.microsoft.com/previous-versions/sql/sql-server-2008/dd758814(v=sql.100)>
    /// - Azure, "Storage configuration for SQL Server VMs": 64 KiB for OLTP, 256 KiB for data
    ///   warehousing:
    ///   <https://learn.microsoft.com/azure/azure-sql/virtual-machines/windows/storage-configuration>
    /// - `mdadm(8)` (`--chunk`, `--grow`): <https://man7.org/linux/man-pages/man8/mdadm.8.html>
    /// - Windows Server 2008 R2 and older: dynamic-disk striped volumes always use a 64 KiB
    ///   stripe unit.
    pub static RAID_STRIPE_UNIT = {
        code: "STR004",
        name: "raid-stripe-unit",
        severity: Warning,
        summary: "RAID stripe units are 64 KiB for OLTP, 256 KiB for a data warehouse",
        since: "0.1.0",
        impact: Layout,
        remedy: [Manual(AskStorageTeam)],
        needs: [RaidSets],
        params: RaidStripeUnitParams {
            workload: { kind: Choice(Workload), default: Text("oltp"), doc: "Workload assumed when no pack declares one." },
            oltp_min_stripe_unit_bytes: { kind: Bytes, default: Num(65536.0), doc: "Smallest stripe unit accepted for an OLTP workload." },
            oltp_max_stripe_unit_bytes: { kind: Bytes, default: Num(65536.0), doc: "Largest stripe unit accepted for an OLTP workload." },
            data_warehouse_min_stripe_unit_bytes: { kind: Bytes, default: Num(262144.0), doc: "Smallest stripe unit accepted for a data-warehouse workload." },
            data_warehouse_max_stripe_unit_bytes: { kind: Bytes, default: Num(262144.0), doc: "Largest stripe unit accepted for a data-warehouse workload." },
        },
        check: check,
    }
}

/// What the check judges against: the accepted range and the workload it comes from.
struct Wanted {
    min: u64,
    max: u64,
    workload: Workload,
    source: String,
}

impl Wanted {
    /// `65,536 B (64 KiB)`, or a range.
    fn text(&self) -> String {
        if self.min == self.max {
            units::bytes(self.min)
        } else {
            format!("{} to {}", units::bytes(self.min), units::bytes(self.max))
        }
    }

    /// `; an OLTP workload (declared in …) calls for 65,536 B (64 KiB)`.
    fn calls_for(&self) -> String {
        format!("; {} ({}) calls for {}", spaces::workload_phrase(self.workload), self.source, self.text())
    }

    /// The end of the range a unit outside it should move to.
    fn target(&self, unit: u64) -> u64 {
        if unit < self.min { self.min } else { self.max }
    }
}

fn check(cx: &mut Ctx<'_, RaidStripeUnitParams>) {
    let view = cx.view;
    let (workload, source) = spaces::workload(view, cx.params.workload);
    let (min, max) = match workload {
        Workload::Oltp => (cx.params.oltp_min_stripe_unit_bytes, cx.params.oltp_max_stripe_unit_bytes),
        Workload::DataWarehouse => {
            (cx.params.data_warehouse_min_stripe_unit_bytes, cx.params.data_warehouse_max_stripe_unit_bytes)
        }
    };
    let wanted = Wanted { min, max, workload, source };
    raid_sets(cx, &wanted);
    lvm_volumes(cx, &wanted);
}

fn raid_sets(cx: &mut Ctx<'_, RaidStripeUnitParams>, wanted: &Wanted) {
    let view = cx.view;
    // The disks each RAID set exposes, in one pass: a walk over every disk for every set was
    // quadratic in a host's disks.
    let mut exposed: FastMap<&str, Vec<&Located<Disk>>> = FastMap::default();
    if view.raid_sets.as_ref().is_some_and(|r| !r.is_empty()) {
        for d in view.disks.iter().flatten() {
            if let Some(Backing::RaidSet(id)) = &d.backed_by {
                exposed.entry(id.as_str()).or_default().push(d);
            }
        }
    }
    for r in view.raid_sets.iter().flatten() {
        if !r.is_striped() {
            continue;
        }
        // A hardware controller hides its stripe unit from the OS; a pack may declare it for the
        // disks the set exposes.
        let declared = exposed.get(r.id.as_str()).into_iter().flatten().find_map(|d| {
            let stripe = view.stripe_of_disk(d)?;
            match stripe.source {
                StripeSource::Declared(pack) => Some((stripe.unit_bytes, pack)),
                _ => None,
            }
        });
        let (unit, inferred, declared_in) = match (r.stripe_unit(), declared) {
            (Some((u, false)), _) => (u, false, None),
            (_, Some((u, pack))) => (u, false, Some(pack)),
            (Some((u, true)), None) => (u, true, None),
            (None, None) => {
                cx.not_evaluated(r, "stripe_unit_bytes");
                continue;
            }
        };
        cx.judged(r);
        if (wanted.min..=wanted.max).contains(&unit) {
            continue;
        }
        let note = match (&declared_in, inferred) {
            (Some(pack), _) => format!(" (declared in {pack})"),
            (None, true) => " (a dynamic-disk striped volume always uses 64 KiB)".to_string(),
            (None, false) => String::new(),
        };
        let message = format!("stripe unit is {}{note}{}", units::bytes(unit), wanted.calls_for());
        let target_bytes = wanted.target(unit);
        let (target, target_kib) = (units::binary(target_bytes), target_bytes / 1024);
        let fix = match r.kind {
            Some(RaidKind::Dynamic) => format!(
                "A dynamic-disk striped volume always stripes in 64 KiB: move the data to a Storage Spaces \
                 virtual disk (New-VirtualDisk -NumberOfColumns <disks> -Interleave {target_kib}KB, Windows Server \
                 2012 or later) or a hardware RAID set with a {target} stripe unit."
            ),
            Some(RaidKind::Md) => md_fix(r, &target, target_kib),
            _ => format!(
                "Back up, re-create logical drive {} with a {target} stripe unit in the controller's \
                 configuration tool (`perccli`, `storcli`, `ssacli`), restore, and check the partition offset \
                 (ALN002) and cluster size (ALN003).",
                r.id
            ),
        };
        let finding = cx.report(r, "stripe_unit_bytes", message);
        finding.values(units::bytes(unit), wanted.text()).fix(fix);
        // The bound the unit is outside of.
        finding.quantities(Quantity::bytes(unit), Quantity::bytes(wanted.target(unit)));
        if inferred || declared_in.is_some() {
            // The value was not read from the snapshot; keep the pointer on the set.
            finding.field = None;
        }
    }
}

/// Re-create or reshape this md array with a `target` chunk, and XFS with matching geometry.
fn md_fix(r: &RaidSet, target: &str, target_kib: u64) -> String {
    let dev = sh_word(&dev_path(&r.id));
    let level = r.level.as_deref().map_or_else(|| "<level>".to_string(), sh_word);
    let members = r.member_ids.as_deref().unwrap_or_default();
    let (count, devices) = if members.is_empty() {
        ("<n>".to_string(), "<devices>".to_string())
    } else {
        let devs: Vec<String> = members.iter().map(|m| sh_word(&dev_path(m))).collect();
        (members.len().to_string(), devs.join(" "))
    };
    format!(
        "Back up, then re-create the array with a {target} chunk (`mdadm --create {dev} --level={level} \
         --raid-devices={count} --chunk={target_kib} {devices}`) or, for RAID 5/6, reshape it with \
         `mdadm --grow {dev} --chunk={target_kib}`; re-create XFS with matching geometry \
         (`mkfs.xfs -d su={target_kib}k,sw=<data disks>`)."
    )
}

/// Judges each striped LVM logical volume once: on the first volume mounted on it, else on its
/// device-mapper disk (where the Linux collector records it), by name.
fn lvm_volumes(cx: &mut Ctx<'_, RaidStripeUnitParams>, wanted: &Wanted) {
    let view = cx.view;
    let mut seen: FastSet<&str> = FastSet::default();
    for v in view.volumes.iter().flatten() {
        if let Some(b @ Backing::Lvm { name, .. }) = &v.backed_by
            && seen.insert(name.as_str())
        {
            judge_lvm(cx, v, b, wanted);
        }
    }
    for d in view.disks.iter().flatten() {
        if let Some(b @ Backing::Lvm { name, .. }) = &d.backed_by
            && seen.insert(name.as_str())
        {
            judge_lvm(cx, d, b, wanted);
        }
    }
}

fn judge_lvm<'v, T>(
    cx: &mut Ctx<'v, RaidStripeUnitParams>,
    at: &'v Located<T>,
    lvm: &Backing,
    wanted: &Wanted,
) {
    let Backing::Lvm { name, stripes, stripe_unit_bytes, .. } = lvm else { return };
    if *stripes == Some(1) {
        return; // linear: each extent on one device, no stripe unit
    }
    let Some(unit) = *stripe_unit_bytes else {
        cx.not_evaluated(at, "backed_by/lvm/stripe_unit_bytes");
        return;
    };
    cx.judged(at);
    if (wanted.min..=wanted.max).contains(&unit) {
        return;
    }
    let over = stripes.map_or_else(String::new, |n| format!(", striped over {n} devices"));
    let message =
        format!("LVM volume {name}{over}: stripe unit is {}{}", units::bytes(unit), wanted.calls_for());
    let target_kib = wanted.target(unit) / 1024;
    let n = stripes.map_or_else(|| "<stripes>".to_string(), |n| n.to_string());
    let (vg, lv) = name.split_once('/').unwrap_or(("<vg>", name.as_str()));
    let (vg_lv, vg, lv) = (sh_word(&format!("{vg}/{lv}")), sh_word(vg), sh_word(lv));
    let fix = format!(
        "The stripe unit of a logical volume is set when it is created: back up, then re-create it with a \
         {} stripe unit (`lvremove {vg_lv}`; `lvcreate --type striped -i {n} -I {target_kib}k -L <size> -n {lv} {vg}`), \
         re-create XFS with matching geometry (`mkfs.xfs -d su={target_kib}k,sw={n}`) and restore.",
        units::binary(wanted.target(unit)),
    );
    cx.report(at, "backed_by/lvm/stripe_unit_bytes", message)
        .values(units::bytes(unit), wanted.text())
        .quantities(Quantity::bytes(unit), Quantity::bytes(wanted.target(unit)))
        .fix(fix);
}

#[cfg(test)]
mod dw_tests {
    use spindle_core::declare::{Declarations, Workload};
    use spindle_core::params::ParamValue;

    use super::RAID_STRIPE_UNIT;
    use crate::striping::spaces::testing::{declared_workload, run_rule};

    const SETS: &str = r#"{ "schema_version": 1, "host": { "name": "dw02" },
        "raid_sets": [
            { "id": "dyn", "kind": "dynamic", "level": "raid0", "member_ids": ["disk2", "disk3"] },
            { "id": "hw", "kind": "hardware", "level": "raid10", "stripe_unit_bytes": 262144 },
            { "id": "md0", "kind": "md", "level": "raid6", "stripe_unit_bytes": 65536 }
        ] }"#;

    #[test]
    fn data_warehouse_flags_the_64k_dynamic_stripe_and_says_it_cannot_change() {
        let dw = declared_workload(Workload::DataWarehouse, "rule-packs/data-warehouse.toml");
        let r = run_rule(&RAID_STRIPE_UNIT, SETS, dw, &[]);
        let codes: Vec<&str> = r.findings.iter().map(|f| f.entity.label.as_str()).collect();
        assert_eq!(codes, ["dw02 › RAID set dyn", "dw02 › RAID set md0"], "{:?}", r.findings);
        let dynamic = &r.findings[0];
        assert!(
            dynamic.message.contains("(a dynamic-disk striped volume always uses 64 KiB)"),
            "{}",
            dynamic.message
        );
        assert!(
            dynamic.message.contains("(declared in rule-packs/data-warehouse.toml)"),
            "{}",
            dynamic.message
        );
        assert_eq!(dynamic.field, None);
        assert!(dynamic.fix.contains("-Interleave 256KB"), "{}", dynamic.fix);
        let md = &r.findings[1];
        assert!(md.fix.contains("--chunk=256"), "{}", md.fix);
    }

    #[test]
    fn a_widened_range_accepts_the_controller_default() {
        let wide = [("oltp_max_stripe_unit_bytes", ParamValue::Num(262_144.0))];
        let r = run_rule(&RAID_STRIPE_UNIT, SETS, Declarations::default(), &wide);
        assert!(r.findings.is_empty(), "{:?}", r.findings);
        let r = run_rule(&RAID_STRIPE_UNIT, SETS, Declarations::default(), &[]);
        assert_eq!(r.findings.len(), 1);
        assert!(r.findings[0].message.contains("calls for 65,536 B (64 KiB)"), "{}", r.findings[0].message);
    }

    #[test]
    fn an_lvm_stripe_is_judged_once_with_an_lvcreate_fix() {
        let lv = r#"{ "lvm": { "name": "vgsql/lvdata", "stripes": 4, "stripe_unit_bytes": 524288,
                               "devices": ["sdb1", "sdc1", "sdd1", "sde1"] } }"#;
        let snapshot = format!(
            r#"{{ "schema_version": 1, "host": {{ "name": "lnx" }}, "raid_sets": [],
                "disks": [ {{ "id": "dm-0", "backed_by": {lv} }} ],
                "volumes": [ {{ "id": "/dev/dm-0", "mount_points": ["/var/opt/mssql/data"], "backed_by": {lv} }} ] }}"#
        );
        let r = run_rule(&RAID_STRIPE_UNIT, &snapshot, Declarations::default(), &[]);
        assert_eq!(
            r.findings.len(),
            1,
            "the volume and its dm disk are one logical volume: {:?}",
            r.findings
        );
        let f = &r.findings[0];
        assert_eq!(f.entity.label, "lnx › volume /var/opt/mssql/data");
        assert_eq!(f.field.as_deref(), Some("backed_by/lvm/stripe_unit_bytes"));
        assert!(f.fix.contains("lvcreate --type striped -i 4 -I 64k -L <size> -n lvdata vgsql"), "{}", f.fix);
        assert!(f.fix.contains("mkfs.xfs -d su=64k,sw=4"), "{}", f.fix);
        let dw = declared_workload(Workload::DataWarehouse, "rule-packs/data-warehouse.toml");
        let r = run_rule(&RAID_STRIPE_UNIT, &snapshot, dw, &[]);
        assert!(r.findings[0].fix.contains("-I 256k"), "{}", r.findings[0].fix);
    }

    #[test]
    fn a_declared_stripe_unit_is_judged_and_marked() {
        use spindle_core::declare::DeclaredStripe;
        use spindle_core::glob::Glob;
        let snapshot = r#"{ "schema_version": 1, "host": { "name": "erp1" },
            "disks": [ { "id": "ld1", "backed_by": { "raid_set": "array-a" } } ],
            "raid_sets": [ { "id": "array-a", "kind": "hardware", "level": "raid5" } ] }"#;
        let declared = Declarations {
            workload: None,
            stripes: vec![DeclaredStripe {
                entity: Glob::new("erp1/disk:*"),
                stripe_unit_bytes: 524_288,
                data_disks: None,
                source: "acme.toml".into(),
            }],
        };
        let r = run_rule(&RAID_STRIPE_UNIT, snapshot, declared, &[]);
        assert!(r.not_evaluated.is_empty(), "{:?}", r.not_evaluated);
        assert_eq!(r.findings.len(), 1);
        assert!(r.findings[0].message.contains("(declared in acme.toml)"), "{}", r.findings[0].message);
        let r = run_rule(&RAID_STRIPE_UNIT, snapshot, Declarations::default(), &[]);
        assert_eq!(r.not_evaluated.len(), 1, "without a declaration the unit is unknown");
    }
}
