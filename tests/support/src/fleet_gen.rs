//! The fleet generator shared by the benches (`fleet`, `plugins`) and the parse-speed test:
//! realistic snapshots, one host per file, about
//! 50 database files and 8 volumes each, the same for every run. See `benches/README.md`.

// Each bench uses a different part of it.
use std::fs;
use std::path::Path;

use spindle_core::facts::*;

pub const KIB: u64 = 1024;
pub const MIB: u64 = 1024 * KIB;
pub const GIB: u64 = 1024 * MIB;
pub const TIB: u64 = 1024 * GIB;

/// A 64-bit linear congruential generator (Knuth's MMIX constants), seeded by the host index,
/// so every run generates the same fleet without a `rand` dependency.
struct Lcg(u64);

impl Lcg {
    fn new(seed: u64) -> Self {
        let mut r = Lcg(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5DEE_CE66_D1CE_4E5B);
        for _ in 0..4 {
            r.next();
        }
        r
    }

    /// The high 32 bits of the state (the low bits of an LCG are poor).
    fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 32) as u32
    }

    /// Uniform in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next()) * u128::from(n)) >> 32) as u64
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }

    fn guid(&mut self) -> String {
        let (a, b, c, d) = (self.next(), self.next(), self.next(), self.next());
        format!(
            "{a:08x}-{:04x}-4{:03x}-{:04x}-{:04x}{c:08x}",
            b >> 16,
            b & 0xfff,
            0x8000 | ((d >> 16) & 0x3fff),
            d & 0xffff
        )
    }

    /// A 32-digit disk unique id, as `MSFT_Disk.UniqueId` reports it.
    fn unique_id(&mut self, prefix: &str) -> String {
        let mut s = prefix.to_string();
        while s.len() < 32 {
            s.push_str(&format!("{:08X}", self.next()));
        }
        s.truncate(32);
        s
    }
}

/// The eight volumes of every host (mount point, label); volume `k` lives on disk `k`. Two are
/// folder mounts under `D:\SQLData\`, so placement must pick the longest mount point.
pub const VOLUMES: [(&str, &str); 8] = [
    ("C:\\", "OS"),
    ("D:\\", "SQLData"),
    ("L:\\", "SQLLogs"),
    ("T:\\", "TempDB"),
    ("S:\\", "SQLSystem"),
    ("D:\\SQLData\\Data2\\", "SQLData2"),
    ("D:\\SQLData\\Data3\\", "SQLData3"),
    ("B:\\", "Backup"),
];
const OS: usize = 0;
const DATA: usize = 1;
const LOGS: usize = 2;
const TEMPDB: usize = 3;
const SYSTEM: usize = 4;
const DATA2: usize = 5;
const DATA3: usize = 6;
const BACKUP: usize = 7;

/// Database files per host.
pub const FILES_PER_HOST: usize = 50;

/// The snapshot of host `index`: what a WMI collector and a SQL collector together would write.
pub fn snapshot(index: usize) -> Snapshot {
    let mut r = Lcg::new(index as u64);
    let site = r.pick(&["ams", "fra", "lon", "nyc", "sgp", "syd"]);
    let name = format!("{site}-sql{index:05}");
    let is_virtual = r.chance(40);
    let azure = is_virtual && r.chance(50);
    let spaces = azure || r.chance(25);
    let cpu = r.pick(&[4, 8, 16, 24, 32, 48, 64]);
    let host = Host {
        name,
        os_family: Some(OsFamily::Windows),
        os_version: Some(
            r.pick(&[
                "Windows Server 2016 Standard",
                "Windows Server 2019 Standard",
                "Windows Server 2019 Datacenter",
                "Windows Server 2022 Datacenter",
            ])
            .to_string(),
        ),
        cpu_count: Some(cpu),
        memory_bytes: Some(r.pick(&[32, 64, 128, 256, 512]) * GIB),
        is_virtual: Some(is_virtual),
        cloud_provider: Some(if azure { CloudProvider::Azure } else { CloudProvider::None }),
    };
    let mut wmi =
        CollectorReport { name: "wmi".into(), version: Some("0.3.1".into()), not_collected: vec![] };
    let mut s = Snapshot {
        schema_version: SCHEMA_VERSION,
        collected_at: Some(format!(
            "2025-{:02}-{:02}T{:02}:{:02}:{:02}+00:00",
            r.range(1, 5),
            r.range(1, 28),
            r.range(0, 23),
            r.range(0, 59),
            r.range(0, 59)
        )),
        host,
        ..Default::default()
    };
    let storage = if spaces {
        storage_spaces(&mut r, &mut s, is_virtual, azure)
    } else {
        hardware_raid(&mut r, &mut s, &mut wmi)
    };
    let volume_ids = partitions_and_volumes(&mut r, &mut s, &storage);
    s.sql_instances = Some(vec![sql_instance(&mut r, cpu, &volume_ids, storage.rotational_data)]);
    s.collectors = vec![
        wmi,
        CollectorReport { name: "sql".into(), version: Some("0.3.1".into()), ..Default::default() },
    ];
    s
}

