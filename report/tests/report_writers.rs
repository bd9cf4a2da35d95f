//! The JSON and SARIF writers over small hand-written snapshots: field by field, locations
//! (the line of the offending field), waivers, not-evaluated entries, rule errors, SARIF schema
//! validity, and one full snapshot of each format. To accept new output:
//! `INSTA_UPDATE=always cargo test -p spindle-report --test report_writers`, then read the diff.

use spindle_test_support::sarif as sarif_schema;

use std::cell::RefCell;
use std::io::{self, Write};
use std::rc::Rc;

use serde_json::Value;
use spindle_core::date::Date;
use spindle_core::declare::Declarations;
use spindle_core::declare_rule;
use spindle_core::engine::{ActiveRule, HostReport, Waiver, check_host};
use spindle_core::finding::{NotApplicable, Quantity, RuleError, Severity};
use spindle_core::glob::Glob;
use spindle_core::load::parse_snapshot;
use spindle_core::params::{NoParams, ParamValue, Params};
use spindle_core::rule::{Ctx, Rule};
use spindle_core::view::HostView;
use spindle_report::text::{Detail, TextOptions, TextWriter};
use spindle_report::{
    AppliedParam, JsonWriter, ReportWriter, RuleInfo, RuleParams, RunProvenance, SarifWriter, Summary,
    locate_finding, locate_not_evaluated,
};

use sarif_schema::assert_valid_sarif_text;

declare_rule! {
    /// ## What it checks
    /// Test rule: partitions start on 64 KiB, volumes are not compressed and use 64 KiB
    /// clusters, database files read fast.
    ///
    /// ## Why it matters
    /// It exercises the report writers.
    ///
    /// ## How to fix
    /// Realign, decompress, reformat.
    ///
    /// ## References
    /// - A paper with no address, then the rule's primary reference (its `helpUri`), then another:
    ///   <https://learn.microsoft.com/previous-versions/sql/sql-server-2008/dd758814(v=sql.100)>,
    ///   <https://example.com/second>.
    static TEST_RULE = {
        code: "TST001",
        name: "test-rule",
        severity: Error,
        summary: "Test facts are right",
        needs: [Partitions],
        params: [],
        check: check,
    }
}

declare_rule! {
    /// ## What it checks
    /// Needs RAID sets, which the test snapshots never have.
    ///
    /// ## How to fix
    /// Collect them.
    static NEEDS_RAID = {
        code: "TST002",
        name: "needs-raid",
        severity: Warning,
        summary: "RAID sets are looked at",
        needs: [RaidSets],
        params: [],
        check: check_nothing,
    }
}

fn check(cx: &mut Ctx<'_, NoParams>) {
    let view = cx.view;
    for p in view.partitions.iter().flatten() {
        let Some(offset) = cx.need(p, "offset_bytes", p.offset_bytes) else { continue };
        cx.judged(p);
        if !offset.is_multiple_of(65536) {
            cx.report(p, "offset_bytes", format!("partition starts at {offset} B"))
                .values(format!("{offset} B"), "a multiple of 64 KiB")
                .quantities(Quantity::bytes(offset), Quantity::bytes(65536));
        }
    }
    for v in view.volumes.iter().flatten() {
        if v.compressed == Some(true) {
            cx.report(v, "compressed", "volume is compressed");
        }
        if v.allocation_unit_bytes == Some(4096) {
            cx.report(v, "allocation_unit_bytes", "volume uses 4 KiB clusters")
                .severity(Severity::Warning)
                .values("4 KiB", "64 KiB");
        }
    }
    for (_, f) in view.files() {
        if f.io.and_then(|io| io.avg_read_stall_ms()).is_some_and(|ms| ms > 20.0) {
            cx.report(f, "io/io_stall_read_ms", "reads stall 50 ms on average")
                .severity(Severity::Note)
                .values("50 ms", "at most 20 ms")
                .quantities(Quantity::ms(50.5), None);
        }
    }
    // A field no snapshot has: the location falls back to the entity.
    if view.volumes.is_some() {
        cx.report(&view.host, "workload", "no workload declared").severity(Severity::Note).fix("");
    }
}

fn check_nothing(_: &mut Ctx<'_, NoParams>) {}

const SQL01_HOST: &str = r#"{
  "schema_version": 1,
  "host": { "name": "sql01", "os_family": "windows" },
  "collectors": [
    { "name": "wmi", "not_collected": [ { "fact": "raid_sets", "reason": "no RAID controller tool" } ] }
  ],
  "disks": [ { "id": "disk1", "number": 1, "media": "hdd" } ],
  "partitions": [
    { "id": "disk1-p1", "disk_id": "disk1", "number": 1,
      "offset_bytes": 32256 },
    { "id": "disk1-p2", "disk_id": "disk1", "number": 2, "offset_bytes": 1048576 },
    { "id": "disk1-p3", "disk_id": "disk1", "number": 3 }
  ],
  "volumes": [
    { "id": "vol-e", "mount_points": ["E:\\"], "filesystem": "NTFS", "compressed": true,
      "backed_by": { "partitions": ["disk1-p1"] } },
    { "id": "vol-f", "mount_points": ["F:\\"], "filesystem": "NTFS",
      "allocation_unit_bytes": 4096, "backed_by": { "partitions": ["disk1-p2"] } }
  ]
}
"#;

const SQL01_SQL: &str = r#"{
  "schema_version": 1,
  "host": { "name": "sql01" },
  "sql_instances": [
    { "name": "MSSQLSERVER", "databases": [
      { "name": "sales", "files": [
        { "type": "rows", "logical_name": "sales", "physical_name": "E:\\data\\sales.mdf",
          "io": { "num_of_reads": 100, "num_of_writes": 1, "num_of_bytes_read": 819200,
                  "num_of_bytes_written": 8192,
                  "io_stall_read_ms": 5000, "io_stall_write_ms": 1 } }
      ] }
    ] }
  ]
}
"#;

