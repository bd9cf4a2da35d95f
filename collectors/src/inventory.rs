//! The SQL Servers to collect from, as an inventory file lists them: each with optional login,
//! packs and tags. Parsing only: the library reads the file and words the errors.
//!
//! ```toml
//! [[server]]
//! name = 'sql01\SALES'          # host, host\instance or host,port
//! tags = ["prod", "emea"]
//! pack = ["oltp", "acme.toml"]  # relative to this file; default: the command line's --pack
//! user = "spindle"              # password from password_env, never from this file
//! password_env = "SQL01_PASSWORD"
//! ```

use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::IgnoredAny;
use toml::Spanned;
use toml::de::{DeTable, DeValue, ValueDeserializer};

use crate::target::Target;

/// Encryption: `Required` (the certificate is validated), `Strict` (TDS 8.0), or `Off` (plain
/// TDS: the login and every result cross the network in clear).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Encrypt {
    Required,
    Strict,
    Off,
}

/// What a server may set for itself in an inventory, over the command line's flags.
#[derive(Debug, Clone, Default)]
pub struct ServerOverrides {
    pub user: Option<String>,
    pub password_env: Option<String>,
    pub access_token_env: Option<String>,
    pub integrated: Option<bool>,
    pub encrypt: Option<Encrypt>,
    pub trust_server_certificate: Option<bool>,
}

/// An environment variable's name, as `--password-env`, `password_env` and `access_token_env`
/// take: letters, digits and `_`, not starting with a digit.
pub fn is_env_name(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && s.len() <= 128
}

/// The file's top level, only for serde to word what is wrong with it: each `[[server]]` is read
/// on its own, so that one entry's mistake hides no other's.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TopLevel {
    #[serde(default, rename = "server")]
    _server: Vec<IgnoredAny>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    name: Spanned<String>,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    pack: Option<OneOrMany>,
    user: Option<String>,
    password_env: Option<String>,
    access_token_env: Option<String>,
    integrated: Option<bool>,
    encrypt: Option<Encrypt>,
    trust_server_certificate: Option<bool>,
    /// Accepted here only to be refused by name, which [`password_span`] does from the raw entry
    /// so that an entry with another mistake too is still told.
    #[serde(default, rename = "password")]
    _password: Option<IgnoredAny>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

/// One server of the inventory.
#[derive(Debug, Clone)]
pub struct Server {
    pub target: Target,
    /// The name as written in the inventory, for messages and reports.
    pub label: String,
    pub tags: Vec<String>,
    /// Packs for this server (paths resolved against the inventory's folder); `None`: the
    /// command line's.
    pub packs: Option<Vec<String>>,
    pub overrides: ServerOverrides,
}

/// One mistake in an inventory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InventoryError {
    /// Where in the text; `None` for the file as a whole.
    pub span: Option<Range<usize>>,
    pub message: String,
    pub help: Option<String>,
}

/// Most mistakes listed of one inventory: each error the library makes of them holds the file's
/// text for its snippet, so a 4 MiB file of a million mistakes needed terabytes; 20 are as many
/// as one sitting fixes (as for packs).
pub const MAX_ERRORS: usize = 20;

/// Why an inventory was refused: every mistake, in the order of the file, and the text to show
/// them in, with every value that may be a secret masked.
#[derive(Debug, Clone)]
pub struct Rejected {
    pub errors: Vec<InventoryError>,
    /// The text, each byte of a possible secret turned into `*` (quotes and newlines kept), so
    /// that every span and position is the same as in the text read.
    pub masked: String,
}

/// Parses an inventory's text; pack paths are resolved against `base`, the inventory's folder.
/// Every mistake is reported at once (a syntax error alone, as nothing can be read after it),
/// each with its span.
pub fn parse(text: &str, base: &Path) -> Result<Vec<Server>, Rejected> {
    let root = DeTable::parse(text);
    // What may be a secret is never shown, in a snippet or a message: CI logs keep both.
    let secrets: Vec<Range<usize>> = root.as_ref().map(|r| secret_spans(r.get_ref())).unwrap_or_default();
    let reject = |errors| Rejected { errors, masked: mask(text, &secrets) };
    let root = match root {
        Ok(root) => root,
        Err(e) => return Err(reject(vec![serde_error(e, &secrets)])),
    };
    let (entries, mut errors) = read_entries(root, &secrets);
    let out = servers(entries, base, &mut errors);
    if !errors.is_empty() {
        return Err(reject(in_file_order(errors)));
    }
    if out.is_empty() {
        return Err(reject(vec![InventoryError {
            span: None,
            message: "no [[server]] entries".into(),
            help: None,
        }]));
    }
    Ok(out)
}

