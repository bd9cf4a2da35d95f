//! The acme rules, run natively through the SDK's `check` (what the component runs).

use spindle_plugin_sdk::serde_json::{Value, json};
use spindle_plugin_sdk::testing::{config_json, problems, run};
use spindle_plugin_sdk::{check, wit};

use crate::Acme;

fn example(path: &str) -> String {
    let p = format!("{}/../../{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

fn codes(out: &wit::CheckOutput) -> Vec<(&str, &str)> {
    out.findings.iter().map(|f| (f.code.as_str(), f.entity.as_str())).collect()
}

#[test]
fn pack_is_well_formed() {
    assert_eq!(problems::<Acme>(), Vec::<String>::new());
}

#[test]
fn a_folder_named_sqldata_is_not_a_data_mount() {
    let out = run::<Acme>(&example("azure-storage-spaces/azsql-oltp01.json"), Value::Null).unwrap();
    let e = r"azsql-oltp01/volume:\\?\volume{d2b84f61-4a1e-11e4-80b4-00155d2b6a01}";
    assert_eq!(
        codes(&out),
        [("ACM001", "azsql-oltp01/instance:MSSQLSERVER/database:SalesOLTP/file:SalesOLTP"), ("ACM002", e)]
    );
    let m = &out.findings[0].message;
    assert!(m.contains(r"mounted at E:\, not at a data mount point of the standard (`*\SQLData*`)"), "{m}");
    assert!(m.contains(r"E:\SQLData is named like one, but it is a folder on E:\"), "{m}");
    assert_eq!(out.findings[0].field.as_deref(), Some("physical_name"));
    let m = &out.findings[1].message;
    assert!(m.contains("has the label \"SQLData\", without the word \"LOG\""), "{m}");
    assert!(out.not_evaluated.is_empty(), "{:?}", out.not_evaluated);
}

#[test]
fn free_space_on_production_hosts_only() {
    let facts = example("win2003-sector63/erp-sql1.json");
    let out = run::<Acme>(&facts, Value::Null).unwrap();
    let d = r"erp-sql1/volume:\\?\volume{5e1b8a37-caf0-11dc-9e24-806d6172696f}";
    assert_eq!(
        codes(&out),
        [("ACM001", "erp-sql1/instance:MSSQLSERVER/database:ERP_PROD/file:ERP_PROD_Data"), ("ACM003", d)]
    );
    let m = &out.findings[1].message;
    assert!(
        m.starts_with(r"production volume D:\ has 110.78 GiB free of 499.99 GiB (22.1 %), below the 30 %"),
        "{m}"
    );

    let out = run::<Acme>(&facts, json!({"production_hosts": ["*-prd-*"]})).unwrap();
    assert_eq!(codes(&out).iter().map(|c| c.0).collect::<Vec<_>>(), ["ACM001"]);
    let out = run::<Acme>(&facts, json!({"production_hosts": ["ERP-SQL?"]})).unwrap();
    assert_eq!(codes(&out).iter().map(|c| c.0).collect::<Vec<_>>(), ["ACM001", "ACM003"]);

    // The threshold is a parameter.
    let cfg = config_json(Value::Null, json!({"ACM003": {"min_free_percent": 20}}), Value::Null);
    let out = check::<Acme>(facts.clone(), &["ACM003".into()], &cfg).unwrap();
    assert!(out.findings.is_empty());
    let cfg = config_json(Value::Null, json!({"ACM003": {"min_free_percent": 130}}), Value::Null);
    match check::<Acme>(facts, &["ACM003".into()], &cfg) {
        Err(wit::CheckError::BadConfig(m)) => assert!(m.contains("ACM003.min_free_percent"), "{m}"),
        other => panic!("{other:?}"),
    }
}

const FOLDER_MOUNTS: &str = r#"{"schema_version": 1, "host": {"name": "sql-prd-01", "os_family": "windows"},
  "volumes": [
    {"id": "e", "mount_points": ["E:\\"], "label": "Apps", "size_bytes": 1000, "free_bytes": 500},
    {"id": "d1", "mount_points": ["E:\\SQLData01\\"], "label": "SQLData01", "size_bytes": 1000, "free_bytes": 310},
    {"id": "l1", "mount_points": ["L:\\"], "label": "sqllog01", "size_bytes": 1000, "free_bytes": 200}],
  "sql_instances": [{"name": "MSSQLSERVER", "databases": [
    {"name": "Sales", "files": [
      {"type": "rows", "logical_name": "Sales", "physical_name": "e:\\sqldata01\\Sales.mdf"},
      {"type": "rows", "logical_name": "Sales2", "physical_name": "E:\\SQLDataOld\\Sales2.ndf"},
      {"type": "log", "logical_name": "Sales_log", "physical_name": "L:\\Sales_log.ldf"}]},
    {"name": "master", "files": [
      {"type": "rows", "logical_name": "master", "physical_name": "E:\\master.mdf"}]}]}]}"#;

#[test]
fn judged_by_the_mount_point_of_the_volume() {
    let out = run::<Acme>(FOLDER_MOUNTS, Value::Null).unwrap();
    // Sales.mdf is on the volume mounted at E:\SQLData01\ (paths compare without case on
    // Windows); Sales2.ndf is in a folder of E:\ whose name only starts like it; master is a
    // system database. L:\ is labelled "sqllog01" and only has 20 % free.
    assert_eq!(
        codes(&out),
        [
            ("ACM001", "sql-prd-01/instance:MSSQLSERVER/database:Sales/file:Sales2"),
            ("ACM003", "sql-prd-01/volume:l1")
        ]
    );
    let m = &out.findings[0].message;
    assert!(m.contains(r"E:\SQLDataOld is named like one, but it is a folder on E:\"), "{m}");

    // The standard's words come from the config: drive roots only (`E:\` as written, or `e:`).
    let cfg = json!({"data_mounts_windows": ["?:\\"], "log_label_word": "SQLDATA"});
    let out = run::<Acme>(FOLDER_MOUNTS, cfg).unwrap();
    assert_eq!(
        codes(&out),
        [
            ("ACM001", "sql-prd-01/instance:MSSQLSERVER/database:Sales/file:Sales"),
            ("ACM002", "sql-prd-01/volume:l1"),
            ("ACM003", "sql-prd-01/volume:l1")
        ]
    );
}

const LINUX: &str = r#"{"schema_version": 1, "host": {"name": "lnx-sql01", "os_family": "linux"},
  "volumes": [
    {"id": "/dev/sda2", "mount_points": ["/"], "size_bytes": 1000, "free_bytes": 900},
    {"id": "/dev/md0", "mount_points": ["/var/opt/mssql/data"], "label": "sqldata", "size_bytes": 1000, "free_bytes": 500},
    {"id": "/dev/md1", "mount_points": ["/var/opt/mssql/log"], "size_bytes": 1000, "free_bytes": 500}],
  "sql_instances": [{"name": "MSSQLSERVER", "databases": [
    {"name": "A", "files": [
      {"type": "rows", "logical_name": "A", "physical_name": "/var/opt/mssql/data/A.mdf"},
      {"type": "rows", "logical_name": "B", "physical_name": "/var/opt/mssql/Data/B.mdf"},
      {"type": "rows", "logical_name": "C", "physical_name": "/srv/C.mdf", "volume_id": "/dev/nope"},
      {"type": "log", "logical_name": "A_log", "physical_name": "/var/opt/mssql/log/A_log.ldf"}]}]}]}"#;

#[test]
fn linux_paths_are_case_sensitive_and_missing_facts_are_not_evaluated() {
    let out = run::<Acme>(LINUX, Value::Null).unwrap();
    assert_eq!(codes(&out), [("ACM001", "lnx-sql01/instance:MSSQLSERVER/database:A/file:B")]);
    assert!(
        out.findings[0].message.contains("mounted at /, not at a data mount point"),
        "{}",
        out.findings[0].message
    );
    let ne: Vec<(&str, Option<&str>, &str)> = out
        .not_evaluated
        .iter()
        .map(|n| (n.code.as_str(), n.entity.as_deref(), n.missing.as_str()))
        .collect();
    assert_eq!(
        ne,
        [
            ("ACM001", Some("lnx-sql01/instance:MSSQLSERVER/database:A/file:C"), "volumes"),
            ("ACM002", Some("lnx-sql01/volume:/dev/md1"), "label"),
            ("ACM003", Some("lnx-sql01/instance:MSSQLSERVER/database:A/file:C"), "volumes"),
        ]
    );
    // In the words of spindle's own rules.
    assert_eq!(
        out.not_evaluated[0].reason.as_deref(),
        Some("the volume of C is unknown: no collected volume has its volume_id /dev/nope")
    );
}

#[test]
fn a_bad_config_table_is_refused() {
    for (cfg, needle) in [
        (json!({"data_mount_windows": []}), "unknown field `data_mount_windows`"),
        (json!({"log_label_word": " "}), "log_label_word is empty"),
        (json!({"data_mounts_windows": [], "data_mounts_linux": []}), "both empty"),
        (json!({"production_hosts": "erp-sql1"}), "invalid type: string"),
        (json!([1]), "expected a table, found [1]"),
    ] {
        match run::<Acme>(FOLDER_MOUNTS, cfg.clone()) {
            Err(wit::CheckError::BadConfig(m)) => {
                assert!(m.starts_with("config of plugin acme: ") && m.contains(needle), "{cfg}: {m}")
            }
            other => panic!("{cfg}: {other:?}"),
        }
    }
}
