//! Entities by id, by kind: the lookups every rule starts from.

use crate::facts::*;

use super::host::HostView;
use super::index::{position_by_id, position_of};
use super::located::{DatabaseView, Located};

impl HostView {
    pub fn host_name(&self) -> &str {
        &self.host.key
    }

    pub fn disk(&self, id: &str) -> Option<&Located<Disk>> {
        let i = position_by_id(&self.disks, &self.memo.disk_ids, id, |d| &d.id)?;
        self.disks.as_ref()?.get(i)
    }

    pub fn partition(&self, id: &str) -> Option<&Located<Partition>> {
        let i = position_by_id(&self.partitions, &self.memo.partition_ids, id, |p| &p.id)?;
        self.partitions.as_ref()?.get(i)
    }

    pub fn volume(&self, id: &str) -> Option<&Located<Volume>> {
        let i = *self.volume_ids.get(&norm_volume_id(id))?;
        self.volumes.as_ref()?.get(i)
    }

    pub fn pool(&self, id: &str) -> Option<&Located<StoragePool>> {
        let i = position_by_id(&self.storage_pools, &self.memo.pool_ids, id, |p| &p.id)?;
        self.storage_pools.as_ref()?.get(i)
    }

    pub fn virtual_disk_index(&self, id: &str) -> Option<usize> {
        position_by_id(&self.virtual_disks, &self.memo.virtual_disk_ids, id, |x| &x.id)
    }

    pub fn raid_set_index(&self, id: &str) -> Option<usize> {
        position_by_id(&self.raid_sets, &self.memo.raid_set_ids, id, |x| &x.id)
    }

    /// Where `v` is in `volumes`, when it is one of the view's own volumes (found by address).
    pub fn volume_index(&self, v: &Volume) -> Option<usize> {
        position_of(self.volumes.as_deref()?, v)
    }

    /// The databases of the instance at `instance` in `instances`.
    pub fn databases_of(&self, instance: usize) -> &[DatabaseView] {
        self.instance_databases.get(instance).and_then(|r| self.databases.get(r.clone())).unwrap_or_default()
    }

    /// All database files with their database, in snapshot order.
    pub fn files(&self) -> impl Iterator<Item = (&DatabaseView, &Located<DbFile>)> {
        self.databases.iter().flat_map(|d| d.files.iter().flatten().map(move |f| (d, f)))
    }

    /// Whether any SQL Server database file facts were collected.
    pub fn has_files(&self) -> bool {
        self.databases.iter().any(|d| d.files.is_some())
    }
}
