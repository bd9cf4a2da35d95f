//! The storage namespace's rows indexed once by the keys they join on, so that each entity
//! kind's mapping reads its links instead of rebuilding them: a disk's physical drive and storage
//! space, a pool's drives, a virtual disk's pool, a partition's disk and a volume's partitions.

use std::collections::{HashMap, HashSet};

use spindle_core::facts::norm_volume_id;

use super::BUS_STORAGE_SPACES;
use super::values::{first_nonempty, nonempty, volume_guid_path};
use crate::windows::rows::*;

pub(super) struct Joins<'r> {
    /// `MSFT_Disk` rows by disk number.
    pub disks: Vec<&'r MsftDisk>,
    /// Per disk (same order): the id it has in the facts.
    pub disk_ids: Vec<String>,
    /// Per disk (same order): the virtual disk behind it and its physical drive.
    pub vd_of_disk: Vec<Option<usize>>,
    pub pd_of_disk: Vec<Option<usize>>,
    disk_id_by_oid: HashMap<String, String>,
    disk_id_by_number: HashMap<u32, String>,
    /// A physical drive's id: the id of the disk it is, else its own.
    pub pd_ids: Vec<String>,
    /// Physical drives that are one of the disks.
    pub pd_is_disk: HashSet<usize>,
    /// The concrete (not primordial) pools, and their (pool, physical drive) members.
    pub pools: Vec<&'r MsftStoragePool>,
    pool_members: Vec<(usize, usize)>,
    /// Per `MSFT_VirtualDisk` row: its id in the facts, and its concrete pool.
    pub vd_ids: Vec<String>,
    pool_of_vd: HashMap<usize, usize>,
    /// Per `MSFT_Partition` row: its id in the facts.
    pub part_ids: Vec<String>,
    parts_of_vol_oid: HashMap<String, Vec<usize>>,
    parts_of_vol_path: HashMap<String, Vec<usize>>,
}

impl<'r> Joins<'r> {
    pub fn new(rows: &'r WmiRows) -> Self {
        let pds = rows.physical_disks.rows();
        let vds = rows.virtual_disks.rows();
        let pd_by_oid = index_by(pds, |p| p.object_id.as_deref());
        let vd_by_oid = index_by(vds, |v| v.object_id.as_deref());
        let pools: Vec<&MsftStoragePool> =
            rows.storage_pools.rows().iter().filter(|p| p.is_primordial != Some(true)).collect();
        let pool_by_oid: HashMap<String, usize> =
            pools.iter().enumerate().filter_map(|(i, p)| Some((p.object_id.clone()?, i))).collect();
        let pool_members: Vec<(usize, usize)> = linked(
            rows.pool_to_physical_disk.rows(),
            |a| (&a.storage_pool, &a.physical_disk),
            &pool_by_oid,
            &pd_by_oid,
        )
        .collect();
        let pool_of_vd: HashMap<usize, usize> = linked(
            rows.pool_to_virtual_disk.rows(),
            |a| (&a.virtual_disk, &a.storage_pool),
            &vd_by_oid,
            &pool_by_oid,
        )
        .collect();
        let vd_of_disk_oid: HashMap<String, usize> = rows
            .virtual_disk_to_disk
            .rows()
            .iter()
            .filter_map(|a| {
                Some((ref_key(&a.disk, "ObjectId")?, *vd_by_oid.get(&ref_key(&a.virtual_disk, "ObjectId")?)?))
            })
            .collect();
        let vd_ids = unique_ids(vds, |v| [&v.unique_id, &v.object_id], "virtualdisk");
        let pd_ids = unique_ids(pds, |p| [&p.unique_id, &p.object_id], "physicaldisk");
        let mut disks: Vec<&MsftDisk> = rows.disks.rows().iter().collect();
        disks.sort_by_key(|d| d.number.unwrap_or(u32::MAX));
        let mut joins = Joins {
            disks,
            disk_ids: vec![],
            vd_of_disk: vec![],
            pd_of_disk: vec![],
            disk_id_by_oid: HashMap::new(),
            disk_id_by_number: HashMap::new(),
            pd_ids,
            pd_is_disk: HashSet::new(),
            pools,
            pool_members,
            vd_ids,
            pool_of_vd,
            part_ids: vec![],
            parts_of_vol_oid: HashMap::new(),
            parts_of_vol_path: HashMap::new(),
        };
        joins.join_disks(pds, vds, &vd_of_disk_oid);
        joins.join_partitions(rows);
        joins
    }

