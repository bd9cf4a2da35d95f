//! The Markdown and HTML reports fed hostile names, and runs that are incomplete. The Markdown is
//! parsed by cmark-gfm (the parser GitHub renders with): every table keeps its rows and columns,
//! and no name reaches the page as HTML or a link. The HTML is checked for the same: no element
//! but the report's own. An incomplete run never reads as clean in either.

use serde_json::json;
use spindle_core::declare::Declarations;
use spindle_core::engine::HostReport;
use spindle_core::facts::Snapshot;
use spindle_core::finding::{AppliedWaiver, Finding, NotEvaluated, Passed, RuleError, Severity};
use spindle_core::untrusted;
use spindle_core::view::{Document, HostView};
use spindle_report::html::HtmlWriter;
use spindle_report::markdown::MarkdownWriter;
use spindle_report::{ReportWriter, RuleInfo, Summary};
use spindle_test_support::renderers::{cmark_gfm, element_names, tables};

/// Names that break Markdown tables, open HTML, code spans, links, emphasis; that carry control
/// characters, newlines and bidirectional overrides.
const HOSTILE: &[&str] = &[
    "a|b",
    "`x`",
    "``y``` |",
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "line one\nline two | cell",
    "tab\there\r\nand \u{1b}[2J escape",
    "[link](https://evil.example) ![img](https://evil.example/i.png)",
    "*bold* _em_ ~~gone~~ $x$ @someone #1",
    "&lt;b&gt; &amp; &#60;",
    "a\\|b\\",
    "```\n# heading\n```",
    "abc\u{202e}txt.exe",
    " leading and trailing ",
    "×ab. www.evil.example ×",
];

fn rules() -> Vec<RuleInfo> {
    ["TST001", "TST002", "TST003", "TST004"]
        .iter()
        .map(|code| RuleInfo {
            code: code.to_string(),
            name: format!("rule-{code}"),
            severity: Severity::Warning,
            category: "TST".into(),
            summary: "Test facts are right".into(),
            docs: String::new(),
            impact: Default::default(),
        })
        .collect()
}

fn view(n: &str) -> HostView {
    let snapshot: Snapshot = serde_json::from_value(json!({
        "schema_version": 1,
        "collected_at": n,
        "host": { "name": n, "os_version": n },
        "collectors": [ { "name": n, "version": n } ],
        "disks": [ { "id": n, "number": 1, "model": n, "bus": "SAS", "logical_sector_bytes": 512 } ],
        "partitions": [ { "id": n, "disk_id": n, "number": 1, "offset_bytes": 32256 } ],
        "volumes": [ { "id": n, "mount_points": [n], "label": n, "backed_by": { "partitions": [n] } } ],
        "sql_instances": [ { "name": n, "version": n, "edition": n } ]
    }))
    .unwrap();
    let text = serde_json::to_string_pretty(&snapshot).unwrap();
    let doc = Document { path: format!("snapshots/{n}.json"), text, snapshot };
    HostView::build(vec![doc], Declarations::default())
}

/// A finding (TST001), a waived one (TST002), a pass (TST003) and a check not evaluated
/// (TST004), every string `n`.
fn report(v: &HostView, n: &str) -> HostReport {
    let part = v.partitions.as_ref().unwrap()[0].entity();
    let volume = v.volumes.as_ref().unwrap()[0].entity();
    let finding = |code: &str, waiver: Option<AppliedWaiver>| Finding {
        code: code.into(),
        rule: n.into(),
        severity: Severity::Error,
        message: n.into(),
        measured: Some(n.into()),
        expected: Some(n.into()),
        measured_quantity: None,
        expected_quantity: None,
        entity: part.clone(),
        field: Some("offset_bytes".into()),
        fix: format!("{n} `{n}`\n\n```sql\n{n}\n```\n{n}"),
        gain: None,
        waiver,
        baseline: None,
    };
    let waiver =
        AppliedWaiver { reason: n.into(), expires: Some(n.into()), source: n.into(), expired: false };
    HostReport {
        host: v.host.key.clone(),
        findings: vec![finding("TST001", None), finding("TST002", Some(waiver))],
        not_evaluated: vec![NotEvaluated {
            code: "TST004".into(),
            rule: n.into(),
            entity: Some(volume.clone()),
            missing: n.into(),
            reason: Some(format!("{n}\n{n}")),
        }],
        passed: vec![Passed { code: "TST003".into(), rule: n.into(), keys: vec![volume.key.clone()] }],
        rules_run: 4,
        ..Default::default()
    }
}

