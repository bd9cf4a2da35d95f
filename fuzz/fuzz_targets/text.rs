//! The text report, fed arbitrary strings: the input is cut at every 0xFF byte (never part of
//! UTF-8) into strings that fill every name, label, path, message, fix, value, waiver, reason,
//! rule error and collection error of one host; the last piece is also shown as a snapshot's raw
//! text, with a span chosen by the first bytes. Whatever the strings, rendering must not panic
//! (miette's label padding did, past column 65,535), and what reaches the terminal must hold no
//! control character but the report's own newlines, no bidirectional or invisible formatting
//! character, and no line but the last that reads like the run's summary.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::json;
use spindle_core::declare::Declarations;
use spindle_core::engine::HostReport;
use spindle_core::facts::Snapshot;
use spindle_core::finding::{
    AppliedWaiver, Finding, NotApplicable, NotEvaluated, Passed, RuleError, Severity,
};
use spindle_core::untrusted;
use spindle_core::view::{Document, HostView};
use spindle_report::shown::Shown;
use spindle_report::snippet::Snippet;
use spindle_report::text::TextWriter;
use spindle_report::{ReportWriter, Summary};

fn check(out: &str) {
    if let Some((i, c)) = untrusted::first_unsafe_on_terminal(out) {
        panic!("U+{:04X} reached the terminal at byte {i}", c as u32);
    }
    let lines: Vec<&str> = out.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let summary_like = line.starts_with(|c: char| c.is_ascii_digit()) && line.contains(" checked: ");
        assert!(!summary_like || i + 1 == lines.len(), "line {i} forges the summary: {line:?}");
    }
}

/// The strings to use, cycled through the fields.
struct Pool(Vec<String>, usize);

impl Pool {
    fn next(&mut self) -> String {
        let s = self.0[self.1 % self.0.len()].clone();
        self.1 += 1;
        s
    }
}

fn snapshot(p: &mut Pool) -> Option<Snapshot> {
    serde_json::from_value(json!({
        "schema_version": 1,
        "host": { "name": p.next(), "os_version": p.next() },
        "collectors": [ { "name": p.next(), "not_collected": [ { "fact": p.next(), "reason": p.next() } ] } ],
        "disks": [ { "id": p.next(), "number": 1, "model": p.next() } ],
        "partitions": [ { "id": p.next(), "disk_id": p.next(), "number": 1, "offset_bytes": 32256 } ],
        "volumes": [ { "id": p.next(), "mount_points": [p.next()], "label": p.next(),
                       "backed_by": { "partitions": [p.next()] } } ],
        "storage_pools": [ { "id": p.next(), "name": p.next() } ],
        "virtual_disks": [ { "id": p.next(), "name": p.next(), "pool_id": p.next() } ],
        "raid_sets": [ { "id": p.next(), "level": p.next() } ],
        "sql_instances": [ { "name": p.next(), "databases": [ { "name": p.next(),
            "files": [ { "type": "log", "logical_name": p.next(), "physical_name": p.next() } ] } ] } ]
    }))
    .ok()
}

fn report(v: &HostView, p: &mut Pool) -> HostReport {
    let mut findings = vec![];
    for (i, entity) in v.entity_refs().into_iter().enumerate() {
        let waiver = match i % 3 {
            0 => None,
            n => Some(AppliedWaiver {
                reason: p.next(),
                expires: Some(p.next()),
                source: p.next(),
                expired: n == 1,
            }),
        };
        let field = if i % 2 == 0 { "id".to_string() } else { p.next() };
        findings.push(Finding {
            code: p.next(),
            rule: p.next(),
            severity: [Severity::Error, Severity::Warning, Severity::Note][i % 3],
            message: p.next(),
            measured: Some(p.next()),
            expected: (i % 2 == 0).then(|| p.next()),
            measured_quantity: None,
            expected_quantity: None,
            entity,
            field: Some(field),
            fix: p.next(),
            gain: None,
            waiver,
            baseline: None,
        });
    }
    HostReport {
        host: v.host.key.clone(),
        findings,
        not_evaluated: vec![NotEvaluated {
            code: p.next(),
            rule: p.next(),
            entity: Some(v.host.entity()),
            missing: p.next(),
            reason: Some(p.next()),
        }],
        not_applicable: vec![NotApplicable {
            code: p.next(),
            rule: p.next(),
            entity: v.host.entity(),
            field: p.next(),
            reason: p.next(),
        }],
        passed: vec![Passed { code: p.next(), rule: p.next(), keys: vec![v.host.key.clone()] }],
        errors: vec![RuleError { code: p.next(), message: p.next() }],
        rules_run: 1,
        rules_judged: 1,
        not_judged: vec![p.next()],
    }
}

fuzz_target!(|data: &[u8]| {
    let pieces: Vec<String> =
        data.split(|&b| b == 0xff).map(|p| String::from_utf8_lossy(p).into_owned()).collect();
    let raw = pieces.last().cloned().unwrap_or_default();
    let mut pool = Pool(pieces, 0);

    if let Some(snap) = snapshot(&mut pool) {
        let text = serde_json::to_string_pretty(&snap).unwrap();
        let doc = Document { path: pool.next(), text, snapshot: snap };
        let view = HostView::build(vec![doc], Declarations::default());
        let r = report(&view, &mut pool);
        let mut out = Vec::new();
        let mut summary = Summary::default();
        {
            let mut w = TextWriter::new(&mut out, false);
            w.begin(&[]).unwrap();
            summary.add(&r);
            w.host(&view, &r).unwrap();
            w.collection_error(&pool.next(), &pool.next()).unwrap();
            w.finish(&summary).unwrap();
        }
        check(&String::from_utf8(out).unwrap());
    }

    // The raw text around a span the input picks: a parse error's snippet.
    let pick = |i: usize| data.get(i).map_or(0, |&b| b as usize);
    let start = (pick(0) << 16 | pick(1) << 8 | pick(2)) % (raw.len() + 1);
    let len = pick(3) << 8 | pick(4);
    let snippet = Snippet::new(&pool.next(), &raw, start..start + len);
    check(&Shown::new("", None).with_snippet(Some(snippet)).render_plain());
});
