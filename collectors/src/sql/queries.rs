//! The collector's SQL, one read-only batch per fact source.
//!
//! Every column is CAST to `INT`, `BIGINT` or `NVARCHAR` so the wire types are the same on every
//! SQL Server version (`SERVERPROPERTY` returns `sql_variant`, `sys.dm_io_virtual_file_stats`
//! switched `sample_ms` from int to bigint in 2016, ...) and the row readers need one type per
//! column. Sizes stay in the units the catalog uses (8 KiB pages); `map.rs` converts them to bytes
//! exactly once. Columns and permissions: `shared/reference/facts-sources.md` §1.
//!
//! The texts are matched verbatim by the TDS mock in the integration tests, which include this
//! file by path: change a query here and the tests follow.

/// `SERVERPROPERTY`: any login may call it. Needed first: the version decides the other queries.
pub const SERVER_PROPERTIES: &str = "SELECT \
CAST(SERVERPROPERTY('ProductVersion') AS NVARCHAR(128)) AS product_version, \
CAST(SERVERPROPERTY('ProductLevel') AS NVARCHAR(128)) AS product_level, \
CAST(SERVERPROPERTY('Edition') AS NVARCHAR(128)) AS edition, \
CAST(SERVERPROPERTY('IsClustered') AS INT) AS is_clustered, \
CAST(SERVERPROPERTY('ComputerNamePhysicalNetBIOS') AS NVARCHAR(128)) AS physical_host, \
CAST(SERVERPROPERTY('MachineName') AS NVARCHAR(128)) AS machine_name, \
CAST(SERVERPROPERTY('InstanceName') AS NVARCHAR(128)) AS instance_name";

/// `sys.dm_os_sys_info`, SQL Server 2012 and later (`physical_memory_kb`). The uptime is what
/// cumulative I/O counters cover (they restart with the service, not the machine).
pub const SYS_INFO: &str = "SELECT \
CAST(cpu_count AS INT) AS cpu_count, \
CAST(physical_memory_kb AS BIGINT) AS physical_memory_kb, \
CAST(virtual_machine_type AS INT) AS virtual_machine_type, \
CAST(DATEDIFF(SECOND, sqlserver_start_time, GETDATE()) AS BIGINT) AS uptime_s \
FROM sys.dm_os_sys_info";

/// `sys.dm_os_sys_info` on SQL Server 2008 and 2008 R2 (`physical_memory_in_bytes`).
pub const SYS_INFO_2008: &str = "SELECT \
CAST(cpu_count AS INT) AS cpu_count, \
CAST(physical_memory_in_bytes / 1024 AS BIGINT) AS physical_memory_kb, \
CAST(NULL AS INT) AS virtual_machine_type, \
CAST(DATEDIFF(SECOND, sqlserver_start_time, GETDATE()) AS BIGINT) AS uptime_s \
FROM sys.dm_os_sys_info";

/// `sys.dm_os_host_info`, SQL Server 2017 and later.
pub const HOST_INFO: &str = "SELECT \
CAST(host_platform AS NVARCHAR(256)) AS host_platform, \
CAST(host_distribution AS NVARCHAR(256)) AS host_distribution, \
CAST(host_release AS NVARCHAR(256)) AS host_release \
FROM sys.dm_os_host_info";

/// `sys.databases`, without database snapshots (their sparse files are not the database's).
pub const DATABASES: &str = "SELECT \
CAST(database_id AS INT) AS database_id, \
CAST(name AS NVARCHAR(128)) AS name, \
CAST(state_desc AS NVARCHAR(60)) AS state_desc, \
CAST(recovery_model_desc AS NVARCHAR(60)) AS recovery_model_desc, \
CAST(is_distributor AS INT) AS is_distributor \
FROM sys.databases WHERE source_database_id IS NULL";

/// `sys.master_files`: every file of every database, tempdb's at their start-up size. `size`,
/// `max_size` and a fixed `growth` are 8 KiB pages; a percent `growth` is a whole percent.
pub const MASTER_FILES: &str = "SELECT \
CAST(database_id AS INT) AS database_id, \
CAST(file_id AS INT) AS file_id, \
CAST(type AS INT) AS type, \
CAST(name AS NVARCHAR(128)) AS name, \
CAST(physical_name AS NVARCHAR(260)) AS physical_name, \
CAST(size AS BIGINT) AS size_pages, \
CAST(max_size AS BIGINT) AS max_size_pages, \
CAST(growth AS BIGINT) AS growth, \
CAST(is_percent_growth AS INT) AS is_percent_growth \
FROM sys.master_files";

/// `sys.dm_os_volume_stats` for every file (SQL Server 2008 R2 SP1 and later): the volume id
/// joins SQL files to the host collector's volumes.
pub const VOLUME_STATS: &str = "SELECT \
CAST(f.database_id AS INT) AS database_id, \
CAST(f.file_id AS INT) AS file_id, \
CAST(vs.volume_id AS NVARCHAR(512)) AS volume_id, \
CAST(vs.volume_mount_point AS NVARCHAR(512)) AS volume_mount_point, \
CAST(vs.logical_volume_name AS NVARCHAR(512)) AS logical_volume_name, \
CAST(vs.file_system_type AS NVARCHAR(512)) AS file_system_type, \
CAST(vs.total_bytes AS BIGINT) AS total_bytes, \
CAST(vs.available_bytes AS BIGINT) AS available_bytes, \
CAST(vs.is_compressed AS INT) AS is_compressed \
FROM sys.master_files AS f \
CROSS APPLY sys.dm_os_volume_stats(f.database_id, f.file_id) AS vs";

/// `sys.dm_io_virtual_file_stats(NULL, NULL)`: cumulative counters of every file.
pub const FILE_STATS: &str = "SELECT \
CAST(database_id AS INT) AS database_id, \
CAST(file_id AS INT) AS file_id, \
CAST(sample_ms AS BIGINT) AS sample_ms, \
CAST(num_of_reads AS BIGINT) AS num_of_reads, \
CAST(num_of_writes AS BIGINT) AS num_of_writes, \
CAST(num_of_bytes_read AS BIGINT) AS num_of_bytes_read, \
CAST(num_of_bytes_written AS BIGINT) AS num_of_bytes_written, \
CAST(io_stall_read_ms AS BIGINT) AS io_stall_read_ms, \
CAST(io_stall_write_ms AS BIGINT) AS io_stall_write_ms \
FROM sys.dm_io_virtual_file_stats(NULL, NULL)";

/// `sys.dm_server_services`, the Database Engine's row. `instant_file_initialization_enabled`
/// exists from SQL Server 2012 SP4 and 2016 SP1; older builds answer error 207 and get
/// [`SERVER_SERVICES_NO_IFI`].
pub const SERVER_SERVICES: &str = "SELECT \
CAST(servicename AS NVARCHAR(256)) AS servicename, \
CAST(service_account AS NVARCHAR(256)) AS service_account, \
CAST(instant_file_initialization_enabled AS NVARCHAR(1)) AS ifi \
FROM sys.dm_server_services WHERE filename LIKE N'%sqlservr%'";

/// [`SERVER_SERVICES`] for builds without the instant file initialization column.
pub const SERVER_SERVICES_NO_IFI: &str = "SELECT \
CAST(servicename AS NVARCHAR(256)) AS servicename, \
CAST(service_account AS NVARCHAR(256)) AS service_account \
FROM sys.dm_server_services WHERE filename LIKE N'%sqlservr%'";
