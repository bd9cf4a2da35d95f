//! Query rows → the facts snapshot. Pure: every unit conversion of the SQL collector happens
//! here, once — 8 KiB pages to bytes, KiB of memory to bytes, seconds of uptime to ms — and a
//! query that failed leaves its facts absent with the server's reason, never guessed.

use std::collections::{BTreeMap, HashMap};

use spindle_core::facts::{
    Database, DatabaseRole, DbFile, FileType, Growth, Host, IoStats, IoWindow, MaxSize, OsFamily,
    SCHEMA_VERSION, Snapshot, SqlInstance, Volume,
};

use crate::notes::Uncollected;

use super::rows::{
    DatabaseRow, FileRow, FileStatsRow, HostInfoRow, ServerRow, ServiceRow, SysInfoRow, VolumeRow,
};

/// SQL Server's page: `size`, `max_size` and fixed `growth` of `sys.master_files` count these.
pub const PAGE_BYTES: u64 = 8192;

/// Why a query's facts are missing: the server's message, or the version that lacks the DMV.
pub type Missing = String;

/// The I/O counters read, and what they cover.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counters {
    pub rows: Vec<FileStatsRow>,
    /// Milliseconds the counters cover: the service's uptime for cumulative counters, the
    /// interval for a sampled delta. `None` when unknown.
    pub covers_ms: Option<u64>,
    /// Cumulative since start-up (one reading), or a sample (two readings' difference).
    pub window: IoWindow,
}

/// Everything one collection read from one server.
#[derive(Debug, Clone, Default)]
pub struct Collected {
    pub server: ServerRow,
    pub sys_info: Option<Result<SysInfoRow, Missing>>,
    pub host_info: Option<Result<HostInfoRow, Missing>>,
    pub databases: Option<Result<Vec<DatabaseRow>, Missing>>,
    pub files: Option<Result<Vec<FileRow>, Missing>>,
    pub volumes: Option<Result<Vec<VolumeRow>, Missing>>,
    pub counters: Option<Result<Counters, Missing>>,
    pub service: Option<Result<Option<ServiceRow>, Missing>>,
    /// Facts left out for another reason (an older version's missing column, a NULL).
    pub notes: Uncollected,
    /// When the collection ran (RFC 3339).
    pub collected_at: Option<String>,
}

/// Pages to bytes; `None` for a negative count (not a size) or one too large to be real.
pub fn pages_to_bytes(pages: i64) -> Option<u64> {
    u64::try_from(pages).ok()?.checked_mul(PAGE_BYTES)
}

/// `growth` + `is_percent_growth` as the catalog keeps them → growth in bytes or percent.
pub fn growth(growth: i64, is_percent: bool) -> Option<Growth> {
    match growth {
        0 => Some(Growth::Disabled),
        g if is_percent => u32::try_from(g).ok().map(Growth::Percent),
        g => pages_to_bytes(g).map(Growth::IncrementBytes),
    }
}

/// `max_size`: -1 is "until the disk is full"; any other value counts pages.
pub fn max_size(pages: i64) -> Option<MaxSize> {
    if pages == -1 { Some(MaxSize::Unlimited) } else { pages_to_bytes(pages).map(MaxSize::Bytes) }
}

fn file_type(code: i32) -> Option<FileType> {
    match code {
        0 => Some(FileType::Rows),
        1 => Some(FileType::Log),
        2 => Some(FileType::Filestream),
        4 => Some(FileType::Fulltext),
        _ => None,
    }
}

fn role(db: &DatabaseRow) -> DatabaseRole {
    match db.name.to_ascii_lowercase().as_str() {
        "tempdb" => DatabaseRole::Tempdb,
        "master" | "model" | "msdb" => DatabaseRole::System,
        _ if db.is_distributor == Some(1) => DatabaseRole::System,
        _ => DatabaseRole::User,
    }
}

fn non_empty(s: &Option<String>) -> Option<String> {
    s.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned)
}

fn to_u64(v: Option<i64>) -> Option<u64> {
    v.and_then(|v| u64::try_from(v).ok())
}

