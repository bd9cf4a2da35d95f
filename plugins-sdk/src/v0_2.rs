//! Contract 0.2.0's `check`: the typed facts become a view with the keys and labels spindle sent
//! (nothing re-formatted, nothing parsed from text), the typed configuration the rules'
//! parameters and declarations.

use std::collections::BTreeMap;

use serde_json::Value;
use spindle_core::facts as core;
use spindle_core::params::{ParamValue, Params};
use spindle_core::view::{DatabaseView, HostView, Located, ViewParts};

use crate::bindings::spindle::plugin::facts as f;
use crate::run::{self, DeclaredJson, StripeJson};
use crate::{RulePack, wit};

/// Runs `config.rules` of `P` over `facts`.
pub fn check<P: RulePack>(
    facts: f::HostFacts,
    config: wit::CheckConfig,
) -> Result<wit::CheckOutput, wit::CheckError> {
    let bad = wit::CheckError::BadConfig;
    let mut params: BTreeMap<&'static str, Params> = BTreeMap::new();
    let mut enabled = Vec::with_capacity(config.rules.len());
    for r in config.rules {
        let rule = run::find_rule::<P>(&r.code, "enabled rule").map_err(bad)?;
        let values = r.params.into_iter().map(|p| {
            let v = match p.value {
                wit::ParamValue::Num(n) => ParamValue::Num(n),
                wit::ParamValue::Text(t) => ParamValue::Text(t),
            };
            (p.name, v)
        });
        params.insert(rule.meta.code, run::typed_params(rule, values).map_err(bad)?);
        enabled.push(r.code);
    }
    let table: Value = if config.config_json.trim().is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&config.config_json).map_err(|e| bad(format!("config-json: {e}")))?
    };
    let declared = run::declarations(DeclaredJson {
        workload: config.workload,
        stripe_units: config
            .stripe_units
            .into_iter()
            .map(|s| StripeJson {
                entity: s.entity,
                stripe_unit_bytes: s.stripe_unit_bytes,
                data_disks: s.data_disks,
                source: s.source,
            })
            .collect(),
    })
    .map_err(bad)?;
    run::run_pack::<P>(
        &enabled,
        params,
        table,
        |declared| HostView::from_parts(parts(facts), declared),
        declared,
    )
}

fn located<T>(key: String, label: String, item: T) -> Located<T> {
    Located { item, key, label, origins: vec![] }
}

/// The view's parts from the facts records.
pub(crate) fn parts(h: f::HostFacts) -> ViewParts {
    let (instances, databases) = instances_and_databases(h.sql_instances);
    ViewParts {
        host: host(h.host),
        collectors: h.collectors.into_iter().map(collector).collect(),
        disks: h.disks.map(|v| v.into_iter().map(disk).collect()),
        partitions: h.partitions.map(|v| v.into_iter().map(partition).collect()),
        volumes: h.volumes.map(|v| v.into_iter().map(volume).collect()),
        storage_pools: h.storage_pools.map(|v| v.into_iter().map(pool).collect()),
        virtual_disks: h.virtual_disks.map(|v| v.into_iter().map(virtual_disk).collect()),
        raid_sets: h.raid_sets.map(|v| v.into_iter().map(raid_set).collect()),
        instances,
        databases,
    }
}

