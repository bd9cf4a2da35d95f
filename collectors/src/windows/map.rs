//! Rows → facts: a pure function, so every rule about what the CIM values mean is tested on any
//! platform. Nothing is guessed: a value the class documents as "unknown" (MediaType 0,
//! SpindleSpeed 0xFFFFFFFF, AllocationUnitSize 0) leaves the fact absent and says why in
//! `not_collected`.

use std::collections::{HashMap, HashSet};

use spindle_core::facts::{
    Backing, CloudProvider, Disk, Host, Media, Merge, OsFamily, Partition, PartitionStyle, SCHEMA_VERSION,
    Snapshot, StoragePool, VirtualDisk, Volume, norm_volume_id, same_path,
};

use super::rows::*;
use crate::notes::Uncollected;

/// The collector's name in `collectors[]`.
pub const COLLECTOR: &str = "wmi";

/// Azure's chassis asset tag (`Win32_SystemEnclosure.SMBIOSAssetTag`, DMI chassis_asset_tag).
const AZURE_ASSET_TAG: &str = "7783-7084-3265-9085-8269-3286-77";

/// The label Azure gives the VM's local temporary (resource) disk.
const AZURE_TEMP_LABEL: &str = "Temporary Storage";

/// `SpindleSpeed` when the rotation speed is unknown.
const SPINDLE_UNKNOWN: u32 = 0xFFFF_FFFF;

/// `BusType` 16: a disk exposed by a storage space.
const BUS_STORAGE_SPACES: u16 = 16;

/// Turns what the Windows collector read into a facts snapshot.
pub fn map(rows: &WmiRows) -> Snapshot {
    let mut notes = Uncollected::default();
    let host = host(rows, &mut notes);
    // The legacy disk classes are read only when the storage namespace is missing.
    let legacy = !rows.disks.is_ok() && !matches!(rows.win32_disk_drives, Rows::NotQueried);
    let mut st = if legacy { legacy_storage(rows, &mut notes) } else { msft_storage(rows, &mut notes) };
    let volumes = finish_volumes(rows, &mut st, host.cloud_provider, &mut notes);
    notes.miss(
        "raid_sets",
        "hardware RAID logical drives appear to Windows as plain disks and WMI does not show the \
         controller's stripe size; dynamic-disk striped volumes are not read by this collector",
    );
    Snapshot {
        schema_version: SCHEMA_VERSION,
        collected_at: rows.collected_at.clone(),
        host,
        collectors: vec![notes.merged_by_fact().report(COLLECTOR)],
        disks: st.disks,
        partitions: st.partitions,
        volumes,
        storage_pools: st.storage_pools,
        virtual_disks: st.virtual_disks,
        raid_sets: None,
        sql_instances: None,
    }
}

// ---------------------------------------------------------------------------------------------
// Host