/// The fact `sys.dm_server_services` answers.
const IFI: &str = "sql_instances[].instant_file_initialization";

/// Builds the snapshot. `fallback_host` names the host when the server did not say.
pub fn snapshot(c: Collected, fallback_host: &str) -> Snapshot {
    let mut notes = c.notes;
    // A query not attempted (`None`) stays silent: the collector noted why when it skipped it.
    let sys_info = c.sys_info.and_then(|r| notes.take("host.memory_bytes", r));
    let host_info = c.host_info.and_then(|r| notes.take("host.os_version", r));
    let host = host(&c.server, sys_info.as_ref(), host_info, fallback_host);
    let mut instance = instance(&c.server, sys_info.as_ref());
    if let Some(service) = c.service.and_then(|r| notes.take(IFI, r)) {
        service_facts(&mut instance, service, &mut notes);
    }
    let volume_rows = c.volumes.and_then(|r| notes.take("volumes", r));
    let (volumes, volume_of_file) = volumes(volume_rows.as_deref().unwrap_or_default(), &mut notes);
    let uptime_ms = sys_info.as_ref().and_then(|si| to_u64(si.uptime_s)).and_then(|s| s.checked_mul(1000));
    let counters = c.counters.and_then(|r| notes.take("sql_instances[].databases[].files[].io", r));
    let io_of_file = io_of_file(counters.as_ref(), uptime_ms);
    let file_rows = c.files.and_then(|r| notes.take("sql_instances[].databases[].files", r));
    let mut files_of_db = match &file_rows {
        Some(rows) => files_of_db(rows, &volume_of_file, &io_of_file, &mut notes),
        None => BTreeMap::new(),
    };
    if let Some(dbs) = c.databases.and_then(|r| notes.take("sql_instances[].databases", r)) {
        let with_files = file_rows.is_some();
        instance.databases = Some(
            dbs.iter()
                .map(|d| Database {
                    name: d.name.clone(),
                    id: Some(d.database_id),
                    role: Some(role(d)),
                    recovery_model: non_empty(&d.recovery_model_desc),
                    state: non_empty(&d.state_desc),
                    files: with_files.then(|| files_of_db.remove(&d.database_id).unwrap_or_default()),
                })
                .collect(),
        );
    }

    Snapshot {
        schema_version: SCHEMA_VERSION,
        collected_at: c.collected_at,
        host,
        collectors: vec![notes.report("sql")],
        volumes: volume_rows.map(|_| volumes.into_values().collect()),
        sql_instances: Some(vec![instance]),
        ..Snapshot::default()
    }
}

/// The machine SQL Server runs on, as the server describes it.
fn host(
    s: &ServerRow,
    sys_info: Option<&SysInfoRow>,
    host_info: Option<HostInfoRow>,
    fallback_host: &str,
) -> Host {
    let name = non_empty(&s.physical_host)
        .or_else(|| non_empty(&s.machine_name))
        .unwrap_or_else(|| fallback_host.to_owned());
    let mut host = Host { name, ..Host::default() };
    if let Some(si) = sys_info {
        host.cpu_count = si.cpu_count.and_then(|n| u32::try_from(n).ok());
        host.memory_bytes = to_u64(si.physical_memory_kb).and_then(|kb| kb.checked_mul(1024));
        host.is_virtual = si.virtual_machine_type.map(|t| t != 0);
    }
    if let Some(hi) = host_info {
        host.os_family = hi.platform.as_deref().map(|p| match p.trim().to_ascii_lowercase().as_str() {
            "windows" => OsFamily::Windows,
            "linux" => OsFamily::Linux,
            _ => OsFamily::Other,
        });
        host.os_version = match (non_empty(&hi.distribution), non_empty(&hi.release)) {
            (Some(d), Some(r)) if !d.contains(&r) => Some(format!("{d} {r}")),
            (Some(d), _) => Some(d),
            (None, r) => r,
        };
    }
    host
}

