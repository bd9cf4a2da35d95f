use serde_json::json;
use spindle_core::declare::Declarations;
use spindle_core::engine::HostReport;
use spindle_core::facts::Snapshot;
use spindle_core::finding::{Finding, Severity};
use spindle_core::gain::{Better, Gain};
use spindle_core::view::{Document, HostView};

use super::{TextWriter, without_suffix};
use crate::{ReportWriter, Summary};

/// One host with a database of two files, each with a path.
fn sales() -> HostView {
    let snapshot: Snapshot = serde_json::from_value(json!({
        "schema_version": 1,
        "host": { "name": "sql1" },
        "sql_instances": [ { "name": "MSSQLSERVER", "databases": [ { "name": "Sales", "files": [
            { "type": "rows", "logical_name": "Sales", "physical_name": "D:\\data\\Sales.mdf" },
            { "type": "log", "logical_name": "Sales_log", "physical_name": "L:\\logs\\Sales_log.ldf" }
        ] } ] } ]
    }))
    .unwrap();
    let text = serde_json::to_string_pretty(&snapshot).unwrap();
    HostView::build(vec![Document { path: "sql1.json".into(), text, snapshot }], Declarations::default())
}

fn gain(high_percent: f64) -> Gain {
    Gain {
        metric: "random 8 KiB read IOPS".into(),
        better: Better::Higher,
        low_percent: 10.0,
        high_percent,
        after: None,
        assumptions: "the test's".into(),
        evidence: "a measurement".into(),
        url: "https://example.com/m".into(),
    }
}

fn render(view: &HostView, report: &HostReport) -> String {
    let mut out = vec![];
    let mut w = TextWriter::new(&mut out, false);
    w.begin(&[]).unwrap();
    w.host(view, report).unwrap();
    let mut summary = Summary::default();
    summary.add(report);
    w.finish(&summary).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn gains_and_fixes_for_some_entities_name_them_alike() {
    let view = sales();
    let files: Vec<_> = view
        .entity_refs()
        .into_iter()
        .filter(|e| e.label.contains(".mdf") || e.label.contains(".ldf"))
        .collect();
    assert_eq!(files.len(), 2, "{files:?}");
    let finding = |i: usize, high: f64| Finding {
        code: "TST001".into(),
        rule: "test-rule".into(),
        severity: Severity::Warning,
        message: "slow".into(),
        measured: Some("slow".into()),
        expected: Some("fast".into()),
        measured_quantity: None,
        expected_quantity: None,
        entity: files[i].clone(),
        field: None,
        fix: format!("Fix file {i}."),
        gain: Some(gain(high)),
        waiver: None,
        baseline: None,
    };
    let report = HostReport {
        host: view.host.key.clone(),
        findings: vec![finding(0, 20.0), finding(1, 30.0)],
        rules_run: 1,
        ..Default::default()
    };
    let text = render(&view, &report);
    for name in ["MSSQLSERVER › Sales › Sales", "MSSQLSERVER › Sales › Sales_log"] {
        let gain = format!("  gain for {name}: ");
        let fix = format!("  fix for {name}:");
        assert_eq!(text.matches(&gain).count(), 1, "{gain:?} in:\n{text}");
        assert_eq!(text.matches(&fix).count(), 1, "{fix:?} in:\n{text}");
    }
    // The paths are on the entities' own lines (and in the snippet), not in the headings.
    for line in text.lines().filter(|l| l.starts_with("  gain for ") || l.starts_with("  fix for ")) {
        assert!(!line.contains(".mdf") && !line.contains(".ldf"), "{line}");
    }
    assert_eq!(
        text.lines().filter(|l| l.starts_with("  - ") && l.contains("(L:\\logs\\Sales_log.ldf)")).count(),
        1
    );
}

#[test]
fn a_label_loses_only_the_parenthesised_part_at_its_end() {
    assert_eq!(
        without_suffix("MSSQLSERVER › Sales › Sales (D:\\data\\Sales.mdf)"),
        "MSSQLSERVER › Sales › Sales"
    );
    assert_eq!(
        without_suffix("MSSQLSERVER › Sales (old) › Sales_log (C:\\Program Files (x86)\\Sales_log.ldf)"),
        "MSSQLSERVER › Sales (old) › Sales_log"
    );
    assert_eq!(without_suffix("disk 0 › partition 1 (C:\\)"), "disk 0 › partition 1");
    assert_eq!(without_suffix("RAID set md0"), "RAID set md0");
    // Not the view's suffix (no space before it, or unbalanced): the label whole.
    assert_eq!(without_suffix("f(x)"), "f(x)");
    assert_eq!(without_suffix("a b)"), "a b)");
}
