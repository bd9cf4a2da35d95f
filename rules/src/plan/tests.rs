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

/// The same host on Linux, with Sales' log at `log_path` on the volume at /log1 (disk 1) and
/// HR's log alone on /log2 (disk 2).
fn linux_host(log_path: &str) -> HostView {
    let json = format!(
        r#"{{"schema_version": 1, "host": {{"name": "l", "os_family": "linux"}},
        "disks": [{{"id": "sdb", "media": "hdd"}}, {{"id": "sdc", "media": "hdd"}}],
        "partitions": [{{"id": "sdb1", "disk_id": "sdb", "number": 1}}, {{"id": "sdb2", "disk_id": "sdb", "number": 2}},
                       {{"id": "sdc1", "disk_id": "sdc", "number": 1}}],
        "volumes": [{{"id": "/dev/sdb1", "mount_points": ["/data"], "backed_by": {{"partitions": ["sdb1"]}}}},
                    {{"id": "/dev/sdb2", "mount_points": ["/log1"], "backed_by": {{"partitions": ["sdb2"]}}}},
                    {{"id": "/dev/sdc1", "mount_points": ["/log2"], "backed_by": {{"partitions": ["sdc1"]}}}}],
        "sql_instances": [{{"name": "MSSQLSERVER", "databases": [
            {{"name": "Sales", "files": [
                {{"type": "rows", "logical_name": "Sales", "physical_name": "/data/Sales.mdf", "volume_id": "/dev/sdb1"}},
                {{"type": "log", "logical_name": "Sales_log", "physical_name": "{log_path}", "volume_id": "/dev/sdb2"}}]}},
            {{"name": "HR", "files": [
                {{"type": "rows", "logical_name": "HR", "physical_name": "/data/HR.mdf", "volume_id": "/dev/sdb1"}},
                {{"type": "log", "logical_name": "HR_log", "physical_name": "/log2/HR_log.ldf", "volume_id": "/dev/sdc1"}}]}}
        ]}}]}}"#
    );
    let doc = spindle_core::load::parse_snapshot("l.json", json).unwrap();
    HostView::build(vec![doc], Declarations::default())
}

#[test]
fn a_path_with_dot_dot_is_moved_by_no_command() {
    let view = linux_host("/log1/Sales_log.ldf");
    let plan = build(&view, &[med001(&view)], PlanOptions::default());
    let step = plan.steps.iter().find(|s| s.title.starts_with("Move Sales_log")).expect("a move step");
    assert!(
        step.commands.iter().any(|c| c.text.contains("mv /log1/Sales_log.ldf /log2/Sales_log.ldf")),
        "{step:#?}"
    );

    let view = linux_host("/log1/../../etc/shadow");
    let plan = build(&view, &[med001(&view)], PlanOptions::default());
    let step = plan.steps.iter().find(|s| s.title.starts_with("Move Sales_log")).expect("a move step");
    assert_eq!(step.phase, Phase::Manual);
    assert!(step.commands.is_empty(), "{step:#?}");
    assert!(step.why.contains("`/log1/../../etc/shadow` has a `..` segment"), "{}", step.why);
}
