//! Storage Spaces: the concrete pools with their physical drives, and the virtual disks carved
//! from them.

use spindle_core::facts::{StoragePool, VirtualDisk};

use super::joins::Joins;
use super::read;
use super::values::{nonempty, opt, pool_id};
use crate::notes::Uncollected;
use crate::windows::rows::*;

pub(super) fn storage_pools(rows: &WmiRows, j: &Joins, notes: &mut Uncollected) -> Option<Vec<StoragePool>> {
    read(&rows.storage_pools, "MSFT_StoragePool", "storage_pools", notes)?;
    let members_err = rows.pool_to_physical_disk.error().or(rows.physical_disks.error());
    if let Some(e) = members_err {
        notes.miss("storage_pools[].physical_disk_ids", format!("MSFT_StoragePoolToPhysicalDisk: {e}"));
    }
    let pool = |(i, p): (usize, &&MsftStoragePool)| StoragePool {
        id: pool_id(p, i),
        name: nonempty(&p.friendly_name),
        physical_disk_ids: members_err.is_none().then(|| j.pool_member_ids(i)),
    };
    Some(j.pools.iter().enumerate().map(pool).collect())
}

pub(super) fn virtual_disks(rows: &WmiRows, j: &Joins, notes: &mut Uncollected) -> Option<Vec<VirtualDisk>> {
    let vds = read(&rows.virtual_disks, "MSFT_VirtualDisk", "virtual_disks", notes)?;
    let (mut no_pool, mut no_columns, mut no_interleave) = (vec![], vec![], vec![]);
    let mut list = vec![];
    for (i, v) in vds.iter().enumerate() {
        let id = j.vd_ids[i].clone();
        let pool = j.pool_of_virtual_disk(i).map(|p| pool_id(j.pools[p], p));
        if pool.is_none() {
            no_pool.push(id.clone());
        }
        let columns = v.number_of_columns.filter(|n| *n > 0).map(u32::from);
        if columns.is_none() {
            no_columns.push(format!("{id} (NumberOfColumns {})", opt(v.number_of_columns)));
        }
        let interleave = v.interleave.filter(|n| *n > 0);
        if interleave.is_none() {
            no_interleave.push(format!("{id} (Interleave {})", opt(v.interleave)));
        }
        list.push(VirtualDisk {
            id,
            name: nonempty(&v.friendly_name),
            pool_id: pool.unwrap_or_default(),
            columns,
            interleave_bytes: interleave,
            resiliency: nonempty(&v.resiliency_setting_name),
        });
    }
    let err = rows
        .pool_to_virtual_disk
        .error()
        .or(rows.storage_pools.error())
        .map_or(String::new(), |e| format!(" ({e})"));
    notes.miss_for(
        "virtual_disks[].pool_id",
        &format!("no MSFT_StoragePoolToVirtualDisk row names the pool of{err}"),
        &no_pool,
    );
    notes.miss_for("virtual_disks[].columns", "NumberOfColumns not reported", &no_columns);
    notes.miss_for("virtual_disks[].interleave_bytes", "Interleave not reported", &no_interleave);
    Some(list)
}