fn at(span: Range<usize>, message: String, help: Option<String>) -> InventoryError {
    InventoryError { span: Some(span), message, help }
}

/// serde's words for a bad value, which quote it: not when the value may be a secret.
fn serde_error(e: toml::de::Error, secrets: &[Range<usize>]) -> InventoryError {
    let span = e.span().unwrap_or(0..0);
    let in_secret = secrets.iter().any(|s| s.start <= span.start && span.start < s.end.max(s.start + 1));
    let message = if in_secret {
        "this value is not valid here (it is not shown: it may be a secret)".to_string()
    } else {
        e.message().to_string()
    };
    at(span, message, None)
}

/// The `[[server]]` entries, each read on its own so that one entry's mistake hides no other's,
/// and every mistake in them and in the rest of the file.
fn read_entries(root: Spanned<DeTable<'_>>, secrets: &[Range<usize>]) -> (Vec<Entry>, Vec<InventoryError>) {
    let root_span = root.span();
    let mut errors = vec![];
    let mut entries = vec![];
    for (key, value) in root.into_inner() {
        let span = value.span();
        match value.into_inner() {
            DeValue::Array(items) if key.get_ref() == "server" => {
                for item in items {
                    errors.extend(secrets_written_here(&item));
                    match Entry::deserialize(ValueDeserializer::from(item)) {
                        Ok(entry) => entries.push(entry),
                        Err(e) => errors.push(serde_error(e, secrets)),
                    }
                }
            }
            other => {
                let value = Spanned::new(span, other);
                let alone =
                    Spanned::new(root_span.clone(), DeValue::Table([(key, value)].into_iter().collect()));
                if let Err(e) = TopLevel::deserialize(ValueDeserializer::from(alone)) {
                    errors.push(serde_error(e, secrets));
                }
            }
        }
    }
    (entries, errors)
}

/// A password, or a secret where a variable's name belongs, in one `[[server]]` entry: told
/// whatever else is wrong with the entry.
fn secrets_written_here(item: &Spanned<DeValue<'_>>) -> Vec<InventoryError> {
    let mut errors = vec![];
    if let Some(span) = password_span(item) {
        errors.push(at(
            span,
            "passwords are never read from files".into(),
            Some("name an environment variable instead: password_env = \"SQL01_PASSWORD\"".into()),
        ));
    }
    for (key, span) in misplaced_secrets(item) {
        errors.push(at(
            span,
            format!(
                "{key} names an environment variable; this value is not one (not shown: it may be a secret)"
            ),
            Some(format!("{key} = \"SQL01_PASSWORD\", with the password in that variable")),
        ));
    }
    errors
}

/// The servers the entries name, each once; a name that is no server, or one listed twice, is a
/// mistake.
fn servers(entries: Vec<Entry>, base: &Path, errors: &mut Vec<InventoryError>) -> Vec<Server> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(entries.len());
    for entry in entries {
        let name = entry.name.get_ref();
        let target = match Target::parse(name) {
            Ok(target) => target,
            Err(e) => {
                errors.push(at(entry.name.span(), e, None));
                continue;
            }
        };
        if !seen.insert(target.to_string().to_ascii_lowercase()) {
            errors.push(at(entry.name.span(), format!("server {target} is listed twice"), None));
            continue;
        }
        let packs = entry.pack.map(|p| match p {
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        });
        out.push(Server {
            label: name.clone(),
            target,
            tags: entry.tags,
            packs: packs.map(|v| v.into_iter().map(|p| resolve_pack(base, p)).collect()),
            overrides: ServerOverrides {
                user: entry.user,
                password_env: entry.password_env,
                access_token_env: entry.access_token_env,
                integrated: entry.integrated,
                encrypt: entry.encrypt,
                trust_server_certificate: entry.trust_server_certificate,
            },
        });
    }
    out
}

/// The mistakes in the order of the file, whichever check found them, at most [`MAX_ERRORS`].
fn in_file_order(mut errors: Vec<InventoryError>) -> Vec<InventoryError> {
    errors.sort_by_key(|e| e.span.as_ref().map_or(0, |s| s.start));
    if errors.len() > MAX_ERRORS {
        let more = errors.len() - MAX_ERRORS;
        errors.truncate(MAX_ERRORS);
        errors.push(InventoryError {
            span: None,
            message: format!("{more} more mistakes are not listed (the first {MAX_ERRORS} are)"),
            help: None,
        });
    }
    errors
}

/// Where a `[[server]]` entry sets `password`, whatever else is wrong with it.
fn password_span(entry: &Spanned<DeValue<'_>>) -> Option<Range<usize>> {
    match entry.get_ref() {
        DeValue::Table(table) => table.get("password").map(Spanned::span),
        _ => None,
    }
}

