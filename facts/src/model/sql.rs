use serde::{Deserialize, Serialize};

/// A SQL Server instance.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SqlInstance {
    /// Instance name: `MSSQLSERVER` for the default instance.
    pub name: String,
    /// `SERVERPROPERTY('ProductVersion')`, e.g. `16.0.4135.4`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// `SERVERPROPERTY('ProductLevel')`: `RTM`, `SP1`, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub product_level: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edition: Option<String>,
    /// `SERVERPROPERTY('IsClustered')`: a failover cluster instance, whose volumes move between
    /// nodes with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clustered: Option<bool>,
    /// `sys.dm_os_sys_info.cpu_count`: logical CPUs the instance sees.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_count: Option<u32>,
    /// `sys.dm_server_services.instant_file_initialization_enabled`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instant_file_initialization: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_account: Option<String>,
    /// Databases. Absent: not collected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub databases: Option<Vec<Database>>,
}

/// A database and its files.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Database {
    pub name: String,
    /// `database_id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<DatabaseRole>,
    /// `FULL`, `BULK_LOGGED` or `SIMPLE`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery_model: Option<String>,
    /// `ONLINE`, `OFFLINE`, `RESTORING`, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// Files (`sys.master_files`). Absent: not collected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<DbFile>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum DatabaseRole {
    /// master, model, msdb (and the distribution database).
    System,
    Tempdb,
    User,
}

impl Database {
    /// The role as recorded, else inferred from the well-known system database names.
    pub fn effective_role(&self) -> DatabaseRole {
        if let Some(role) = self.role {
            return role;
        }
        match self.name.to_ascii_lowercase().as_str() {
            "tempdb" => DatabaseRole::Tempdb,
            "master" | "model" | "msdb" => DatabaseRole::System,
            _ => DatabaseRole::User,
        }
    }
}

/// A database file (`sys.master_files`), with its I/O counters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct DbFile {
    /// `file_id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_id: Option<i32>,
    #[serde(rename = "type")]
    pub file_type: FileType,
    /// Logical file name.
    pub logical_name: String,
    /// Path of the file as the operating system sees it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub physical_name: Option<String>,
    /// Size in bytes (the DMV's 8 KiB pages already converted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub growth: Option<Growth>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_size: Option<MaxSize>,
    /// Id of the volume holding the file (`sys.dm_os_volume_stats.volume_id`), joined to
    /// `volumes[].id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volume_id: Option<String>,
    /// Raw counters of `sys.dm_io_virtual_file_stats`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io: Option<IoStats>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum FileType {
    /// Data file.
    #[default]
    Rows,
    Log,
    Filestream,
    Fulltext,
}

/// Autogrowth of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Growth {
    /// The file does not grow (`growth = 0`).
    Disabled,
    /// Grows by a fixed number of bytes.
    IncrementBytes(u64),
    /// Grows by a whole percentage of its current size.
    Percent(u32),
}

/// Largest size a file may grow to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum MaxSize {
    /// Grows until the volume is full (`max_size = -1`).
    Unlimited,
    Bytes(u64),
}

/// Counters of `sys.dm_io_virtual_file_stats`: cumulative since the instance started, or the
/// difference between two readings (`window` says which, `sample_ms` how long they cover).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct IoStats {
    pub num_of_reads: u64,
    pub num_of_writes: u64,
    pub num_of_bytes_read: u64,
    pub num_of_bytes_written: u64,
    pub io_stall_read_ms: u64,
    pub io_stall_write_ms: u64,
    /// Milliseconds the counters cover: since start-up, or between two samples. More than 0:
    /// leave it out when the window is not known.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "positive_ms")]
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub sample_ms: Option<u64>,
    /// What the counters cover: `since_start`, everything since the instance started (the
    /// DMV's own counters; `sample_ms` is then the uptime), or `sample`, the difference of two
    /// readings `sample_ms` apart (`collect sql --sample`). A week's average and a minute's answer
    /// different questions, so they are not compared with each other. Absent: not recorded
    /// (snapshots from before the field); a reader may then only guess from `sample_ms`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<IoWindow>,
}

/// What a file's I/O counters cover.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum IoWindow {
    /// Cumulative since the instance started.
    SinceStart,
    /// The difference of two readings a short time apart.
    Sample,
}

/// A window of 0 ms covers no I/O: averages over it mean nothing, so such a file is refused
/// (with its position) rather than judged.
fn positive_ms<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let ms = Option::<u64>::deserialize(d)?;
    if ms == Some(0) {
        return Err(serde::de::Error::custom(
            "sample_ms must be more than 0: a window of 0 ms covers no I/O (leave sample_ms out when \
             the window is not known)",
        ));
    }
    Ok(ms)
}

impl IoStats {
    /// Average read stall; `None` when there were no reads (no data, not 0 ms).
    pub fn avg_read_stall_ms(&self) -> Option<f64> {
        (self.num_of_reads > 0).then(|| self.io_stall_read_ms as f64 / self.num_of_reads as f64)
    }

    /// Average write stall; `None` when there were no writes.
    pub fn avg_write_stall_ms(&self) -> Option<f64> {
        (self.num_of_writes > 0).then(|| self.io_stall_write_ms as f64 / self.num_of_writes as f64)
    }
}