fn write(w: &mut dyn ReportWriter, reports: &[(HostView, HostReport)], collection_error: Option<&str>) {
    let mut summary = Summary::default();
    w.begin(&rules()).unwrap();
    for (v, r) in reports {
        summary.add(r);
        w.host(v, r).unwrap();
    }
    if let Some(n) = collection_error {
        w.collection_error(n, n).unwrap();
        summary.collection_errors += 1;
    }
    w.finish(&summary).unwrap();
}

fn markdown(reports: &[(HostView, HostReport)], collection_error: Option<&str>) -> String {
    let mut out = vec![];
    write(&mut MarkdownWriter::new(&mut out), reports, collection_error);
    String::from_utf8(out).unwrap()
}

fn html(reports: &[(HostView, HostReport)], collection_error: Option<&str>) -> String {
    let mut out = vec![];
    write(&mut HtmlWriter::new(&mut out), reports, collection_error);
    String::from_utf8(out).unwrap()
}

/// A cell's text: tags dropped, the references cmark-gfm writes decoded.
fn plain(html: &str) -> String {
    let mut text = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&amp;", "&")
}

/// What the cmark-gfm rendering of the checklist may contain: the report's own elements.
const MARKDOWN_ELEMENTS: &[&str] = &[
    "blockquote",
    "code",
    "h1",
    "h2",
    "h3",
    "h4",
    "li",
    "p",
    "pre",
    "strong",
    "table",
    "tbody",
    "td",
    "th",
    "thead",
    "tr",
    "ul",
    "em",
];

#[test]
fn markdown_tables_and_html_survive_hostile_names() {
    for n in HOSTILE {
        let v = view(n);
        let r = report(&v, n);
        let md = markdown(&[(v, r)], Some(n));
        let Some(rendered) = cmark_gfm(&md) else { return };
        let what = format!("{n:?}");
        for name in element_names(&rendered) {
            assert!(
                MARKDOWN_ELEMENTS.contains(&name.as_str()),
                "{what}: <{name}> in:\n{rendered}\nfrom:\n{md}"
            );
        }
        assert!(!rendered.contains("<!--"), "{what}: an HTML comment (raw HTML omitted?) in {rendered}");
        let t = tables(&rendered);
        // Header, checklist, findings, waived, run summary.
        assert_eq!(t.len(), 5, "{what}: {} tables in:\n{rendered}\nfrom:\n{md}", t.len());
        let shape: Vec<(usize, usize)> = t.iter().map(|t| (t.len(), t[0].len())).collect();
        // The header: 4 lines (no packs given) and the counts; the checklist: a row per rule; one finding; one
        // waived finding; the run's 12 counts. Each with its heading row.
        assert_eq!(shape, [(6, 2), (5, 4), (2, 3), (2, 6), (13, 2)], "{what}:\n{md}");
        for (i, table) in t.iter().enumerate() {
            for row in table {
                assert_eq!(row.len(), table[0].len(), "{what}: table {i} row {row:?}");
            }
        }
        // The checklist's states, one per rule, in the rules' order.
        let states: Vec<&str> = t[1][1..].iter().map(|r| r[2].as_str()).collect();
        assert_eq!(states, ["✗ failed", "~ waived", "✓ passed", "? not evaluated"], "{what}");
        // The names are shown whole where they are code: a pipe inside does not split a cell.
        if n.starts_with("a|b") {
            assert!(t[1][1][3].contains("partition 1 (a|b)</code>"), "{what}: {:?}", t[1][1]);
        }
        // Prose shows whole, as the terminal would show it: the measured value (findings) and
        // the waiver's reason, each in its own cell.
        let shown = untrusted::message(n);
        assert_eq!(plain(&t[2][1][1]), shown.trim(), "{what}: measured cell of {:?}", t[2][1]);
        assert_eq!(plain(&t[3][1][4]), shown.trim(), "{what}: reason cell of {:?}", t[3][1]);
        assert!(rendered.contains("<pre><code class=\"language-sql\">"), "{what}: the fix's code block");
    }
}

