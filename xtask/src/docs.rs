//! `cargo xtask docs`: the manual's rule table (docs/rules.md), between the
//! `<!-- rules:begin … -->` line and `<!-- rules:end -->`, the way `rule_table_is_current` in
//! tests/cli.rs reads it.

use std::fs;
use std::path::Path;
use std::process::ExitCode;

use crate::Failure;

const BEGIN: &str = "<!-- rules:begin";
const END: &str = "<!-- rules:end -->";

/// The chapter of the manual that holds the rule table, from the repository's root.
pub const TABLE_FILE: &str = "docs/rules.md";

/// The rule table in Markdown, as `spindle rules --format markdown` prints it.
pub fn markdown_table() -> String {
    spindle_rules::markdown_table()
}

/// `page` with `table` between the markers: after the line that holds the begin marker, up to
/// the end marker.
fn splice(page: &str, table: &str) -> Result<String, String> {
    let begin = page.find(BEGIN).ok_or_else(|| format!("no `{BEGIN} … -->` line"))?;
    let start = page[begin..].find('\n').map(|i| begin + i + 1).ok_or("nothing after the begin marker")?;
    let end =
        page[start..].find(END).map(|i| start + i).ok_or_else(|| format!("no `{END}` after `{BEGIN}`"))?;
    Ok(format!("{}{table}{}", &page[..start], &page[end..]))
}

/// The table rows that differ, `-` for the old and `+` for the new, as a few lines to print.
fn changed_rows(old: &str, new: &str) -> String {
    let mut out = String::new();
    for line in old.lines().filter(|l| !new.lines().any(|n| n == *l)) {
        out.push_str(&format!("  - {line}\n"));
    }
    for line in new.lines().filter(|l| !old.lines().any(|o| o == *l)) {
        out.push_str(&format!("  + {line}\n"));
    }
    out
}

pub fn run(root: &Path, check: bool) -> Result<ExitCode, Failure> {
    let path = root.join(TABLE_FILE);
    let page = fs::read_to_string(&path).map_err(|e| {
        Failure::one(format!("cannot read {}: {e} (is `--root` the repository?)", path.display()))
    })?;
    let updated = splice(&page, &markdown_table())
        .map_err(|e| Failure::one(format!("{}: {e}; the rule table has no place to go", path.display())))?;
    let rules = spindle_rules::all().len();
    if updated == page {
        println!("{TABLE_FILE}: the rule table is current ({rules} rules)");
        return Ok(ExitCode::SUCCESS);
    }
    let diff = changed_rows(&page, &updated);
    if check {
        eprint!("{TABLE_FILE}: the rule table is stale; `cargo xtask docs` would change:\n{diff}");
        return Ok(ExitCode::FAILURE);
    }
    fs::write(&path, updated).map_err(|e| Failure::one(format!("cannot write {}: {e}", path.display())))?;
    print!("{TABLE_FILE}: rule table updated ({rules} rules):\n{diff}");
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splice_replaces_only_between_the_markers() {
        let page = "# T\n<!-- rules:begin (generated) -->\n| old |\n<!-- rules:end -->\nafter\n";
        assert_eq!(
            splice(page, "| new |\n| two |\n").unwrap(),
            "# T\n<!-- rules:begin (generated) -->\n| new |\n| two |\n<!-- rules:end -->\nafter\n"
        );
        assert!(splice("no markers\n", "x").unwrap_err().contains("rules:begin"));
        assert!(splice("<!-- rules:begin -->\nx\n", "x").unwrap_err().contains("rules:end"));
    }

    #[test]
    fn changed_rows_lists_removed_then_added() {
        assert_eq!(changed_rows("a\nb\n", "a\nc\n"), "  - b\n  + c\n");
    }
}
