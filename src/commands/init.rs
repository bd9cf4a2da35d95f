//! `spindle init`: a commented starter pack for a project, with the stripe units its servers'
//! snapshots need declared.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::engine::{Engine, today};
use crate::errors::UserError;
use crate::output::write_atomically;
use crate::sources::{Snapshots, Source};

/// Writes the starter pack to `output` (refusing to replace a file unless `force`) and says
/// what it wrote. `snapshots` are checked with the recommended pack to find the stripe units
/// no machine reports, which the pack then lists, commented, to be filled in.
pub fn init(snapshots: &[PathBuf], output: &Path, force: bool) -> Result<String, UserError> {
    if !force && std::fs::symlink_metadata(output).is_ok() {
        return Err(UserError {
            help: Some("--force replaces it; -o FILE writes elsewhere".into()),
            ..UserError::plain(format!(
                "{}: already exists; spindle init does not replace it",
                output.display()
            ))
        });
    }
    let needs = if snapshots.is_empty() { None } else { Some(stripe_units_to_declare(snapshots)?) };
    let text = starter_pack(needs.as_deref());
    write_atomically(output, text.as_bytes())?;
    let listed = match needs.as_deref() {
        None => String::new(),
        Some(n) => format!(", {} to declare", spindle_core::units::plural(n.len(), "stripe unit")),
    };
    let discovered = output.file_name().is_some_and(|n| crate::packs::CONFIG_NAMES.iter().any(|c| n == *c));
    let how = if discovered {
        "`spindle check` run in its folder or below uses it".to_string()
    } else {
        format!("use it with --pack {}", output.display())
    };
    Ok(format!("spindle: wrote {}{listed}; {how}", output.display()))
}

/// An entity whose stripe unit the snapshots do not hold and a pack can declare.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToDeclare {
    pub key: String,
    pub label: String,
    /// The rules that need it (`ALN002`, `ALN003`).
    pub codes: Vec<String>,
}

/// Checks each host of `snapshots` with the recommended pack and keeps what its rules could
/// not evaluate for want of a declared stripe unit, once per entity, in host order.
fn stripe_units_to_declare(snapshots: &[PathBuf]) -> Result<Vec<ToDeclare>, UserError> {
    let hosts = Snapshots::open(&[Source::files(snapshots.to_vec(), vec![])], 1)?;
    let engine = Engine::load(&[])?;
    let today = today()?;
    let mut out: Vec<ToDeclare> = vec![];
    for g in 0..hosts.hosts() {
        let view = engine.view(hosts.load(g)?);
        let report = engine.check(&view, today);
        for n in report.not_evaluated {
            let (Some(entity), Some(reason)) = (n.entity, n.reason) else { continue };
            if !reason.contains("declare.stripe_unit") {
                continue;
            }
            // The hint names what to declare (a partition's disk, say), which is not always the
            // entity the rule could not judge.
            let (key, label) = match declared_key(&reason) {
                Some(key) if key == entity.key => (key, entity.label),
                Some(key) => (key, format!("for {}", entity.label)),
                None => (entity.key, entity.label),
            };
            match out.iter_mut().find(|d| d.key == key) {
                Some(d) if !d.codes.contains(&n.code) => d.codes.push(n.code),
                Some(_) => {}
                None => out.push(ToDeclare { key, label, codes: vec![n.code] }),
            }
        }
    }
    Ok(out)
}

/// The entity a rule's declaration hint names: what follows `entity = ` in it, a TOML literal
/// (`'…'`) or basic (`"…"`) string, read as TOML reads it: a basic string ends at its first
/// quote that is not escaped (`\"` is a quote in the key), and its escapes are undone.
fn declared_key(reason: &str) -> Option<String> {
    let rest = &reason[reason.find("entity = ")? + "entity = ".len()..];
    let quote = rest.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let body = &rest[1..];
    if quote == '\'' {
        return Some(body[..body.find(quote)?].to_string());
    }
    let mut escaped = false;
    let end = body.char_indices().find_map(|(i, c)| {
        let closes = c == '"' && !escaped;
        escaped = c == '\\' && !escaped;
        closes.then_some(i)
    })?;
    let parsed: toml::Table = toml::from_str(&format!("k = \"{}\"", &body[..end])).ok()?;
    parsed.get("k")?.as_str().map(str::to_string)
}

/// The pack's text. Valid TOML that loads as it is: everything to fill in is commented out.
/// `needs`: `None` when no snapshot was given.
pub fn starter_pack(needs: Option<&[ToDeclare]>) -> String {
    let mut out = String::from(HEAD);
    match needs {
        None => out.push_str(STRIPE_EXAMPLE),
        Some([]) => out.push_str("# The snapshots given need no stripe unit declared.\n"),
        Some(needs) => {
            out.push_str(STRIPE_INTRO);
            for d in needs {
                let _ = write!(
                    out,
                    "\n# {} (needed by {})\n# [[declare.stripe_unit]]\n# entity = {}\n# stripe_unit_bytes = \
                     STRIPE_UNIT_BYTES\n",
                    comment_text(&d.label),
                    d.codes.join(", "),
                    toml_string(&d.key)
                );
            }
        }
    }
    out.push_str(WAIVERS);
    out
}

