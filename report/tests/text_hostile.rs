//! The text report fed hostile strings in every field it shows: every name and label of every
//! kind of entity, the file's path and text, messages, fixes, values, waivers, what was not
//! evaluated, rule errors, servers that gave no facts. Whatever the data, the terminal receives
//! no control character but the newlines the report writes itself, no bidirectional or invisible
//! formatting character, no line that forges the summary, and no line of unbounded length.

use serde_json::json;
use spindle_core::declare::Declarations;
use spindle_core::engine::HostReport;
use spindle_core::facts::Snapshot;
use spindle_core::finding::{AppliedWaiver, Finding, NotApplicable, NotEvaluated, RuleError, Severity};
use spindle_core::untrusted;
use spindle_core::view::{Document, HostView};
use spindle_report::text::TextWriter;
use spindle_report::{ReportWriter, Summary};

/// Every C0 control; escape sequences; C1; DEL; bidirectional overrides, isolates and marks;
/// zero-width and invisible characters; lone combining marks; forged summary lines; and names
/// far longer than any report line should be (the writer is given them directly: the snapshot
/// reader refuses names over 4 KiB).
fn nasty() -> Vec<String> {
    let mut v: Vec<String> = (0u8..0x20).map(|b| format!("{}c{b:02x}", b as char)).collect();
    v.extend(
        [
            "\u{1b}[2J\u{1b}[H",
            "\u{1b}]0;title\u{7}",
            "\u{1b}P+q\u{1b}\\",
            "\u{9b}31m\u{90}\u{9d}0;t\u{9c}",
            "\u{7f}\u{7f}",
            "abc\u{202e}txt.exe",
            "\u{202a}\u{202b}\u{202c}\u{202d}",
            "\u{2066}a\u{2067}b\u{2068}c\u{2069}",
            "\u{200e}\u{200f}\u{61c}",
            "\u{200b}\u{200c}\u{200d}\u{2060}\u{feff}",
            "\u{2028}\u{2029}",
            "\u{300}\u{301}\u{20dd}",
            "\u{e0041}\u{e007f}",
            "\n1 host checked: 0 errors, 0 warnings, 0 notes; 0 waived; 0 not evaluated",
            // No newline needed where a string starts a line (the fuzz target found one).
            "1 host checked: 0 errors",
            "\r\n2 hosts checked: 0 errors",
            "x\r3 hosts checked: 0 errors",
        ]
        .map(String::from),
    );
    v.push("n".repeat(100_000));
    v.push("\u{1b}".repeat(50_000));
    v.push(format!("{}\n1 host checked: 0 errors", "é".repeat(70_000)));
    v
}

/// A snapshot with `n` in every string it has, and a finding to show on every entity.
fn snapshot(n: &str) -> Snapshot {
    serde_json::from_value(json!({
        "schema_version": 1,
        "collected_at": n,
        "host": { "name": n, "os_version": n },
        "collectors": [ { "name": n, "version": n, "not_collected": [ { "fact": n, "reason": n } ] } ],
        "disks": [ { "id": n, "number": 1, "model": n, "bus": n, "backed_by": { "raid_set": n } } ],
        "partitions": [ { "id": n, "disk_id": n, "number": 1, "offset_bytes": 32256 } ],
        "volumes": [ { "id": n, "mount_points": [n], "label": n, "filesystem": n,
                       "mount_options": [n], "backed_by": { "partitions": [n] } } ],
        "storage_pools": [ { "id": n, "name": n, "physical_disk_ids": [n] } ],
        "virtual_disks": [ { "id": n, "name": n, "pool_id": n, "resiliency": n } ],
        "raid_sets": [ { "id": n, "level": n, "member_ids": [n] } ],
        "sql_instances": [ { "name": n, "version": n, "product_level": n, "edition": n,
            "service_account": n, "databases": [ { "name": n, "recovery_model": n, "state": n,
                "files": [ { "type": "rows", "logical_name": n, "physical_name": n, "volume_id": n } ] } ] } ]
    }))
    .unwrap()
}

fn view(n: &str) -> HostView {
    let snapshot = snapshot(n);
    let text = serde_json::to_string_pretty(&snapshot).unwrap();
    let doc = Document { path: format!("snapshots/{n}.json"), text, snapshot };
    HostView::build(vec![doc], Declarations::default())
}

