//! Reading the fleet's inventory (`--inventory`): the file, bounded and never waited on, then
//! its servers as [`spindle_collectors::inventory`] parses them, every mistake turned into an
//! error naming the file, line and column, with no secret in any snippet.

use std::path::Path;

use miette::{NamedSource, SourceSpan};
use spindle_collectors::inventory::{self, Rejected};

use crate::errors::UserError;

pub use spindle_collectors::inventory::Server;

/// Largest inventory read. An entry is about 100 bytes: 4 MiB lists tens of thousands of
/// servers, and anything bigger is not a hand-kept inventory.
pub const MAX_INVENTORY_BYTES: u64 = 4 << 20;

/// Reads the inventory. Every mistake in it is reported at once (a syntax error alone, as
/// nothing can be read after it), each with its line and column. A named pipe or device is
/// refused without blocking, and no more than one byte past the cap is read.
pub fn load(path: &Path) -> Result<Vec<Server>, UserError> {
    let text = crate::input::read_capped(path, MAX_INVENTORY_BYTES, "an inventory")?;
    let base = path.parent().unwrap_or(Path::new(""));
    inventory::parse(&text, base).map_err(|r| rejected(&path.display().to_string(), r))
}

/// Every mistake of an inventory as one error, each shown in the masked text.
fn rejected(shown: &str, r: Rejected) -> UserError {
    let Rejected { errors, masked } = r;
    let errors = errors
        .into_iter()
        .map(|e| match e.span {
            Some(span) => {
                let (line, col) = spindle_core::load::line_col(&masked, span.start);
                UserError {
                    message: format!("{shown}:{line}:{col}: {}", e.message),
                    src: Some(NamedSource::new(shown, masked.clone())),
                    span: Some(SourceSpan::from(
                        span.start..span.end.max(span.start + 1).min(masked.len().max(1)),
                    )),
                    help: e.help,
                    related: vec![],
                }
            }
            None => UserError { help: e.help, ..UserError::plain(format!("{shown}: {}", e.message)) },
        })
        .collect();
    UserError::all(shown, errors).unwrap_or_else(|| UserError::plain(format!("{shown}: not an inventory")))
}

#[cfg(test)]
mod tests {
    use spindle_collectors::inventory::Encrypt;

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