fn host(rows: &WmiRows, notes: &mut Uncollected) -> Host {
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

// ---------------------------------------------------------------------------------------------
// Storage: what both paths produce before the volumes are merged with Win32_Volume

#[derive(Default)]
struct Storage {
    disks: Option<Vec<Disk>>,
    partitions: Option<Vec<Partition>>,
    /// Volumes from the storage namespace (None when MSFT_Volume was not read).
    volumes: Option<Vec<Volume>>,
    storage_pools: Option<Vec<StoragePool>>,
    virtual_disks: Option<Vec<VirtualDisk>>,
    /// Normalised ids of volumes a partition's `IsBoot` says hold the running Windows.
    boot_volumes: HashSet<String>,
    /// Volumes whose partitions could not be found, with why.
    unbacked_reason: Option<String>,
    /// Why MSFT_Volume could not be read.
    volumes_error: Option<String>,
}

fn msft_storage(rows: &WmiRows, notes: &mut Uncollected) -> Storage {
    let mut st = Storage::default();
    let pds = rows.physical_disks.rows();
    let pools = rows.storage_pools.rows();
    let vds = rows.virtual_disks.rows();

    // Physical disks: their ids, and which are members of a concrete (not primordial) pool.
    let pd_by_oid = index_by(pds, |p| p.object_id.as_deref());
    let concrete_pools: Vec<&MsftStoragePool> =
        pools.iter().filter(|p| p.is_primordial != Some(true)).collect();
    let pool_by_oid: HashMap<String, usize> =
        concrete_pools.iter().enumerate().filter_map(|(i, p)| Some((p.object_id.clone()?, i))).collect();
    let pool_members: Vec<(usize, usize)> = rows
        .pool_to_physical_disk
        .rows()
        .iter()
        .filter_map(|a| {
            let pool = *pool_by_oid.get(&ref_key(&a.storage_pool, "ObjectId")?)?;
            let pd = *pd_by_oid.get(&ref_key(&a.physical_disk, "ObjectId")?)?;
            Some((pool, pd))
        })
        .collect();
    let pooled: HashSet<usize> = pool_members.iter().map(|(_, pd)| *pd).collect();
    let mut pd_ids: Vec<String> = pds
        .iter()
        .enumerate()
        .map(|(i, p)| {
            first_nonempty(&[&p.unique_id, &p.object_id]).unwrap_or_else(|| format!("physicaldisk{i}"))
        })
        .collect();

    // Virtual disks: ids, and the disk each exposes.
    let vd_ids: Vec<String> = vds
        .iter()
        .enumerate()
        .map(|(i, v)| {
            first_nonempty(&[&v.unique_id, &v.object_id]).unwrap_or_else(|| format!("virtualdisk{i}"))
        })
        .collect();
    let vd_by_oid = index_by(vds, |v| v.object_id.as_deref());
    let vd_of_disk_oid: HashMap<String, usize> = rows
        .virtual_disk_to_disk
        .rows()
        .iter()
        .filter_map(|a| {
            Some((ref_key(&a.disk, "ObjectId")?, *vd_by_oid.get(&ref_key(&a.virtual_disk, "ObjectId")?)?))
        })
        .collect();

    // Disks.
    let mut msft_disks: Vec<&MsftDisk> = rows.disks.rows().iter().collect();
    msft_disks.sort_by_key(|d| d.number.unwrap_or(u32::MAX));
    let mut matched_pd: HashSet<usize> = HashSet::new();
    let mut no_media: Vec<String> = vec![];
    let mut unknown_media: Vec<String> = vec![];
    let mut unknown_rpm: Vec<String> = vec![];
    let mut unknown_bus: Vec<String> = vec![];
    let mut space_without_vd: Vec<String> = vec![];
    let mut disks: Vec<Disk> = vec![];
    let mut disk_id_by_oid: HashMap<String, String> = HashMap::new();
    let mut disk_id_by_number: HashMap<u32, String> = HashMap::new();
    for (i, d) in msft_disks.iter().enumerate() {
        let id = first_nonempty(&[&d.unique_id, &d.object_id])
            .unwrap_or_else(|| d.number.map_or(format!("disk-{i}"), |n| format!("disk{n}")));
        let bus = bus_name(d.bus_type);
        let mut disk = Disk {
            id: id.clone(),
            number: d.number,
            model: nonempty(&d.model).or_else(|| nonempty(&d.friendly_name)),
            bus: bus.map(str::to_string),
            size_bytes: d.size,
            logical_sector_bytes: sector(d.logical_sector_size),
            physical_sector_bytes: sector(d.physical_sector_size),
            partition_style: d.partition_style.map(partition_style),
            ..Default::default()
        };
        // The storage space behind the disk: by association, else by the shared UniqueId.
        let vd = d.object_id.as_ref().and_then(|o| vd_of_disk_oid.get(o).copied()).or_else(|| {
            let uid = nonempty(&d.unique_id)?;
            vds.iter().position(|v| v.unique_id.as_deref().is_some_and(|u| u.eq_ignore_ascii_case(&uid)))
        });
        if let Some(v) = vd {
            disk.backed_by = Some(Backing::VirtualDisk(vd_ids[v].clone()));
        } else if d.bus_type == Some(BUS_STORAGE_SPACES) {
            space_without_vd.push(id.clone());
        }
        // The physical drive behind it: same UniqueId, else (for a disk that is no storage
        // space) the unpooled drive whose DeviceId is the disk number and whose size agrees.
        let pd = nonempty(&d.unique_id)
            .and_then(|uid| {
                pds.iter().position(|p| p.unique_id.as_deref().is_some_and(|u| u.eq_ignore_ascii_case(&uid)))
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
        match pd {
            Some(j) => {
                matched_pd.insert(j);
                pd_ids[j] = id.clone();
                let p = &pds[j];
                disk.media = media(p, d.bus_type, &id, &mut unknown_media);
                disk.rpm = rpm(p, &id, &mut unknown_rpm);
                if disk.bus.is_none() {
                    disk.bus = bus_name(p.bus_type).map(str::to_string);
                }
            }
            None if vd.is_none() && d.bus_type != Some(BUS_STORAGE_SPACES) => no_media.push(id.clone()),
            None => {}
        }
        if disk.bus.is_none() {
            unknown_bus.push(format!("{id} (BusType {})", opt(d.bus_type)));
        }
        if let Some(o) = &d.object_id {
            disk_id_by_oid.insert(o.clone(), id.clone());
        }
        if let Some(n) = d.number {
            disk_id_by_number.insert(n, id.clone());
        }
        disks.push(disk);
    }
    // Drives the OS does not show as disks (pooled ones): disks without a number.
    for (j, p) in pds.iter().enumerate() {
        if matched_pd.contains(&j) {
            continue;
        }
        let id = pd_ids[j].clone();
        if p.bus_type.is_some_and(|b| bus_name(Some(b)).is_none()) {
            unknown_bus.push(format!("{id} (BusType {})", opt(p.bus_type)));
        }
        disks.push(Disk {
            id: id.clone(),
            number: None,
            model: nonempty(&p.model).or_else(|| nonempty(&p.friendly_name)),
            media: media(p, p.bus_type, &id, &mut unknown_media),
            rpm: rpm(p, &id, &mut unknown_rpm),
            bus: bus_name(p.bus_type).map(str::to_string),
            size_bytes: p.size,
            logical_sector_bytes: sector(p.logical_sector_size),
            physical_sector_bytes: sector(p.physical_sector_size),
            ..Default::default()
        });
    }
    match &rows.disks {
        Rows::Ok(_) => {
            if let Some(e) = rows.physical_disks.error() {
                notes.miss("disks[].media", format!("MSFT_PhysicalDisk: {e}"));
                notes.miss("disks[].rpm", format!("MSFT_PhysicalDisk: {e}"));
            } else {
                notes.miss_for(
                    "disks[].media",
                    "no MSFT_PhysicalDisk has the UniqueId or DeviceId of",
                    &no_media,
                );
                notes.miss_for(
                    "disks[].rpm",
                    "no MSFT_PhysicalDisk has the UniqueId or DeviceId of",
                    &no_media,
                );
            }
            notes.miss_for(
                "disks[].media",
                "MSFT_PhysicalDisk.MediaType is 0 (Unspecified) or unknown: the platform does not say \
                 what media backs",
                &unknown_media,
            );
            notes.miss_for(
                "disks[].rpm",
                "MSFT_PhysicalDisk.SpindleSpeed is 0xFFFFFFFF (unknown), absent, or 0 while MediaType does \
                 not say solid state, for",
                &unknown_rpm,
            );
            notes.miss_for(
                "disks[].bus",
                "MSFT_Disk / MSFT_PhysicalDisk.BusType unknown or reserved",
                &unknown_bus,
            );
            let err = rows
                .virtual_disk_to_disk
                .error()
                .map_or(String::new(), |e| format!(" (MSFT_VirtualDiskToDisk: {e})"));
            notes.miss_for(
                "disks[].backed_by",
                &format!("no MSFT_VirtualDisk matches these Storage Spaces disks{err}"),
                &space_without_vd,
            );
            let no_sector: Vec<String> =
                disks.iter().filter(|d| d.physical_sector_bytes.is_none()).map(|d| d.id.clone()).collect();
            notes.miss_for("disks[].physical_sector_bytes", "PhysicalSectorSize absent or 0 for", &no_sector);
            st.disks = Some(disks);
        }
        Rows::Failed(e) => notes.miss("disks", format!("MSFT_Disk: {e}")),
        Rows::NotQueried => notes.miss("disks", "MSFT_Disk was not queried"),
    }

    // Storage pools and virtual disks.
    match &rows.storage_pools {
        Rows::Ok(_) => {
            let members_err = rows.pool_to_physical_disk.error().or(rows.physical_disks.error());
            if let Some(e) = members_err {
                notes.miss(
                    "storage_pools[].physical_disk_ids",
                    format!("MSFT_StoragePoolToPhysicalDisk: {e}"),
                );
            }
            st.storage_pools = Some(
                concrete_pools
                    .iter()
                    .enumerate()
                    .map(|(i, p)| StoragePool {
                        id: pool_id(p, i),
                        name: nonempty(&p.friendly_name),
                        physical_disk_ids: members_err.is_none().then(|| {
                            pool_members
                                .iter()
                                .filter(|(pool, _)| *pool == i)
                                .map(|(_, pd)| pd_ids[*pd].clone())
                                .collect()
                        }),
                    })
                    .collect(),
            );
        }
        Rows::Failed(e) => notes.miss("storage_pools", format!("MSFT_StoragePool: {e}")),
        Rows::NotQueried => notes.miss("storage_pools", "MSFT_StoragePool was not queried"),
    }
    match &rows.virtual_disks {
        Rows::Ok(_) => {
            let pool_of_vd: HashMap<usize, usize> = rows
                .pool_to_virtual_disk
                .rows()
                .iter()
                .filter_map(|a| {
                    let vd = *vd_by_oid.get(&ref_key(&a.virtual_disk, "ObjectId")?)?;
                    let pool = *pool_by_oid.get(&ref_key(&a.storage_pool, "ObjectId")?)?;
                    Some((vd, pool))
                })
                .collect();
            let (mut no_pool, mut no_columns, mut no_interleave) = (vec![], vec![], vec![]);
            let list = vds
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let id = vd_ids[i].clone();
                    let pool = pool_of_vd.get(&i).map(|&p| pool_id(concrete_pools[p], p));
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
                    VirtualDisk {
                        id,
                        name: nonempty(&v.friendly_name),
                        pool_id: pool.unwrap_or_default(),
                        columns,
                        interleave_bytes: interleave,
                        resiliency: nonempty(&v.resiliency_setting_name),
                    }
                })
                .collect();
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
            st.virtual_disks = Some(list);
        }
        Rows::Failed(e) => notes.miss("virtual_disks", format!("MSFT_VirtualDisk: {e}")),
        Rows::NotQueried => notes.miss("virtual_disks", "MSFT_VirtualDisk was not queried"),
    }

    // Partitions.
    let parts = rows.partitions.rows();
    let part_ids: Vec<String> = parts
        .iter()
        .enumerate()
        .map(|(i, p)| match (p.disk_number, p.partition_number) {
            (Some(d), Some(n)) => format!("disk{d}-p{n}"),
            _ => nonempty(&p.object_id).unwrap_or_else(|| format!("partition{i}")),
        })
        .collect();
    match &rows.partitions {
        Rows::Ok(_) => {
            let mut no_offset = vec![];
            let list = parts
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let disk_id = p
                        .disk_id
                        .as_ref()
                        .and_then(|o| disk_id_by_oid.get(o))
                        .or_else(|| p.disk_number.and_then(|n| disk_id_by_number.get(&n)))
                        .cloned()
                        .or_else(|| p.disk_number.map(|n| format!("disk{n}")))
                        .or_else(|| nonempty(&p.disk_id))
                        .unwrap_or_default();
                    if p.offset.is_none() {
                        no_offset.push(part_ids[i].clone());
                    }
                    Partition {
                        id: part_ids[i].clone(),
                        disk_id,
                        number: p.partition_number,
                        offset_bytes: p.offset,
                        size_bytes: p.size,
                    }
                })
                .collect();
            notes.miss_for(
                "partitions[].offset_bytes",
                "MSFT_Partition.Offset not reported (it is not on the class page) for",
                &no_offset,
            );
            st.partitions = Some(list);
        }
        Rows::Failed(e) => notes.miss("partitions", format!("MSFT_Partition: {e}")),
        Rows::NotQueried => notes.miss("partitions", "MSFT_Partition was not queried"),
    }

    // Volumes, with their partitions: by MSFT_PartitionToVolume, else by the volume GUID path
    // among a partition's AccessPaths.
    let part_by_oid = index_by(parts, |p| p.object_id.as_deref());
    let mut parts_of_vol_oid: HashMap<String, Vec<usize>> = HashMap::new();
    for a in rows.partition_to_volume.rows() {
        if let (Some(v), Some(&p)) = (
            ref_key(&a.volume, "ObjectId"),
            ref_key(&a.partition, "ObjectId").and_then(|o| part_by_oid.get(&o)),
        ) {
            parts_of_vol_oid.entry(v).or_default().push(p);
        }
    }
    let mut parts_of_vol_path: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, p) in parts.iter().enumerate() {
        for ap in p.access_paths.iter().flatten() {
            if let Some(g) = volume_guid_path(ap) {
                parts_of_vol_path.entry(norm_volume_id(&g)).or_default().push(i);
            }
        }
    }
    match &rows.volumes {
        Rows::Ok(vols) => {
            let mut list = vec![];
            for (i, v) in vols.iter().enumerate() {
                if v.drive_type == Some(5) {
                    continue; // CD-ROM
                }
                let Some(id) = msft_volume_id(v) else {
                    notes.miss(
                        "volumes",
                        format!("an MSFT_Volume (row {i}) has no Path, UniqueId or ObjectId"),
                    );
                    continue;
                };
                let mut pidx: Vec<usize> =
                    v.object_id.as_ref().and_then(|o| parts_of_vol_oid.get(o)).cloned().unwrap_or_default();
                for p in parts_of_vol_path.get(&norm_volume_id(&id)).into_iter().flatten() {
                    if !pidx.contains(p) {
                        pidx.push(*p);
                    }
                }
                let mut mount_points = vec![];
                if let Some(l) = v.drive_letter {
                    add_mount_point(&mut mount_points, &format!("{l}:\\"));
                }
                for &p in &pidx {
                    if let Some(l) = parts[p].drive_letter {
                        add_mount_point(&mut mount_points, &format!("{l}:\\"));
                    }
                    for ap in parts[p].access_paths.iter().flatten() {
                        if volume_guid_path(ap).is_none() && !ap.starts_with(r"\\") {
                            add_mount_point(&mut mount_points, ap);
                        }
                    }
                    if parts[p].is_boot == Some(true) {
                        st.boot_volumes.insert(norm_volume_id(&id));
                    }
                }
                let filesystem =
                    nonempty(&v.file_system).or_else(|| fs_type_name(v.file_system_type).map(str::to_string));
                list.push(Volume {
                    id,
                    mount_points,
                    label: nonempty(&v.file_system_label),
                    filesystem,
                    allocation_unit_bytes: v.allocation_unit_size.filter(|n| *n > 0),
                    size_bytes: v.size,
                    free_bytes: v.size_remaining,
                    backed_by: (!pidx.is_empty())
                        .then(|| Backing::Partitions(pidx.iter().map(|&p| part_ids[p].clone()).collect())),
                    ..Default::default()
                });
            }
            st.volumes = Some(list);
            st.unbacked_reason = Some(match (rows.partition_to_volume.error(), rows.partitions.error()) {
                (_, Some(e)) => format!("MSFT_Partition: {e}"),
                (Some(e), None) => format!(
                    "MSFT_PartitionToVolume: {e}; and no MSFT_Partition.AccessPaths lists the volume GUID path of"
                ),
                (None, None) => "no MSFT_Partition belongs to these volumes (a cluster shared volume owned \
                                 by another node, or a dynamic-disk volume)"
                    .to_string(),
            });
        }
        Rows::Failed(e) => {
            st.volumes_error = Some(format!("MSFT_Volume: {e}"));
            st.unbacked_reason =
                Some(format!("MSFT_Volume: {e}; Win32_Volume does not link volumes to partitions, for"));
        }
        Rows::NotQueried => {}
    }
    st
}

