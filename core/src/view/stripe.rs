//! The stripe geometry under a disk, partition or volume, and whether nothing under one is striped.

use crate::facts::*;

use super::host::HostView;
use super::located::Located;

/// Where a stripe unit comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StripeSource {
    /// A Storage Spaces virtual disk (its interleave), by index into `virtual_disks`.
    VirtualDisk(usize),
    /// A RAID set (its stripe unit), by index into `raid_sets`.
    RaidSet(usize),
    /// A Windows dynamic-disk striped set whose stripe unit was not collected: the fixed 64 KiB
    /// every such set uses ([`RaidSet::stripe_unit`]), by index into `raid_sets`.
    DynamicDisk(usize),
    /// An LVM logical volume's striping.
    Lvm(String),
    /// Declared in a rule pack (the pack's path).
    Declared(String),
}

/// The stripe geometry under a volume or partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stripe {
    pub unit_bytes: u64,
    /// Disks a stripe spans (columns, data disks), when known.
    pub width: Option<u32>,
    pub source: StripeSource,
}

/// How many layers of storage (a volume on an LVM volume on an md array on partitions...) the
/// stripe joins follow: real stacks are three or four deep.
const MAX_LAYERS: usize = 8;

impl HostView {
    /// The stripe geometry under a disk: the virtual disk or RAID set exposing it, else a
    /// declaration in a pack.
    pub fn stripe_of_disk(&self, disk: &Located<Disk>) -> Option<Stripe> {
        self.stripe_of_disk_at(disk, 0)
    }

    fn stripe_of_disk_at(&self, disk: &Located<Disk>, depth: usize) -> Option<Stripe> {
        if let Some(b) = &disk.item.backed_by
            && let Some(s) = self.stripe_of_backing(b, depth)
        {
            return Some(s);
        }
        self.declared_stripe(&[&disk.key, &disk.label])
    }

    /// The stripe geometry under a partition (that of its disk).
    pub fn stripe_of_partition(&self, p: &Located<Partition>) -> Option<Stripe> {
        self.stripe_of_partition_at(p, 0)
    }

    fn stripe_of_partition_at(&self, p: &Located<Partition>, depth: usize) -> Option<Stripe> {
        let from_disk = self.disk(&p.item.disk_id).and_then(|d| self.stripe_of_disk_at(d, depth));
        from_disk.or_else(|| self.declared_stripe(&[&p.key, &p.label]))
    }

    /// The stripe geometry under a volume.
    pub fn stripe_of_volume(&self, v: &Located<Volume>) -> Option<Stripe> {
        if let Some(b) = &v.item.backed_by {
            if let Some(s) = self.stripe_of_backing(b, 0) {
                return Some(s);
            }
            for p in self.partitions_of_volume(&v.item) {
                if let Some(s) = self.stripe_of_partition(p) {
                    return Some(s);
                }
            }
        } else if let Some(d) = self.whole_disk_of_volume(&v.item)
            && let Some(s) = self.stripe_of_disk(d)
        {
            return Some(s);
        }
        self.declared_stripe(&[&v.key, &v.label])
    }

    /// The stripe geometry a backing gives, `depth` layers down from what asked. Layers are
    /// followed at most [`MAX_LAYERS`] deep: a snapshot is untrusted, and one whose disk is
    /// built on its own partition (or an LVM volume on itself) must not recurse for ever.
    fn stripe_of_backing(&self, b: &Backing, depth: usize) -> Option<Stripe> {
        if depth >= MAX_LAYERS {
            return None;
        }
        let depth = depth + 1;
        match b {
            Backing::VirtualDisk(id) => {
                let i = self.virtual_disk_index(id)?;
                let vd = &self.virtual_disks.as_ref()?[i].item;
                Some(Stripe {
                    unit_bytes: vd.interleave_bytes?,
                    width: vd.columns,
                    source: StripeSource::VirtualDisk(i),
                })
            }
            Backing::RaidSet(id) => {
                let i = self.raid_set_index(id)?;
                let r = &self.raid_sets.as_ref()?[i].item;
                let width = r.member_ids.as_ref().map(|m| data_disks(r.level.as_deref(), m.len() as u32));
                let (unit_bytes, fixed) = r.stripe_unit()?;
                let source = if fixed { StripeSource::DynamicDisk(i) } else { StripeSource::RaidSet(i) };
                Some(Stripe { unit_bytes, width, source })
            }
            // A linear logical volume writes each extent to one device: the stripes that matter
            // are those under its devices (an md array, a RAID logical drive).
            Backing::Lvm { devices, stripes: Some(1), stripe_unit_bytes: None, .. } => {
                devices.iter().find_map(|id| self.stripe_of_device(id, depth))
            }
            Backing::Lvm { name, stripes, stripe_unit_bytes, .. } => Some(Stripe {
                unit_bytes: (*stripe_unit_bytes)?,
                width: *stripes,
                source: StripeSource::Lvm(name.clone()),
            }),
            Backing::Partitions(ids) => ids
                .iter()
                .filter_map(|id| self.partition(id))
                .find_map(|p| self.disk(&p.item.disk_id).and_then(|d| self.stripe_of_disk_at(d, depth))),
        }
    }