/// Keys whose value may be a secret: `password` and its misspellings, tokens, secrets.
fn may_hold_secret(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    !k.ends_with("_env")
        && ["pass", "pasw", "pw", "secret", "token", "credential"].iter().any(|w| k.contains(w))
}

/// `password_env` or `access_token_env` holding what is not a variable's name: most likely the
/// secret itself, pasted in the wrong place.
fn misplaced_secrets(entry: &Spanned<DeValue<'_>>) -> Vec<(&'static str, Range<usize>)> {
    let DeValue::Table(table) = entry.get_ref() else { return vec![] };
    ["password_env", "access_token_env"]
        .into_iter()
        .filter_map(|key| {
            let v = table.get(key)?;
            match v.get_ref() {
                DeValue::String(s) if is_env_name(s) => None,
                _ => Some((key, v.span())),
            }
        })
        .collect()
}

/// The spans of every value in the `[[server]]` entries that may be a secret: under a key that
/// may hold one, or a `*_env` key whose value is no variable's name.
fn secret_spans(root: &DeTable<'_>) -> Vec<Range<usize>> {
    let mut out = vec![];
    let mut visit = |table: &DeTable<'_>| {
        for (key, value) in table.iter() {
            let secret = may_hold_secret(key.get_ref())
                || (key.get_ref().ends_with("_env")
                    && !matches!(value.get_ref(), DeValue::String(s) if is_env_name(s)));
            if secret {
                out.push(value.span());
            }
        }
    };
    visit(root);
    for (_, value) in root.iter() {
        match value.get_ref() {
            DeValue::Array(items) => {
                for item in items {
                    if let DeValue::Table(t) = item.get_ref() {
                        visit(t);
                    }
                }
            }
            DeValue::Table(t) => visit(t),
            _ => {}
        }
    }
    out
}

/// `text` with the bytes of each span turned into `*` (quotes kept), so the snippet keeps every
/// other position and shows no secret.
fn mask(text: &str, spans: &[Range<usize>]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for span in spans {
        let end = span.end.min(bytes.len());
        for b in &mut bytes[span.start.min(end)..end] {
            if !matches!(*b, b'"' | b'\'' | b'\n') {
                *b = b'*';
            }
        }
    }
    // Whole UTF-8 sequences were replaced byte by byte, so the text is still UTF-8.
    String::from_utf8(bytes).unwrap_or_default()
}

/// A pack named by path is relative to the inventory; a builtin name stays a name.
fn resolve_pack(base: &Path, pack: String) -> String {
    if pack.ends_with(".toml") && Path::new(&pack).is_relative() {
        let p: PathBuf = base.join(&pack);
        p.display().to_string()
    } else {
        pack
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_come_in_file_order_with_their_spans_and_secrets_masked() {
        let text = "[[server]]\nname = \"sql01\"\npassword = \"hunter2\"\n[[server]]\nname = \"SQL01\"\n";
        let r = parse(text, Path::new("")).unwrap_err();
        let at: Vec<&str> = r.errors.iter().map(|e| &text[e.span.clone().unwrap()]).collect();
        assert_eq!(at, ["\"hunter2\"", "\"SQL01\""]);
        assert_eq!(r.errors[1].message, "server SQL01 is listed twice");
        assert!(!r.masked.contains("hunter2") && r.masked.len() == text.len(), "{}", r.masked);
        assert!(r.masked.contains("password = \"*******\""), "{}", r.masked);
    }

    /// An inventory of endless mistakes: the library turns each into an error holding the
    /// file's text, so all of them took memory in the square of the file's size.
    #[test]
    fn an_inventory_of_endless_mistakes_lists_the_first_twenty() {
        let text = "[[server]]\nname = \"a b\"\n".repeat(50_000);
        let r = parse(&text, Path::new("")).unwrap_err();
        assert_eq!(r.errors.len(), MAX_ERRORS + 1);
        assert!(r.errors[0].message.contains("bad host name"), "{}", r.errors[0].message);
        let last = r.errors.last().unwrap();
        assert_eq!(last.span, None);
        assert_eq!(last.message, "49980 more mistakes are not listed (the first 20 are)");
    }

    #[test]
    fn pack_paths_are_relative_to_the_inventory_and_builtin_names_stay() {
        let text = "[[server]]\nname = \"sql01\"\npack = [\"oltp\", \"acme.toml\"]\n";
        let servers = parse(text, Path::new("/etc/spindle")).unwrap();
        assert_eq!(
            servers[0].packs.as_deref(),
            Some(&["oltp".to_string(), "/etc/spindle/acme.toml".to_string()][..])
        );
    }
}
