//! SQL Servers for the live-collection tests: Microsoft's TDS mock server (`mssql-mock-tds`)
//! answering the collector's exact batches with rows shaped like the documented DMV columns,
//! plus peers that misbehave at the TCP level (refuse, never answer, cut a result short, stream
//! one without end).

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use mssql_mock_tds::{
    ColumnDefinition, ColumnValue, ConnectionStore, MockTdsServer, QueryResponse, Row, SqlDataType,
    TerminalError,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::runtime::Runtime;

pub use spindle_collectors::sql::queries;

/// The runtime the peers run on; dropping it stops them all.
pub struct Peers {
    pub rt: Runtime,
}

impl Default for Peers {
    fn default() -> Self {
        Self::new()
    }
}

impl Peers {
    pub fn new() -> Self {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        Peers { rt }
    }

    /// A mock SQL Server answering `responses`; returns `127.0.0.1,PORT`.
    pub fn sql(&self, responses: Vec<(&'static str, QueryResponse)>) -> String {
        self.sql_recording(responses).0
    }

    /// [`Peers::sql`] on another loopback address (`127.0.0.2`, ...): servers with host names of
    /// their own, as a fleet has.
    pub fn sql_at(&self, ip: &str, responses: Vec<(&'static str, QueryResponse)>) -> String {
        self.serve(ip, responses).0
    }

    /// [`Peers::sql`], with the record of what each connection sent (login token, ...).
    pub fn sql_recording(
        &self,
        responses: Vec<(&'static str, QueryResponse)>,
    ) -> (String, Arc<tokio::sync::Mutex<ConnectionStore>>) {
        self.serve("127.0.0.1", responses)
    }

    fn serve(
        &self,
        ip: &str,
        responses: Vec<(&'static str, QueryResponse)>,
    ) -> (String, Arc<tokio::sync::Mutex<ConnectionStore>>) {
        self.rt.block_on(async {
            let server = MockTdsServer::new(&format!("{ip}:0")).await.unwrap();
            let addr = server.local_addr();
            {
                let registry = server.query_registry();
                let mut reg = registry.lock().await;
                for (sql, response) in responses {
                    reg.register(sql, response);
                }
            }
            let store = server.connection_store();
            tokio::spawn(server.run());
            (target(addr), store)
        })
    }

    /// A port nothing listens on: connections are refused.
    pub fn refusing(&self) -> String {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        drop(l);
        target(addr)
    }

    /// Accepts connections and never says a word.
    pub fn silent(&self) -> String {
        self.rt.block_on(async {
            let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = l.local_addr().unwrap();
            tokio::spawn(async move {
                let mut held = vec![];
                while let Ok((s, _)) = l.accept().await {
                    held.push(s);
                }
            });
            target(addr)
        })
    }

    /// Answers the TDS pre-login with bytes that are not TDS.
    pub fn garbage(&self) -> String {
        self.rt.block_on(async {
            let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = l.local_addr().unwrap();
            tokio::spawn(async move {
                while let Ok((mut s, _)) = l.accept().await {
                    tokio::spawn(async move {
                        let mut buf = [0u8; 4096];
                        let _ = s.read(&mut buf).await;
                        // A tabular-result header claiming 4 bytes, then a pre-login body that
                        // points past its own end.
                        let _ =
                            s.write_all(&[0x04, 0x01, 0x00, 0x04, 0, 0, 1, 0, 0x00, 0xff, 0xff, 0x00]).await;
                        let _ = s.shutdown().await;
                    });
                }
            });
            target(addr)
        })
    }

    /// A proxy to `upstream` that, once the client sends a batch containing `trigger`, passes on
    /// only the first few bytes of the answer and then drops the connection: a reset mid-result.
    pub fn cutting(&self, upstream: &str, trigger: &str) -> String {
        let up: SocketAddr = upstream.replace(',', ":").parse().unwrap();
        let needle: Vec<u8> = trigger.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let cuts = Arc::new(AtomicUsize::new(0));
        self.rt.block_on(async {
            let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = l.local_addr().unwrap();
            tokio::spawn(async move {
                while let Ok((client, _)) = l.accept().await {
                    let needle = needle.clone();
                    let cuts = cuts.clone();
                    tokio::spawn(async move {
                        let server = TcpStream::connect(up).await.unwrap();
                        proxy(client, server, needle, cuts).await;
                    });
                }
            });
            target(addr)
        })
    }
}

/// A result set to stream without end: its column metadata once, then the same row again and
/// again, in TDS packets that never say the message ended.
pub struct Flood {
    /// The COLMETADATA token.
    head: Vec<u8>,
    /// One ROW token.
    row: Vec<u8>,
}

impl Flood {
    /// The token stream of `columns` with `row`, cut out of the mock's own encoding of the
    /// result set without rows and with one.
    pub fn new(columns: Vec<ColumnDefinition>, row: Row) -> Flood {
        let tokens = |rows: Vec<Row>| -> Vec<u8> {
            let packet =
                mssql_mock_tds::protocol::build_query_result(&QueryResponse::new(columns.clone(), rows));
            packet[8..].to_vec()
        };
        // Both end with the same 13-byte DONE token (its row count differs, not its length).
        const DONE: usize = 13;
        let none = tokens(vec![]);
        let one = tokens(vec![row]);
        let head = none[..none.len() - DONE].to_vec();
        let row = one[head.len()..one.len() - DONE].to_vec();
        Flood { head, row }
    }

    /// `sys.master_files` rows with a 241-character path: about 545 bytes a row on the wire.
    pub fn master_files() -> Flood {
        let mut values = master_files(&[FILES[7]]).rows.pop().expect("one row").values;
        values[4] = s(&format!(r"E:\SQLData\{}.mdf", "x".repeat(226)));
        let columns = master_files(&[]).columns;
        Flood::new(columns, Row::new(values))
    }
}

impl Peers {
    /// A proxy to `upstream` that, once the client sends a batch containing `trigger`, answers
    /// it itself with `flood`: rows without end, until the client stops reading or `cap` bytes
    /// have gone out (then it drops the connection). Returns the server and the count of bytes
    /// it streamed.
    pub fn flooding(
        &self,
        upstream: &str,
        trigger: &str,
        flood: Flood,
        cap: u64,
    ) -> (String, Arc<AtomicU64>) {
        let up: SocketAddr = upstream.replace(',', ":").parse().unwrap();
        let needle: Vec<u8> = trigger.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let sent = Arc::new(AtomicU64::new(0));
        let flood = Arc::new(flood);
        let addr = self.rt.block_on(async {
            let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = l.local_addr().unwrap();
            let sent = sent.clone();
            tokio::spawn(async move {
                while let Ok((client, _)) = l.accept().await {
                    let (needle, sent, flood) = (needle.clone(), sent.clone(), flood.clone());
                    tokio::spawn(async move {
                        let server = TcpStream::connect(up).await.unwrap();
                        flood_proxy(client, server, needle, &flood, cap, &sent).await;
                    });
                }
            });
            addr
        });
        (target(addr), sent)
    }
}

async fn flood_proxy(
    client: TcpStream,
    server: TcpStream,
    needle: Vec<u8>,
    flood: &Flood,
    cap: u64,
    sent: &AtomicU64,
) {
    let (mut cr, mut cw) = client.into_split();
    let (mut sr, mut sw) = server.into_split();
    let seen = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let s2 = seen.clone();
    let up = tokio::spawn(async move {
        let mut buf = vec![0u8; 65536];
        let mut window: Vec<u8> = vec![];
        loop {
            let n = match cr.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            window.extend_from_slice(&buf[..n]);
            if window.windows(needle.len()).any(|w| w.eq_ignore_ascii_case(&needle)) {
                s2.store(true, Ordering::SeqCst);
            }
            if sw.write_all(&buf[..n]).await.is_err() {
                break;
            }
        }
    });
    let mut buf = vec![0u8; 65536];
    loop {
        let n = match sr.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if seen.load(Ordering::SeqCst) {
            // The upstream's own answer is dropped: the flood replaces it.
            break;
        }
        if cw.write_all(&buf[..n]).await.is_err() {
            break;
        }
    }
    if seen.load(Ordering::SeqCst) {
        // The metadata and rows, then rows again and again, a MiB at a time.
        let mut rows = Vec::new();
        while rows.len() < 1 << 20 {
            rows.extend_from_slice(&flood.row);
        }
        let first = packets(&[&flood.head[..], &rows[..]].concat());
        let again = packets(&rows);
        let mut chunk = &first;
        while sent.load(Ordering::SeqCst) < cap && cw.write_all(chunk).await.is_ok() {
            sent.fetch_add(chunk.len() as u64, Ordering::SeqCst);
            chunk = &again;
        }
    }
    up.abort();
    let _ = cw.shutdown().await;
}

/// `tokens` in tabular-result packets of 4,096 bytes (the default packet size), none of them the
/// last of its message.
fn packets(tokens: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(tokens.len() + tokens.len() / 4000 * 8 + 8);
    for payload in tokens.chunks(4096 - 8) {
        out.extend_from_slice(&[0x04, 0x00]);
        out.extend_from_slice(&((payload.len() + 8) as u16).to_be_bytes());
        out.extend_from_slice(&[0, 0, 1, 0]);
        out.extend_from_slice(payload);
    }
    out
}

async fn proxy(client: TcpStream, server: TcpStream, needle: Vec<u8>, cuts: Arc<AtomicUsize>) {
    let (mut cr, mut cw) = client.into_split();
    let (mut sr, mut sw) = server.into_split();
    let triggered = Arc::new(tokio::sync::Notify::new());
    let seen = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (t2, s2) = (triggered.clone(), seen.clone());
    let up = tokio::spawn(async move {
        let mut buf = vec![0u8; 65536];
        let mut window: Vec<u8> = vec![];
        loop {
            let n = match cr.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            window.extend_from_slice(&buf[..n]);
            if window.windows(needle.len()).any(|w| w.eq_ignore_ascii_case(&needle)) {
                s2.store(true, Ordering::SeqCst);
                t2.notify_one();
            }
            if sw.write_all(&buf[..n]).await.is_err() {
                break;
            }
        }
    });
    let mut buf = vec![0u8; 65536];
    loop {
        let n = match sr.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if seen.load(Ordering::SeqCst) {
            // Part of the answer, then the connection goes.
            let _ = cw.write_all(&buf[..n.min(24)]).await;
            cuts.fetch_add(1, Ordering::SeqCst);
            break;
        }
        if cw.write_all(&buf[..n]).await.is_err() {
            break;
        }
    }
    up.abort();
    let _ = cw.shutdown().await;
}

fn target(addr: SocketAddr) -> String {
    format!("{},{}", addr.ip(), addr.port())
}

// ---- result sets shaped like the DMVs (after the collector's CASTs) ----

fn cols(spec: &[(&str, SqlDataType)]) -> Vec<ColumnDefinition> {
    spec.iter().map(|(n, t)| ColumnDefinition::new(*n, *t)).collect()
}

fn s(v: &str) -> ColumnValue {
    ColumnValue::NVarChar(v.to_string())
}

pub fn refused(code: u32, message: &str) -> QueryResponse {
    QueryResponse::error_only(TerminalError::new(code, 14, message))
}

pub fn server_properties(version: &str, host: &str) -> QueryResponse {
    use SqlDataType::*;
    QueryResponse::new(
        cols(&[
            ("product_version", NVarChar),
            ("product_level", NVarChar),
            ("edition", NVarChar),
            ("is_clustered", Int),
            ("physical_host", NVarChar),
            ("machine_name", NVarChar),
            ("instance_name", NVarChar),
        ]),
        vec![Row::new(vec![
            s(version),
            s("RTM"),
            s("Enterprise Edition (64-bit)"),
            ColumnValue::Int(0),
            s(host),
            s(host),
            s("MSSQLSERVER"),
        ])],
    )
}

pub fn sys_info(cpus: i32, memory_kb: i64, uptime_s: i64) -> QueryResponse {
    use SqlDataType::*;
    QueryResponse::new(
        cols(&[
            ("cpu_count", Int),
            ("physical_memory_kb", BigInt),
            ("virtual_machine_type", Int),
            ("uptime_s", BigInt),
        ]),
        vec![Row::new(vec![
            ColumnValue::Int(cpus),
            ColumnValue::BigInt(memory_kb),
            ColumnValue::Int(1),
            ColumnValue::BigInt(uptime_s),
        ])],
    )
}

pub fn host_info() -> QueryResponse {
    use SqlDataType::*;
    QueryResponse::new(
        cols(&[("host_platform", NVarChar), ("host_distribution", NVarChar), ("host_release", NVarChar)]),
        vec![Row::new(vec![s("Windows"), s("Windows Server 2022 Datacenter"), s("10.0")])],
    )
}

pub fn databases() -> QueryResponse {
    use SqlDataType::*;
    let db = |id: i32, name: &str, model: &str| {
        Row::new(vec![ColumnValue::Int(id), s(name), s("ONLINE"), s(model), ColumnValue::Int(0)])
    };
    QueryResponse::new(
        cols(&[
            ("database_id", Int),
            ("name", NVarChar),
            ("state_desc", NVarChar),
            ("recovery_model_desc", NVarChar),
            ("is_distributor", Int),
        ]),
        vec![
            db(1, "master", "SIMPLE"),
            db(2, "tempdb", "SIMPLE"),
            db(3, "model", "FULL"),
            db(4, "msdb", "SIMPLE"),
            db(5, "Sales", "FULL"),
        ],
    )
}

/// `(database_id, file_id, type, name, physical_name, size_pages, max_size_pages, growth, is_percent)`
pub type FileSpec = (i32, i32, i32, &'static str, &'static str, i64, i64, i64, i32);

/// The healthy server's files: system databases on C:, four tempdb files on T:, Sales data in a
/// folder-mounted volume E:\SQLData\ (10 % growth) and its log on L:\.
pub const FILES: &[FileSpec] = &[
    (1, 1, 0, "master", r"C:\Program Files\Microsoft SQL Server\DATA\master.mdf", 512, -1, 1280, 0),
    (1, 2, 1, "mastlog", r"C:\Program Files\Microsoft SQL Server\DATA\mastlog.ldf", 256, -1, 10, 1),
    (2, 1, 0, "tempdev", r"T:\tempdb\tempdb.mdf", 131_072, -1, 8192, 0),
    (2, 3, 0, "temp2", r"T:\tempdb\tempdb_mssql_2.ndf", 131_072, -1, 8192, 0),
    (2, 4, 0, "temp3", r"T:\tempdb\tempdb_mssql_3.ndf", 131_072, -1, 8192, 0),
    (2, 5, 0, "temp4", r"T:\tempdb\tempdb_mssql_4.ndf", 131_072, -1, 8192, 0),
    (2, 2, 1, "templog", r"T:\tempdb\templog.ldf", 65_536, -1, 8192, 0),
    (5, 1, 0, "Sales", r"E:\SQLData\Sales.mdf", 1_310_720, -1, 10, 1),
    (5, 2, 1, "Sales_log", r"L:\Sales_log.ldf", 262_144, 268_435_456, 8192, 0),
];

pub fn master_files(files: &[FileSpec]) -> QueryResponse {
    use SqlDataType::*;
    QueryResponse::new(
        cols(&[
            ("database_id", Int),
            ("file_id", Int),
            ("type", Int),
            ("name", NVarChar),
            ("physical_name", NVarChar),
            ("size_pages", BigInt),
            ("max_size_pages", BigInt),
            ("growth", BigInt),
            ("is_percent_growth", Int),
        ]),
        files
            .iter()
            .map(|&(db, file, ty, name, path, size, max, growth, pct)| {
                Row::new(vec![
                    ColumnValue::Int(db),
                    ColumnValue::Int(file),
                    ColumnValue::Int(ty),
                    s(name),
                    s(path),
                    ColumnValue::BigInt(size),
                    ColumnValue::BigInt(max),
                    ColumnValue::BigInt(growth),
                    ColumnValue::Int(pct),
                ])
            })
            .collect(),
    )
}

pub const VOL_C: &str = r"\\?\Volume{11111111-0000-0000-0000-000000000001}\";
pub const VOL_T: &str = r"\\?\Volume{11111111-0000-0000-0000-000000000002}\";
pub const VOL_E_DATA: &str = r"\\?\Volume{11111111-0000-0000-0000-000000000003}\";
pub const VOL_L: &str = r"\\?\Volume{11111111-0000-0000-0000-000000000004}\";

/// Which volume each healthy file is on, as `sys.dm_os_volume_stats` reports it.
pub fn volume_stats(files: &[FileSpec]) -> QueryResponse {
    use SqlDataType::*;
    let volume = |path: &str| -> (&str, &str, &str, i64, i64) {
        match path.as_bytes()[0] {
            b'C' => (VOL_C, r"C:\", "OS", 136_365_211_648, 40_000_000_000),
            b'T' => (VOL_T, r"T:\", "TEMPDB", 274_877_906_944, 200_000_000_000),
            b'E' => (VOL_E_DATA, r"E:\SQLData\", "DATA", 1_099_511_627_776, 100_000_000_000),
            _ => (VOL_L, r"L:\", "LOG", 274_877_906_944, 150_000_000_000),
        }
    };
    QueryResponse::new(
        cols(&[
            ("database_id", Int),
            ("file_id", Int),
            ("volume_id", NVarChar),
            ("volume_mount_point", NVarChar),
            ("logical_volume_name", NVarChar),
            ("file_system_type", NVarChar),
            ("total_bytes", BigInt),
            ("available_bytes", BigInt),
            ("is_compressed", Int),
        ]),
        files
            .iter()
            .map(|f| {
                let (id, mp, label, total, free) = volume(f.4);
                Row::new(vec![
                    ColumnValue::Int(f.0),
                    ColumnValue::Int(f.1),
                    s(id),
                    s(mp),
                    s(label),
                    s("NTFS"),
                    ColumnValue::BigInt(total),
                    ColumnValue::BigInt(free),
                    ColumnValue::Int(0),
                ])
            })
            .collect(),
    )
}

/// Cumulative counters: every file `reads` reads stalled `read_ms_each` ms on average, and as
/// many writes at `write_ms_each`.
pub fn file_stats(files: &[FileSpec], reads: i64, read_ms_each: i64, write_ms_each: i64) -> QueryResponse {
    use SqlDataType::*;
    QueryResponse::new(
        cols(&[
            ("database_id", Int),
            ("file_id", Int),
            ("sample_ms", BigInt),
            ("num_of_reads", BigInt),
            ("num_of_writes", BigInt),
            ("num_of_bytes_read", BigInt),
            ("num_of_bytes_written", BigInt),
            ("io_stall_read_ms", BigInt),
            ("io_stall_write_ms", BigInt),
        ]),
        files
            .iter()
            .map(|f| {
                Row::new(vec![
                    ColumnValue::Int(f.0),
                    ColumnValue::Int(f.1),
                    ColumnValue::BigInt(864_000_000),
                    ColumnValue::BigInt(reads),
                    ColumnValue::BigInt(reads),
                    ColumnValue::BigInt(reads * 65_536),
                    ColumnValue::BigInt(reads * 8192),
                    ColumnValue::BigInt(reads * read_ms_each),
                    ColumnValue::BigInt(reads * write_ms_each),
                ])
            })
            .collect(),
    )
}

/// The engine's row on builds without `instant_file_initialization_enabled`.
pub fn server_services_no_ifi() -> QueryResponse {
    use SqlDataType::*;
    QueryResponse::new(
        cols(&[("servicename", NVarChar), ("service_account", NVarChar)]),
        vec![Row::new(vec![s("SQL Server (MSSQLSERVER)"), s(r"NT Service\MSSQLSERVER")])],
    )
}

pub fn server_services(ifi: &str) -> QueryResponse {
    use SqlDataType::*;
    QueryResponse::new(
        cols(&[("servicename", NVarChar), ("service_account", NVarChar), ("ifi", NVarChar)]),
        vec![Row::new(vec![s("SQL Server (MSSQLSERVER)"), s(r"NT Service\MSSQLSERVER"), s(ifi)])],
    )
}

/// Every batch of a healthy SQL Server 2022 named `host`.
pub fn healthy(host: &str) -> Vec<(&'static str, QueryResponse)> {
    vec![
        (queries::SERVER_PROPERTIES, server_properties("16.0.4135.4", host)),
        (queries::SYS_INFO, sys_info(8, 64 * 1024 * 1024, 86_400)),
        (queries::HOST_INFO, host_info()),
        (queries::DATABASES, databases()),
        (queries::MASTER_FILES, master_files(FILES)),
        (queries::VOLUME_STATS, volume_stats(FILES)),
        (queries::FILE_STATS, file_stats(FILES, 1000, 4, 2)),
        (queries::SERVER_SERVICES, server_services("N")),
    ]
}

/// `healthy` with one batch's answer replaced.
pub fn with(
    mut batches: Vec<(&'static str, QueryResponse)>,
    sql: &'static str,
    r: QueryResponse,
) -> Vec<(&'static str, QueryResponse)> {
    batches.retain(|(q, _)| *q != sql);
    batches.push((sql, r));
    batches
}