/// Pre-2012 hosts: `Win32_DiskDrive`, `Win32_DiskPartition` and `Win32_LogicalDiskToPartition`.
fn legacy_storage(rows: &WmiRows, notes: &mut Uncollected) -> Storage {
    let mut st = Storage::default();
    let why = rows.disks.error().map_or_else(
        || "the storage namespace ROOT\\Microsoft\\Windows\\Storage was not read".to_string(),
        |e| format!("ROOT\\Microsoft\\Windows\\Storage: {e}"),
    );
    notes.miss("storage_pools", format!("{why} (Storage Spaces exist from Windows Server 2012)"));
    notes.miss("virtual_disks", format!("{why} (Storage Spaces exist from Windows Server 2012)"));
    let drives = rows.win32_disk_drives.rows();
    match &rows.win32_disk_drives {
        // No disk is not an answer either (see `WmiRows::distrust_empty_storage`).
        Rows::Ok(d) if d.is_empty() => notes.miss("disks", format!("{why}; Win32_DiskDrive listed no disks")),
        Rows::Ok(_) => {
            let mut list: Vec<Disk> = drives
                .iter()
                .enumerate()
                .map(|(i, d)| Disk {
                    id: legacy_disk_id(d, i),
                    number: d.index,
                    model: nonempty(&d.model).or_else(|| nonempty(&d.caption)),
                    bus: nonempty(&d.interface_type),
                    size_bytes: d.size,
                    logical_sector_bytes: d.bytes_per_sector.filter(|n| *n > 0),
                    ..Default::default()
                })
                .collect();
            list.sort_by_key(|d| d.number.unwrap_or(u32::MAX));
            notes.miss("disks[].media", format!("{why}; Win32_DiskDrive does not report the media type"));
            notes.miss("disks[].rpm", format!("{why}; Win32_DiskDrive does not report the rotation speed"));
            notes.miss(
                "disks[].physical_sector_bytes",
                format!("{why}; Win32_DiskDrive reports only the logical sector size (BytesPerSector)"),
            );
            notes.miss("disks[].partition_style", format!("{why}; Win32_DiskDrive does not report it"));
            st.disks = Some(list);
        }
        Rows::Failed(e) => notes.miss("disks", format!("{why}; Win32_DiskDrive: {e}")),
        Rows::NotQueried => notes.miss("disks", why.clone()),
    }
    match &rows.win32_partitions {
        Rows::Ok(parts) => {
            let mut no_offset = vec![];
            let list = parts
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let id = nonempty(&p.device_id).unwrap_or_else(|| {
                        format!(
                            "Disk #{}, Partition #{}",
                            opt(p.disk_index),
                            p.index.map_or(i.to_string(), |n| n.to_string())
                        )
                    });
                    if p.starting_offset.is_none() {
                        no_offset.push(id.clone());
                    }
                    let disk_id = p
                        .disk_index
                        .and_then(|n| drives.iter().enumerate().find(|(_, d)| d.index == Some(n)))
                        .map(|(j, d)| legacy_disk_id(d, j))
                        .or_else(|| p.disk_index.map(|n| format!("\\\\.\\PHYSICALDRIVE{n}")))
                        .unwrap_or_default();
                    Partition {
                        id,
                        disk_id,
                        // Index is 0-based; partition numbers count from 1.
                        number: p.index.map(|n| n + 1),
                        offset_bytes: p.starting_offset,
                        size_bytes: p.size,
                    }
                })
                .collect();
            notes.miss_for(
                "partitions[].offset_bytes",
                "Win32_DiskPartition.StartingOffset not reported for",
                &no_offset,
            );
            st.partitions = Some(list);
        }
        Rows::Failed(e) => notes.miss("partitions", format!("{why}; Win32_DiskPartition: {e}")),
        Rows::NotQueried => notes.miss("partitions", why.clone()),
    }
    st.unbacked_reason = Some(match rows.win32_logical_disk_to_partition.error() {
        Some(e) => format!("Win32_LogicalDiskToPartition: {e}"),
        None => {
            "Win32_LogicalDiskToPartition links only drive letters to partitions; not found for".to_string()
        }
    });
    st
}

