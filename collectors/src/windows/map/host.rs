//! The host's name, operating system, size, and whether it is a virtual machine and in which
//! cloud, from `Win32_ComputerSystem`, `Win32_OperatingSystem` and `Win32_SystemEnclosure`.

use spindle_core::facts::{CloudProvider, Host, OsFamily};

use super::values::nonempty;
use crate::notes::Uncollected;
use crate::windows::rows::*;

/// Azure's chassis asset tag (`Win32_SystemEnclosure.SMBIOSAssetTag`, DMI chassis_asset_tag).
const AZURE_ASSET_TAG: &str = "7783-7084-3265-9085-8269-3286-77";

pub(super) fn host(rows: &WmiRows, notes: &mut Uncollected) -> Host {
    let cs = rows.computer_system.rows().first();
    let os = rows.operating_system.rows().first();
    if let Some(e) = rows.computer_system.error() {
        notes.miss("host.cpu_count", format!("Win32_ComputerSystem: {e}"));
        notes.miss("host.memory_bytes", format!("Win32_ComputerSystem: {e}"));
        notes.miss("host.is_virtual", format!("Win32_ComputerSystem: {e}"));
    }
    if let Some(e) = rows.operating_system.error() {
        notes.miss("host.os_version", format!("Win32_OperatingSystem: {e}"));
    }
    let name =
        nonempty(&rows.computer_name).or_else(|| cs.and_then(|c| nonempty(&c.name))).unwrap_or_default();
    let os_version = os.and_then(|o| nonempty(&o.caption)).map(|caption| {
        let caption = os_caption(&caption);
        match os.and_then(|o| nonempty(&o.csd_version)) {
            Some(sp) => format!("{caption} {}", sp.replace("Service Pack ", "SP")),
            None => caption,
        }
    });
    let tag = rows.system_enclosure.rows().iter().find_map(|e| nonempty(&e.smbios_asset_tag));
    let (is_virtual, cloud_provider) = match cs {
        Some(c) => classify(c.manufacturer.as_deref(), c.model.as_deref(), tag.as_deref(), notes),
        None => (None, None),
    };
    Host {
        name,
        os_family: Some(OsFamily::Windows),
        os_version,
        cpu_count: cs.and_then(|c| c.number_of_logical_processors).filter(|n| *n > 0),
        memory_bytes: cs.and_then(|c| c.total_physical_memory).filter(|n| *n > 0),
        is_virtual,
        cloud_provider,
    }
}

/// `Win32_OperatingSystem.Caption` as people write it: `Microsoft Windows Server 2012 R2
/// Datacenter` → `Windows Server 2012 R2 Datacenter`, and 2003's `Microsoft(R) Windows(R)
/// Server 2003, Enterprise x64 Edition` → `Windows Server 2003 Enterprise x64 Edition`.
fn os_caption(caption: &str) -> String {
    let plain = caption.replace("(R)", "").replace(['®', '™', ','], "");
    let words: Vec<&str> = plain.split_whitespace().collect();
    let words = if words.first() == Some(&"Microsoft") { &words[1..] } else { &words[..] };
    words.join(" ")
}

/// Virtual machine and cloud from `Win32_ComputerSystem.Manufacturer` / `Model` and the
/// chassis asset tag. Only the asset tag proves Azure: a Hyper-V guest without it may be on
/// premises or not, and its cloud stays unknown.
///
/// A machine whose manufacturer and model match no hypervisor or cloud signature (Hyper-V,
/// VMware, Xen, QEMU/KVM, VirtualBox, Parallels, EC2, GCE) counts as bare metal on premises.
fn classify(
    manufacturer: Option<&str>,
    model_name: Option<&str>,
    tag: Option<&str>,
    notes: &mut Uncollected,
) -> (Option<bool>, Option<CloudProvider>) {
    let man = manufacturer.unwrap_or("").trim().to_ascii_lowercase();
    let model = model_name.unwrap_or("").trim().to_ascii_lowercase();
    if tag.map(str::trim) == Some(AZURE_ASSET_TAG) {
        return (Some(true), Some(CloudProvider::Azure));
    }
    if man.contains("amazon ec2") {
        // Nitro bare-metal instances report the instance type (`c5.metal`) as the model.
        return (Some(!model.ends_with(".metal")), Some(CloudProvider::Aws));
    }
    if man.starts_with("google") || model.contains("google compute engine") {
        return (Some(true), Some(CloudProvider::Gcp));
    }
    let hypervisor = (man == "microsoft corporation" && model.contains("virtual machine"))
        || man.contains("vmware")
        || model.contains("vmware")
        || man.contains("xen")
        || man.contains("qemu")
        || model.contains("kvm")
        || model.contains("virtualbox")
        || man.contains("innotek")
        || man.contains("parallels")
        || model.contains("bochs");
    if hypervisor {
        notes.miss(
            "host.cloud_provider",
            format!(
                "a virtual machine ({} {}) without a cloud's chassis asset tag or manufacturer: \
                 on premises or in a cloud cannot be told apart",
                manufacturer.unwrap_or("?").trim(),
                model_name.unwrap_or("?").trim()
            ),
        );
        return (Some(true), None);
    }
    if man.is_empty() && model.is_empty() {
        notes.miss("host.is_virtual", "Win32_ComputerSystem reports no Manufacturer or Model");
        return (None, None);
    }
    (Some(false), Some(CloudProvider::None))
}
