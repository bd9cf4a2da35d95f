//! Shared by ALN002 and ALN003: naming the stripe unit a finding used, and explaining why no
//! stripe unit is known (with the pack declaration that would provide one).

use spindle_core::facts::{Backing, CloudProvider, Disk, RaidKind};
use spindle_core::units;
use spindle_core::view::{HostView, Stripe, StripeSource};

use crate::commands::{dev_path, ps_string, sh_word};

/// `the 256 KiB interleave of virtual disk SQLData`, `the 64 KiB stripe unit of RAID set array-a`,
/// `the 256 KiB stripe unit (declared in packs/san.toml)`.
pub(super) fn describe(view: &HostView, s: &Stripe) -> String {
    let size = units::binary(s.unit_bytes);
    match &s.source {
        StripeSource::VirtualDisk(i) => {
            let name = view
                .virtual_disks
                .as_ref()
                .and_then(|v| v.get(*i))
                .map_or_else(String::new, |vd| vd.name.clone().unwrap_or_else(|| vd.id.clone()));
            format!("the {size} interleave of virtual disk {name}")
        }
        StripeSource::RaidSet(i) => {
            let id = view.raid_sets.as_ref().and_then(|r| r.get(*i)).map_or("", |r| r.id.as_str());
            format!("the {size} stripe unit of RAID set {id}")
        }
        StripeSource::DynamicDisk(i) => {
            let id = view.raid_sets.as_ref().and_then(|r| r.get(*i)).map_or("", |r| r.id.as_str());
            format!("the fixed {size} stripe unit of dynamic-disk striped set {id}")
        }
        StripeSource::Lvm(name) => format!("the {size} stripe unit of LVM volume {name}"),
        StripeSource::Declared(pack) => format!("the {size} stripe unit (declared in {pack})"),
    }
}

/// Why no stripe unit is known for something built on `backing` (a disk's or a volume's), as
/// `(missing fact, reason)`. The reason ends with the pack declaration for `entity_key`.
pub(super) fn unknown(view: &HostView, backing: Option<&Backing>, entity_key: &str) -> (String, String) {
    let (missing, why) = match backing {
        Some(Backing::VirtualDisk(id)) => {
            match view.virtual_disk_index(id).and_then(|i| view.virtual_disks.as_ref()?.get(i)) {
                Some(vd) => (
                    "interleave_bytes",
                    format!(
                        "the interleave of virtual disk {} was not collected",
                        vd.name.as_deref().unwrap_or(id)
                    ),
                ),
                None => ("virtual_disks", format!("virtual disk {id} is not in the snapshot")),
            }
        }
        Some(Backing::RaidSet(id)) => match view.raid_set_index(id) {
            Some(_) => ("stripe_unit_bytes", format!("the stripe unit of RAID set {id} was not collected")),
            None => ("raid_sets", format!("RAID set {id} is not in the snapshot")),
        },
        Some(Backing::Lvm { name, stripes: Some(1), .. }) => (
            "stripe_unit_bytes",
            format!(
                "LVM volume {name} is linear, and the snapshot shows no stripe unit under its devices (a SAN \
                 LUN or a hardware RAID logical drive hides it from the operating system)"
            ),
        ),
        Some(Backing::Lvm { name, .. }) => {
            ("stripe_unit_bytes", format!("the stripe unit of LVM volume {name} was not collected"))
        }
        Some(Backing::Partitions(_)) | None => (
            "stripe_unit_bytes",
            "the stripe unit is unknown: the snapshot shows no Storage Spaces virtual disk, RAID set or \
             LVM volume under it, and a SAN LUN or a hardware RAID logical drive hides its stripe unit \
             from the operating system"
                .to_string(),
        ),
    };
    (missing.to_string(), format!("{why}; {}", declare_hint(entity_key, &reveal(view, backing))))
}