fn legacy_disk_id(d: &Win32DiskDrive, i: usize) -> String {
    nonempty(&d.device_id)
        .unwrap_or_else(|| format!("\\\\.\\PHYSICALDRIVE{}", d.index.map_or(i as u32, |n| n)))
}

/// The volumes of both paths merged with `Win32_Volume` (which also lists cluster shared volumes
/// and gives the cluster size where `MSFT_Volume` lacks it), mounted folders from
/// `Win32_MountPoint`, and the OS and temporary-disk marks.
fn finish_volumes(
    rows: &WmiRows,
    st: &mut Storage,
    cloud: Option<CloudProvider>,
    notes: &mut Uncollected,
) -> Option<Vec<Volume>> {
    let mut boot = std::mem::take(&mut st.boot_volumes);
    let mut volumes = st.volumes.take();
    let legacy_links: HashMap<String, String> = rows
        .win32_logical_disk_to_partition
        .rows()
        .iter()
        .filter_map(|a| {
            let letter = ref_key(&a.dependent, "DeviceID")?;
            Some((letter.trim_end_matches('\\').to_ascii_uppercase(), ref_key(&a.antecedent, "DeviceID")?))
        })
        .collect();
    if let Rows::Ok(w) = &rows.win32_volumes {
        let list = volumes.get_or_insert_with(Vec::new);
        for v in w {
            if v.drive_type == Some(5) {
                continue;
            }
            let Some(id) = nonempty(&v.device_id).map(|d| volume_guid_path(&d).unwrap_or(d)) else {
                continue;
            };
            let mut mount_points = vec![];
            let letter = nonempty(&v.drive_letter).map(|l| l.trim_end_matches('\\').to_ascii_uppercase());
            if let Some(l) = &letter {
                add_mount_point(&mut mount_points, &format!("{l}\\"));
            }
            if let Some(n) =
                nonempty(&v.name).filter(|n| volume_guid_path(n).is_none() && !n.starts_with(r"\\"))
            {
                add_mount_point(&mut mount_points, &n);
            }
            if v.boot_volume == Some(true) {
                boot.insert(norm_volume_id(&id));
            }
            let backed_by = letter
                .as_ref()
                .and_then(|l| legacy_links.get(l))
                .map(|p| Backing::Partitions(vec![p.clone()]));
            let vol = Volume {
                id,
                mount_points,
                label: nonempty(&v.label),
                filesystem: nonempty(&v.file_system),
                allocation_unit_bytes: v.block_size.filter(|n| *n > 0),
                size_bytes: v.capacity,
                free_bytes: v.free_space,
                compressed: v.compressed,
                backed_by,
                ..Default::default()
            };
            let key = norm_volume_id(&vol.id);
            match list.iter_mut().find(|x| norm_volume_id(&x.id) == key) {
                Some(x) => x.merge_from(vol),
                None => list.push(vol),
            }
        }
    }
    // The drive letters: the last source, for a host whose Win32_Volume lists nothing.
    if volumes.as_ref().is_none_or(|v| v.is_empty()) {
        for d in rows.win32_logical_disks.rows() {
            if d.drive_type != Some(3) {
                continue;
            }
            let Some(letter) = nonempty(&d.device_id).map(|l| l.trim_end_matches('\\').to_ascii_uppercase())
            else {
                continue;
            };
            let root = format!("{letter}\\");
            volumes.get_or_insert_with(Vec::new).push(Volume {
                id: root.clone(),
                mount_points: vec![root],
                label: nonempty(&d.volume_name),
                filesystem: nonempty(&d.file_system),
                size_bytes: d.size,
                free_bytes: d.free_space,
                compressed: d.compressed,
                backed_by: legacy_links.get(&letter).map(|p| Backing::Partitions(vec![p.clone()])),
                ..Default::default()
            });
        }
    }
    let list = volumes.filter(|v| !v.is_empty());
    let Some(mut list) = list else {
        if let Some(e) = &st.volumes_error {
            notes.miss("volumes", e.clone());
        }
        match &rows.win32_volumes {
            Rows::Failed(e) => notes.miss("volumes", format!("Win32_Volume: {e}")),
            // No volume is not an answer: a running Windows host has at least its system volume.
            Rows::Ok(_) => notes.miss(
                "volumes",
                format!(
                    "Win32_Volume{} listed no volumes, and a running Windows host has at least its \
                     system volume",
                    if rows.win32_logical_disks.is_ok() { " and Win32_LogicalDisk" } else { "" }
                ),
            ),
            Rows::NotQueried => {}
        }
        if let Some(e) = rows.win32_logical_disks.error() {
            notes.miss("volumes", format!("Win32_LogicalDisk: {e}"));
        }
        return None;
    };
    for m in rows.win32_mount_points.rows() {
        let (Some(dir), Some(vol)) = (ref_key(&m.directory, "Name"), ref_key(&m.volume, "DeviceID")) else {
            continue;
        };
        let key = norm_volume_id(&volume_guid_path(&vol).unwrap_or(vol));
        if let Some(v) = list.iter_mut().find(|v| norm_volume_id(&v.id) == key) {
            add_mount_point(&mut v.mount_points, &dir);
        }
    }

    // The OS volume: a boot partition, Win32_Volume.BootVolume, or the system drive.
    let system_drive = rows
        .operating_system
        .rows()
        .first()
        .and_then(|o| nonempty(&o.system_drive))
        .map(|d| format!("{}\\", d.trim_end_matches('\\')));
    if let Some(sd) = &system_drive {
        for v in &list {
            if v.mount_points.iter().any(|m| same_path(m, sd)) {
                boot.insert(norm_volume_id(&v.id));
            }
        }
    }
    if boot.is_empty() {
        notes.miss(
            "volumes[].os_volume",
            "no partition has IsBoot, no Win32_Volume has BootVolume and no volume is mounted at the \
             system drive",
        );
    } else {
        for v in &mut list {
            v.os_volume = Some(boot.contains(&norm_volume_id(&v.id)));
        }
    }
    // Azure's local temporary disk keeps the label Azure gives it.
    if cloud == Some(CloudProvider::Azure)
        && list.iter().any(|v| v.label.as_deref() == Some(AZURE_TEMP_LABEL))
    {
        for v in &mut list {
            v.temp_disk = Some(v.label.as_deref() == Some(AZURE_TEMP_LABEL));
        }
    }

    let no_au: Vec<String> = list
        .iter()
        .filter(|v| v.allocation_unit_bytes.is_none() && v.filesystem.is_some())
        .map(|v| v.display_name().to_string())
        .collect();
    let w_err = rows.win32_volumes.error().map_or(String::new(), |e| format!(" (Win32_Volume: {e})"));
    notes.miss_for(
        "volumes[].allocation_unit_bytes",
        &format!("MSFT_Volume.AllocationUnitSize absent or 0 and no Win32_Volume.BlockSize{w_err} for"),
        &no_au,
    );
    let unbacked: Vec<String> =
        list.iter().filter(|v| v.backed_by.is_none()).map(|v| v.display_name().to_string()).collect();
    if let Some(why) = &st.unbacked_reason {
        notes.miss_for("volumes[].backed_by", why, &unbacked);
    }
    if !list.iter().any(|v| v.compressed.is_some()) {
        notes.miss("volumes[].compressed", format!("Win32_Volume.Compressed not read{w_err}"));
    }
    notes.miss(
        "volumes[].encrypted",
        "neither MSFT_Volume nor Win32_Volume says whether files on a volume use EFS (check with cipher /S)",
    );
    Some(list)
}