/// What the storage generators tell the rest: size and sectors of the disk under each volume.
struct Storage {
    disk_ids: [String; 8],
    disk_bytes: [u64; 8],
    rotational_data: bool,
}

fn member(id: String, model: &str, media: Media, rpm: Option<u32>, bus: &str, size: u64, phys: u32) -> Disk {
    Disk {
        id,
        model: Some(model.into()),
        media: Some(media),
        rpm,
        bus: Some(bus.into()),
        size_bytes: Some(size),
        logical_sector_bytes: Some(512),
        physical_sector_bytes: Some(phys),
        ..Default::default()
    }
}

/// Target sizes of the disks under the eight volumes.
fn volume_disk_sizes(r: &mut Lcg) -> [u64; 8] {
    [
        r.pick(&[128, 256, 480]) * GIB,
        r.range(2, 8) * TIB,
        r.pick(&[256, 512, 1024]) * GIB,
        r.pick(&[256, 512, 800]) * GIB,
        r.pick(&[64, 128]) * GIB,
        r.range(1, 4) * TIB,
        r.range(1, 4) * TIB,
        r.range(4, 16) * TIB,
    ]
}

/// A Dell-style server: BOSS RAID 1 for the OS, PERC logical drives for SQL Server, some of them
/// carved from the same spindles.
fn hardware_raid(r: &mut Lcg, s: &mut Snapshot, wmi: &mut CollectorReport) -> Storage {
    let sizes = volume_disk_sizes(r);
    let hdd = r.chance(40);
    let (mut disks, [boss, data, logs, temp, backup]) = perc_members(hdd);
    let mut raid_sets = vec![];
    let stripe_known = r.chance(70);
    if !stripe_known {
        wmi.not_collected.push(NotCollected {
            fact: "raid_sets[].stripe_unit_bytes".into(),
            reason: "PERC H740P virtual disks appear to Windows as RAID disks (MSFT_Disk BusType 8); the \
                     controller's strip size is not visible to Windows: read it with perccli and declare it"
                .into(),
        });
    }
    let data_level = r.pick(&["raid10", "raid10", "raid5"]);
    let data_unit = r.pick(&[64 * KIB, 128 * KIB, 256 * KIB, MIB]);
    let logs_on_data = r.chance(25);
    let plan: [(&[String], &str, u64); 8] = [
        (&boss, "raid1", 64 * KIB),
        (&data, data_level, data_unit),
        (if logs_on_data { &data } else { &logs }, if logs_on_data { data_level } else { "raid1" }, 64 * KIB),
        (&temp, r.pick(&["raid1", "raid0"]), 64 * KIB),
        (&logs, "raid1", 64 * KIB),
        (&data, data_level, data_unit),
        (&data, data_level, data_unit),
        (&backup, r.pick(&["raid5", "raid6"]), 256 * KIB),
    ];
    let mut disk_ids: [String; 8] = Default::default();
    let mut logical = vec![];
    for (k, (members, level, unit)) in plan.iter().enumerate() {
        let set = format!("perc-vd{k}");
        raid_sets.push(RaidSet {
            id: set.clone(),
            kind: Some(RaidKind::Hardware),
            level: Some(level.to_string()),
            stripe_unit_bytes: stripe_known.then_some(*unit),
            member_ids: Some(members.to_vec()),
        });
        disk_ids[k] = r.unique_id("6D094660");
        logical.push(Disk {
            id: disk_ids[k].clone(),
            number: Some(k as u32),
            model: Some(if k == OS { "DELLBOSS VD" } else { "PERC H740P Adp" }.into()),
            media: Some(Media::Unknown),
            bus: Some("RAID".into()),
            size_bytes: Some(sizes[k]),
            logical_sector_bytes: Some(512),
            physical_sector_bytes: Some(if k == OS || (!hdd && k != BACKUP) { 4096 } else { 512 }),
            backed_by: Some(Backing::RaidSet(set)),
            ..Default::default()
        });
    }
    logical.append(&mut disks);
    s.disks = Some(logical);
    s.raid_sets = Some(raid_sets);
    s.storage_pools = Some(vec![]);
    s.virtual_disks = Some(vec![]);
    Storage { disk_ids, disk_bytes: sizes, rotational_data: hdd }
}

