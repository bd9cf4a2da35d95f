//! How to reach SQL Servers, shared by `collect sql` and `check --server/--inventory`, and how it
//! becomes collector options. Secrets come only from the environment or a prompt.

use std::io::IsTerminal;
use std::time::Duration;

use spindle_collectors::sql::Options;
use spindle_collectors::sql::connect::{Auth, Encryption, Secret, Settings};

// The inventory's knobs are the command line's too.
pub use spindle_collectors::inventory::{Encrypt, ServerOverrides, is_env_name};

/// Where the SQL login's password comes from when no variable is named.
pub const DEFAULT_PASSWORD_ENV: &str = "SPINDLE_SQL_PASSWORD";

/// How to log in and how long to wait: the command line's connection flags.
#[derive(Debug, Clone)]
pub struct ConnectOptions {
    /// SQL Server login; its password comes from `password_env`, else a prompt on a terminal.
    pub user: Option<String>,
    /// Environment variable holding the SQL login's password.
    pub password_env: String,
    /// Environment variable holding a Microsoft Entra ID (Azure AD) access token.
    pub access_token_env: Option<String>,
    /// Windows integrated authentication (Kerberos on Linux, in builds with `kerberos`).
    pub integrated: bool,
    pub encrypt: Encrypt,
    /// Accept any server certificate (self-signed, wrong name): exposed to a man in the middle.
    pub trust_server_certificate: bool,
    /// Longest wait for the TCP connection and, separately, for the login.
    pub connect_timeout: Duration,
    /// Longest wait for any one answer from the server while reading a query's results.
    pub query_timeout: Duration,
    /// Read the I/O counters twice this far apart and keep the difference.
    pub sample: Option<Duration>,
}

impl Default for ConnectOptions {
    fn default() -> Self {
        ConnectOptions {
            user: None,
            password_env: DEFAULT_PASSWORD_ENV.into(),
            access_token_env: None,
            integrated: false,
            encrypt: Encrypt::Required,
            trust_server_certificate: false,
            connect_timeout: Duration::from_secs(15),
            query_timeout: Duration::from_secs(30),
            sample: None,
        }
    }
}

/// Passwords asked for on the terminal in this run, by login and the variable that lacked them.
#[derive(Default)]
pub struct Prompted(std::collections::HashMap<(String, String), String>);

impl ConnectOptions {
    /// The collector options for one server. A password missing from the environment is asked
    /// for on the terminal, once per login and variable however many servers share them.
    pub fn options(&self, o: &ServerOverrides, prompted: &mut Prompted) -> Result<Options, String> {
        let user = o.user.clone().or_else(|| self.user.clone());
        let token_env = o.access_token_env.clone().or_else(|| self.access_token_env.clone());
        let integrated = o.integrated.unwrap_or(self.integrated);
        let auth = if let Some(var) = token_env {
            Auth::AccessToken(Secret::new(
                env_secret(&var)?.ok_or_else(|| format!("the access token variable {var} is not set"))?,
            ))
        } else if let Some(user) = user {
            let var = o.password_env.clone().unwrap_or_else(|| self.password_env.clone());
            let password = match env_secret(&var)? {
                Some(p) => p,
                None if std::io::stdin().is_terminal() => {
                    match prompted.0.get(&(user.clone(), var.clone())) {
                        Some(p) => p.clone(),
                        None => {
                            let p = crate::password::prompt_password(&format!("Password for {user}: "))
                                .map_err(|e| format!("cannot read the password: {e}"))?;
                            prompted.0.insert((user.clone(), var.clone()), p.clone());
                            p
                        }
                    }
                }
                None => {
                    return Err(format!(
                        "no password for login {user}: set {var} (passwords are never taken from the \
                         command line)"
                    ));
                }
            };
            Auth::Sql { user, password: Secret::new(password) }
        } else if integrated {
            Auth::Integrated
        } else {
            return Err("how to log in? --user LOGIN (password in SPINDLE_SQL_PASSWORD), --integrated, \
                        or --access-token-env VAR"
                .into());
        };
        let trust = o.trust_server_certificate.unwrap_or(self.trust_server_certificate);
        let encryption = match (o.encrypt.unwrap_or(self.encrypt), trust) {
            (Encrypt::Off, _) => Encryption::Off,
            (Encrypt::Strict, false) => Encryption::Strict,
            (Encrypt::Strict, true) => {
                return Err(
                    "--encrypt strict validates the certificate; drop --trust-server-certificate".into()
                );
            }
            (Encrypt::Required, true) => Encryption::TrustServerCertificate,
            (Encrypt::Required, false) => Encryption::Required,
        };
        Ok(Options {
            settings: Settings {
                auth,
                encryption,
                connect_timeout: self.connect_timeout,
                query_timeout: self.query_timeout,
            },
            sample: self.sample,
        })
    }
}

/// Warnings for the insecure opt-ins, printed once per run.
pub fn security_warnings(opts: &Options) -> Option<&'static str> {
    match opts.settings.encryption {
        Encryption::Off => {
            Some("warning: --encrypt off: the login and every result cross the network unencrypted")
        }
        Encryption::TrustServerCertificate => Some(
            "warning: --trust-server-certificate: any certificate is accepted, so a man in the middle \
             can read the session",
        ),
        _ => None,
    }
}

/// An environment variable's value. A "name" that is no variable's name is most likely the
/// secret itself, typed in the wrong place: refused without being repeated.
fn env_secret(var: &str) -> Result<Option<String>, String> {
    if !is_env_name(var) {
        return Err(
            "--password-env and --access-token-env name an environment variable; the value given is \
                    not a variable's name (not shown: it may be the secret itself)"
                .into(),
        );
    }
    match std::env::var(var) {
        Ok(v) if !v.is_empty() => Ok(Some(v)),
        Ok(_) | Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => Err(format!("{var} is not valid Unicode")),
    }
}

/// `500ms`, `15s`, `2m`, `1h`; a bare number is seconds.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (n, unit) = s.split_at(split);
    let n: u64 = n.parse().map_err(|_| format!("`{s}`: expected a duration such as 500ms, 15s or 2m"))?;
    let ms = match unit.trim() {
        "ms" => Some(n),
        "" | "s" => n.checked_mul(1000),
        "m" | "min" => n.checked_mul(60_000),
        "h" => n.checked_mul(3_600_000),
        _ => None,
    }
    .ok_or_else(|| format!("`{s}`: expected a duration such as 500ms, 15s or 2m"))?;
    if ms == 0 {
        return Err(format!("`{s}`: a duration must be more than zero"));
    }
    Ok(Duration::from_millis(ms))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn item03_a_password_given_as_a_variable_name_is_not_repeated() {
        let o = ConnectOptions {
            user: Some("spindle".into()),
            password_env: "hunter2!secret".into(),
            ..ConnectOptions::default()
        };
        let e = o.options(&ServerOverrides::default(), &mut Prompted::default()).unwrap_err();
        assert!(!e.contains("hunter2"), "{e}");
        assert!(e.contains("--password-env"), "{e}");
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("60s").unwrap(), Duration::from_secs(60));
        assert_eq!(parse_duration("2m").unwrap(), Duration::from_secs(120));
        assert_eq!(parse_duration("250ms").unwrap(), Duration::from_millis(250));
        assert_eq!(parse_duration("5").unwrap(), Duration::from_secs(5));
        for bad in ["", "s", "-1s", "1 fortnight", "0s", "99999999999999999999h"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
