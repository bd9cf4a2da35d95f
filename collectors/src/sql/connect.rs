//! Connecting: authentication, encryption and timeouts.
//!
//! Secure by default: encryption required and the server's certificate validated against the
//! system's roots. Trusting any certificate and plain TDS are explicit opt-ins that warn. The
//! password or token never leaves [`Secret`]: not in `Debug`, errors, logs or the snapshot.

use std::fmt;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use tiberius::{AuthMethod, Client, Config, EncryptionLevel, SqlBrowser};
use tokio::net::TcpStream;
use tokio_util::compat::{Compat, TokioAsyncWriteCompatExt};

use super::target::Target;

/// A password or access token. Shows as `***`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(s: String) -> Self {
        Secret(s)
    }
    fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Auth {
    /// A SQL Server login.
    Sql { user: String, password: Secret },
    /// Windows integrated (SSPI) on Windows, Kerberos on Linux with the `kerberos` feature.
    Integrated,
    /// A Microsoft Entra ID (Azure AD) access token.
    AccessToken(Secret),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encryption {
    /// Encrypt everything and validate the server's certificate (the default).
    Required,
    /// TDS 8.0 strict encryption (SQL Server 2022+), certificate validated.
    Strict,
    /// Encrypt, but accept any certificate: exposed to a man in the middle.
    TrustServerCertificate,
    /// Plain TDS: the login and every result cross the network unencrypted.
    Off,
}

#[derive(Debug, Clone)]
pub struct Settings {
    pub auth: Auth,
    pub encryption: Encryption,
    /// TCP connect plus the TDS handshake and login.
    pub connect_timeout: Duration,
    /// Longest wait for any one server response.
    pub query_timeout: Duration,
}

/// The tiberius configuration for `target`; an error when the build lacks the auth asked for.
pub fn config(target: &Target, s: &Settings) -> Result<Config, String> {
    let mut c = Config::new();
    c.host(&target.host);
    if let Some(i) = &target.instance {
        c.instance_name(i);
    }
    if let Some(p) = target.port {
        c.port(p);
    }
    c.application_name(concat!("spindle ", env!("CARGO_PKG_VERSION")));
    c.readonly(true);
    c.handshake_timeout(Some(s.connect_timeout));
    c.command_timeout(Some(s.query_timeout));
    match s.encryption {
        Encryption::Required => c.encryption(EncryptionLevel::Required),
        Encryption::Strict => c.encryption(EncryptionLevel::Strict),
        Encryption::TrustServerCertificate => {
            c.encryption(EncryptionLevel::Required);
            c.trust_cert();
        }
        Encryption::Off => c.encryption(EncryptionLevel::NotSupported),
    }
    c.authentication(match &s.auth {
        Auth::Sql { user, password } => AuthMethod::sql_server(user, password.expose()),
        Auth::AccessToken(token) => AuthMethod::aad_token(token.expose()),
        Auth::Integrated => integrated()?,
    });
    Ok(c)
}

#[cfg(windows)]
fn integrated() -> Result<AuthMethod, String> {
    Ok(AuthMethod::Integrated)
}

#[cfg(all(unix, feature = "kerberos"))]
fn integrated() -> Result<AuthMethod, String> {
    Ok(AuthMethod::Integrated)
}

#[cfg(not(any(windows, all(unix, feature = "kerberos"))))]
fn integrated() -> Result<AuthMethod, String> {
    Err("integrated authentication needs Windows, or a Linux build with `--features kerberos` \
         (Debian's libkrb5-dev and libclang-dev); use --user with SPINDLE_SQL_PASSWORD, or an access token"
        .into())
}

pub type SqlClient = Client<Compat<Metered>>;

/// The bytes a server may still send before the answer being read is over the bound: the
/// session refills it before each query, the connection's reads draw on it. Shared, because
/// tiberius owns the stream.
#[derive(Debug, Clone)]
pub struct Meter(Arc<MeterState>);

#[derive(Debug)]
struct MeterState {
    allowance: AtomicU64,
    left: AtomicU64,
    tripped: AtomicBool,
}

impl Meter {
    pub fn new(bytes: u64) -> Meter {
        Meter(Arc::new(MeterState {
            allowance: AtomicU64::new(bytes),
            left: AtomicU64::new(bytes),
            tripped: AtomicBool::new(false),
        }))
    }

    /// A fresh allowance for the next answer.
    pub fn refill(&self, bytes: u64) {
        self.0.allowance.store(bytes, Ordering::Relaxed);
        self.0.left.store(bytes, Ordering::Relaxed);
    }

    /// The allowance of the answer being read.
    pub fn allowance(&self) -> u64 {
        self.0.allowance.load(Ordering::Relaxed)
    }

    /// Whether a read went over the allowance (the connection is then unusable).
    pub fn tripped(&self) -> bool {
        self.0.tripped.load(Ordering::Relaxed)
    }

    fn take(&self, n: usize) -> bool {
        let n = n as u64;
        let ok = self
            .0
            .left
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| left.checked_sub(n))
            .is_ok();
        if !ok {
            self.0.tripped.store(true, Ordering::Relaxed);
        }
        ok
    }
}

/// The TCP stream to the server, counting what it reads against a [`Meter`]: over the
/// allowance, reads fail, so no answer, however it is shaped (endless rows, one huge value,
/// floods of messages), holds more than the allowance in memory.
#[derive(Debug)]
pub struct Metered {
    tcp: TcpStream,
    meter: Meter,
}

