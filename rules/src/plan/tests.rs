//! The plan's choices that the examples do not show: where a log moved off shared spindles goes.

use spindle_core::declare::Declarations;
use spindle_core::finding::{Finding, Severity};
use spindle_core::plan::Phase;
use spindle_core::view::HostView;

use super::{PlanOptions, build};

/// Sales' data on D: (disk 1), its log on E: (also disk 1), HR's log alone on F:, whose
/// partition is on `f_disk`.
fn host(f_disk: &str) -> HostView {
    let json = format!(
        r#"{{"schema_version": 1, "host": {{"name": "h", "os_family": "windows"}},
        "disks": [{{"id": "d1", "number": 1, "media": "hdd"}}, {{"id": "d2", "number": 2, "media": "hdd"}}],
        "partitions": [{{"id": "p1", "disk_id": "d1", "number": 1}}, {{"id": "p2", "disk_id": "d1", "number": 2}},
                       {{"id": "p3", "disk_id": "{f_disk}", "number": 3}}],
        "volumes": [{{"id": "vd", "mount_points": ["D:\\"], "backed_by": {{"partitions": ["p1"]}}}},
                    {{"id": "ve", "mount_points": ["E:\\"], "backed_by": {{"partitions": ["p2"]}}}},
                    {{"id": "vf", "mount_points": ["F:\\"], "backed_by": {{"partitions": ["p3"]}}}}],
        "sql_instances": [{{"name": "MSSQLSERVER", "databases": [
            {{"name": "Sales", "files": [
                {{"type": "rows", "logical_name": "Sales", "physical_name": "D:\\Data\\Sales.mdf", "volume_id": "vd"}},
                {{"type": "log", "logical_name": "Sales_log", "physical_name": "E:\\Logs\\Sales_log.ldf", "volume_id": "ve"}}]}},
            {{"name": "HR", "files": [
                {{"type": "rows", "logical_name": "HR", "physical_name": "D:\\Data\\HR.mdf", "volume_id": "vd"}},
                {{"type": "log", "logical_name": "HR_log", "physical_name": "F:\\Logs\\HR_log.ldf", "volume_id": "vf"}}]}}
        ]}}]}}"#
    );
    let doc = spindle_core::load::parse_snapshot("h.json", json).unwrap();
    HostView::build(vec![doc], Declarations::default())
}

fn med001(view: &HostView) -> Finding {
    let (_, log) = view.files().find(|(_, f)| f.logical_name == "Sales_log").unwrap();
    Finding {
        code: "MED001".into(),
        rule: "log-shares-spindles".into(),
        severity: Severity::Warning,
        message: "shares disk d1 with the data".into(),
        measured: None,
        expected: None,
        measured_quantity: None,
        expected_quantity: None,
        entity: log.entity(),
        field: None,
        fix: String::new(),
        gain: None,
        waiver: None,
        baseline: None,
    }
}

#[test]
fn a_log_off_shared_spindles_goes_to_a_log_volume_on_other_disks() {
    let view = host("d2");
    let plan = build(&view, &[med001(&view)], PlanOptions::default());
    let step = plan.steps.iter().find(|s| s.title.starts_with("Move Sales_log")).expect("a move step");
    assert_eq!(step.phase, Phase::Offline);
    let sql = &step.commands[0].text;
    assert!(sql.contains(r"FILENAME = N'F:\Logs\Sales_log.ldf'"), "{sql}");
}

#[test]
fn a_log_volume_on_the_same_spindles_is_no_target() {
    // F: holds only a log, but on disk 1, under Sales' data: moving there would change nothing.
    let view = host("d1");
    let plan = build(&view, &[med001(&view)], PlanOptions::default());
    assert!(plan.steps.iter().all(|s| !s.title.starts_with("Move ")), "{:#?}", plan.steps);
    let manual = plan.steps.iter().find(|s| s.phase == Phase::Manual).unwrap();
    assert!(manual.title.starts_with("Provide a transaction log volume for Sales_log"), "{}", manual.title);
}