// ---------------------------------------------------------------------------------------------
// Value mappings

/// `MSFT_Disk.BusType` / `MSFT_PhysicalDisk.BusType` names; `None` for 0 (Unknown) and the
/// reserved or undocumented values.
pub fn bus_name(code: Option<u16>) -> Option<&'static str> {
    Some(match code? {
        1 => "SCSI",
        2 => "ATAPI",
        3 => "ATA",
        4 => "1394",
        5 => "SSA",
        6 => "Fibre Channel",
        7 => "USB",
        8 => "RAID",
        9 => "iSCSI",
        10 => "SAS",
        11 => "SATA",
        12 => "SD",
        13 => "MMC",
        14 => "Virtual",
        15 => "File Backed Virtual",
        16 => "Storage Spaces",
        17 => "NVMe",
        _ => return None,
    })
}

/// `MSFT_Disk.PartitionStyle`: 0 is documented as Unknown and is what an uninitialised disk
/// reports (PowerShell shows it as RAW, and `Initialize-Disk` examples select `RAW` disks).
fn partition_style(code: u16) -> PartitionStyle {
    match code {
        0 => PartitionStyle::Raw,
        1 => PartitionStyle::Mbr,
        2 => PartitionStyle::Gpt,
        _ => PartitionStyle::Unknown,
    }
}

