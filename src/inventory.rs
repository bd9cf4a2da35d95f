//! The fleet's inventory: a TOML file of servers, each with optional login, pack and tags.
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

use miette::{NamedSource, SourceSpan};
use serde::Deserialize;
use serde::de::IgnoredAny;
use toml::Spanned;
use toml::de::{DeTable, DeValue, ValueDeserializer};

use crate::connect::{Encrypt, ServerOverrides, is_env_name};
use crate::errors::UserError;
use spindle_collectors::sql::target::Target;

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

/// Reads the inventory. Every mistake in it is reported at once (a syntax error alone, as
/// nothing can be read after it), each with its line and column.
pub fn load(path: &Path) -> Result<Vec<Server>, UserError> {
    let shown = path.display().to_string();
    let text =
        std::fs::read_to_string(path).map_err(|e| UserError::plain(format!("{shown}: cannot read: {e}")))?;
    let root = DeTable::parse(&text).ok();
    // What may be a secret is never shown, in a snippet or a message: CI logs keep both.
    let secrets: Vec<Range<usize>> = root.as_ref().map(|r| secret_spans(r.get_ref())).unwrap_or_default();
    let masked = mask(&text, &secrets);
    let at = |span: Range<usize>, message: String, help: Option<String>| {
        let (line, col) = spindle_core::load::line_col(&text, span.start);
        let error = UserError {
            message: format!("{shown}:{line}:{col}: {message}"),
            src: Some(NamedSource::new(shown.clone(), masked.clone())),
            span: Some(SourceSpan::from(span.start..span.end.max(span.start + 1).min(text.len().max(1)))),
            help,
            related: vec![],
        };
        (span.start, error)
    };
    // serde words a bad value by quoting it: not when the value may be a secret.
    let serde_error = |e: toml::de::Error| {
        let span = e.span().unwrap_or(0..0);
        let in_secret = secrets.iter().any(|s| s.start <= span.start && span.start < s.end.max(s.start + 1));
        let message = if in_secret {
            "this value is not valid here (it is not shown: it may be a secret)".to_string()
        } else {
            e.message().to_string()
        };
        at(span, message, None)
    };
    let Some(root) = root else {
        return Err(DeTable::parse(&text)
            .map_err(|e| serde_error(e).1)
            .err()
            .unwrap_or_else(|| UserError::plain(format!("{shown}: not TOML"))));
    };
    let root_span = root.span();

    let mut errors = vec![];
    let mut entries = vec![];
    for (key, value) in root.into_inner() {
        let span = value.span();
        match value.into_inner() {
            DeValue::Array(items) if key.get_ref() == "server" => {
                for item in items {
                    if let Some(span) = password_span(&item) {
                        errors.push(at(
                            span,
                            "passwords are never read from files".into(),
                            Some(
                                "name an environment variable instead: password_env = \"SQL01_PASSWORD\""
                                    .into(),
                            ),
                        ));
                    }
                    for (key, span) in misplaced_secrets(&item) {
                        errors.push(at(
                            span,
                            format!("{key} names an environment variable; this value is not one (not shown: it may be a secret)"),
                            Some(format!("{key} = \"SQL01_PASSWORD\", with the password in that variable")),
                        ));
                    }
                    match Entry::deserialize(ValueDeserializer::from(item)) {
                        Ok(entry) => entries.push(entry),
                        Err(e) => errors.push(serde_error(e)),
                    }
                }
            }
            other => {
                let value = Spanned::new(span, other);
                let alone =
                    Spanned::new(root_span.clone(), DeValue::Table([(key, value)].into_iter().collect()));
                if let Err(e) = TopLevel::deserialize(ValueDeserializer::from(alone)) {
                    errors.push(serde_error(e));
                }
            }
        }
    }

    let base = path.parent().unwrap_or(Path::new(""));
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
    // In the order of the file, whichever check found them.
    errors.sort_by_key(|(start, _)| *start);
    if let Some(e) = UserError::all(&shown, errors.into_iter().map(|(_, e)| e).collect()) {
        return Err(e);
    }
    if out.is_empty() {
        return Err(UserError::plain(format!("{shown}: no [[server]] entries")));
    }
    Ok(out)
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

    fn load_str(text: &str) -> Result<Vec<Server>, UserError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("servers.toml");
        std::fs::write(&path, text).unwrap();
        load(&path)
    }

    #[test]
    fn servers_with_their_own_login_pack_and_tags() {
        let servers = load_str(
            "[[server]]\nname = 'sql01\\SALES'\ntags = [\"prod\"]\npack = \"acme.toml\"\nuser = \"spindle\"\n\
             password_env = \"SALES_PW\"\n\n[[server]]\nname = \"sql02,1500\"\nencrypt = \"strict\"\n",
        )
        .unwrap();
        assert_eq!(servers.len(), 2);
        assert_eq!(servers[0].target.instance.as_deref(), Some("SALES"));
        assert_eq!(servers[0].tags, ["prod"]);
        assert!(servers[0].packs.as_ref().unwrap()[0].ends_with("acme.toml"));
        assert_eq!(servers[0].overrides.password_env.as_deref(), Some("SALES_PW"));
        assert_eq!(servers[1].target.port, Some(1500));
        assert_eq!(servers[1].overrides.encrypt, Some(Encrypt::Strict));
    }

    #[test]
    fn mistakes_name_the_line_and_column() {
        let e = load_str("[[server]]\nname = \"sql01\"\npassword = \"hunter2\"\n").unwrap_err();
        assert!(
            e.message.contains("servers.toml:3:12: passwords are never read from files"),
            "{}",
            e.message
        );
        let e = load_str("[[server]]\nname = \"sql01\"\nuesr = \"x\"\n").unwrap_err();
        assert!(e.message.contains(":3:1: unknown field `uesr`"), "{}", e.message);
        let e = load_str("[[server]]\nname = \"sql01,99999\"\n").unwrap_err();
        assert!(e.message.contains(":2:8:") && e.message.contains("port"), "{}", e.message);
        let e = load_str("[[server]]\nname = \"a\"\n[[server]]\nname = \"A\"\n").unwrap_err();
        assert!(e.message.contains(":4:8: server A is listed twice"), "{}", e.message);
    }

    /// Issue 11, item 3: a password in the file, misspelled or pasted into `password_env`, is
    /// refused without being printed, in the message or the snippet.
    #[test]
    fn item03_a_password_in_the_inventory_is_never_echoed() {
        for (text, key) in [
            ("[[server]]\nname = \"sql01\"\npassword = \"hunter2-secret\"\n", "password"),
            ("[[server]]\nname = \"sql01\"\npasword = \"hunter2-secret\"\n", "pasword"),
            ("[[server]]\nname = \"sql01\"\npassword_env = \"hunter2-secret!\"\n", "password_env"),
            ("[[server]]\nname = \"sql01\"\naccess_token_env = \"ey.hunter2-secret\"\n", "access_token_env"),
            ("[[server]]\nname = \"sql01\"\npassword = 12345678\n", "password"),
            ("[[server]]\nname = \"sql01\"\nuser_token = [\"hunter2-secret\"]\n", "user_token"),
        ] {
            let e = load_str(text).unwrap_err();
            let shown = render(&e);
            assert!(!shown.contains("hunter2") && !shown.contains("12345678"), "{key}: {shown}");
            assert!(shown.contains(key), "{key} is named: {shown}");
            assert!(shown.contains("servers.toml:3:"), "{key} at its line: {shown}");
        }
        // An ordinary variable name is kept as is.
        assert!(load_str("[[server]]\nname = \"sql01\"\npassword_env = \"SQL01_PW\"\n").is_ok());
    }

    /// What the terminal shows, without colour.
    fn render(e: &UserError) -> String {
        let mut out = String::new();
        miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
            .with_width(200)
            .render_report(&mut out, e)
            .unwrap();
        out
    }

    #[test]
    fn every_bad_entry_is_reported_at_once_each_with_its_snippet() {
        let e = load_str(
            "[[server]]\nname = \"sql01\"\npassword = \"hunter2\"\n\n[[server]]\nname = \"a\"\n\n\
             [[server]]\nname = \"A\"\n",
        )
        .unwrap_err();
        assert!(e.message.ends_with("servers.toml: 2 errors"), "{}", e.message);
        assert_eq!(e.related.len(), 2);
        assert!(e.related[0].message.ends_with("servers.toml:3:12: passwords are never read from files"));
        assert!(e.related[1].message.ends_with("servers.toml:9:8: server A is listed twice"));
        let shown = render(&e);
        for expected in [
            "servers.toml: 2 errors",
            "servers.toml:3:12: passwords are never read from files",
            " 3 │ password = ",
            "help: name an environment variable instead",
            "servers.toml:9:8: server A is listed twice",
            " 9 │ name = \"A\"",
        ] {
            assert!(shown.contains(expected), "missing {expected:?} in:\n{shown}");
        }
    }

    #[test]
    fn one_entrys_mistake_hides_neither_its_password_nor_the_next_entrys() {
        let e = load_str(
            "servers = 1\n[[server]]\nname = \"sql01\"\nuesr = \"x\"\npassword = \"p\"\n\
             [[server]]\nname = \"sql02,99999\"\n[[server]]\nname = \"sql03\"\nencrypt = \"maybe\"\n",
        )
        .unwrap_err();
        let at: Vec<&str> =
            e.related.iter().map(|r| r.message.split("servers.toml:").nth(1).unwrap()).collect();
        assert_eq!(at.len(), 5, "{at:?}");
        assert!(at[0].starts_with("1:1: unknown field `servers`, expected `server`"), "{at:?}");
        assert!(at[1].starts_with("4:1: unknown field `uesr`"), "{at:?}");
        assert!(at[2].starts_with("5:12: passwords are never read"), "{at:?}");
        assert!(at[3].starts_with("7:8:") && at[3].contains("port"), "{at:?}");
        assert!(at[4].starts_with("10:11:") && at[4].contains("maybe"), "{at:?}");
    }

    #[test]
    fn a_single_mistake_is_one_error_as_before() {
        let e = load_str("[[server]]\nname = \"sql01\"\npassword = \"hunter2\"\n").unwrap_err();
        assert!(e.related.is_empty() && e.src.is_some() && e.help.is_some());
        let e = load_str("[[server]]\nname = \"sql01\"\n[[server\n").unwrap_err();
        assert!(e.related.is_empty() && e.message.contains(":3:"), "{}", e.message);
        let e = load_str("# nothing yet\n").unwrap_err();
        assert!(e.message.ends_with("servers.toml: no [[server]] entries"), "{}", e.message);
    }
}