fn report(v: &HostView, n: &str) -> HostReport {
    let mut findings = vec![];
    for (i, entity) in v.entity_refs().into_iter().enumerate() {
        let waiver =
            |expired| AppliedWaiver { reason: n.into(), expires: Some(n.into()), source: n.into(), expired };
        // A field the snapshot has (so the file's text is shown), one it has not, one of data.
        for (field, waiver) in [("id", None), ("name", Some(waiver(true))), (n, Some(waiver(false)))] {
            findings.push(Finding {
                code: if i % 2 == 0 { "TST001".into() } else { format!("acme/{n}") },
                rule: n.into(),
                severity: [Severity::Error, Severity::Warning, Severity::Note][i % 3],
                message: n.into(),
                measured: (i % 2 == 0).then(|| n.into()),
                expected: (i % 2 == 0).then(|| n.into()),
                measured_quantity: None,
                expected_quantity: None,
                entity: entity.clone(),
                field: Some(field.into()),
                fix: n.into(),
                gain: None,
                waiver,
                baseline: None,
            });
        }
    }
    let entity = v.host.entity();
    HostReport {
        host: v.host.key.clone(),
        findings,
        not_evaluated: vec![
            NotEvaluated {
                code: n.into(),
                rule: n.into(),
                entity: Some(entity.clone()),
                missing: n.into(),
                reason: Some(n.into()),
            },
            NotEvaluated { code: n.into(), rule: n.into(), entity: None, missing: n.into(), reason: None },
        ],
        not_applicable: vec![NotApplicable {
            code: n.into(),
            rule: n.into(),
            entity,
            field: n.into(),
            reason: n.into(),
        }],
        errors: vec![RuleError { code: n.into(), message: format!("{n}\n  plugin stderr:\n  | {n}\n{n}") }],
        passed: vec![],
        rules_run: 3,
        rules_judged: 3,
        not_judged: vec![n.into()],
    }
}

fn render(n: &str, colour: bool) -> String {
    let v = view(n);
    let r = report(&v, n);
    let mut out = Vec::new();
    let mut w = TextWriter::new(&mut out, colour);
    let mut summary = Summary::default();
    w.begin(&[]).unwrap();
    summary.add(&r);
    w.host(&v, &r).unwrap();
    w.collection_error(n, n).unwrap();
    summary.collection_errors += 1;
    w.finish(&summary).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn item02_text_report_survives_nasty_strings_in_every_field() {
    for n in nasty() {
        let out = render(&n, false);
        let what = format!("{:?}", n.chars().take(40).collect::<String>());
        for (i, c) in out.char_indices() {
            assert!(c == '\n' || !untrusted::is_unsafe(c), "{what}: U+{:04X} at byte {i}", c as u32);
        }
        let lines: Vec<&str> = out.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let summary_like = line.starts_with(|c: char| c.is_ascii_digit()) && line.contains(" checked: ");
            assert!(!summary_like || i + 1 == lines.len(), "{what}: line {i} forges the summary: {line}");
            assert!(!line.starts_with(['\u{300}', '\u{301}', '\u{20dd}']), "{what}: line {i}: {line}");
            // A message and a label, escaped (an escape is at most 9 characters per character).
            assert!(
                line.chars().count() < 12 * 4096,
                "{what}: line {i} has {} characters: {}",
                line.len(),
                line.chars().take(300).collect::<String>()
            );
        }
        assert!(out.len() < 4 << 20, "{what}: {} bytes", out.len());
    }
}

#[test]
fn item02_colour_is_the_only_escape_sequence_written() {
    // With colour on, the report writes its own SGR sequences; none comes from the data.
    for n in ["\u{1b}[2J", "\u{1b}]0;t\u{7}", "a\u{9b}2J"] {
        let out = render(n, true);
        for (i, _) in out.match_indices('\u{1b}') {
            let rest = &out[i + 1..];
            let sgr = rest.starts_with('[')
                && rest[1..]
                    .find(|c: char| !(c.is_ascii_digit() || c == ';'))
                    .is_some_and(|e| rest[1 + e..].starts_with('m'));
            assert!(
                sgr,
                "{n:?}: an escape that is not a colour at byte {i}: {:?}",
                &out[i..(i + 12).min(out.len())]
            );
        }
        assert!(!out.contains('\u{7}') && !out.contains('\u{9b}'), "{n:?}");
    }
}