/// `MSFT_Volume.FileSystemType` (Windows 10+), when `FileSystem` is empty.
fn fs_type_name(code: Option<u16>) -> Option<&'static str> {
    Some(match code? {
        4 => "FAT",
        5 => "FAT16",
        6 => "FAT32",
        14 => "NTFS",
        15 => "ReFS",
        0x8000 => "CSVFS_NTFS",
        0x8001 => "CSVFS_ReFS",
        _ => return None,
    })
}

/// `MediaType` 3 HDD, 4 SSD (NVMe on the NVMe bus), 5 SCM. 0 (Unspecified) and undocumented
/// values are `unknown`: the platform was asked and could not tell.
fn media(p: &MsftPhysicalDisk, bus: Option<u16>, id: &str, unknown: &mut Vec<String>) -> Option<Media> {
    Some(match p.media_type {
        Some(3) => Media::Hdd,
        Some(4) if bus == Some(17) || p.bus_type == Some(17) => Media::Nvme,
        Some(4) => Media::Ssd,
        Some(5) => Media::Scm,
        Some(_) => {
            unknown.push(id.to_string());
            Media::Unknown
        }
        None => {
            unknown.push(id.to_string());
            return None;
        }
    })
}

/// `SpindleSpeed` in RPM: 0 only counts when `MediaType` agrees the drive is solid state; the
/// unknown marker 0xFFFFFFFF leaves the speed absent.
fn rpm(p: &MsftPhysicalDisk, id: &str, unknown: &mut Vec<String>) -> Option<u32> {
    match p.spindle_speed {
        Some(0) if matches!(p.media_type, Some(4) | Some(5)) => Some(0),
        Some(n) if n != 0 && n != SPINDLE_UNKNOWN => Some(n),
        _ => {
            unknown.push(id.to_string());
            None
        }
    }
}

