//! The physical disks that serve a volume, through virtual disks, RAID sets and partitions.

use std::borrow::Cow;
use std::collections::BTreeSet;

use crate::facts::*;

use super::host::HostView;
use super::index::position_of;

impl HostView {
    /// The disks whose spindles (or flash) serve a volume: the pool's physical disks under a
    /// virtual disk, a RAID set's members, or the disks of its partitions. `None` when the
    /// backing is not known.
    ///
    /// Borrowed from the view's memo when `v` is one of its own volumes, as rules pass them.
    pub fn physical_disks_of_volume(&self, v: &Volume) -> Option<Cow<'_, BTreeSet<String>>> {
        let volumes = self.volumes.as_deref().unwrap_or_default();
        let Some(i) = position_of(volumes, v) else {
            return self.find_physical_disks(v).map(Cow::Owned);
        };
        let memo = self
            .memo
            .volume_disks
            .get_or_init(|| volumes.iter().map(|l| self.find_physical_disks(&l.item)).collect());
        memo[i].as_ref().map(Cow::Borrowed)
    }

    /// [`HostView::physical_disks_of_volume`], worked out.
    fn find_physical_disks(&self, v: &Volume) -> Option<BTreeSet<String>> {
        let mut out = BTreeSet::new();
        match v.backed_by.as_ref()? {
            Backing::VirtualDisk(id) => self.expand_virtual_disk(id, &mut out)?,
            Backing::RaidSet(id) => self.expand_raid(id, &mut out)?,
            Backing::Lvm { devices, .. } if !devices.is_empty() => {
                for d in devices {
                    self.expand_device(d, &mut out);
                }
            }
            Backing::Lvm { .. } => return None,
            Backing::Partitions(ids) => {
                for id in ids {
                    let p = self.partition(id)?;
                    self.expand_device(&p.item.disk_id, &mut out);
                }
            }
        }
        Some(out)
    }

    fn expand_device(&self, id: &str, out: &mut BTreeSet<String>) {
        let disk_id = self.partition(id).map_or(id, |p| p.item.disk_id.as_str());
        match self.disk(disk_id).and_then(|d| d.item.backed_by.as_ref()) {
            Some(Backing::VirtualDisk(vd)) if self.expand_virtual_disk(vd, out).is_some() => {}
            Some(Backing::RaidSet(r)) if self.expand_raid(r, out).is_some() => {}
            _ => {
                out.insert(disk_id.to_string());
            }
        }
    }

    fn expand_virtual_disk(&self, id: &str, out: &mut BTreeSet<String>) -> Option<()> {
        let vd = &self.virtual_disks.as_ref()?[self.virtual_disk_index(id)?].item;
        let pool = self.pool(&vd.pool_id)?;
        out.extend(pool.item.physical_disk_ids.clone()?);
        Some(())
    }

    fn expand_raid(&self, id: &str, out: &mut BTreeSet<String>) -> Option<()> {
        let r = &self.raid_sets.as_ref()?[self.raid_set_index(id)?].item;
        for m in r.member_ids.as_ref()? {
            // md members are often partitions; count the disk they live on.
            out.insert(self.partition(m).map_or(m.clone(), |p| p.item.disk_id.clone()));
        }
        Some(())
    }
}