const HEAD: &str = r#"# spindle's rule pack for this project, written by `spindle init`.
#
# `spindle check` uses it when run in this folder or below it (the nearest spindle.toml or
# .spindle.toml up from the working directory), unless --pack or --no-config is given.
# The format: "Rule packs" in spindle's manual (docs/packs.md), and `spindle schema pack`.

name = "project"

# Start from a builtin pack: recommended, oltp or data-warehouse.
extends = ["recommended"]

# Rules by code (ALN001), code prefix (ALN) or name: `spindle rules` lists them.
# select = ["ALN", "FMT", "LAT"]
# ignore = ["GRW003"]

# A waiver that expires within this many days is a warning on every run (0: never).
waiver_warn_days = 30

# Severities and parameters per rule: `spindle explain CODE` lists a rule's parameters.
# [rules.LAT001]
# severity = "error"

[declare]
# The servers' workload, when the host cannot say: "oltp" or "data-warehouse".
# workload = "oltp"

"#;

const STRIPE_INTRO: &str = "\
# Stripe units no machine reports: a SAN LUN's or a hardware RAID logical drive's. Read each one
# from the array (the SAN's management console; the RAID controller's CLI: `storcli /c0/v0 show
# all`, `perccli /c0/v0 show all`, `ssacli ctrl all show config detail`), then uncomment its
# entry and write the value in bytes (65536 is 64 KiB). STRIPE_UNIT_BYTES is not a value: a pack
# that still holds it does not load.
";

const STRIPE_EXAMPLE: &str = "\
# Stripe units no machine reports (a SAN LUN's, a hardware RAID logical drive's), read from the
# SAN's console or the RAID controller's CLI (storcli, perccli, ssacli), in bytes. Run
# `spindle init --force SNAPSHOT...` to list the ones your servers need.
# [[declare.stripe_unit]]
# entity = 'sql05/disk:lun7'
# stripe_unit_bytes = STRIPE_UNIT_BYTES
";

const WAIVERS: &str = r#"
# Accepted findings: they stay in every report, marked waived, until they expire. A waiver that
# matches no finding is a warning, as is one that expires within waiver_warn_days.
# [[waivers]]
# rules = ["ALN001"]
# entity = "legacy01/disk:1/*"
# reason = "the Q3 SAN migration re-creates these volumes aligned"
# expires = "2027-06-30"
"#;

/// A TOML string for `s`: a literal string (Windows device paths keep their backslashes as
/// they are) when it can be one, else a basic string with every control character escaped.
/// Always one line, so it stays inside its comment.
fn toml_string(s: &str) -> String {
    if !s.contains('\'') && !s.chars().any(char::is_control) {
        return format!("'{s}'");
    }
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A snapshot's text inside a `#` comment: one line, no control character.
fn comment_text(s: &str) -> String {
    spindle_core::untrusted::name(s).chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_a_hint_names() {
        let hint = r#"unknown; declare it in a rule pack: [[declare.stripe_unit]] entity = "sql05/disk:lun7" (a glob)"#;
        assert_eq!(declared_key(hint).as_deref(), Some("sql05/disk:lun7"));
        let literal =
            r"declare: [[declare.stripe_unit]] entity = 'erp/disk:\.\PHYSICALDRIVE0', stripe_unit_bytes";
        assert_eq!(declared_key(literal).as_deref(), Some(r"erp/disk:\.\PHYSICALDRIVE0"));
        assert_eq!(declared_key("declare.stripe_unit, but no entity"), None);
        // An escaped quote is part of the key, not its end; the escapes are undone.
        let quoted = r#"[[declare.stripe_unit]] entity = "h/disk:it's \"RAID\" 5\\x" stripe_unit_bytes"#;
        assert_eq!(declared_key(quoted).as_deref(), Some(r#"h/disk:it's "RAID" 5\x"#));
    }

    #[test]
    fn strings_stay_on_one_line_and_parse_back() {
        for key in [r"erp-sql1/disk:\\.\PHYSICALDRIVE0", "it's", "a\nb\u{1b}[2J", "q\"uote\\"] {
            let quoted = toml_string(key);
            assert!(!quoted.contains('\n'), "{quoted}");
            let parsed: toml::Table = toml::from_str(&format!("k = {quoted}")).unwrap();
            assert_eq!(parsed["k"].as_str(), Some(key));
        }
        assert_eq!(toml_string(r"erp-sql1/disk:\\.\PHYSICALDRIVE0"), r"'erp-sql1/disk:\\.\PHYSICALDRIVE0'");
    }
}