/// Sector sizes: UInt32 on MSFT_Disk, UInt64 elsewhere; 0 is "not reported".
fn sector(n: Option<u64>) -> Option<u32> {
    n.and_then(|n| u32::try_from(n).ok()).filter(|n| *n > 0)
}

fn pool_id(p: &MsftStoragePool, i: usize) -> String {
    first_nonempty(&[&p.unique_id, &p.object_id]).unwrap_or_else(|| format!("pool{i}"))
}

/// The id SQL Server reports for a volume (`sys.dm_os_volume_stats.volume_id`): the GUID path
/// from `Path`, else from `UniqueId`; a volume with neither keeps what it has.
fn msft_volume_id(v: &MsftVolume) -> Option<String> {
    v.path
        .as_deref()
        .and_then(volume_guid_path)
        .or_else(|| v.unique_id.as_deref().and_then(volume_guid_path))
        .or_else(|| first_nonempty(&[&v.path, &v.unique_id, &v.object_id]))
}

/// A volume GUID path in the form Windows' volume APIs, and so SQL Server, report it:
/// `\\?\Volume{xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}\`, lower-case GUID, trailing backslash.
/// `None` when `s` is not a volume GUID path.
pub fn volume_guid_path(s: &str) -> Option<String> {
    let t = s.trim();
    let rest = t.strip_prefix(r"\\?\").or_else(|| t.strip_prefix(r"\\.\"))?;
    let rest = rest.strip_suffix('\\').unwrap_or(rest);
    if rest.len() != 44 || !rest.is_char_boundary(7) || !rest[..7].eq_ignore_ascii_case("volume{") {
        return None;
    }
    let guid = rest[7..].strip_suffix('}')?;
    let ok = guid.len() == 36
        && guid
            .char_indices()
            .all(|(i, c)| if [8, 13, 18, 23].contains(&i) { c == '-' } else { c.is_ascii_hexdigit() });
    ok.then(|| format!(r"\\?\Volume{{{}}}\", guid.to_ascii_lowercase()))
}

/// Adds a mount point once, as a directory path with its trailing backslash (`E:\SQLData\`).
fn add_mount_point(list: &mut Vec<String>, p: &str) {
    let p = p.trim();
    if p.is_empty() {
        return;
    }
    let p = if p.ends_with('\\') { p.to_string() } else { format!("{p}\\") };
    if !list.iter().any(|m| same_path(m, &p)) {
        list.push(p);
    }
}

fn nonempty(s: &Option<String>) -> Option<String> {
    s.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(str::to_string)
}

fn first_nonempty(list: &[&Option<String>]) -> Option<String> {
    list.iter().find_map(|s| nonempty(s))
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or("absent".to_string(), |v| v.to_string())
}

fn index_by<T>(rows: &[T], key: impl Fn(&T) -> Option<&str>) -> HashMap<String, usize> {
    rows.iter().enumerate().filter_map(|(i, r)| Some((key(r)?.to_string(), i))).collect()
}