fn instance(s: &ServerRow, sys_info: Option<&SysInfoRow>) -> SqlInstance {
    SqlInstance {
        name: non_empty(&s.instance_name).unwrap_or_else(|| "MSSQLSERVER".into()),
        version: non_empty(&s.product_version),
        product_level: non_empty(&s.product_level),
        edition: non_empty(&s.edition),
        clustered: s.is_clustered.map(|c| c == 1),
        cpu_count: sys_info.and_then(|si| si.cpu_count).and_then(|n| u32::try_from(n).ok()),
        ..SqlInstance::default()
    }
}

/// The Database Engine's service account and instant file initialization.
fn service_facts(instance: &mut SqlInstance, service: Option<ServiceRow>, notes: &mut Uncollected) {
    let Some(row) = service else {
        notes.miss(IFI, "sys.dm_server_services has no Database Engine row");
        return;
    };
    instance.service_account = non_empty(&row.service_account);
    instance.instant_file_initialization = match row.ifi.as_deref().map(str::trim) {
        Some("Y") | Some("y") => Some(true),
        Some("N") | Some("n") => Some(false),
        _ => {
            if !notes.has(IFI) {
                notes.miss(IFI, "sys.dm_server_services.instant_file_initialization_enabled is NULL");
            }
            None
        }
    };
}

/// One volume per volume id, and each file's volume id: what joins a file to the host
/// collector's volumes.
fn volumes(
    rows: &[VolumeRow],
    notes: &mut Uncollected,
) -> (BTreeMap<String, Volume>, HashMap<(i32, i32), String>) {
    let mut volume_of_file: HashMap<(i32, i32), String> = HashMap::new();
    let mut volumes: BTreeMap<String, Volume> = BTreeMap::new();
    let mut files_without_volume_id = 0usize;
    for r in rows {
        let Some(id) = non_empty(&r.volume_id) else {
            files_without_volume_id += 1;
            continue;
        };
        volume_of_file.insert((r.database_id, r.file_id), id.clone());
        let v = volumes.entry(id.clone()).or_insert_with(|| Volume {
            id: id.clone(),
            label: non_empty(&r.logical_volume_name),
            filesystem: non_empty(&r.file_system_type),
            size_bytes: to_u64(r.total_bytes),
            free_bytes: to_u64(r.available_bytes),
            compressed: r.is_compressed.map(|c| c != 0),
            ..Volume::default()
        });
        if let Some(mp) = non_empty(&r.mount_point)
            && !v.mount_points.contains(&mp)
        {
            v.mount_points.push(mp);
        }
    }
    if files_without_volume_id > 0 {
        notes.miss(
            "sql_instances[].databases[].files[].volume_id",
            format!(
                "sys.dm_os_volume_stats gave no volume id for {files_without_volume_id} file(s) (SQL Server \
                 on Linux reports none); their volumes are found by mount point from the host collector"
            ),
        );
    }
    (volumes, volume_of_file)
}

/// Each file's I/O counters, over the window they cover (the uptime for cumulative ones).
fn io_of_file(counters: Option<&Counters>, uptime_ms: Option<u64>) -> HashMap<(i32, i32), IoStats> {
    counters
        .map(|ctr| {
            let covers = ctr.covers_ms.or(uptime_ms);
            let window = ctr.window;
            ctr.rows
                .iter()
                .filter_map(|r| Some(((r.database_id, r.file_id), io_stats(r, covers, window)?)))
                .collect()
        })
        .unwrap_or_default()
}