/// Why no stripe unit can ever be known under `d`, when none can: a disk built on nothing the
/// snapshot shows (no RAID set, virtual disk or LVM volume) that is a virtio disk or a cloud
/// provider's disk. The platform spreads such a disk over its own storage out of the guest's
/// sight: no collector or controller tool inside reads a stripe unit, and there is none to
/// declare, so the check is not applicable rather than waiting for a fact that cannot come.
pub(super) fn unknowable(view: &HostView, d: &Disk) -> Option<String> {
    if d.backed_by.is_some() {
        return None;
    }
    if d.bus.as_deref().is_some_and(|b| b.eq_ignore_ascii_case("virtio")) {
        return Some(
            "a virtio disk: the hypervisor's storage under it shows the guest no RAID stripe, so there is \
             no stripe unit to report or declare"
                .into(),
        );
    }
    let cloud = match view.host.cloud_provider? {
        CloudProvider::Azure => "an Azure",
        CloudProvider::Aws => "an AWS",
        CloudProvider::Gcp => "a Google Cloud",
        CloudProvider::Other => "a cloud provider's",
        CloudProvider::None => return None,
    };
    Some(format!(
        "{cloud} disk: the platform's storage under it shows the guest no RAID stripe, so there is no \
         stripe unit to report or declare"
    ))
}

/// What shows the stripe unit of something built on `backing`, for the declare hint: the tool
/// that reads it where the operating system cannot.
pub(super) fn reveal(view: &HostView, backing: Option<&Backing>) -> String {
    const CONTROLLER: &str = "the RAID controller's CLI (Dell/Broadcom `perccli /c0/vall show all` or \
                              `storcli /c0/vall show all`: Strip Size; HPE `ssacli ctrl all show config detail`: \
                              Strip Size)";
    match backing {
        Some(Backing::VirtualDisk(id)) => {
            let name = view
                .virtual_disk_index(id)
                .and_then(|i| view.virtual_disks.as_ref()?.get(i))
                .and_then(|vd| vd.name.clone())
                .unwrap_or_else(|| id.clone());
            format!(
                "`Get-VirtualDisk -FriendlyName {} | Format-List Interleave, NumberOfColumns` (Interleave)",
                ps_string(&name)
            )
        }
        Some(Backing::RaidSet(id)) => {
            let md =
                view.raid_set_index(id).and_then(|i| view.raid_sets.as_ref()?.get(i)).and_then(|r| r.kind)
                    == Some(RaidKind::Md);
            if md {
                format!("`mdadm --detail {}` (Chunk Size)", sh_word(&dev_path(id)))
            } else {
                CONTROLLER.to_string()
            }
        }
        Some(Backing::Lvm { name, .. }) => format!("`lvs -o +stripes,stripe_size {}`", sh_word(name)),
        Some(Backing::Partitions(_)) | None => {
            format!("the SAN array's management console (the LUN's stripe or segment size) or {CONTROLLER}")
        }
    }
}

/// How to declare a stripe unit in a rule pack for `entity_key`: the TOML entry to paste, whose
/// placeholder `reveal` (the tool that shows the value) replaces.
pub(super) fn declare_hint(entity_key: &str, reveal: &str) -> String {
    format!(
        "declare it in a rule pack (`entity` is a glob on the entity key or label):\n{}",
        spindle_core::declare::stripe_unit_hint(entity_key, reveal)
    )
}

/// `a ÷ b` with at most three decimals: `0.492`, `0.25`, `8`.
pub(super) fn ratio(a: u64, b: u64) -> String {
    let s = spindle_core::units::fixed(a as f64 / b as f64, 3);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::ratio;

    #[test]
    fn ratios() {
        assert_eq!(ratio(32_256, 65_536), "0.492");
        assert_eq!(ratio(65_536, 262_144), "0.25");
        assert_eq!(ratio(2_097_152, 262_144), "8");
        assert_eq!(ratio(98_304, 65_536), "1.5");
        assert_eq!(ratio(16_384, 65_536), "0.25");
    }
}