    /// The stripe geometry under a device an LVM volume names: a partition's, else a disk's.
    fn stripe_of_device(&self, id: &str, depth: usize) -> Option<Stripe> {
        match self.partition(id) {
            Some(p) => self.stripe_of_partition_at(p, depth),
            None => self.disk(id).and_then(|d| self.stripe_of_disk_at(d, depth)),
        }
    }

    fn declared_stripe(&self, names: &[&str]) -> Option<Stripe> {
        let d = self.declared.stripes.iter().find(|d| names.iter().any(|n| d.entity.matches(n)))?;
        Some(Stripe {
            unit_bytes: d.stripe_unit_bytes,
            width: d.data_disks,
            source: StripeSource::Declared(d.source.clone()),
        })
    }

    /// Whether nothing under a disk is striped, so stripe-unit alignment does not apply: a disk
    /// exposed by a RAID 1 mirror, or a drive attached on a bus no array hides behind (SATA,
    /// NVMe, USB). A SAS, SCSI, RAID, iSCSI or Fibre Channel disk may be an array's logical
    /// drive or a SAN LUN, so it is never assumed unstriped.
    pub fn disk_is_unstriped(&self, d: &Disk) -> bool {
        match &d.backed_by {
            Some(Backing::RaidSet(id)) => self.raid_is_unstriped(id),
            Some(_) => false,
            None => d.bus.as_deref().is_some_and(|b| {
                let b = b.to_ascii_lowercase();
                ["sata", "ata", "atapi", "nvme", "usb", "sd", "mmc"].contains(&b.as_str())
            }),
        }
    }

    /// Whether nothing under a volume is striped (see [`HostView::disk_is_unstriped`]): also
    /// a linear LVM volume whose devices are all unstriped.
    pub fn volume_is_unstriped(&self, v: &Volume) -> bool {
        match &v.backed_by {
            Some(Backing::RaidSet(id)) => self.raid_is_unstriped(id),
            Some(Backing::Lvm { devices, stripes: Some(1), .. }) => {
                !devices.is_empty()
                    && devices.iter().all(|id| {
                        let disk = self.partition(id).map_or(id.as_str(), |p| p.item.disk_id.as_str());
                        self.disk(disk).is_some_and(|d| self.disk_is_unstriped(d))
                    })
            }
            Some(Backing::Partitions(_)) => {
                let parts = self.partitions_of_volume(v);
                !parts.is_empty()
                    && parts
                        .iter()
                        .all(|p| self.disk(&p.item.disk_id).is_some_and(|d| self.disk_is_unstriped(d)))
            }
            None => self.whole_disk_of_volume(v).is_some_and(|d| self.disk_is_unstriped(d)),
            _ => false,
        }
    }

    /// Whether a RAID set writes without striping: a mirror, a linear or spanned set.
    fn raid_is_unstriped(&self, id: &str) -> bool {
        self.raid_set_index(id)
            .and_then(|i| self.raid_sets.as_ref()?.get(i))
            .is_some_and(|r| !r.item.is_striped())
    }
}

/// Data disks of a RAID set: members less parity (RAID 5: one, RAID 6: two) or mirrors.
fn data_disks(level: Option<&str>, members: u32) -> u32 {
    let level = level.unwrap_or("").to_ascii_lowercase().replace(['-', ' '], "");
    match level.as_str() {
        "raid5" | "5" | "raid4" | "4" => members.saturating_sub(1).max(1),
        "raid6" | "6" => members.saturating_sub(2).max(1),
        "raid1" | "1" => 1,
        "raid10" | "10" | "raid1+0" => (members / 2).max(1),
        _ => members.max(1),
    }
}