/// Each database's files, with their volume and I/O; files of an internal type are left out.
fn files_of_db(
    rows: &[FileRow],
    volume_of_file: &HashMap<(i32, i32), String>,
    io_of_file: &HashMap<(i32, i32), IoStats>,
    notes: &mut Uncollected,
) -> BTreeMap<i32, Vec<DbFile>> {
    let mut files_of_db: BTreeMap<i32, Vec<DbFile>> = BTreeMap::new();
    let mut internal = 0usize;
    for r in rows {
        let Some(file_type) = file_type(r.type_code) else {
            internal += 1;
            continue;
        };
        let key = (r.database_id, r.file_id);
        let size_bytes = r.size_pages.and_then(pages_to_bytes);
        files_of_db.entry(r.database_id).or_default().push(DbFile {
            file_id: Some(r.file_id),
            file_type,
            logical_name: r.name.clone(),
            physical_name: non_empty(&r.physical_name),
            // FILESTREAM containers report 0 pages: not their size.
            size_bytes: size_bytes.filter(|&b| b > 0 || file_type != FileType::Filestream),
            growth: r.growth.and_then(|g| growth(g, r.is_percent_growth == Some(1))),
            max_size: r.max_size_pages.and_then(max_size),
            volume_id: volume_of_file.get(&key).cloned(),
            io: io_of_file.get(&key).copied(),
        });
    }
    if internal > 0 {
        notes.miss(
            "sql_instances[].databases[].files",
            format!("{internal} file(s) of an internal or unknown type were left out"),
        );
    }
    files_of_db
}