/// The physical disks of [`hardware_raid`]: the BOSS card's two, then the PERC's eight for data,
/// two for logs, two for tempdb and four for backups; their ids in that order of groups.
fn perc_members(hdd: bool) -> (Vec<Disk>, [Vec<String>; 5]) {
    let mut disks = vec![];
    let group = |first: usize, n: usize, disks: &mut Vec<Disk>, kind: u8| -> Vec<String> {
        (first..first + n)
            .map(|k| {
                let id = format!("64:{k}");
                disks.push(match kind {
                    0 if hdd => member(
                        id.clone(),
                        "ST900MP0006",
                        Media::Hdd,
                        Some(15_000),
                        "SAS",
                        900_185_481_216,
                        512,
                    ),
                    0 | 1 => member(
                        id.clone(),
                        "MZILT1T9HBJR0D3",
                        Media::Ssd,
                        None,
                        "SAS",
                        1_920_383_410_176,
                        4096,
                    ),
                    _ => member(
                        id.clone(),
                        "ST4000NM0295",
                        Media::Hdd,
                        Some(7_200),
                        "SAS",
                        4_000_787_030_016,
                        4096,
                    ),
                });
                id
            })
            .collect()
    };
    let boss: Vec<String> = (0..2)
        .map(|k| {
            let id = format!("boss:{k}");
            disks.push(member(id.clone(), "MTFDDAV240TCB", Media::Ssd, None, "SATA", 240_057_409_536, 4096));
            id
        })
        .collect();
    let data = group(0, 8, &mut disks, 0);
    let logs = group(8, 2, &mut disks, 1);
    let temp = group(10, 2, &mut disks, 1);
    let backup = group(12, 4, &mut disks, 2);
    (disks, [boss, data, logs, temp, backup])
}

/// Storage Spaces: one pool, a virtual disk per SQL Server volume. In Azure the pool's disks are
/// managed disks whose media the hypervisor does not tell.
fn storage_spaces(r: &mut Lcg, s: &mut Snapshot, is_virtual: bool, azure: bool) -> Storage {
    let sizes = volume_disk_sizes(r);
    let hdd = !is_virtual && r.chance(30);
    let pool_size = r.pick(&[8, 10, 12]);
    let mut pool_disks = vec![];
    let mut pool_ids = vec![];
    for _ in 0..pool_size {
        let id = r.unique_id("60022480");
        pool_ids.push(id.clone());
        pool_disks.push(if azure {
            member(id, "Virtual Disk", Media::Unknown, None, "SAS", TIB, 4096)
        } else if hdd {
            member(id, "ST4000NM0295", Media::Hdd, Some(7_200), "SAS", 4_000_787_030_016, 4096)
        } else {
            member(id, "MZILT1T9HBJR0D3", Media::Ssd, None, "SAS", 1_920_383_410_176, 4096)
        });
    }
    let pool_id = format!("{{{}}}", r.guid());
    let mut disk_ids: [String; 8] = Default::default();
    let mut disks = vec![];
    let mut vds = vec![];
    disk_ids[OS] = r.unique_id("60022480B6E1");
    disks.push(Disk {
        id: disk_ids[OS].clone(),
        number: Some(0),
        model: Some(if is_virtual { "Virtual HD" } else { "MZ7KH480HAHQ0D3" }.into()),
        media: Some(if is_virtual { Media::Unknown } else { Media::Ssd }),
        bus: Some(if is_virtual { "ATA" } else { "SATA" }.into()),
        size_bytes: Some(sizes[OS]),
        logical_sector_bytes: Some(512),
        physical_sector_bytes: Some(if is_virtual { 512 } else { 4096 }),
        ..Default::default()
    });
    for k in 1..8 {
        let id = r.unique_id("A3F19C7E");
        let columns = r.pick(&[1, 2, 4, 4, 8, 8]).min(pool_size);
        let resiliency = if k == BACKUP {
            r.pick(&["Parity", "Mirror"])
        } else {
            r.pick(&["Simple", "Simple", "Mirror", "Mirror", "Parity"])
        };
        vds.push(VirtualDisk {
            id: id.clone(),
            name: Some(VOLUMES[k].1.to_string()),
            pool_id: pool_id.clone(),
            columns: Some(columns),
            interleave_bytes: Some(r.pick(&[64 * KIB, 64 * KIB, 64 * KIB, 256 * KIB])),
            resiliency: Some(resiliency.into()),
        });
        disk_ids[k] = id.clone();
        disks.push(Disk {
            id: id.clone(),
            number: Some(k as u32),
            model: Some("Storage Space".into()),
            bus: Some("Storage Spaces".into()),
            size_bytes: Some(sizes[k]),
            logical_sector_bytes: Some(512),
            physical_sector_bytes: Some(4096),
            backed_by: Some(Backing::VirtualDisk(id)),
            ..Default::default()
        });
    }
    disks.append(&mut pool_disks);
    s.disks = Some(disks);
    s.storage_pools = Some(vec![StoragePool {
        id: pool_id,
        name: Some("SQLPool".into()),
        physical_disk_ids: Some(pool_ids),
    }]);
    s.virtual_disks = Some(vds);
    s.raid_sets = Some(vec![]);
    Storage { disk_ids, disk_bytes: sizes, rotational_data: hdd }
}