#[test]
fn html_escapes_hostile_names() {
    for n in HOSTILE {
        let v = view(n);
        let r = report(&v, n);
        let page = html(&[(v, r)], Some(n));
        let what = format!("{n:?}");
        assert!(!page.contains("<script") && !page.contains("<img"), "{what}");
        assert!(!page.contains('\u{1b}') && !page.contains('\u{202e}') && !page.contains('\r'), "{what}");
        let allowed = [
            "!DOCTYPE",
            "a",
            "body",
            "br",
            "code",
            "defs",
            "div",
            "figcaption",
            "figure",
            "footer",
            "h1",
            "h2",
            "h3",
            "h4",
            "head",
            "header",
            "html",
            "li",
            "line",
            "main",
            "meta",
            "p",
            "pattern",
            "pre",
            "rect",
            "section",
            "span",
            "strong",
            "style",
            "svg",
            "table",
            "tbody",
            "td",
            "text",
            "th",
            "thead",
            "title",
            "tr",
            "ul",
        ];
        for name in element_names(&page) {
            assert!(allowed.iter().any(|a| a.eq_ignore_ascii_case(&name)), "{what}: <{name}>");
        }
        // Every attribute value is quoted and no data closes one: `"` never comes from the data.
        let host = &page[page.find("data-host=\"").unwrap() + 11..];
        assert!(!host[..host.find('"').unwrap()].contains(['<', '>']), "{what}");
    }
}

#[test]
fn an_incomplete_run_never_reads_as_clean() {
    let v = view("sql01");
    let mut r = HostReport { host: "sql01".into(), rules_run: 3, ..Default::default() };
    r.errors.push(RuleError { code: "TST001".into(), message: "the plugin trapped".into() });
    let reports = [(v, r)];
    let md = markdown(&reports, Some("sql02"));
    assert!(md.contains("## `sql01` — ✗ incomplete"), "{md}");
    assert!(md.contains("`TST001` failed, so this host is not fully checked"), "{md}");
    assert!(md.contains("| `TST001` rule-TST001 | warning | ✗ rule error |"), "{md}");
    assert!(md.contains("## `sql02` — ✗ no facts collected"), "{md}");
    assert!(md.contains("The run is incomplete"), "{md}");
    assert!(!md.contains("✓"), "nothing may read as passed: {md}");
    let page = html(&reports, Some("sql02"));
    assert!(page.contains("✗ incomplete: not fully judged"), "{page}");
    assert!(page.contains("no facts collected"), "{page}");
    assert!(page.contains("<strong>✗ The run is incomplete:</strong>"), "{page}");
    assert!(!page.contains("class=\"good\">✓"), "{page}");

    // A host no rule could judge: every rule says so, none passes.
    let v = view("sql03");
    let r = HostReport {
        host: "sql03".into(),
        not_judged: vec!["no facts of any kind".into()],
        ..Default::default()
    };
    let md = markdown(&[(v, r)], None);
    assert_eq!(md.matches("✗ not judged").count(), 4, "{md}");
    assert!(md.contains("spindle could not judge this host"), "{md}");

    // The same host complete and clean reads as clean: the marks above come from the gaps.
    let v = view("sql04");
    let r = HostReport { host: "sql04".into(), rules_run: 4, ..Default::default() };
    let md = markdown(&[(v, r)], None);
    assert!(md.contains("## `sql04` — ✓ no findings"), "{md}");
    assert!(!md.contains("incomplete"), "{md}");
}
