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
/// Server names are parsed without the `sql` feature too (the inventory reads them).
pub use crate::target;

use std::time::{Duration, Instant};

use futures_util::TryStreamExt as _;
use spindle_core::facts::{IoWindow, Snapshot};
use tiberius::{QueryItem, Row};

use self::connect::{ConnectError, Meter, Settings, SqlClient};
use self::map::{Collected, Counters};
use self::rows::{BadColumn, FileStatsRow, ServerRow};
use self::target::Target;
use crate::notes::Uncollected;

/// Most rows read of one answer. The largest real answers are `sys.master_files` and the
/// per-file DMVs: one row per database file, and SQL Server holds at most 32,767 databases; this
/// allows 8 files for every one of them. A server sending more is not telling the truth.
pub const MAX_ROWS_PER_QUERY: u64 = 262_144;
const _: () = assert!(MAX_ROWS_PER_QUERY >= 32_767 * 8);
/// Most bytes read of one answer, on the wire. A `sys.master_files` row is about 250 bytes with
/// typical names and paths (nearly 800 with every name at its full length), so 32,767 databases
/// of 4 files each answer in about 32 MiB: this is twice that. It bounds what one server can make
/// spindle hold, whatever the shape of its answer.
pub const MAX_BYTES_PER_QUERY: u64 = 64 << 20;

/// The bounds of one answer; tests lower them.
#[derive(Debug, Clone, Copy)]
struct Bounds {
    rows: u64,
    bytes: u64,
}

const BOUNDS: Bounds = Bounds { rows: MAX_ROWS_PER_QUERY, bytes: MAX_BYTES_PER_QUERY };

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
    collect_within(target, opts, BOUNDS).await
}

async fn collect_within(target: &Target, opts: &Options, bounds: Bounds) -> Result<Snapshot, CollectError> {
    let meter = Meter::new(bounds.bytes);
    let mut client = connect::connect(target, &opts.settings, &meter).await?;
    let query_timeout = opts.settings.query_timeout;
    let mut session =
        Session { client: &mut client, meter, bounds, notes: Uncollected::default(), query_timeout };
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
    /// What the server may still send of the answer being read.
    meter: Meter,
    bounds: Bounds,
    notes: Uncollected,
    query_timeout: Duration,
}

/// An answer's rows as `read` made them, or the first row it could not read.
type Read<T> = Result<Vec<T>, BadColumn>;