/// Partitions (GPT mostly at 1 MiB; some behind a Microsoft reserved partition at 16 MiB; a few
/// MBR disks from the sector-63 era at 32,256) and the eight volumes. Returns the volume ids.
fn partitions_and_volumes(r: &mut Lcg, s: &mut Snapshot, st: &Storage) -> [String; 8] {
    let mut parts = vec![];
    let mut volumes = vec![];
    let mut ids: [String; 8] = Default::default();
    let small_cluster = r.chance(15).then(|| r.pick(&[LOGS, DATA2, DATA3, TEMPDB]));
    let low_free = r.chance(20).then(|| r.pick(&[DATA, LOGS, TEMPDB, DATA2, BACKUP]));
    for k in 0..8 {
        let disk = &st.disk_ids[k];
        let size = st.disk_bytes[k];
        let mut part = |n: u32, offset: u64, bytes: u64| {
            parts.push(Partition {
                id: format!("disk{k}-p{n}"),
                disk_id: disk.clone(),
                number: Some(n),
                offset_bytes: Some(offset),
                size_bytes: Some(bytes),
            });
            format!("disk{k}-p{n}")
        };
        let (data_part, offset, style) = if k == OS {
            part(1, MIB, 499 * MIB);
            part(2, 500 * MIB, 99 * MIB);
            part(3, 599 * MIB, 16 * MIB);
            (part(4, 615 * MIB, size - 615 * MIB), 615 * MIB, PartitionStyle::Gpt)
        } else {
            match r.below(100) {
                0..8 => (part(1, 32_256, size - 32_256), 32_256, PartitionStyle::Mbr),
                8..23 => {
                    part(1, 17_408, 16 * MIB - 17_408);
                    (part(2, 16 * MIB, size - 16 * MIB), 16 * MIB, PartitionStyle::Gpt)
                }
                _ => (part(1, MIB, size - MIB), MIB, PartitionStyle::Gpt),
            }
        };
        if let Some(d) = s.disks.as_mut().and_then(|d| d.iter_mut().find(|d| d.id == *disk)) {
            d.partition_style = Some(style);
        }
        let vol_bytes = (size - offset) / (64 * KIB) * (64 * KIB);
        let free_pct = if low_free == Some(k) { r.range(2, 9) } else { r.range(12, 70) };
        let filesystem = match k {
            BACKUP if r.chance(60) => "ReFS",
            DATA3 if r.chance(10) => "ReFS",
            _ => "NTFS",
        };
        ids[k] = format!("\\\\?\\Volume{{{}}}\\", r.guid());
        volumes.push(Volume {
            id: ids[k].clone(),
            mount_points: vec![VOLUMES[k].0.to_string()],
            label: Some(VOLUMES[k].1.to_string()),
            filesystem: Some(filesystem.into()),
            allocation_unit_bytes: Some(if k == OS || small_cluster == Some(k) { 4 * KIB } else { 64 * KIB }),
            size_bytes: Some(vol_bytes),
            free_bytes: Some(vol_bytes / 100 * free_pct),
            compressed: Some(k == BACKUP && r.chance(10)),
            encrypted: Some(false),
            os_volume: Some(k == OS),
            temp_disk: Some(false),
            mount_options: None,
            fs_stripe_unit_bytes: None,
            fs_stripe_width_bytes: None,
            backed_by: Some(Backing::Partitions(vec![data_part])),
        });
    }
    s.partitions = Some(parts);
    s.volumes = Some(volumes);
    ids
}

