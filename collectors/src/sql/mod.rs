//! The SQL Server collector: what the engine knows about its files, their volumes and their I/O,
//! read over TDS with read-only queries that need VIEW SERVER STATE (VIEW SERVER PERFORMANCE
//! STATE on 2022+) and nothing more.
//!
//! One query's failure (a permission refused, a DMV this version lacks) loses only that query's
//! facts, recorded as not collected with the server's words; losing the connection loses the
//! server, reported as its error.

pub mod connect;
pub mod map;
pub mod queries;
pub mod rows;
pub mod sample;
pub mod target;

use std::time::{Duration, Instant};

use spindle_core::facts::{NotCollected, Snapshot};
use tiberius::Row;

use self::connect::{ConnectError, Settings, SqlClient};
use self::map::{Collected, Counters};
use self::rows::{BadColumn, FileStatsRow, ServerRow};
use self::target::Target;

/// Why a server gave no snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollectError(pub String);

impl std::fmt::Display for CollectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<ConnectError> for CollectError {
    fn from(e: ConnectError) -> Self {
        CollectError(e.0)
    }
}

/// How to collect: connection settings and the optional sampling interval.
#[derive(Debug, Clone)]
pub struct Options {
    pub settings: Settings,
    /// Read the I/O counters twice, this far apart, and keep the difference.
    pub sample: Option<Duration>,
}

/// Connects to `target` and reads its facts.
pub async fn collect(target: &Target, opts: &Options) -> Result<Snapshot, CollectError> {
    let mut client = connect::connect(target, &opts.settings).await?;
    let query_timeout = opts.settings.query_timeout;
    let mut session = Session { client: &mut client, notes: vec![], query_timeout };
    let collected = session.read_all(opts.sample).await?;
    let _ = client.close().await;
    Ok(map::snapshot(collected, &target.host))
}

/// A query's outcome: rows, a server error that spares the connection, or a lost connection.
enum Outcome<T> {
    Ok(T),
    Refused { code: u32, message: String },
}

struct Session<'c> {
    client: &'c mut SqlClient,
    notes: Vec<NotCollected>,
    query_timeout: Duration,
}