    /// Each disk's id, its storage space (by association, else by the shared UniqueId) and its
    /// physical drive: same UniqueId, else (for a disk that is no storage space) the unpooled
    /// drive whose DeviceId is the disk number and whose size agrees.
    fn join_disks(
        &mut self,
        pds: &[MsftPhysicalDisk],
        vds: &[MsftVirtualDisk],
        vd_of_disk_oid: &HashMap<String, usize>,
    ) {
        let pooled: HashSet<usize> = self.pool_members.iter().map(|(_, pd)| *pd).collect();
        for (i, d) in self.disks.iter().enumerate() {
            let id = first_nonempty(&[&d.unique_id, &d.object_id])
                .unwrap_or_else(|| d.number.map_or(format!("disk-{i}"), |n| format!("disk{n}")));
            let vd = d.object_id.as_ref().and_then(|o| vd_of_disk_oid.get(o).copied()).or_else(|| {
                let uid = nonempty(&d.unique_id)?;
                vds.iter().position(|v| v.unique_id.as_deref().is_some_and(|u| u.eq_ignore_ascii_case(&uid)))
            });
            let pd = nonempty(&d.unique_id)
                .and_then(|uid| {
                    pds.iter()
                        .position(|p| p.unique_id.as_deref().is_some_and(|u| u.eq_ignore_ascii_case(&uid)))
                })
                .or_else(|| {
                    if d.bus_type == Some(BUS_STORAGE_SPACES) || vd.is_some() {
                        return None;
                    }
                    let n = d.number?.to_string();
                    pds.iter().enumerate().position(|(j, p)| {
                        !pooled.contains(&j)
                            && p.device_id.as_deref().map(str::trim) == Some(n.as_str())
                            && (p.size.is_none() || d.size.is_none() || p.size == d.size)
                    })
                });
            if let Some(j) = pd {
                self.pd_is_disk.insert(j);
                self.pd_ids[j] = id.clone();
            }
            if let Some(o) = &d.object_id {
                self.disk_id_by_oid.insert(o.clone(), id.clone());
            }
            if let Some(n) = d.number {
                self.disk_id_by_number.insert(n, id.clone());
            }
            self.disk_ids.push(id);
            self.vd_of_disk.push(vd);
            self.pd_of_disk.push(pd);
        }
    }

    /// Partition ids, and a volume's partitions: by MSFT_PartitionToVolume, else by the volume
    /// GUID path among a partition's AccessPaths.
    fn join_partitions(&mut self, rows: &WmiRows) {
        let parts = rows.partitions.rows();
        self.part_ids = parts
            .iter()
            .enumerate()
            .map(|(i, p)| match (p.disk_number, p.partition_number) {
                (Some(d), Some(n)) => format!("disk{d}-p{n}"),
                _ => nonempty(&p.object_id).unwrap_or_else(|| format!("partition{i}")),
            })
            .collect();
        let part_by_oid = index_by(parts, |p| p.object_id.as_deref());
        for a in rows.partition_to_volume.rows() {
            if let (Some(v), Some(&p)) = (
                ref_key(&a.volume, "ObjectId"),
                ref_key(&a.partition, "ObjectId").and_then(|o| part_by_oid.get(&o)),
            ) {
                self.parts_of_vol_oid.entry(v).or_default().push(p);
            }
        }
        for (i, p) in parts.iter().enumerate() {
            for ap in p.access_paths.iter().flatten() {
                if let Some(g) = volume_guid_path(ap) {
                    self.parts_of_vol_path.entry(norm_volume_id(&g)).or_default().push(i);
                }
            }
        }
    }

    /// The facts ids of a concrete pool's physical drives.
    pub fn pool_member_ids(&self, pool: usize) -> Vec<String> {
        self.pool_members.iter().filter(|(p, _)| *p == pool).map(|(_, pd)| self.pd_ids[*pd].clone()).collect()
    }

    /// The concrete pool a virtual disk is carved from.
    pub fn pool_of_virtual_disk(&self, vd: usize) -> Option<usize> {
        self.pool_of_vd.get(&vd).copied()
    }

    /// The disk a partition is on: its facts id when the disk is listed, else a name for it.
    pub fn disk_of_partition(&self, p: &MsftPartition) -> String {
        p.disk_id
            .as_ref()
            .and_then(|o| self.disk_id_by_oid.get(o))
            .or_else(|| p.disk_number.and_then(|n| self.disk_id_by_number.get(&n)))
            .cloned()
            .or_else(|| p.disk_number.map(|n| format!("disk{n}")))
            .or_else(|| nonempty(&p.disk_id))
            .unwrap_or_default()
    }

    /// The partitions (row positions) a volume with ObjectId `oid` and facts id `id` sits on.
    pub fn partitions_of_volume(&self, oid: Option<&String>, id: &str) -> Vec<usize> {
        let mut found: Vec<usize> =
            oid.and_then(|o| self.parts_of_vol_oid.get(o)).cloned().unwrap_or_default();
        for p in self.parts_of_vol_path.get(&norm_volume_id(id)).into_iter().flatten() {
            if !found.contains(p) {
                found.push(*p);
            }
        }
        found
    }
}

/// The row positions an association's rows link, each end found by the ObjectId in its REF.
fn linked<'a, A>(
    assoc: &'a [A],
    ends: impl Fn(&A) -> (&String, &String) + 'a,
    left: &'a HashMap<String, usize>,
    right: &'a HashMap<String, usize>,
) -> impl Iterator<Item = (usize, usize)> + 'a {
    assoc.iter().filter_map(move |a| {
        let (l, r) = ends(a);
        Some((*left.get(&ref_key(l, "ObjectId")?)?, *right.get(&ref_key(r, "ObjectId")?)?))
    })
}

/// Each row's `UniqueId`, else its `ObjectId`, else `{kind}{position}`.
fn unique_ids<T>(rows: &[T], ids: impl Fn(&T) -> [&Option<String>; 2], kind: &str) -> Vec<String> {
    rows.iter()
        .enumerate()
        .map(|(i, r)| first_nonempty(&ids(r)).unwrap_or_else(|| format!("{kind}{i}")))
        .collect()
}

fn index_by<T>(rows: &[T], key: impl Fn(&T) -> Option<&str>) -> HashMap<String, usize> {
    rows.iter().enumerate().filter_map(|(i, r)| Some((key(r)?.to_string(), i))).collect()
}