/// The instances, their databases taken out into one list as the view keeps them (an instance
/// whose databases were collected keeps an empty list).
fn instances_and_databases(
    sql_instances: Option<Vec<f::SqlInstance>>,
) -> (Option<Vec<Located<core::SqlInstance>>>, Vec<DatabaseView>) {
    let mut databases = vec![];
    let instances = sql_instances.map(|instances| {
        instances
            .into_iter()
            .enumerate()
            .map(|(ii, i)| {
                let collected = i.databases.is_some();
                for d in i.databases.into_iter().flatten() {
                    let files = d.files.map(|files| files.into_iter().map(file).collect());
                    let db = core::Database {
                        name: d.name,
                        id: d.id,
                        role: d.role.map(|r| match r {
                            f::DatabaseRole::User => core::DatabaseRole::User,
                            f::DatabaseRole::System => core::DatabaseRole::System,
                            f::DatabaseRole::Tempdb => core::DatabaseRole::Tempdb,
                        }),
                        recovery_model: d.recovery_model,
                        state: d.state,
                        files: None,
                    };
                    databases.push(DatabaseView { db: located(d.key, d.label, db), instance: ii, files });
                }
                let item = core::SqlInstance {
                    name: i.name,
                    version: i.version,
                    product_level: i.product_level,
                    edition: i.edition,
                    clustered: i.clustered,
                    cpu_count: i.cpu_count,
                    instant_file_initialization: i.instant_file_initialization,
                    service_account: i.service_account,
                    databases: collected.then(Vec::new),
                };
                located(i.key, i.label, item)
            })
            .collect()
    });
    (instances, databases)
}

fn host(host: f::HostInfo) -> core::Host {
    core::Host {
        name: host.name,
        os_family: host.os_family.map(|o| match o {
            f::OsFamily::Windows => core::OsFamily::Windows,
            f::OsFamily::Linux => core::OsFamily::Linux,
            f::OsFamily::Other => core::OsFamily::Other,
        }),
        os_version: host.os_version,
        cpu_count: host.cpu_count,
        memory_bytes: host.memory_bytes,
        is_virtual: host.is_virtual,
        cloud_provider: host.cloud_provider.map(|c| match c {
            f::CloudProvider::None => core::CloudProvider::None,
            f::CloudProvider::Azure => core::CloudProvider::Azure,
            f::CloudProvider::Aws => core::CloudProvider::Aws,
            f::CloudProvider::Gcp => core::CloudProvider::Gcp,
            f::CloudProvider::Other => core::CloudProvider::Other,
        }),
    }
}

fn collector(c: f::CollectorReport) -> core::CollectorReport {
    core::CollectorReport {
        name: c.name,
        version: c.version,
        not_collected: c
            .not_collected
            .into_iter()
            .map(|n| core::NotCollected { fact: n.fact, reason: n.reason })
            .collect(),
    }
}

fn partition(p: f::Partition) -> Located<core::Partition> {
    let item = core::Partition {
        id: p.id,
        disk_id: p.disk_id,
        number: p.number,
        offset_bytes: p.offset_bytes,
        size_bytes: p.size_bytes,
    };
    located(p.key, p.label, item)
}

fn pool(p: f::StoragePool) -> Located<core::StoragePool> {
    let item = core::StoragePool { id: p.id, name: p.name, physical_disk_ids: p.physical_disk_ids };
    located(p.key, p.label, item)
}

fn virtual_disk(d: f::VirtualDisk) -> Located<core::VirtualDisk> {
    let item = core::VirtualDisk {
        id: d.id,
        name: d.name,
        pool_id: d.pool_id,
        columns: d.columns,
        interleave_bytes: d.interleave_bytes,
        resiliency: d.resiliency,
    };
    located(d.key, d.label, item)
}

fn raid_set(r: f::RaidSet) -> Located<core::RaidSet> {
    let item = core::RaidSet {
        id: r.id,
        kind: r.kind.map(|k| match k {
            f::RaidKind::Hardware => core::RaidKind::Hardware,
            f::RaidKind::Md => core::RaidKind::Md,
            f::RaidKind::Dynamic => core::RaidKind::Dynamic,
        }),
        level: r.level,
        stripe_unit_bytes: r.stripe_unit_bytes,
        member_ids: r.member_ids,
    };
    located(r.key, r.label, item)
}

