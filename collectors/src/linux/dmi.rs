//! Virtual machine and cloud detection from DMI (`/sys/class/dmi/id/`, drivers/firmware/dmi-id.c;
//! a file exists only when the firmware supplies the value) and the CPU's `hypervisor` flag.
//!
//! - Azure: `chassis_asset_tag` = `7783-7084-3265-9085-8269-3286-77` (MicrosoftDocs azure-docs,
//!   troubleshoot/update-agent-issues-linux.md). `Microsoft Corporation` / `Virtual Machine`
//!   without that tag is plain Hyper-V, a VM but not Azure.
//! - AWS: `sys_vendor` `Amazon EC2` (Nitro; `product_name` is the instance type, `*.metal` for
//!   bare metal), `board_asset_tag` an instance id `i-…` (Nitro), `bios_version` containing
//!   `amazon` (Xen instances).
//! - GCP: `bios_vendor` containing `Google`, `product_name` `Google Compute Engine`,
//!   `sys_vendor` `Google`.
//!
//! `is_virtual`: `true` when the x86 CPU reports the `hypervisor` flag in `/proc/cpuinfo` (CPUID
//! leaf 1, ECX bit 31, which hypervisors set) or DMI names a hypervisor vendor; `false` when
//! `/proc/cpuinfo` lists CPU flags without `hypervisor` and DMI names none; otherwise not
//! collected (a CPU that reports no flags, as on most non-x86 machines, tells nothing).
//! `cloud_provider`: from the signals above; `none` for a machine known to be bare metal with no
//! cloud signal; not collected for a virtual machine no signal places in a known cloud.

use std::path::Path;

use spindle_core::facts::CloudProvider;

use super::read;
use crate::notes::Uncollected;

pub const AZURE_ASSET_TAG: &str = "7783-7084-3265-9085-8269-3286-77";

/// The DMI strings this module looks at; `None` where the file is absent or unreadable.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dmi {
    pub sys_vendor: Option<String>,
    pub product_name: Option<String>,
    pub bios_vendor: Option<String>,
    pub bios_version: Option<String>,
    pub chassis_asset_tag: Option<String>,
    pub board_asset_tag: Option<String>,
}

impl Dmi {
    /// Reads `root/sys/class/dmi/id`; `None` when the directory does not exist.
    pub fn read(root: &Path) -> Option<Dmi> {
        let dir = root.join("sys/class/dmi/id");
        if !dir.is_dir() {
            return None;
        }
        let get = |f: &str| read::text(&dir.join(f)).ok().filter(|s| !s.is_empty());
        Some(Dmi {
            sys_vendor: get("sys_vendor"),
            product_name: get("product_name"),
            bios_vendor: get("bios_vendor"),
            bios_version: get("bios_version"),
            chassis_asset_tag: get("chassis_asset_tag"),
            board_asset_tag: get("board_asset_tag"),
        })
    }

    fn has(v: &Option<String>, needle: &str) -> bool {
        v.as_deref().is_some_and(|s| s.to_ascii_lowercase().contains(&needle.to_ascii_lowercase()))
    }

    /// The cloud the DMI strings name, if any.
    pub fn cloud(&self) -> Option<CloudProvider> {
        if self.chassis_asset_tag.as_deref() == Some(AZURE_ASSET_TAG) {
            return Some(CloudProvider::Azure);
        }
        if self.sys_vendor.as_deref() == Some("Amazon EC2")
            || self.board_asset_tag.as_deref().is_some_and(|t| t.starts_with("i-"))
            || Dmi::has(&self.bios_version, "amazon")
        {
            return Some(CloudProvider::Aws);
        }
        if Dmi::has(&self.bios_vendor, "google")
            || self.product_name.as_deref() == Some("Google Compute Engine")
            || self.sys_vendor.as_deref() == Some("Google")
        {
            return Some(CloudProvider::Gcp);
        }
        None
    }

    /// Whether DMI names a hypervisor (`Some(true)`), bare metal in a cloud (`Some(false)`: AWS
    /// `*.metal`), or nothing either way (`None`).
    pub fn virtual_hint(&self) -> Option<bool> {
        if self.sys_vendor.as_deref() == Some("Amazon EC2") {
            return Some(!self.product_name.as_deref().is_some_and(|p| p.ends_with(".metal")));
        }
        let vm = ["qemu", "kvm", "vmware", "virtualbox", "innotek", "xen", "bochs", "parallels", "bhyve"];
        let named = |v: &Option<String>| vm.iter().any(|n| Dmi::has(v, n));
        if named(&self.sys_vendor)
            || named(&self.product_name)
            || named(&self.bios_vendor)
            || (Dmi::has(&self.sys_vendor, "microsoft corporation")
                && self.product_name.as_deref() == Some("Virtual Machine"))
            || self.product_name.as_deref() == Some("Google Compute Engine")
            || self.chassis_asset_tag.as_deref() == Some(AZURE_ASSET_TAG)
        {
            return Some(true);
        }
        None
    }
}

