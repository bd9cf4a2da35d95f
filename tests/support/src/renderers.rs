//! The real consumers of the reports people read: GitHub's CommonMark + GFM parser
//! (`cmark-gfm`, which GitHub renders Markdown with) and a browser (headless Chromium). Both are
//! installed by scripts/install-test-tools.sh. When the `CI` variable is set a missing tool
//! fails the test; otherwise the test may skip, saying why.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The path of `name` on PATH (or /usr/bin), or `None` after printing why the test skips; a
/// panic under CI.
pub fn tool_or_skip(name: &str, package: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/bin")])
        .map(|d| d.join(name))
        .find(|p| p.is_file());
    if found.is_none() {
        crate::tier::unavailable(
            &format!(
                "`{name}` is not installed: run scripts/install-test-tools.sh (Debian package `{package}`)"
            ),
            &[],
        );
    }
    found
}

/// `markdown` rendered to HTML by cmark-gfm with GitHub's extensions (tables, strikethrough,
/// autolinks, task lists) and raw HTML let through (`--unsafe`), so that any HTML the data
/// smuggled in shows; `None` when cmark-gfm is not installed (and not under CI).
pub fn cmark_gfm(markdown: &str) -> Option<String> {
    let cmark = tool_or_skip("cmark-gfm", "cmark-gfm")?;
    let mut child = Command::new(cmark)
        .args(["--unsafe", "-e", "table", "-e", "strikethrough", "-e", "autolink", "-e", "tasklist"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("cmark-gfm runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = markdown.to_string();
    let feeder = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("cmark-gfm output");
    feeder.join().expect("feeder").expect("cmark-gfm reads its input");
    assert!(out.status.success(), "cmark-gfm failed: {}", out.status);
    Some(String::from_utf8(out.stdout).expect("UTF-8 HTML"))
}

/// The tables of cmark-gfm's HTML: each a list of rows, each row its cells' inner HTML.
pub fn tables(html: &str) -> Vec<Vec<Vec<String>>> {
    let mut out = vec![];
    for table in html.split("<table>").skip(1) {
        let table = table.split("</table>").next().unwrap_or("");
        let rows = table
            .split("<tr>")
            .skip(1)
            .map(|row| {
                let row = row.split("</tr>").next().unwrap_or("");
                row.split("<t")
                    .skip(1)
                    .filter(|c| c.starts_with('d') || c.starts_with('h'))
                    .filter_map(|c| {
                        let body = &c[c.find('>')? + 1..];
                        Some(body.split("</t").next().unwrap_or("").to_string())
                    })
                    .collect()
            })
            .collect();
        out.push(rows);
    }
    out
}

/// The names of the elements in `html` (`p`, `table`, `code`...), once each, sorted.
pub fn element_names(html: &str) -> Vec<String> {
    let mut names: Vec<String> = html
        .split('<')
        .skip(1)
        .filter_map(|t| {
            let t = t.strip_prefix('/').unwrap_or(t);
            let name: String = t.chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
            (!name.is_empty()).then(|| name.to_ascii_lowercase())
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Headless Chromium with the flags that work as root and reach no network service, each run
/// with a fresh profile in `profile`, and killed after two minutes (coreutils' `timeout`): a
/// browser that hangs fails the test rather than the whole run.
pub fn chromium(profile: &Path) -> Option<Command> {
    let bin = tool_or_skip("chromium", "chromium")?;
    let mut cmd = Command::new("timeout");
    cmd.args(["--kill-after=10", "120"])
        .arg(bin)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--no-default-browser-check",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()));
    Some(cmd)
}