/// Makes database files with their I/O counters.
struct FileMaker<'a> {
    r: &'a mut Lcg,
    volume_ids: &'a [String; 8],
    with_volume_ids: bool,
    slow: bool,
    rotational: bool,
    uptime_ms: u64,
}

impl FileMaker<'_> {
    #[allow(clippy::too_many_arguments)]
    fn file(
        &mut self,
        id: i32,
        file_type: FileType,
        logical: String,
        dir: &str,
        file: &str,
        vol: usize,
        size: u64,
        growth: Growth,
    ) -> DbFile {
        let r = &mut *self.r;
        let log = file_type == FileType::Log;
        let days = self.uptime_ms / 86_400_000;
        let scale = size / GIB + 1;
        let (reads, writes) = if log {
            (r.range(10, 5_000) * days, r.range(20_000, 400_000) * days * scale.min(8))
        } else {
            (r.range(2_000, 200_000) * days * scale.min(32), r.range(1_000, 80_000) * days * scale.min(32))
        };
        // Average stalls in tenths of a millisecond.
        let (read_lat, write_lat) = match (self.slow, self.rotational, log) {
            (true, _, true) => (r.range(20, 200), r.range(60, 400)),
            (true, _, false) => (r.range(150, 900), r.range(80, 400)),
            (false, true, true) => (r.range(10, 80), r.range(5, 40)),
            (false, true, false) => (r.range(40, 180), r.range(10, 80)),
            (false, false, true) => (r.range(2, 30), r.range(2, 15)),
            (false, false, false) => (r.range(3, 40), r.range(2, 30)),
        };
        DbFile {
            file_id: Some(id),
            file_type,
            logical_name: logical,
            physical_name: Some(format!("{}{dir}{file}", VOLUMES[vol].0)),
            size_bytes: Some(size),
            growth: Some(growth),
            max_size: Some(if log { MaxSize::Bytes(2 * TIB) } else { MaxSize::Unlimited }),
            volume_id: self.with_volume_ids.then(|| self.volume_ids[vol].clone()),
            io: Some(IoStats {
                num_of_reads: reads,
                num_of_writes: writes,
                num_of_bytes_read: reads * if log { 60 * KIB } else { r.range(8, 128) * KIB },
                num_of_bytes_written: writes * if log { r.range(4, 60) * KIB } else { 8 * KIB },
                io_stall_read_ms: reads * read_lat / 10,
                io_stall_write_ms: writes * write_lat / 10,
                sample_ms: Some(self.uptime_ms),
                window: Some(IoWindow::SinceStart),
            }),
        }
    }
}

const USER_DBS: [&str; 16] = [
    "Sales",
    "Inventory",
    "Billing",
    "CRM",
    "Warehouse",
    "Reporting",
    "Audit",
    "HR",
    "Payroll",
    "Orders",
    "Catalog",
    "Shipping",
    "Ledger",
    "Portal",
    "Archive",
    "Staging",
];