const SQL02: &str = r#"{
  "schema_version": 1,
  "host": { "name": "sql02" },
  "partitions": []
}
"#;

const VERSION: &str = "0.0.0-test";

fn view(docs: &[(&str, &str)]) -> HostView {
    let docs = docs
        .iter()
        .map(|(path, text)| parse_snapshot(path, text.to_string()).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    HostView::build(docs, Declarations::default())
}

fn active() -> Vec<ActiveRule<'static>> {
    [&TEST_RULE, &NEEDS_RAID]
        .into_iter()
        .map(|r| ActiveRule {
            rule: r,
            code: r.meta.code.to_string(),
            severity: r.meta.severity,
            params: Params::defaults(r.meta.params),
        })
        .collect()
}

fn waivers() -> Vec<Waiver> {
    vec![
        Waiver {
            rules: vec!["TST001".into()],
            entity: Glob::new("* › volume E:\\"),
            reason: "compression accepted until the archive moves".into(),
            expires: Some(Date::parse("2030-06-30").unwrap()),
            source: "packs/waivers.toml".into(),
        },
        Waiver {
            rules: vec!["test-rule".into()],
            entity: Glob::new("sql01/volume:*f*"),
            reason: "reformat scheduled".into(),
            expires: Some(Date::parse("2025-12-31").unwrap()),
            source: "packs/waivers.toml".into(),
        },
    ]
}

/// sql01 (two snapshot files, a space in one name) and sql02 (no findings, one rule error, and
/// nothing verified: not judged).
fn fleet() -> Vec<(HostView, HostReport)> {
    let rules = active();
    let today = Date::parse("2026-01-01").unwrap();
    let sql01 = view(&[("snapshots/sql01-host.json", SQL01_HOST), ("snapshots/sql01 sql.json", SQL01_SQL)]);
    let r1 = check_host(&rules, &sql01, &waivers(), today);
    let sql02 = view(&[("snapshots\\sql02.json", SQL02)]);
    let mut r2 = check_host(&rules, &sql02, &waivers(), today);
    r2.errors.push(RuleError { code: "TST001".into(), message: "plugin trapped: unreachable".into() });
    vec![(sql01, r1), (sql02, r2)]
}

fn rule_infos() -> Vec<RuleInfo> {
    active().iter().map(RuleInfo::from_active).collect()
}

/// The run the reports describe: a pinned start, two packs, one parameter set by a pack and one
/// left at its default.
fn provenance() -> RunProvenance {
    let param = |name: &str, value: f64, default: f64, set_by: Option<&str>| AppliedParam {
        name: name.into(),
        value: ParamValue::Num(value),
        default: ParamValue::Num(default),
        set_by: set_by.map(Into::into),
    };
    RunProvenance {
        started_at: "2026-01-01T00:00:00Z".into(),
        packs: vec!["builtin:recommended".into(), "packs/waivers.toml".into()],
        rules: vec![RuleParams {
            code: "TST001".into(),
            params: vec![
                param("alignment_bytes", 65536.0, 65536.0, None),
                param("warn_ms", 12.5, 20.0, Some("packs/waivers.toml")),
            ],
        }],
    }
}

fn run(writer: &mut dyn ReportWriter, hosts: &[(HostView, HostReport)], rules: &[RuleInfo]) -> Summary {
    let mut summary = Summary::default();
    writer.provenance(&provenance());
    writer.begin(rules).unwrap();
    for (v, r) in hosts {
        summary.add(r);
        writer.host(v, r).unwrap();
    }
    writer.finish(&summary).unwrap();
    summary
}

fn json_report(hosts: &[(HostView, HostReport)], rules: &[RuleInfo]) -> String {
    let mut w = JsonWriter::new(Vec::new(), VERSION);
    run(&mut w, hosts, rules);
    String::from_utf8(w.into_inner()).unwrap()
}

fn sarif_report(hosts: &[(HostView, HostReport)], rules: &[RuleInfo]) -> String {
    let mut w = SarifWriter::new(Vec::new(), VERSION);
    run(&mut w, hosts, rules);
    String::from_utf8(w.into_inner()).unwrap()
}

/// 1-based line and column of the first occurrence of `needle` in `text`.
fn position(text: &str, needle: &str) -> (u64, u64) {
    let at = text.find(needle).unwrap_or_else(|| panic!("{needle} not in text"));
    let line = text[..at].matches('\n').count() + 1;
    let col = at - text[..at].rfind('\n').map_or(0, |i| i + 1) + 1;
    (line as u64, col as u64)
}

fn finding<'a>(host: &'a Value, code: &str, field: &str) -> &'a Value {
    host["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == code && f["field"] == field)
        .unwrap_or_else(|| panic!("no {code} finding on {field}"))
}

