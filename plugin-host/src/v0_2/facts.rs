//! A host's merged view as contract 0.2.0's `host-facts`: built once per host and lowered into
//! every 0.2.0 plugin's call from the same value (the `facts` import hands out an `Arc`).

use spindle_core::facts as core;
use spindle_core::view::{HostView, Located};

use crate::bindings::v0_2::facts as wit;

/// The facts of `view` in the contract's records. Each entity carries its key and label as the
/// view has them, so a plugin names entities exactly as spindle does without computing keys.
pub(crate) fn encode(view: &HostView) -> wit::HostFacts {
    let h = &view.host.item;
    let mut instances: Option<Vec<wit::SqlInstance>> =
        view.instances.as_ref().map(|v| v.iter().map(instance).collect());
    for dv in &view.databases {
        let db = &dv.db;
        let files = dv.files.as_ref().map(|files| files.iter().map(|f| file(view, f)).collect());
        let encoded = wit::Database {
            key: db.key.clone(),
            label: db.label.clone(),
            name: db.name.clone(),
            id: db.id,
            role: db.role.map(role),
            recovery_model: db.recovery_model.clone(),
            state: db.state.clone(),
            files,
        };
        if let Some(inst) = instances.as_mut().and_then(|i| i.get_mut(dv.instance)) {
            inst.databases.get_or_insert_with(Vec::new).push(encoded);
        }
    }
    wit::HostFacts {
        schema_version: core::SCHEMA_VERSION,
        collected_at: view.provenance.iter().find_map(|p| p.collected_at.clone()),
        host: wit::HostInfo {
            name: h.name.clone(),
            os_family: h.os_family.map(|o| match o {
                core::OsFamily::Windows => wit::OsFamily::Windows,
                core::OsFamily::Linux => wit::OsFamily::Linux,
                core::OsFamily::Other => wit::OsFamily::Other,
            }),
            os_version: h.os_version.clone(),
            cpu_count: h.cpu_count,
            memory_bytes: h.memory_bytes,
            is_virtual: h.is_virtual,
            cloud_provider: h.cloud_provider.map(|c| match c {
                core::CloudProvider::None => wit::CloudProvider::None,
                core::CloudProvider::Azure => wit::CloudProvider::Azure,
                core::CloudProvider::Aws => wit::CloudProvider::Aws,
                core::CloudProvider::Gcp => wit::CloudProvider::Gcp,
                core::CloudProvider::Other => wit::CloudProvider::Other,
            }),
        },
        collectors: view
            .collectors
            .iter()
            .map(|c| wit::CollectorReport {
                name: c.name.clone(),
                version: c.version.clone(),
                not_collected: c
                    .not_collected
                    .iter()
                    .map(|n| wit::NotCollected { fact: n.fact.clone(), reason: n.reason.clone() })
                    .collect(),
            })
            .collect(),
        disks: section(&view.disks, disk),
        partitions: section(&view.partitions, partition),
        volumes: section(&view.volumes, volume),
        storage_pools: section(&view.storage_pools, |p| wit::StoragePool {
            key: p.key.clone(),
            label: p.label.clone(),
            id: p.id.clone(),
            name: p.name.clone(),
            physical_disk_ids: p.physical_disk_ids.clone(),
        }),
        virtual_disks: section(&view.virtual_disks, |v| wit::VirtualDisk {
            key: v.key.clone(),
            label: v.label.clone(),
            id: v.id.clone(),
            name: v.name.clone(),
            pool_id: v.pool_id.clone(),
            columns: v.columns,
            interleave_bytes: v.interleave_bytes,
            resiliency: v.resiliency.clone(),
        }),
        raid_sets: section(&view.raid_sets, |r| wit::RaidSet {
            key: r.key.clone(),
            label: r.label.clone(),
            id: r.id.clone(),
            kind: r.kind.map(|k| match k {
                core::RaidKind::Hardware => wit::RaidKind::Hardware,
                core::RaidKind::Md => wit::RaidKind::Md,
                core::RaidKind::Dynamic => wit::RaidKind::Dynamic,
            }),
            level: r.level.clone(),
            stripe_unit_bytes: r.stripe_unit_bytes,
            member_ids: r.member_ids.clone(),
        }),
        sql_instances: instances,
    }
}

fn section<T, W>(items: &Option<Vec<Located<T>>>, f: impl Fn(&Located<T>) -> W) -> Option<Vec<W>> {
    items.as_ref().map(|v| v.iter().map(f).collect())
}

fn backing(b: &core::Backing) -> wit::Backing {
    match b {
        core::Backing::Partitions(ids) => wit::Backing::Partitions(ids.clone()),
        core::Backing::VirtualDisk(id) => wit::Backing::VirtualDisk(id.clone()),
        core::Backing::RaidSet(id) => wit::Backing::RaidSet(id.clone()),
        core::Backing::Lvm { name, stripes, stripe_unit_bytes, devices } => {
            wit::Backing::Lvm(wit::LvmBacking {
                name: name.clone(),
                stripes: *stripes,
                stripe_unit_bytes: *stripe_unit_bytes,
                devices: devices.clone(),
            })
        }
    }
}

