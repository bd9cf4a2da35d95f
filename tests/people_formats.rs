//! The reports people read, end to end on the bundled examples: the binary's Markdown and HTML
//! (insta snapshots), the Markdown parsed by cmark-gfm (GitHub's parser) with every table whole,
//! and the HTML loaded in headless Chromium: no console error and no blocked request, every host
//! there, every partition's diagram drawn with a size, the fleet summary shown first. To accept
//! new output: `INSTA_UPDATE=always cargo test --test people_formats`, then read the diff. To
//! refresh docs/html-report-sector63.png: `SPINDLE_UPDATE_SCREENSHOT=1 cargo test --test
//! people_formats`.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use spindle_test_support::renderers::{chromium, cmark_gfm, tables};

const EXAMPLES: [&str; 5] = [
    "azure-storage-spaces",
    "hdd-raid-shared-spindles",
    "linux-xfs-md",
    "win2003-aligned",
    "win2003-sector63",
];

const ACME: [&str; 2] = ["--pack", "examples/packs/acme-production.toml"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `spindle check <examples…> --format <format> <extra…>`, from the repository, the clock pinned.
fn report(examples: &[&str], format: &str, extra: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_spindle"))
        .current_dir(root())
        .arg("check")
        .args(examples.iter().map(|e| format!("examples/{e}")))
        .args(["--format", format, "--fail-on", "never"])
        .args(extra)
        .env("SPINDLE_TODAY", "2026-11-30")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn markdown_reports_of_the_examples() {
    for example in EXAMPLES {
        insta::assert_snapshot!(format!("markdown-{example}"), report(&[example], "markdown", &[]));
    }
    insta::assert_snapshot!(
        "markdown-win2003-sector63-acme-production",
        report(&["win2003-sector63"], "markdown", &ACME)
    );
}

#[test]
fn html_reports_of_the_examples() {
    insta::assert_snapshot!(
        "html-win2003-sector63-acme-production",
        report(&["win2003-sector63"], "html", &ACME)
    );
    insta::assert_snapshot!("html-azure-storage-spaces", report(&["azure-storage-spaces"], "html", &[]));
}

/// The builtin rules, as `spindle rules --format json` lists them... counted from the JSON report.
fn rule_count() -> usize {
    let json: Value = serde_json::from_str(&report(&["win2003-aligned"], "json", &[])).unwrap();
    json["rules"].as_array().unwrap().len()
}

#[test]
fn github_renders_every_table_of_the_examples_whole() {
    let rules = rule_count();
    let md = report(&EXAMPLES, "markdown", &[]);
    let Some(html) = cmark_gfm(&md) else { return };
    let t = tables(&html);
    // Per host: the header, the checklist, then the findings' and the waived tables; the run's
    // counts at the end.
    let checklists: Vec<&Vec<Vec<String>>> =
        t.iter().filter(|t| t[0][0] == "Rule" && t[0].len() == 4).collect();
    assert_eq!(checklists.len(), EXAMPLES.len(), "{html}");
    for c in &checklists {
        assert_eq!(c.len(), rules + 1, "a row per rule: {c:?}");
        for row in c.iter() {
            assert_eq!(row.len(), 4, "{row:?}");
        }
        for row in &c[1..] {
            assert!(row[0].starts_with("<code>"), "the rule's code first: {row:?}");
            assert!(
                [
                    "✗ rule error",
                    "✗ not judged",
                    "✗ failed",
                    "? not evaluated",
                    "~ waived",
                    "✓ passed",
                    "– not applicable",
                    "– no findings"
                ]
                .contains(&row[2].as_str()),
                "{row:?}"
            );
        }
    }
    // Every finding of the JSON report is a row of a findings table, with its measured value.
    let json: Value = serde_json::from_str(&report(&EXAMPLES, "json", &[])).unwrap();
    let findings: usize =
        json["hosts"].as_array().unwrap().iter().map(|h| h["findings"].as_array().unwrap().len()).sum();
    let rows: usize = t.iter().filter(|t| t[0][0] == "Entity").map(|t| t.len() - 1).sum();
    assert_eq!(rows, findings, "one row per finding");
    for h in json["hosts"].as_array().unwrap() {
        assert!(html.contains(&format!("<h2><code>{}</code>", h["host"].as_str().unwrap())), "{}", h["host"]);
    }
}

/// The page with a probe added: a script (allowed by a nonce, the page's own policy otherwise
/// unchanged) that records errors, blocked requests and console errors from the start, and on
/// load writes what the test asserts on into the DOM, which `--dump-dom` prints.
fn probed(page: &str) -> String {
    const PROBE: &str = r#"<script nonce="spindle-probe">
window.__problems = [];
addEventListener('error', e => __problems.push('error: ' + (e.message || (e.target && e.target.outerHTML))), true);
addEventListener('securitypolicyviolation', e => __problems.push('blocked: ' + e.blockedURI + ' by ' + e.violatedDirective));
const consoleError = console.error;
console.error = (...a) => { __problems.push('console: ' + a.join(' ')); consoleError(...a); };
addEventListener('load', () => {
  const box = e => { const b = e.getBoundingClientRect(); return [b.top, b.width, b.height]; };
  const r = {
    hosts: [...document.querySelectorAll('section.host')].map(s => s.dataset.host),
    scripts: document.querySelectorAll('script').length,
    elements: [...new Set([...document.querySelectorAll('*')].map(e => e.localName))].sort(),
    rows: [...document.querySelectorAll('a.row')].map(box),
    svgs: [...document.querySelectorAll('svg.alignment')].map(box),
    fleet: box(document.querySelector('section.fleet')),
    firstHost: box(document.querySelector('section.host')),
    height: document.documentElement.scrollHeight,
    problems: __problems,
  };
  const pre = document.createElement('pre');
  pre.id = 'spindle-probe';
  pre.textContent = JSON.stringify(r);
  document.body.appendChild(pre);
});
</script>"#;
    let csp = "default-src 'none';";
    assert!(page.contains(csp), "the page forbids every resource by default");
    let page = page.replacen(csp, "default-src 'none'; script-src 'nonce-spindle-probe';", 1);
    let head = page.find("<title>").expect("a title");
    format!("{}{PROBE}\n{}", &page[..head], &page[head..])
}

/// Loads `page` in headless Chromium and returns the probe's findings.
fn load(page: &str, dir: &Path, name: &str) -> Option<Value> {
    let file = dir.join(format!("{name}.html"));
    std::fs::write(&file, probed(page)).unwrap();
    let mut cmd = chromium(&dir.join(format!("profile-{name}")))?;
    let out = cmd
        .args(["--virtual-time-budget=5000", "--dump-dom"])
        .arg(format!("file://{}", file.display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "chromium: {}", String::from_utf8_lossy(&out.stderr));
    let dom = String::from_utf8(out.stdout).unwrap();
    let start =
        dom.find("<pre id=\"spindle-probe\">").expect("the probe ran") + "<pre id=\"spindle-probe\">".len();
    let text = &dom[start..start + dom[start..].find("</pre>").unwrap()];
    let text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&");
    Some(serde_json::from_str(&text).unwrap())
}

/// The partitions of the examples whose offset was collected: each gets a diagram.
fn partitions_with_offsets(examples: &[&str]) -> usize {
    let mut n = 0;
    for e in examples {
        for f in std::fs::read_dir(root().join("examples").join(e)).unwrap() {
            let s: Value =
                serde_json::from_str(&std::fs::read_to_string(f.unwrap().path()).unwrap()).unwrap();
            n += s["partitions"]
                .as_array()
                .map_or(0, |p| p.iter().filter(|p| p["offset_bytes"].is_u64()).count());
        }
    }
    n
}

#[test]
fn chromium_draws_the_examples() {
    let dir = std::env::temp_dir().join(format!("spindle-html-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fleet = report(&EXAMPLES, "html", &ACME);
    let Some(r) = load(&fleet, &dir, "fleet") else { return };
    assert_eq!(r["problems"], serde_json::json!([]), "the page loads without an error or a request");
    let hosts: Vec<&str> = r["hosts"].as_array().unwrap().iter().map(|h| h.as_str().unwrap()).collect();
    assert_eq!(hosts, ["azsql-oltp01", "plant-sql04", "lnx-sql01", "erp-sql2", "erp-sql1"]);
    let svgs = r["svgs"].as_array().unwrap();
    assert_eq!(svgs.len(), partitions_with_offsets(&EXAMPLES));
    for s in svgs {
        assert!(s[1].as_f64().unwrap() > 300.0 && s[2].as_f64().unwrap() > 100.0, "a diagram drawn: {s}");
    }
    // Written last, shown first: the fleet's totals, then a row per host, then the hosts.
    let rows = r["rows"].as_array().unwrap();
    assert_eq!(rows.len(), EXAMPLES.len());
    let fleet_top = r["fleet"][0].as_f64().unwrap();
    let first_row = rows[0][0].as_f64().unwrap();
    let first_host = r["firstHost"][0].as_f64().unwrap();
    assert!(fleet_top < first_row && first_row < first_host, "{r}");

    // The sector-63 server alone: a screenshot, and the page printed.
    let page = report(&["win2003-sector63"], "html", &ACME);
    let Some(r) = load(&page, &dir, "sector63") else { return };
    assert_eq!(r["problems"], serde_json::json!([]));
    // The top of the page: the fleet summary, the host's header and its diagrams.
    assert!(r["height"].as_u64().unwrap() > 2_200, "{r}");
    let height = 2_200;
    let shot = dir.join("sector63.png");
    let pdf = dir.join("sector63.pdf");
    let file = dir.join("plain.html");
    std::fs::write(&file, &page).unwrap();
    let mut cmd = chromium(&dir.join("profile-shot")).unwrap();
    let out = cmd
        .arg(format!("--window-size=1100,{height}"))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", file.display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let png = std::fs::read(&shot).unwrap();
    assert!(png.starts_with(b"\x89PNG") && png.len() > 20_000, "{} bytes", png.len());
    let mut cmd = chromium(&dir.join("profile-pdf")).unwrap();
    let out = cmd
        .arg("--no-pdf-header-footer")
        .arg(format!("--print-to-pdf={}", pdf.display()))
        .arg(format!("file://{}", file.display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let printed = std::fs::read(&pdf).unwrap();
    assert!(printed.starts_with(b"%PDF") && printed.len() > 10_000, "{} bytes", printed.len());
    if std::env::var_os("SPINDLE_UPDATE_SCREENSHOT").is_some_and(|v| v == "1") {
        std::fs::write(root().join("docs/html-report-sector63.png"), &png).unwrap();
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A run that could not judge its host (`--require sql` on host facts alone) is incomplete in
/// both formats, from the host's heading to the summary, and nothing in it reads as passed.
#[test]
fn an_incomplete_run_says_so_end_to_end() {
    for format in ["markdown", "html"] {
        let out = Command::new(env!("CARGO_BIN_EXE_spindle"))
            .current_dir(root())
            .args([
                "check",
                "examples/hdd-raid-shared-spindles/host.json",
                "--require",
                "sql",
                "--format",
                format,
            ])
            .env("SPINDLE_TODAY", "2026-11-30")
            .output()
            .unwrap();
        let page = String::from_utf8(out.stdout).unwrap();
        assert_eq!(out.status.code(), Some(2), "{format}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(page.contains("✗ incomplete: not fully judged"), "{format}: {page}");
        assert!(page.contains("spindle could not judge this host:"), "{format}: {page}");
        assert!(page.contains("✗ The run is incomplete:"), "{format}: {page}");
        assert!(page.contains("the run is incomplete"), "{format}: the summary line: {page}");
        assert!(!page.contains("✓"), "{format}: nothing reads as passed: {page}");
    }
}

/// A snapshot whose host, volumes and instance are named to break out of HTML, loaded in the
/// browser: the names show as text, the page runs no script but the probe and makes no request.
#[test]
fn chromium_shows_hostile_names_as_text() {
    let name = "<script>alert(1)</script><img src=x onerror=alert(2)>\"'&amp;|`x`\u{202e}";
    let mut snapshot: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("examples/win2003-aligned/erp-sql2.json")).unwrap(),
    )
    .unwrap();
    snapshot["host"]["name"] = name.into();
    for v in snapshot["volumes"].as_array_mut().unwrap() {
        v["label"] = name.into();
    }
    snapshot["sql_instances"][0]["name"] = name.into();
    let dir = std::env::temp_dir().join(format!("spindle-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("hostile.json");
    std::fs::write(&file, serde_json::to_string_pretty(&snapshot).unwrap()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args(["check", "--format", "html", "--fail-on", "never"])
        .arg(&file)
        .env("SPINDLE_TODAY", "2026-11-30")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let page = String::from_utf8(out.stdout).unwrap();
    let Some(r) = load(&page, &dir, "hostile") else { return };
    assert_eq!(r["problems"], serde_json::json!([]), "{r}");
    assert_eq!(r["scripts"], 1, "only the probe runs: {r}");
    let hosts = r["hosts"].as_array().unwrap();
    // The name as a terminal would show it: the override made visible, nothing else changed.
    assert_eq!(hosts, &[Value::from(name.replace('\u{202e}', "\\u{202e}"))], "{r}");
    for e in r["elements"].as_array().unwrap() {
        assert!(!["img", "iframe", "object", "embed", "link"].contains(&e.as_str().unwrap()), "<{e}>: {r}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
