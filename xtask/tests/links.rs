//! The README, CONTRIBUTING.md, ARCHITECTURE.md and the manual (docs/) link to what exists: every
//! relative link names a file or folder of the repository, every `#anchor` a heading of the page
//! it points into (as GitHub makes a heading's anchor), and every chapter of docs/ is in
//! docs/SUMMARY.md, the manual's table of contents (laid out as mdBook reads it).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

mod common;

use common::repo_root;

/// The pages whose links are checked, relative to `root`: the three at the top and every `.md`
/// under docs/.
fn pages(root: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> =
        ["README.md", "CONTRIBUTING.md", "ARCHITECTURE.md"].map(PathBuf::from).to_vec();
    let mut stack = vec![root.join("docs")];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path.strip_prefix(root).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

/// Each line of `text`, blank inside a fenced code block (fences included), so that line numbers
/// hold.
fn unfenced_lines(text: &str) -> Vec<&str> {
    let mut fence: Option<&str> = None;
    text.lines()
        .map(|line| {
            let trimmed = line.trim_start();
            let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
            match (fence, marker) {
                (None, None) => return line,
                (None, Some(m)) => fence = Some(m),
                (Some(open), Some(m)) if open == m && trimmed.trim_end() == m => fence = None,
                _ => {}
            }
            ""
        })
        .collect()
}

/// `text` without its fenced code blocks and inline code spans (even one that wraps onto the next
/// line), line numbers kept.
fn prose(text: &str) -> String {
    strip_code_spans(&unfenced_lines(text).join("\n"), false)
}

/// Removes each run of backticks and what it encloses; with `keep`, keeps what it encloses (as a
/// heading's text shows it).
fn strip_code_spans(text: &str, keep: bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('`') {
        out.push_str(&rest[..at]);
        let ticks = rest[at..].len() - rest[at..].trim_start_matches('`').len();
        let after = &rest[at + ticks..];
        let closer = "`".repeat(ticks);
        match after.find(&closer) {
            Some(end) => {
                if keep {
                    out.push_str(&after[..end]);
                }
                // Line breaks inside the span stay, so that line numbers hold.
                out.extend(after[..end].chars().filter(|c| *c == '\n' && !keep));
                rest = &after[end + ticks..];
            }
            None => {
                out.push_str(&rest[at..at + ticks]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The anchor GitHub gives a heading's text: inline code shown as its content, a link as its
/// text, then lowercased, every character but letters, digits, `_`, `-` and spaces dropped, and
/// spaces made `-`.
fn slug(heading: &str) -> String {
    let text = strip_code_spans(heading, true);
    let mut plain = String::new();
    let mut rest = text.as_str();
    // [text](target) → text
    while let Some(open) = rest.find('[') {
        let Some(mid) = rest[open..].find("](").map(|i| open + i) else { break };
        let Some(close) = rest[mid..].find(')').map(|i| mid + i) else { break };
        plain.push_str(&rest[..open]);
        plain.push_str(&rest[open + 1..mid]);
        rest = &rest[close + 1..];
    }
    plain.push_str(rest);
    plain
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// Every anchor of a page's headings, a repeated one numbered as GitHub numbers it (`-1`, `-2`).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for line in unfenced_lines(text) {
        let hashes = line.len() - line.trim_start_matches('#').len();
        if !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = slug(line[hashes..].trim().trim_end_matches('#').trim());
        let n = seen.entry(base.clone()).or_insert(0);
        out.insert(if *n == 0 { base.clone() } else { format!("{base}-{n}") });
        *n += 1;
    }
    out
}

/// Every link target of a page with its line: inline links and images `[text](target)` and
/// reference definitions `[name]: target`, outside code.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = vec![];
    for (i, line) in prose(text).lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let target = &rest[at + 2..];
            let mut depth = 0usize;
            let end = target
                .char_indices()
                .find(|&(_, c)| match c {
                    '(' => {
                        depth += 1;
                        false
                    }
                    ')' if depth == 0 => true,
                    ')' => {
                        depth -= 1;
                        false
                    }
                    _ => false,
                })
                .map_or(target.len(), |(j, _)| j);
            // A title (`[t](file "title")`) is not part of the target.
            let url = target[..end].split_whitespace().next().unwrap_or_default();
            out.push((i + 1, url.trim_matches(['<', '>']).to_string()));
            rest = &target[end..];
        }
        let trimmed = line.trim_start();
        if trimmed.starts_with('[')
            && let Some(def) = trimmed.find("]:")
            && !trimmed[..def].contains("](")
            && let Some(url) = trimmed[def + 2..].split_whitespace().next()
        {
            out.push((i + 1, url.to_string()));
        }
    }
    out
}

/// Every broken link of `pages` (relative to `root`), as `page:line: target: why`.
fn broken_links(root: &Path, pages: &[PathBuf]) -> Vec<String> {
    let mut faults = vec![];
    let mut cache: BTreeMap<PathBuf, BTreeSet<String>> = BTreeMap::new();
    let mut anchors_of = |file: &Path| -> BTreeSet<String> {
        cache.entry(file.to_path_buf()).or_insert_with(|| anchors(&fs::read_to_string(file).unwrap())).clone()
    };
    for page in pages {
        let text = fs::read_to_string(root.join(page)).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        for (line, target) in links(&text) {
            let scheme = target.split_once(':').is_some_and(|(s, _)| {
                !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
            });
            if target.is_empty() || scheme {
                continue;
            }
            let (path, anchor) = match target.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (target.as_str(), None),
            };
            let file =
                if path.is_empty() { root.join(page) } else { root.join(page).parent().unwrap().join(path) };
            let at = format!("{}:{line}: {target}", page.display());
            if !file.exists() {
                faults.push(format!("{at}: no such file or folder"));
                continue;
            }
            if let Some(anchor) = anchor
                && file.extension().is_some_and(|e| e == "md")
                && !anchors_of(&file).contains(anchor)
            {
                faults.push(format!("{at}: no heading has the anchor #{anchor}"));
            }
        }
    }
    faults
}

/// Every chapter of docs/ (each `.md` there but SUMMARY.md) that docs/SUMMARY.md does not list.
fn chapters_missing_from_summary(root: &Path) -> Vec<String> {
    let docs = root.join("docs");
    let summary = fs::read_to_string(docs.join("SUMMARY.md")).expect("docs/SUMMARY.md");
    let listed: BTreeSet<PathBuf> = links(&summary)
        .into_iter()
        .map(|(_, t)| PathBuf::from(t.split('#').next().unwrap().trim_start_matches("./")))
        .collect();
    pages(root)
        .into_iter()
        .filter_map(|p| p.strip_prefix("docs").ok().map(Path::to_path_buf))
        .filter(|p| p != Path::new("SUMMARY.md") && !listed.contains(p))
        .map(|p| format!("docs/{}: a chapter docs/SUMMARY.md does not list", p.display()))
        .collect()
}

#[test]
fn every_link_and_anchor_of_the_docs_resolves() {
    let root = repo_root();
    let pages = pages(&root);
    assert!(pages.len() >= 15, "{pages:?}");
    let faults = broken_links(&root, &pages);
    assert!(faults.is_empty(), "broken links:\n{}", faults.join("\n"));
}

#[test]
fn every_chapter_is_in_the_summary() {
    let faults = chapters_missing_from_summary(&repo_root());
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

#[test]
fn anchors_are_made_as_github_makes_them() {
    assert_eq!(slug("Install and run"), "install-and-run");
    assert_eq!(
        slug("Fleets split across a job engine: `--shard` and `spindle merge`"),
        "fleets-split-across-a-job-engine---shard-and-spindle-merge"
    );
    assert_eq!(slug("From findings to a change: `spindle plan`"), "from-findings-to-a-change-spindle-plan");
    assert_eq!(slug("The JSON report (`--format json`)"), "the-json-report---format-json");
    assert_eq!(slug("`not_collected` and [links](x.md)"), "not_collected-and-links");
    let page = "# A\n## A\n```sh\n# not a heading\n```\n#hashtag\n### A\n";
    assert_eq!(anchors(page), ["a", "a-1", "a-2"].map(String::from).into());
}

#[test]
fn a_broken_link_an_unknown_anchor_and_a_chapter_left_out_are_found() {
    let dir = tempfile::TempDir::new().unwrap();
    let root = dir.path();
    fs::create_dir_all(root.join("docs")).unwrap();
    fs::write(
        root.join("README.md"),
        "# spindle\n\nSee [the rules](docs/rules.md#rules) and [CI](docs/ci.md).\n",
    )
    .unwrap();
    fs::write(root.join("CONTRIBUTING.md"), "# C\n\n[map](ARCHITECTURE.md#code-map), [up](#c)\n").unwrap();
    fs::write(root.join("ARCHITECTURE.md"), "# A\n\n## Code map\n\n`[not](a-link.md)`\n").unwrap();
    fs::write(root.join("docs/SUMMARY.md"), "# Summary\n\n- [Rules](rules.md)\n").unwrap();
    fs::write(
        root.join("docs/rules.md"),
        "# Rules\n\n[home](../README.md#spindle), [gone](#nowhere)\n\n```md\n[fenced](nope.md)\n```\n",
    )
    .unwrap();
    fs::write(root.join("docs/extra.md"), "# Extra\n").unwrap();
    let faults = broken_links(root, &pages(root));
    assert_eq!(
        faults,
        [
            "README.md:3: docs/ci.md: no such file or folder",
            "docs/rules.md:3: #nowhere: no heading has the anchor #nowhere",
        ],
        "{faults:#?}"
    );
    assert_eq!(
        chapters_missing_from_summary(root),
        ["docs/extra.md: a chapter docs/SUMMARY.md does not list"]
    );
}