fn disk(d: &Located<core::Disk>) -> wit::Disk {
    wit::Disk {
        key: d.key.clone(),
        label: d.label.clone(),
        id: d.id.clone(),
        number: d.number,
        model: d.model.clone(),
        media: d.media.map(|m| match m {
            core::Media::Hdd => wit::Media::Hdd,
            core::Media::Ssd => wit::Media::Ssd,
            core::Media::Nvme => wit::Media::Nvme,
            core::Media::Scm => wit::Media::Scm,
            core::Media::Unknown => wit::Media::Unknown,
        }),
        rpm: d.rpm,
        bus: d.bus.clone(),
        size_bytes: d.size_bytes,
        logical_sector_bytes: d.logical_sector_bytes,
        physical_sector_bytes: d.physical_sector_bytes,
        partition_style: d.partition_style.map(|s| match s {
            core::PartitionStyle::Mbr => wit::PartitionStyle::Mbr,
            core::PartitionStyle::Gpt => wit::PartitionStyle::Gpt,
            core::PartitionStyle::Raw => wit::PartitionStyle::Raw,
            core::PartitionStyle::Unknown => wit::PartitionStyle::Unknown,
        }),
        backed_by: d.backed_by.as_ref().map(backing),
    }
}

fn partition(p: &Located<core::Partition>) -> wit::Partition {
    wit::Partition {
        key: p.key.clone(),
        label: p.label.clone(),
        id: p.id.clone(),
        disk_id: p.disk_id.clone(),
        number: p.number,
        offset_bytes: p.offset_bytes,
        size_bytes: p.size_bytes,
    }
}

fn volume(v: &Located<core::Volume>) -> wit::Volume {
    wit::Volume {
        key: v.key.clone(),
        label: v.label.clone(),
        id: v.id.clone(),
        mount_points: v.mount_points.clone(),
        volume_label: v.item.label.clone(),
        filesystem: v.filesystem.clone(),
        allocation_unit_bytes: v.allocation_unit_bytes,
        size_bytes: v.size_bytes,
        free_bytes: v.free_bytes,
        compressed: v.compressed,
        encrypted: v.encrypted,
        os_volume: v.os_volume,
        temp_disk: v.temp_disk,
        fs_stripe_unit_bytes: v.fs_stripe_unit_bytes,
        fs_stripe_width_bytes: v.fs_stripe_width_bytes,
        mount_options: v.mount_options.clone(),
        backed_by: v.backed_by.as_ref().map(backing),
    }
}

fn instance(i: &Located<core::SqlInstance>) -> wit::SqlInstance {
    wit::SqlInstance {
        key: i.key.clone(),
        label: i.label.clone(),
        name: i.name.clone(),
        version: i.version.clone(),
        product_level: i.product_level.clone(),
        edition: i.edition.clone(),
        clustered: i.clustered,
        cpu_count: i.cpu_count,
        instant_file_initialization: i.instant_file_initialization,
        service_account: i.service_account.clone(),
        // Collected (an empty list until the databases are added) or not.
        databases: i.databases.as_ref().map(|_| Vec::new()),
    }
}

fn role(r: core::DatabaseRole) -> wit::DatabaseRole {
    match r {
        core::DatabaseRole::User => wit::DatabaseRole::User,
        core::DatabaseRole::System => wit::DatabaseRole::System,
        core::DatabaseRole::Tempdb => wit::DatabaseRole::Tempdb,
    }
}

fn file(view: &HostView, f: &Located<core::DbFile>) -> wit::DbFile {
    let volume = view.volume_of_file(f);
    wit::DbFile {
        key: f.key.clone(),
        label: f.label.clone(),
        file_id: f.file_id,
        file_type: match f.file_type {
            core::FileType::Rows => wit::FileType::Rows,
            core::FileType::Log => wit::FileType::Log,
            core::FileType::Filestream => wit::FileType::Filestream,
            core::FileType::Fulltext => wit::FileType::Fulltext,
        },
        logical_name: f.logical_name.clone(),
        physical_name: f.physical_name.clone(),
        size_bytes: f.size_bytes,
        growth: f.growth.map(|g| match g {
            core::Growth::Disabled => wit::Growth::Disabled,
            core::Growth::IncrementBytes(b) => wit::Growth::IncrementBytes(b),
            core::Growth::Percent(p) => wit::Growth::Percent(p),
        }),
        max_size: f.max_size.map(|m| match m {
            core::MaxSize::Unlimited => wit::MaxSize::Unlimited,
            core::MaxSize::Bytes(b) => wit::MaxSize::Bytes(b),
        }),
        volume_id: f.volume_id.clone(),
        volume_key: volume.as_ref().ok().map(|v| v.key.clone()),
        volume_unknown: volume
            .as_ref()
            .err()
            .map(|why| wit::UnknownVolume { missing: why.missing().to_string(), reason: why.to_string() }),
        io: f.io.map(|io| wit::IoStats {
            num_of_reads: io.num_of_reads,
            num_of_writes: io.num_of_writes,
            num_of_bytes_read: io.num_of_bytes_read,
            num_of_bytes_written: io.num_of_bytes_written,
            io_stall_read_ms: io.io_stall_read_ms,
            io_stall_write_ms: io.io_stall_write_ms,
            sample_ms: io.sample_ms,
        }),
    }
}

/// The facts of a host with nothing collected but its name: what a configuration check runs on.
pub(crate) fn empty(name: &str) -> wit::HostFacts {
    wit::HostFacts {
        schema_version: core::SCHEMA_VERSION,
        collected_at: None,
        host: wit::HostInfo {
            name: name.to_string(),
            os_family: None,
            os_version: None,
            cpu_count: None,
            memory_bytes: None,
            is_virtual: None,
            cloud_provider: None,
        },
        collectors: vec![],
        disks: None,
        partitions: None,
        volumes: None,
        storage_pools: None,
        virtual_disks: None,
        raid_sets: None,
        sql_instances: None,
    }
}