impl Session<'_> {
    async fn rows(&mut self, sql: &str) -> Result<Outcome<Vec<Row>>, CollectError> {
        use tiberius::error::Error;
        let result = match self.client.simple_query(sql).await {
            Ok(stream) => stream.into_first_result().await,
            Err(e) => Err(e),
        };
        match result {
            Ok(rows) => Ok(Outcome::Ok(rows)),
            Err(Error::Server(t)) => Ok(Outcome::Refused { code: t.code(), message: t.message().to_owned() }),
            Err(Error::Io { kind: std::io::ErrorKind::TimedOut, .. }) => Err(CollectError(format!(
                "no answer to a query within {} ({})",
                connect::secs(self.query_timeout),
                what(sql)
            ))),
            Err(Error::Io { message, .. }) => {
                // tiberius nests its I/O wording once per layer; the cause is what is left.
                let cause =
                    message.trim_start_matches("An error occurred during the attempt of performing I/O: ");
                Err(CollectError(format!("connection lost while reading {}: {cause}", what(sql))))
            }
            Err(e) => Err(CollectError(format!("connection lost while reading {}: {e}", what(sql)))),
        }
    }

    /// Reads every row of `sql` with `read`; a refusal or a bad row becomes the reason the facts
    /// are missing.
    async fn read<T>(
        &mut self,
        sql: &str,
        read: fn(&Row) -> Result<T, BadColumn>,
    ) -> Result<Result<Vec<T>, String>, CollectError> {
        Ok(match self.rows(sql).await? {
            Outcome::Ok(rows) => rows
                .iter()
                .map(read)
                .collect::<Result<Vec<T>, BadColumn>>()
                .map_err(|e| format!("{}: {}", what(sql), e.0)),
            Outcome::Refused { code, message } => Err(format!("{}: error {code}: {message}", what(sql))),
        })
    }

    async fn read_one<T>(
        &mut self,
        sql: &str,
        read: fn(&Row) -> Result<T, BadColumn>,
    ) -> Result<Result<Option<T>, String>, CollectError> {
        Ok(self.read(sql, read).await?.map(|rows| rows.into_iter().next()))
    }

    fn skip(&mut self, fact: &str, reason: String) {
        self.notes.push(NotCollected { fact: fact.into(), reason });
    }

    async fn read_all(&mut self, sample: Option<Duration>) -> Result<Collected, CollectError> {
        let server = match self.read_one(queries::SERVER_PROPERTIES, ServerRow::read).await? {
            Ok(Some(row)) => row,
            Ok(None) => return Err(CollectError("SERVERPROPERTY returned no row: not a SQL Server?".into())),
            Err(e) => return Err(CollectError(e)),
        };
        let version = server.version_parts();
        let major = version.map(|v| v.0);
        // Unknown version: try everything; the server says what it lacks.
        let at_least = |v: (u32, u32, u32)| version.is_none_or(|have| have >= v);

        let mut c = Collected { collected_at: Some(crate::now_rfc3339()), ..Collected::default() };
        let sys_info_sql =
            if major.is_some_and(|m| m < 11) { queries::SYS_INFO_2008 } else { queries::SYS_INFO };
        c.sys_info = Some(
            self.read_one(sys_info_sql, rows::SysInfoRow::read)
                .await?
                .and_then(|r| r.ok_or_else(|| "sys.dm_os_sys_info returned no row".into())),
        );
        if at_least((14, 0, 0)) {
            c.host_info = Some(
                self.read_one(queries::HOST_INFO, rows::HostInfoRow::read)
                    .await?
                    .and_then(|r| r.ok_or_else(|| "sys.dm_os_host_info returned no row".into())),
            );
        } else {
            self.skip("host.os_version", "sys.dm_os_host_info needs SQL Server 2017 (14.x)".into());
        }
        c.databases = Some(self.read(queries::DATABASES, rows::DatabaseRow::read).await?);
        c.files = Some(self.read(queries::MASTER_FILES, rows::FileRow::read).await?);
        let has_dm_2008r2_sp1 = at_least((10, 50, 2500));
        if has_dm_2008r2_sp1 {
            c.volumes = Some(self.read(queries::VOLUME_STATS, rows::VolumeRow::read).await?);
        } else {
            self.skip("volumes", "sys.dm_os_volume_stats needs SQL Server 2008 R2 SP1".into());
        }
        c.counters = Some(self.counters(sample).await?);
        if has_dm_2008r2_sp1 {
            c.service = Some(self.service().await?);
        } else {
            self.skip(
                "sql_instances[].instant_file_initialization",
                "sys.dm_server_services needs SQL Server 2008 R2 SP1".into(),
            );
        }
        c.server = server;
        c.notes = std::mem::take(&mut self.notes);
        Ok(c)
    }

    async fn counters(&mut self, sample: Option<Duration>) -> Result<Result<Counters, String>, CollectError> {
        let first = match self.read(queries::FILE_STATS, FileStatsRow::read).await? {
            Ok(rows) => rows,
            Err(e) => return Ok(Err(e)),
        };
        let Some(interval) = sample else {
            return Ok(Ok(Counters { rows: first, covers_ms: None }));
        };
        let started = Instant::now();
        // The sampling interval itself: the counters must accumulate for this long.
        tokio::time::sleep(interval).await;
        let second = match self.read(queries::FILE_STATS, FileStatsRow::read).await? {
            Ok(rows) => rows,
            Err(e) => return Ok(Err(e)),
        };
        let measured_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        Ok(sample::delta(&first, &second, measured_ms)
            .map(|(rows, covers)| Counters { rows, covers_ms: Some(covers) }))
    }

    /// The engine's service row; builds without the instant file initialization column answer
    /// error 207 (invalid column), and are asked again without it.
    async fn service(&mut self) -> Result<Result<Option<rows::ServiceRow>, String>, CollectError> {
        match self.rows(queries::SERVER_SERVICES).await? {
            Outcome::Ok(rows) => Ok(rows
                .first()
                .map(rows::ServiceRow::read)
                .transpose()
                .map_err(|e| format!("sys.dm_server_services: {}", e.0))),
            Outcome::Refused { code: 207, message } => {
                self.skip(
                    "sql_instances[].instant_file_initialization",
                    format!(
                        "sys.dm_server_services has no instant_file_initialization_enabled on this build \
                         (SQL Server 2012 SP4 / 2016 SP1 and later): error 207: {message}"
                    ),
                );
                Ok(self.read_one(queries::SERVER_SERVICES_NO_IFI, rows::ServiceRow::read).await?)
            }
            Outcome::Refused { code, message } => {
                Ok(Err(format!("sys.dm_server_services: error {code}: {message}")))
            }
        }
    }
}

/// The object a query reads, for messages: `sys.master_files`, `sys.dm_os_volume_stats`, ...
fn what(sql: &str) -> &str {
    for name in [
        "sys.dm_os_volume_stats",
        "sys.dm_io_virtual_file_stats",
        "sys.dm_os_sys_info",
        "sys.dm_os_host_info",
        "sys.dm_server_services",
        "sys.master_files",
        "sys.databases",
    ] {
        if sql.contains(name) {
            return name;
        }
    }
    "SERVERPROPERTY"
}