/// The `hypervisor` CPU flag: `Some(true)`/`Some(false)` when `/proc/cpuinfo` lists x86 flags,
/// `None` when it lists none.
pub fn cpu_hypervisor_flag(cpuinfo: &str) -> Option<bool> {
    let flags = cpuinfo.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == "flags").then_some(v)
    })?;
    Some(flags.split_whitespace().any(|f| f == "hypervisor"))
}

/// `is_virtual` and `cloud_provider` for the host, recording what could not be decided.
pub(crate) fn virtual_and_cloud(
    root: &Path,
    notes: &mut Uncollected,
) -> (Option<bool>, Option<CloudProvider>) {
    let dmi = Dmi::read(root);
    let flag = read::text(&root.join("proc/cpuinfo")).ok().and_then(|c| cpu_hypervisor_flag(&c));
    let dmi_hint = dmi.as_ref().and_then(Dmi::virtual_hint);
    let is_virtual = match (dmi_hint, flag) {
        // AWS bare metal: DMI says metal even though nothing else would.
        (Some(false), _) => Some(false),
        (Some(true), _) | (_, Some(true)) => Some(true),
        (None, Some(false)) => Some(false),
        (None, None) => None,
    };
    if is_virtual.is_none() {
        notes.miss(
            "host.is_virtual",
            "DMI names no hypervisor and /proc/cpuinfo lists no CPU flags (no x86 hypervisor flag to read)",
        );
    }
    let cloud = match dmi.as_ref().and_then(Dmi::cloud) {
        Some(c) => Some(c),
        None if is_virtual == Some(false) => Some(CloudProvider::None),
        None => {
            let reason = match &dmi {
                None => "no /sys/class/dmi/id on this host: the firmware exposes no DMI strings".to_string(),
                Some(d) => format!(
                    "DMI names no known cloud (sys_vendor {:?}, product_name {:?}, chassis_asset_tag {:?})",
                    d.sys_vendor.as_deref().unwrap_or(""),
                    d.product_name.as_deref().unwrap_or(""),
                    d.chassis_asset_tag.as_deref().unwrap_or("")
                ),
            };
            notes.miss("host.cloud_provider", reason);
            None
        }
    };
    (is_virtual, cloud)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dmi(vendor: &str, product: &str, tag: &str) -> Dmi {
        let s = |v: &str| (!v.is_empty()).then(|| v.to_string());
        Dmi { sys_vendor: s(vendor), product_name: s(product), chassis_asset_tag: s(tag), ..Dmi::default() }
    }

    #[test]
    fn clouds() {
        let azure = dmi("Microsoft Corporation", "Virtual Machine", AZURE_ASSET_TAG);
        assert_eq!((azure.cloud(), azure.virtual_hint()), (Some(CloudProvider::Azure), Some(true)));
        let hyperv = dmi("Microsoft Corporation", "Virtual Machine", "");
        assert_eq!((hyperv.cloud(), hyperv.virtual_hint()), (None, Some(true)));
        let ec2 = dmi("Amazon EC2", "m5.xlarge", "");
        assert_eq!((ec2.cloud(), ec2.virtual_hint()), (Some(CloudProvider::Aws), Some(true)));
        let metal = dmi("Amazon EC2", "i3.metal", "");
        assert_eq!((metal.cloud(), metal.virtual_hint()), (Some(CloudProvider::Aws), Some(false)));
        let gce = dmi("Google", "Google Compute Engine", "");
        assert_eq!(gce.cloud(), Some(CloudProvider::Gcp));
        let dell = dmi("Dell Inc.", "PowerEdge R750", "");
        assert_eq!((dell.cloud(), dell.virtual_hint()), (None, None));
        let kvm = dmi("QEMU", "Standard PC (Q35 + ICH9, 2009)", "");
        assert_eq!((kvm.cloud(), kvm.virtual_hint()), (None, Some(true)));
    }

    #[test]
    fn hypervisor_flag() {
        assert_eq!(
            cpu_hypervisor_flag("processor\t: 0\nflags\t\t: fpu vme hypervisor lahf_lm\n"),
            Some(true)
        );
        assert_eq!(cpu_hypervisor_flag("flags\t\t: fpu vme lahf_lm\n"), Some(false));
        assert_eq!(cpu_hypervisor_flag("processor\t: 0\nFeatures\t: fp asimd\n"), None);
    }
}
