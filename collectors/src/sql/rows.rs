//! What each query returns, as plain structs, and how a TDS row becomes one.
//!
//! The structs keep the catalog's own units (8 KiB pages, KiB of memory, whole seconds of
//! uptime); converting them is `map.rs`'s job, done once.

use tiberius::Row;

/// A column that was absent, NULL where it may not be, or of an unexpected type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadColumn(pub String);

fn col<'a, T: tiberius::FromSql<'a>>(row: &'a Row, name: &str) -> Result<Option<T>, BadColumn> {
    row.try_get::<T, _>(name).map_err(|e| BadColumn(format!("column {name}: {e}")))
}

fn text(row: &Row, name: &str) -> Result<Option<String>, BadColumn> {
    Ok(col::<&str>(row, name)?.map(str::to_owned))
}

fn required<T>(v: Option<T>, name: &str) -> Result<T, BadColumn> {
    v.ok_or_else(|| BadColumn(format!("column {name} is NULL")))
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerRow {
    pub product_version: Option<String>,
    pub product_level: Option<String>,
    pub edition: Option<String>,
    pub is_clustered: Option<i32>,
    pub physical_host: Option<String>,
    pub machine_name: Option<String>,
    pub instance_name: Option<String>,
}

impl ServerRow {
    pub fn read(row: &Row) -> Result<Self, BadColumn> {
        Ok(ServerRow {
            product_version: text(row, "product_version")?,
            product_level: text(row, "product_level")?,
            edition: text(row, "edition")?,
            is_clustered: col(row, "is_clustered")?,
            physical_host: text(row, "physical_host")?,
            machine_name: text(row, "machine_name")?,
            instance_name: text(row, "instance_name")?,
        })
    }

    /// `(major, minor, build)` of `ProductVersion`.
    pub fn version_parts(&self) -> Option<(u32, u32, u32)> {
        let mut it = self.product_version.as_deref()?.split('.').map(|p| p.trim().parse::<u32>().ok());
        Some((it.next()??, it.next()??, it.next()??))
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SysInfoRow {
    pub cpu_count: Option<i32>,
    pub physical_memory_kb: Option<i64>,
    pub virtual_machine_type: Option<i32>,
    pub uptime_s: Option<i64>,
}

impl SysInfoRow {
    pub fn read(row: &Row) -> Result<Self, BadColumn> {
        Ok(SysInfoRow {
            cpu_count: col(row, "cpu_count")?,
            physical_memory_kb: col(row, "physical_memory_kb")?,
            virtual_machine_type: col(row, "virtual_machine_type")?,
            uptime_s: col(row, "uptime_s")?,
        })
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostInfoRow {
    pub platform: Option<String>,
    pub distribution: Option<String>,
    pub release: Option<String>,
}

impl HostInfoRow {
    pub fn read(row: &Row) -> Result<Self, BadColumn> {
        Ok(HostInfoRow {
            platform: text(row, "host_platform")?,
            distribution: text(row, "host_distribution")?,
            release: text(row, "host_release")?,
        })
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DatabaseRow {
    pub database_id: i32,
    pub name: String,
    pub state_desc: Option<String>,
    pub recovery_model_desc: Option<String>,
    pub is_distributor: Option<i32>,
}

impl DatabaseRow {
    pub fn read(row: &Row) -> Result<Self, BadColumn> {
        Ok(DatabaseRow {
            database_id: required(col(row, "database_id")?, "database_id")?,
            name: required(text(row, "name")?, "name")?,
            state_desc: text(row, "state_desc")?,
            recovery_model_desc: text(row, "recovery_model_desc")?,
            is_distributor: col(row, "is_distributor")?,
        })
    }
}

/// A `sys.master_files` row, sizes in 8 KiB pages as the catalog keeps them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileRow {
    pub database_id: i32,
    pub file_id: i32,
    pub type_code: i32,
    pub name: String,
    pub physical_name: Option<String>,
    pub size_pages: Option<i64>,
    pub max_size_pages: Option<i64>,
    pub growth: Option<i64>,
    pub is_percent_growth: Option<i32>,
}

impl FileRow {
    pub fn read(row: &Row) -> Result<Self, BadColumn> {
        Ok(FileRow {
            database_id: required(col(row, "database_id")?, "database_id")?,
            file_id: required(col(row, "file_id")?, "file_id")?,
            type_code: required(col(row, "type")?, "type")?,
            name: required(text(row, "name")?, "name")?,
            physical_name: text(row, "physical_name")?,
            size_pages: col(row, "size_pages")?,
            max_size_pages: col(row, "max_size_pages")?,
            growth: col(row, "growth")?,
            is_percent_growth: col(row, "is_percent_growth")?,
        })
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VolumeRow {
    pub database_id: i32,
    pub file_id: i32,
    pub volume_id: Option<String>,
    pub mount_point: Option<String>,
    pub logical_volume_name: Option<String>,
    pub file_system_type: Option<String>,
    pub total_bytes: Option<i64>,
    pub available_bytes: Option<i64>,
    pub is_compressed: Option<i32>,
}

impl VolumeRow {
    pub fn read(row: &Row) -> Result<Self, BadColumn> {
        Ok(VolumeRow {
            database_id: required(col(row, "database_id")?, "database_id")?,
            file_id: required(col(row, "file_id")?, "file_id")?,
            volume_id: text(row, "volume_id")?,
            mount_point: text(row, "volume_mount_point")?,
            logical_volume_name: text(row, "logical_volume_name")?,
            file_system_type: text(row, "file_system_type")?,
            total_bytes: col(row, "total_bytes")?,
            available_bytes: col(row, "available_bytes")?,
            is_compressed: col(row, "is_compressed")?,
        })
    }
}

/// Raw `sys.dm_io_virtual_file_stats` counters of one file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FileStatsRow {
    pub database_id: i32,
    pub file_id: i32,
    pub sample_ms: i64,
    pub num_of_reads: i64,
    pub num_of_writes: i64,
    pub num_of_bytes_read: i64,
    pub num_of_bytes_written: i64,
    pub io_stall_read_ms: i64,
    pub io_stall_write_ms: i64,
}

impl FileStatsRow {
    pub fn read(row: &Row) -> Result<Self, BadColumn> {
        let n = |name: &str| -> Result<i64, BadColumn> { required(col::<i64>(row, name)?, name) };
        Ok(FileStatsRow {
            database_id: required(col(row, "database_id")?, "database_id")?,
            file_id: required(col(row, "file_id")?, "file_id")?,
            sample_ms: n("sample_ms")?,
            num_of_reads: n("num_of_reads")?,
            num_of_writes: n("num_of_writes")?,
            num_of_bytes_read: n("num_of_bytes_read")?,
            num_of_bytes_written: n("num_of_bytes_written")?,
            io_stall_read_ms: n("io_stall_read_ms")?,
            io_stall_write_ms: n("io_stall_write_ms")?,
        })
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServiceRow {
    pub servicename: Option<String>,
    pub service_account: Option<String>,
    /// `Y`, `N`, or NULL; `None` also when the query had no such column (older builds).
    pub ifi: Option<String>,
}

impl ServiceRow {
    pub fn read(row: &Row) -> Result<Self, BadColumn> {
        Ok(ServiceRow {
            servicename: text(row, "servicename")?,
            service_account: text(row, "service_account")?,
            // Older builds are asked without the column.
            ifi: if row.columns().iter().any(|c| c.name() == "ifi") { text(row, "ifi")? } else { None },
        })
    }
}