/// One instance: master, model, msdb, tempdb and seven user databases, 50 files in all.
fn sql_instance(r: &mut Lcg, cpu: u32, volume_ids: &[String; 8], rotational: bool) -> SqlInstance {
    let (major, version) = r.pick(&[(14, "14.0.3465.1"), (15, "15.0.4345.5"), (16, "16.0.4135.4")]);
    let named = r.chance(20);
    let instance: String = if named {
        match major {
            14 => "SQL2017",
            15 => "SQL2019",
            _ => "SQL2022",
        }
        .into()
    } else {
        "MSSQLSERVER".into()
    };
    let system_vol = if r.chance(10) { OS } else { SYSTEM };
    let system_dir = if system_vol == OS {
        format!("Program Files\\Microsoft SQL Server\\MSSQL{major}.{instance}\\MSSQL\\DATA\\")
    } else {
        format!("MSSQL{major}.{instance}\\MSSQL\\DATA\\")
    };
    let tempdb_data = r.pick(&[8, 8, 4, 4, 2, 1]).min(cpu as usize);
    let tempdb_log_vol = if r.chance(50) { TEMPDB } else { LOGS };
    let with_volume_ids = r.chance(80);
    let slow = r.chance(10);
    let uptime_ms = r.range(1, 90) * 86_400_000;
    let ifi = r.chance(80);
    let mut m = FileMaker { r, volume_ids, with_volume_ids, slow, rotational, uptime_ms };
    let mut dbs = system_databases(&mut m, &system_dir, system_vol);
    dbs.insert(1, tempdb(&mut m, tempdb_data, tempdb_log_vol));
    dbs.extend(user_databases(&mut m, tempdb_data));
    SqlInstance {
        name: instance.clone(),
        version: Some(version.into()),
        product_level: Some("RTM".into()),
        clustered: Some(false),
        edition: Some(
            m.r.pick(&["Enterprise Edition: Core-based Licensing (64-bit)", "Standard Edition (64-bit)"])
                .into(),
        ),
        cpu_count: Some(cpu),
        instant_file_initialization: Some(ifi),
        service_account: Some(if named {
            format!("NT Service\\MSSQL${instance}")
        } else {
            "NT Service\\MSSQLSERVER".into()
        }),
        databases: Some(dbs),
    }
}

/// master, model and msdb: a data and a log file each, in `dir` on volume `vol`.
fn system_databases(m: &mut FileMaker<'_>, dir: &str, vol: usize) -> Vec<Database> {
    let mut dbs = vec![];
    let sys_growth = |m: &mut FileMaker<'_>| {
        if m.r.chance(40) { Growth::Percent(10) } else { Growth::IncrementBytes(64 * MIB) }
    };
    for (id, db, data, log) in [
        (1, "master", "master", "mastlog"),
        (3, "model", "modeldev", "modellog"),
        (4, "msdb", "MSDBData", "MSDBLog"),
    ] {
        let g1 = sys_growth(m);
        let g2 = sys_growth(m);
        let files = vec![
            m.file(1, FileType::Rows, data.into(), dir, &format!("{data}.mdf"), vol, 64 * MIB, g1),
            m.file(2, FileType::Log, log.into(), dir, &format!("{log}.ldf"), vol, 16 * MIB, g2),
        ];
        dbs.push(Database {
            name: db.into(),
            id: Some(id),
            role: Some(DatabaseRole::System),
            recovery_model: Some(if db == "msdb" { "SIMPLE" } else { "FULL" }.into()),
            state: Some("ONLINE".into()),
            files: Some(files),
        });
    }
    dbs
}

/// tempdb: `data_files` data files of one size (now and then one grown by hand) on its own
/// volume, and its log on `log_vol`.
fn tempdb(m: &mut FileMaker<'_>, data_files: usize, log_vol: usize) -> Database {
    let temp_size = m.r.pick(&[4, 8, 16]) * GIB;
    let mut temp_files = vec![];
    for k in 0..data_files {
        let (logical, file) = if k == 0 {
            ("tempdev".into(), "tempdb.mdf".into())
        } else {
            (format!("temp{}", k + 1), format!("tempdb_mssql_{}.ndf", k + 1))
        };
        // Now and then one file was grown by hand: unequal sizes.
        let size = if k == 1 && m.r.chance(10) { temp_size * 2 } else { temp_size };
        temp_files.push(m.file(
            k as i32 + if k == 0 { 1 } else { 2 },
            FileType::Rows,
            logical,
            "TempDB\\",
            &file,
            TEMPDB,
            size,
            Growth::IncrementBytes(512 * MIB),
        ));
    }
    temp_files.push(m.file(
        2,
        FileType::Log,
        "templog".into(),
        "TempDB\\",
        "templog.ldf",
        log_vol,
        8 * GIB,
        Growth::IncrementBytes(GIB),
    ));
    Database {
        name: "tempdb".into(),
        id: Some(2),
        role: Some(DatabaseRole::Tempdb),
        recovery_model: Some("SIMPLE".into()),
        state: Some("ONLINE".into()),
        files: Some(temp_files),
    }
}