impl Session<'_> {
    /// Reads the first result set of `sql` row by row with `read`, within the bounds: rows are
    /// made into facts as they arrive and never held as the driver's rows, and the answer is
    /// abandoned (with the connection, as the rest of it is still on the wire) at the bound.
    async fn rows<T>(
        &mut self,
        sql: &str,
        read: fn(&Row) -> Result<T, BadColumn>,
    ) -> Result<Outcome<Read<T>>, CollectError> {
        use tiberius::error::Error;
        self.meter.refill(self.bounds.bytes);
        let mut out = Vec::new();
        let mut bad = None;
        let mut rows = 0u64;
        let mut result_sets = 0u32;
        let result = match self.client.simple_query(sql).await {
            Ok(mut stream) => loop {
                match stream.try_next().await {
                    Ok(None) => break Ok(()),
                    Ok(Some(QueryItem::Metadata(_))) => result_sets += 1,
                    Ok(Some(QueryItem::Row(row))) => {
                        // Every row counts, whichever result set it belongs to: only the first
                        // is kept, but a server could send any number.
                        rows += 1;
                        if rows > self.bounds.rows {
                            return Err(CollectError(format!(
                                "{}: the answer goes on past {} rows, the most spindle reads of one query",
                                what(sql),
                                self.bounds.rows
                            )));
                        }
                        if result_sets <= 1 && bad.is_none() {
                            match read(&row) {
                                Ok(v) => out.push(v),
                                Err(e) => bad = Some(e),
                            }
                        }
                    }
                    Err(e) => break Err(e),
                }
            },
            Err(e) => Err(e),
        };
        if self.meter.tripped() {
            return Err(CollectError(format!(
                "{}: the answer goes on past {}, the most spindle reads of one query",
                what(sql),
                bytes_text(self.bounds.bytes)
            )));
        }
        match result {
            Ok(()) => Ok(Outcome::Ok(bad.map_or(Ok(out), Err))),
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
        Ok(match self.rows(sql, read).await? {
            Outcome::Ok(rows) => rows.map_err(|e| format!("{}: {}", what(sql), e.0)),
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
            self.notes.miss("host.os_version", "sys.dm_os_host_info needs SQL Server 2017 (14.x)");
        }
        c.databases = Some(self.read(queries::DATABASES, rows::DatabaseRow::read).await?);
        c.files = Some(self.read(queries::MASTER_FILES, rows::FileRow::read).await?);
        let has_dm_2008r2_sp1 = at_least((10, 50, 2500));
        if has_dm_2008r2_sp1 {
            c.volumes = Some(self.read(queries::VOLUME_STATS, rows::VolumeRow::read).await?);
        } else {
            self.notes.miss("volumes", "sys.dm_os_volume_stats needs SQL Server 2008 R2 SP1");
        }
        c.counters = Some(self.counters(sample).await?);
        if has_dm_2008r2_sp1 {
            c.service = Some(self.service().await?);
        } else {
            self.notes.miss(
                "sql_instances[].instant_file_initialization",
                "sys.dm_server_services needs SQL Server 2008 R2 SP1",
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
            return Ok(Ok(Counters { rows: first, covers_ms: None, window: IoWindow::SinceStart }));
        };
        let started = Instant::now();
        // The sampling interval itself: the counters must accumulate for this long.
        tokio::time::sleep(interval).await;
        let second = match self.read(queries::FILE_STATS, FileStatsRow::read).await? {
            Ok(rows) => rows,
            Err(e) => return Ok(Err(e)),
        };
        let measured_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        Ok(sample::delta(&first, &second, measured_ms).map(|(rows, covers)| Counters {
            rows,
            covers_ms: Some(covers),
            window: IoWindow::Sample,
        }))
    }

    /// The engine's service row; builds without the instant file initialization column answer
    /// error 207 (invalid column), and are asked again without it.
    async fn service(&mut self) -> Result<Result<Option<rows::ServiceRow>, String>, CollectError> {
        match self.rows(queries::SERVER_SERVICES, rows::ServiceRow::read).await? {
            Outcome::Ok(rows) => Ok(rows
                .map(|rows| rows.into_iter().next())
                .map_err(|e| format!("sys.dm_server_services: {}", e.0))),
            Outcome::Refused { code: 207, message } => {
                self.notes.miss(
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

/// A byte count as the bounds are stated: whole MiB, else bytes.
pub(crate) fn bytes_text(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
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

#[cfg(test)]
mod tests {
    use super::connect::{Auth, Encryption, Secret};
    use super::*;
    use spindle_test_support::mock_sql::{self, Peers, healthy, queries, with};

    fn options() -> Options {
        Options {
            settings: Settings {
                auth: Auth::Sql { user: "spindle".into(), password: Secret::new("pw".into()) },
                encryption: Encryption::Off,
                connect_timeout: Duration::from_secs(2),
                query_timeout: Duration::from_secs(2),
            },
            sample: None,
        }
    }

    fn collect_from(peers: &Peers, server: &str, bounds: Bounds) -> Result<Snapshot, CollectError> {
        let target = Target::parse(server).unwrap();
        peers.rt.block_on(collect_within(&target, &options(), bounds))
    }

    #[test]
    fn an_answer_with_more_rows_than_the_bound_loses_the_server() {
        let peers = Peers::new();
        // The healthy server's largest answers have 9 rows, sys.databases 5.
        let server = peers.sql(healthy("SQL01"));
        let roomy = Bounds { rows: 9, bytes: MAX_BYTES_PER_QUERY };
        assert!(collect_from(&peers, &server, roomy).is_ok());
        let tight = Bounds { rows: 8, bytes: MAX_BYTES_PER_QUERY };
        let e = collect_from(&peers, &server, tight).unwrap_err().0;
        assert_eq!(
            e,
            "sys.master_files: the answer goes on past 8 rows, the most spindle reads of one query"
        );
    }

    #[test]
    fn an_answer_with_more_bytes_than_the_bound_loses_the_server() {
        let peers = Peers::new();
        let many: Vec<mock_sql::FileSpec> = mock_sql::FILES.iter().cycle().take(100).copied().collect();
        let server = peers.sql(with(healthy("SQL01"), queries::MASTER_FILES, mock_sql::master_files(&many)));
        let bounds = Bounds { rows: MAX_ROWS_PER_QUERY, bytes: 8192 };
        let e = collect_from(&peers, &server, bounds).unwrap_err().0;
        assert_eq!(
            e,
            "sys.master_files: the answer goes on past 8192 bytes, the most spindle reads of one query"
        );
        // The login's answers count too.
        let bounds = Bounds { rows: MAX_ROWS_PER_QUERY, bytes: 64 };
        let e = collect_from(&peers, &server, bounds).unwrap_err().0;
        assert!(e.contains("during the login") && e.contains("64 bytes"), "{e}");
    }

    #[test]
    fn the_byte_bound_reads_as_the_readme_states_it() {
        assert_eq!(bytes_text(MAX_BYTES_PER_QUERY), "64 MiB");
    }
}