#[test]
fn json_report_has_every_field() {
    let text = json_report(&fleet(), &rule_infos());
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["spindle_version"], VERSION);
    assert_eq!(doc["report_version"], 3);
    assert_eq!(doc["started_at"], "2026-01-01T00:00:00Z");
    assert_eq!(doc["packs"], serde_json::json!(["builtin:recommended", "packs/waivers.toml"]));
    assert_eq!(
        doc["rules"][0]["params"],
        serde_json::json!([
            {"name": "alignment_bytes", "value": 65536, "default": 65536, "set_by": null},
            {"name": "warn_ms", "value": 12.5, "default": 20, "set_by": "packs/waivers.toml"}
        ])
    );
    assert_eq!(doc["rules"][1]["params"], serde_json::json!([]), "a rule without parameters");
    let sql01 = &doc["hosts"][0];
    assert_eq!(
        sql01["snapshots"],
        serde_json::json!([
            {"path": "snapshots/sql01-host.json", "collected_at": null, "collectors": [{"name": "wmi", "version": null}]},
            {"path": "snapshots/sql01 sql.json", "collected_at": null, "collectors": []}
        ])
    );
    let aln = finding(sql01, "TST001", "offset_bytes");
    assert_eq!(aln["quantities"], serde_json::json!({"measured_bytes": 32256, "expected_bytes": 65536}));
    assert_eq!(finding(sql01, "TST001", "compressed")["quantities"], serde_json::json!({}));
    assert_eq!(
        finding(sql01, "TST001", "io/io_stall_read_ms")["quantities"],
        serde_json::json!({"measured_ms": 50.5})
    );
    let passed = sql01["passed"].as_array().unwrap();
    assert_eq!(passed.len(), 1);
    assert_eq!(passed[0]["code"], "TST001");
    assert_eq!(passed[0]["keys"], serde_json::json!(["sql01/disk:disk1/partition:2"]));
    assert_eq!(doc["summary"]["passed"], passed[0]["keys"].as_array().unwrap().len());
    let rules = doc["rules"].as_array().unwrap();
    assert_eq!(rules.len(), 2);
    assert_eq!(rules[0]["code"], "TST001");
    assert_eq!(rules[0]["name"], "test-rule");
    assert_eq!(rules[0]["severity"], "error");
    assert_eq!(rules[0]["category"], "TST");
    assert_eq!(rules[0]["summary"], "Test facts are right");
    assert!(rules[0]["docs"].as_str().unwrap().starts_with("## What it checks\n"));

    let hosts = doc["hosts"].as_array().unwrap();
    assert_eq!(hosts.len(), 2);
    let sql01 = &hosts[0];
    assert_eq!(sql01["host"], "sql01");
    assert_eq!(
        sql01["sources"],
        serde_json::json!(["snapshots/sql01-host.json", "snapshots/sql01 sql.json"])
    );
    assert_eq!(sql01["rules_run"], 1);

    let f = finding(sql01, "TST001", "offset_bytes");
    assert_eq!(f["rule"], "test-rule");
    assert_eq!(f["severity"], "error");
    assert_eq!(f["message"], "partition starts at 32256 B");
    assert_eq!(f["measured"], "32256 B");
    assert_eq!(f["expected"], "a multiple of 64 KiB");
    assert_eq!(f["entity"]["key"], "sql01/disk:disk1/partition:1");
    assert_eq!(f["entity"]["label"], "sql01 › disk 1 › partition 1 (E:\\)");
    assert_eq!(f["entity"]["kind"], "partition");
    assert_eq!(f["fix"], "Realign, decompress, reformat.");
    assert_eq!(f["waived"], false);
    assert_eq!(f["waiver"], Value::Null);
    assert_eq!(f["fingerprint"].as_str().unwrap().len(), 16);
    let (line, column) = position(SQL01_HOST, "\"offset_bytes\": 32256");
    assert_eq!(
        f["location"],
        serde_json::json!({
            "path": "snapshots/sql01-host.json",
            "pointer": "/partitions/0/offset_bytes",
            "line": line,
            "column": column,
            "end_line": line,
            "end_column": column + "\"offset_bytes\": 32256".len() as u64,
            "exact": true,
        })
    );

    // Waived: stays in the report, marked.
    let w = finding(sql01, "TST001", "compressed");
    assert_eq!(w["waived"], true);
    assert_eq!(w["waiver"]["reason"], "compression accepted until the archive moves");
    assert_eq!(w["waiver"]["expires"], "2030-06-30");
    assert_eq!(w["waiver"]["source"], "packs/waivers.toml");
    assert_eq!(w["waiver"]["expired"], false);
    assert_eq!(w["location"]["line"], position(SQL01_HOST, "\"compressed\": true").0);

    // Expired waiver: counts again.
    let x = finding(sql01, "TST001", "allocation_unit_bytes");
    assert_eq!(x["severity"], "warning");
    assert_eq!(x["waived"], false);
    assert_eq!(x["waiver"]["expired"], true);
    assert_eq!(x["location"]["line"], position(SQL01_HOST, "\"allocation_unit_bytes\": 4096").0);

    // A fact of the second file of the host, nested field.
    let io = finding(sql01, "TST001", "io/io_stall_read_ms");
    assert_eq!(io["entity"]["kind"], "file");
    assert_eq!(io["location"]["path"], "snapshots/sql01 sql.json");
    assert_eq!(io["location"]["pointer"], "/sql_instances/0/databases/0/files/0/io/io_stall_read_ms");
    assert_eq!(io["location"]["line"], position(SQL01_SQL, "\"io_stall_read_ms\": 5000").0);
    assert_eq!(io["location"]["column"], position(SQL01_SQL, "\"io_stall_read_ms\": 5000").1);

    // A field that is not there: the entity itself.
    let h = finding(sql01, "TST001", "workload");
    assert_eq!(h["entity"]["kind"], "host");
    assert_eq!(h["location"]["pointer"], "/host");
    assert_eq!(h["location"]["exact"], false);
    assert_eq!(h["location"]["line"], 3);
    // An empty fix is the docs' fix: no finding goes out without one.
    assert_eq!(h["fix"], "Realign, decompress, reformat.");

    let ne = sql01["not_evaluated"].as_array().unwrap();
    assert_eq!(ne.len(), 2);
    let p3 = ne.iter().find(|n| n["code"] == "TST001").unwrap();
    assert_eq!(p3["rule"], "test-rule");
    assert_eq!(p3["missing"], "offset_bytes");
    assert_eq!(p3["reason"], Value::Null);
    assert_eq!(p3["entity"]["key"], "sql01/disk:disk1/partition:3");
    assert_eq!(p3["location"]["pointer"], "/partitions/2");
    assert_eq!(p3["location"]["line"], position(SQL01_HOST, "{ \"id\": \"disk1-p3\"").0);
    let raid = ne.iter().find(|n| n["code"] == "TST002").unwrap();
    assert_eq!(raid["entity"], Value::Null);
    assert_eq!(raid["missing"], "raid_sets");
    assert_eq!(raid["reason"], "wmi: no RAID controller tool");
    assert_eq!(raid["location"]["pointer"], "/host");
    assert_eq!(sql01["errors"], serde_json::json!([]));
    assert_eq!(sql01["collection_error"], Value::Null);

    let sql02 = &hosts[1];
    assert_eq!(sql02["sources"], serde_json::json!(["snapshots\\sql02.json"]));
    assert_eq!(
        sql02["errors"],
        serde_json::json!([{ "code": "TST001", "message": "plugin trapped: unreachable" }])
    );

    assert_eq!(
        doc["summary"],
        serde_json::json!({
            "hosts": 2, "errors": 1, "warnings": 1, "notes": 2, "waived": 1, "expired_waivers": 1,
            "not_evaluated": 3, "not_applicable": 0, "passed": 1, "rule_errors": 1, "collection_errors": 0,
            "hosts_not_judged": 1, "unreachable_allowed": false, "incomplete": true,
        })
    );
}