/// Seven user databases share what is left of the 50 files after the system databases and
/// tempdb's `tempdb_data` and log: a log and at least one data file each, the rest spread at
/// random.
fn user_databases(m: &mut FileMaker<'_>, tempdb_data: usize) -> Vec<Database> {
    let user_files = FILES_PER_HOST - 6 - (tempdb_data + 1);
    let mut data_counts = [1usize; 7];
    let mut log_counts = [1usize; 7];
    for _ in 0..user_files - 14 {
        let d = m.r.below(7) as usize;
        // About one database in twenty has a second log file.
        if m.r.chance(3) && log_counts[d] == 1 {
            log_counts[d] = 2;
        } else {
            data_counts[d] += 1;
        }
    }
    let first = m.r.below(USER_DBS.len() as u64) as usize;
    (0..7)
        .map(|d| {
            let name = USER_DBS[(first + d * 3) % USER_DBS.len()];
            user_database(m, 5 + d as i32, name, data_counts[d], log_counts[d])
        })
        .collect()
}

/// User database `name`: `data_count` data files spread over the three data volumes, then
/// `log_count` logs, now and then on the data's volume.
fn user_database(
    m: &mut FileMaker<'_>,
    id: i32,
    name: &str,
    data_count: usize,
    log_count: usize,
) -> Database {
    let log_on_data = m.r.chance(8);
    let mut files = vec![];
    let mut fid = 1;
    for n in 0..data_count {
        let vol = match n % 3 {
            0 => DATA,
            1 => DATA2,
            _ => DATA3,
        };
        let growth = match m.r.below(100) {
            0..10 => Growth::Percent(10),
            10..13 => Growth::Disabled,
            13..40 => Growth::IncrementBytes(64 * MIB),
            40..75 => Growth::IncrementBytes(256 * MIB),
            _ => Growth::IncrementBytes(GIB),
        };
        let (logical, file) = if n == 0 {
            (name.to_string(), format!("{name}.mdf"))
        } else {
            (format!("{name}_data{}", n + 1), format!("{name}_data{}.ndf", n + 1))
        };
        let size = m.r.range(1, 400) * GIB + m.r.below(1024) * MIB;
        files.push(m.file(fid, FileType::Rows, logical, "SQLData\\", &file, vol, size, growth));
        fid += if fid == 1 { 2 } else { 1 };
    }
    for n in 0..log_count {
        let vol = if log_on_data { DATA } else { LOGS };
        let growth = if m.r.chance(10) {
            Growth::Percent(10)
        } else {
            Growth::IncrementBytes(m.r.pick(&[512 * MIB, GIB, 8 * GIB]))
        };
        let (logical, file) = if n == 0 {
            (format!("{name}_log"), format!("{name}_log.ldf"))
        } else {
            (format!("{name}_log{}", n + 1), format!("{name}_log{}.ldf", n + 1))
        };
        let size = m.r.range(1, 64) * GIB;
        files.push(m.file(
            if n == 0 { 2 } else { fid + n as i32 },
            FileType::Log,
            logical,
            "SQLLogs\\",
            &file,
            vol,
            size,
            growth,
        ));
    }
    Database {
        name: name.into(),
        id: Some(id),
        role: Some(DatabaseRole::User),
        recovery_model: Some(m.r.pick(&["FULL", "FULL", "SIMPLE"]).into()),
        state: Some("ONLINE".into()),
        files: Some(files),
    }
}

/// Writes snapshots `0..n` into `dir`, one pretty-printed file per host, on every core.
pub fn generate(dir: &Path, n: usize) -> Result<(), String> {
    fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = n.div_ceil(threads);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || -> Result<(), String> {
                    for i in (t * chunk)..((t + 1) * chunk).min(n) {
                        let s = snapshot(i);
                        let text = serde_json::to_string_pretty(&s).map_err(|e| e.to_string())?;
                        let path = dir.join(format!("{}.json", s.host.name));
                        fs::write(&path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))?;
                    }
                    Ok(())
                })
            })
            .collect();
        workers.into_iter().try_for_each(|w| w.join().map_err(|_| "generator panicked".to_string())?)
    })
}