impl tokio::io::AsyncRead for Metered {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        if self.meter.tripped() {
            return Poll::Ready(Err(over_the_bound()));
        }
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.tcp).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = polled
            && !self.meter.take(buf.filled().len() - before)
        {
            return Poll::Ready(Err(over_the_bound()));
        }
        polled
    }
}

impl tokio::io::AsyncWrite for Metered {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.tcp).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.tcp).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.tcp).poll_shutdown(cx)
    }
}

fn over_the_bound() -> std::io::Error {
    std::io::Error::other("the server's answer is over the bound")
}

/// Why a connection failed, in words naming the stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectError(pub String);

/// TCP connect (through the SQL Browser for a named instance) and login, each bounded: tiberius
/// bounds the handshake, nothing bounds the TCP connect but this. What the server sends counts
/// against `meter`, which starts with the allowance for the login's answers.
pub async fn connect(target: &Target, s: &Settings, meter: &Meter) -> Result<SqlClient, ConnectError> {
    let config = config(target, s).map_err(ConnectError)?;
    let tcp = match tokio::time::timeout(s.connect_timeout, tcp(&config, target)).await {
        Err(_) => return Err(ConnectError(format!("no connection within {}", secs(s.connect_timeout)))),
        Ok(Err(e)) => return Err(ConnectError(format!("cannot connect: {e}"))),
        Ok(Ok(tcp)) => tcp,
    };
    let _ = tcp.set_nodelay(true);
    let stream = Metered { tcp, meter: meter.clone() };
    match tokio::time::timeout(s.connect_timeout, Client::connect(config, stream.compat_write())).await {
        Err(_) => Err(ConnectError(format!("no login answer within {}", secs(s.connect_timeout)))),
        Ok(Err(_)) if meter.tripped() => Err(ConnectError(format!(
            "the server sent more than {} during the login, the most spindle reads of one answer",
            super::bytes_text(meter.allowance())
        ))),
        Ok(Err(e)) => Err(ConnectError(login_error(&e, s.connect_timeout))),
        Ok(Ok(client)) => Ok(client),
    }
}

async fn tcp(config: &Config, target: &Target) -> Result<TcpStream, String> {
    if target.instance.is_some() && target.port.is_none() {
        // Ask the SQL Browser (UDP 1434) for the instance's port.
        TcpStream::connect_named(config).await.map_err(|e| format!("SQL Browser: {e}"))
    } else {
        TcpStream::connect(config.get_addr()).await.map_err(|e| e.to_string())
    }
}

fn login_error(e: &tiberius::error::Error, timeout: Duration) -> String {
    use tiberius::error::Error;
    match e {
        Error::Server(t) if t.code() == 18456 => format!("login failed: {}", t.message()),
        Error::Server(t) => format!("server refused the login: error {}: {}", t.code(), t.message()),
        Error::Tls(m) => format!("TLS: {m} (a self-signed certificate needs --trust-server-certificate)"),
        Error::Io { kind: std::io::ErrorKind::TimedOut, .. } => {
            format!("no login answer within {}", secs(timeout))
        }
        Error::Io { message, .. } => format!("connection lost during login: {message}"),
        other => format!("login: {other}"),
    }
}

pub fn secs(d: Duration) -> String {
    if d.subsec_millis() == 0 { format!("{} s", d.as_secs()) } else { format!("{} ms", d.as_millis()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(encryption: Encryption) -> Settings {
        Settings {
            auth: Auth::Sql { user: "spindle".into(), password: Secret::new("hunter2".into()) },
            encryption,
            connect_timeout: Duration::from_secs(3),
            query_timeout: Duration::from_secs(4),
        }
    }

    #[test]
    fn encryption_is_required_and_certificates_checked_by_default() {
        let t = Target::parse("sql01").unwrap();
        let c = format!("{:?}", config(&t, &settings(Encryption::Required)).unwrap());
        assert!(c.contains("encryption: Required"), "{c}");
        assert!(c.contains("bypass: false") && c.contains("source: Native"), "{c}");
        let c = format!("{:?}", config(&t, &settings(Encryption::TrustServerCertificate)).unwrap());
        assert!(c.contains("encryption: Required") && c.contains("bypass: true"), "{c}");
        let c = format!("{:?}", config(&t, &settings(Encryption::Off)).unwrap());
        assert!(c.contains("encryption: NotSupported"), "{c}");
        let c = format!("{:?}", config(&t, &settings(Encryption::Strict)).unwrap());
        assert!(c.contains("encryption: Strict"), "{c}");
    }

    #[test]
    fn timeouts_and_read_only_intent_reach_the_driver() {
        let t = Target::parse("sql01,1500").unwrap();
        let c = config(&t, &settings(Encryption::Required)).unwrap();
        assert_eq!(c.get_handshake_timeout(), Some(Duration::from_secs(3)));
        assert_eq!(c.get_command_timeout(), Some(Duration::from_secs(4)));
        assert_eq!(c.get_addr(), "sql01:1500");
    }

    #[test]
    fn secrets_never_print() {
        let s = settings(Encryption::Required);
        assert!(!format!("{s:?}").contains("hunter2"));
        let c = config(&Target::parse("sql01").unwrap(), &s).unwrap();
        assert!(!format!("{c:?}").contains("hunter2"));
    }
}