#[test]
fn sarif_report_is_valid_and_complete() {
    let text = sarif_report(&fleet(), &rule_infos());
    let log = assert_valid_sarif_text(&text);
    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "spindle");
    assert_eq!(driver["version"], VERSION);
    assert_eq!(driver["informationUri"], "https://github.com/spindle-sql/spindle");
    let rule = &driver["rules"][0];
    assert_eq!(
        rule["helpUri"],
        "https://learn.microsoft.com/previous-versions/sql/sql-server-2008/dd758814(v=sql.100)"
    );
    // TST002's docs have no References heading: no helpUri rather than a made-up one.
    assert_eq!(driver["rules"][1]["id"], "TST002");
    assert!(driver["rules"][1].get("helpUri").is_none(), "{}", driver["rules"][1]);
    assert_eq!(rule["id"], "TST001");
    assert_eq!(rule["name"], "test-rule");
    assert_eq!(rule["shortDescription"]["text"], "Test facts are right");
    assert!(rule["fullDescription"]["text"].as_str().unwrap().starts_with("Test rule: partitions"));
    assert!(rule["help"]["markdown"].as_str().unwrap().contains("## How to fix\nRealign"));
    assert_eq!(rule["defaultConfiguration"]["level"], "error");
    assert_eq!(rule["properties"]["tags"], serde_json::json!(["TST"]));

    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 5);
    for r in results {
        assert_eq!(r["ruleIndex"], 0);
        assert_eq!(r["partialFingerprints"]["spindle/v1"].as_str().unwrap().len(), 16);
    }
    let by_pointer = |p: &str| {
        results.iter().find(|r| r["properties"]["pointer"] == p).unwrap_or_else(|| panic!("no result at {p}"))
    };
    let offset = by_pointer("/partitions/0/offset_bytes");
    assert_eq!(offset["level"], "error");
    assert_eq!(
        offset["message"]["text"],
        "sql01 › disk 1 › partition 1 (E:\\): partition starts at 32256 B\nMeasured: 32256 B; expected: a \
         multiple of 64 KiB.\nFix: Realign, decompress, reformat."
    );
    let (line, column) = position(SQL01_HOST, "\"offset_bytes\": 32256");
    let loc = &offset["locations"][0];
    assert_eq!(loc["physicalLocation"]["artifactLocation"]["uri"], "snapshots/sql01-host.json");
    assert_eq!(
        loc["physicalLocation"]["region"],
        serde_json::json!({ "startLine": line, "startColumn": column, "endLine": line, "endColumn": column + 21 })
    );
    assert_eq!(loc["logicalLocations"][0]["fullyQualifiedName"], "sql01/disk:disk1/partition:1");
    assert_eq!(loc["logicalLocations"][0]["name"], "sql01 › disk 1 › partition 1 (E:\\)");
    assert!(offset.get("suppressions").is_none());

    let waived = by_pointer("/volumes/0/compressed");
    assert_eq!(
        waived["suppressions"],
        serde_json::json!([{
            "kind": "external", "status": "accepted",
            "justification": "compression accepted until the archive moves",
            "properties": { "source": "packs/waivers.toml", "expires": "2030-06-30", "expired": false },
        }])
    );
    let expired = by_pointer("/volumes/1/allocation_unit_bytes");
    assert!(expired.get("suppressions").is_none());
    assert_eq!(expired["properties"]["waiver"]["expired"], true);
    assert_eq!(expired["level"], "warning");

    let io = by_pointer("/sql_instances/0/databases/0/files/0/io/io_stall_read_ms");
    assert_eq!(
        io["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "snapshots/sql01%20sql.json"
    );
    assert_eq!(io["level"], "note");

    let invocation = &run["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    let notes = invocation["toolExecutionNotifications"].as_array().unwrap();
    // sql02 verified nothing (no partition for TST001 to judge): it is not judged, first.
    assert_eq!(notes.len(), 5);
    assert_eq!(notes.iter().filter(|n| n["descriptor"]["id"] == "host-not-judged").count(), 1);
    let ne = notes.iter().find(|n| n["properties"]["missing"] == "offset_bytes").unwrap();
    assert_eq!(ne["level"], "note");
    assert_eq!(ne["descriptor"], serde_json::json!({ "id": "not-evaluated", "index": 0 }));
    assert_eq!(ne["associatedRule"], serde_json::json!({ "id": "TST001", "index": 0 }));
    assert_eq!(
        ne["message"]["text"],
        "TST001 (test-rule) not evaluated for sql01 › disk 1 › partition 3: offset_bytes is missing."
    );
    assert_eq!(
        ne["locations"][0]["physicalLocation"]["region"]["startLine"],
        position(SQL01_HOST, "{ \"id\": \"disk1-p3\"").0
    );
    let raid = notes.iter().find(|n| n["properties"]["missing"] == "raid_sets").unwrap();
    assert_eq!(
        raid["message"]["text"],
        "TST002 (needs-raid) not evaluated for sql01: raid_sets is missing (wmi: no RAID controller tool)."
    );
    assert_eq!(raid["associatedRule"]["index"], 1);
    let err = notes.iter().find(|n| n["descriptor"]["id"] == "rule-error").unwrap();
    assert_eq!(err["level"], "error");
    assert_eq!(err["descriptor"]["id"], "rule-error");
    assert_eq!(err["message"]["text"], "TST001 failed on sql02: plugin trapped: unreachable");
    assert_eq!(invocation["properties"]["summary"]["incomplete"], true);
}

#[test]
fn full_documents() {
    let hosts = fleet();
    let rules = rule_infos();
    insta::assert_snapshot!("report.json", json_report(&hosts, &rules));
    insta::assert_snapshot!("report.sarif", sarif_report(&hosts, &rules));
}

#[test]
fn zero_hosts_and_zero_rules() {
    for rules in [vec![], rule_infos()] {
        let json: Value = serde_json::from_str(&json_report(&[], &rules)).unwrap();
        assert_eq!(json["hosts"], serde_json::json!([]));
        assert_eq!(json["summary"]["hosts"], 0);
        let log = assert_valid_sarif_text(&sarif_report(&[], &rules));
        assert_eq!(log["runs"][0]["results"], serde_json::json!([]));
        assert_eq!(log["runs"][0]["invocations"][0]["executionSuccessful"], true);
        assert_eq!(log["runs"][0]["invocations"][0]["toolExecutionNotifications"], serde_json::json!([]));
    }
}

#[test]
fn unlocatable_findings_fall_back_to_line_one_of_the_first_file() {
    let mut hosts = fleet();
    let (view, report) = &mut hosts[0];
    for f in &mut report.findings {
        for o in &mut f.entity.origins {
            o.pointer = "/nowhere".into();
        }
    }
    assert!(report.findings.iter().all(|f| locate_finding(view, f).is_none()));
    let log = assert_valid_sarif_text(&sarif_report(&hosts, &rule_infos()));
    for r in log["runs"][0]["results"].as_array().unwrap() {
        let physical = &r["locations"][0]["physicalLocation"];
        assert_eq!(physical["artifactLocation"]["uri"], "snapshots/sql01-host.json");
        assert_eq!(physical["region"], serde_json::json!({ "startLine": 1, "startColumn": 1 }));
        assert_eq!(r["properties"]["pointer"], Value::Null);
    }
    let json: Value = serde_json::from_str(&json_report(&hosts, &rule_infos())).unwrap();
    assert!(json["hosts"][0]["findings"].as_array().unwrap().iter().all(|f| f["location"].is_null()));
}

#[test]
fn not_evaluated_locations() {
    let hosts = fleet();
    let (view, report) = &hosts[0];
    for n in &report.not_evaluated {
        let loc = locate_not_evaluated(view, n).unwrap();
        assert!(!loc.exact);
        assert_eq!(loc.path, "snapshots/sql01-host.json");
    }
}

#[test]
fn notification_limit_counts_the_rest() {
    let hosts = fleet();
    let mut w = SarifWriter::new(Vec::new(), VERSION).with_notification_limit(1);
    run(&mut w, &hosts, &rule_infos());
    let log = assert_valid_sarif_text(&String::from_utf8(w.into_inner()).unwrap());
    let notes = log["runs"][0]["invocations"][0]["toolExecutionNotifications"].as_array().unwrap();
    // sql02 not judged, one not-evaluated kept, the rule error, and the count of the two left out.
    assert_eq!(notes.len(), 4);
    let omitted = notes.iter().find(|n| n["descriptor"]["id"] == "not-evaluated-omitted").unwrap();
    assert!(omitted["message"]["text"].as_str().unwrap().starts_with("2 more not-evaluated"));
}

/// A sink the test can read while a writer holds it.
#[derive(Clone, Default)]
struct Shared(Rc<RefCell<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn hosts_are_written_as_they_come() {
    let hosts = fleet();
    let rules = rule_infos();
    let json = Shared::default();
    let sarif = Shared::default();
    let mut writers: Vec<(Box<dyn ReportWriter>, &Shared, &str)> = vec![
        (Box::new(JsonWriter::new(json.clone(), VERSION)), &json, "\"offset_bytes\""),
        (Box::new(SarifWriter::new(sarif.clone(), VERSION)), &sarif, "\"ruleId\": \"TST001\""),
    ];
    let mut summary = Summary::default();
    summary.add(&hosts[0].1);
    for (w, sink, expect) in &mut writers {
        w.begin(&rules).unwrap();
        let before = sink.0.borrow().len();
        w.host(&hosts[0].0, &hosts[0].1).unwrap();
        assert!(String::from_utf8_lossy(&sink.0.borrow()[before..]).contains(*expect));
        w.finish(&summary).unwrap();
    }
    serde_json::from_slice::<Value>(&json.0.borrow()).unwrap();
    assert_valid_sarif_text(std::str::from_utf8(&sarif.0.borrow()).unwrap());
}

/// Hosts rendered ahead of time (as worker threads render them), then appended in order, give
/// the same bytes as hosts written one by one, the SARIF notification limit included.
#[test]
fn hosts_rendered_ahead_are_written_as_if_one_by_one() {
    let hosts = fleet();
    let rules = rule_infos();
    let writers = |out: Shared| -> Vec<Box<dyn ReportWriter>> {
        vec![
            Box::new(JsonWriter::new(out.clone(), VERSION)),
            Box::new(SarifWriter::new(out.clone(), VERSION)),
            Box::new(SarifWriter::new(out, VERSION).with_notification_limit(1)),
        ]
    };
    let (one_by_one, ahead) = (Shared::default(), Shared::default());
    for (mut a, mut b) in writers(one_by_one.clone()).into_iter().zip(writers(ahead.clone())) {
        let mut summary = Summary::default();
        a.begin(&rules).unwrap();
        b.begin(&rules).unwrap();
        // The fleet three times over: the first round rendered before anything is appended,
        // the others each just before it is appended, so with a limit of one they are rendered
        // after the writer has all the notifications it keeps (SARIF then only counts them).
        let render = b.renderer();
        for round in 0..3 {
            let mut rendered = vec![];
            for (v, r) in &hosts {
                a.host(v, r).unwrap();
                summary.add(r);
                if round == 0 {
                    rendered.push(render.render(v, r).unwrap());
                } else {
                    b.append(&render.render(v, r).unwrap()).unwrap();
                }
            }
            for piece in &rendered {
                b.append(piece).unwrap();
            }
        }
        a.finish(&summary).unwrap();
        b.finish(&summary).unwrap();
    }
    assert_eq!(String::from_utf8_lossy(&one_by_one.0.borrow()), String::from_utf8_lossy(&ahead.0.borrow()));
}

#[test]
fn calls_out_of_order_are_errors() {
    let hosts = fleet();
    let (view, report) = &hosts[0];
    let mut w = JsonWriter::new(Vec::new(), VERSION);
    assert!(w.host(view, report).is_err());
    let mut s = SarifWriter::new(Vec::new(), VERSION);
    assert!(s.finish(&Summary::default()).is_err());
    s.begin(&[]).unwrap();
    assert!(s.begin(&[]).is_err());
}

#[test]
fn plugin_codes_keep_their_namespace() {
    let info = RuleInfo::from_meta("acme/TST001", TEST_RULE.meta(), Severity::Warning);
    assert_eq!(info.category, "acme/TST");
    assert_eq!(info.severity, Severity::Warning);
    assert_eq!(info.doc_section("How to fix"), Some("Realign, decompress, reformat."));
}

#[test]
fn servers_that_gave_no_facts_are_reported_and_make_the_run_incomplete() {
    let hosts = fleet();
    let rules = rule_infos();
    let write = |w: &mut dyn ReportWriter| {
        let mut summary = Summary::default();
        w.begin(&rules).unwrap();
        w.collection_error(r"sql09\SALES", "cannot connect: Connection refused (os error 111)").unwrap();
        for (v, r) in &hosts {
            summary.add(r);
            w.host(v, r).unwrap();
        }
        summary.collection_errors += 1;
        w.finish(&summary).unwrap();
        summary
    };

    let mut jw = JsonWriter::new(Vec::new(), VERSION);
    let summary = write(&mut jw);
    assert!(summary.incomplete());
    let doc: Value = serde_json::from_slice(&jw.into_inner()).unwrap();
    let down = &doc["hosts"][0];
    assert_eq!(down["host"], r"sql09\SALES");
    assert_eq!(down["collection_error"], "cannot connect: Connection refused (os error 111)");
    assert_eq!((down["rules_run"].as_u64(), down["findings"].as_array().map(Vec::len)), (Some(0), Some(0)));
    assert_eq!(doc["summary"]["collection_errors"], 1);
    assert_eq!(doc["summary"]["incomplete"], true);

    let mut sw = SarifWriter::new(Vec::new(), VERSION);
    write(&mut sw);
    let log = assert_valid_sarif_text(&String::from_utf8(sw.into_inner()).unwrap());
    let inv = &log["runs"][0]["invocations"][0];
    assert_eq!(inv["executionSuccessful"], false);
    let note = inv["toolExecutionNotifications"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["descriptor"]["id"] == "collection-error")
        .expect("a collection-error notification");
    assert_eq!(note["level"], "error");
    assert!(
        note["message"]["text"]
            .as_str()
            .unwrap()
            .starts_with(r"sql09\SALES: no facts collected: cannot connect")
    );
    let index = note["descriptor"]["index"].as_u64().unwrap() as usize;
    assert_eq!(log["runs"][0]["tool"]["driver"]["notifications"][index]["id"], "collection-error");
}

/// sql01 with a file its rule chose not to judge, and `bare`, a host whose snapshot holds no
/// section any rule needs.
fn judged_and_not() -> Vec<(HostView, HostReport)> {
    let rules = active();
    let today = Date::parse("2026-01-01").unwrap();
    let sql01 = view(&[("snapshots/sql01-host.json", SQL01_HOST), ("snapshots/sql01 sql.json", SQL01_SQL)]);
    let mut r1 = check_host(&rules, &sql01, &[], today);
    let (_, file) = sql01.files().next().unwrap();
    r1.not_applicable.push(NotApplicable {
        code: "TST001".into(),
        rule: "test-rule".into(),
        entity: file.entity(),
        field: "io/num_of_reads".into(),
        reason: "only 100 reads, fewer than min_reads = 1,000".into(),
    });
    let bare = view(&[("snapshots/bare.json", "{\"schema_version\": 1, \"host\": {\"name\": \"bare\"}}\n")]);
    let r2 = check_host(&rules, &bare, &[], today);
    vec![(sql01, r1), (bare, r2)]
}

fn text_report(hosts: &[(HostView, HostReport)], summary_of: impl Fn(&mut Summary)) -> String {
    text_report_with(hosts, summary_of, TextOptions::default())
}

fn text_report_with(
    hosts: &[(HostView, HostReport)],
    summary_of: impl Fn(&mut Summary),
    options: TextOptions,
) -> String {
    let mut out = Vec::new();
    let mut w = TextWriter::with_options(&mut out, options);
    let mut summary = Summary::default();
    w.begin(&rule_infos()).unwrap();
    for (v, r) in hosts {
        summary.add(r);
        w.host(v, r).unwrap();
    }
    summary_of(&mut summary);
    w.finish(&summary).unwrap();
    drop(w);
    String::from_utf8(out).unwrap()
}

#[test]
fn a_host_not_judged_and_entries_not_applicable_show_in_every_format() {
    let hosts = judged_and_not();
    assert_eq!(hosts[1].1.not_judged.len(), 1, "{:?}", hosts[1].1);
    let why = "none of the 2 active rules could be evaluated: the snapshots lack partitions, raid_sets";
    assert_eq!(hosts[1].1.not_judged[0], why);

    let doc: Value = serde_json::from_str(&json_report(&hosts, &rule_infos())).unwrap();
    let (sql01, bare) = (&doc["hosts"][0], &doc["hosts"][1]);
    assert_eq!(sql01["not_judged"], Value::Null);
    assert_eq!(bare["not_judged"], why);
    assert_eq!(bare["rules_run"], 0);
    let na = &sql01["not_applicable"][0];
    assert_eq!(na["code"], "TST001");
    assert_eq!(na["field"], "io/num_of_reads");
    assert_eq!(na["reason"], "only 100 reads, fewer than min_reads = 1,000");
    assert_eq!(na["entity"]["kind"], "file");
    assert_eq!(na["location"]["path"], "snapshots/sql01 sql.json");
    assert_eq!(na["location"]["exact"], true);
    assert_eq!(na["location"]["line"], position(SQL01_SQL, "\"num_of_reads\": 100").0);
    let s = &doc["summary"];
    assert_eq!((s["not_applicable"].as_u64(), s["hosts_not_judged"].as_u64()), (Some(1), Some(1)));
    assert_eq!(
        s["not_evaluated"], 4,
        "two on sql01, both rules on bare: the not-applicable entry is not one"
    );
    assert_eq!(s["incomplete"], true);

    let log = assert_valid_sarif_text(&sarif_report(&hosts, &rule_infos()));
    let inv = &log["runs"][0]["invocations"][0];
    assert_eq!(inv["executionSuccessful"], false);
    let notes = inv["toolExecutionNotifications"].as_array().unwrap();
    let of = |id: &str| notes.iter().filter(|n| n["descriptor"]["id"] == id).collect::<Vec<_>>();
    let not_judged = of("host-not-judged");
    assert_eq!(not_judged.len(), 1);
    assert_eq!(not_judged[0]["level"], "error");
    assert_eq!(not_judged[0]["message"]["text"], format!("bare: spindle could not judge this host: {why}."));
    assert_eq!(not_judged[0]["properties"]["host"], "bare");
    let na = of("not-applicable");
    assert_eq!(na.len(), 1);
    assert_eq!(na[0]["level"], "note");
    assert_eq!(na[0]["properties"]["field"], "io/num_of_reads");
    assert_eq!(na[0]["associatedRule"]["id"], "TST001");
    let drivers = &log["runs"][0]["tool"]["driver"]["notifications"];
    for n in [&not_judged[0], &na[0]] {
        let index = n["descriptor"]["index"].as_u64().unwrap() as usize;
        assert_eq!(drivers[index]["id"], n["descriptor"]["id"]);
    }
    assert_eq!(inv["properties"]["summary"]["hostsNotJudged"], 1);

    let text = text_report(&hosts, |_| {});
    let bare_at = text.find("━━ bare").unwrap();
    // The verdict comes first, wrapped to the report's width.
    let after_title = text[bare_at..].split_once('\n').unwrap().1;
    let flat = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat(after_title).starts_with(&format!("✗ spindle could not judge this host: {why}")),
        "the verdict comes first:\n{text}"
    );
    assert!(!text[bare_at..].contains("no findings from"), "{text}");
    assert!(!text.contains("── not applicable"), "not applicable stays out of the default view: {text}");
    assert!(text.contains(" · 1 not applicable"), "but it is counted: {text}");
    let verbose =
        text_report_with(&hosts, |_| {}, TextOptions { detail: Detail::Verbose, ..TextOptions::default() });
    assert!(
        verbose.contains("── not applicable (facts present; the rule chose not to judge them)"),
        "{verbose}"
    );
    assert!(verbose.contains("  - TST001 test-rule on sql01 › MSSQLSERVER › sales › sales"), "{verbose}");
    let last = text.lines().last().unwrap();
    assert!(last.ends_with("; 1 not applicable; 1 host not judged — the run is incomplete"), "{last}");
}

#[test]
fn servers_allowed_to_be_unreachable_leave_the_run_complete() {
    let hosts = judged_and_not();
    let hosts = &hosts[..1];
    let allow = |s: &mut Summary| {
        s.collection_errors += 1;
        s.unreachable_allowed = true;
    };
    let text = text_report(hosts, allow);
    let last = text.lines().last().unwrap();
    assert!(last.ends_with("; 1 server not collected (unreachable servers allowed)"), "{last}");
    assert!(!text.contains("incomplete"), "{text}");
    // Not allowed: the same run is incomplete.
    let text = text_report(hosts, |s| s.collection_errors += 1);
    assert!(text.ends_with("; 1 server not collected — the run is incomplete\n"), "{text}");

    let finish = |w: &mut dyn ReportWriter| {
        let mut summary = Summary::default();
        w.begin(&rule_infos()).unwrap();
        w.collection_error("sql09", "login failed").unwrap();
        for (v, r) in hosts {
            summary.add(r);
            w.host(v, r).unwrap();
        }
        allow(&mut summary);
        w.finish(&summary).unwrap();
    };
    let mut jw = JsonWriter::new(Vec::new(), VERSION);
    finish(&mut jw);
    let doc: Value = serde_json::from_slice(&jw.into_inner()).unwrap();
    assert_eq!(doc["hosts"][0]["collection_error"], "login failed");
    assert_eq!(
        (doc["summary"]["incomplete"].as_bool(), doc["summary"]["unreachable_allowed"].as_bool()),
        (Some(false), Some(true))
    );
    let mut sw = SarifWriter::new(Vec::new(), VERSION);
    finish(&mut sw);
    let log = assert_valid_sarif_text(&String::from_utf8(sw.into_inner()).unwrap());
    let inv = &log["runs"][0]["invocations"][0];
    assert_eq!(inv["executionSuccessful"], true, "the run did what it was asked to");
    assert!(
        inv["toolExecutionNotifications"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["descriptor"]["id"] == "collection-error")
    );
    assert_eq!(inv["properties"]["summary"]["incomplete"], false);
}

/// Split logs kept in memory: `(stem, bytes)` in the order closed.
#[derive(Default)]
struct MemoryFiles {
    open: Vec<String>,
    closed: Vec<(String, Vec<u8>)>,
}

impl spindle_report::sarif_split::SplitFiles for &mut MemoryFiles {
    type File = Vec<u8>;
    fn create(&mut self, stem: &str) -> io::Result<(Self::File, String)> {
        let taken = |n: &str| self.open.iter().any(|o| o == n);
        let name =
            (1..).map(|i| if i == 1 { stem.to_string() } else { format!("{stem}-{i}") }).find(|n| !taken(n));
        let name = name.unwrap();
        self.open.push(name.clone());
        Ok((vec![], name))
    }
    /// Logs are written one at a time: the file closed is the last created.
    fn close(&mut self, file: Self::File) -> io::Result<()> {
        self.closed.push((self.open.last().unwrap().clone(), file));
        Ok(())
    }
}

#[test]
fn split_logs_are_whole_logs_of_one_host_each() {
    use spindle_report::sarif_split::SplitSarifWriter;
    let mut files = MemoryFiles::default();
    let hosts = fleet();
    let mut w = SplitSarifWriter::new(&mut files, VERSION, Some("erp/"), false);
    let summary = run(&mut w, &hosts, &rule_infos());
    drop(w);
    assert_eq!(summary.hosts, 2);
    let whole = assert_valid_sarif_text(&sarif_report(&hosts, &rule_infos()));
    let names: Vec<&str> = files.closed.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["sql01", "sql02"]);
    let mut results = 0;
    for (name, bytes) in &files.closed {
        let log = assert_valid_sarif_text(std::str::from_utf8(bytes).unwrap());
        let run = &log["runs"][0];
        assert_eq!(run["automationDetails"]["id"], format!("erp/{name}/"));
        assert_eq!(run["invocations"][0]["properties"]["summary"]["hosts"], 1);
        // Only the rules the host's report names, and results name them by id.
        let ids: Vec<&str> = run["tool"]["driver"]["rules"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_str().unwrap())
            .collect();
        for r in run["results"].as_array().unwrap() {
            assert!(r.get("ruleIndex").is_none(), "{r}");
            assert!(ids.contains(&r["ruleId"].as_str().unwrap()));
            assert_eq!(r["properties"]["host"], *name);
        }
        assert!(
            run["invocations"][0]["ruleConfigurationOverrides"]
                .as_array()
                .unwrap()
                .iter()
                .all(|o| ids.contains(&o["descriptor"]["id"].as_str().unwrap())
                    && o["descriptor"].get("index").is_none())
        );
        results += run["results"].as_array().unwrap().len();
    }
    assert_eq!(results, whole["runs"][0]["results"].as_array().unwrap().len());
    // The whole log of the host with a rule error, as written.
    insta::assert_snapshot!("split-sql02.sarif", std::str::from_utf8(&files.closed[1].1).unwrap());
    // sql02's rule error makes its log, not sql01's, unsuccessful.
    let successful = |i: usize| {
        let log: Value = serde_json::from_slice(&files.closed[i].1).unwrap();
        log["runs"][0]["invocations"][0]["executionSuccessful"].as_bool().unwrap()
    };
    assert!(successful(0));
    assert!(!successful(1));

    // Each log has its own limit on notifications: one host past it leaves the next one's whole.
    let mut files = MemoryFiles::default();
    let mut w = SplitSarifWriter::new(&mut files, VERSION, None, false).with_notification_limit(1);
    run(&mut w, &hosts, &rule_infos());
    drop(w);
    for (i, (name, bytes)) in files.closed.iter().enumerate() {
        let log: Value = serde_json::from_slice(bytes).unwrap();
        let notes = log["runs"][0]["invocations"][0]["toolExecutionNotifications"].as_array().unwrap();
        let by = |id: &str| notes.iter().filter(|n| n["descriptor"]["id"] == id).count();
        let (kept, omitted) = (by("not-evaluated") + by("not-applicable"), by("not-evaluated-omitted"));
        let entries = hosts[i].1.not_evaluated.len() + hosts[i].1.not_applicable.len();
        // sql01 goes past the limit; sql02, after it, has an entry of its own to keep.
        assert!(entries > usize::from(i == 0), "{name}: {entries}");
        assert_eq!(kept, entries.min(1), "{name}");
        assert_eq!(omitted, usize::from(entries > 1), "{name}");
    }
}