fn io_stats(r: &FileStatsRow, covers_ms: Option<u64>, window: IoWindow) -> Option<IoStats> {
    Some(IoStats {
        num_of_reads: u64::try_from(r.num_of_reads).ok()?,
        num_of_writes: u64::try_from(r.num_of_writes).ok()?,
        num_of_bytes_read: u64::try_from(r.num_of_bytes_read).ok()?,
        num_of_bytes_written: u64::try_from(r.num_of_bytes_written).ok()?,
        io_stall_read_ms: u64::try_from(r.io_stall_read_ms).ok()?,
        io_stall_write_ms: u64::try_from(r.io_stall_write_ms).ok()?,
        // A window of 0 ms (a service that has just started) covers no I/O: unknown, as snapshots
        // refuse 0.
        sample_ms: covers_ms.filter(|&ms| ms > 0),
        window: Some(window),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_become_bytes_once() {
        assert_eq!(pages_to_bytes(1), Some(8192));
        assert_eq!(pages_to_bytes(131_072), Some(1 << 30));
        assert_eq!(pages_to_bytes(-1), None);
        assert_eq!(pages_to_bytes(i64::MAX), None, "overflow is not a size");
    }

    #[test]
    fn growth_is_bytes_or_percent_never_mixed() {
        assert_eq!(growth(0, false), Some(Growth::Disabled));
        assert_eq!(growth(0, true), Some(Growth::Disabled));
        assert_eq!(growth(10, true), Some(Growth::Percent(10)));
        // 8,192 pages = 64 MiB, not 8,192 KiB (dbachecks' mistake) nor 8,192 MB.
        assert_eq!(growth(8192, false), Some(Growth::IncrementBytes(64 << 20)));
        assert_eq!(growth(-5, false), None);
        assert_eq!(max_size(-1), Some(MaxSize::Unlimited));
        assert_eq!(max_size(268_435_456), Some(MaxSize::Bytes(2 << 40)), "the 2 TB log cap");
    }

    fn file(db: i32, id: i32, ty: i32, name: &str, size: i64) -> FileRow {
        FileRow {
            database_id: db,
            file_id: id,
            type_code: ty,
            name: name.into(),
            physical_name: Some(format!("E:\\{name}")),
            size_pages: Some(size),
            max_size_pages: Some(-1),
            growth: Some(10),
            is_percent_growth: Some(1),
        }
    }

    fn server() -> ServerRow {
        ServerRow {
            product_version: Some("16.0.1000.6".into()),
            physical_host: Some("NODE1".into()),
            machine_name: Some("SQLFCI".into()),
            ..ServerRow::default()
        }
    }

    #[test]
    fn rows_map_to_facts_and_failures_to_reasons() {
        let c = Collected {
            server: server(),
            databases: Some(Ok(vec![
                DatabaseRow { database_id: 2, name: "tempdb".into(), ..DatabaseRow::default() },
                DatabaseRow {
                    database_id: 9,
                    name: "distribution".into(),
                    is_distributor: Some(1),
                    ..Default::default()
                },
                DatabaseRow { database_id: 5, name: "Sales".into(), ..DatabaseRow::default() },
            ])),
            files: Some(Ok(vec![
                file(5, 1, 0, "Sales", 128),
                file(5, 2, 1, "Sales_log", 64),
                file(5, 65537, 2, "Sales_fs", 0),
                file(5, 3, 3, "internal", 8),
            ])),
            volumes: Some(Err("sys.dm_os_volume_stats: error 300: denied".into())),
            counters: Some(Ok(Counters {
                rows: vec![FileStatsRow {
                    database_id: 5,
                    file_id: 1,
                    num_of_reads: 4,
                    io_stall_read_ms: 80,
                    ..Default::default()
                }],
                covers_ms: Some(60_000),
                window: IoWindow::Sample,
            })),
            ..Collected::default()
        };
        let s = snapshot(c, "fallback");
        // The physical node, not the cluster's virtual name: volumes belong to the node.
        assert_eq!(s.host.name, "NODE1");
        assert!(s.volumes.is_none(), "a refused query leaves its facts absent, not empty");
        let notes = &s.collectors[0].not_collected;
        assert!(notes.iter().any(|n| n.fact == "volumes" && n.reason.contains("error 300")));
        assert!(notes.iter().any(|n| n.reason.contains("1 file(s) of an internal")));
        let dbs = s.sql_instances.as_ref().unwrap()[0].databases.as_ref().unwrap();
        let roles: Vec<_> = dbs.iter().map(|d| d.role.unwrap()).collect();
        assert_eq!(roles, [DatabaseRole::Tempdb, DatabaseRole::System, DatabaseRole::User]);
        assert_eq!(dbs[0].files.as_deref(), Some(&[][..]), "collected, and tempdb has none here");
        let files = dbs[2].files.as_ref().unwrap();
        assert_eq!(files.len(), 3);
        assert_eq!(files[0].size_bytes, Some(128 * 8192));
        assert_eq!(files[0].growth, Some(Growth::Percent(10)));
        assert_eq!(files[0].io.unwrap().sample_ms, Some(60_000));
        assert_eq!(files[0].io.unwrap().window, Some(IoWindow::Sample), "a delta of two reads");
        assert_eq!(files[0].io.unwrap().avg_read_stall_ms(), Some(20.0));
        assert!(files[1].io.is_none(), "no counters read for it");
        assert_eq!(files[2].file_type, FileType::Filestream);
        assert_eq!(files[2].size_bytes, None, "a FILESTREAM container's 0 pages is not its size");
    }

    #[test]
    fn one_read_of_the_counters_covers_the_uptime_since_start_up() {
        let c = Collected {
            server: server(),
            sys_info: Some(Ok(SysInfoRow { uptime_s: Some(1800), ..SysInfoRow::default() })),
            databases: Some(Ok(vec![DatabaseRow {
                database_id: 5,
                name: "Sales".into(),
                ..DatabaseRow::default()
            }])),
            files: Some(Ok(vec![file(5, 1, 0, "Sales", 128)])),
            counters: Some(Ok(Counters {
                rows: vec![FileStatsRow {
                    database_id: 5,
                    file_id: 1,
                    num_of_reads: 4,
                    ..Default::default()
                }],
                covers_ms: None,
                window: IoWindow::SinceStart,
            })),
            ..Collected::default()
        };
        let s = snapshot(c, "fallback");
        let io =
            s.sql_instances.unwrap()[0].databases.as_ref().unwrap()[0].files.as_ref().unwrap()[0].io.unwrap();
        // Half an hour of uptime is no sample: the window says what the counters are.
        assert_eq!((io.sample_ms, io.window), (Some(1_800_000), Some(IoWindow::SinceStart)));
    }

    #[test]
    fn files_without_a_database_list_are_not_guessed_into_one() {
        let c = Collected {
            server: server(),
            databases: Some(Err("sys.databases: error 229: denied".into())),
            files: Some(Ok(vec![file(5, 1, 0, "Sales", 128)])),
            ..Collected::default()
        };
        let s = snapshot(c, "fallback");
        assert!(s.sql_instances.as_ref().unwrap()[0].databases.is_none());
        assert!(s.collectors[0].not_collected.iter().any(|n| n.fact == "sql_instances[].databases"));
    }
}