fn backing(b: f::Backing) -> core::Backing {
    match b {
        f::Backing::Partitions(ids) => core::Backing::Partitions(ids),
        f::Backing::VirtualDisk(id) => core::Backing::VirtualDisk(id),
        f::Backing::RaidSet(id) => core::Backing::RaidSet(id),
        f::Backing::Lvm(l) => core::Backing::Lvm {
            name: l.name,
            stripes: l.stripes,
            stripe_unit_bytes: l.stripe_unit_bytes,
            devices: l.devices,
        },
    }
}

fn disk(d: f::Disk) -> Located<core::Disk> {
    let item = core::Disk {
        id: d.id,
        number: d.number,
        model: d.model,
        media: d.media.map(|m| match m {
            f::Media::Hdd => core::Media::Hdd,
            f::Media::Ssd => core::Media::Ssd,
            f::Media::Nvme => core::Media::Nvme,
            f::Media::Scm => core::Media::Scm,
            f::Media::Unknown => core::Media::Unknown,
        }),
        rpm: d.rpm,
        bus: d.bus,
        size_bytes: d.size_bytes,
        logical_sector_bytes: d.logical_sector_bytes,
        physical_sector_bytes: d.physical_sector_bytes,
        partition_style: d.partition_style.map(|s| match s {
            f::PartitionStyle::Mbr => core::PartitionStyle::Mbr,
            f::PartitionStyle::Gpt => core::PartitionStyle::Gpt,
            f::PartitionStyle::Raw => core::PartitionStyle::Raw,
            f::PartitionStyle::Unknown => core::PartitionStyle::Unknown,
        }),
        backed_by: d.backed_by.map(backing),
    };
    located(d.key, d.label, item)
}

fn volume(v: f::Volume) -> Located<core::Volume> {
    let item = core::Volume {
        id: v.id,
        mount_points: v.mount_points,
        label: v.volume_label,
        filesystem: v.filesystem,
        allocation_unit_bytes: v.allocation_unit_bytes,
        size_bytes: v.size_bytes,
        free_bytes: v.free_bytes,
        compressed: v.compressed,
        encrypted: v.encrypted,
        os_volume: v.os_volume,
        temp_disk: v.temp_disk,
        fs_stripe_unit_bytes: v.fs_stripe_unit_bytes,
        fs_stripe_width_bytes: v.fs_stripe_width_bytes,
        mount_options: v.mount_options,
        backed_by: v.backed_by.map(backing),
    };
    located(v.key, v.label, item)
}

fn file(d: f::DbFile) -> Located<core::DbFile> {
    let item = core::DbFile {
        file_id: d.file_id,
        file_type: match d.file_type {
            f::FileType::Rows => core::FileType::Rows,
            f::FileType::Log => core::FileType::Log,
            f::FileType::Filestream => core::FileType::Filestream,
            f::FileType::Fulltext => core::FileType::Fulltext,
        },
        logical_name: d.logical_name,
        physical_name: d.physical_name,
        size_bytes: d.size_bytes,
        growth: d.growth.map(|g| match g {
            f::Growth::Disabled => core::Growth::Disabled,
            f::Growth::IncrementBytes(b) => core::Growth::IncrementBytes(b),
            f::Growth::Percent(p) => core::Growth::Percent(p),
        }),
        max_size: d.max_size.map(|m| match m {
            f::MaxSize::Unlimited => core::MaxSize::Unlimited,
            f::MaxSize::Bytes(b) => core::MaxSize::Bytes(b),
        }),
        volume_id: d.volume_id,
        io: d.io.map(|io| core::IoStats {
            num_of_reads: io.num_of_reads,
            num_of_writes: io.num_of_writes,
            num_of_bytes_read: io.num_of_bytes_read,
            num_of_bytes_written: io.num_of_bytes_written,
            io_stall_read_ms: io.io_stall_read_ms,
            io_stall_write_ms: io.io_stall_write_ms,
            sample_ms: io.sample_ms,
            // The 0.2 contract has no such field (it is frozen): not recorded.
            window: None,
        }),
    };
    located(d.key, d.label, item)
}
